//! The SQLite store: the schema, every write and every read. Nothing else in clue-db touches SQL,
//! so the file's layout (a public interface, see `db/README.md`) changes in one place only.

mod build;
mod ingest;
mod pipeline;
mod read;

pub use build::{Build, Store};
pub use ingest::{LinkStats, NewPage};
pub use pipeline::{ChunkRow, ClueCount, ClueLink, PageRow, ScoreRow};
pub use read::{Evidence, PageInfo};

/// Bumped whenever a table or column changes meaning; readers check it.
pub const SCHEMA_VERSION: i64 = 2;

/// The schema, applied to every new database.
pub const SCHEMA_SQL: &str = include_str!("../../../db/schema.sql");
