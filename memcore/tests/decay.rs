//! The decay engine through the public API on real stores: transitions reflected in the
//! indexes and history, lossless archive compression, per-type decay in search, and the
//! lifecycle over a few thousand memories with a fake clock.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{Duration, TimeZone, Utc};
use memcore::decay::{ARCHIVE_KEY, LifecycleAction, LifecycleOptions};
use memcore::{
    Category, Config, EmbeddingConfig, Memcore, MemoryUpdate, NewMemory, Query, SearchMode, Status,
    Timestamp,
};

/// Text-only settings (the model is not what these tests are about) with built-in history.
fn config() -> Config {
    Config {
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        versioning: memcore::Versioning::Builtin,
        ..Config::default()
    }
}

/// A clock the test moves by hand.
#[derive(Clone)]
struct FakeClock(Arc<AtomicI64>);

impl FakeClock {
    fn at(start: Timestamp) -> Self {
        Self(Arc::new(AtomicI64::new(start.timestamp())))
    }
    fn now(&self) -> Timestamp {
        Utc.timestamp_opt(self.0.load(Ordering::SeqCst), 0).unwrap()
    }
    fn advance(&self, days: i64) {
        self.0.fetch_add(days * 86_400, Ordering::SeqCst);
    }
}

fn open(dir: &std::path::Path, clock: &FakeClock) -> Memcore {
    let clock = clock.clone();
    Memcore::builder().path(dir).config(config()).clock(move || clock.now()).open().unwrap()
}

fn text_search(memcore: &Memcore, text: &str, statuses: &[Status]) -> Vec<String> {
    let query = Query::new(text).mode(SearchMode::Text).statuses(statuses.iter().copied());
    let results = memcore.search(&query).unwrap();
    results.hits.iter().map(|hit| hit.memory.reference.to_string()).collect()
}

#[test]
fn transitions_are_versions_seen_by_search_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let clock = FakeClock::at(Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap());
    let memcore = open(dir.path(), &clock);
    let original =
        format!("# Cache plan\n\n{}\nEnd with é and ✓.", "Warm the cache at boot. ".repeat(50));
    memcore
        .put(NewMemory::new(original.clone()).id("cache").summary("cache warming schedule"))
        .unwrap();

    let archived = memcore.transition("cache", Status::Archived).unwrap();
    assert_eq!((archived.status, archived.version), (Status::Archived, 2));
    assert!(archived.content.starts_with("[ARCHIVED] [Compressed: "), "{}", archived.content);
    assert!(archived.content.len() < original.len() / 4);
    assert!(archived.metadata.contains_key(ARCHIVE_KEY));
    // Hidden by default, found among archived memories by its summary, at once.
    assert!(text_search(&memcore, "warming schedule", &[Status::Active]).is_empty());
    assert_eq!(text_search(&memcore, "warming schedule", &[Status::Archived]), ["memory/cache"]);
    // History keeps the old status and content.
    let first = memcore.get_version("cache", "1").unwrap();
    assert_eq!((first.status, first.content.as_str()), (Status::Active, original.as_str()));

    let err = memcore.transition("cache", Status::Resolved).unwrap_err();
    assert_eq!(err.category(), Category::Validation);
    assert_eq!(err.recovery(), "from archived it can go to: active, tombstone");
    assert_eq!(memcore.get("cache").unwrap().version, 2, "a refused move writes nothing");

    let tombstoned = memcore.transition("cache", Status::Tombstone).unwrap();
    assert!(tombstoned.metadata.contains_key(ARCHIVE_KEY), "still restorable");
    let restored = memcore.transition("cache", Status::Active).unwrap();
    assert_eq!(restored.content, original, "the exact original bytes");
    assert!(!restored.metadata.contains_key(ARCHIVE_KEY));
    assert_eq!(text_search(&memcore, "warm boot", &[Status::Active]), ["memory/cache"]);

    // `update` with a status goes the same way; a pinned version guards against races.
    memcore.update("cache", MemoryUpdate::new().status(Status::Archived)).unwrap();
    let stale = MemoryUpdate::new().status(Status::Active).expected_version(3);
    assert_eq!(memcore.update("cache", stale).unwrap_err().category(), Category::Conflict);
    let back = memcore.update("cache", MemoryUpdate::new().status(Status::Active)).unwrap();
    assert_eq!(back.content, original);
    assert!(memcore.verify().unwrap().is_consistent());
}

