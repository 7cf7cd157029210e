//! SIGINT (Ctrl-C), SIGTERM and SIGHUP for the commands that build a database (`ingest`,
//! `pipeline`), and for `eval` ([`stop_on_signal`]). In a build, a signal ends the process
//! without running the build's `Drop`, which deletes its temporary file `DB.tmpPID` (118 MB
//! left by `timeout -s TERM 12 clue-db pipeline all`, issue 46, item 2). The handler, on its
//! own thread, deletes the temporary files of the builds in progress
//! (`store::abandon_builds_and_exit`) and exits 128 + the signal: 130, 143, 129.

use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use anyhow::{Context, Result};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// Installs the handler. On each signal `first` is asked first: `true` means it has dealt with
/// it and the command goes on (an API fetch stops and saves what it stored); `false`, the
/// builds are abandoned and the process ends.
pub fn abandon_builds_on_signal(mut first: impl FnMut() -> bool + Send + 'static) -> Result<()> {
    on_signals(move |signal| {
        if !first() {
            store::abandon_builds_and_exit(128 + signal);
        }
    })
}

/// Calls `handle` with each SIGINT, SIGTERM and SIGHUP, on a thread of its own.
fn on_signals(mut handle: impl FnMut(i32) + Send + 'static) -> Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
        .context("installing the handler of SIGINT, SIGTERM and SIGHUP")?;
    std::thread::Builder::new()
        .name("signals".to_string())
        .spawn(move || signals.forever().for_each(&mut handle))
        .context("starting the signal thread")?;
    Ok(())
}

/// For `eval`, whose games take minutes to hours: the first signal asks it to stop after the
/// game being played and report the games played (the default action ended the process, and
/// every figure of the run was lost); a second ends the process at once, 128 + the signal.
/// The flag holds the first signal's number, 0 until one comes.
pub fn stop_on_signal() -> Result<Arc<AtomicI32>> {
    let flag = Arc::new(AtomicI32::new(0));
    let seen = flag.clone();
    on_signals(move |signal| {
        if seen.swap(signal, Ordering::SeqCst) != 0 {
            std::process::exit(128 + signal);
        }
        eprintln!(
            "\nclue-db: stopping after the game being played, to report the games played \
             (again to quit now)"
        );
    })?;
    Ok(flag)
}
