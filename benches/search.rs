//! Search at 10k and 100k memories of realistic text (the shared bench corpus):
//! ingest throughput, query latency (text, semantic, hybrid; with and without embedding the
//! query), vector recall@10 against exact search, open time and memory per memory.
//!
//! ```text
//! scripts/fetch-models
//! MEMCORE_BENCH_SIZES=10000,100000 cargo bench --bench search
//! ```
//!
//! Passage vectors come from the real model. Embedding 100k passages takes 10-20 minutes on
//! two cores, so they are cached outside the repository: `$MEMCORE_BENCH_VECTORS` (raw
//! little-endian f32 rows, corpus order), default `target/bench-cache/minilm-<n>.f32`. The
//! ingest benchmark then replays those vectors through an [`Embedder`] that looks passages
//! up (queries still go through the model), so "ingest without embeddings" measures store +
//! indexes, and "ingest with embeddings" is measured separately on a sample.
//!
//! Building the hnsw_rs graph for 100k vectors takes minutes. To time queries again without
//! rebuilding, set `MEMCORE_BENCH_STORE` to a directory: the store of size `n` is kept in
//! `$MEMCORE_BENCH_STORE/<n>` and reused (ingest is then skipped and not reported).

mod support;

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion};
use memcore::{Embedder, Memcore, NewMemory, Query, SearchMode};

fn main() {
    let sizes = support::sizes();
    let model = support::model();
    // The query-embedding cache holds 100 entries.
    let questions: Vec<String> = support::questions().into_iter().take(100).collect();

    // Ingest with the model in the loop, on a sample.
    {
        let sample = support::corpus(512);
        let dir = tempfile::tempdir().expect("tmp");
        let memcore =
            Memcore::builder().path(dir.path()).embedder(model.clone()).open().expect("open");
        let started = Instant::now();
        memcore
            .put_many(sample.iter().map(|p| NewMemory::new(p.text.clone())).collect())
            .expect("ingest");
        let rate = sample.len() as f64 / started.elapsed().as_secs_f64();
        println!(
            "ingest with embeddings: {rate:.0} memories/s ({} passages, batched)",
            sample.len()
        );
    }

    let mut criterion = Criterion::default()
        .sample_size(50)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1))
        .configure_from_args();
    for n in sizes {
        let passages = support::corpus(n);
        let vecs = support::vectors(&model, &passages);
        // A memory whose title is derived from its content is embedded as its content alone.
        let table: HashMap<String, Vec<f32>> =
            passages.iter().zip(&vecs).map(|(p, v)| (p.text.clone(), v.clone())).collect();
        let embedder = Arc::new(support::Precomputed { model: model.clone(), table });
        // The ten nearest passages of each question by exact search, for recall@10.
        let query_vecs =
            model.embed(&questions.iter().map(String::as_str).collect::<Vec<_>>()).expect("q");
        let truth: Vec<Vec<&str>> = query_vecs
            .iter()
            .map(|qv| {
                let mut exact: Vec<(f32, usize)> = vecs
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (v.iter().zip(qv).map(|(a, b)| a * b).sum(), i))
                    .collect();
                exact.sort_by(|a, b| b.0.total_cmp(&a.0));
                exact[..10].iter().map(|(_, i)| passages[*i].text.as_str()).collect()
            })
            .collect();
        let store = support::BenchStore::new(n);
        let rss_before = support::rss_kib();
        let memcore =
            Memcore::builder().path(store.path()).embedder(embedder.clone()).open().expect("open");
        if store.reused {
            println!("[{n}] reusing {} (ingest not measured)", store.path().display());
        } else {
            let started = Instant::now();
            for chunk in passages.chunks(5_000) {
                memcore
                    .put_many(chunk.iter().map(|p| NewMemory::new(p.text.clone())).collect())
                    .expect("ingest");
            }
            let rate = n as f64 / started.elapsed().as_secs_f64();
            println!("[{n}] ingest without embeddings (vectors precomputed): {rate:.0} memories/s");
            store.mark_complete();
            before_the_graph(&memcore, &questions, &truth, &format!("[{n}] right after put_many"));
        }
        drop(memcore);

        let started = Instant::now();
        let memcore =
            Memcore::builder().path(store.path()).embedder(embedder.clone()).open().expect("open");
        let opened = started.elapsed();
        memcore.search(&Query::new(&questions[0]).mode(SearchMode::Hybrid)).expect("first query");
        println!("[{n}] open: {opened:?}; open + first hybrid query: {:?}", started.elapsed());
        if !store.reused {
            before_the_graph(&memcore, &questions, &truth, &format!("[{n}] fresh process"));
        }
        // Latencies are measured with the graph serving (it builds in the background above
        // 20k vectors; searches scan exactly meanwhile).
        // The graph starts at the second semantic search (a one-shot process scans exactly).
        memcore.search(&Query::new(&questions[1]).mode(SearchMode::Hybrid)).expect("query");
        let waited = support::wait_for_graph(&memcore);
        println!("[{n}] vector graph: {:?} after {waited:?} more", memcore.vector_graph());
        let rss = support::rss_kib().saturating_sub(rss_before);
        println!(
            "[{n}] resident memory: {:.2} KiB per memory (whole process delta)",
            rss as f64 / n as f64
        );

        println!("[{n}] vector recall@10 vs exact: {:.3}", recall(&memcore, &questions, &truth));

        let mut group = criterion.benchmark_group(format!("search_{n}"));
        for mode in [SearchMode::Text, SearchMode::Semantic, SearchMode::Hybrid] {
            // Query embeddings cached after the first round: this excludes embedding.
            let mut i = 0;
            group.bench_function(BenchmarkId::new("cached_query_vector", mode), |b| {
                b.iter(|| {
                    i = (i + 1) % questions.len();
                    black_box(
                        memcore.search(&Query::new(&questions[i]).mode(mode)).expect("search"),
                    )
                })
            });
            let (p50, p99) =
                p50_p99(&memcore, (0..3).flat_map(|_| questions.iter().cloned()), mode);
            println!("[{n}] {mode} (query vector cached): p50 {p50:?} p99 {p99:?}");
        }
        // Unseen query texts, so each search embeds its query.
        let mut fresh = 0u64;
        let mut fresh_query = || {
            fresh += 1;
            format!("{} #{fresh}", questions[fresh as usize % questions.len()])
        };
        let texts: Vec<String> = (0..questions.len() * 2).map(|_| fresh_query()).collect();
        let (p50, p99) = p50_p99(&memcore, texts, SearchMode::Hybrid);
        println!("[{n}] hybrid including the query embedding: p50 {p50:?} p99 {p99:?}");
        group.bench_function(BenchmarkId::new("embedding_query", "hybrid"), |b| {
            b.iter(|| black_box(memcore.search(&Query::new(fresh_query())).expect("search")))
        });
        group.finish();
    }
    criterion.final_summary();
}

