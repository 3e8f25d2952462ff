//! Faults injected through the public store trait: a [`MemoryStore`] wrapper that fails its
//! Nth write (refusing it, failing after part of a batch, or failing after the write landed,
//! as a crash between the store and the indexes would), opened with
//! [`memcore::MemcoreBuilder::store`]. After every fault the indexes agree with the store, at
//! once and after reopening, and no acknowledged write is lost.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use memcore::{
    Collection, Config, EmbeddingConfig, Error, FileStore, ListOptions, Memcore, Memory, MemoryRef,
    MemoryStore, MemoryUpdate, NewMemory, PutMode, Query, SearchMode, Timestamp, TrashEntry,
    Visitor,
};

/// How the failing write fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// Nothing is written.
    Refuse,
    /// A batch writes its first memory, then fails.
    Partial,
    /// The write lands, then an error comes back.
    AfterWrite,
}

/// A file store whose `fail_at`-th write fails as `fault` says.
#[derive(Debug)]
struct Faulty {
    inner: FileStore,
    writes: AtomicUsize,
    fail_at: usize,
    fault: Fault,
    /// While set, reads fail as on a full disk.
    reads_fail: Arc<AtomicBool>,
}

fn injected() -> Error {
    Error::storage("injected fault", None, "this is a test")
}

impl Faulty {
    /// A file store at `dir` whose `fail_at`-th write fails as `fault` says, and whose reads
    /// fail while `reads_fail` is set.
    fn new(dir: &Path, fail_at: usize, fault: Fault, reads_fail: Arc<AtomicBool>) -> Self {
        let inner = FileStore::open(dir, &config()).expect("store");
        Self { inner, writes: AtomicUsize::new(0), fail_at, fault, reads_fail }
    }

    /// Runs the write `op`, failing it when it is the chosen one.
    fn write<T>(&self, op: impl FnOnce(&FileStore) -> memcore::Result<T>) -> memcore::Result<T> {
        let n = self.writes.fetch_add(1, Ordering::SeqCst) + 1;
        if n != self.fail_at {
            return op(&self.inner);
        }
        match self.fault {
            Fault::Refuse => Err(injected()),
            Fault::Partial | Fault::AfterWrite => {
                op(&self.inner)?;
                Err(injected())
            }
        }
    }
}

impl MemoryStore for Faulty {
    fn backend(&self) -> &'static str {
        "faulty"
    }

    fn root(&self) -> &Path {
        self.inner.root()
    }

    fn private_dir(&self) -> &Path {
        self.inner.private_dir()
    }

    fn put(&self, memory: Memory, mode: PutMode) -> memcore::Result<Memory> {
        self.write(|store| store.put(memory, mode))
    }

    fn put_many(&self, memories: Vec<Memory>, mode: PutMode) -> memcore::Result<Vec<Memory>> {
        if self.fault == Fault::Partial && self.writes.load(Ordering::SeqCst) + 1 == self.fail_at {
            self.writes.fetch_add(1, Ordering::SeqCst);
            let first = memories.into_iter().next().expect("a batch");
            self.inner.put(first, mode)?;
            return Err(injected());
        }
        self.write(|store| store.put_many(memories, mode))
    }

    fn get(&self, reference: &MemoryRef) -> memcore::Result<Arc<Memory>> {
        if self.reads_fail.load(Ordering::SeqCst) {
            let full = std::io::Error::from(std::io::ErrorKind::StorageFull);
            return Err(Error::io(format!("reading {reference}"), full));
        }
        self.inner.get(reference)
    }

    fn update(
        &self,
        reference: &MemoryRef,
        change: &MemoryUpdate,
        now: Timestamp,
    ) -> memcore::Result<Memory> {
        self.write(|store| store.update(reference, change, now))
    }

    fn delete(&self, reference: &MemoryRef, now: Timestamp) -> memcore::Result<TrashEntry> {
        self.write(|store| store.delete(reference, now))
    }

    fn restore(&self, reference: &MemoryRef) -> memcore::Result<Arc<Memory>> {
        self.write(|store| store.restore(reference))
    }

    fn collections(&self) -> memcore::Result<Vec<Collection>> {
        self.inner.collections()
    }

    fn scan(
        &self,
        collection: Option<&Collection>,
        visit: &mut Visitor<'_>,
    ) -> memcore::Result<()> {
        self.inner.scan(collection, visit)
    }
}