#[test]
fn archiving_without_compression_keeps_the_content() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = config();
    settings.lifecycle.compress_archived = false;
    let memcore = Memcore::builder().path(dir.path()).config(settings).open().unwrap();
    let content = "Warm the cache at boot. ".repeat(50);
    memcore.put(NewMemory::new(content.clone()).id("cache")).unwrap();
    let archived = memcore.transition("cache", Status::Archived).unwrap();
    assert_eq!(archived.content, content);
}

#[test]
fn search_applies_per_type_decay() {
    let dir = tempfile::tempdir().unwrap();
    let start = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
    let clock = FakeClock::at(start);
    let memcore = open(dir.path(), &clock);
    for (id, kind) in [("j", "journal"), ("f", "fact"), ("p", "plan")] {
        memcore.put(NewMemory::new("rollout of the billing service").id(id).kind(kind)).unwrap();
    }
    clock.advance(30);
    let query = Query::new("billing rollout").mode(SearchMode::Text).recency(30.0, 1.0);
    let results = memcore.search(&query).unwrap();
    let factor = |id: &str| {
        let hit = results.hits.iter().find(|h| h.memory.id.as_str() == id).unwrap();
        hit.parts.recency
    };
    // fact: 0.98^30; plan: the half-life, 0.5; journal: 0.9^30 = 0.04, floored at 0.1.
    assert!((factor("f") - 0.98_f64.powi(30)).abs() < 1e-9);
    assert!((factor("p") - 0.5).abs() < 1e-9);
    assert!((factor("j") - 0.1).abs() < 1e-9);
    let order: Vec<&str> = results.hits.iter().map(|h| h.memory.id.as_str()).collect();
    assert_eq!(order, ["f", "p", "j"]);

    // by_type off: one half-life for all; no half-life given: the store's (30 days).
    let mut query = Query::new("billing rollout").mode(SearchMode::Text);
    query.recency.weight = 1.0;
    query.recency.by_type = false;
    let results = memcore.search(&query).unwrap();
    assert!(results.hits.iter().all(|h| (h.parts.recency - 0.5).abs() < 1e-9));
    let bad = Query::new("x").recency(-1.0, 0.5);
    assert_eq!(memcore.search(&bad).unwrap_err().category(), Category::Validation);
}

#[test]
fn bad_decay_settings_are_refused_at_open() {
    let dir = tempfile::tempdir().unwrap();
    for yaml in [
        "decay:\n  half_life_days: -3\n",
        "decay:\n  half_life_days: .nan\n",
        "decay:\n  types:\n    journal: { rate: 1.5, floor: 0.1 }\n",
        "lifecycle:\n  min_relevance: 2\n",
        "lifecycle:\n  archive_after_days: -1\n",
    ] {
        std::fs::write(dir.path().join(".memcore.yaml"), yaml).unwrap();
        let err = memcore::Config::load(&dir.path().join(".memcore.yaml")).unwrap_err();
        assert_eq!(err.category(), Category::Validation, "{yaml}");
        assert!(err.to_string().contains(".memcore.yaml"), "{err}");
    }
    let mut settings = config();
    settings.decay.half_life_days = 0.0;
    let err = Memcore::builder().path(dir.path()).config(settings).open().unwrap_err();
    assert_eq!(err.category(), Category::Validation);
}

