//! Retrieval evaluation on the LoCoMo development conversations (`../shared/eval/`).
//!
//! Each conversation goes into its own store, one memory per dialogue turn, ingested in turn
//! order; every question is searched with its text alone; the top 50 are written to a run
//! file per mode and scored with the shared scorer.
//!
//! ```text
//! scripts/fetch-models   # for semantic and hybrid
//! cargo run --release --example locomo_eval -- [--modes text,semantic,hybrid] [--out DIR] \
//!     [--data DIR] [--plain] [--shared]
//! ```
//!
//! `--plain` stores each turn as a new user would (its text, who said it, when, and its
//! session and turn number as metadata) instead of the harness's rewrite (date and speaker in
//! the text, the speaker as title, the previous turn as context). `--data` is the directory
//! holding `locomo-dev/` and `score.py` (default `../shared/eval`). `--shared` puts every
//! conversation into one store, each in a collection of its own, and searches each question
//! in its conversation's collection: how a store shared by several sources ranks.
//!
//! The data is licensed for evaluation only and is read in place, never copied.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use memcore::{Memcore, NewMemory, Query, SearchMode};
use serde::Deserialize;

/// Hits written per question (the protocol asks for at least 20, recommends 50).
const RANKED: usize = 50;

#[derive(Debug, Deserialize)]
struct Turn {
    conv_id: String,
    session: u32,
    session_date_time: String,
    session_timestamp: String,
    dia_id: String,
    turn_index: u32,
    speaker: String,
    text: String,
}

#[derive(Debug, Deserialize)]
struct Question {
    query_id: String,
    conv_id: String,
    question: String,
}

