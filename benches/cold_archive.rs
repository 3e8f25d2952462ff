//! The cold tier's archive at scale: 1M archived conversation turns (the bench corpus's
//! 96,878 passages, repeated as sessions of 50 turns spread over three years), archived in
//! batches of 1,000; then the disk it takes against the same records as raw JSON lines, a
//! full-text query's p50 (100 questions, top 10, records read from their frames), the same
//! restricted to one session, `get` by id, and purging one session.
//!
//! ```text
//! MEMCORE_BENCH_COLD_TURNS=1000000 cargo bench --bench cold_archive
//! ```

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use memcore::{ArchiveFilter, ArchivedKind, ArchivedRecord, ColdArchive, Timestamp};

const BATCH: usize = 1_000;
const SESSION_TURNS: usize = 50;

fn main() {
    let turns: usize = std::env::var("MEMCORE_BENCH_COLD_TURNS")
        .map(|v| v.parse().expect("a number of turns"))
        .unwrap_or(1_000_000);
    let passages = support::corpus(usize::MAX);
    let start: Timestamp = "2024-01-01T00:00:00Z".parse().expect("time");
    let span = Duration::from_secs(3 * 365 * 24 * 3600);
    let record = |i: usize| {
        let session = format!("s{:06}", i / SESSION_TURNS);
        let at = start + span.mul_f64(i as f64 / turns as f64);
        ArchivedRecord::new(
            format!("{session}/{}", i % SESSION_TURNS),
            ArchivedKind::Turn,
            at,
            passages[i % passages.len()].text.as_str(),
        )
        .session(session)
        .agent(if i.is_multiple_of(2) { "host" } else { "guest" })
    };

    let dir = tempfile::tempdir().expect("temp dir");
    let archive = ColdArchive::open(dir.path(), Duration::from_secs(30)).expect("open");
    let mut raw_bytes = 0u64;
    let ingest = timed(|| {
        for first in (0..turns).step_by(BATCH) {
            let batch: Vec<ArchivedRecord> =
                (first..(first + BATCH).min(turns)).map(record).collect();
            raw_bytes += batch
                .iter()
                .map(|r| serde_json::to_vec(r).expect("json").len() as u64 + 1)
                .sum::<u64>();
            archive.archive(batch).expect("archive");
        }
    });
    println!(
        "archive {turns} turns: {:.0}/s ({ingest:.1?}, batches of {BATCH})",
        turns as f64 / ingest.as_secs_f64()
    );
    let segments = dir_size(&dir.path().join("segments"));
    let index = dir_size(&dir.path().join("index"));
    println!(
        "disk: raw JSONL {:.1} MB; segments {:.1} MB ({:.1}%), index {:.1} MB ({:.1}%), together \
         {:.1}% ({:.0} bytes per turn)",
        mb(raw_bytes),
        mb(segments),
        pct(segments, raw_bytes),
        mb(index),
        pct(index, raw_bytes),
        pct(segments + index, raw_bytes),
        (segments + index) as f64 / turns as f64
    );

    let questions: Vec<String> = support::questions().into_iter().take(100).collect();
    let everything = ArchiveFilter::default();
    let query = |filter: &ArchiveFilter| {
        let mut times: Vec<Duration> = questions
            .iter()
            .map(|q| timed(|| assert!(archive.search(q, filter, 10).is_ok())))
            .collect();
        times.sort();
        times
    };
    let all = query(&everything);
    println!(
        "query top 10: p50 {:.2?} p99 {:.2?}",
        support::percentile(&all, 0.5),
        support::percentile(&all, 0.99)
    );
    let mut one_session = ArchiveFilter::default();
    one_session.sessions = vec![format!("s{:06}", turns / SESSION_TURNS / 2)];
    let scoped = query(&one_session);
    println!(
        "query top 10 in one session: p50 {:.2?} p99 {:.2?}",
        support::percentile(&scoped, 0.5),
        support::percentile(&scoped, 0.99)
    );
    let mut gets: Vec<Duration> = (0..200)
        .map(|k| {
            let i = (k * 7919 * 13) % turns;
            let id = format!("s{:06}/{}", i / SESSION_TURNS, i % SESSION_TURNS);
            timed(|| assert!(archive.get(&id).is_ok()))
        })
        .collect();
    gets.sort();
    println!(
        "get by id: p50 {:.2?} p99 {:.2?}",
        support::percentile(&gets, 0.5),
        support::percentile(&gets, 0.99)
    );
    let session = format!("s{:06}", turns / SESSION_TURNS / 3);
    let mut purged = 0;
    let purge = timed(|| purged = archive.purge_session(&session).expect("purge").purged);
    println!("purge one session ({purged} turns): {purge:.1?}");
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").metadata().expect("metadata").len())
        .sum()
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

fn pct(part: u64, whole: u64) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

fn timed(work: impl FnOnce()) -> Duration {
    let start = Instant::now();
    work();
    start.elapsed()
}
