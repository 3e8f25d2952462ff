//! An agent loop with memory: for each user turn of a scripted conversation, compose the
//! memory context for the prompt within a token budget, let the model answer from it (citing
//! the `[M1]`-labelled memories it used), then capture what the turn said worth keeping.
//!
//! ```text
//! cargo run --example agent_loop [STORE_DIR]
//! ```
//!
//! The model is a deterministic stand-in ([`stand_in_model`]) so the loop runs offline and
//! the same every time: it answers with the labelled memory of the context that shares the
//! most words with the question. Put a real model call in its place. The conversation is
//! `examples/conversation.txt`, the one the Python and C loops read too.

use std::io::Write;
use std::path::Path;

use memcore::Memcore;
use memcore::capture::CaptureRequest;
use memcore::compose::ComposeRequest;

/// The token budget of the memory context in each prompt.
const BUDGET: usize = 300;

/// Plays `examples/conversation.txt` on the store in the directory given, or in a temporary
/// one.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let temp;
    let root = match std::env::args_os().nth(1) {
        Some(dir) => std::path::PathBuf::from(dir),
        None => {
            temp = tempfile::tempdir()?;
            temp.path().join("memories")
        }
    };
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/conversation.txt");
    run(&root, &std::fs::read_to_string(script)?, &mut std::io::stdout().lock())
}

/// Plays `conversation` (one user turn per line) against the store at `root`, writing the
/// exchange to `out`.
pub(crate) fn run(
    root: &Path,
    conversation: &str,
    out: &mut dyn Write,
) -> Result<(), Box<dyn std::error::Error>> {
    let memcore = Memcore::open(root)?;
    let turns =
        conversation.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'));
    for turn in turns {
        // 1. The prompt's memory context: working memory and what the turn is about.
        let context = memcore.compose(&ComposeRequest::new(turn).budget(BUDGET))?;
        // 2. The model answers from it, citing labels.
        let reply = stand_in_model(&context.text, turn);
        // 3. What the user said worth keeping is stored for the next turns.
        let captured =
            memcore.capture(&CaptureRequest::new(turn).created_by("user").apply(true))?;
        writeln!(out, "user: {turn}")?;
        writeln!(
            out,
            "  context: {} memories, {}/{BUDGET} tokens",
            context.items.len(),
            context.tokens
        )?;
        writeln!(out, "  agent: {reply}")?;
        for stored in &captured.stored {
            writeln!(out, "  remembered: {stored}")?;
        }
    }
    Ok(())
}

/// A deterministic stand-in for a language model: the first line of the labelled memory in
/// `context` sharing the most words (five letters or more) with `question`, cited by its
/// label; at least two words must match.
fn stand_in_model(context: &str, question: &str) -> String {
    let asked = words(question);
    let mut best: Option<(usize, &str, &str)> = None;
    let mut lines = context.lines();
    while let Some(line) = lines.next() {
        let Some(label) =
            line.strip_prefix("<memory label=\"").and_then(|rest| rest.split('"').next())
        else {
            continue;
        };
        let content: Vec<&str> = lines.by_ref().take_while(|l| *l != "</memory>").collect();
        let shared = words(&content.join(" ")).iter().filter(|w| asked.contains(w)).count();
        if shared >= 2 && best.is_none_or(|(most, ..)| shared > most) {
            best = Some((shared, label, content.first().copied().unwrap_or_default()));
        }
    }
    match best {
        Some((_, label, first_line)) => format!("{first_line} [{label}]"),
        None => "I have nothing on that yet.".to_owned(),
    }
}

/// The distinct lower-case words of five letters or more in `text`.
fn words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| word.len() >= 5)
        .map(str::to_ascii_lowercase)
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}
