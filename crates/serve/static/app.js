// clue-db serve: play mode (clue-db gives the clues, you guess) and assist mode (your board,
// live suggestions). Plain JS, no build step; everything goes through the JSON API under /api/.
'use strict';

const $ = (sel, el = document) => el.querySelector(sel);
const ROLES = {
  red: { label: 'Red agent', sym: '▲' },
  blue: { label: 'Blue agent', sym: '●' },
  bystander: { label: 'Bystander', sym: '■' },
  assassin: { label: 'Assassin', sym: '✖' },
};
const isRole = (r) => typeof r === 'string' && Object.hasOwn(ROLES, r);
// The largest seed a browser holds exactly (2^53 − 1); `clue-db play --seed N` takes any.
const MAX_SEED = Number.MAX_SAFE_INTEGER;
// The server's largest request body (MAX_BODY in api.rs), in bytes.
const MAX_BODY_BYTES = 16384;
const LAYOUT = [...Array(9).fill('red'), ...Array(8).fill('blue'), ...Array(7).fill('bystander'), 'assassin'];

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

// One API call; a non-2xx answer throws an Error carrying the JSON body (`.data`).
async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  };
  let r;
  try {
    r = await fetch(path, opts);
  } catch (_) {
    // The browser's own words ("Failed to fetch") say nothing of what to do.
    const e = new Error('clue-db serve is not answering: was it stopped or restarted? Start it again, then reload this page.');
    e.status = 0;
    throw e;
  }
  let data;
  try { data = await r.json(); } catch (_) { data = { error: `HTTP ${r.status}` }; }
  if (!r.ok) {
    const e = new Error(data.error || `HTTP ${r.status}`);
    e.data = data;
    e.status = r.status;
    throw e;
  }
  return data;
}

function badge(role) {
  const r = ROLES[role];
  return el('span', { class: 'badge' }, el('span', { class: 'sym', 'aria-hidden': 'true', text: r.sym }), ' ',
    el('span', { class: 'label', text: r.label }));
}

function roleChip(word, role) {
  return el('span', { class: `chip role-${role}`, title: ROLES[role].label },
    `${word} `, el('span', { 'aria-hidden': 'true', text: ROLES[role].sym }),
    el('span', { class: 'sr', text: ` (${ROLES[role].label})` }));
}

// Evidence of a clue for some cards, into `target`: the last asked for (an earlier answer
// arriving late, for a clue no longer shown, is dropped).
const evidenceAsked = new Map();
async function showEvidence(target, clue, terms) {
  const asked = (evidenceAsked.get(target) || 0) + 1;
  evidenceAsked.set(target, asked);
  const current = () => evidenceAsked.get(target) === asked;
  target.replaceChildren(el('p', { text: `Evidence for “${clue}”…` }));
  try {
    const ex = await api('/api/explain', { clue, terms });
    if (!current()) return;
    const items = ex.terms.map(({ term, typed, evidence: e, relatedness: r, meeting: m,
      definition_raise: raised, parts: words }) => {
      const parts = [];
      if (r && typed && !words) {
        // A word no list names, scored from the vectors: its PPMI is not kept.
        parts.push(`relatedness ${r.score.toFixed(2)} (cosine ${r.cosine.toFixed(2)}; ` +
          `no list names “${term}”: scored from the word vectors)`);
      } else if (r && words && words.length === 1) {
        parts.push(`relatedness ${r.score.toFixed(2)} (as “${words[0]}”: no list names “${term}”)`);
      } else if (r && words) {
        parts.push(`relatedness ${r.score.toFixed(2)} (the mean of the scores of ` +
          `${words.map((w) => `“${w}”`).join(' and ')}: no list names “${term}”)`);
      } else if (r) {
        parts.push(`relatedness ${r.score.toFixed(2)} (PPMI ${r.ppmi.toFixed(2)}, cosine ` +
          `${r.cosine.toFixed(2)}, together ${r.cooccurrences}× in a sentence)`);
      }
      if (raised) {
        parts.push(`${raised.toFixed(2)} of it because the dictionary defines “${term}” by “${clue}”`);
      }
      if (e) {
        const where = e.direction === 'clue_page'
          ? `“${term}” counted ${e.count}× in the page “${e.page_title}”`
          : `“${clue}” counted ${e.count}× in the page “${e.page_title}”`;
        parts.push(`score ${e.score.toFixed(2)}: ${where}`);
      }
      if (!parts.length) return el('li', {}, el('b', { text: term }), ': no evidence (score 0)');
      const quote = m && m.excerpt
        ? el('blockquote', { text: `${m.excerpt} (${m.page_title})` })
        : (e && e.excerpt ? el('blockquote', { text: e.excerpt }) : null);
      return el('li', {}, el('b', { text: term }), `: ${parts.join('; ')}`, quote);
    });
    target.replaceChildren(el('h3', { text: `Why “${clue}”` }), el('ul', {}, ...items));
  } catch (err) {
    if (current()) target.replaceChildren(el('p', { class: 'status error', text: err.message }));
  }
}

