//! File-store speed at 1k and 10k memories of realistic text: get by id (warm), list 100,
//! durable put, open. Run with `cargo bench --bench store`.

mod support;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use memcore::{ListOptions, Memcore, NewMemory};

const SIZES: [usize; 2] = [1_000, 10_000];

/// A store filled with the first `n` corpus passages, one memory each, in 10 collections.
fn filled_store(n: usize) -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let memcore = Memcore::open(dir.path()).expect("store opens");
    let refs = support::corpus(n)
        .iter()
        .enumerate()
        .map(|(i, passage)| {
            let new = NewMemory::new(passage.text.clone())
                .id(format!("p{i:06}"))
                .collection(format!("c{}", i % 10))
                .tags([passage.id.split('/').next().unwrap_or("corpus").to_owned()]);
            let stored = memcore.put(new).expect("put");
            format!("{}/{}", stored.collection, stored.id)
        })
        .collect();
    // Let the files settle past the cache's racy-write window, as in a store in real use.
    std::thread::sleep(Duration::from_millis(200));
    (dir, refs)
}

fn store_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("store");
    group
        .sample_size(30)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    for n in SIZES {
        let (dir, refs) = filled_store(n);
        let memcore = Memcore::open(dir.path()).expect("store opens");

        let mut i = 0;
        group.bench_with_input(BenchmarkId::new("get_warm", n), &n, |b, _| {
            b.iter(|| {
                i = (i + 7919) % refs.len();
                black_box(memcore.get(&refs[i]).expect("get"))
            })
        });

        let list_100 = ListOptions::new().collection("c3").limit(100);
        group.bench_with_input(BenchmarkId::new("list_100", n), &n, |b, _| {
            b.iter(|| black_box(memcore.list(&list_100).expect("list")))
        });

        let mut k = 0;
        group.bench_with_input(BenchmarkId::new("put_durable", n), &n, |b, _| {
            b.iter(|| {
                k += 1;
                let new = NewMemory::new(format!("benchmark note {k}: a short realistic fact."))
                    .id(format!("bench-{k}"))
                    .collection("bench");
                black_box(memcore.put(new).expect("put"))
            })
        });

        group.bench_with_input(BenchmarkId::new("open", n), &n, |b, _| {
            b.iter(|| black_box(Memcore::open(dir.path()).expect("open")))
        });
    }
    group.finish();
}

criterion_group!(benches, store_benches);
criterion_main!(benches);
