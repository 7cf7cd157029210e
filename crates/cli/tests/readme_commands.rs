//! The commands of README.md run as written (issue 47): every command line of its `sh` blocks is
//! taken apart and checked against the binary, without a database and without the network.
//!
//! - `clue-db SUBCOMMAND ARGS…` (also as `target/release/clue-db`, or after `&&`): the
//!   subcommand exists, every flag is one of its own (`clue-db SUBCOMMAND --help` lists them),
//!   its required flags and arguments are there, and clap accepts every value (the command is
//!   run with `--help` appended: clap parses the arguments before it, values included, then
//!   prints the help instead of running).
//! - `make TARGET… VAR=…`: the target is one of the Makefile's, and `PIPELINE_FLAGS` are flags
//!   of `clue-db pipeline all`.
//! - `curl` and `sqlite3` lines are examples against a running server or a built database, and
//!   are left alone; any other program fails the test, so that a new kind of command gets a
//!   check.
//!
//! With a built database (`make pipeline`), `cargo test -p cli --test readme_commands --
//! --ignored` also runs the README's first example and checks that it answers the clue, number
//! and cards the README shows.

mod common;

use common::{clue_db, repo_root};
use std::collections::{BTreeMap, BTreeSet};

fn readme() -> String {
    std::fs::read_to_string(repo_root().join("README.md")).expect("reading README.md")
}

/// The contents of the README's ```` ```sh ```` blocks, in order.
fn shell_blocks(text: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in text.lines() {
        match &mut current {
            None if line.trim_start() == "```sh" => current = Some(Vec::new()),
            None => {}
            Some(block) if line.trim_start().starts_with("```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => block.push(line.to_string()),
        }
    }
    assert!(current.is_none(), "README.md: a ```sh block is not closed");
    blocks
}

/// The command lines of one block, continuations (`\` at the end) joined. In a block that shows
/// a session (`$ command`, then its output), only the `$` lines are commands.
fn command_lines(block: &[String]) -> Vec<String> {
    let session = block.iter().any(|l| l.starts_with("$ "));
    let mut lines = Vec::new();
    let mut pending: Option<String> = None;
    for line in block {
        let line = match pending.take() {
            Some(start) => format!("{start} {}", line.trim()),
            None if session => match line.strip_prefix("$ ") {
                Some(command) => command.to_string(),
                None => continue, // output
            },
            None => line.trim().to_string(),
        };
        match line.strip_suffix('\\') {
            Some(start) => pending = Some(start.trim_end().to_string()),
            None if !line.is_empty() => lines.push(line),
            None => {}
        }
    }
    assert!(
        pending.is_none(),
        "README.md: a line ends in `\\` at the end of its block"
    );
    lines
}

/// Splits a command line into words as a POSIX shell would for these simple lines: single and
/// double quotes, backslash escapes in double quotes, `#` comments, and `&&` between commands.
fn split_commands(line: &str) -> Vec<Vec<String>> {
    let mut commands = vec![Vec::new()];
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        _ => word.push(q),
                    }
                }
            }
            '#' if !in_word => break,
            '&' if !in_word && chars.peek() == Some(&'&') => {
                chars.next();
                commands.push(Vec::new());
            }
            c if c.is_whitespace() => {
                if in_word {
                    commands.last_mut().unwrap().push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        commands.last_mut().unwrap().push(word);
    }
    commands.retain(|c| !c.is_empty());
    commands
}

/// Every command of the README's shell blocks, as words.
fn readme_commands() -> Vec<Vec<String>> {
    shell_blocks(&readme())
        .iter()
        .flat_map(|b| command_lines(b))
        .flat_map(|l| split_commands(&l))
        .collect()
}

/// What `clue-db SUBCOMMAND --help` says of the subcommand's arguments.
struct Usage {
    /// Each long flag, and whether it takes a value.
    flags: BTreeMap<String, bool>,
    /// The long flags its usage line requires.
    required_flags: Vec<String>,
    /// How many positional arguments it requires.
    required_positionals: usize,
}

