//! The conformance suite against [`FileStore`], with built-in history and without.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

mod conformance;
mod gitrepo;

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

/// A store inside a git work tree, committing every write: git is the history.
fn store_in_git() -> (FileStore, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    gitrepo::init_with_commit(dir.path());
    let config = Config { versioning: Versioning::Auto, git_autocommit: true, ..Config::default() };
    let store = FileStore::open(dir.path().join("memories"), &config).expect("store opens");
    (store, dir)
}

mod git_history {
    use super::*;
    conformance_suite!(store_in_git(), history: true);
}

mod no_history {
    use super::*;
    conformance_suite!(store_with(Versioning::Off), history: false);
}
