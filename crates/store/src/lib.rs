//! The SQLite store: the schema, every write and every read. Nothing else in clue-db touches SQL,
//! so the file's layout (a public interface, see `db/README.md`) changes in one place only.

mod build;
mod graph;
mod ingest;
mod pause;
mod pipeline;
mod read;
mod relatedness;
mod setnet;

pub use build::{Build, Store, abandon_builds_and_exit, name_database, read_meta_of_any_version};
pub use graph::{
    DEFAULT_CHUNK_PAIRS, GRAPH_TABLE, GraphBuilder, GraphHeader, LINK_GRAPH_KEY, LinkGraph,
};
pub use ingest::{KeepInputs, LINKS_KEY, LinkStats, MAX_TITLE_BYTES, NewPage, PAGE_TEXT_KEY};
pub use pipeline::{ChunkRow, ClueCount, ClueLink, PageRow, ScoreRow};
pub use read::{Evidence, PageInfo};
pub use relatedness::{CompanyRow, HalfVectors, Meeting, RelatednessIds, RelatednessRow};
pub use setnet::{SETNET_TABLE, WeightRow};

/// Bumped whenever a table or column changes meaning; readers check it.
pub const SCHEMA_VERSION: i64 = 8;

/// The single-word forms of a card that the legality rule compares inflections against, and
/// the domain of the `inflections` table: the card itself if it is one word, else the words
/// joined and each word (`ice cream` -> icecream, ice, cream; hyphens split as spaces do).
pub fn card_forms(card: &str) -> Vec<String> {
    let card = card.trim().to_lowercase();
    let parts: Vec<&str> = card
        .split(|c: char| c.is_whitespace() || c == '-')
        .filter(|p| !p.is_empty())
        .collect();
    let mut forms = match parts.as_slice() {
        [] => vec![],
        [one] => vec![one.to_string()],
        _ => std::iter::once(parts.concat())
            .chain(parts.iter().map(|p| p.to_string()))
            .collect(),
    };
    forms.dedup();
    forms
}

/// The schema, applied to every new database.
pub const SCHEMA_SQL: &str = include_str!("../../../db/schema.sql");