/// Mean share of each question's ten exact nearest passages (`truth`) that semantic search
/// returns in its top ten.
fn recall(memcore: &Memcore, questions: &[String], truth: &[Vec<&str>]) -> f64 {
    let mut sum = 0.0;
    for (question, truth) in questions.iter().zip(truth) {
        let hits =
            memcore.search(&Query::new(question).mode(SearchMode::Semantic).limit(10)).expect("s");
        let found = hits
            .hits
            .iter()
            .filter(|h| {
                truth.contains(&memcore.get(&h.memory.reference).expect("get").content.as_str())
            })
            .count();
        sum += found as f64 / 10.0;
    }
    sum / questions.len() as f64
}

/// Semantic and hybrid latency, every query embedded (unseen texts), and recall@10, timed
/// while the vector graph is not ready yet: right after a large `put_many`, or in a fresh
/// process (the graph starts at the second search and builds in the background meanwhile).
fn before_the_graph(memcore: &Memcore, questions: &[String], truth: &[Vec<&str>], label: &str) {
    for (round, mode) in [SearchMode::Semantic, SearchMode::Hybrid].into_iter().enumerate() {
        let texts = questions.iter().map(|q| format!("{q} #window{round}"));
        let (p50, p99) = p50_p99(memcore, texts, mode);
        println!(
            "{label}, before the graph ({:?}): {mode} including the query embedding p50 {p50:?} \
             p99 {p99:?}",
            memcore.vector_graph(),
        );
    }
    // A filter on every row (collection and creation date): the filtered path, not a slower one.
    let texts = questions.iter().map(|q| format!("{q} #filtered"));
    let (p50, p99) = percentiles(
        texts,
        |text| {
            Query::new(text)
                .mode(SearchMode::Semantic)
                .collection("memory")
                .created_between(Some(memcore::Timestamp::UNIX_EPOCH), None)
        },
        memcore,
    );
    println!(
        "{label}, before the graph ({:?}): semantic with a filter, including the query embedding \
         p50 {p50:?} p99 {p99:?}",
        memcore.vector_graph(),
    );
    println!(
        "{label}, before the graph ({:?}): recall@10 vs exact {:.3}",
        memcore.vector_graph(),
        recall(memcore, questions, truth)
    );
    // The recall round cached the questions' vectors: this is the search alone.
    let (p50, p99) = p50_p99(memcore, questions.iter().cloned(), SearchMode::Semantic);
    println!(
        "{label}, before the graph ({:?}): semantic, query vector cached, p50 {p50:?} p99 {p99:?}",
        memcore.vector_graph(),
    );
}

/// Median and 99th percentile latency of searching each of `texts` in `mode`.
fn p50_p99(
    memcore: &Memcore,
    texts: impl IntoIterator<Item = String>,
    mode: SearchMode,
) -> (Duration, Duration) {
    percentiles(texts, |text| Query::new(text).mode(mode), memcore)
}

/// Median and 99th percentile latency of the queries `query` makes of each of `texts`.
fn percentiles(
    texts: impl IntoIterator<Item = String>,
    query: impl Fn(String) -> Query,
    memcore: &Memcore,
) -> (Duration, Duration) {
    let mut latencies: Vec<Duration> = texts
        .into_iter()
        .map(|text| {
            let query = query(text);
            let started = Instant::now();
            black_box(memcore.search(&query).expect("search"));
            started.elapsed()
        })
        .collect();
    latencies.sort();
    (support::percentile(&latencies, 0.5), support::percentile(&latencies, 0.99))
}
