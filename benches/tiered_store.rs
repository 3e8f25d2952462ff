//! The tiered store through `Memcore` without the model: ending a 50-turn session (issue 18's
//! goal: 50 ms; transcript to the cold tier, summary and notes to the warm one, the timeline
//! entry) and compacting (memories demoted per second). Run with
//! `cargo bench --bench tiered_store`.

// criterion_main! generates an undocumented `pub fn main`.
#![allow(missing_docs)]

use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use memcore::session::{
    SessionEndRequest, SessionNoteRequest, SessionStartRequest, SessionTurnRequest,
};
use memcore::{Backend, CompactRequest, Config, EmbeddingConfig, Memcore, NewMemory, Timestamp};

fn open(dir: &std::path::Path) -> Memcore {
    let config = Config {
        backend: Backend::Tiered,
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        ..Config::default()
    };
    Memcore::builder().path(dir).config(config).open().expect("open")
}

fn session_end(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let memcore = open(dir.path());
    let mut n = 0u64;
    let mut group = c.benchmark_group("tiered");
    group.sample_size(20).measurement_time(Duration::from_secs(20));
    group.bench_function("session end (50 turns, no model)", |b| {
        b.iter_batched(
            || {
                n += 1;
                let id = format!("bench-{n}");
                let mut start = SessionStartRequest::new(&id);
                start.agents = vec!["ann".into(), "bob".into()];
                memcore.session_start(&start).expect("start");
                for turn in 0..50 {
                    let role = if turn % 2 == 0 { "ann" } else { "bob" };
                    let text =
                        format!("Turn {turn}: a remark of ordinary length about the release plan.");
                    memcore.session_turn(&SessionTurnRequest::new(&id, role, text)).expect("turn");
                }
                memcore
                    .session_note(&SessionNoteRequest::action_item(&id, "ship it"))
                    .expect("note");
                id
            },
            |id| memcore.session_end(&SessionEndRequest::new(id)).expect("end"),
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

/// Compaction throughput: 2,000 memories of one quarter (MEMCORE_BENCH_COMPACT to change),
/// demoted in one run; printed, not a criterion measurement (a run changes the store).
fn compaction(_: &mut Criterion) {
    let count: usize =
        std::env::var("MEMCORE_BENCH_COMPACT").ok().and_then(|v| v.parse().ok()).unwrap_or(2_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let memcore = open(dir.path());
    let then: Timestamp = "2025-01-15T00:00:00Z".parse().expect("time");
    let memories: Vec<NewMemory> = (0..count)
        .map(|i| {
            NewMemory::new(format!(
                "Decision {i}: keep frames of 1024 records; level 9 compresses best."
            ))
            .collection(["decisions", "learnings", "notes", "blockers"][i % 4])
            .id(format!("m-{i}"))
            .created_at(then)
        })
        .collect();
    memcore.put_many(memories).expect("put");
    let started = Instant::now();
    let report = memcore
        .compact(&CompactRequest::new().at("2026-01-01T00:00:00Z".parse().expect("time")))
        .expect("compact");
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "tiered/compaction: {} memories into {} digests in {seconds:.2} s ({:.0} memories/s)",
        report.demoted,
        report.digests.len(),
        report.demoted as f64 / seconds
    );
}

criterion_group!(benches, session_end, compaction);
criterion_main!(benches);
