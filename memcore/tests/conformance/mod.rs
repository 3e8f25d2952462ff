//! The conformance suite: the behaviour every [`MemoryStore`] backend must show.
//!
//! A backend's test file runs it with
//! `conformance_suite!(make_store_expression, history: true_or_false);`, where the expression
//! returns a `(store, guard)` pair (the guard, e.g. a temp dir, lives as long as the test).
//! Tests use only the trait and the ids the store hands back, and collection names that are
//! also valid git-notes namespaces, so every backend can run them unchanged.
#![allow(dead_code, unreachable_pub)]

use std::ops::ControlFlow;
use std::sync::Arc;

use memcore::{
    Category, Collection, Limits, Memory, MemoryRef, MemoryStore, MemoryUpdate, NewMemory, PutMode,
    Status, Timestamp,
};

/// A fixed clock reading so that tests are exact.
pub fn at(seconds: i64) -> Timestamp {
    Timestamp::from_timestamp(1_700_000_000 + seconds, 0).expect("valid time")
}

pub fn collection(name: &str) -> Collection {
    name.parse().expect("valid collection")
}

pub fn memory(new: NewMemory, seconds: i64) -> Memory {
    new.into_memory(&collection("learnings"), &Limits::default(), at(seconds))
        .expect("valid memory")
}

fn rich() -> NewMemory {
    NewMemory::new("# Rich\n\nSome *markdown* body.\n")
        .collection("decisions")
        .id("rich")
        .summary("a memory with every field")
        .kind("decision")
        .tags(["a", "b"])
        .category("architecture")
        .context("conformance")
        .related_to(["other"])
        .project("memcore")
        .priority("high")
        .created_by("tester")
        .importance(0.5)
        .meta("custom", serde_json::json!({"nested": [1, "two"]}))
}

pub fn put_then_get_round_trips(store: &dyn MemoryStore) {
    let stored = store.put(memory(rich(), 0), PutMode::Upsert).unwrap();
    let got = store.get(&stored.reference()).unwrap();
    assert_eq!(*got, stored);
    let anywhere = store.get(&MemoryRef::bare(stored.id.clone())).unwrap();
    assert_eq!(*anywhere, stored);
    assert_eq!(stored.version, 1);
    assert_eq!(stored.created_at, at(0));
}

pub fn missing_memories_are_not_found(store: &dyn MemoryStore) {
    let id: memcore::MemoryId = "nothing-here".parse().unwrap();
    let learnings = collection("learnings");
    let errors = [
        store.get(&MemoryRef::bare(id.clone())).map(|_| ()).unwrap_err(),
        store.get(&MemoryRef::new(learnings.clone(), id.clone())).map(|_| ()).unwrap_err(),
        store
            .update(&MemoryRef::bare(id.clone()), &MemoryUpdate::new().title("x"), at(1))
            .map(|_| ())
            .unwrap_err(),
        store.delete(&MemoryRef::bare(id.clone()), at(1)).map(|_| ()).unwrap_err(),
        store.restore(&MemoryRef::bare(id.clone())).map(|_| ()).unwrap_err(),
    ];
    for err in errors {
        assert_eq!(err.category(), Category::NotFound, "{err}");
        assert!(!err.recovery().is_empty());
    }
}

pub fn create_only_conflicts_and_keeps_the_original(store: &dyn MemoryStore) {
    let first =
        store.put(memory(NewMemory::new("first").id("dup"), 0), PutMode::CreateOnly).unwrap();
    let second = memory(NewMemory::new("second").id("dup"), 1);
    let err = store.put(second, PutMode::CreateOnly).unwrap_err();
    assert_eq!(err.category(), Category::Conflict);
    assert_eq!(store.get(&first.reference()).unwrap().content, "first");
}

pub fn upsert_replaces_keeping_creation_time(store: &dyn MemoryStore) {
    let first = store.put(memory(NewMemory::new("first").id("same"), 0), PutMode::Upsert).unwrap();
    let second =
        store.put(memory(NewMemory::new("second").id("same"), 10), PutMode::Upsert).unwrap();
    assert_eq!(second.id, first.id);
    assert_eq!(second.version, 2);
    assert_eq!(second.created_at, at(0));
    assert_eq!(second.updated_at, at(10));
    let got = store.get(&first.reference()).unwrap();
    assert_eq!(*got, second);
}

