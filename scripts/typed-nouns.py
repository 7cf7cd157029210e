#!/usr/bin/env python3
"""Word lists of common English nouns that no edition names: what a person types on a board.

Usage: python3 scripts/typed-nouns.py DB FIRST LAST OUT.txt

Takes the database's clue words with no stored card row (the editions' words all have one), by
how often the text has them, and keeps the concrete nouns among them: the word's first sense in
WordNet (the embedded copy, crates/wordnet/data/) is a noun that is no named instance and lies
under `physical_entity`, its noun senses are tagged in SemCor at least as often as its other
senses (`end` stays, `small` goes), and it is not the plural of another clue word. Writes the
FIRST-th to the LAST-th of them (from 0, LAST excluded), one a line, for `eval --words OUT.txt`;
prints how many there are and the occurrences of the first and last written. Nothing is
hand-picked: the order is the text's. For evaluation only (docs/evaluation.md, part 11).
"""
import gzip
import os
import sqlite3
import sys

WORDNET = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "crates", "wordnet", "data")
PHYSICAL_ENTITY = 1  # the line of `physical_entity` in synsets.tsv.gz


def read_wordnet():
    synsets = [line.rstrip("\n").split("\t") for line in gzip.open(os.path.join(WORDNET, "synsets.tsv.gz"), "rt")]
    senses = {}
    for line in gzip.open(os.path.join(WORDNET, "senses.tsv.gz"), "rt"):
        fields = line.rstrip("\n").split("\t")
        if len(fields) < 2 or not fields[1]:
            continue
        senses[fields[0]] = [tuple(map(int, s.split(":"))) for s in fields[1].split()]
    return synsets, senses


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    db_path, first, last, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    synsets, senses = read_wordnet()
    physical = {PHYSICAL_ENTITY: True}

    def is_physical(i):
        # Iterative walk up the hypernyms (`@`, `@i`: the fourth field), memoised.
        stack, seen = [i], set()
        while stack:
            j = stack.pop()
            if physical.get(j):
                physical[i] = True
                return True
            if j in seen:
                continue
            seen.add(j)
            stack.extend(int(h) for h in synsets[j][3].split())
        physical[i] = False
        return False

    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT word, count FROM clue_words WHERE word NOT IN (SELECT term FROM relatedness_vectors) "
        "ORDER BY count DESC, word"
    ).fetchall()
    vocabulary = {w for w, _ in rows}
    nouns = []
    for word, count in rows:
        s = senses.get(word)
        if not s:
            continue
        first_synset = synsets[s[0][0]]
        noun = sum(n for i, n in s if synsets[i][0] == "n")
        other = sum(n for i, n in s if synsets[i][0] != "n")
        if first_synset[0] != "n" or first_synset[2] != "0" or noun == 0 or other > noun:
            continue
        if word.endswith("s") and word[:-1] in vocabulary:
            continue
        if not is_physical(s[0][0]):
            continue
        nouns.append((word, count))
    chosen = nouns[first:last]
    if not chosen:
        sys.exit(f"{len(nouns)} nouns: none from {first} to {last}")
    with open(out, "w") as f:
        f.writelines(w + "\n" for w, _ in chosen)
    print(f"{len(nouns)} nouns; wrote {len(chosen)} to {out}, seen {chosen[0][1]} to {chosen[-1][1]} times")


if __name__ == "__main__":
    main()