fn usage(subcommand: &str) -> Usage {
    let help = clue_db([subcommand, "--help"]).ok().stdout;
    let mut flags = BTreeMap::new();
    for line in help.lines() {
        // Options are listed at an indent of 2 (`-h, --help`) or 6 (`--pos <POS>`); their
        // descriptions further in, where a wrapped line may start with a flag's name.
        let trimmed = line.trim_start();
        if line.len() - trimmed.len() > 6 {
            continue;
        }
        let line = trimmed;
        let line = line
            .strip_prefix('-')
            .filter(|l| !l.starts_with('-'))
            .and_then(|l| l.split_once(", "))
            .map_or(line, |(_, rest)| rest);
        if let Some(rest) = line.strip_prefix("--") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            let takes_value = rest[name.len()..].starts_with(" <");
            flags.insert(name, takes_value);
        }
    }
    let usage_line = help
        .lines()
        .find_map(|l| l.strip_prefix("Usage: "))
        .unwrap_or_else(|| panic!("`clue-db {subcommand} --help` has no usage line:\n{help}"));
    let mut required_flags = Vec::new();
    let mut required_positionals = 0;
    let words: Vec<&str> = usage_line.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        if let Some(name) = w.strip_prefix("--") {
            required_flags.push(name.to_string());
            if words.get(i + 1).is_some_and(|v| v.starts_with('<')) {
                i += 1;
            }
        } else if w.starts_with('<') {
            required_positionals += 1;
        }
        i += 1;
    }
    Usage {
        flags,
        required_flags,
        required_positionals,
    }
}

/// Checks one `clue-db ARGS` of the README (ARGS without the program); `line` names it.
fn check_clue_db(args: &[String], usages: &mut BTreeMap<String, Usage>, line: &str) {
    let subcommand = args
        .first()
        .unwrap_or_else(|| panic!("README: `{line}` names no subcommand"));
    let usage = usages
        .entry(subcommand.clone())
        .or_insert_with(|| usage(subcommand));
    let (mut seen, mut positionals) = (BTreeSet::new(), 0);
    let mut rest = args[1..].iter();
    while let Some(a) = rest.next() {
        if let Some(flag) = a.strip_prefix("--") {
            let (name, inline_value) = match flag.split_once('=') {
                Some((n, _)) => (n, true),
                None => (flag, false),
            };
            let takes_value = *usage.flags.get(name).unwrap_or_else(|| {
                panic!("README: `{line}`: `clue-db {subcommand}` has no flag --{name}")
            });
            if takes_value && !inline_value {
                rest.next()
                    .unwrap_or_else(|| panic!("README: `{line}`: --{name} needs a value"));
            }
            seen.insert(name.to_string());
        } else {
            positionals += 1;
        }
    }
    for f in &usage.required_flags {
        assert!(
            seen.contains(f.as_str()),
            "README: `{line}`: `clue-db {subcommand}` requires --{f}"
        );
    }
    assert!(
        positionals >= usage.required_positionals,
        "README: `{line}`: `clue-db {subcommand}` requires {} argument(s), the README gives {positionals}",
        usage.required_positionals
    );
    // clap parses every argument before `--help`, values included, and prints the help instead
    // of running: nothing is read, written or fetched.
    let run = clue_db(args.iter().map(String::as_str).chain(["--help"]));
    assert!(
        run.success() && run.stdout.contains("Usage:"),
        "README: `{line}` does not parse:\n{}",
        run.stderr
    );
}

/// The Makefile's targets.
fn make_targets() -> BTreeSet<String> {
    let makefile =
        std::fs::read_to_string(repo_root().join("Makefile")).expect("reading the Makefile");
    makefile
        .lines()
        .filter(|l| !l.starts_with(['\t', '#', ' ', '.']))
        .filter_map(|l| l.split_once(':'))
        .filter(|(name, rest)| !rest.starts_with('=') && !name.contains(['=', '$', ' ']))
        .map(|(name, _)| name.to_string())
        .collect()
}

