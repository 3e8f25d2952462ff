//! File-store speed at 1k and 10k memories of realistic text: get by id (warm), list 100,
//! durable put, open; and a put through the `Memcore` handle, which also updates the
//! full-text index. Run with `cargo bench --bench store`.

// criterion_main! generates an undocumented `pub fn main`.
#![allow(missing_docs)]

mod support;

use std::hint::black_box;
use std::ops::ControlFlow;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use memcore::{
    Collection, Config, EmbeddingConfig, FileStore, Limits, Memcore, MemoryStore, NewMemory,
    PutMode,
};

const SIZES: [usize; 2] = [1_000, 10_000];

fn memory(new: NewMemory) -> memcore::Memory {
    new.into_memory(&Collection::default(), &Limits::default(), memcore::now()).expect("valid")
}

/// A store filled with the first `n` corpus passages, one memory each, in 10 collections.
fn filled_store(n: usize) -> (tempfile::TempDir, Vec<memcore::MemoryRef>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = FileStore::open(dir.path(), &Config::default()).expect("store opens");
    let batch = support::corpus(n)
        .iter()
        .enumerate()
        .map(|(i, passage)| {
            memory(
                NewMemory::new(passage.text.clone())
                    .id(format!("p{i:06}"))
                    .collection(format!("c{}", i % 10)),
            )
        })
        .collect();
    let keys = store
        .put_many(batch, PutMode::Upsert)
        .expect("put_many")
        .into_iter()
        .map(|m| m.reference())
        .collect();
    // Let the files settle past the cache's racy-write window, as in a store in real use.
    std::thread::sleep(Duration::from_millis(200));
    (dir, keys)
}

fn store_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("store");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    for n in SIZES {
        let (dir, keys) = filled_store(n);
        let store = FileStore::open(dir.path(), &Config::default()).expect("store opens");

        let mut i = 0;
        group.bench_with_input(BenchmarkId::new("get_warm", n), &n, |b, _| {
            b.iter(|| {
                i = (i + 7919) % keys.len();
                black_box(store.get(&keys[i]).expect("get"))
            })
        });

        let c3 = Collection::new("c3").expect("name");
        group.bench_with_input(BenchmarkId::new("list_100", n), &n, |b, _| {
            b.iter(|| {
                let mut listed = Vec::with_capacity(100);
                store
                    .scan(Some(&c3), &mut |item| {
                        listed.push(item.expect("readable").summary_view());
                        if listed.len() == 100 {
                            ControlFlow::Break(())
                        } else {
                            ControlFlow::Continue(())
                        }
                    })
                    .expect("scan");
                black_box(listed)
            })
        });

        let mut k = 0;
        group.bench_with_input(BenchmarkId::new("put_durable", n), &n, |b, _| {
            b.iter(|| {
                k += 1;
                let new = NewMemory::new(format!("benchmark note {k}: a short realistic fact."))
                    .id(format!("bench-{k}"))
                    .collection("bench");
                black_box(store.put(memory(new), PutMode::Upsert).expect("put"))
            })
        });

        group.bench_with_input(BenchmarkId::new("open", n), &n, |b, _| {
            b.iter(|| black_box(FileStore::open(dir.path(), &Config::default()).expect("open")))
        });

        // The whole handle: store write plus full-text index commit (no model in the loop).
        let config = Config {
            embedding: EmbeddingConfig { enabled: false, model_dir: None },
            ..Config::default()
        };
        let memcore =
            Memcore::builder().path(dir.path()).config(config).open().expect("handle opens");
        let mut h = 0;
        group.bench_with_input(BenchmarkId::new("memcore_put_text_indexed", n), &n, |b, _| {
            b.iter(|| {
                h += 1;
                let new = NewMemory::new(format!("handle note {h}: another realistic fact."))
                    .id(format!("handle-{h}"))
                    .collection("bench");
                black_box(memcore.put(new).expect("put"))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, store_benches);
criterion_main!(benches);
