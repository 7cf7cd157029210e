//! `clue-db serve`: parses, starts the server of the `serve` crate, prints its URL.

use anyhow::Result;
use clap::Args;
use std::io::Write;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::commands::DEFAULT_DB;

#[derive(Args)]
pub struct ServeArgs {
    /// The database.
    #[arg(long, default_value = DEFAULT_DB)]
    db: PathBuf,
    /// The port (0: any free port; the URL printed says which).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on: an IP address, or a name this machine resolves (`localhost`).
    /// The server has no authentication: keep 127.0.0.1 unless the network is yours (0.0.0.0
    /// opens it to every machine that can reach this one).
    #[arg(long, default_value = "127.0.0.1", value_parser = host_addr)]
    host: IpAddr,
    /// Open the page in the desktop's browser.
    #[arg(long)]
    open: bool,
    /// Seconds a client may take to send a request's head (or stay idle between requests) and,
    /// again, its body; a slower connection is closed.
    #[arg(long, default_value_t = 10.0, value_parser = positive_seconds)]
    client_timeout: f64,
    /// The most connections at once (lowered to fit the limit of open files). At the cap, the
    /// connection that has waited for its client the longest (idle, or a head or a body still
    /// arriving) is closed to make room.
    #[arg(long, default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
    /// The page offers for new games the word lists the database stored (`codenames`, `duet`,
    /// `deep-undercover`); for a database built before lists were stored, the shared data
    /// folder's word-lists/ (Codenames Duet, Deep Undercover) are read instead, and a list
    /// whose file is missing is not offered.
    #[arg(long, default_value = "../shared/data", value_name = "DIR")]
    data: PathBuf,
    /// The folder of hand-kept inputs, where `codenames` is read from (terms.txt) for a
    /// database that stored no list of that name.
    #[arg(long, default_value = "pipeline", value_name = "DIR")]
    inputs: PathBuf,
}

/// The word lists of [`pipeline::WORD_LISTS`] whose files are here, for a database that stored
/// none (built before lists were stored); the server offers the lists of the file it serves
/// when it has some, and a rebuilt file brings its own.
fn word_lists(
    data: &std::path::Path,
    inputs: &std::path::Path,
) -> Result<Vec<(String, Vec<String>)>> {
    let mut out = Vec::new();
    for name in pipeline::WORD_LISTS {
        if let Some(found) = crate::query_commands::named_list(&[], name, inputs, data)? {
            out.push(found);
        }
    }
    Ok(out)
}

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 3600.0 => Ok(v),
        _ => Err(format!("{s:?}: give seconds, more than 0 and at most 3600")),
    }
}

/// `--host`: an IP address as it is, or a name resolved to one, its first IPv4 address if it
/// has one (`localhost` is 127.0.0.1, the address the server's own checks expect first);
/// clap names the option in the error.
fn host_addr(s: &str) -> Result<IpAddr, String> {
    if let Ok(ip) = s.parse::<IpAddr>() {
        return Ok(ip);
    }
    let addrs: Vec<IpAddr> = std::net::ToSocketAddrs::to_socket_addrs(&(s, 0))
        .map_err(|e| {
            format!("not an IP address, nor a name this machine resolves ({e}): give 127.0.0.1, localhost or 0.0.0.0")
        })?
        .map(|a| a.ip())
        .collect();
    addrs
        .iter()
        .find(|ip| ip.is_ipv4())
        .or(addrs.first())
        .copied()
        .ok_or_else(|| "a name with no address: give an IP address".to_string())
}

pub fn serve(a: ServeArgs) -> Result<()> {
    let timeout = Duration::from_secs_f64(a.client_timeout);
    let server = serve::Server::bind(&serve::Config {
        db: a.db.clone(),
        host: a.host,
        port: a.port,
        head_timeout: timeout,
        body_timeout: timeout,
        max_connections: a.max_connections as usize,
        lists: word_lists(&a.data, &a.inputs)?,
        ..serve::Config::default()
    })?;
    let url = server.url();
    if !server.is_loopback() {
        // Said at start, not only in --help: whoever can reach this address can use the server,
        // and so can a page whose domain is re-pointed at this machine (DNS rebinding): the
        // server cannot know the names the machine goes by, so it checks none.
        eprintln!(
            "clue-db serve: warning: listening on {}, which other machines can reach; the server has no authentication, and it answers any name in Host, so a page of another site whose name is pointed at this machine can use it too (keep --host 127.0.0.1 unless the network is yours)",
            a.host
        );
    }
    {
        let mut out = crate::out::stdout();
        writeln!(
            out,
            "clue-db serve: {url} ({}, {} covered terms; Ctrl-C stops)",
            a.db.display(),
            server.terms()
        )?;
        out.flush()?;
    }
    if a.open {
        let say = |why: String, url: &str| {
            eprintln!("clue-db serve: could not open a browser ({why}); open {url} yourself")
        };
        let later = url.clone();
        if let Err(e) = serve::open_browser(&url, move |why| say(why, &later)) {
            say(format!("{e:#}"), &url);
        }
    }
    server.run()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--host localhost` was refused ("invalid IP address syntax"); an address is taken as it
    /// is, a name by what it resolves to, IPv4 first.
    #[test]
    fn host_takes_addresses_and_names_that_resolve() {
        assert_eq!(host_addr("0.0.0.0"), Ok("0.0.0.0".parse().unwrap()));
        assert_eq!(host_addr("::1"), Ok("::1".parse().unwrap()));
        assert_eq!(host_addr("localhost"), Ok("127.0.0.1".parse().unwrap()));
    }
}
