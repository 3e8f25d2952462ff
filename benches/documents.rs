//! Documents at scale, from the shared bench corpus turned into markdown files (50 passages a
//! file, a `##` section every 8): ingest throughput in MB/s without embeddings (the whole
//! corpus, default chunking) and with the real model (a sample), and `docs_search` latency
//! over about 100k chunks (the corpus split at 200 characters: text) and over the sample
//! (hybrid).
//!
//! ```text
//! scripts/fetch-models
//! cargo bench --bench documents
//! ```
//!
//! `MEMCORE_BENCH_PASSAGES` takes fewer passages than the whole corpus (96,878).

mod support;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::Criterion;
use memcore::docs::{DocsIngestRequest, DocsSearchRequest};
use memcore::{Config, EmbeddingConfig, Memcore, SearchMode};

/// Passages per document file.
const PER_FILE: usize = 50;
/// Passages per `##` section.
const PER_SECTION: usize = 8;

fn main() {
    let passages: usize = std::env::var("MEMCORE_BENCH_PASSAGES")
        .map(|n| n.parse().expect("a number of passages"))
        .unwrap_or(96_878);
    let corpus = support::corpus(passages);
    let project = tempfile::tempdir().expect("tmp");
    let (files, bytes) = write_documents(project.path(), &corpus);
    let mb = bytes as f64 / 1e6;
    println!("{} passages as {} files, {mb:.1} MB", corpus.len(), files.len());

    // Without embeddings: the store, the full-text index and the chunker.
    let text_only = Config {
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        ..Config::default()
    };
    let default_store = ingest(project.path(), "default", &files, text_only.clone(), None, mb);
    drop(default_store);
    let small = ingest(project.path(), "small", &files, text_only, Some(200), mb);

    // With the model: a sample of files.
    let sample: Vec<String> = files.iter().take(40).cloned().collect();
    let sample_mb = sample
        .iter()
        .map(|f| std::fs::metadata(project.path().join(f)).expect("file").len())
        .sum::<u64>() as f64
        / 1e6;
    let with_model = {
        let dir = project.path().join("model");
        let memcore =
            Memcore::builder().path(&dir).embedder(support::model()).open().expect("open");
        let started = Instant::now();
        let request =
            DocsIngestRequest::new(sample.clone()).root(project.path().display().to_string());
        let report = memcore.docs_ingest(&request).expect("ingest");
        let seconds = started.elapsed().as_secs_f64();
        let chunks: usize = report.documents.iter().map(|d| d.document.chunks.len()).sum();
        println!(
            "ingest with embeddings: {:.3} MB/s ({sample_mb:.2} MB, {} files, {chunks} chunks, {seconds:.1} s)",
            sample_mb / seconds,
            sample.len()
        );
        memcore
    };

    let questions: Vec<String> = support::questions().into_iter().take(50).collect();
    let mut criterion = Criterion::default()
        .sample_size(30)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1))
        .configure_from_args();
    let mut next = 0;
    criterion.bench_function("docs_search text, 200-character chunks of the corpus", |b| {
        b.iter(|| {
            next = (next + 1) % questions.len();
            let request = DocsSearchRequest::new(questions[next].clone()).mode(SearchMode::Text);
            black_box(small.docs_search(&request).expect("search"))
        });
    });
    criterion.bench_function("docs_search hybrid, the sample with the model", |b| {
        b.iter(|| {
            next = (next + 1) % questions.len();
            let request = DocsSearchRequest::new(questions[next].clone());
            black_box(with_model.docs_search(&request).expect("search"))
        });
    });
    criterion.final_summary();
}

/// Writes the passages as markdown files under `dir`; returns their names and total bytes.
fn write_documents(dir: &Path, corpus: &[support::Passage]) -> (Vec<String>, u64) {
    let mut names = Vec::new();
    let mut bytes = 0;
    for (n, file) in corpus.chunks(PER_FILE).enumerate() {
        let mut text = format!("# Document {n}\n\n");
        for (s, section) in file.chunks(PER_SECTION).enumerate() {
            text.push_str(&format!("## Section {s}\n\n"));
            for passage in section {
                // A few man-page passages hold NUL bytes, which mark a file as binary.
                text.push_str(&passage.text.trim().replace('\0', " "));
                text.push_str("\n\n");
            }
        }
        let name = format!("corpus/doc-{n:05}.md");
        let path: PathBuf = dir.join(&name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
        std::fs::write(&path, &text).expect("write");
        bytes += text.len() as u64;
        names.push(name);
    }
    (names, bytes)
}

/// Ingests `files` into a new store `dir/<name>` with `config` and chunk size `size` (the
/// default when `None`), and prints the throughput.
fn ingest(
    dir: &Path,
    name: &str,
    files: &[String],
    config: Config,
    size: Option<usize>,
    mb: f64,
) -> Memcore {
    let memcore = Memcore::builder().path(dir.join(name)).config(config).open().expect("open");
    let started = Instant::now();
    let mut chunks = 0;
    // In batches of files, as a project would add them.
    for batch in files.chunks(200) {
        let mut request = DocsIngestRequest::new(batch.to_vec()).root(dir.display().to_string());
        request.chunk_size = size;
        let report = memcore.docs_ingest(&request).expect("ingest");
        chunks += report.documents.iter().map(|d| d.document.chunks.len()).sum::<usize>();
    }
    let seconds = started.elapsed().as_secs_f64();
    let size = size.map_or_else(|| "default".to_owned(), |s| s.to_string());
    println!(
        "ingest without embeddings, chunk size {size}: {:.2} MB/s ({chunks} chunks, {seconds:.1} s, {:.0} chunks/s)",
        mb / seconds,
        chunks as f64 / seconds
    );
    memcore
}
