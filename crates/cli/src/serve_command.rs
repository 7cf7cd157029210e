//! `clue-db serve`: parses, starts the server of the `serve` crate, prints its URL.

use anyhow::Result;
use clap::Args;
use std::io::Write;
use std::net::IpAddr;
use std::path::PathBuf;

use crate::commands::DEFAULT_DB;

#[derive(Args)]
pub struct ServeArgs {
    /// The database.
    #[arg(long, default_value = DEFAULT_DB)]
    db: PathBuf,
    /// The port (0: any free port; the URL printed says which).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on. The server has no authentication: keep 127.0.0.1 unless the
    /// network is yours (0.0.0.0 opens it to every machine that can reach this one).
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Open the page in the desktop's browser.
    #[arg(long)]
    open: bool,
}

pub fn serve(a: ServeArgs) -> Result<()> {
    let server = serve::Server::bind(&serve::Config {
        db: a.db.clone(),
        host: a.host,
        port: a.port,
    })?;
    let url = server.url();
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
    if a.open
        && let Err(e) = serve::open_browser(&url)
    {
        eprintln!("clue-db serve: could not open a browser ({e:#}); open {url} yourself");
    }
    server.run()
}
