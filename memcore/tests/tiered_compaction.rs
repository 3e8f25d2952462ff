//! Compaction and pinning of a tiered store: memories past the warm window fold into one
//! digest per collection and quarter and move to the cold tier; pinned ones stay; a dry run
//! changes nothing; a failed compaction changes nothing; a purge that fails while rebuilding
//! a digest is finished by running it again.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

mod tiers;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use memcore::compose::TokenCounter;
use memcore::session::{
    ExtractiveSummarizer, SessionEndRequest, SessionStartRequest, SessionTurnRequest, Summarizer,
    SummaryMessage, SummaryRequest,
};
use memcore::{
    ArchivedKind, Category, CompactRequest, Config, EmbeddingConfig, Error, Memcore, NewMemory,
    PurgeRequest, Query, RetainRequest, SearchMode,
};
use tiers::{at, open};

fn put(memcore: &Memcore, collection: &str, id: &str, content: &str, created: &str) {
    let memory = NewMemory::new(content).collection(collection).id(id).created_at(at(created));
    memcore.put(memory).unwrap();
}

/// The ids of the cold archive's memory records.
fn cold_memories(memcore: &Memcore) -> Vec<String> {
    let mut ids: Vec<String> = tiers::cold_records(memcore)
        .into_iter()
        .filter(|record| record.kind == ArchivedKind::Memory)
        .map(|record| record.id)
        .collect();
    ids.sort();
    ids
}

/// Every file under `dir` (the store), with its bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| !n.to_string_lossy().ends_with("lock")) {
                found.push((path.clone(), std::fs::read(&path).unwrap()));
            }
        }
    }
    found.sort();
    found
}

/// Memories of 2025's first two quarters in two collections (the clock says 2026-01-01, the
/// window is 90 days), one pinned and one recent.
fn seed(memcore: &Memcore) {
    put(
        memcore,
        "decisions",
        "zstd",
        "We chose zstd level 9 for the cold archive.",
        "2025-01-10T00:00:00Z",
    );
    put(
        memcore,
        "decisions",
        "frames",
        "Frames hold up to 1024 records each.",
        "2025-02-10T00:00:00Z",
    );
    put(
        memcore,
        "decisions",
        "postgres",
        "Teams share one PostgreSQL database.",
        "2025-05-01T00:00:00Z",
    );
    put(
        memcore,
        "learnings",
        "fsync",
        "Sync the directory after a rename.",
        "2025-03-01T00:00:00Z",
    );
    put(
        memcore,
        "learnings",
        "pinned",
        "##keepit1.00## Never skip the checksum.",
        "2025-03-02T00:00:00Z",
    );
    put(memcore, "learnings", "recent", "Hot reads take nanoseconds.", "2025-12-20T00:00:00Z");
}

