//! The capture engine on realistic text: signal detection on a 2 KB prompt (with a signal and
//! without), and a whole capture decision with novelty against a 10,000-memory store with
//! the real model, each query embedded afresh (a new text every iteration, so the query
//! cache never answers). Run with `cargo bench --bench capture` (the model from
//! `scripts/fetch-models`); `MEMCORE_BENCH_CAPTURE_STORE=N` sets the store size.

// criterion_main! generates an undocumented `pub fn main`.
#![allow(missing_docs)]

mod support;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use memcore::capture::{CaptureRequest, detect_signals};
use memcore::{Memcore, NewMemory};

/// About 2 KB of corpus text, cut at a character boundary.
fn prompt_2kb(passages: &[support::Passage]) -> String {
    let mut text = String::new();
    for passage in passages {
        text.push_str(&passage.text);
        text.push(' ');
        if text.len() >= 2048 {
            break;
        }
    }
    let mut cut = 2048.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text
}

fn store_size() -> usize {
    std::env::var("MEMCORE_BENCH_CAPTURE_STORE").ok().and_then(|n| n.parse().ok()).unwrap_or(10_000)
}

fn capture_benches(c: &mut Criterion) {
    let passages = support::corpus(store_size() + 20);
    let (probe, stored) = passages.split_at(20);
    let plain = prompt_2kb(probe);
    let head: String = plain.chars().take(1990).collect();
    let with_signal = format!("{head} We decided to pin the parser version for now.");
    assert!(detect_signals(&plain, 100).len() < 3);
    assert!(!detect_signals(&with_signal, 100).is_empty());

    let mut group = c.benchmark_group("capture");
    group.sample_size(50).measurement_time(Duration::from_secs(5));
    group.bench_function("detect_2kb_with_signal", |b| {
        b.iter(|| black_box(detect_signals(black_box(&with_signal), 100)))
    });
    group.bench_function("detect_2kb_plain", |b| {
        b.iter(|| black_box(detect_signals(black_box(&plain), 100)))
    });

    // A store of corpus passages in the namespace the captures go to.
    let dir = tempfile::tempdir().expect("temp dir");
    let memcore = Memcore::open(dir.path()).expect("open");
    for chunk in stored.chunks(2_000) {
        let batch =
            chunk.iter().map(|p| NewMemory::new(p.text.clone()).collection("decisions")).collect();
        memcore.put_many(batch).expect("put_many");
    }
    let probe_decision =
        memcore.capture(&CaptureRequest::new(with_signal.clone())).expect("capture");
    assert_eq!(
        probe_decision.captures[0].novelty.method,
        memcore::capture::NoveltyMethod::Semantic,
        "the bench needs the model (scripts/fetch-models)"
    );
    let mut round = 0_u64;
    group.sample_size(30).measurement_time(Duration::from_secs(10));
    group.bench_function(format!("decision_with_novelty_{}", stored.len()), |b| {
        b.iter(|| {
            round += 1;
            let text = format!("We decided to pin the parser version {round} for now, again.");
            black_box(memcore.capture(&CaptureRequest::new(text)).expect("capture"))
        })
    });
    group.finish();
}

criterion_group!(benches, capture_benches);
criterion_main!(benches);
