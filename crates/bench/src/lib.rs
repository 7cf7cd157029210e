//! Benchmarks that run the `clue-db` binary, apart from the tests (issue 23, item 5).
//!
//! [`synth`] makes the scale rehearsal's inputs from the real text: a `pages-articles` XML of any
//! multiple of the offline corpus, and `pagelinks` + `linktarget` SQL dumps of any number of
//! rows, written as a dump run of one wiki (`clue-db ingest --format dump-run` reads them as it
//! reads a downloaded one). `examples/scale.rs` (`make bench-scale`) runs every stage on them.

pub mod synth;