// Clears `target`, and drops the evidence still on its way to it.
function clearEvidence(target) {
  evidenceAsked.set(target, (evidenceAsked.get(target) || 0) + 1);
  target.replaceChildren();
}

// ---- tabs -----------------------------------------------------------------------------------
function selectTab(name) {
  for (const t of ['play', 'assist']) {
    const on = t === name;
    const tab = $(`#tab-${t}`);
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    $(`#${t}`).hidden = !on;
  }
  if (location.hash !== `#${name}`) history.replaceState(null, '', `#${name}`);
  if (name === 'assist') assist.refresh();
  // Words are measured only while their grid is shown.
  else fitWords($('#play-grid'));
}
for (const t of ['play', 'assist']) $(`#tab-${t}`).addEventListener('click', () => selectTab(t));
$('.tabs').addEventListener('keydown', (ev) => {
  if (ev.key !== 'ArrowLeft' && ev.key !== 'ArrowRight') return;
  const next = $('#tab-play').getAttribute('aria-selected') === 'true' ? 'assist' : 'play';
  selectTab(next);
  $(`#tab-${next}`).focus();
});

// Shrinks each card word wider than its card (SHAKESPEARE on a phone) until it fits, rather
// than let it break inside the word; again when the window changes size.
function fitWords(grid) {
  for (const w of grid.querySelectorAll('.card .word')) {
    w.style.fontSize = '';
    let size = parseFloat(getComputedStyle(w).fontSize);
    while (w.scrollWidth > w.clientWidth && size > 6) {
      size -= 0.5;
      w.style.fontSize = `${size}px`;
    }
  }
}
let fitPending = false;
window.addEventListener('resize', () => {
  if (fitPending) return;
  fitPending = true;
  requestAnimationFrame(() => { fitPending = false; fitWords($('#play-grid')); });
});

// Arrow keys move between the cards of a grid, as wide as it is drawn (five; two for assist
// mode on a phone); in assist mode's words, Left and Right at a word's edge only.
function gridKeys(grid, selector) {
  grid.addEventListener('keydown', (ev) => {
    const wide = getComputedStyle(grid).gridTemplateColumns.split(' ').filter(Boolean).length || 5;
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -wide, ArrowDown: wide };
    if (!(ev.key in moves)) return;
    const cards = [...grid.querySelectorAll(selector)];
    const i = cards.indexOf(document.activeElement);
    if (i < 0) return;
    // In a word being typed, Left and Right move the caret, and leave the card at its edge;
    // Up and Down belong to the word's suggestions (its datalist), as in any such field.
    const a = document.activeElement;
    if (a.tagName === 'INPUT' && a.hasAttribute('list') && (ev.key === 'ArrowUp' || ev.key === 'ArrowDown')) return;
    if (a.tagName === 'INPUT' && a.selectionStart !== null) {
      const atStart = a.selectionStart === 0 && a.selectionEnd === 0;
      const atEnd = a.selectionStart === a.value.length;
      if ((ev.key === 'ArrowLeft' && !atStart) || (ev.key === 'ArrowRight' && !atEnd)) return;
    }
    const j = i + moves[ev.key];
    if (j >= 0 && j < cards.length) { cards[j].focus(); ev.preventDefault(); }
  });
}

