//! Embedding speed of the default ONNX embedder (all-MiniLM-L6-v2, dynamic int8) on the real model.
//!
//! Needs the model files: run `scripts/fetch-models` first. Run with
//! `cargo bench --bench embed`.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use memcore::{Embedder, ModelFiles, OnnxEmbedder};

fn model_files() -> ModelFiles {
    ModelFiles::locate(None).unwrap_or_else(|e| {
        panic!("{}\nrun `scripts/fetch-models` from the workspace root first", e.report())
    })
}

/// 32 passages of a few sentences each, like memories an agent stores.
fn passages() -> Vec<String> {
    let subjects = [
        "The storage engine",
        "Our CI pipeline",
        "The vector index",
        "The user's preferred editor",
        "The deployment to staging",
        "The nightly backup job",
        "The search ranking",
        "The API gateway",
    ];
    let facts = [
        "was changed to write through a journal so that a crash between the store and the \
         index is repaired on the next open.",
        "failed twice this week because a flaky integration test timed out on the shared \
         runner; we pinned the runner image and raised the timeout to ninety seconds.",
        "now rebuilds itself when more than a fifth of its entries are tombstones, which keeps \
         recall above 0.97 at ten results.",
        "is configured per project, and the agent should remember it across sessions instead \
         of asking again every morning.",
    ];
    (0..32)
        .map(|i| format!("{} {}", subjects[i % subjects.len()], facts[(i / 8) % facts.len()]))
        .collect()
}

fn bench_embed(c: &mut Criterion) {
    let files = model_files();
    let embedder = OnnxEmbedder::new(&files).unwrap_or_else(|e| panic!("{}", e.report()));

    let mut group = c.benchmark_group("embed");
    group.measurement_time(Duration::from_secs(8));

    group.throughput(Throughput::Elements(1));
    group.bench_function("single_short_query", |b| {
        b.iter(|| embedder.embed(black_box(&["how do we repair the index after a crash?"])))
    });

    let passages = passages();
    let batch: Vec<&str> = passages.iter().map(String::as_str).collect();
    group.throughput(Throughput::Elements(batch.len() as u64));
    group.sample_size(20);
    group.bench_function("batch_32_passages", |b| b.iter(|| embedder.embed(black_box(&batch))));
    group.finish();

    // The model hash check: cold (hashing 23 MB) and with the sidecar stamp in place.
    let dir = tempfile::tempdir().expect("tempdir");
    let copy = ModelFiles { model: dir.path().join("model.onnx"), ..files.clone() };
    std::fs::copy(&files.model, &copy.model).expect("copy model");
    let stamp = dir.path().join("model.onnx.sha256-verified");

    let mut group = c.benchmark_group("verify_model");
    group.sample_size(10);
    group.bench_function("cold", |b| {
        b.iter(|| {
            let _ = std::fs::remove_file(&stamp);
            copy.verify().expect("verified")
        })
    });
    group.bench_function("stamped", |b| b.iter(|| copy.verify().expect("verified")));
    group.finish();
}

criterion_group!(benches, bench_embed);
criterion_main!(benches);
