#!/usr/bin/env bash
# `clue-db serve` under load: requests per second and latency of POST /api/suggest with 8
# concurrent clients for 10 s, each on one kept-alive loopback connection, by the Rust load
# generator `crates/serve/examples/load.rs`; then the same beside 300 idle connections that sent
# half a request head (issue 22's attack, replaced as the server closes them), with the
# server's peak memory (VmHWM). Called by `scripts/bench.sh` with its database; alone:
# `bash scripts/bench-serve.sh [DB]` (default db/clues.sqlite, from `make pipeline`).
#
# Settings (environment):
#   BENCH_CLIENTS   concurrent clients            (default 8)
#   BENCH_SECONDS   seconds of load               (default 10)
#   BENCH_SEED      seed of the boards            (default 1)
#   BENCH_IDLE      idle half-sent connections    (default 300)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BIN=${CARGO_TARGET_DIR:-target}/release/clue-db
DB=${1:-db/clues.sqlite}
CLIENTS=${BENCH_CLIENTS:-8}
SECONDS_OF_LOAD=${BENCH_SECONDS:-10}
SEED=${BENCH_SEED:-1}
IDLE=${BENCH_IDLE:-300}

die() { echo "bench-serve: $*" >&2; exit 1; }
[ -x "$BIN" ] || die "$BIN not found: build it first (\`make bench\` does, or \`cargo build --release\`)"
[ -f "$DB" ] || die "$DB not found: \`make pipeline\` builds it (or pass a database)"

# The load generator first, so its build is not timed against the server.
cargo build --release -q -p serve --example load || die "building the load generator failed"
LOAD=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/examples/load

OUT=$(mktemp "${TMPDIR:-/tmp}/clue-db-serve.XXXXXX")
"$BIN" serve --port 0 --db "$DB" >"$OUT" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; rm -f "$OUT"' EXIT
trap 'exit 130' INT TERM
URL=
for _ in $(seq 100); do
    URL=$(grep -o 'http://[^ ]*' "$OUT" || true)
    [ -n "$URL" ] && break
    kill -0 "$SERVER" 2>/dev/null || { cat "$OUT" >&2; die "clue-db serve exited"; }
    sleep 0.1
done
[ -n "$URL" ] || { cat "$OUT" >&2; die "clue-db serve printed no URL in 10 s"; }
echo "machine: $(nproc) cores; server and clients on this machine, over loopback"
for strategy in relatedness threshold herfindahl; do
    "$LOAD" "$URL" --clients "$CLIENTS" --seconds "$SECONDS_OF_LOAD" --seed "$SEED" --strategy "$strategy"
done
echo
echo "beside $IDLE idle connections with half a request head sent (the server's head timeout is 10 s):"
"$LOAD" "$URL" --clients "$CLIENTS" --seconds "$SECONDS_OF_LOAD" --seed "$SEED" --strategy relatedness \
    --idle "$IDLE" --server-pid "$SERVER"
