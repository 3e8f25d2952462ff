//! How the chunk size of documents changes what search finds: the LoCoMo development
//! conversations (`../shared/eval/`) written as one markdown document each (a `##` section
//! per session, a paragraph per turn), ingested at several chunk sizes with the real model,
//! and every scorable question searched (hybrid) within its conversation's document. A
//! question counts as found when one of the top 5 chunks holds one of its evidence turns;
//! the table also gives what the top 5 cost a prompt, in characters.
//!
//! ```text
//! scripts/fetch-models
//! cargo run --release --example docs_chunk_eval -- [--sizes 300,600,1000,1500] [--data DIR]
//! ```
//!
//! The data is licensed for evaluation only: it is read in place and the documents are
//! written to a temporary directory, never into the repository.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::time::Instant;

use memcore::Memcore;
use memcore::docs::{DocsIngestRequest, DocsSearchRequest};
use serde::Deserialize;

/// Chunks read per question.
const TOP: usize = 5;

#[derive(Debug, Deserialize)]
struct Turn {
    conv_id: String,
    session: u32,
    session_date_time: String,
    dia_id: String,
    speaker: String,
    text: String,
}

#[derive(Debug, Deserialize)]
struct Question {
    conv_id: String,
    question: String,
    evidence: Vec<String>,
    scorable: bool,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut sizes = vec![300, 600, 1000, 1500];
    let mut data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/eval");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--sizes" => {
                let list = args.next().ok_or("--sizes needs a list")?;
                sizes = list.split(',').map(str::parse).collect::<Result<_, _>>()?;
            }
            "--data" => data = PathBuf::from(args.next().ok_or("--data needs a directory")?),
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let turns: Vec<Turn> = read_jsonl(&data.join("locomo-dev/memories.jsonl"))?;
    let questions: Vec<Question> = read_jsonl(&data.join("locomo-dev/queries.jsonl"))?;
    let questions: Vec<Question> =
        questions.into_iter().filter(|q| q.scorable && !q.evidence.is_empty()).collect();

    // One document per conversation; the start of each turn's line, to find it in a chunk.
    let project = tempfile::tempdir()?;
    let mut documents: BTreeMap<&str, String> = BTreeMap::new();
    let mut lines: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut last_session: BTreeMap<&str, u32> = BTreeMap::new();
    for turn in &turns {
        let document = documents
            .entry(&turn.conv_id)
            .or_insert_with(|| format!("# Conversation {}\n\n", turn.conv_id));
        if last_session.insert(&turn.conv_id, turn.session) != Some(turn.session) {
            document
                .push_str(&format!("## Session {} ({})\n\n", turn.session, turn.session_date_time));
        }
        let line = format!("{}: {}", turn.speaker, turn.text.trim());
        document.push_str(&line);
        document.push_str("\n\n");
        // A chunk holding the turn's first 80 characters holds the turn (a long turn may be
        // split across chunks at the smaller sizes).
        let probe: String = line.chars().take(80).collect();
        lines.insert((turn.conv_id.clone(), turn.dia_id.clone()), probe);
    }
    for (conv, text) in &documents {
        fs::write(project.path().join(format!("{conv}.md")), text)?;
    }
    let paths: Vec<String> = documents.keys().map(|conv| format!("{conv}.md")).collect();
    let bytes: usize = documents.values().map(String::len).sum();
    println!(
        "{} conversations ({:.0} KB), {} scorable questions, top {TOP} chunks",
        documents.len(),
        bytes as f64 / 1e3,
        questions.len()
    );
    println!(
        "| chunk size | chunks | found in top {TOP} | characters in top {TOP} (mean) | ingest s | search p50 ms |"
    );
    println!("| --- | --- | --- | --- | --- | --- |");

    for size in sizes {
        let store = project.path().join(format!("store-{size}"));
        let memcore = Memcore::open(&store)?;
        let started = Instant::now();
        let mut request = DocsIngestRequest::new(paths.clone());
        request.root = Some(project.path().display().to_string());
        request.chunk_size = Some(size);
        let report = memcore.docs_ingest(&request)?;
        let ingest = started.elapsed().as_secs_f64();
        let chunks: usize = report.documents.iter().map(|d| d.document.chunks.len()).sum();
        let (mut found, mut characters) = (0, 0);
        let mut latencies = Vec::new();
        for question in &questions {
            let mut search = DocsSearchRequest::new(question.question.clone()).limit(TOP);
            search.documents = vec![format!("{}.md", question.conv_id)];
            let asked = Instant::now();
            let hits = memcore.docs_search(&search)?;
            latencies.push(asked.elapsed().as_secs_f64() * 1e3);
            characters += hits.hits.iter().map(|h| h.text.chars().count()).sum::<usize>();
            let evidence: Vec<&String> = question
                .evidence
                .iter()
                .filter_map(|id| lines.get(&(question.conv_id.clone(), id.clone())))
                .collect();
            if hits.hits.iter().any(|h| evidence.iter().any(|line| h.text.contains(line.as_str())))
            {
                found += 1;
            }
        }
        latencies.sort_by(f64::total_cmp);
        println!(
            "| {size} | {chunks} | {:.3} | {:.0} | {ingest:.1} | {:.1} |",
            found as f64 / questions.len() as f64,
            characters as f64 / questions.len() as f64,
            latencies[latencies.len() / 2]
        );
    }
    Ok(())
}

fn read_jsonl<T: for<'de> Deserialize<'de>>(
    path: &std::path::Path,
) -> Result<Vec<T>, Box<dyn std::error::Error>> {
    let file = fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut items = Vec::new();
    for line in BufReader::new(file).lines() {
        items.push(serde_json::from_str(&line?)?);
    }
    Ok(items)
}
