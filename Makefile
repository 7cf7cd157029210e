# clue-db: `make pipeline` builds db/clues.sqlite from the offline corpus; `make test` runs the tests.
SHARED ?= ../shared/data
CORPUS ?= wikispeedia
DB ?= db/clues.sqlite
CARGO ?= cargo
BIN = target/release/clue-db

.PHONY: build pipeline test lint fmt bench clean

build:
	$(CARGO) build --release

pipeline: build
	$(BIN) pipeline all --corpus $(CORPUS) --data $(SHARED) --db $(DB)

test:
	$(CARGO) test --workspace --all-targets

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

fmt:
	$(CARGO) fmt --all

bench: build
	bash scripts/bench.sh

clean:
	$(CARGO) clean
	rm -f db/*.sqlite
