//! The conformance suite against [`PostgresStore`] in a real PostgreSQL cluster, one
//! namespace per test.
#![cfg(feature = "postgres")]
// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

mod conformance;
mod pgcluster;

use memcore::PostgresStore;

fn postgres_store() -> (PostgresStore, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = pgcluster::config(pgcluster::shared().url(), &pgcluster::namespace());
    let store = PostgresStore::open(dir.path(), &config).expect("store opens");
    (store, dir)
}

conformance_suite!(postgres_store(), history: true);
