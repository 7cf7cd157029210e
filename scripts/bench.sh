#!/usr/bin/env bash
# `make bench`: reader throughput, pipeline stage times, PageRank speed, `suggest` latency and
# `clue-db serve` throughput (alone, and beside 300 idle half-sent connections, with its peak
# memory).
# Prints tables only; writes nothing outside one mktemp folder, which is removed on exit.
# What each figure means and how it is taken: scripts/README.md.
#
# Settings (environment):
#   DATA                  the shared data folder        (default ../shared/data)
#   BENCH_BOARDS          boards per strategy, in one process          (default 1000)
#   BENCH_PROCESS_BOARDS  boards per strategy, one `clue-db suggest` each (default 1000)
#   BENCH_SEED            seed of the boards                            (default 1)
#   BENCH_MS_REPEAT       copies of the enwiki excerpt in the multistream dump (default 5)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
DATA=${DATA:-../shared/data}
BIN=${CARGO_TARGET_DIR:-target}/release/clue-db
BOARDS=${BENCH_BOARDS:-1000}
PROCESS_BOARDS=${BENCH_PROCESS_BOARDS:-1000}
SEED=${BENCH_SEED:-1}
MS_REPEAT=${BENCH_MS_REPEAT:-5}
STRATEGIES=(relatedness threshold herfindahl)

die() { echo "bench: $*" >&2; exit 1; }
[ -x "$BIN" ] || die "$BIN not found: build it first (\`make bench\` does, or \`cargo build --release\`)"
[ -d "$DATA" ] || die "$DATA not found: the shared data folder must sit beside the repository (or set DATA=...)"
command -v python3 >/dev/null || die "python3 is needed to build the synthetic dumps"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/clue-db-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

ENWIKI=$DATA/enwiki-sample/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2
TABLES=$DATA/enwiki-sample/enwiki-table-markup.xml.bz2
EXTRACTOR=$DATA/enwiki-2015-wikiextractor/enwiki-20150515-wikiextractor-ids12-60633.txt.xz
SQLDIR=$DATA/sql-sample

# Wall-clock seconds with microseconds, without forking when bash has EPOCHREALTIME (5.0+).
now() {
    if [ -n "${EPOCHREALTIME:-}" ]; then echo "${EPOCHREALTIME/,/.}"; else date +%s.%N; fi
}
# Seconds between two `now` stamps.
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
section() { printf '\n== %s ==\n' "$1"; }
rule() { printf '%s\n' "--------------------------------------------------------------------------------------------"; }

# ---------------------------------------------------------------------------------------------
section "1. Readers: \`clue-db read\` (pages counted, nothing stored; MB = uncompressed bytes)"
echo "machine: $(nproc) cores; $(uname -sr)"
READ_FMT='%-44s %-12s %9s %9s %8s %10s %9s\n'
printf "$READ_FMT" source format pages MB s pages/s MB/s
rule

# read LABEL ENV FORMAT PATH... : one `clue-db read` run as a table row. ENV is `-` or VAR=value.
read_row() {
    local label=$1 envset=$2 format=$3
    shift 3
    local out
    if [ "$envset" = - ]; then
        out=$("$BIN" read --format "$format" "$@") || die "clue-db read --format $format $* failed"
    else
        out=$(env "$envset" "$BIN" read --format "$format" "$@") ||
            die "$envset clue-db read --format $format $* failed"
    fi
    # "Xml: 206 pages, 6.1 MB decoded, 0.56 s, 371 pages/s, 11.0 MB/s"
    echo "$out" | tr -d , | awk -v label="$label" -v fmt="$format" -v f="$READ_FMT" \
        '{ printf f, label, fmt, $2, $4, $7, $9, $11 }'
}

