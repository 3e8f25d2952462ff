//! Single puts in one long-lived process: the latency of each `Memcore::put` of a short new
//! memory on an existing store, as an agent writing one memory at a time sees it (issue 22).
//!
//! ```text
//! cargo build --release --example put_latency
//! target/release/examples/put_latency STORE [PUTS] [--model]
//! ```
//!
//! STORE is a store directory (made by `memcore put` or any ingest; the puts are added to it).
//! PUTS defaults to 1,000. Without `--model` the store is opened with embeddings off, so the
//! figures are the store's and the full-text index's; with it, the installed model embeds
//! each memory. Prints the first put, the median, p90, p99, the slowest, the mean, and how
//! many puts took over 25 and over 100 ms. Not a test: nothing else runs it.

use std::time::Instant;

use memcore::{Config, Memcore, NewMemory};

/// Puts timed when no count is given.
const DEFAULT_PUTS: usize = 1_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let model = args.iter().any(|a| a == "--model");
    let mut positional = args.iter().filter(|a| !a.starts_with("--"));
    let store = positional.next().ok_or("usage: put_latency STORE [PUTS] [--model]")?;
    let puts: usize = positional.next().map(|n| n.parse()).transpose()?.unwrap_or(DEFAULT_PUTS);
    if puts == 0 {
        return Err("PUTS must be at least 1".into());
    }

    let mut config = Config::default();
    config.embedding.enabled = model;
    let memcore = Memcore::builder().path(store).config(config).open()?;
    // Ids derive from the content: the run's start time keeps each run's memories new.
    let run = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_nanos();
    let mut took = Vec::with_capacity(puts);
    for i in 0..puts {
        let memory = NewMemory::new(format!("Single put {i} of run {run}: profile kernels first."));
        let started = Instant::now();
        memcore.put(memory)?;
        took.push(started.elapsed().as_secs_f64() * 1000.0);
    }

    let first = took[0];
    let mean = took.iter().sum::<f64>() / puts as f64;
    let (over_25, over_100) =
        (took.iter().filter(|&&t| t > 25.0).count(), took.iter().filter(|&&t| t > 100.0).count());
    took.sort_by(f64::total_cmp);
    let at = |q: f64| took[((puts as f64 * q) as usize).min(puts - 1)];
    println!(
        "{puts} puts: first {first:.1} ms, p50 {:.1}, p90 {:.1}, p99 {:.1}, max {:.1}, \
         mean {mean:.1} ms; over 25 ms: {over_25}, over 100 ms: {over_100}",
        at(0.5),
        at(0.9),
        at(0.99),
        took[puts - 1],
    );
    Ok(())
}
