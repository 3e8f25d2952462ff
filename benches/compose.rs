//! The composition engine: token counting (the estimate against cl100k, speed and accuracy on
//! the whole corpus), composing a 2,000-token context from a store of 100k realistic passages
//! (hybrid search, the query embedded by the real model each time), and registering and
//! compressing a 100k-token transcript with the extractive summariser. Run with `cargo bench
//! --bench compose`; `MEMCORE_BENCH_COMPOSE_SIZES=10000` picks store sizes, and
//! `MEMCORE_BENCH_STORE` keeps the stores between runs (as for the search bench).

// criterion_main! generates an undocumented `pub fn main`.
#![allow(missing_docs)]

mod support;

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion};
use memcore::compose::{Cl100kCounter, ComposeRequest, EstimateCounter, TokenCounter};
use memcore::session::{CompressionSettings, SessionAddRequest, SessionCompressRequest};
use memcore::{Config, EmbeddingConfig, Memcore, NewMemory, Query};

fn sizes() -> Vec<usize> {
    std::env::var("MEMCORE_BENCH_COMPOSE_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![100_000])
}

/// Passage `i` as a memory: one in 50 a decision, one in 97 an active blocker, one in 500
/// pinned, the rest notes.
fn memory(i: usize, text: &str) -> NewMemory {
    let memory = NewMemory::new(text.to_owned()).id(format!("p{i:06}"));
    if i.is_multiple_of(500) {
        memory.collection("rules").importance(1.0)
    } else if i.is_multiple_of(97) {
        memory.collection("blockers")
    } else if i.is_multiple_of(50) {
        memory.collection("decisions")
    } else {
        memory.collection(format!("notes{}", i % 10))
    }
}

/// The estimate's accuracy on the corpus: total against cl100k's, and the median and 90th
/// percentile error per passage of 20 tokens or more.
fn accuracy(passages: &[support::Passage]) {
    let (mut exact_total, mut estimate_total) = (0usize, 0usize);
    let mut errors = Vec::new();
    let (mut exact_time, mut estimate_time) = (Duration::ZERO, Duration::ZERO);
    for passage in passages {
        let started = Instant::now();
        let exact = Cl100kCounter.count(&passage.text);
        exact_time += started.elapsed();
        let started = Instant::now();
        let estimate = EstimateCounter.count(&passage.text);
        estimate_time += started.elapsed();
        exact_total += exact;
        estimate_total += estimate;
        if exact >= 20 {
            errors.push((estimate as f64 - exact as f64).abs() / exact as f64);
        }
    }
    errors.sort_by(f64::total_cmp);
    let bytes: usize = passages.iter().map(|p| p.text.len()).sum();
    let rate = |time: Duration| bytes as f64 / time.as_secs_f64() / 1e6;
    println!(
        "tokens over {} passages: estimate/cl100k = {:.4}; per passage median error {:.1}%, p90 \
         {:.1}%; estimate {:.0} MB/s, cl100k {:.1} MB/s",
        passages.len(),
        estimate_total as f64 / exact_total as f64,
        errors[errors.len() / 2] * 100.0,
        errors[errors.len() * 9 / 10] * 100.0,
        rate(estimate_time),
        rate(exact_time)
    );
}

/// A generic transcript of about `tokens` estimated tokens from corpus passages, with a
/// keepit marker every 40 messages.
fn transcript(passages: &[support::Passage], tokens: usize) -> String {
    let mut lines = Vec::new();
    let mut total = 0;
    for (n, passage) in passages.iter().cycle().enumerate() {
        if total >= tokens {
            break;
        }
        let weight = ["1.00", "0.80", "0.50", "0.25"][n / 40 % 4];
        let content = if n.is_multiple_of(40) {
            format!("{} ##keepit{weight}## {}", passage.text, passage.text)
        } else {
            passage.text.clone()
        };
        total += EstimateCounter.count(&content);
        let role = if n.is_multiple_of(2) { "user" } else { "assistant" };
        lines.push(serde_json::json!({"role": role, "content": content}).to_string());
    }
    lines.join("\n")
}

fn main() {
    let mut criterion = Criterion::default()
        .sample_size(30)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1))
        .configure_from_args();
    let corpus = support::corpus(usize::MAX);
    accuracy(&corpus);
    let mut group = criterion.benchmark_group("tokens");
    let two_kb: String =
        corpus.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join(" ")[..2048].to_owned();
    group.bench_function("estimate_2kb", |b| b.iter(|| EstimateCounter.count(black_box(&two_kb))));
    group.bench_function("cl100k_2kb", |b| b.iter(|| Cl100kCounter.count(black_box(&two_kb))));
    group.finish();

    // Register and compress a 100k-token transcript (text only: the extractive summariser
    // needs no model).
    let text = transcript(&corpus, 100_000);
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("session.jsonl");
    std::fs::write(&file, &text).expect("transcript");
    let config = Config {
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        ..Config::default()
    };
    let mut runs = Vec::new();
    for run in 0..5 {
        let store = tempfile::tempdir().expect("tmp");
        let memcore =
            Memcore::builder().path(store.path()).config(config.clone()).open().expect("open");
        let started = Instant::now();
        let mut add = SessionAddRequest::new(file.to_string_lossy());
        add.session_id = Some(format!("s{run}"));
        let session = memcore.session_add(&add).expect("add");
        let added = started.elapsed();
        let request =
            SessionCompressRequest::new(&session.session_id, CompressionSettings::uniform(10.0));
        let version = memcore.session_compress(&request).expect("compress");
        runs.push((started.elapsed(), added, session.original_tokens, version.output_tokens));
    }
    runs.sort();
    let (total, added, tokens, output) = runs[runs.len() / 2];
    println!(
        "register + compress a {tokens}-token transcript (10:1, extractive): median {total:?} \
         (register {added:?}); {output} tokens out"
    );

    let model = support::model();
    let questions = support::questions();
    for n in sizes() {
        let passages: Vec<support::Passage> = corpus.iter().take(n).cloned().collect();
        let n = passages.len();
        let vecs = support::vectors(&model, &passages);
        let table: HashMap<String, Vec<f32>> =
            passages.iter().zip(&vecs).map(|(p, v)| (p.text.clone(), v.clone())).collect();
        let embedder = Arc::new(support::Precomputed { model: model.clone(), table });
        let store = support::BenchStore::new(n + 1); // not the search bench's store: other collections
        let memcore =
            Memcore::builder().path(store.path()).embedder(embedder.clone()).open().expect("open");
        if !store.reused {
            for (at, chunk) in passages.chunks(5_000).enumerate() {
                let batch = chunk.iter().enumerate().map(|(i, p)| memory(at * 5_000 + i, &p.text));
                memcore.put_many(batch.collect()).expect("ingest");
            }
            store.mark_complete();
        }
        // Warm: the reader open, the graph started (at the second semantic search) and built.
        for question in questions.iter().take(5) {
            memcore.compose(&ComposeRequest::new(question.as_str()).budget(2000)).expect("compose");
        }
        let waited = support::wait_for_graph(&memcore);
        println!("[{n}] vector graph: {:?} after {waited:?}", memcore.vector_graph());
        let mut fresh = 0usize;
        let mut fresh_query = || {
            fresh += 1;
            format!("{} #{fresh}", questions[fresh % questions.len()])
        };
        // Compose and the search it makes, interleaved, each with a query never seen (so
        // embedded): what composing adds to the search.
        let (mut composing, mut searching) = (Vec::new(), Vec::new());
        for _ in 0..questions.len().min(100) {
            let request = ComposeRequest::new(fresh_query()).budget(2000);
            let started = Instant::now();
            let context = memcore.compose(&request).expect("compose");
            composing.push(started.elapsed());
            assert!(context.tokens <= 2000);
            let query = Query::new(fresh_query()).limit(20);
            let started = Instant::now();
            black_box(memcore.search(&query).expect("search"));
            searching.push(started.elapsed());
        }
        composing.sort();
        searching.sort();
        println!(
            "[{n}] compose 2,000 tokens (hybrid, query embedded each time): p50 {:?} p99 {:?}; \
             the search alone: p50 {:?}",
            support::percentile(&composing, 0.5),
            support::percentile(&composing, 0.99),
            support::percentile(&searching, 0.5)
        );
        let mut group = criterion.benchmark_group(format!("compose_{n}"));
        group.bench_function(BenchmarkId::new("budget_2000", "embedding_query"), |b| {
            b.iter(|| {
                let request = ComposeRequest::new(fresh_query()).budget(2000);
                black_box(memcore.compose(&request).expect("compose"))
            })
        });
        group.finish();
    }
    criterion.final_summary();
}
