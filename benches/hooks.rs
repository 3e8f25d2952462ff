//! Hooks as users feel them (issue 20): the wall time of one `memcore hook ...` process, from
//! spawn to its JSON on stdout, on a store of 10k corpus passages with their vectors.
//! `user-prompt-submit` without a signal, with a capture decision, and `session-start` with
//! a 2,000-token budget. Needs the release binary: `cargo build --release -p memcore-cli`,
//! then `cargo bench --bench hooks` (`MEMCORE_BENCH_HOOK_SIZE` sets the store size).

// A plain bench with its own main.
#![allow(missing_docs)]

mod support;

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use memcore::{Memcore, NewMemory};

/// The release `memcore` binary beside this bench's target directory.
fn binary() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/memcore");
    assert!(path.is_file(), "build it first: cargo build --release -p memcore-cli");
    path
}

/// Wall times of `runs` hook processes answering `event` with `stdin` (and `env` set), sorted.
fn time_hook(
    store: &Path,
    event: &str,
    stdin: &str,
    env: &[(&str, &str)],
    runs: usize,
) -> Vec<Duration> {
    let binary = binary();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            let mut child = Command::new(&binary)
                .args(["--store", &store.display().to_string(), "hook", event])
                .envs(env.iter().copied())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("hook starts");
            child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("event written");
            let output = child.wait_with_output().expect("hook ends");
            let took = started.elapsed();
            assert!(output.status.success() && output.stdout.starts_with(b"{"), "{event}");
            took
        })
        .collect();
    times.sort();
    times
}

fn main() {
    let n: usize = std::env::var("MEMCORE_BENCH_HOOK_SIZE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let model = support::model();
    let passages = support::corpus(n);
    let vectors = support::vectors(&model, &passages);
    let table: HashMap<String, Vec<f32>> =
        passages.iter().zip(&vectors).map(|(p, v)| (p.text.clone(), v.clone())).collect();
    let embedder = Arc::new(support::Precomputed { model, table });
    let store = support::BenchStore::new(n + 2); // collections of its own
    if !store.reused {
        let memcore =
            Memcore::builder().path(store.path()).embedder(embedder).open().expect("open");
        for (at, chunk) in passages.chunks(5_000).enumerate() {
            let batch = chunk.iter().enumerate().map(|(i, p)| {
                let collection =
                    if (at * 5_000 + i).is_multiple_of(50) { "decisions" } else { "notes" };
                NewMemory::new(p.text.clone()).collection(collection)
            });
            memcore.put_many(batch.collect()).expect("ingest");
        }
        store.mark_complete();
    }
    let report = |what: &str, times: &[Duration]| {
        println!(
            "[{n}] {what}: p50 {:?} p90 {:?}",
            support::percentile(times, 0.5),
            support::percentile(times, 0.9)
        );
    };
    let quiet = r#"{"prompt": "Thanks, that looks good to me.", "cwd": "/tmp"}"#;
    report(
        "user-prompt-submit, no signal",
        &time_hook(store.path(), "user-prompt-submit", quiet, &[], 30),
    );
    let mut decisions = 0;
    let decision = |decisions: &mut usize| {
        *decisions += 1;
        format!(
            r#"{{"prompt": "We decided to move job queue {decisions} from Redis to Postgres for durability."}}"#
        )
    };
    let times: Vec<Duration> = {
        let mut all: Vec<Duration> = (0..20)
            .flat_map(|_| {
                time_hook(store.path(), "user-prompt-submit", &decision(&mut decisions), &[], 1)
            })
            .collect();
        all.sort();
        all
    };
    report("user-prompt-submit, a capture decision (novelty by the model)", &times);
    let start = r#"{"session_id": "s", "cwd": "/work/ingest", "source": "startup"}"#;
    let fixed =
        [("HOOK_SESSION_START_BUDGET_MODE", "fixed"), ("HOOK_SESSION_START_FIXED_BUDGET", "2000")];
    report(
        "session-start, 2,000-token budget",
        &time_hook(store.path(), "session-start", start, &fixed, 20),
    );
}
