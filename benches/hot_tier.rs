//! The hot tier: reading a live session's working set (seed 003: "sub-10 ms", issue 18's goal
//! 10 µs), and adding a turn (a durable JSON snapshot each time; the rolling summary once the
//! session is past its 12 verbatim turns). Run with `cargo bench --bench hot_tier`.

// criterion_main! generates an undocumented `pub fn main`.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use memcore::{DEFAULT_HOT_CONTEXT_TURNS, HotTier, now};

fn hot_benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let hot = HotTier::open(dir.path(), DEFAULT_HOT_CONTEXT_TURNS).expect("open");
    for session in 0..100 {
        let id = format!("session-{session}");
        hot.start(&id, now()).expect("start");
        for turn in 0..50 {
            let text = format!("Turn {turn} of {id}: a remark of ordinary length about the plan.");
            hot.add_turn(&id, "agent", &text, now()).expect("turn");
        }
    }
    c.bench_function("hot read (one of 100 live sessions)", |b| {
        b.iter(|| black_box(hot.get(black_box("session-42")).map(|s| s.turns.len())))
    });
    let mut n = 0u64;
    c.bench_function("hot add turn (durable snapshot, rolling summary)", |b| {
        b.iter(|| {
            n += 1;
            let text = format!("Another remark, number {n}, about the plan and its budget.");
            hot.add_turn("session-7", "agent", &text, now()).expect("turn")
        })
    });
}

criterion_group!(benches, hot_benches);
criterion_main!(benches);
