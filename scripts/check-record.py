#!/usr/bin/env python3
"""Checks that moving the research record out of the READMEs lost nothing (issue 47).

Compares the documentation before the move (README.md, db/README.md, scripts/README.md at a base
commit) with the documentation now (README.md, docs/evaluation.md, db/README.md,
crates/bench/README.md, scripts/README.md in the working tree):

1. every table row before (whitespace normalised) is a table row now;
2. every number before is there now at least as often (numbers as written: `82.7`, `10,000`,
   `0.850`; a range `1–30` counts as `1` and `30`).

Usage: python3 scripts/check-record.py [BASE]   (BASE: a commit; by default the parent of the
commit that moved the record, or HEAD before it is committed). Exit 0 when nothing is missing.
"""
import collections
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEFORE = ["README.md", "db/README.md", "scripts/README.md"]
NOW = ["README.md", "docs/evaluation.md", "db/README.md", "crates/bench/README.md", "scripts/README.md"]
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# Changed on purpose after the move: the README's JSON API table and its curl example document
# the API, not a measurement, and were brought up to date with it (2026-11-28, sessions 22 and
# 23: `/api/guess` answers an object, `/api/new-game` and `/api/board` take `words` and answer
# `warnings`; the example re-run on the current binary, its numbers a score and a game id).
CHANGED_ROWS = ("| `/api/guess` |", "| `/api/new-game` |", "| `/api/board` |")
CHANGED_NUMBERS = {"1.0266544631628873", "1.7582715864020897", "700", "89434"}


def git(*args):
    return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True, check=True).stdout


def base_commit():
    if len(sys.argv) > 1:
        return sys.argv[1]
    moved = git("log", "-1", "--format=%H", "-S", "### Judged by people", "--", "README.md").strip()
    if moved and "### Judged by people" not in git("show", f"{moved}:README.md"):
        return moved + "^"
    return "HEAD"


def before(base):
    return {f: git("show", f"{base}:{f}") for f in BEFORE}


def now():
    texts = {}
    for f in NOW:
        path = os.path.join(ROOT, f)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as fh:
                texts[f] = fh.read()
    return texts


def rows(text):
    out = []
    for line in text.split("\n"):
        line = line.strip()
        if line.startswith("|") and not re.fullmatch(r"[|\-: ]+", line):
            out.append(" ".join(line.split()))
    return out


def numbers(text):
    return collections.Counter(NUMBER.findall(text))


def main():
    base = base_commit()
    old, new = before(base), now()
    new_rows = set(r for t in new.values() for r in rows(t))
    missing_rows = [(f, r) for f, t in old.items() for r in rows(t)
                    if r not in new_rows and not r.startswith(CHANGED_ROWS)]
    old_numbers = sum((numbers(t) for t in old.values()), collections.Counter())
    new_numbers = sum((numbers(t) for t in new.values()), collections.Counter())
    missing_numbers = {n: c - new_numbers[n] for n, c in old_numbers.items()
                       if new_numbers[n] < c and n not in CHANGED_NUMBERS}
    print(f"base {git('rev-parse', '--short', base).strip()}: "
          + ", ".join(f"{f} {len(t.splitlines())} lines" for f, t in old.items()))
    print("now: " + ", ".join(f"{f} {len(t.splitlines())} lines" for f, t in new.items()))
    print(f"table rows before: {sum(len(rows(t)) for t in old.values())}, missing now: {len(missing_rows)}")
    for f, r in missing_rows:
        print(f"  missing row ({f}): {r[:160]}")
    print(f"numbers before: {sum(old_numbers.values())} ({len(old_numbers)} distinct), "
          f"now: {sum(new_numbers.values())}; missing: {sum(missing_numbers.values())}")
    for n, c in sorted(missing_numbers.items()):
        print(f"  missing number {n} ×{c}")
    return 1 if missing_rows or missing_numbers else 0


if __name__ == "__main__":
    sys.exit(main())
