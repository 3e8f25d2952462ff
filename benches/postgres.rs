//! The PostgreSQL store beside the file store, at 10k (and 100k) memories of the bench
//! corpus, without the embedding model (`postgres_cold_start` measures a new machine with
//! it): batched ingest rate, one durable put (p50/p99), full-text search
//! p50, and for PostgreSQL the catch-up of another machine's 10k writes by `sync` and the cold
//! start of a new machine (open: fetch every row and build the local indexes).
//!
//! ```text
//! MEMCORE_BENCH_SIZES=10000,100000 cargo bench --bench postgres
//! ```
//!
//! The cluster is a throwaway one of Debian's PostgreSQL (`scripts/pg-cluster`, with fsync
//! on), reached through a Unix socket on this machine.

mod support;

#[path = "../memcore/tests/pgcluster/mod.rs"]
mod pgcluster;

use std::path::Path;
use std::time::{Duration, Instant};

use memcore::{
    Config, FileStore, Limits, Memcore, MemoryStore, NewMemory, PostgresStore, PutMode, Query,
    SearchMode, now,
};

const BATCH: usize = 1_000;
const SINGLE_PUTS: usize = 200;
const REMOTE_WRITES: usize = 10_000;

fn main() {
    let sizes = support::sizes();
    let cluster = pgcluster::Cluster::start_durable();
    let questions: Vec<String> = support::questions().into_iter().take(100).collect();
    for n in sizes {
        // The corpus has 96,878 passages: "100000" is all of them, and the other machine's
        // writes are the first passages again, under new ids.
        let initial = support::corpus(n);
        let n = initial.len();
        let remote = &initial[..REMOTE_WRITES.min(n)];
        let initial = initial.as_slice();
        let memories = |passages: &[support::Passage], offset: usize| -> Vec<NewMemory> {
            passages
                .iter()
                .enumerate()
                // PostgreSQL text cannot hold NUL, which a few passages do.
                .map(|(i, p)| {
                    NewMemory::new(p.text.replace('\0', " ")).id(format!("p{:07}", i + offset))
                })
                .collect()
        };
        let namespace = format!("bench-{n}");
        let config = pgcluster::config(cluster.url(), &namespace);
        for backend in ["file", "postgres"] {
            let dir = tempfile::tempdir().expect("temp dir");
            let memcore = open(backend, dir.path(), &config);
            let ingest = timed(|| {
                for batch in memories(initial, 0).chunks(BATCH) {
                    memcore.put_many(batch.to_vec()).expect("put_many");
                }
            });
            // Let the full-text index's background merges of the ingest settle first (the
            // faster ingest leaves more of them behind; 3 s was not enough at 10k).
            std::thread::sleep(Duration::from_secs(15));
            let rate = n as f64 / ingest.as_secs_f64();
            println!(
                "{backend:>8} n={n}: batched ingest {rate:.0}/s ({ingest:.1?}, batches of {BATCH})"
            );

            let mut puts: Vec<Duration> = (0..SINGLE_PUTS)
                .map(|i| {
                    let memory = NewMemory::new(format!("A short note {i} about the deploy."))
                        .id(format!("single-{i}"));
                    timed(|| {
                        memcore.put(memory).expect("put");
                    })
                })
                .collect();
            puts.sort();
            println!(
                "{backend:>8} n={n}: one durable put p50 {:.2?} p99 {:.2?}",
                support::percentile(&puts, 0.5),
                support::percentile(&puts, 0.99)
            );

            // The store's own share: the same put without the full-text index.
            let store = raw_store(backend, dir.path(), &config);
            let mut raw: Vec<Duration> = (0..SINGLE_PUTS)
                .map(|i| {
                    let memory = NewMemory::new(format!("A short note {i} about the release."))
                        .id(format!("raw-{i}"))
                        .into_memory(&"memory".parse().expect("name"), &Limits::default(), now())
                        .expect("valid");
                    timed(|| {
                        store.put(memory, PutMode::Upsert).expect("put");
                    })
                })
                .collect();
            raw.sort();
            println!(
                "{backend:>8} n={n}: one durable put, store only, p50 {:.2?} p99 {:.2?}",
                support::percentile(&raw, 0.5),
                support::percentile(&raw, 0.99)
            );

            let mut searches: Vec<Duration> = questions
                .iter()
                .map(|q| {
                    let query = Query::new(q.as_str()).mode(SearchMode::Text).limit(10);
                    timed(|| {
                        memcore.search(&query).expect("search");
                    })
                })
                .collect();
            searches.sort();
            println!(
                "{backend:>8} n={n}: text search p50 {:.2?} p99 {:.2?}",
                support::percentile(&searches, 0.5),
                support::percentile(&searches, 0.99)
            );

            if backend == "postgres" {
                remote_and_cold(&memcore, &config, n, || memories(remote, n));
            }
        }
    }
}

/// Another machine writes [`REMOTE_WRITES`] memories; this one catches up with `sync`. Then
/// a new machine opens the namespace (every row fetched, the indexes built).
fn remote_and_cold(
    memcore: &Memcore,
    config: &Config,
    n: usize,
    remote: impl FnOnce() -> Vec<NewMemory>,
) {
    let other_dir = tempfile::tempdir().expect("temp dir");
    let other = open("postgres", other_dir.path(), config);
    for batch in remote().chunks(BATCH) {
        other.put_many(batch.to_vec()).expect("put_many");
    }
    let mut synced = 0;
    let catch_up = timed(|| synced = memcore.sync().expect("sync").synced);
    let rate = synced as f64 / catch_up.as_secs_f64();
    println!("postgres n={n}: sync of {synced} remote writes {catch_up:.1?} ({rate:.0}/s)");

    let fresh = tempfile::tempdir().expect("temp dir");
    let mut total = 0;
    let cold =
        timed(|| total = open("postgres", fresh.path(), config).stats().expect("stats").memories);
    println!("postgres n={n}: cold start of a new machine ({total} memories) {cold:.1?}");
}

/// The bare store of `backend` in `dir`, without memcore's indexes.
fn raw_store(backend: &str, dir: &Path, config: &Config) -> Box<dyn MemoryStore> {
    match backend {
        "file" => Box::new(FileStore::open(dir, config).expect("file store")),
        _ => Box::new(PostgresStore::open(dir, config).expect("postgres store")),
    }
}

fn open(backend: &str, dir: &Path, config: &Config) -> Memcore {
    let builder = match backend {
        "file" => Memcore::builder().store(FileStore::open(dir, config).expect("file store")),
        _ => Memcore::builder().store(PostgresStore::open(dir, config).expect("postgres store")),
    };
    builder.config(config.clone()).open().expect("open")
}

fn timed(work: impl FnOnce()) -> Duration {
    let start = Instant::now();
    work();
    start.elapsed()
}