/// Settings without the embedding model (the faults concern the write protocol).
fn config() -> Config {
    Config {
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        ..Config::default()
    }
}

/// What the script's writes left: per key, the content of its last write when that write was
/// acknowledged (`None`: deleted). A key whose last write failed may hold the old or the new
/// value (the write may have landed, as after a crash), so it is not listed.
type Acked = Vec<(String, Option<String>)>;

/// Runs the script's writes in order, recording the acknowledged outcomes in `acked`.
fn script(memcore: &Memcore, acked: &mut Acked) {
    let mut record = |keys: &[(&str, Option<&str>)], ok: bool| {
        for (key, content) in keys {
            acked.retain(|(k, _)| k != key);
            if ok {
                acked.push(((*key).to_owned(), content.map(str::to_owned)));
            }
        }
    };
    let ok = memcore.put(NewMemory::new("alpha one").id("alpha")).is_ok();
    record(&[("memory/alpha", Some("alpha one"))], ok);
    let batch = vec![
        NewMemory::new("beta one").id("beta"),
        NewMemory::new("gamma one").id("gamma"),
        NewMemory::new("delta one").id("delta"),
    ];
    let ok = memcore.put_many(batch).is_ok();
    let stored = [
        ("memory/beta", Some("beta one")),
        ("memory/gamma", Some("gamma one")),
        ("memory/delta", Some("delta one")),
    ];
    record(&stored, ok);
    let ok = memcore.update("alpha", MemoryUpdate::new().content("alpha two")).is_ok();
    record(&[("memory/alpha", Some("alpha two"))], ok);
    let ok = memcore.delete("beta").is_ok();
    record(&[("memory/beta", None)], ok);
    let ok = memcore.restore("beta").is_ok();
    record(&[("memory/beta", Some("beta one"))], ok);
}

/// The store and its indexes agree, and every acknowledged write is there (searchable).
fn check(memcore: &Memcore, acked: &Acked, what: &str) {
    let report = memcore.verify().expect("verify");
    assert!(report.is_consistent(), "{what}: {report:?}");
    for (key, content) in acked {
        match (content, memcore.get(key.as_str())) {
            (Some(content), Ok(memory)) => {
                assert_eq!(&memory.content, content, "{what}: {key}");
                let word = content.split(' ').next().expect("a word");
                let hits =
                    memcore.search(&Query::new(word).mode(SearchMode::Text)).expect("search");
                assert!(
                    hits.hits.iter().any(|h| h.memory.reference.to_string() == *key),
                    "{what}: {key} not found by search"
                );
            }
            (None, Err(Error::NotFound { .. })) => {}
            (content, got) => panic!("{what}: {key}: acknowledged {content:?}, found {got:?}"),
        }
    }
    let listed = memcore.list(&ListOptions::new()).expect("list");
    assert!(listed.skipped.is_empty(), "{what}: {:?}", listed.skipped);
}

#[test]
fn every_fault_leaves_store_and_indexes_agreeing() {
    let writes = 6;
    for fault in [Fault::Refuse, Fault::Partial, Fault::AfterWrite] {
        for fail_at in 1..=writes {
            let what = format!("{fault:?} at write {fail_at}");
            let dir = tempfile::tempdir().expect("temp dir");
            let reads_fail = Arc::new(AtomicBool::new(false));
            let store = Faulty::new(dir.path(), fail_at, fault, reads_fail);
            let memcore = Memcore::builder().store(store).config(config()).open().expect("open");
            assert_eq!(memcore.backend(), "faulty");
            let mut acked = Vec::new();
            script(&memcore, &mut acked);
            check(&memcore, &acked, &what);
            drop(memcore);
            let reopened =
                Memcore::builder().path(dir.path()).config(config()).open().expect("reopen");
            check(&reopened, &acked, &format!("{what}, reopened"));
        }
    }
}

