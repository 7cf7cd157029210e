//! The page in a real browser: headless Chromium (Debian's `chromium`) driven over the
//! DevTools protocol. It plays a turn by clicking cards, checks the colours and the clue panel,
//! moves by keyboard, checks the phone-width layout (no card word broken inside a word),
//! switches to assist mode, enters a board with a misspelt word, takes the closest word offered,
//! and waits for a suggestion. It saves the README's screenshot, `docs/serve.png`.
//!
//! Without Chromium the test is skipped with a message, unless `CI` is set: CI must run it
//! (`.ci/run` installs the package).

use super::Served;
use super::cdp::{Browser, find_chromium};
use crate::common::repo_root;
use crate::db;
use serde_json::{Value, json};
use serve::client;

/// The board's seed in the screenshot.
const SEED: u64 = 7;
/// The screenshot's size: small enough for a light PNG, wide enough for the two columns.
const WIDTH: u32 = 1100;
const HEIGHT: u32 = 760;

fn js_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// The length of the longest word of a card (`scuba diver`: 5).
fn longest_word(card: &str) -> usize {
    card.split(' ').map(str::len).max().unwrap_or(0)
}

#[test]
fn the_page_plays_a_turn_and_assists_in_headless_chromium() {
    let Some(chromium) = find_chromium() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but no Chromium was found: install Debian's `chromium` (.ci/run does) or set CHROMIUM"
        );
        eprintln!(
            "SKIPPED the browser test: no chromium on PATH (install Debian's `chromium`, or set CHROMIUM=/path; under CI=true this fails)"
        );
        return;
    };
    let mut served = Served::start(db());
    let mut browser = Browser::start(&chromium, WIDTH, HEIGHT);
    let page = &mut browser.page;
    page.viewport(WIDTH, HEIGHT, false);
    page.focus();
    page.navigate(&format!("{}?seed={SEED}", served.url));
    page.wait_for(
        "document.body.dataset.ready === 'true' && document.querySelectorAll('#play-grid button.card').length === 25",
        30,
    );
    assert_eq!(
        page.eval("document.querySelector('#seed').value"),
        json!(SEED.to_string())
    );
    assert_eq!(
        page.eval("document.querySelectorAll('#play-grid .card.shown').length"),
        json!(0),
        "no colour is shown before a guess"
    );

    // Play one turn by clicking cards: the guesser's pick for the clue, as a player would.
    let mut clicks = 0;
    loop {
        let done = page.eval(
            "document.querySelectorAll('#history li.turn:not(.current)').length > 0 || document.querySelector('#pass').disabled",
        );
        if done == json!(true) {
            break;
        }
        assert!(clicks < 25, "a turn should have ended");
        clicks += 1;
        let clue =
            page.eval("document.querySelector('#clue-banner .clue-word')?.textContent ?? null");
        let Some(clue) = clue.as_str().map(str::to_lowercase) else {
            // No safe clue: the only move is to pass.
            page.click("#pass");
            page.wait_for(
                "document.querySelectorAll('#history li.turn').length > 0",
                20,
            );
            continue;
        };
        let unrevealed = page.eval(
            "[...document.querySelectorAll('#play-grid button.card:not([aria-disabled])')].map(b => b.dataset.word)",
        );
        let guesses = client::post_json(
            served.addr,
            "/api/guess",
            &json!({"clue": clue, "count": 1, "board": unrevealed}),
        )
        .unwrap()
        .json()
        .unwrap();
        let pick = guesses["guesses"][0]["word"]
            .as_str()
            .or(unrevealed[0].as_str())
            .unwrap()
            .to_string();
        let card = format!("#play-grid button.card[data-word={}]", js_str(&pick));
        page.click(&card);
        let sel = js_str(&card);
        page.wait_for(
            &format!("document.querySelector({sel}).classList.contains('revealed')"),
            20,
        );
        // The revealed colour: a role class, the role's symbol and name, and the same in its label.
        let shown: Value = page.eval(&format!(
            "(() => {{ const c = document.querySelector({sel});
                const role = ['red', 'blue', 'bystander', 'assassin'].find(r => c.classList.contains('role-' + r));
                return [role, c.querySelector('.badge')?.textContent ?? '', c.getAttribute('aria-label'),
                        getComputedStyle(c).backgroundColor]; }})()"
        ));
        let role = shown[0]
            .as_str()
            .unwrap_or_else(|| panic!("no colour on {pick}: {shown}"));
        let (sym, name) = match role {
            "red" => ("▲", "Red agent"),
            "blue" => ("●", "Blue agent"),
            "bystander" => ("■", "Bystander"),
            _ => ("✖", "Assassin"),
        };
        let badge = shown[1].as_str().unwrap();
        assert!(badge.contains(sym) && badge.contains(name), "{shown}");
        assert!(shown[2].as_str().unwrap().contains(name), "{shown}");
        assert_ne!(
            shown[3],
            json!("rgb(247, 243, 234)"),
            "the card changed colour"
        );
        // The server agrees on the colour.
        let status = page.eval("document.querySelector('#play-status').textContent");
        assert!(status.as_str().unwrap().contains(name), "{status}");
    }

    // The clue panel: the finished turn's clue, the cards it meant, what was revealed.
    let turn = page.eval("document.querySelector('#history li.turn').textContent");
    let turn = turn.as_str().unwrap();
    assert!(turn.contains("meant") && turn.contains("You:"), "{turn}");
    // Its evidence, from /api/explain.
    page.click("#history li.turn button.linkish");
    page.wait_for("document.querySelector('#play-evidence h3') !== null", 20);
    let ev = page.eval("document.querySelector('#play-evidence').textContent");
    // The default spymaster's evidence: the relatedness and what it is made of.
    let ev = ev.as_str().unwrap();
    assert!(
        ev.contains("relatedness") && ev.contains("cosine") && !ev.contains("no evidence"),
        "{ev}"
    );

    // Keyboard: arrows move between cards.
    if page.eval("!document.querySelector('#pass').disabled") == json!(true) {
        page.eval("document.querySelector('#play-grid button.card:not([aria-disabled])').focus()");
        let before = page.eval("document.activeElement.dataset.word");
        page.press("ArrowRight", 39);
        let after = page.eval("document.activeElement.dataset.word");
        assert!(after.is_string() && after != before, "{before} -> {after}");
    }

    let png = page.screenshot();
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    let docs = repo_root().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join("serve.png"), &png).unwrap();

    // Reloading `?seed=N` resumes the game being played: the server refuses a second game on
    // its board, and the page once showed only that refusal.
    assert_eq!(
        page.eval("play.game.status"),
        json!("playing"),
        "seed {SEED}'s game goes on after its first turn"
    );
    let revealed = page.eval("document.querySelectorAll('#play-grid .card.revealed').length");
    assert_ne!(revealed, json!(0), "the first turn revealed a card");
    // The old page's mark taken off, so that only the reloaded page's can be waited for.
    page.eval("document.body.dataset.ready = 'reloading'");
    page.navigate(&format!("{}?seed={SEED}", served.url));
    page.wait_for(
        "document.body.dataset.ready === 'true' && document.querySelectorAll('#play-grid button.card').length === 25",
        30,
    );
    let status = page.eval("document.querySelector('#play-status').textContent");
    assert!(
        status
            .as_str()
            .unwrap()
            .contains(&format!("seed {SEED} resumed")),
        "{status}"
    );
    assert_eq!(
        page.eval("document.querySelectorAll('#play-grid .card.revealed').length"),
        revealed
    );

    // A move refused because another tab made it (409) shows the server's game: the card
    // revealed elsewhere is revealed here too, not left looking hidden.
    let id = page.eval("play.game.id");
    let word = page.eval("play.game.cards.find((c) => !c.revealed).word");
    client::post_json(
        served.addr,
        &format!("/api/game/{}/reveal", id.as_str().unwrap()),
        &json!({ "word": word }),
    )
    .unwrap();
    let shown = page.eval(&format!(
        "(async () => {{ await play.reveal({word}); return {{
            revealed: play.game.cards.find((c) => c.word === {word}).revealed,
            status: document.querySelector('#play-status').textContent }}; }})()"
    ));
    assert_eq!(shown["revealed"], json!(true), "{shown}");
    assert!(
        shown["status"]
            .as_str()
            .unwrap()
            .contains("already revealed")
            || shown["status"].as_str().unwrap().contains("over"),
        "{shown}"
    );
    // "New game" while an answer to a move of the old game is on its way: the late answer is
    // dropped, and the new game stays on the page. A random game's seed goes into the URL, so
    // that a reload resumes it as it resumes `?seed=N`.
    let late = page.eval(
        "(async () => {
            const orig = window.fetch;
            window.fetch = (u, o) => String(u).includes('/reveal')
                ? new Promise((r) => setTimeout(r, 600)).then(() => orig(u, o)) : orig(u, o);
            const old = play.game.id;
            const word = play.game.cards.find((c) => !c.revealed).word;
            const moved = play.reveal(word);
            await play.newGame('');
            const fresh = play.game.id;
            await moved;
            window.fetch = orig;
            return { old, fresh, shown: play.game.id, url: location.search, seed: play.game.seed };
        })()",
    );
    assert_ne!(late["old"], late["fresh"], "{late}");
    assert_eq!(late["shown"], late["fresh"], "{late}");
    assert_eq!(
        late["url"],
        json!(format!("?seed={}", late["seed"])),
        "{late}"
    );
    // A seed past what a browser holds exactly is refused with what to do, not rounded.
    page.eval("document.querySelector('#seed').value = '18446744073709551615'");
    page.click("#new-game");
    page.wait_for(
        "document.querySelector('#play-status').textContent.includes('clue-db play --seed N')",
        10,
    );
    assert_eq!(page.eval("play.game.id"), late["fresh"], "no game dealt");

    // Phone width: the board fits, with no sideways scrolling.
    page.viewport(390, 844, true);
    page.wait_for("window.innerWidth === 390", 10);
    let fits = page.eval(
        "document.documentElement.scrollWidth <= window.innerWidth + 1 && document.querySelector('#play-grid').getBoundingClientRect().right <= window.innerWidth",
    );
    assert_eq!(fits, json!(true), "the page fits a phone's width");
    // No card word is broken inside a word (SHAKESP|EARE, SNOWMA|N): a long word is shrunk to
    // fit its card. On a board dealt for its longest words (no game is played on its seed).
    let (seed, longest) = (100..300)
        .map(|seed| {
            let b = client::post_json(served.addr, "/api/board", &json!({"seed": seed}))
                .unwrap()
                .json()
                .unwrap();
            let longest = b["cards"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["word"].as_str().unwrap().to_string())
                .max_by_key(|w| longest_word(w))
                .unwrap();
            (seed, longest)
        })
        .max_by_key(|(_, w)| longest_word(w))
        .unwrap();
    assert!(longest_word(&longest) >= 9, "a long word to fit: {longest}");
    page.eval(&format!("document.querySelector('#seed').value = '{seed}'"));
    page.click("#new-game");
    let card = format!("#play-grid button.card[data-word={}]", js_str(&longest));
    page.wait_for(
        &format!("document.querySelector({}) !== null", js_str(&card)),
        20,
    );
    let broken = page.eval(
        "(() => {
            const bad = [];
            for (const span of document.querySelectorAll('#play-grid .card .word')) {
                const text = span.firstChild;
                let at = 0;
                for (const w of span.textContent.split(' ')) {
                    const r = document.createRange();
                    r.setStart(text, at);
                    r.setEnd(text, at + w.length);
                    const lines = new Set([...r.getClientRects()].map((q) => Math.round(q.top)));
                    if (lines.size > 1) bad.push(`${w} (broken over ${lines.size} lines)`);
                    at += w.length + 1;
                }
                if (span.scrollWidth > span.clientWidth + 1) bad.push(`${span.textContent} (wider than its card)`);
            }
            return bad;
        })()",
    );
    assert_eq!(
        broken,
        json!([]),
        "card words at 390 px, {longest:?} among them"
    );
    // Kept for a look, outside the repository.
    let scratch = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    std::fs::write(scratch.join("serve-phone.png"), page.screenshot()).unwrap();
    page.viewport(WIDTH, HEIGHT, false);

    // Assist mode: a real board pasted in, one word misspelt.
    page.click("#tab-assist");
    page.wait_for("!document.querySelector('#assist').hidden && document.querySelectorAll('#assist-grid .card').length === 25", 10);
    let mut words = Vec::new();
    for seed in 11.. {
        let b = client::post_json(served.addr, "/api/board", &json!({"seed": seed}))
            .unwrap()
            .json()
            .unwrap();
        words = b["cards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["word"].as_str().unwrap().to_string())
            .collect();
        if !words.iter().any(|w| w == "apple") {
            break;
        }
    }
    words[0] = "applle".into();
    page.click("#paste");
    page.insert_text(&words.join(", "));
    page.click("#fill");
    page.wait_for(
        "document.querySelector('#unknown button[data-word=\"apple\"]') !== null && document.querySelector('#assist-grid .card').classList.contains('unknown')",
        20,
    );
    let err = page.eval("document.querySelector('#assist-status').textContent");
    assert!(err.as_str().unwrap().contains("applle"), "{err}");
    assert_eq!(
        page.eval("document.querySelector('#assist-grid input.word').value"),
        json!("applle"),
        "the board is kept on an error"
    );
    // Keyboard in a word: Down is the word's suggestions (its datalist), not the next row;
    // Right at the word's end moves to the next card.
    page.eval("(() => { const i = document.querySelector('#assist-grid input.word'); i.focus(); i.setSelectionRange(i.value.length, i.value.length); })()");
    page.press("ArrowDown", 40);
    assert_eq!(
        page.eval("document.activeElement === document.querySelector('#assist-grid input.word')"),
        json!(true),
        "Down stays in the word"
    );
    page.press("ArrowRight", 39);
    assert_eq!(
        page.eval(
            "document.activeElement === document.querySelectorAll('#assist-grid input.word')[1]"
        ),
        json!(true),
        "Right at a word's end moves to the next card"
    );
    page.click("#unknown button[data-word=\"apple\"]");
    page.wait_for(
        "document.querySelectorAll('#suggestions li').length > 0 && document.querySelector('#assist-evidence h3') !== null",
        30,
    );
    let best = page.eval("document.querySelector('#suggestions li .clue-word').textContent");
    assert!(
        best.as_str().is_some_and(|c| !c.is_empty()),
        "a suggestion: {best}"
    );
    let red: Vec<String> = page
        .eval("[...document.querySelectorAll('#assist-grid .card.role-red input.word')].map(i => i.value.toLowerCase())")
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert!(red.contains(&"apple".to_string()), "{red:?}");
    let line = page.eval("document.querySelector('#suggestions li').textContent");
    let targets = line.as_str().unwrap().split('→').nth(1).unwrap_or("");
    assert!(
        red.iter().any(|w| targets.contains(w.as_str())),
        "the best clue targets red cards: {line}"
    );
    std::fs::write(scratch.join("serve-assist.png"), page.screenshot()).unwrap();
    // Assist mode fits a phone too.
    page.viewport(390, 844, true);
    page.wait_for("window.innerWidth === 390", 10);
    assert_eq!(
        page.eval("document.documentElement.scrollWidth <= window.innerWidth + 1"),
        json!(true),
        "assist mode fits a phone's width"
    );
    eprintln!(
        "screenshots: docs/serve.png, and in {}: serve-phone.png, serve-assist.png",
        scratch.display()
    );
    served.assert_alive();
}