/// A few thousand memories of mixed types, statuses and ages, aged by a fake clock through
/// archive, tombstone and delete; every dry run is exactly the real run that follows.
#[test]
fn lifecycle_over_thousands_of_memories() {
    const N: usize = 3_000;
    let dir = tempfile::tempdir().unwrap();
    let start = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
    let clock = FakeClock::at(start + Duration::days(400));
    let memcore = open(dir.path(), &clock);
    let kinds = [None, Some("journal"), Some("fact"), Some("plan")];
    let batch: Vec<NewMemory> = (0..N)
        .map(|i| {
            let mut memory = NewMemory::new(format!("memory {i} about topic {}", i % 17))
                .id(format!("m{i:05}"))
                .collection(["work", "home", "notes"][i % 3]);
            memory.created_at = Some(start + Duration::days((i % 400) as i64));
            memory.kind = kinds[i % 4].map(str::to_owned);
            if i % 50 == 0 {
                memory.importance = Some(1.0);
            }
            memory
        })
        .collect();
    memcore.put_many(batch).unwrap();

    // Expected from the thresholds alone: unchanged for more than 90 days, not pinned.
    let now = clock.now();
    let expected_archive = (0..N)
        .filter(|i| i % 50 != 0)
        .filter(|i| (now - (start + Duration::days((i % 400) as i64))).num_days() > 90)
        .count();
    let plan = memcore.process_lifecycle(&LifecycleOptions::new().dry_run(true)).unwrap();
    assert_eq!(plan.stats.scanned, N);
    assert_eq!(plan.stats.archived, expected_archive);
    assert_eq!(plan.stats.skipped, N - expected_archive);
    assert!(plan.steps.iter().all(|s| s.action == LifecycleAction::Archive));
    assert_eq!(
        memcore
            .list(&memcore::ListOptions::new().filter("status=archived").unwrap())
            .unwrap()
            .memories
            .len(),
        0,
        "a dry run changes nothing"
    );

    let run = memcore.process_lifecycle(&LifecycleOptions::new()).unwrap();
    assert_eq!(run.steps, plan.steps, "the dry run is the real run");
    assert_eq!(run.stats, plan.stats);
    let again = memcore.process_lifecycle(&LifecycleOptions::new()).unwrap();
    assert_eq!((again.stats.archived, again.steps.len()), (0, 0), "idempotent");

    // 181 days on: every archived memory is tombstoned (archiving reset their age).
    clock.advance(181);
    let tombstone = memcore.process_lifecycle(&LifecycleOptions::new().dry_run(true)).unwrap();
    assert_eq!(tombstone.stats.tombstoned, expected_archive);
    let done = memcore.process_lifecycle(&LifecycleOptions::new()).unwrap();
    assert_eq!(done.steps, tombstone.steps);
    // The memories too young to archive at first are old enough now (all but the pinned).
    assert_eq!(done.stats.archived, N - expected_archive - N / 50);

    // 366 days on, only one collection: its tombstones go to the trash, the rest stay.
    clock.advance(366);
    let work = memcore
        .process_lifecycle(&LifecycleOptions::new().collection("work").dry_run(true))
        .unwrap();
    assert!(work.steps.iter().all(|s| s.reference.to_string().starts_with("work/")));
    let deleted = work.steps.iter().filter(|s| s.action == LifecycleAction::Delete).count();
    assert!(deleted > 0);
    memcore.process_lifecycle(&LifecycleOptions::new().collection("work")).unwrap();
    let gone = &work.steps.iter().find(|s| s.action == LifecycleAction::Delete).unwrap().reference;
    assert_eq!(memcore.get(gone).unwrap_err().category(), Category::NotFound);
    let back = memcore.restore(gone).unwrap();
    assert_eq!(back.status, Status::Tombstone, "deleted to the trash, restorable");
    // Pinned memories were never archived.
    assert_eq!(memcore.get("m00050").unwrap().status, Status::Active);
    assert!(memcore.verify().unwrap().is_consistent());
}

#[test]
fn lifecycle_options_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::builder().path(dir.path()).config(config()).open().unwrap();
    let mut options = LifecycleOptions::new();
    options.delete_after_days = Some(f64::NAN);
    assert_eq!(memcore.process_lifecycle(&options).unwrap_err().category(), Category::Validation);
    let options = LifecycleOptions::new().collection("../etc");
    assert_eq!(memcore.process_lifecycle(&options).unwrap_err().category(), Category::Validation);
}