/// A lifecycle run cut short by a failing write (refused, or landed with an error) reports
/// the failure, leaves the store and indexes agreeing, and the next run finishes the job: at
/// the end every memory is archived, once, with its original content kept to restore.
#[test]
fn an_interrupted_lifecycle_finishes_when_run_again() {
    use memcore::Status;
    use memcore::decay::LifecycleOptions;

    let contents: Vec<String> = (0..5)
        .map(|i| format!("note {i}: {}", "the cache is warmed at boot. ".repeat(20)))
        .collect();
    let later = memcore::now() + chrono::Duration::days(200);
    // Write 1 is the batch put; the lifecycle's archiving writes are 2 to 6 (this store has
    // no batched update, so the trait's default updates one memory at a time).
    for fault in [Fault::Refuse, Fault::AfterWrite] {
        for fail_at in 2..=6 {
            let what = format!("{fault:?} at write {fail_at}");
            let dir = tempfile::tempdir().expect("temp dir");
            let reads_fail = Arc::new(AtomicBool::new(false));
            let store = Faulty::new(dir.path(), fail_at, fault, reads_fail);
            let memcore = Memcore::builder().store(store).config(config()).open().expect("open");
            let batch = contents
                .iter()
                .enumerate()
                .map(|(i, c)| NewMemory::new(c.as_str()).id(format!("n{i}")));
            memcore.put_many(batch.collect()).expect("put");

            let first =
                memcore.process_lifecycle(&LifecycleOptions::new().now(later)).expect(&what);
            assert_eq!(first.errors.len(), 1, "{what}: one error for the failed write");
            // A write that landed but reported an error leaves nothing failed.
            assert!(first.stats.failed >= usize::from(fault == Fault::Refuse), "{what}");
            assert_eq!(first.stats.archived + first.stats.failed, 5, "{what}");
            assert!(memcore.verify().expect("verify").is_consistent(), "{what}");
            let second =
                memcore.process_lifecycle(&LifecycleOptions::new().now(later)).expect(&what);
            assert_eq!(second.stats.failed, 0, "{what}");
            let archived = first.stats.archived + second.stats.archived;
            assert_eq!(archived, 5, "{what}: each memory archived once");
            for (i, content) in contents.iter().enumerate() {
                let memory = memcore.get(format!("n{i}").as_str()).expect("get");
                assert_eq!(memory.status, Status::Archived, "{what}");
                assert_eq!(memory.version, 2, "{what}: archived once");
                let back =
                    memcore.transition(format!("n{i}").as_str(), Status::Active).expect("restore");
                assert_eq!(&back.content, content, "{what}");
            }
            assert!(memcore.verify().expect("verify").is_consistent(), "{what}");
        }
    }
}

