//! The conformance suite against [`FileStore`], with built-in history and without.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

mod conformance;

use memcore::{Config, FileStore, Versioning};

fn store_with(versioning: Versioning) -> (FileStore, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = Config { versioning, ..Config::default() };
    let store = FileStore::open(dir.path().join("store"), &config).expect("store opens");
    (store, dir)
}

mod builtin_history {
    use super::*;
    conformance_suite!(store_with(Versioning::Builtin), history: true);
}

mod no_history {
    use super::*;
    conformance_suite!(store_with(Versioning::Off), history: false);
}
