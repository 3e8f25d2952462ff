//! Shared helpers for the benches: the realistic-text corpus of `../shared/bench/`, its
//! vectors (computed once, cached), stores kept between runs, percentiles.
#![allow(dead_code, unreachable_pub)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use memcore::{Embedder, ModelFiles, OnnxEmbedder};

/// One passage of the benchmark corpus.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Passage {
    /// The corpus id, e.g. `conv-26/D1:3`.
    pub id: String,
    /// The passage text (one to three sentences).
    pub text: String,
}

/// Where the corpus is: `$MEMCORE_BENCH_CORPUS`, else `../shared/bench/corpus.jsonl.gz`
/// beside the repository.
pub fn corpus_path() -> PathBuf {
    std::env::var_os("MEMCORE_BENCH_CORPUS").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/corpus.jsonl.gz")
    })
}

/// The first `n` passages of the corpus (the corpus is never copied into the repository).
pub fn corpus(n: usize) -> Vec<Passage> {
    let path = corpus_path();
    let file = std::fs::File::open(&path).unwrap_or_else(|e| {
        panic!("cannot open the bench corpus {}: {e} (set MEMCORE_BENCH_CORPUS)", path.display())
    });
    BufReader::new(flate2::read::GzDecoder::new(file))
        .lines()
        .take(n)
        .map(|line| serde_json::from_str(&line.expect("corpus line")).expect("corpus json"))
        .collect()
}

pub const DIM: usize = 384;

/// The real model for queries, a table for the corpus passages.
#[derive(Debug)]
pub struct Precomputed {
    /// The real model, for texts not in the table (queries).
    pub model: Arc<OnnxEmbedder>,
    /// Passage text to vector.
    pub table: HashMap<String, Vec<f32>>,
}

impl Embedder for Precomputed {
    fn model_id(&self) -> &str {
        self.model.model_id()
    }
    fn dimension(&self) -> usize {
        DIM
    }
    fn embed(&self, texts: &[&str]) -> memcore::Result<Vec<Vec<f32>>> {
        let missing: Vec<&str> =
            texts.iter().copied().filter(|t| !self.table.contains_key(*t)).collect();
        let mut computed = self.model.embed(&missing)?.into_iter();
        Ok(texts
            .iter()
            .map(|t| match self.table.get(*t) {
                Some(v) => v.clone(),
                None => computed.next().unwrap_or_default(),
            })
            .collect())
    }
}

pub fn model() -> Arc<OnnxEmbedder> {
    let files = ModelFiles::locate(None).unwrap_or_else(|e| panic!("{}", e.report()));
    Arc::new(OnnxEmbedder::new(&files).unwrap_or_else(|e| panic!("{}", e.report())))
}

/// Vectors of the first `n` passages, from the cache (one file per model and size) or
/// computed (and cached).
pub fn vectors(model: &OnnxEmbedder, passages: &[Passage]) -> Vec<Vec<f32>> {
    let n = passages.len();
    let path = std::env::var_os("MEMCORE_BENCH_VECTORS").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(format!("target/bench-cache/{}-{n}.f32", model.model_id()))
    });
    if let Ok(bytes) = std::fs::read(&path)
        && bytes.len() >= n * DIM * 4
    {
        return bytes[..n * DIM * 4]
            .chunks_exact(DIM * 4)
            .map(|row| {
                row.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
            })
            .collect();
    }
    eprintln!("embedding {n} passages once (cached in {})", path.display());
    let texts: Vec<String> = passages.iter().map(|p| p.text.clone()).collect();
    let mut out = Vec::with_capacity(n);
    for chunk in texts.chunks(256) {
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        out.extend(model.embed(&refs).expect("embedding"));
    }
    let bytes: Vec<u8> = out.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("cache dir");
    }
    std::fs::write(&path, bytes).expect("cache write");
    out
}

/// Where the store of one size lives: a temporary directory, or a kept one under
/// `$MEMCORE_BENCH_STORE` that a completed earlier run filled.
pub enum BenchStoreDir {
    Temporary(tempfile::TempDir),
    Kept(PathBuf),
}

pub struct BenchStore {
    dir: BenchStoreDir,
    /// Whether an earlier run filled it.
    pub reused: bool,
}

impl BenchStore {
    /// Marks a kept store as fully ingested.
    pub const COMPLETE: &str = ".bench-complete";

    pub fn new(n: usize) -> Self {
        match std::env::var_os("MEMCORE_BENCH_STORE") {
            Some(root) => {
                let path = PathBuf::from(root).join(n.to_string());
                let reused = path.join(Self::COMPLETE).exists();
                if !reused && path.exists() {
                    // An interrupted earlier run: start over.
                    std::fs::remove_dir_all(&path).expect("remove incomplete bench store");
                }
                std::fs::create_dir_all(&path).expect("bench store dir");
                Self { dir: BenchStoreDir::Kept(path), reused }
            }
            None => Self {
                dir: BenchStoreDir::Temporary(tempfile::tempdir().expect("tmp")),
                reused: false,
            },
        }
    }

    pub fn path(&self) -> &std::path::Path {
        match &self.dir {
            BenchStoreDir::Temporary(dir) => dir.path(),
            BenchStoreDir::Kept(path) => path,
        }
    }

    pub fn mark_complete(&self) {
        std::fs::write(self.path().join(Self::COMPLETE), b"").expect("mark bench store");
    }
}

/// The store sizes `$MEMCORE_BENCH_SIZES` names (comma-separated; 10,000 by default).
pub fn sizes() -> Vec<usize> {
    std::env::var("MEMCORE_BENCH_SIZES")
        .unwrap_or_else(|_| "10000".into())
        .split(',')
        .map(|s| s.trim().parse().expect("size"))
        .collect()
}

pub fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// The questions of `../shared/bench/queries.jsonl`, in order.
pub fn questions() -> Vec<String> {
    std::fs::read_to_string(corpus_path().with_file_name("queries.jsonl"))
        .expect("queries")
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).expect("json")["question"]
                .as_str()
                .unwrap_or("")
                .to_owned()
        })
        .collect()
}

/// Waits until the vector graph (built in the background above 20k vectors) serves every
/// row; returns how long that took.
pub fn wait_for_graph(memcore: &memcore::Memcore) -> Duration {
    let waiting = std::time::Instant::now();
    loop {
        match memcore.vector_graph() {
            Some(memcore::GraphStatus::Starting { .. }) => {}
            Some(memcore::GraphStatus::Ready { indexed, rows }) if indexed < rows => {}
            _ => break,
        }
        std::thread::sleep(Duration::from_secs(2));
    }
    waiting.elapsed()
}
