//! Helpers of the tiered-store tests: a tiered handle on a fixed clock, and what a user's
//! grep of the store directory would find.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};

use std::ops::ControlFlow;
use std::sync::Arc;

use memcore::{
    ArchivedRecord, Backend, CallbackEmbedder, Config, EmbedCallback, Embedder, EmbeddingConfig,
    Memcore, TieredConfig, Timestamp,
};

/// A time from RFC 3339 text.
pub fn at(text: &str) -> Timestamp {
    text.parse().expect("a valid time")
}

/// A tiered handle on `dir` without the model, with a 90-day warm window, whose clock says
/// 2026-01-01.
pub fn open(dir: &Path) -> Memcore {
    let config = Config {
        backend: Backend::Tiered,
        tiered: TieredConfig { warm_window_days: 90, ..TieredConfig::default() },
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        ..Config::default()
    };
    let builder = Memcore::builder().path(dir).config(config);
    builder.clock(|| at("2026-01-01T00:00:00Z")).open().expect("the store opens")
}

/// Every file under `dir` whose bytes contain `needle`.
pub fn files_holding(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("a readable directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if std::fs::read(&path)
                .expect("a readable file")
                .windows(needle.len())
                .any(|w| w == needle.as_bytes())
            {
                found.push(path);
            }
        }
    }
    found
}

/// Every record of the handle's cold archive, in archive order.
pub fn cold_records(memcore: &Memcore) -> Vec<ArchivedRecord> {
    let mut records = Vec::new();
    let cold = memcore.tiers().expect("a tiered store").cold();
    cold.scan(&mut |record| {
        records.push(record.expect("a readable record"));
        ControlFlow::Continue(())
    })
    .expect("the archive scans");
    records
}

/// A toy embedder of 8 dimensions (letter counts), so every text is somewhat similar to
/// every other: semantic search without the model.
pub fn letters() -> Arc<dyn Embedder> {
    let letters: Arc<EmbedCallback> = Arc::new(|texts: &[&str]| {
        Ok(texts
            .iter()
            .map(|text| {
                let mut v = vec![0.1_f32; 8];
                for c in text.chars().filter(char::is_ascii_lowercase) {
                    v[(c as usize) % 8] += 1.0;
                }
                v
            })
            .collect())
    });
    Arc::new(CallbackEmbedder::new("letters", 8, letters).expect("a valid embedder"))
}
