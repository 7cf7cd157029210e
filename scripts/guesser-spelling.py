#!/usr/bin/env python3
"""Which cards an outside guesser reads by their letters, and what those cards cost in games.

For evaluation only (docs/evaluation.md, part 11, "Cards MiniLM reads by their letters"): it reads
the outside guessers' vectors, which nothing in the pipeline or the spymaster may read.

Each single-word card of a list that both guessers know gets an *agreement*: the share of the
card's 20 nearest words by MiniLM that are among its 200 nearest by GloVe, both ranked over the
words the two files share. A card whose MiniLM vector carries its meaning has neighbours GloVe
agrees with (`beach` → shore, coast, sand); one whose vector carries its word pieces has
neighbours that share its letters and nothing else (`gash` → bagh, binh, gasol). Then, over the
per-turn records of `clue-db eval --turns` played with one guesser, the one-card clues by their
target's agreement: how often the guesser's first pick was the target, and how often the assassin.

Usage: python3 scripts/guesser-spelling.py MINILM.txt.gz GLOVE.txt.gz LIST.txt GUESSER TURNS.jsonl…
(LIST: one card a line, any case; GUESSER: the guesser's name in the records, e.g.
minilm-L6-top50k). Needs numpy.
"""
import collections
import gzip
import json
import sys

import numpy as np

NEAREST = 20
AGREEING = 200
BANDS = ((0.05, "≤ 0.05"), (0.15, "0.05–0.15"), (0.30, "0.15–0.30"), (1.01, "> 0.30"))


def vectors(path):
    """Unit vectors of a word2vec text file, and its words in order."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        n, d = map(int, f.readline().split())
        words, rows = [], np.zeros((n, d), np.float32)
        for i, line in enumerate(f):
            parts = line.split()
            words.append(parts[0])
            rows[i] = np.asarray(parts[1:], np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    rows /= np.where(norms > 0, norms, 1)
    return words, rows


def agreement(minilm, glove, cards):
    """The agreement of each card both files know (see the module's doc)."""
    (mw, mv), (gw, gv) = minilm, glove
    gi = {w: i for i, w in enumerate(gw)}
    shared = [w for w in mw if w in gi]
    at = {w: i for i, w in enumerate(shared)}
    m = mv[[i for i, w in enumerate(mw) if w in gi]]
    g = gv[[gi[w] for w in shared]]
    out = {}
    for card in cards:
        k = at.get(card)
        if k is None or not m[k].any() or not g[k].any():
            continue
        near_m = [j for j in np.argsort(-(m @ m[k]))[: NEAREST + 1].tolist() if j != k][:NEAREST]
        near_g = [j for j in np.argsort(-(g @ g[k]))[: AGREEING + 1].tolist() if j != k]
        near_g = set(near_g[:AGREEING])
        out[card] = sum(j in near_g for j in near_m) / NEAREST
    return out


def band(a):
    return next(name for top, name in BANDS if a <= top)


def main(argv):
    if len(argv) < 6:
        sys.exit(__doc__)
    minilm, glove = vectors(argv[1]), vectors(argv[2])
    with open(argv[3], encoding="utf-8") as f:
        cards = [w.strip().lower() for w in f if w.strip() and " " not in w.strip()]
    agree = agreement(minilm, glove, cards)
    guesser = argv[4]
    cells = collections.defaultdict(lambda: [0, 0, 0])
    assassins = games = 0
    for path in argv[5:]:
        with open(path, encoding="utf-8") as f:
            for line in f:
                t = json.loads(line)
                if t.get("guesser") != guesser:
                    continue
                picks = t["picks"].get(guesser, [])
                games += t["turn"] == 1
                # The turn's outcome: a pick past the first wrong one is never taken.
                assassins += t["outcome"] == "assassin"
                if t["number"] != 1 or t["targets"][0] not in agree:
                    continue
                cell = cells[band(agree[t["targets"][0]])]
                cell[0] += 1
                cell[1] += picks[:1] == t["targets"]
                cell[2] += picks[:1] == [t["assassin"]]
    if not games:
        sys.exit(f"no game of guesser {guesser!r} in the records")
    counts = collections.Counter(band(a) for a in agree.values())
    print(f"{len(agree)} cards both guessers know; {games} games, {assassins} assassins")
    print("| agreement | cards | one-card clues | first pick the target | first pick the assassin |")
    print("|---|---|---|---|---|")
    for _, name in BANDS:
        n, hit, lost = cells[name]
        share = f"{100 * hit / n:.1f} %" if n else "—"
        print(f"| {name} | {counts[name]} | {n} | {share} | {lost} |")
    low = sorted(w for w, a in agree.items() if a <= BANDS[0][0])
    print("cards at ≤ 0.05:", ", ".join(low))


if __name__ == "__main__":
    main(sys.argv)
