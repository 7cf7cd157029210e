//! Which table a SQL dump holds: read from its first `INSERT`, else its name. Shared by the
//! SQL ingest and the dump runs (which sort a run's SQL files by table), below both.

use anyhow::{Result, bail};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use wiki::io::Progress;

/// The table a SQL dump fills: the one its first `INSERT` names (so excerpts such as
/// `…-linktarget-small.sql` and any compression work), else, for a dump without rows, the one
/// its file name says (`enwiki-…-page.sql.gz`, `page.sql`).
pub(crate) fn sql_table(path: &Path) -> Result<String> {
    let mut peek = wiki::sql::SqlReader::open(path, &Progress::default())?;
    peek.next_row()?;
    if !peek.table().is_empty() {
        return Ok(peek.table().to_string());
    }
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = name.split(".sql").next().unwrap_or(name);
    // `page_props` has an underscore, not a dash: the table is what follows the date.
    for table in SQL_TABLES {
        if stem.ends_with(&format!("-{table}")) || stem == table {
            return Ok(table.to_string());
        }
    }
    Ok(stem.rsplit('-').next().unwrap_or(stem).to_string())
}

/// Each dump's table, every path used once: a file of another table or a table given twice is
/// an error rather than silently left out.
pub(crate) fn sql_tables(paths: &[PathBuf]) -> Result<HashMap<String, PathBuf>> {
    let mut out: HashMap<String, PathBuf> = HashMap::new();
    for p in paths {
        let table = sql_table(p)?;
        if !SQL_TABLES.contains(&table.as_str()) {
            bail!(
                "{}: a dump of `{table}`; the SQL ingest reads {}",
                p.display(),
                SQL_TABLES.join(", ")
            );
        }
        if let Some(first) = out.insert(table.clone(), p.clone()) {
            bail!(
                "two dumps of `{table}`: {} and {}",
                first.display(),
                p.display()
            );
        }
    }
    Ok(out)
}

/// The tables the SQL ingest reads, each with its typed reader in `wiki::sql`.
pub(crate) const SQL_TABLES: [&str; 5] =
    ["page", "redirect", "pagelinks", "linktarget", "page_props"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dumps_say_their_table() {
        let dir = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/data/sql-sample"
        ));
        // From the first INSERT, whatever the name.
        let small = dir.join("dewiki-20240901-linktarget-small.sql");
        assert_eq!(sql_table(&small).unwrap(), "linktarget");
        // A dump without rows: from the name.
        let tmp = tempfile::tempdir().unwrap();
        let empty = tmp.path().join("enwiki-20240901-redirect.sql");
        std::fs::write(&empty, "-- no rows\n").unwrap();
        assert_eq!(sql_table(&empty).unwrap(), "redirect");
        // Every path is used: another table, or a table twice, is refused by name.
        let page = dir.join("test-20240901-page.sql");
        let err = sql_tables(&[page.clone(), page.clone()]).unwrap_err();
        assert!(err.to_string().contains("two dumps of `page`"), "{err}");
        let other = tmp.path().join("categorylinks.sql");
        std::fs::write(&other, "INSERT INTO `categorylinks` VALUES (1,'A');\n").unwrap();
        let err = sql_tables(&[page, other]).unwrap_err();
        assert!(err.to_string().contains("categorylinks"), "{err}");
    }
}