#[test]
fn old_memories_fold_into_digests_and_move_to_the_cold_tier() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    seed(&memcore);

    let before = files(dir.path());
    let plan = memcore.compact(&CompactRequest::new().dry_run()).unwrap();
    assert_eq!(files(dir.path()), before, "a dry run changes nothing");
    assert!(plan.dry_run && plan.demoted == 0);
    let digests: Vec<String> = plan.digests.iter().map(|d| d.digest.to_string()).collect();
    assert_eq!(
        digests,
        ["decisions/digest-2025-q1", "decisions/digest-2025-q2", "learnings/digest-2025-q1"]
    );
    assert_eq!(plan.digests[0].originals.len(), 2);
    assert_eq!(plan.pinned, 1);

    let report = memcore.compact(&CompactRequest::new()).unwrap();
    assert_eq!(report.demoted, 4);
    for gone in ["decisions/zstd", "decisions/frames", "decisions/postgres", "learnings/fsync"] {
        assert_eq!(memcore.get(gone).unwrap_err().category(), Category::NotFound, "{gone}");
    }
    for kept in ["learnings/pinned", "learnings/recent"] {
        memcore.get(kept).unwrap();
    }
    let digest = memcore.get("decisions/digest-2025-q1").unwrap();
    assert_eq!(digest.kind.as_deref(), Some("digest"));
    assert_eq!(digest.related_to, ["decisions/frames", "decisions/zstd"]);
    assert!(digest.content.contains("zstd level 9"), "{}", digest.content);
    assert!(digest.content.contains("## Sources\n\n- decisions/zstd: "), "{}", digest.content);
    assert_eq!(digest.created_at, at("2025-01-10T00:00:00Z"));
    let cold = cold_memories(&memcore);
    assert_eq!(cold.len(), 4);
    assert!(cold[0].starts_with("decisions/frames@"), "{cold:?}");
    let record = memcore.tiers().unwrap().cold().get(&cold[0]).unwrap();
    assert_eq!(record.origin.unwrap().to_string(), "decisions/digest-2025-q1");
    assert_eq!(record.memory.unwrap().content, "Frames hold up to 1024 records each.");
    // The warm tier keeps no copy: no trash, no old versions.
    assert!(!dir.path().join(".trash/decisions").read_dir().is_ok_and(|mut d| d.next().is_some()));
    // The digest is found; the original text is searchable in the cold tier.
    let hits = memcore.search(&Query::new("zstd").mode(SearchMode::Text)).unwrap();
    assert_eq!(hits.hits[0].memory.reference.to_string(), "decisions/digest-2025-q1");

    // Again: nothing left to do.
    let again = memcore.compact(&CompactRequest::new()).unwrap();
    assert!(again.digests.is_empty() && again.demoted == 0);
}

#[test]
fn a_later_compaction_extends_the_quarters_digest() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    put(&memcore, "notes", "first", "The first note of the quarter.", "2025-01-05T00:00:00Z");
    memcore.compact(&CompactRequest::new()).unwrap();
    put(&memcore, "notes", "second", "A second note, imported late.", "2025-02-05T00:00:00Z");
    let later = CompactRequest::new().at(at("2026-06-01T00:00:00Z"));
    // The import is new (updated now), so it waits for the window; then it joins the digest.
    let report = memcore.compact(&later).unwrap();
    assert_eq!(report.digests.len(), 1);
    assert!(report.digests[0].extends && report.digests[0].folded == 1);
    let digest = memcore.get("notes/digest-2025-q1").unwrap();
    assert_eq!(digest.related_to, ["notes/first", "notes/second"]);
    assert!(
        digest.content.contains("- notes/first: ") && digest.content.contains("- notes/second: ")
    );
    assert!(digest.content.contains("The first note") && digest.content.contains("imported late"));
}

/// A summariser that fails while `failing` is set, else summarises extractively.
#[derive(Debug)]
struct Flaky {
    failing: AtomicBool,
}

impl Summarizer for Flaky {
    fn name(&self) -> &str {
        "flaky"
    }

    fn summarize(
        &self,
        request: &SummaryRequest,
        counter: &dyn TokenCounter,
    ) -> memcore::Result<Vec<SummaryMessage>> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(Error::callback("the model is down", "try later"));
        }
        ExtractiveSummarizer.summarize(request, counter)
    }
}

#[test]
fn a_failed_compaction_changes_nothing_and_the_rerun_folds_each_once() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    let long = "The archive format keeps frames of JSON lines compressed with zstd. ".repeat(40);
    for n in 0..3 {
        put(
            &memcore,
            "design",
            &format!("part-{n}"),
            &format!("Part {n}. {long}"),
            &format!("2025-04-0{}T00:00:00Z", n + 1),
        );
    }
    let flaky = Arc::new(Flaky { failing: AtomicBool::new(true) });
    memcore.set_summarizer(Some(flaky.clone()));
    let err = memcore.compact(&CompactRequest::new()).unwrap_err();
    assert_eq!(err.category(), Category::Callback, "{err}");
    assert!(cold_memories(&memcore).is_empty(), "the digest is made before anything is written");
    assert!(memcore.get("design/part-0").is_ok(), "nothing left the warm tier");
    assert!(memcore.get("design/digest-2025-q2").is_err());

    flaky.failing.store(false, Ordering::SeqCst);
    let report = memcore.compact(&CompactRequest::new()).unwrap();
    assert_eq!((report.demoted, report.digests[0].folded), (3, 3));
    assert_eq!(cold_memories(&memcore).len(), 3, "nothing archived twice");
    let digest = memcore.get("design/digest-2025-q2").unwrap();
    assert_eq!(digest.content.matches("- design/part-").count(), 3, "each source once");
}

