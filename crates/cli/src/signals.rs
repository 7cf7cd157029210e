//! SIGINT (Ctrl-C), SIGTERM and SIGHUP for the commands that build a database (`ingest`,
//! `pipeline`): a signal ends the process without running the build's `Drop`, which deletes its
//! temporary file `DB.tmpPID` (118 MB left by `timeout -s TERM 12 clue-db pipeline all`, issue
//! 46, item 2). The handler, on its own thread, deletes the temporary files of the builds in
//! progress (`store::abandon_builds_and_exit`) and exits 128 + the signal: 130, 143, 129.

use anyhow::{Context, Result};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// Installs the handler. On each signal `first` is asked first: `true` means it has dealt with
/// it and the command goes on (an API fetch stops and saves what it stored); `false`, the
/// builds are abandoned and the process ends.
pub fn abandon_builds_on_signal(mut first: impl FnMut() -> bool + Send + 'static) -> Result<()> {
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
        .context("installing the handler of SIGINT, SIGTERM and SIGHUP")?;
    std::thread::Builder::new()
        .name("signals".to_string())
        .spawn(move || {
            for signal in signals.forever() {
                if !first() {
                    store::abandon_builds_and_exit(128 + signal);
                }
            }
        })
        .context("starting the signal thread")?;
    Ok(())
}
