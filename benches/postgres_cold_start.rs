//! A new machine joining a PostgreSQL store of n memories of the bench corpus: its cold
//! start (open, which fetches every row and builds the local indexes, then one semantic
//! search) taking the vectors other machines kept in the database (`share_vectors`, the
//! default), against embedding every memory itself (at 10k only: at 100k that is the model's
//! rate times n, see BENCHMARKS.md).
//!
//! ```text
//! MEMCORE_BENCH_SIZES=10000,100000 cargo bench --bench postgres_cold_start
//! ```
//!
//! The first machine writes with the corpus's cached vectors (the model runs for queries
//! only); the new machine runs the real model. The cluster is a throwaway one
//! (`scripts/pg-cluster`, fsync on), reached through a Unix socket.

mod support;

#[path = "../memcore/tests/pgcluster/mod.rs"]
mod pgcluster;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use memcore::{Config, Embedder, Memcore, NewMemory, PostgresStore, Query, SearchMode};

const BATCH: usize = 1_000;

/// Above this, the new machine does not also embed everything itself.
const REEMBED_UP_TO: usize = 10_000;

fn main() {
    let cluster = pgcluster::Cluster::start_durable();
    let model = support::model();
    for n in support::sizes() {
        // PostgreSQL text cannot hold NUL, which a few passages do: they are left out.
        let passages: Vec<support::Passage> =
            support::corpus(n).into_iter().filter(|p| !p.text.contains('\0')).collect();
        let vectors = support::vectors(&model, &passages);
        let table = passages.iter().map(|p| p.text.clone()).zip(vectors).collect();
        let precomputed: Arc<dyn Embedder> =
            Arc::new(support::Precomputed { model: Arc::clone(&model), table });
        let n = passages.len();
        let mut config = pgcluster::config(cluster.url(), &format!("cold-{n}"));
        config.embedding.enabled = true;

        let first = tempfile::tempdir().expect("temp dir");
        let writer = open(first.path(), &config, Arc::clone(&precomputed));
        let ingest = timed(|| {
            for (b, batch) in passages.chunks(BATCH).enumerate() {
                let memories = batch
                    .iter()
                    .enumerate()
                    .map(|(i, p)| {
                        NewMemory::new(p.text.as_str()).id(format!("p{:07}", b * BATCH + i))
                    })
                    .collect();
                writer.put_many(memories).expect("put_many");
            }
        });
        drop(writer);
        println!(
            "postgres n={n}: ingest with vectors kept {:.0}/s ({ingest:.1?})",
            n as f64 / ingest.as_secs_f64()
        );

        let model: Arc<dyn Embedder> = Arc::clone(&model) as Arc<dyn Embedder>;
        let kept = cold_start(&config, &model);
        println!("postgres n={n}: cold start of a new machine taking the kept vectors {kept:.1?}");
        if n <= REEMBED_UP_TO {
            config.postgres.share_vectors = false;
            let embedded = cold_start(&config, &model);
            println!(
                "postgres n={n}: cold start of a new machine embedding everything {embedded:.1?} \
                 ({:.0}x)",
                embedded.as_secs_f64() / kept.as_secs_f64()
            );
        }
    }
}

/// A new machine's open and first semantic search.
fn cold_start(config: &Config, model: &Arc<dyn Embedder>) -> Duration {
    let dir = tempfile::tempdir().expect("temp dir");
    timed(|| {
        let memcore = open(dir.path(), config, Arc::clone(model));
        let query = Query::new("when does the team meet").mode(SearchMode::Semantic).limit(10);
        let results = memcore.search(&query).expect("search");
        assert!(results.warnings.is_empty(), "{:?}", results.warnings);
        assert_eq!(results.hits.len(), 10);
    })
}

fn open(dir: &Path, config: &Config, embedder: Arc<dyn Embedder>) -> Memcore {
    let store = PostgresStore::open(dir, config).expect("postgres store");
    Memcore::builder().store(store).config(config.clone()).embedder(embedder).open().expect("open")
}

fn timed(work: impl FnOnce()) -> Duration {
    let start = Instant::now();
    work();
    start.elapsed()
}
