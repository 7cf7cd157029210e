#!/usr/bin/env python3
"""The card words with the least evidence, and their five strongest clue words, in two builds.

Usage: python3 scripts/rarest-cards.py BEFORE.sqlite AFTER.sqlite [N]

Evidence is how often the card word occurs in the build's text (relatedness_vectors.count, the
occurrences the relatedness stage counted); the N (20) rarest of BEFORE's card words are shown
with their five highest-scoring clue words in each build (a clue word that contains the card or
is contained in it is skipped, as the legality rules would). Prints a Markdown table.
"""
import sqlite3
import struct
import sys


def open_db(path):
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def clue_words(db):
    return [w for (w,) in db.execute("SELECT word FROM clue_words ORDER BY id")]


def top(db, words, card, n=5):
    row = db.execute(
        "SELECT count, scores FROM relatedness_vectors WHERE term = ?", (card,)
    ).fetchone()
    if row is None:
        return None, []
    count, blob = row
    scores = struct.unpack(f"<{len(blob) // 4}f", blob)
    parts = card.split()
    order = sorted(range(len(scores)), key=lambda j: -scores[j])
    out = []
    for j in order:
        w = words[j]
        if any(w in p or p in w for p in parts):
            continue
        out.append(w)
        if len(out) == n:
            break
    return count, out


def main():
    before, after = open_db(sys.argv[1]), open_db(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    cards = before.execute(
        "SELECT term FROM relatedness_vectors ORDER BY count, term LIMIT ?", (n,)
    ).fetchall()
    wb, wa = clue_words(before), clue_words(after)
    print("| card | occurrences before | strongest clue words before | occurrences after | strongest clue words after |")
    print("|---|---|---|---|---|")
    for (card,) in cards:
        cb, tb = top(before, wb, card)
        ca, ta = top(after, wa, card)
        print(f"| {card} | {cb} | {', '.join(tb)} | {ca if ca is not None else '-'} | {', '.join(ta)} |")


if __name__ == "__main__":
    main()
