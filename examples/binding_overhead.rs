//! The Rust side of `benches/python/binding_overhead.py`: times `Memcore::get` and
//! `Memcore::search` on an existing store with exactly the calls, ids, queries and order the
//! Python script uses, so that the difference is the binding's overhead per call.
//!
//! ```text
//! cargo build --release --example binding_overhead
//! target/release/examples/binding_overhead PLAN.json    # driven by the Python script
//! ```
//!
//! `PLAN.json` (written by the Python script): `{"store": path, "refs": [...], "queries":
//! [...]}`. The program then serves commands on stdin, one a line, so that the Python script
//! can interleave short blocks of Python and Rust calls (paired measurements on a noisy
//! machine): `warm MODE...` (every ref and every query once per mode; answers `[]`), or
//! `OP START COUNT`, which makes COUNT calls for the sequence positions START.. and answers a
//! JSON array of per-call nanoseconds. OP is `get` (ref `refs[(p * 7919) % len]`),
//! `get_missing` (a ref that does not exist), `search:MODE` (`queries[p % len]`) or
//! `search_nohit:MODE` (a query no memory matches). Not a test: nothing else runs it.

use std::hint::black_box;
use std::io::{BufRead, Write};
use std::time::Instant;

use memcore::{Memcore, Query, SearchMode};

#[derive(serde::Deserialize)]
struct Plan {
    store: std::path::PathBuf,
    refs: Vec<String>,
    queries: Vec<String>,
}

/// The query of `search_nohit`: no word of it is in the corpus.
const NO_HIT: &str = "qzxvw jjkkq";
/// The ref of `get_missing`.
const MISSING: &str = "c0/no-such-memory";
/// The stride through the refs, as in `benches/store.rs`.
const STRIDE: usize = 7919;

fn elapsed_ns(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

fn search(memcore: &Memcore, text: &str, mode: SearchMode) -> memcore::Result<u64> {
    let started = Instant::now();
    let results = memcore.search(&Query::new(text).mode(mode))?;
    let ns = elapsed_ns(started);
    black_box(results);
    Ok(ns)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os().nth(1).ok_or("usage: binding_overhead PLAN.json")?;
    let plan: Plan = serde_json::from_slice(&std::fs::read(path)?)?;
    if plan.refs.is_empty() || plan.queries.is_empty() {
        return Err("the plan needs refs and queries".into());
    }
    let memcore = Memcore::open(&plan.store)?;
    let stdout = std::io::stdout();
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        let words: Vec<&str> = line.split_whitespace().collect();
        let mut samples: Vec<u64> = Vec::new();
        match words.as_slice() {
            [] => continue,
            ["warm", modes @ ..] => {
                for reference in &plan.refs {
                    black_box(memcore.get(reference)?);
                }
                for mode in modes {
                    let mode: SearchMode = mode.parse()?;
                    for query in &plan.queries {
                        search(&memcore, query, mode)?;
                    }
                }
            }
            [op, start, count] => {
                let (start, count): (usize, usize) = (start.parse()?, count.parse()?);
                samples.reserve(count);
                let (kind, mode) = op.split_once(':').unwrap_or((op, "text"));
                let mode: SearchMode = mode.parse()?;
                for p in start..start + count {
                    let ns = match kind {
                        "get" => {
                            let reference = &plan.refs[(p * STRIDE) % plan.refs.len()];
                            let started = Instant::now();
                            let memory = memcore.get(reference)?;
                            let ns = elapsed_ns(started);
                            black_box(memory);
                            ns
                        }
                        "get_missing" => {
                            let started = Instant::now();
                            let outcome = memcore.get(MISSING);
                            let ns = elapsed_ns(started);
                            if outcome.is_ok() {
                                return Err(format!("{MISSING} exists").into());
                            }
                            black_box(outcome.err());
                            ns
                        }
                        "search" => search(&memcore, &plan.queries[p % plan.queries.len()], mode)?,
                        "search_nohit" => search(&memcore, NO_HIT, mode)?,
                        other => return Err(format!("unknown operation {other:?}").into()),
                    };
                    samples.push(ns);
                }
            }
            _ => return Err(format!("bad command {line:?}").into()),
        }
        let mut out = stdout.lock();
        writeln!(out, "{}", serde_json::to_string(&samples)?)?;
        out.flush()?;
    }
    Ok(())
}
