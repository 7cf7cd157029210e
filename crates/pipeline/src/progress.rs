//! Progress bars for every stage: drawn on a terminal, silent otherwise (CI, pipes: indicatif
//! hides a bar whose stderr is not a terminal).

use indicatif::{ProgressBar, ProgressStyle};

/// A bar over `total` items of `what` (pages, bytes…).
pub fn bar(total: u64, what: &str) -> ProgressBar {
    let pb = ProgressBar::new(total);
    let template = format!(
        "{{prefix:>12}} [{{bar:40}}] {{pos}}/{{len}} {what} ({{per_sec}}, {{eta}}) {{msg}}"
    );
    pb.set_style(
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb
}

/// A bar over the bytes of an input file, with the page count as its message.
pub fn bytes_bar(total: u64) -> ProgressBar {
    let pb = ProgressBar::new(total);
    pb.set_style(
        ProgressStyle::with_template(
            "{prefix:>12} [{bar:40}] {bytes}/{total_bytes} ({bytes_per_sec}, {eta}) {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb
}