/// A merge cut short at any of its writes (the merged memory, the re-pointing of a linking
/// memory, moving each source to the trash), refused or landed with an error, loses nothing
/// and duplicates nothing once the store is opened again: either the merge did not happen
/// (the merged memory was never written) or it is finished (sources in the trash, links
/// re-pointed).
#[test]
fn an_interrupted_merge_is_finished_or_undone_on_the_next_open() {
    use memcore::links::MergeRequest;

    // Writes 1-3 set up the store; the merge's writes are 4 (merged memory), 5 (re-point
    // "uses"), 6 and 7 (trash the two sources).
    for fault in [Fault::Refuse, Fault::AfterWrite] {
        for fail_at in 4..=7 {
            let what = format!("{fault:?} at write {fail_at}");
            let dir = tempfile::tempdir().expect("temp dir");
            let reads_fail = Arc::new(AtomicBool::new(false));
            let store = Faulty::new(dir.path(), fail_at, fault, reads_fail);
            let memcore = Memcore::builder().store(store).config(config()).open().expect("open");
            memcore.put(NewMemory::new("Alpha notes.").id("a").tags(["x"])).expect("a");
            memcore.put(NewMemory::new("Beta notes.").id("b").tags(["y"])).expect("b");
            memcore.put(NewMemory::new("Uses [[a]] and [[memory/b]].").id("uses")).expect("uses");
            let request: MergeRequest = serde_json::from_value(serde_json::json!(
                {"refs": ["a", "b"], "into": "ab", "summary": "A and B."}
            ))
            .expect("request");
            let merged = memcore.merge(&request);
            // Every fault surfaces as an error, except a merged memory that landed although
            // its write reported an error: the merge then carries on and succeeds.
            let landed = fault == Fault::AfterWrite && fail_at == 4;
            assert_eq!(merged.is_err(), !landed, "{what}: {merged:?}");
            drop(memcore);
            let reopened =
                Memcore::builder().path(dir.path()).config(config()).open().expect("reopen");
            let ids: Vec<String> = reopened
                .list(&ListOptions::new())
                .expect("list")
                .memories
                .iter()
                .map(|m| m.id.to_string())
                .collect();
            let uses = reopened.get("uses").expect("uses").content;
            if ids.contains(&"ab".to_owned()) {
                assert_eq!(ids, ["ab", "uses"], "{what}: finished");
                assert_eq!(uses, "Uses [[memory/ab]] and [[memory/ab]].", "{what}");
                let ab = reopened.get("ab").expect("ab");
                assert!(ab.content.contains("Alpha notes.") && ab.content.contains("Beta notes."));
            } else {
                assert_eq!(ids, ["a", "b", "uses"], "{what}: undone");
                assert_eq!(uses, "Uses [[a]] and [[memory/b]].", "{what}");
            }
            let verify = reopened.verify().expect("verify");
            assert!(verify.consistent, "{what}: {verify:?}");
            assert!(
                !dir.path()
                    .join(".memcore/merges")
                    .read_dir()
                    .is_ok_and(|mut d| d.next().is_some()),
                "{what}: merge record left"
            );
        }
    }
}

/// Issue 14, item 7: index work a failed writer left that cannot be done (the disk is full)
/// must not lock readers out: the store opens, says so, reads work, and the work is done by
/// the first search once the disk has room again.
#[test]
fn work_left_on_a_full_disk_defers_instead_of_blocking_the_open() {
    let dir = tempfile::tempdir().expect("temp dir");
    let reads_fail = Arc::new(AtomicBool::new(false));
    let faulty =
        |fail_at| Faulty::new(dir.path(), fail_at, Fault::AfterWrite, Arc::clone(&reads_fail));
    let memcore = Memcore::builder().store(faulty(2)).config(config()).open().expect("open");
    memcore.put(NewMemory::new("alpha one").id("alpha")).expect("first put");
    reads_fail.store(true, Ordering::SeqCst);
    // Lands, then fails; re-indexing it from the store fails too: the work stays journaled.
    assert!(memcore.put(NewMemory::new("beta one").id("beta")).is_err());
    drop(memcore);

    let memcore = Memcore::builder().store(faulty(0)).config(config()).open().expect("opens");
    let deferred = memcore.opened_with().iter().find(|work| work.needs_attention());
    assert!(
        deferred.is_some_and(|work| work.to_string().contains("not indexed yet")),
        "{:?}",
        memcore.opened_with()
    );
    assert_eq!(memcore.list(&ListOptions::new()).expect("list").memories.len(), 2);
    assert!(memcore.stats().is_ok());

    reads_fail.store(false, Ordering::SeqCst);
    let hits = memcore.search(&Query::new("beta").mode(SearchMode::Text)).expect("search");
    assert_eq!(hits.hits[0].memory.reference.to_string(), "memory/beta");
    assert!(!hits.maintenance.is_empty(), "the search did the deferred work");
    assert!(memcore.verify().expect("verify").is_consistent());
}