// ---- play mode -------------------------------------------------------------------------------
const play = {
  game: null,
  busy: false,
  // Raised by each deal: an answer to a move or a deal made before it is dropped (a reveal
  // answered after "New game" put the old game back on the page).
  epoch: 0,

  async newGame(seed) {
    const body = { strategy: $('#play-strategy').value || undefined };
    if (seed !== '' && seed !== undefined) {
      if (!/^\d+$/.test(seed) || Number(seed) > MAX_SEED) {
        this.setStatus(`Seed ${seed}: a seed here is a whole number from 0 to ${MAX_SEED} ` +
          '(what a browser holds exactly); clue-db play --seed N plays any seed up to 2^64 − 1.', true);
        return;
      }
      body.seed = Number(seed);
    }
    // The cards: a list by name, the words pasted, or (none) the server's default deck (the
    // original game's cards when the database stored them, else every stored card).
    const words = $('#play-words').value;
    if (words === 'paste') {
      // Split as assist mode's paste box splits: a spreadsheet's row or column is a list too.
      body.words = $('#own-words').value.split(/[,;\n\t]+/).map((w) => w.trim()).filter((w) => w);
    } else if (words) {
      body.words = words;
    }
    // A pasted list past the server's 16 KiB body: said here, with what to do.
    if (new TextEncoder().encode(JSON.stringify(body)).length > MAX_BODY_BYTES) {
      this.setStatus(`Your list of ${body.words.length} words is too long to send (16 KiB at most, ` +
        'about 1,500 words): paste fewer.', true);
      return;
    }
    const epoch = ++this.epoch;
    this.setStatus('Dealing…');
    try {
      const g = await api('/api/new-game', body);
      if (epoch !== this.epoch) return;
      this.game = g;
      this.remember();
      $('#seed').value = g.seed;
      clearEvidence($('#play-evidence'));
      // The words of the deck left out (unknown, or not the strategy's), as the CLI warns.
      const left = g.warnings.join(' · ');
      this.setStatus(`New game, seed ${g.seed}. Click the cards you think the clue means.${left ? ` Note: ${left}` : ''}`);
      this.render();
    } catch (err) {
      if (epoch !== this.epoch) return;
      if (err.status === 403 && body.seed !== undefined) {
        // The seed's game is played elsewhere (another tab, another browser): its board is
        // not dealt twice. The field is emptied, so that "New game" deals a random board.
        $('#seed').value = '';
        seedInUrl(null);
        this.setStatus(`${err.message} (in another tab?). New game deals a random board.`, true);
      } else {
        this.setStatus(err.message, true);
      }
    }
  },

  // The game this tab deals, by its seed, so that reloading `?seed=N` resumes it: the server
  // refuses a second game on the board of one being played (it would show the first one's
  // colours), and the page once showed only that refusal. The URL names the game's seed, so
  // that a reload resumes any game, random ones included.
  // Once the game is over the URL names no seed: a reload deals a new board, not the one whose
  // colours were all shown.
  remember() {
    try { sessionStorage.setItem(`clue-db.game.${this.game.seed}`, this.game.id); } catch (_) { /* no storage */ }
    seedInUrl(this.game.status === 'playing' ? this.game.seed : null);
  },

  // Resumes this tab's game of `seed` when the server still plays it; false otherwise.
  async resume(seed) {
    let id = null;
    try { id = sessionStorage.getItem(`clue-db.game.${seed}`); } catch (_) { /* no storage */ }
    if (!id) return false;
    const epoch = ++this.epoch;
    try {
      const g = await api(`/api/game/${encodeURIComponent(id)}`);
      if (epoch !== this.epoch) return true;
      if (g.status !== 'playing' || String(g.seed) !== String(seed)) return false;
      this.game = g;
      this.remember();
      $('#seed').value = g.seed;
      clearEvidence($('#play-evidence'));
      this.setStatus(`Game of seed ${g.seed} resumed. Click the cards you think the clue means.`);
      this.render();
      return true;
    } catch (_) {
      // Superseded by a newer deal: nothing is left to do here.
      return epoch !== this.epoch;
    }
  },

  setStatus(text, error = false) {
    const s = $('#play-status');
    s.textContent = text;
    s.classList.toggle('error', error);
  },

  async reveal(word) {
    await this.move('reveal', { word }, (g) => {
      const r = ROLES[g.last.role];
      const ended = g.status === 'playing' && g.turns.length > this.game.turns.length;
      return `${word}: ${r.label} ${r.sym}${ended ? '. Your turn is over; blue played.' : ''}`;
    });
  },

  async pass() {
    await this.move('pass', {}, () => 'You passed; blue played.');
  },

  // The game `g` after a move, on the page; once it is over, the URL names no seed.
  show(g) {
    this.game = g;
    if (g.status !== 'playing') seedInUrl(null);
    this.render();
  },

  // Whether the page still shows game `id` as it did at `epoch` (a deal in flight when a card
  // of the old board was clicked raised the epoch before the click).
  shows(epoch, id) {
    return epoch === this.epoch && this.game !== null && this.game.id === id;
  },

  // One move of the game on the page; `said` gives the status from the game after it. An
  // answer to a game no longer shown is dropped. A refused move (409: the card was revealed,
  // or the game ended, in another tab) shows the server's game, so the page is never stale.
  async move(action, body, said) {
    if (this.busy || !this.game) return;
    this.busy = true;
    const epoch = this.epoch;
    const id = this.game.id;
    try {
      const g = await api(`/api/game/${encodeURIComponent(id)}/${action}`, body);
      if (!this.shows(epoch, id)) return;
      const status = said(g);
      this.show(g);
      this.setStatus(status);
    } catch (err) {
      if (!this.shows(epoch, id)) return;
      if (err.status === 404) {
        this.setStatus(`${err.message} (the server restarted, or the game was left too long). ` +
          'New game deals another.', true);
        return;
      }
      this.setStatus(err.message, true);
      if (err.status === 409) {
        try {
          const g = await api(`/api/game/${encodeURIComponent(id)}`);
          if (this.shows(epoch, id)) this.show(g);
        } catch (_) { /* the message above stands */ }
      }
    } finally {
      this.busy = false;
    }
  },

  render() {
    const g = this.game;
    const over = g.status !== 'playing';
    const focused = document.activeElement && document.activeElement.dataset.word;
    const grid = $('#play-grid');
    grid.replaceChildren(...g.cards.map((c) => {
      const label = c.role
        ? `${c.word}, ${ROLES[c.role].label}${c.revealed ? '' : ' (not guessed)'}${c.by === 'opponent' ? ', revealed by blue' : ''}`
        : `${c.word}, hidden`;
      const b = el('button', {
        type: 'button',
        class: `card${c.role ? ` role-${c.role} shown` : ''}${c.revealed ? ' revealed' : ''}${c.by === 'opponent' ? ' by-opponent' : ''}`,
        'data-word': c.word,
        'aria-label': label,
        // Not `disabled`: a revealed card stays focusable, so keyboard and screen-reader users
        // can move over it and hear its colour.
        'aria-disabled': c.revealed || over ? 'true' : null,
        onclick: () => { if (!c.revealed && !over) this.reveal(c.word); },
      }, el('span', { class: 'word', text: c.word }), c.role ? badge(c.role) : null);
      return b;
    }));
    fitWords(grid);
    if (focused) {
      const again = grid.querySelector(`[data-word="${CSS.escape(focused)}"]`);
      if (again) again.focus();
    }
    const banner = $('#clue-banner');
    if (over) {
      const why = { all_found: 'You found all 9 red agents: you win!', assassin: 'The assassin! You lose.',
        opponent_found: 'Blue revealed all its agents: you lose.' }[g.reason] || 'Game over.';
      banner.replaceChildren(el('strong', { text: why }));
    } else if (g.clue && g.clue.clue) {
      banner.replaceChildren('Clue: ', el('span', { class: 'clue-word', text: g.clue.clue }), ` ${g.clue.count}`,
        el('span', { class: 'muted', text: ` — ${g.clue.guesses_left} guess${g.clue.guesses_left === 1 ? '' : 'es'} left` }));
    } else {
      banner.replaceChildren('No safe clue this turn: pass.');
    }
    $('#pass').disabled = over;
    $('#remaining').textContent = `Red left: ${g.remaining.red} · Blue left: ${g.remaining.blue}`;
    this.renderHistory();
  },

  renderHistory() {
    const g = this.game;
    const items = g.turns.map((t, i) => {
      const li = el('li', { class: 'turn' });
      if (t.clue) {
        li.append(el('span', { class: 'clue-word', text: t.clue.clue }), ` ${t.clue.count} → meant `,
          t.clue.targets.join(', ') || '—', ' ',
          el('button', { type: 'button', class: 'linkish', 'aria-label': `Why ${t.clue.clue}?`,
            onclick: () => showEvidence($('#play-evidence'), t.clue.clue, t.clue.targets) }, 'why?'));
      } else {
        li.append(`Turn ${i + 1}: no safe clue`);
      }
      const rev = t.revealed.length ? t.revealed.map((r) => roleChip(r.word, r.role)) : ['nothing'];
      li.append(el('div', {}, 'You: ', ...rev));
      if (t.opponent) li.append(el('div', {}, 'Blue: ', roleChip(t.opponent, 'blue')));
      return li;
    });
    if (g.clue && g.clue.clue) {
      const cur = el('li', { class: 'turn current' }, el('span', { class: 'clue-word', text: g.clue.clue }),
        ` ${g.clue.count} (this turn)`);
      if (g.clue.revealed.length) cur.append(el('div', {}, 'You: ', ...g.clue.revealed.map((r) => roleChip(r.word, r.role))));
      items.push(cur);
    }
    $('#history').replaceChildren(...items);
  },
};