pub fn update_merges_and_bumps_version(store: &dyn MemoryStore) {
    let stored = store.put(memory(rich(), 0), PutMode::Upsert).unwrap();
    let change = MemoryUpdate::new()
        .content("new body")
        .tags(["c"])
        .merge_tags(true)
        .meta("added", 1)
        .status(Status::Resolved);
    let updated = store.update(&stored.reference(), &change, at(60)).unwrap();
    assert_eq!(updated.content, "new body");
    assert_eq!(updated.tags, ["a", "b", "c"]);
    assert_eq!(updated.metadata["added"], 1);
    assert_eq!(updated.metadata["custom"], stored.metadata["custom"]);
    assert_eq!(updated.status, Status::Resolved);
    assert_eq!((updated.version, updated.updated_at, updated.created_at), (2, at(60), at(0)));
    assert_eq!(*store.get(&MemoryRef::bare(stored.id.clone())).unwrap(), updated);
}

pub fn failed_update_changes_nothing(store: &dyn MemoryStore) {
    let stored = store.put(memory(rich(), 0), PutMode::Upsert).unwrap();
    let resolved = MemoryUpdate::new().status(Status::Resolved);
    store.update(&MemoryRef::bare(stored.id.clone()), &resolved, at(1)).unwrap();
    let before = store.get(&MemoryRef::bare(stored.id.clone())).unwrap();
    let invalid = [
        MemoryUpdate::new().status(Status::Active).content("lost"),
        MemoryUpdate::new().content("   "),
        MemoryUpdate::new().importance(2.0),
    ];
    for change in invalid {
        let err = store.update(&MemoryRef::bare(stored.id.clone()), &change, at(2)).unwrap_err();
        assert_eq!(err.category(), Category::Validation, "{err}");
    }
    assert_eq!(store.get(&MemoryRef::bare(stored.id.clone())).unwrap(), before);
}

pub fn delete_and_restore(store: &dyn MemoryStore) {
    let stored =
        store.put(memory(NewMemory::new("keep me").id("gone"), 0), PutMode::Upsert).unwrap();
    let entry = store.delete(&MemoryRef::bare(stored.id.clone()), at(5)).unwrap();
    assert_eq!(
        (entry.id.clone(), entry.collection.clone()),
        (stored.id.clone(), stored.collection.clone())
    );
    let err = store.get(&MemoryRef::bare(stored.id.clone())).unwrap_err();
    assert_eq!(err.category(), Category::NotFound);
    let restored = store.restore(&stored.reference()).unwrap();
    assert_eq!(*restored, stored);
    assert_eq!(*store.get(&MemoryRef::bare(stored.id.clone())).unwrap(), stored);
}

pub fn restore_refuses_to_overwrite(store: &dyn MemoryStore) {
    let stored = store.put(memory(NewMemory::new("old").id("again"), 0), PutMode::Upsert).unwrap();
    store.delete(&MemoryRef::bare(stored.id.clone()), at(1)).unwrap();
    let again = store.put(memory(NewMemory::new("new").id("again"), 2), PutMode::Upsert).unwrap();
    let err = store.restore(&MemoryRef::bare(stored.id.clone())).unwrap_err();
    assert_eq!(err.category(), Category::Conflict);
    assert_eq!(store.get(&MemoryRef::bare(again.id.clone())).unwrap().content, "new");
}

pub fn ambiguous_ids_need_a_collection(store: &dyn MemoryStore) {
    let a = store
        .put(memory(NewMemory::new("a").id("twin").collection("decisions"), 0), PutMode::Upsert)
        .unwrap();
    let b = store
        .put(memory(NewMemory::new("b").id("twin").collection("progress"), 0), PutMode::Upsert)
        .unwrap();
    if a.id != b.id {
        return; // the backend makes ids unique across collections
    }
    assert_eq!(
        store.get(&MemoryRef::bare(a.id.clone())).unwrap_err().category(),
        Category::Conflict
    );
    assert_eq!(store.get(&b.reference()).unwrap().content, "b");
}

fn scan_all(store: &dyn MemoryStore, collection: Option<&Collection>) -> Vec<Arc<Memory>> {
    let mut seen = Vec::new();
    store
        .scan(collection, &mut |item| {
            seen.push(item.expect("every memory loads"));
            ControlFlow::Continue(())
        })
        .unwrap();
    seen
}

