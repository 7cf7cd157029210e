//! The set-network spymaster's table, `setnet_weights(name, shape, data)`: written by the
//! `setnet` stage, read by the `setnet` strategy. Rows stay raw here (crate `setnet` parses and
//! checks them): the store knows tables, not tensors.

use crate::{Build, Store};
use anyhow::{Context, Result};
use rusqlite::params;

/// One stored tensor: `(name, shape, data)`.
pub type WeightRow = (String, String, Vec<u8>);

/// The table's name, for messages.
pub const SETNET_TABLE: &str = "setnet_weights";

impl Build {
    /// Replaces every row of `setnet_weights` with `(name, shape, data)`.
    pub fn replace_setnet_weights(&self, rows: &[WeightRow]) -> Result<()> {
        self.clear(&[SETNET_TABLE])?;
        for (name, shape, data) in rows {
            self.conn
                .prepare_cached(
                    "INSERT INTO setnet_weights (name, shape, data) VALUES (?1, ?2, ?3)",
                )?
                .execute(params![name, shape, data])
                .with_context(|| format!("writing table {SETNET_TABLE} ({name:?})"))?;
        }
        Ok(())
    }
}

impl Store<'_> {
    /// Every `(name, shape, data)` row of `setnet_weights`, by name; `None` when the database
    /// has no such table (built before the set network; other strategies still read it).
    pub fn setnet_weights(&self) -> Result<Option<Vec<WeightRow>>> {
        if !self.has_table(SETNET_TABLE)? {
            return Ok(None);
        }
        let mut st = self
            .conn()
            .prepare_cached("SELECT name, shape, data FROM setnet_weights ORDER BY name")?;
        let rows = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .with_context(|| format!("reading table {SETNET_TABLE}"))?;
        Ok(Some(rows))
    }
}

#[cfg(test)]
mod tests {
    use crate::{Build, Store};

    #[test]
    fn weights_round_trip_and_a_database_without_the_table_says_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.sqlite");
        let data: Vec<u8> = [1.5f32, -2.0, 0.25]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let build = Build::create(&path).unwrap();
        build
            .replace_setnet_weights(&[("h2.bias".into(), "3".into(), data.clone())])
            .unwrap();
        build.finish().unwrap();
        let store = Store::open(&path).unwrap();
        assert_eq!(
            store.setnet_weights().unwrap(),
            Some(vec![("h2.bias".to_string(), "3".to_string(), data)])
        );
        drop(store);
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("DROP TABLE setnet_weights").unwrap();
        drop(conn);
        assert_eq!(Store::open(&path).unwrap().setnet_weights().unwrap(), None);
    }
}
