# clue-db: `make pipeline` builds db/clues.sqlite from the offline corpus; `make test` runs the tests.
SHARED ?= ../shared/data
# Every corpus of the offline data: Wikispeedia (text and links), then the text of the 2015
# slice, the 2019 featured articles and Simple English Wikipedia (everyday words: its titles are
# 345 of the 400 cards); a title an earlier corpus has is left out of a later one.
# A bare clone, with no offline data beside it, builds from Simple English Wikipedia instead
# (everyday words, full link tables), downloaded and verified once into DUMPS.
ifneq ($(wildcard $(SHARED)/wikispeedia),)
CORPUS ?= wikispeedia,enwiki-2015-wikiextractor,enwiki-2019-wikiextractor,simplewiki-2017-wikiextractor
else
CORPUS ?= simplewiki
endif
# Said in one line when the build falls back to simplewiki by itself.
BARE_CLONE = $(and $(filter file,$(origin CORPUS)),$(filter simplewiki,$(CORPUS)))
DB ?= db/clues.sqlite
CARGO ?= cargo
# The release binary, wherever cargo puts it.
BIN = $(or $(CARGO_TARGET_DIR),target)/release/clue-db
# Downloaded dump runs (`clue-db download`): DUMPS/WIKI/DATE/. Every CORPUS name that is not an
# offline corpus of SHARED is a wiki (simplewiki, enwiki, dewiki…), downloaded from MIRROR first
# (skipped when a verified run of it is there, so that a build works offline).
DUMPS ?= dumps
# More flags for `clue-db pipeline all`, e.g. "--terms de-terms.txt" for a dewiki build.
PIPELINE_FLAGS ?=
MIRROR ?= https://dumps.wikimedia.org
OFFLINE_CORPORA = wikispeedia enwiki-sample enwiki-2015-wikiextractor enwiki-2019-wikiextractor simplewiki-2017-wikiextractor
comma := ,
WIKIS = $(filter-out $(OFFLINE_CORPORA),$(subst $(comma), ,$(CORPUS)))

.PHONY: build pipeline test lint fmt bench bench-scale eval clean

build:
	$(CARGO) build --release

pipeline: build
	$(if $(BARE_CLONE),@echo "no offline corpus in $(SHARED): building from simplewiki (Simple English Wikipedia) downloaded once into $(DUMPS) from $(MIRROR)")
	$(if $(WIKIS),for wiki in $(WIKIS); do \
		if ls $(DUMPS)/$$wiki/*/VERIFIED >/dev/null 2>&1; then \
			echo "$$wiki: a verified run is in $(DUMPS)/$$wiki (clue-db download --wiki $$wiki fetches a newer one)"; \
		else $(BIN) download --wiki $$wiki --dir $(DUMPS) --mirror $(MIRROR) || exit 1; fi; \
	done)
	$(BIN) pipeline all --corpus $(CORPUS) --data $(SHARED) --dumps $(DUMPS) --db $(DB) $(PIPELINE_FLAGS)

test:
	$(CARGO) test --workspace --all-targets

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

fmt:
	$(CARGO) fmt --all

# The benchmarks (not in CI nor in `make test`): readers, pipeline per corpus, `suggest` latency,
# `clue-db serve` under load, four tables (crates/bench/README.md), in Rust: crates/bench's example
# `bench`, beside the load generator and the PageRank example it runs. Settings: DATA,
# BENCH_BOARDS, BENCH_PROCESS_BOARDS, BENCH_SEED, BENCH_MS_REPEAT, BENCH_IDLE, BENCH_CLIENTS,
# BENCH_SECONDS, BENCH_SECTIONS, BENCH_DB (`--help`).
bench: build
	$(CARGO) build --release -p bench -p serve -p rank -p relate --example bench --example load --example pagerank_bench --example skip_gram
	$(or $(CARGO_TARGET_DIR),target)/release/examples/bench --bin $(BIN)

# The scale rehearsal (issue 23; not in CI nor in `make test`): synthetic corpora of 1×, 3× and
# 10× the offline text with 6 M, 20 M and 60 M links, every stage as its own clue-db process,
# wall time and peak memory of each (crates/bench/README.md; figures in docs/evaluation.md). About an hour on 2 cores, ~25 GB in a
# temporary folder. Settings: BENCH_SCALES, BENCH_LINKS, BENCH_SEED, BENCH_TMP (`--help`).
bench-scale: build
	$(CARGO) build --release -p bench --example scale
	$(or $(CARGO_TARGET_DIR),target)/release/examples/scale --data $(SHARED) --bin $(BIN)

# The clues judged from outside: 200 seeded games on the original game's cards that every
# strategy can score (371 of the 400: threshold and herfindahl score only the card words with
# pages of their own; the four strategies on boards of all 1,108 stored cards did not finish in
# 15 minutes), every strategy, with
# our own guesser and with two guessers trained elsewhere (GloVe, MiniLM: read by the guessers
# only, never the spymaster; judge by the worse of the two), then the default strategy on the
# boards of each edition (EVAL_LISTS), then the clues people wrote (human-clues).
EVAL_GAMES ?= 200
EVAL_SEED ?= 1
GLOVE ?= $(SHARED)/guesser/glove-6B-50d-top100k.txt.gz
MINILM ?= $(SHARED)/guesser/minilm-L6-top50k.txt.gz
SCENARIOS ?= $(SHARED)/human-clues/scenarios-dev.tsv
# The editions whose boards `make eval` plays, each judged by both outside guessers.
EVAL_LISTS ?= codenames duet deep-undercover
eval: build
	$(BIN) eval --games $(EVAL_GAMES) --seed $(EVAL_SEED) --db $(DB) --words codenames \
		--strategies relatedness,threshold,herfindahl,setnet --guesser own \
		--guesser vectors:$(GLOVE) --guesser vectors:$(MINILM)
	for list in $(EVAL_LISTS); do \
		$(BIN) eval --games $(EVAL_GAMES) --seed $(EVAL_SEED) --db $(DB) --words $$list --data $(SHARED) \
			--strategies relatedness --guesser vectors:$(GLOVE) --guesser vectors:$(MINILM) || exit 1; \
	done
	$(BIN) eval --scenarios $(SCENARIOS) --db $(DB) --strategies relatedness,threshold,herfindahl,setnet \
		--guesser vectors:$(GLOVE) --guesser vectors:$(MINILM)

clean:
	$(CARGO) clean
	rm -f db/*.sqlite