pub fn scan_visits_everything_in_order(store: &dyn MemoryStore) {
    for (i, c) in ["decisions", "learnings", "progress"].iter().enumerate() {
        for n in 0..4 {
            let new =
                NewMemory::new(format!("memory {n} of {c}")).id(format!("m{n}")).collection(*c);
            store.put(memory(new, i as i64), PutMode::Upsert).unwrap();
        }
    }
    let all = scan_all(store, None);
    assert_eq!(all.len(), 12);
    let keys: Vec<_> = all.iter().map(|m| (m.collection.clone(), m.id.clone())).collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert_eq!(scan_all(store, Some(&collection("learnings"))).len(), 4);
    let names: Vec<String> = store.collections().unwrap().iter().map(|c| c.to_string()).collect();
    assert_eq!(names, ["decisions", "learnings", "progress"]);
    let mut visited = 0;
    store
        .scan(None, &mut |_| {
            visited += 1;
            if visited == 5 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        })
        .unwrap();
    assert_eq!(visited, 5);
}

pub fn concurrent_writers_lose_nothing(store: &dyn MemoryStore) {
    let shared =
        store.put(memory(NewMemory::new("counter").id("shared"), 0), PutMode::Upsert).unwrap();
    std::thread::scope(|scope| {
        for t in 0..4 {
            let shared = &shared;
            scope.spawn(move || {
                for n in 0..10 {
                    let new =
                        NewMemory::new(format!("thread {t} note {n}")).id(format!("t{t}-n{n}"));
                    store.put(memory(new, 1), PutMode::CreateOnly).unwrap();
                    let tag = MemoryUpdate::new().tags([format!("t{t}-{n}")]).merge_tags(true);
                    store.update(&shared.reference(), &tag, at(2)).unwrap();
                }
            });
        }
    });
    assert_eq!(scan_all(store, None).len(), 41);
    let counter = store.get(&MemoryRef::bare(shared.id.clone())).unwrap();
    assert_eq!(counter.tags.len(), 40);
    assert_eq!(counter.version, 41);
}

pub fn put_many_stores_a_batch(store: &dyn MemoryStore) {
    let batch: Vec<Memory> = (0..20)
        .map(|n| memory(NewMemory::new(format!("note {n}")).id(format!("b{n}")), 0))
        .collect();
    let stored = store.put_many(batch, PutMode::CreateOnly).unwrap();
    assert_eq!(stored.len(), 20);
    for memory in &stored {
        assert_eq!(*store.get(&memory.reference()).unwrap(), *memory);
    }
    // A conflict anywhere in a create-only batch writes nothing of it.
    let clash = vec![
        memory(NewMemory::new("fresh").id("fresh-one"), 1),
        memory(NewMemory::new("again").id("b3"), 1),
    ];
    assert_eq!(
        store.put_many(clash, PutMode::CreateOnly).unwrap_err().category(),
        Category::Conflict
    );
    let fresh_id: memcore::MemoryId = "fresh-one".parse().unwrap();
    assert_eq!(
        store.get(&MemoryRef::bare(fresh_id.clone())).unwrap_err().category(),
        Category::NotFound
    );
    // The same id twice in one upsert batch: the second replaces the first.
    let twice = vec![
        memory(NewMemory::new("first").id("twice"), 2),
        memory(NewMemory::new("second").id("twice"), 3),
    ];
    let stored = store.put_many(twice, PutMode::Upsert).unwrap();
    let got = store.get(&stored[1].reference()).unwrap();
    assert_eq!((got.content.as_str(), got.version), ("second", 2));
}