# A tool's own decompression, for reference: LABEL SECONDS BYTES.
ref_row() {
    awk -v label="$1" -v s="$2" -v b="$3" -v f="$READ_FMT" \
        'BEGIN { printf f, label, "(reference)", "-", sprintf("%.1f", b / 1e6), sprintf("%.2f", s), "-", sprintf("%.1f", b / 1e6 / s) }'
}

read_row "wikispeedia/ (tar.gz + tsv)" - wikispeedia "$DATA/wikispeedia"

read_row "enwiki excerpt .xml.bz2" - xml "$ENWIKI"
t0=$(now)
bzip2 -dc "$ENWIKI" >"$TMP/enwiki.xml"
t1=$(now)
read_row "enwiki excerpt .xml (decompressed copy)" - xml "$TMP/enwiki.xml"
ref_row "  bzip2 -dc of the excerpt" "$(elapsed "$t0" "$t1")" "$(wc -c <"$TMP/enwiki.xml")"
read_row "enwiki table-markup .xml.bz2" - xml "$TABLES"

read_row "WikiExtractor 2015 .txt.xz" - extractor "$EXTRACTOR"
t0=$(now)
xz -dc "$EXTRACTOR" >"$TMP/extractor.txt"
t1=$(now)
read_row "WikiExtractor 2015 .txt (decompressed copy)" - extractor "$TMP/extractor.txt"
ref_row "  xz -dc of the extractor file" "$(elapsed "$t0" "$t1")" "$(wc -c <"$TMP/extractor.txt")"
rm -f "$TMP/extractor.txt"
# Ingest (read and store) of the same file, with its peak resident memory from GNU time.
if [ -x /usr/bin/time ]; then
    t0=$(now)
    /usr/bin/time -v "$BIN" ingest --format extractor "$EXTRACTOR" --db "$TMP/extractor.sqlite" \
        >/dev/null 2>"$TMP/extractor-time.log" || { cat "$TMP/extractor-time.log" >&2; die "ingest --format extractor failed"; }
    t1=$(now)
    rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$TMP/extractor-time.log")
    echo "  ingest --format extractor of the .txt.xz: $(elapsed "$t0" "$t1") s, peak RSS ${rss} MB (/usr/bin/time -v)"
    rm -f "$TMP"/extractor*
else
    echo "  (no /usr/bin/time: the ingest peak-memory row is skipped)"
fi

