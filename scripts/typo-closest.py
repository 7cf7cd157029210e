"""How often an unknown word's warning offers the card a person meant.

For each single-word card of the original game's 400 (four letters or more), one slip of one kind
at a position drawn with a fixed seed: `swap` (two neighbouring letters), `drop` (a letter left
out), `double` (a letter typed twice) or `sub` (a letter replaced). Slips that are words the
database knows are left out (no warning). Each slip goes on a board (`clue-db suggest --json`,
twenty at a time); the warning's closest words are read back, and the meant card counted when
it is offered first and when it is among the three shown.

    python3 scripts/typo-closest.py CLUE_DB DB KIND
"""

import json
import random
import subprocess
import sys
from pathlib import Path

KINDS = ("swap", "drop", "double", "sub")


def slip(card, kind, rng):
    i = rng.randrange(0, len(card) - 1)
    if kind == "swap":
        return card[:i] + card[i + 1] + card[i] + card[i + 2 :]
    if kind == "drop":
        return card[:i] + card[i + 1 :]
    if kind == "double":
        return card[:i] + card[i] + card[i:]
    return card[:i] + rng.choice("abcdefghijklmnopqrstuvwxyz") + card[i + 1 :]


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in KINDS:
        sys.exit(f"usage: typo-closest.py CLUE_DB DB {{{','.join(KINDS)}}}")
    binary, db, kind = sys.argv[1:]
    words = Path(__file__).resolve().parents[2] / "shared/data/codenames-words.txt"
    cards = [w.strip().lower() for w in words.read_text().splitlines()]
    cards = [c for c in cards if len(c) >= 4 and c.isalpha()]
    rng = random.Random(1)
    slips = {}
    for card in cards:
        t = slip(card, kind, rng)
        if t != card and t not in slips:
            slips[t] = card
    slips = list(slips.items())
    first = among = asked = 0
    for k in range(0, len(slips), 20):
        batch = slips[k : k + 20]
        run = subprocess.run(
            [binary, "suggest", "--pos", ",".join(t for t, _ in batch), "--db", db, "--json"],
            capture_output=True,
            text=True,
            check=True,
        )
        warnings = json.loads(run.stdout)["warnings"]
        for t, card in batch:
            said = [w for w in warnings if w.startswith(f'"{t}" is not a word')]
            if not said:
                continue
            asked += 1
            near = said[0].split("(closest: ")[1].split(")")[0].split(", ")
            first += near[0] == card
            among += card in near
    print(
        f"{kind}: {asked} slips; the card meant first {first} ({100 * first / asked:.1f} %), "
        f"among the three shown {among} ({100 * among / asked:.1f} %)"
    )


if __name__ == "__main__":
    main()