// The page's URL with `?seed=N`, or without a seed (`null`), its tab kept.
function seedInUrl(seed) {
  const url = new URL(location.href);
  if (seed === null) url.searchParams.delete('seed');
  else url.searchParams.set('seed', String(seed));
  history.replaceState(null, '', url);
}

// "New game" deals a fresh random board, unless the seed field was changed to ask for one:
// this tab's game of that seed when it still plays, else that seed's board.
$('#new-game-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const typed = $('#seed').value.trim();
  // `007` is seed 7, as the server reads it.
  const seed = /^\d+$/.test(typed) && Number(typed) <= MAX_SEED ? String(Number(typed)) : typed;
  if (play.game && seed === String(play.game.seed)) return play.newGame('');
  if (seed !== '' && await play.resume(seed)) return;
  return play.newGame(seed);
});
$('#pass').addEventListener('click', () => play.pass());
$('#play-words').addEventListener('change', () => {
  $('#own-words-label').hidden = $('#play-words').value !== 'paste';
});
gridKeys($('#play-grid'), 'button.card');

// ---- assist mode -----------------------------------------------------------------------------
const STORE_KEY = 'clue-db-assist';
const assist = {
  cards: LAYOUT.map((role) => ({ word: '', role, revealed: false })),
  team: 'red',
  seq: 0,
  timer: null,
  built: false,

  load() {
    try {
      const s = JSON.parse(localStorage.getItem(STORE_KEY) || 'null');
      if (s && Array.isArray(s.cards) && s.cards.length === 25) {
        this.cards = s.cards.map((c) => ({ word: String((c && c.word) || ''), role: isRole(c && c.role) ? c.role : 'bystander', revealed: !!(c && c.revealed) }));
        this.team = s.team === 'blue' ? 'blue' : 'red';
      }
    } catch (_) { /* a broken saved board is replaced by an empty one */ }
    $('#team').value = this.team;
  },

  save() {
    try { localStorage.setItem(STORE_KEY, JSON.stringify({ cards: this.cards, team: this.team })); } catch (_) { /* private mode */ }
  },

  build() {
    const grid = $('#assist-grid');
    grid.replaceChildren(...this.cards.map((c, i) => {
      const n = i + 1;
      const word = el('input', { class: 'word', type: 'text', 'aria-label': `Card ${n} word`, autocomplete: 'off', spellcheck: 'false', list: 'terms' });
      word.addEventListener('input', () => { this.cards[i].word = word.value; this.changed(); });
      const role = el('select', { class: 'role', 'aria-label': `Card ${n} colour` },
        ...Object.entries(ROLES).map(([k, r]) => el('option', { value: k, text: `${r.sym} ${r.label}` })));
      role.addEventListener('change', () => { this.cards[i].role = role.value; this.changed(); });
      const rev = el('input', { type: 'checkbox', class: 'revealed-box', 'aria-label': `Card ${n} revealed` });
      rev.addEventListener('change', () => { this.cards[i].revealed = rev.checked; this.changed(); });
      return el('div', { class: 'card', 'data-index': i }, word, role, el('label', { class: 'rev' }, rev, 'revealed'));
    }));
    this.built = true;
    this.sync();
  },

  // Inputs and classes from the model.
  sync() {
    const cards = [...$('#assist-grid').children];
    cards.forEach((div, i) => {
      const c = this.cards[i];
      const w = $('input.word', div);
      if (w.value !== c.word) w.value = c.word;
      $('select.role', div).value = c.role;
      $('input.revealed-box', div).checked = c.revealed;
      div.className = `card role-${c.role}${c.revealed ? ' revealed' : ''}`;
    });
  },

  changed() {
    this.save();
    this.sync();
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.suggest(), 250);
  },

  refresh() {
    if (!this.built) this.build();
    this.suggest();
  },

  setStatus(text, error = false) {
    const s = $('#assist-status');
    s.textContent = text;
    s.classList.toggle('error', error);
  },

  async suggest() {
    const live = this.cards.filter((c) => c.word.trim() && !c.revealed);
    const other = this.team === 'red' ? 'blue' : 'red';
    const words = (role) => live.filter((c) => c.role === role).map((c) => c.word.trim());
    const assassins = words('assassin');
    const body = {
      pos: words(this.team), neg: [...words(other), ...assassins.slice(1)], neutral: words('bystander'),
      assassin: assassins[0], strategy: $('#assist-strategy').value || undefined, top: 5,
    };
    const seq = ++this.seq;
    $('#unknown').replaceChildren();
    const divs = [...$('#assist-grid').children];
    for (const div of divs) div.classList.remove('unknown');
    const stop = (text, error = false) => {
      $('#suggestions').replaceChildren();
      clearEvidence($('#assist-evidence'));
      this.setStatus(text, error);
    };
    if (!body.pos.length) {
      stop(`Type or paste the board, and mark at least one unrevealed card ${ROLES[this.team].label}.`);
      return;
    }
    // The board's own slips, said here by card (the server names its lists, pos and neg), of
    // the cards it is sent: the unrevealed ones.
    const seen = new Map();
    for (const [i, c] of this.cards.entries()) {
      const w = normalize(c.word);
      if (!w || c.revealed) continue;
      if ([...w].length > MAX_WORD_CHARS) {
        divs[i].classList.add('unknown');
        stop(`Card ${i + 1} is longer than ${MAX_WORD_CHARS} characters: a card is a word or two.`, true);
        return;
      }
      if (seen.has(w)) {
        divs[i].classList.add('unknown');
        divs[seen.get(w)].classList.add('unknown');
        stop(`“${w}” is on the board twice (cards ${seen.get(w) + 1} and ${i + 1}): a card is there once.`, true);
        return;
      }
      seen.set(w, i);
    }
    this.setStatus('Thinking…');
    try {
      const a = await api('/api/suggest', body);
      if (seq !== this.seq) return; // a newer board is on its way
      this.render(a);
    } catch (err) {
      if (seq !== this.seq) return;
      stop(err.message, true);
      if (err.data && Array.isArray(err.data.unknown)) this.showUnknown(err.data.unknown);
    }
  },

  render(a) {
    const all = a.clue ? [{ clue: a.clue, count: a.count, targets: a.targets, score: a.score }, ...a.alternatives] : [];
    this.setStatus(a.clue ? `Best clue (${a.strategy}):` : (a.warnings[0] || 'No safe clue.'));
    $('#suggestions').replaceChildren(...all.map((s, i) => el('li', { class: i === 0 ? 'best' : '' },
      el('span', { class: 'clue-word', text: s.clue }), ` ${s.count} → ${s.targets.join(', ')} `,
      el('span', { class: 'muted', text: `(score ${s.score.toFixed(2)}) ` }),
      el('button', { type: 'button', class: 'linkish', 'aria-label': `Why ${s.clue}?`,
        onclick: () => showEvidence($('#assist-evidence'), s.clue, s.targets) }, 'why?'))));
    if (a.clue) showEvidence($('#assist-evidence'), a.clue, a.targets);
    else clearEvidence($('#assist-evidence'));
  },

  // Marks the cards the database does not cover and offers the closest covered words.
  showUnknown(unknown) {
    const divs = [...$('#assist-grid').children];
    const onBoard = new Set(this.cards.map((c) => normalize(c.word)));
    const rows = unknown.map((u) => {
      const i = this.cards.findIndex((c) => normalize(c.word) === u.word);
      if (i >= 0) divs[i].classList.add('unknown');
      if (u.uncovered_by) {
        return el('p', {}, `“${u.word}” is not covered by the ${u.uncovered_by} spymaster (the relatedness spymaster knows it).`);
      }
      // A closest word already on the board would be a card given twice.
      const closest = u.closest.filter((w) => !onBoard.has(w));
      if (!closest.length) return el('p', {}, `“${u.word}” is not covered.`);
      return el('p', {}, `“${u.word}” is not covered. Closest: `, ...closest.map((w) => el('button', {
        type: 'button', class: 'linkish', 'data-word': w, 'aria-label': `Replace ${u.word} with ${w}`,
        onclick: () => { if (i >= 0) { this.cards[i].word = w; this.changed(); } },
      }, w)));
    });
    $('#unknown').replaceChildren(...rows);
  },

  // A new board's words: the colours stay as set (set them next), nothing is revealed yet.
  fill(text) {
    const all = text.split(/[,;\n\t]+/).map((w) => w.trim()).filter(Boolean);
    const words = all.slice(0, 25);
    if (!words.length) { this.setStatus('Nothing to fill: paste words separated by commas or lines.', true); return; }
    this.cards.forEach((c, i) => { c.word = words[i] || ''; c.revealed = false; });
    this.changed();
    if (all.length > 25) {
      clearTimeout(this.timer);
      this.suggest().then(() => {
        if (!$('#assist-status').classList.contains('error')) {
          this.setStatus(`${all.length} words pasted: the first 25 fill the board. ${$('#assist-status').textContent}`);
        }
      });
    }
  },

  async generate() {
    try {
      // The chosen strategy's cards: a threshold board holds only the words it covers.
      const b = await api('/api/board', { strategy: $('#assist-strategy').value || undefined });
      this.cards = b.cards.map((c) => ({ word: c.word, role: c.role, revealed: false }));
      this.changed();
    } catch (err) {
      this.setStatus(err.message, true);
    }
  },

  clear() {
    this.cards = LAYOUT.map((role) => ({ word: '', role, revealed: false }));
    this.changed();
  },
};

