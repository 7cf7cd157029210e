//! Pause points for the tests that race a build: a build names each moment of its life (`created`,
//! `renamed`, `inputs dropped`) here, and a unit test's hook, or an end-to-end test's environment,
//! acts at exactly that moment. Its own file because both the build and the ingest reach it.

use std::path::Path;

/// Debug builds only (what `cargo test` runs): with `CLUE_DB_TEST_PAUSE=POINT` and
/// `CLUE_DB_TEST_PAUSE_DIR=DIR` set, a build that reaches `POINT` creates `DIR/reached` and
/// waits until `DIR/go` exists, so an end-to-end test can run another `clue-db` at exactly that
/// moment (the concurrent-build race of issue 13) instead of hoping a sleep lands there.
pub(crate) fn pause_for_test(point: &str, tmp: &Path) {
    #[cfg(test)]
    hook::run(point, tmp);
    #[cfg(debug_assertions)]
    if std::env::var_os("CLUE_DB_TEST_PAUSE").is_some_and(|p| p == point)
        && let Some(dir) = std::env::var_os("CLUE_DB_TEST_PAUSE_DIR").map(std::path::PathBuf::from)
    {
        // Written aside and renamed, so that `reached` appears whole: a test polling for it on
        // a loaded machine read it between its creation and its write, an empty path.
        let aside = dir.join("reached.part");
        if std::fs::write(&aside, tmp.as_os_str().as_encoded_bytes()).is_ok() {
            let _ = std::fs::rename(&aside, dir.join("reached"));
        }
        // Bounded: a test that never says go does not leave a process behind forever.
        for _ in 0..6000 {
            if dir.join("go").exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
    #[cfg(not(any(test, debug_assertions)))]
    let _ = (point, tmp);
}

/// Test hook: runs the current thread's hook, if any, at a named moment of a build, so a test
/// can act (as another build would) at exactly that moment. See also [`pause_for_test`].
#[cfg(test)]
pub(crate) mod hook {
    use std::cell::RefCell;
    use std::path::Path;

    type Hook = Box<dyn FnMut(&str, &Path)>;
    thread_local!(static HOOK: RefCell<Option<Hook>> = const { RefCell::new(None) });

    pub fn set(f: impl FnMut(&str, &Path) + 'static) {
        HOOK.with(|h| *h.borrow_mut() = Some(Box::new(f)));
    }

    pub fn run(point: &str, tmp: &Path) {
        HOOK.with(|h| {
            if let Some(f) = h.borrow_mut().as_mut() {
                f(point, tmp)
            }
        });
    }
}
