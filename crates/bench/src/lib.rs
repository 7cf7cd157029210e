//! Benchmarks that run the `clue-db` binary, apart from the tests (issue 23, item 5).
//!
//! [`synth`] makes the scale rehearsal's inputs from the real text: a `pages-articles` XML of any
//! multiple of the offline corpus, and `pagelinks` + `linktarget` SQL dumps of any number of
//! rows, written as a dump run of one wiki (`clue-db ingest --format dump-run` reads them as it
//! reads a downloaded one). `examples/scale.rs` (`make bench-scale`) runs every stage on them.
//!
//! `examples/bench.rs` (`make bench`) prints the four tables of [`sections`]: the readers, the
//! pipeline per corpus, `suggest` latency, `clue-db serve` under load. Its synthetic dumps are
//! [`dumps`]'s, its child processes [`proc`]'s (named in errors, peak memory from `wait4`, ended on
//! Ctrl-C), what it reads of `clue-db`'s output [`parse`]'s, its quantiles the `latency` crate's.

pub mod dumps;
pub mod parse;
pub mod proc;
pub mod sections;
pub mod synth;