#[test]
fn pinned_memories_and_sessions_stay_warm() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    put(&memcore, "decisions", "keep", "Keep this one warm.", "2025-01-10T00:00:00Z");
    put(&memcore, "decisions", "go", "This one may go.", "2025-01-11T00:00:00Z");
    let pinned = memcore.retain(&RetainRequest::memory("decisions/keep".parse().unwrap())).unwrap();
    assert_eq!(pinned.pinned[0].to_string(), "decisions/keep");
    memcore.session_start(&SessionStartRequest::new("old-1")).unwrap();
    memcore
        .session_turn(&SessionTurnRequest::new("old-1", "user", "Remember the release."))
        .unwrap();
    memcore.session_end(&SessionEndRequest::new("old-1")).unwrap();
    assert_eq!(memcore.retain(&RetainRequest::session("old-1")).unwrap().pinned.len(), 1);

    let report = memcore.compact(&CompactRequest::new().at(at("2027-01-01T00:00:00Z"))).unwrap();
    assert_eq!((report.pinned, report.demoted), (2, 1));
    assert_eq!(memcore.get("decisions/keep").unwrap().importance, Some(1.0));
    memcore.get("sessions/old-1").unwrap();

    for bad in [RetainRequest::default(), RetainRequest::session("never-ran")] {
        let err = memcore.retain(&bad).unwrap_err();
        assert!(matches!(err.category(), Category::Validation | Category::NotFound), "{err}");
    }
}

#[test]
fn compacting_an_empty_or_untiered_store() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    let report = memcore.compact(&CompactRequest::new()).unwrap();
    assert!(report.digests.is_empty() && report.demoted == 0 && report.pinned == 0);
    let plain = tempfile::tempdir().unwrap();
    let config = Config {
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        ..Config::default()
    };
    let file_store = Memcore::builder().path(plain.path()).config(config).open().unwrap();
    let err = file_store.compact(&CompactRequest::new()).unwrap_err();
    assert_eq!(err.category(), Category::Unsupported);
}

#[test]
fn a_purge_that_fails_midway_is_finished_by_running_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    let long = "Frames of JSON lines are compressed with zstd at level nine. ".repeat(40);
    for n in 0..3 {
        let created = format!("2025-05-0{}T00:00:00Z", n + 1);
        put(
            &memcore,
            "design",
            &format!("part-{n}"),
            &format!("Part {n} qplmzk{n}. {long}"),
            &created,
        );
    }
    memcore.compact(&CompactRequest::new()).unwrap();
    let flaky = Arc::new(Flaky { failing: AtomicBool::new(true) });
    memcore.set_summarizer(Some(flaky.clone()));
    let purge = PurgeRequest::memory("design/part-0".parse().unwrap(), "test");
    // The digest cannot be rebuilt: the purge stops after the warm step.
    assert_eq!(memcore.purge(&purge).unwrap_err().category(), Category::Callback);
    let intent = dir.path().join(".memcore/tiers/purge-intent.json");
    assert!(intent.exists(), "what must go is written down");
    let other = PurgeRequest::memory("design/part-1".parse().unwrap(), "test");
    assert_eq!(memcore.purge(&other).unwrap_err().category(), Category::Conflict);

    flaky.failing.store(false, Ordering::SeqCst);
    let record = memcore.purge(&purge).unwrap();
    assert_eq!((record.cold, record.digests.len()), (1, 1));
    assert!(!intent.exists());
    let digest = memcore.get("design/digest-2025-q2").unwrap();
    assert!(!digest.content.contains("qplmzk0") && digest.content.contains("qplmzk1"));
    assert!(cold_memories(&memcore).iter().all(|id| !id.starts_with("design/part-0@")));
    assert_eq!(memcore.tiers().unwrap().audit().records().unwrap().0.len(), 1);
}
