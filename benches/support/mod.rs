//! Shared helpers for the benches: the realistic-text corpus of `../shared/bench/`.
#![allow(dead_code, unreachable_pub)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;

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