read_row "sql-sample/ (5 dumps; pages = rows)" - sql "$SQLDIR"/*.sql

# A pagelinks dump big enough to time: the fixture's CREATE TABLE, then 100 INSERT lines of
# 60,000 seeded (pl_from, pl_from_namespace, pl_target_id) tuples (~1.4 MB each, as in real
# dumps; 5 distinct lines written 20 times each, which keeps generating it quick).
python3 - "$SQLDIR/test-20240901-pagelinks.sql" "$TMP/synthetic-pagelinks.sql" <<'PY'
import random, sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src, encoding="utf-8").read().split("\n")
first = next(i for i, l in enumerate(lines) if l.startswith("INSERT INTO"))
rng = random.Random(1)
with open(dst, "w", encoding="utf-8") as out:
    out.write("\n".join(lines[:first]) + "\n")
    statements = []
    for _ in range(5):
        tuples = ",".join(
            f"({rng.randrange(1, 80_000_000)},{rng.choice((0, 0, 0, 2, 4, 14))},{rng.randrange(1, 3_000_000_000)})"
            for _ in range(60_000)
        )
        statements.append(f"INSERT INTO `pagelinks` VALUES {tuples};\n")
    for _ in range(20):
        for st in statements:
            out.write(st)
    out.write("\n".join(lines[first + 1:]))
PY
read_row "synthetic pagelinks .sql (6 M rows)" - sql "$TMP/synthetic-pagelinks.sql"
rm -f "$TMP/synthetic-pagelinks.sql"

# Ingest (read, store, resolve links) of a synthetic SQL dump set: `page`, `linktarget` and
# `pagelinks` dumps with the fixtures' headers, 200,000 pages and 2 M seeded links, with the
# peak resident memory (link resolution spills to disk: memory stays bounded by SQLite's caches).
python3 - "$SQLDIR" "$TMP" 200000 2000000 <<'PY'
import random, sys
sqldir, out, n, links = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(1)
def dump(fixture, name, rows):
    lines = open(f"{sqldir}/{fixture}", encoding="utf-8").read().split("\n")
    first = next(i for i, l in enumerate(lines) if l.startswith("INSERT INTO"))
    table = fixture.split("-")[-1].removesuffix(".sql")
    with open(f"{out}/{name}", "w", encoding="utf-8") as f:
        f.write("\n".join(lines[:first]) + "\n")
        batch = []
        for row in rows:
            batch.append(row)
            if len(batch) == 20_000:
                f.write(f"INSERT INTO `{table}` VALUES {','.join(batch)};\n")
                batch = []
        if batch:
            f.write(f"INSERT INTO `{table}` VALUES {','.join(batch)};\n")
        f.write("\n".join(lines[first + 1:]))
dump("test-20240901-page.sql", "synthetic-page.sql",
     (f"({i},0,'Page_{i}',0,0,0.5,'20240901000000','20240901000000',1,100,'wikitext',NULL)" for i in range(1, n + 1)))
dump("test-20240901-linktarget.sql", "synthetic-linktarget.sql", (f"({i},0,'Page_{i}')" for i in range(1, n + 1)))
dump("test-20240901-pagelinks.sql", "synthetic-pagelinks.sql",
     (f"({rng.randint(1, n)},0,{rng.randint(1, n)})" for _ in range(links)))
PY
if [ -x /usr/bin/time ]; then
    t0=$(now)
    /usr/bin/time -v "$BIN" ingest --format sql "$TMP"/synthetic-{page,linktarget,pagelinks}.sql \
        --db "$TMP/sql.sqlite" >/dev/null 2>"$TMP/sql-time.log" || { cat "$TMP/sql-time.log" >&2; die "ingest --format sql failed"; }
    t1=$(now)
    rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$TMP/sql-time.log")
    echo "  ingest --format sql of 200,000 pages and 2 M links: $(elapsed "$t0" "$t1") s, peak RSS ${rss} MB (/usr/bin/time -v)"
fi
rm -f "$TMP"/synthetic-*.sql "$TMP"/sql.sqlite "$TMP"/sql-time.log

# Multistream: the excerpt's pages, MS_REPEAT times over (page ids shifted by 1,000,000 per
# copy), 100 pages per bz2 stream as Wikimedia builds them, with an `offset:id:title` index.
python3 - "$TMP/enwiki.xml" "$TMP/ms.xml.bz2" "$TMP/ms-index.txt.bz2" "$MS_REPEAT" <<'PY'
import bz2, html, re, sys
xml_path, dump_path, index_path, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
xml = open(xml_path, encoding="utf-8").read()
starts = [m.start() for m in re.finditer(r"  <page>", xml)]
footer = xml.rfind("</mediawiki>")
if not starts or footer < 0:
    sys.exit("bench: the excerpt has no <page> or no </mediawiki>")
bounds = starts + [footer]
pages = [xml[a:b] for a, b in zip(bounds, bounds[1:])]
first_id = re.compile(r"<id>(\d+)</id>")
copies = []
for k in range(repeat):
    for p in pages:
        m = first_id.search(p)
        new_id = int(m.group(1)) + k * 1_000_000
        title = html.unescape(re.search(r"<title>(.*?)</title>", p).group(1))
        copies.append((new_id, title, p[: m.start(1)] + str(new_id) + p[m.end(1):]))
with open(dump_path, "wb") as dump:
    dump.write(bz2.compress(xml[: starts[0]].encode()))  # <mediawiki><siteinfo>
    index = []
    for g in range(0, len(copies), 100):
        offset = dump.tell()
        group = copies[g : g + 100]
        index += [f"{offset}:{i}:{t}\n" for i, t, _ in group]
        dump.write(bz2.compress("".join(p for _, _, p in group).encode()))
    dump.write(bz2.compress(xml[footer:].encode()))
with open(index_path, "wb") as f:
    f.write(bz2.compress("".join(index).encode()))
print(f"{len(copies)} pages in {(len(copies) + 99) // 100} streams", file=sys.stderr)
PY
MS_LABEL="multistream (excerpt x$MS_REPEAT)"
read_row "$MS_LABEL, as one .xml.bz2" - xml "$TMP/ms.xml.bz2"
# Scaling with cores: one run per thread count, 1 to the machine's cores.
for threads in $(seq 1 "$(nproc)"); do
    read_row "$MS_LABEL, $threads thread(s)" "RAYON_NUM_THREADS=$threads" multistream \
        "$TMP/ms.xml.bz2" --index "$TMP/ms-index.txt.bz2"
done
rm -f "$TMP"/ms* "$TMP/enwiki.xml"

# ---------------------------------------------------------------------------------------------
section "2. Pipeline: \`clue-db pipeline all\` per corpus (seconds from \`clue-db info\`; wall time and peak memory from /usr/bin/time -v)"
# Wikispeedia alone, then both corpora (what \`make pipeline\` builds: Wikispeedia's text and
# links, then the 2015 slice's text). The query benchmarks below read the second database.
meta() { awk -F'\t' -v k="$1" '$1 == k { print $2; found = 1 } END { if (!found) print "-" }' "$TMP/info.tsv"; }
STAGE_NAMES="ingest terms term_pages clue_pages count chunks pagerank scores relatedness"
for corpus in wikispeedia wikispeedia,enwiki-2015-wikiextractor; do
    DB=$TMP/bench-${corpus%%,*}$([ "$corpus" = wikispeedia ] || echo -all).sqlite
    echo
    echo "corpus $corpus ($(nproc) cores):"
    t0=$(now)
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -v "$BIN" pipeline all --corpus "$corpus" --data "$DATA" --db "$DB" \
            2>"$TMP/pipeline.log" || { cat "$TMP/pipeline.log" >&2; die "pipeline all --corpus $corpus failed"; }
    else
        "$BIN" pipeline all --corpus "$corpus" --data "$DATA" --db "$DB" 2>"$TMP/pipeline.log" ||
            { cat "$TMP/pipeline.log" >&2; die "pipeline all --corpus $corpus failed"; }
    fi
    t1=$(now)
    "$BIN" info --db "$DB" >"$TMP/info.tsv"
    printf '%-14s %9s\n' stage seconds
    rule
    for stage in $STAGE_NAMES; do
        printf '%-14s %9s\n' "$stage" "$(meta "$stage.seconds")"
    done
    # Any stage added later still shows up.
    awk -F'\t' -v known=" $STAGE_NAMES " '$1 ~ /\.seconds$/ { s = $1; sub(/\.seconds$/, "", s);
        if (index(known, " " s " ") == 0) printf "%-14s %9s\n", s, $2 }' "$TMP/info.tsv"
    printf '%-14s %9s\n' "whole command" "$(elapsed "$t0" "$t1")"
    if [ -x /usr/bin/time ]; then
        awk -F': ' '/Elapsed \(wall clock\)/ { wall = $2 } /Maximum resident set size/ { rss = $2 }
            END { printf "wall %s, peak RSS %.0f MB (/usr/bin/time -v)\n", wall, rss / 1024 }' "$TMP/pipeline.log"
    else
        echo "(no /usr/bin/time: peak memory not measured)"
    fi
    echo "pages per source: $(awk -F'\t' '$1 ~ /^ingest(\.[^.]+)?\.pages$/ { printf "%s%s %s", sep, $1, $2; sep = ", " }' "$TMP/info.tsv");" \
        "duplicates $(meta ingest.duplicates); relatedness: $(meta relatedness.tokens) tokens," \
        "$(meta relatedness.clue_words) clue words x $(meta relatedness.card_words) card words"
done
echo
eps=$(meta pagerank.edges_per_second)
echo "PageRank on the graph of both corpora (links from Wikispeedia): $(meta pagerank.nodes) nodes, $(meta pagerank.edges) edges," \
    "$(meta pagerank.iterations) iterations, $(awk -v e="$eps" 'BEGIN { if (e == "-") print "-"; else printf "%.1f", e / 1e6 }') M edges/s"

echo
echo "rank crate example (random graph, 1 M nodes / 19 M edges; built if needed, 120 s limit):"
if timeout 120 cargo run --release -q -p rank --example pagerank_bench >"$TMP/rank.log" 2>&1; then
    grep -E '^(generated|CSR:)' "$TMP/rank.log" | sed 's/^/  /'
    tail -n 1 "$TMP/rank.log" | sed 's/^/  /'
else
    echo "  (skipped: failed or over the limit)"
    tail -n 3 "$TMP/rank.log" | sed 's/^/  /'
fi

# ---------------------------------------------------------------------------------------------
section "3. Query: \`suggest\` latency on seeded random boards (red's view: 9 / 8 / 7 / 1), database of both corpora"
"$BIN" bench-suggest --boards "$BOARDS" --seed "$SEED" --db "$DB"

# Whole processes: `clue-db suggest --json` once per board, as a user or a bot would call it.
echo
"$BIN" bench-suggest --print-boards "$PROCESS_BOARDS" --seed "$SEED" --db "$DB" >"$TMP/boards.tsv"
# Process start-up alone, for scale.
: >"$TMP/start.ms"
for _ in $(seq 20); do
    t0=$(now)
    "$BIN" --version >/dev/null
    t1=$(now)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) * 1e3 }' >>"$TMP/start.ms"
done
# median, p95 (nearest rank, as bench-suggest), max, mean of a file of numbers.
stats() {
    sort -g "$1" | awk '{ v[NR] = $1; sum += $1 }
        END { r50 = int(NR * 0.5); if (r50 < NR * 0.5) r50++; r95 = int(NR * 0.95); if (r95 < NR * 0.95) r95++;
              printf "%7d %10.3f %9.3f %9.3f %9.3f", NR, v[r50], v[r95], v[NR], sum / NR }'
}
echo "suggest as a whole process: $PROCESS_BOARDS boards per strategy (seed $SEED), \`clue-db suggest --json\`"
printf '%-12s %7s %10s %9s %9s %9s\n' strategy boards "median ms" "p95 ms" "max ms" "mean ms"
for s in "${STRATEGIES[@]}"; do
    : >"$TMP/$s.ms"
    while IFS=$'\t' read -r pos neg assassin neutral; do
        t0=$(now)
        "$BIN" suggest --json --strategy "$s" --pos "$pos" --neg "$neg" --neutral "$neutral" --assassin "$assassin" \
            --db "$DB" >/dev/null 2>"$TMP/suggest.err" ||
            { cat "$TMP/suggest.err" >&2; die "clue-db suggest failed on board: $pos / $neg / $assassin"; }
        t1=$(now)
        awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) * 1e3 }' >>"$TMP/$s.ms"
    done <"$TMP/boards.tsv"
    printf '%-12s %s\n' "$s" "$(stats "$TMP/$s.ms")"
done
printf '%-12s %s\n' "(start-up)" "$(stats "$TMP/start.ms")"

# ---------------------------------------------------------------------------------------------
section "4. Serve: \`clue-db serve\`, POST /api/suggest under concurrent clients, then beside 300 idle half-sent connections (scripts/bench-serve.sh)"
bash scripts/bench-serve.sh "$DB"
