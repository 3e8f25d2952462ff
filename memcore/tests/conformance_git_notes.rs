//! The conformance suite against [`GitNotesStore`] in a real repository.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

mod conformance;
mod gitrepo;

use memcore::{Config, GitNotesStore};

fn notes_store() -> (GitNotesStore, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    gitrepo::init_with_commit(dir.path());
    let store = GitNotesStore::open(dir.path(), &Config::default()).expect("store opens");
    (store, dir)
}

conformance_suite!(notes_store(), history: false);
