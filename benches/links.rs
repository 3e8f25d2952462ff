//! The link graph at 10k and 100k memories of realistic text with realistic link density
//! (a link in about one memory in three, to a file path, a person or another memory; 2,000
//! distinct targets): reverse lookup (`backlinks`), linked search, the graph's first query on
//! a freshly opened store, and ingest with links against ingest without. Run with `cargo
//! bench --bench links`; `MEMCORE_BENCH_LINK_SIZES=10000` picks the sizes.

// criterion_main! generates an undocumented `pub fn main`.
#![allow(missing_docs)]

mod support;

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use memcore::links::{EdgeTypes, extract_links};
use memcore::{Config, EmbeddingConfig, Memcore, NewMemory, Query, SearchMode};

/// Distinct link targets.
const TARGETS: usize = 2_000;

/// Text only: the graph does not embed, and the model would only slow the setup.
fn config() -> Config {
    Config {
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        ..Config::default()
    }
}

fn sizes() -> Vec<usize> {
    std::env::var("MEMCORE_BENCH_LINK_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 100_000])
}

/// The target of link `i`: a file, a person or another memory, in turn.
fn target(i: usize) -> String {
    match i % 3 {
        0 => format!("src/module_{}.rs", i % TARGETS),
        1 => format!("Person {}", i % TARGETS),
        _ => format!("p{:06}", i % TARGETS),
    }
}

/// Passage `i`, with a link woven in for one passage in three when `links` is on.
fn memory(i: usize, text: &str, links: bool) -> NewMemory {
    let content = if links && i.is_multiple_of(3) {
        format!("{text} We will refactor [[{}]] after the review.", target(i / 3))
    } else {
        text.to_owned()
    };
    NewMemory::new(content).id(format!("p{i:06}")).collection(format!("c{}", i % 10))
}

/// Fills a store with the first `n` passages, in batches; returns the seconds it took.
fn fill(dir: &Path, passages: &[support::Passage], links: bool) -> f64 {
    let memcore = Memcore::builder().path(dir).config(config()).open().expect("open");
    let started = Instant::now();
    for (chunk_at, chunk) in passages.chunks(5_000).enumerate() {
        let batch = chunk
            .iter()
            .enumerate()
            .map(|(i, p)| memory(chunk_at * 5_000 + i, &p.text, links))
            .collect();
        memcore.put_many(batch).expect("put_many");
    }
    started.elapsed().as_secs_f64()
}

fn link_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("links");
    group.sample_size(30).warm_up_time(Duration::from_secs(1));
    // What indexing adds per linked memory: extracting its links (regex, anchor window).
    let passage = &support::corpus(1)[0].text;
    let linked = format!("{passage} We will refactor [[src/module_7.rs]] after the review.");
    group.bench_function("extract_one_linked_passage", |b| {
        b.iter(|| black_box(extract_links(black_box(&linked), &EdgeTypes::untyped())))
    });
    for n in sizes() {
        let passages = support::corpus(n);
        // Ingest with and without links, alternating (and which goes first), three times
        // each: the median of each.
        let (mut with, mut without) = (Vec::new(), Vec::new());
        for rep in 0..3_usize {
            let order = if rep.is_multiple_of(2) { [false, true] } else { [true, false] };
            for links in order {
                let scratch = tempfile::tempdir().expect("temp dir");
                let took = fill(scratch.path(), &passages, links);
                if links { with.push(took) } else { without.push(took) }
            }
        }
        let median = |times: &mut Vec<f64>| {
            times.sort_by(f64::total_cmp);
            times[1]
        };
        let (with, without) = (median(&mut with), median(&mut without));
        println!(
            "links/ingest/{n}: {with:.2} s with links, {without:.2} s without ({:+.1}%, medians of 3)",
            (with / without - 1.0) * 100.0
        );
        let dir = tempfile::tempdir().expect("temp dir");
        fill(dir.path(), &passages, true);

        // The graph's first query on a freshly opened store: what "loading" it costs.
        let started = Instant::now();
        let fresh = Memcore::builder().path(dir.path()).config(config()).open().expect("open");
        let opened = started.elapsed();
        let first = fresh.backlinks("ghost:src/module_3.rs").expect("backlinks");
        println!(
            "links/open_then_first_backlinks/{n}: open {:.1} ms, first query {:.2} ms total",
            opened.as_secs_f64() * 1e3,
            started.elapsed().as_secs_f64() * 1e3
        );
        assert!(!first.is_empty());

        let mut round = 0usize;
        group.bench_with_input(BenchmarkId::new("backlinks", n), &n, |b, _| {
            b.iter(|| {
                round += 1;
                let links = fresh.backlinks(&format!("ghost:{}", target(round * 3 % TARGETS)));
                black_box(links.expect("backlinks"))
            })
        });
        let query = Query::new("review module refactor").mode(SearchMode::Text).limit(10);
        group.bench_with_input(BenchmarkId::new("linked_search", n), &n, |b, _| {
            b.iter(|| {
                round += 1;
                let linked = query.clone().linked_to(target(round * 3 % TARGETS));
                black_box(fresh.search(&linked).expect("search"))
            })
        });
        group.bench_with_input(BenchmarkId::new("search_expand_links", n), &n, |b, _| {
            b.iter(|| black_box(fresh.search(&query.clone().expand_links(true)).expect("search")))
        });
        group.bench_with_input(BenchmarkId::new("search_plain", n), &n, |b, _| {
            b.iter(|| black_box(fresh.search(&query).expect("search")))
        });
    }
    group.finish();
}

criterion_group!(benches, link_benches);
criterion_main!(benches);
