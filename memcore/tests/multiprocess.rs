//! Several processes writing one store: nothing lost, no torn files.
//!
//! The test re-runs its own test binary as child writers (selected with `--exact` and told
//! what to do through environment variables), so the children are real separate processes.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use std::process::{Command, Stdio};

use memcore::{ListOptions, Memcore, MemoryUpdate, NewMemory, Scope};

const ROLE: &str = "MEMCORE_TEST_WRITER";
const NOTES_PER_WRITER: usize = 30;

/// The child side: a no-op unless started by the parent test with `ROLE` set.
#[test]
fn writer_child() {
    let Ok(name) = std::env::var(ROLE) else { return };
    // The global scope, placed by MEMCORE_HOME: also checks global-store resolution.
    let memcore = Memcore::builder().scope(Scope::Global).open().expect("global store opens");
    for n in 0..NOTES_PER_WRITER {
        memcore.put(NewMemory::new(format!("{name} note {n}")).id(format!("{name}-{n}"))).unwrap();
        let tag = MemoryUpdate::new().tags([format!("{name}-{n}")]).merge_tags(true);
        memcore.update("shared", tag).unwrap();
    }
}

#[test]
fn two_processes_write_one_store() {
    let dir = tempfile::tempdir().unwrap();
    // The global store's settings: this test is about the store, so no model is loaded.
    std::fs::write(dir.path().join("config.yaml"), "embedding:\n  enabled: false\n").unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore.put(NewMemory::new("every writer tags me").id("shared")).unwrap();

    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = ["alpha", "beta"]
        .iter()
        .map(|name| {
            Command::new(&exe)
                .args(["--exact", "writer_child", "--test-threads", "1"])
                .env(ROLE, name)
                .env("MEMCORE_HOME", dir.path())
                .stdout(Stdio::null())
                .spawn()
                .expect("child starts")
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success(), "a writer process failed");
    }

    let listing = memcore.list(&ListOptions::new()).unwrap();
    assert!(listing.skipped.is_empty(), "{:?}", listing.skipped);
    assert_eq!(listing.memories.len(), 2 * NOTES_PER_WRITER + 1);
    let shared = memcore.get("shared").unwrap();
    assert_eq!(shared.tags.len(), 2 * NOTES_PER_WRITER, "an update was lost");
    assert_eq!(shared.version as usize, 2 * NOTES_PER_WRITER + 1);
}