#[test]
fn every_command_of_the_readme_parses() {
    let commands = readme_commands();
    let targets = make_targets();
    let mut usages = BTreeMap::new();
    let (mut checked, mut left) = (0, 0);
    for words in &commands {
        let line = words.join(" ");
        let program = words[0].as_str();
        match program {
            "clue-db" | "target/release/clue-db" => {
                check_clue_db(&words[1..], &mut usages, &line);
                checked += 1;
            }
            "make" => {
                for w in &words[1..] {
                    match w.split_once('=') {
                        Some(("PIPELINE_FLAGS", flags)) => {
                            let mut args: Vec<String> = vec!["pipeline".into(), "all".into()];
                            args.extend(flags.split_whitespace().map(String::from));
                            check_clue_db(&args, &mut usages, &line);
                        }
                        Some(_) => {}
                        None => assert!(
                            targets.contains(w),
                            "README: `{line}`: the Makefile has no target {w}"
                        ),
                    }
                }
                checked += 1;
            }
            "curl" | "sqlite3" => left += 1,
            other => panic!("README: `{line}`: no check for the program {other}"),
        }
    }
    assert!(
        checked >= 20,
        "only {checked} commands found in README.md's sh blocks"
    );
    eprintln!("{checked} README commands checked, {left} curl/sqlite3 examples left alone");
}

#[test]
fn the_shell_words_are_split_as_a_shell_does() {
    assert_eq!(
        split_commands(r#"make pipeline && clue-db suggest --pos "loch ness,new york" --json # c"#),
        vec![
            vec!["make", "pipeline"],
            vec![
                "clue-db",
                "suggest",
                "--pos",
                "loch ness,new york",
                "--json"
            ]
        ]
    );
    assert_eq!(
        split_commands("make pipeline PIPELINE_FLAGS=\"--keep-text --keep-links\""),
        vec![vec![
            "make",
            "pipeline",
            "PIPELINE_FLAGS=--keep-text --keep-links"
        ]]
    );
    let block: Vec<String> = [
        "$ curl -s x \\",
        "    -d '{}'",
        "{\"clue\": 1}",
        "$ clue-db info",
    ]
    .map(String::from)
    .into();
    assert_eq!(
        command_lines(&block),
        vec!["curl -s x -d '{}'", "clue-db info"]
    );
}

/// The README's first example answers as the README shows: `CLUE N   -> CARD, CARD`. Needs the
/// database of `make pipeline` at `db/clues.sqlite`.
#[test]
#[ignore = "needs the database of `make pipeline` (db/clues.sqlite)"]
fn the_first_example_answers_as_shown() {
    let text = readme();
    let block = shell_blocks(&text)
        .into_iter()
        .find(|b| b.iter().any(|l| l.starts_with("$ clue-db suggest")))
        .expect("a `$ clue-db suggest` session in README.md");
    let at = block
        .iter()
        .position(|l| l.starts_with("$ clue-db suggest"))
        .unwrap();
    let args = split_commands(&block[at]["$ ".len()..]).remove(0);
    let shown = block[at + 1].clone();
    let head = |s: &str| -> (String, Vec<String>) {
        let (clue, targets) = s.split_once("->").expect("`CLUE N -> CARDS`");
        let targets = targets.split("(score").next().unwrap();
        let mut targets: Vec<String> = targets.split(',').map(|t| t.trim().to_string()).collect();
        targets.sort();
        (
            clue.split_whitespace().collect::<Vec<_>>().join(" "),
            targets,
        )
    };
    let run = clue_db(&args[1..]).ok();
    let first = run.stdout.lines().next().unwrap_or("");
    assert_eq!(
        head(first),
        head(&shown),
        "README.md shows `{shown}`, clue-db answers:\n{}",
        run.stdout
    );
}
