//! The decay engine at 10k and 100k memories of realistic text: a lifecycle dry run (the
//! plan) on a warm handle and on a freshly opened one, and a real run that archives half
//! the store (content compressed, every step durable). Run with `cargo bench --bench
//! lifecycle`; `MEMCORE_BENCH_LIFECYCLE_SIZES=10000` picks the sizes.

// criterion_main! generates an undocumented `pub fn main`.
#![allow(missing_docs)]

mod support;

use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use chrono::{TimeZone, Utc};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use memcore::decay::LifecycleOptions;
use memcore::{Config, EmbeddingConfig, Memcore, NewMemory, Timestamp};

/// Text only: the lifecycle does not embed, and the model would only slow the setup.
fn config() -> Config {
    Config {
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        ..Config::default()
    }
}

fn sizes() -> Vec<usize> {
    std::env::var("MEMCORE_BENCH_LIFECYCLE_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 100_000])
}

/// When the memories were written: half on day 0, half on day 60.
fn start() -> Timestamp {
    Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).single().expect("a valid time")
}

/// The time the lifecycle runs at: day 120, so the older half is due for archiving.
fn run_at() -> Timestamp {
    start() + chrono::Duration::days(120)
}

/// A store of the first `n` corpus passages (all 96,878 for more) in 10 collections,
/// written in batches; returns how many memories it holds.
fn filled_store(dir: &Path, n: usize) -> usize {
    let memcore = Memcore::builder().path(dir).config(config()).open().expect("open");
    let passages = support::corpus(n);
    for (chunk_at, chunk) in passages.chunks(5_000).enumerate() {
        let batch = chunk
            .iter()
            .enumerate()
            .map(|(i, passage)| {
                let i = chunk_at * 5_000 + i;
                let mut memory = NewMemory::new(passage.text.clone())
                    .id(format!("p{i:06}"))
                    .collection(format!("c{}", i % 10));
                memory.created_at = Some(start() + chrono::Duration::days(60 * (i % 2) as i64));
                memory
            })
            .collect();
        memcore.put_many(batch).expect("put_many");
    }
    // Let the files settle past the cache's racy-write window, as in a store in real use.
    std::thread::sleep(Duration::from_millis(200));
    passages.len()
}

/// Copies the store and flushes the copy to disk, so that the timed run's syncs do not pay
/// for writing out the copy.
fn copy_dir(from: &Path, to: &Path) {
    let status = Command::new("cp").arg("-a").arg(from).arg(to).status().expect("cp runs");
    assert!(status.success(), "cp -a {} {}", from.display(), to.display());
    let status = Command::new("sync").status().expect("sync runs");
    assert!(status.success(), "sync");
}

fn lifecycle_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("lifecycle");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for n in sizes() {
        let template = tempfile::tempdir().expect("temp dir");
        let store = template.path().join("store");
        let n = filled_store(&store, n);
        let plan = LifecycleOptions::new().dry_run(true).now(run_at());

        let warm = Memcore::builder().path(&store).config(config()).open().expect("open");
        let planned = warm.process_lifecycle(&plan).expect("plan");
        assert_eq!((planned.stats.scanned, planned.stats.archived), (n, n.div_ceil(2)));
        group.measurement_time(Duration::from_secs(if n > 20_000 { 20 } else { 5 }));
        group.bench_with_input(BenchmarkId::new("dry_run_warm", n), &n, |b, _| {
            b.iter(|| black_box(warm.process_lifecycle(&plan).expect("plan")))
        });
        group.bench_with_input(BenchmarkId::new("dry_run_open", n), &n, |b, _| {
            b.iter(|| {
                let fresh = Memcore::builder().path(&store).config(config()).open().expect("open");
                black_box(fresh.process_lifecycle(&plan).expect("plan"))
            })
        });
        drop(warm);

        // A real run changes the store, so each one runs on a copy made untimed. At 100k one
        // run takes over a minute (and a copy of the store more): it is timed once, not by
        // criterion's ten samples.
        if n > 20_000 {
            let took = real_run(&store, n);
            println!("lifecycle/real_run/{n} (one run): {:.2} s", took.as_secs_f64());
            continue;
        }
        group.measurement_time(Duration::from_secs(30));
        group.bench_with_input(BenchmarkId::new("real_run", n), &n, |b, _| {
            b.iter_custom(|iterations| (0..iterations).map(|_| real_run(&store, n)).sum())
        });
    }
    group.finish();
}

/// The time of one real run (archiving half of the `n` memories) on a fresh copy of `store`.
fn real_run(store: &Path, n: usize) -> Duration {
    let scratch = tempfile::tempdir().expect("temp dir");
    let copy = scratch.path().join("store");
    copy_dir(store, &copy);
    let memcore = Memcore::builder().path(&copy).config(config()).open().expect("open");
    let started = Instant::now();
    let done = memcore.process_lifecycle(&LifecycleOptions::new().now(run_at())).expect("run");
    let took = started.elapsed();
    assert_eq!((done.stats.archived, done.stats.failed), (n.div_ceil(2), 0));
    took
}

criterion_group!(benches, lifecycle_benches);
criterion_main!(benches);