fn read_jsonl<T: for<'de> Deserialize<'de>>(path: &Path) -> Vec<T> {
    let file =
        fs::File::open(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    BufReader::new(file)
        .lines()
        .map(|line| serde_json::from_str(&line.expect("line")).expect("valid json"))
        .collect()
}

/// A turn as a memory: who said it and when is part of the text, so both full-text and
/// semantic search can use it; the speaker is the title, and the turn it answers is the
/// context (short replies mean little on their own).
fn turn_memory(turn: &Turn, previous: Option<&Turn>, collection: &str) -> NewMemory {
    let text = format!("({}) {}: {}", turn.session_date_time, turn.speaker, turn.text);
    let mut memory = NewMemory::new(text)
        .id(turn.dia_id.to_lowercase())
        .title(turn.speaker.clone())
        .collection(collection)
        .meta("dia_id", turn.dia_id.clone())
        .meta("speaker", turn.speaker.clone())
        .meta("session", turn.session)
        .meta("turn_index", turn.turn_index);
    if let Some(at) = memcore::parse_timestamp(&turn.session_timestamp) {
        memory = memory.created_at(at);
    }
    if let Some(previous) = previous.filter(|p| p.session == turn.session) {
        memory = memory.context(format!("{}: {}", previous.speaker, previous.text));
    }
    memory
}

/// A turn as a new user stores it (`--plain`): its text, who said it (`created_by`), when
/// (`created_at`) and where in the conversation (`session` and `turn` metadata,
/// `memcore::SESSION_KEY` and `memcore::TURN_KEY`); the id and `dia_id` only so that hits
/// can be scored.
fn plain_memory(turn: &Turn, collection: &str) -> NewMemory {
    let mut memory = NewMemory::new(turn.text.clone())
        .id(turn.dia_id.to_lowercase())
        .collection(collection)
        .created_by(turn.speaker.clone())
        .meta(memcore::SESSION_KEY, turn.session)
        .meta(memcore::TURN_KEY, turn.turn_index)
        .meta("dia_id", turn.dia_id.clone());
    if let Some(at) = memcore::parse_timestamp(&turn.session_timestamp) {
        memory = memory.created_at(at);
    }
    memory
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let flag =
        |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let modes: Vec<SearchMode> = flag("--modes")
        .unwrap_or_else(|| "text,semantic,hybrid".into())
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let out = PathBuf::from(flag("--out").unwrap_or_else(|| "target/locomo".into()));
    let plain = args.iter().any(|a| a == "--plain");
    let shared = args.iter().any(|a| a == "--shared");
    let data = flag("--data").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/eval"),
        PathBuf::from,
    );
    fs::create_dir_all(&out)?;

    let turns: Vec<Turn> = read_jsonl(&data.join("locomo-dev/memories.jsonl"));
    let questions: Vec<Question> = read_jsonl(&data.join("locomo-dev/queries.jsonl"));
    let mut by_conv: BTreeMap<&str, Vec<&Turn>> = BTreeMap::new();
    for turn in &turns {
        by_conv.entry(&turn.conv_id).or_default().push(turn);
    }

    let stores = tempfile::tempdir()?;
    // Where a conversation is stored: its own store, or (`--shared`) a collection of one.
    let place = |conv: &str| match shared {
        true => ("shared".to_owned(), conv.to_owned()),
        false => (conv.to_owned(), "turns".to_owned()),
    };
    let mut handles: BTreeMap<String, Memcore> = BTreeMap::new();
    let started = Instant::now();
    for (conv, mut conv_turns) in by_conv {
        conv_turns.sort_by_key(|t| t.turn_index);
        let (store, collection) = place(conv);
        if !handles.contains_key(&store) {
            handles.insert(store.clone(), Memcore::open(stores.path().join(&store))?);
        }
        let memories = conv_turns
            .iter()
            .enumerate()
            .map(|(i, turn)| match plain {
                true => plain_memory(turn, &collection),
                false => turn_memory(turn, i.checked_sub(1).map(|p| conv_turns[p]), &collection),
            })
            .collect();
        handles[&store].put_many(memories)?;
    }
    eprintln!("ingested {} turns in {:.1} s", turns.len(), started.elapsed().as_secs_f64());

    for mode in modes {
        let run_path = out.join(format!("run-{mode}.jsonl"));
        let mut run = fs::File::create(&run_path)?;
        let mut took = Vec::with_capacity(questions.len());
        let mut warned = false;
        for question in &questions {
            let (store, collection) = place(&question.conv_id);
            let query = Query::new(&question.question).mode(mode).limit(RANKED);
            let query = match shared {
                true => query.collection(collection),
                false => query,
            };
            let started = Instant::now();
            let results = handles[&store].search(&query)?;
            took.push(started.elapsed().as_secs_f64() * 1000.0);
            if !warned && !results.warnings.is_empty() {
                eprintln!("warning ({mode}): {}", results.warnings.join("; "));
                warned = true;
            }
            let ranked: Vec<String> =
                results.hits.iter().map(|h| h.memory.id.as_str().to_uppercase()).collect();
            writeln!(
                run,
                "{}",
                serde_json::json!({"query_id": question.query_id, "ranked": ranked})
            )?;
        }
        took.sort_by(f64::total_cmp);
        let p50 = took.get(took.len() / 2).copied().unwrap_or(f64::NAN);
        let metrics_path = out.join(format!("metrics-{mode}.json"));
        let status = Command::new("python3")
            .arg(data.join("score.py"))
            .arg("--queries")
            .arg(data.join("locomo-dev/queries.jsonl"))
            .arg("--run")
            .arg(&run_path)
            .arg("--out")
            .arg(&metrics_path)
            .stdout(std::process::Stdio::null())
            .status()?;
        if !status.success() {
            return Err(format!("the scorer failed for {mode}").into());
        }
        let metrics: serde_json::Value = serde_json::from_str(&fs::read_to_string(&metrics_path)?)?;
        let overall = &metrics["overall"];
        println!(
            "{mode:<8} R@1 {:.3}  R@5 {:.3}  R@10 {:.3}  MRR {:.3}  (p50 {p50:.1} ms/query, run {})",
            overall["recall@1"].as_f64().unwrap_or(f64::NAN),
            overall["recall@5"].as_f64().unwrap_or(f64::NAN),
            overall["recall@10"].as_f64().unwrap_or(f64::NAN),
            overall["mrr"].as_f64().unwrap_or(f64::NAN),
            run_path.display()
        );
    }
    Ok(())
}