// The server's normal form of a card word (text::card_word): no characters no one sees, no
// quotes around it, lower-case, single spaces, a hyphen read as a space.
function normalize(w) {
  return w.replace(/[\u200b-\u200d\u2060\ufeff\u00ad]/g, '').trim()
    .replace(/^["'“”‘’«»]+|["'“”‘’«»]+$/g, '')
    .split(/[\s-]+/).filter(Boolean).join(' ').toLowerCase();
}
// The server's longest card word (MAX_WORD_CHARS in api.rs).
const MAX_WORD_CHARS = 64;

$('#fill').addEventListener('click', () => assist.fill($('#paste').value));
$('#generate').addEventListener('click', () => assist.generate());
$('#clear').addEventListener('click', () => assist.clear());
$('#team').addEventListener('change', () => { assist.team = $('#team').value; assist.changed(); });
$('#assist-strategy').addEventListener('change', () => assist.changed());
gridKeys($('#assist-grid'), 'input.word');

// ---- start -----------------------------------------------------------------------------------
(async function start() {
  assist.load();
  // `?seed=N` deals that board first (links to a game, and the browser test's screenshot).
  // Written as the page writes it (`007` is seed 7), so that a reload finds its game.
  const asked = new URLSearchParams(location.search).get('seed');
  const valid = asked !== null && /^\d+$/.test(asked) && Number(asked) <= MAX_SEED;
  const seed = valid ? String(Number(asked)) : null;
  if (seed !== null) $('#seed').value = seed;
  try {
    const info = await api('/api/info');
    for (const sel of document.querySelectorAll('select.strategy')) {
      sel.replaceChildren(...info.strategies.map((s) => el('option', { value: s, text: s, selected: s === info.default_strategy })));
    }
    // The editions' lists the server offers, before "my own words…".
    const own = $('#play-words').lastElementChild;
    for (const l of info.lists || []) {
      own.before(el('option', { value: l.name, text: `${l.name} (${l.words} words)` }));
    }
    // The original game's cards by default, offered by name (the server's default deck then
    // deals the same cards, so its own option would say it twice).
    if ((info.lists || []).some((l) => l.name === 'codenames')) {
      $('#play-words').querySelector('option[value=""]').remove();
      $('#play-words').value = 'codenames';
    }
    const t = await api('/api/terms');
    document.body.append(el('datalist', { id: 'terms' }, ...t.terms.map((w) => el('option', { value: w }))));
  } catch (err) {
    play.setStatus(`The server did not answer: ${err.message}`, true);
    document.body.dataset.ready = 'true';
    return;
  }
  selectTab(location.hash === '#assist' ? 'assist' : 'play');
  if (!(seed !== null && await play.resume(seed))) await play.newGame($('#seed').value);
  if (asked !== null && !valid) {
    play.setStatus(`?seed=${asked} is no seed here (a whole number from 0 to ${MAX_SEED}): a ` +
      `random board was dealt. ${$('#play-status').textContent}`, true);
  }
  document.body.dataset.ready = 'true';
}());
