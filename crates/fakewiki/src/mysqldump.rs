//! SQL tables in mysqldump's form, as the Wikimedia dumps write them: the text both the fake
//! dumps site ([`crate::dumps`]) and the run folders of [`crate::dump_run`] serve, below both
//! so that neither imports the other for it.

/// A `page_props` dump in mysqldump's form, with MediaWiki's real table definition: rows of
/// `(pp_page, pp_propname, pp_value)`.
pub fn page_props_sql(wiki: &str, rows: &[(u64, &str, &str)]) -> String {
    let values: Vec<String> = rows
        .iter()
        .map(|(page, name, value)| {
            let esc = |s: &str| s.replace('\\', "\\\\").replace('\'', "\\'");
            format!("({page},'{}','{}',NULL)", esc(name), esc(value))
        })
        .collect();
    format!(
        "-- MariaDB dump 10.19  Distrib 10.5.23-MariaDB, for debian-linux-gnu (x86_64)
--
-- Host: db1166    Database: {wiki}
-- ------------------------------------------------------
-- Server version\t10.6.17-MariaDB-log

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET NAMES utf8mb4 */;

--
-- Table structure for table `page_props`
--

DROP TABLE IF EXISTS `page_props`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8 */;
CREATE TABLE `page_props` (
  `pp_page` int(10) unsigned NOT NULL,
  `pp_propname` varbinary(60) NOT NULL,
  `pp_value` blob NOT NULL,
  `pp_sortkey` float DEFAULT NULL,
  PRIMARY KEY (`pp_page`,`pp_propname`),
  UNIQUE KEY `pp_propname_page` (`pp_propname`,`pp_page`),
  UNIQUE KEY `pp_propname_sortkey_page` (`pp_propname`,`pp_sortkey`,`pp_page`)
) ENGINE=InnoDB DEFAULT CHARSET=binary;
/*!40101 SET character_set_client = @saved_cs_client */;

--
-- Dumping data for table `page_props`
--

/*!40000 ALTER TABLE `page_props` DISABLE KEYS */;
INSERT INTO `page_props` VALUES {};
/*!40000 ALTER TABLE `page_props` ENABLE KEYS */;

-- Dump completed on 2024-09-01 10:42:25
",
        values.join(",")
    )
}
