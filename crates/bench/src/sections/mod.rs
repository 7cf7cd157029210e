//! The four sections of `make bench` (`examples/bench.rs`), each printing its tables:
//! [`readers`], [`pipeline`], [`query`], [`serve`]. What each figure means and how it is taken:
//! `crates/bench/README.md`.

pub mod pipeline;
pub mod query;
pub mod readers;
pub mod serve;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The strategies of `clue-db suggest`, the default first.
pub const STRATEGIES: [&str; 3] = ["relatedness", "threshold", "herfindahl"];

/// The settings of a run (flags of `examples/bench.rs`, or their environment variables).
#[derive(Debug, Clone)]
pub struct Settings {
    /// Boards per strategy timed in one process (`BENCH_BOARDS`).
    pub boards: usize,
    /// Boards per strategy timed as whole `clue-db suggest` processes (`BENCH_PROCESS_BOARDS`).
    pub process_boards: usize,
    /// Seed of the boards (`BENCH_SEED`).
    pub seed: u64,
    /// Copies of the enwiki excerpt in the multistream dump (`BENCH_MS_REPEAT`).
    pub ms_repeat: usize,
    /// Idle half-sent connections beside the serve load (`BENCH_IDLE`).
    pub idle: usize,
    /// Connections sending half a body beside the serve load (`BENCH_HALF_BODIES`).
    pub half_bodies: usize,
    /// Concurrent clients of the serve load (`BENCH_CLIENTS`).
    pub clients: usize,
    /// Seconds of serve load (`BENCH_SECONDS`).
    pub seconds: f64,
}

/// Where things are, and the settings.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The `clue-db` binary.
    pub bin: PathBuf,
    /// The folder of the examples run beside it (`load`, `pagerank_bench`, `skip_gram`).
    pub examples: PathBuf,
    /// The shared data folder.
    pub data: PathBuf,
    /// The one temporary folder everything is written in.
    pub tmp: PathBuf,
    /// The machine's cores (as `nproc` counts them: the ones this process may use).
    pub cores: usize,
    pub settings: Settings,
}

impl Ctx {
    /// A `clue-db` command whose temporary files (SQLite's sorter spills) go into [`Ctx::tmp`]
    /// too.
    pub fn clue_db(&self) -> Command {
        let mut c = Command::new(&self.bin);
        c.env("TMPDIR", &self.tmp).env("SQLITE_TMPDIR", &self.tmp);
        c
    }

    /// A file of the temporary folder.
    pub fn tmp(&self, name: &str) -> PathBuf {
        self.tmp.join(name)
    }

    /// An example binary built beside this one, or an error saying how to build it.
    pub fn example(&self, name: &str, package: &str) -> anyhow::Result<PathBuf> {
        let p = self.examples.join(name);
        if p.is_file() {
            Ok(p)
        } else {
            anyhow::bail!(
                "{}: not built (`make bench` builds it, or `cargo build --release -p {package} \
                 --example {name}`)",
                p.display()
            )
        }
    }
}

/// A section's title line.
pub fn section(title: &str) {
    println!("\n== {title} ==");
}

/// The rule under a table's header.
pub fn rule() {
    println!("{}", "-".repeat(92));
}

/// Removes files of the temporary folder that a step no longer needs (space, not correctness).
pub fn remove(paths: &[&Path]) {
    for p in paths {
        let _ = std::fs::remove_file(p);
    }
}