pub fn update_many_applies_a_batch_skipping_moved_on_memories(store: &dyn MemoryStore) {
    let batch: Vec<Memory> = (0..6)
        .map(|n| memory(NewMemory::new(format!("note {n}")).id(format!("u{n}")), 0))
        .collect();
    let stored = store.put_many(batch, PutMode::Upsert).unwrap();
    // u1 moves on before the batch, u5 is gone: both are skipped, the rest are written.
    store.update(&stored[1].reference(), &MemoryUpdate::new().content("moved on"), at(5)).unwrap();
    store.delete(&stored[5].reference(), at(6)).unwrap();
    let changes: Vec<(MemoryRef, MemoryUpdate)> = stored
        .iter()
        .map(|m| {
            let change = MemoryUpdate::new().status(Status::Archived).expected_version(m.version);
            (m.reference(), change)
        })
        .collect();
    let written = store.update_many(&changes, at(10)).unwrap();
    let refs: Vec<MemoryRef> = written.iter().map(Memory::reference).collect();
    let expected: Vec<MemoryRef> = [0, 2, 3, 4].iter().map(|&i| stored[i].reference()).collect();
    assert_eq!(refs, expected);
    for memory in &written {
        assert_eq!(
            (memory.status, memory.version, memory.updated_at),
            (Status::Archived, 2, at(10))
        );
        assert_eq!(*store.get(&memory.reference()).unwrap(), *memory);
    }
    let skipped = store.get(&stored[1].reference()).unwrap();
    assert_eq!((skipped.status, skipped.content.as_str()), (Status::Active, "moved on"));
    // An invalid change ends the batch (the file store checks them all before writing; the
    // trait's default writes one at a time, so the invalid one comes first here).
    let invalid = vec![
        (stored[3].reference(), MemoryUpdate::new().status(Status::Resolved)),
        (stored[2].reference(), MemoryUpdate::new().content("fine")),
    ];
    assert_eq!(store.update_many(&invalid, at(20)).unwrap_err().category(), Category::Validation);
    assert_eq!(store.get(&stored[2].reference()).unwrap().version, 2);
}

pub fn history_lists_and_returns_old_versions(store: &dyn MemoryStore) {
    let stored =
        store.put(memory(NewMemory::new("v1 text").id("hist"), 0), PutMode::Upsert).unwrap();
    let bare = MemoryRef::bare(stored.id.clone());
    for (n, text) in [(1, "v2 text"), (2, "v3 text")] {
        let change = MemoryUpdate::new().content(text);
        store.update(&bare, &change, at(n * 100)).unwrap();
    }
    let history = store.history().expect("the store keeps history");
    let versions = history.versions(&bare).unwrap();
    assert_eq!(versions.len(), 3);
    assert!(versions.last().unwrap().current);
    assert!(versions.windows(2).all(|w| w[0].timestamp <= w[1].timestamp));
    let first = history.get_version(&bare, &versions[0].rev).unwrap();
    assert_eq!(first.content, "v1 text");
    let current = history.get_version(&stored.reference(), &versions[2].rev).unwrap();
    assert_eq!(current.content, "v3 text");
    let err = history.get_version(&bare, "999").unwrap_err();
    assert!(matches!(err.category(), Category::NotFound | Category::Validation), "{err}");
}

/// A store without history either lacks the capability or says `Unsupported` when asked.
pub fn history_is_unsupported_cleanly(store: &dyn MemoryStore) {
    let stored = store.put(memory(NewMemory::new("x").id("nohist"), 0), PutMode::Upsert).unwrap();
    if let Some(history) = store.history() {
        let err = history.versions(&stored.reference()).unwrap_err();
        assert_eq!(err.category(), Category::Unsupported);
    }
}

/// Generates one `#[test]` per conformance check for the store made by `$make`.
#[macro_export]
macro_rules! conformance_suite {
    ($make:expr, history: $history:expr) => {
        $crate::conformance_suite!(@tests $make;
            put_then_get_round_trips,
            missing_memories_are_not_found,
            create_only_conflicts_and_keeps_the_original,
            upsert_replaces_keeping_creation_time,
            update_merges_and_bumps_version,
            failed_update_changes_nothing,
            delete_and_restore,
            restore_refuses_to_overwrite,
            ambiguous_ids_need_a_collection,
            scan_visits_everything_in_order,
            concurrent_writers_lose_nothing,
            put_many_stores_a_batch,
            update_many_applies_a_batch_skipping_moved_on_memories,
        );

        #[test]
        fn history() {
            let (store, _guard) = $make;
            if $history {
                conformance::history_lists_and_returns_old_versions(&store);
            } else {
                conformance::history_is_unsupported_cleanly(&store);
            }
        }
    };
    (@tests $make:expr; $($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                let (store, _guard) = $make;
                conformance::$name(&store);
            }
        )*
    };
}
