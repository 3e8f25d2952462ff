//! memcore's main job in one program: an agent stores what it learned, refines it, searches
//! it (hybrid: BM25 + local embeddings), and pulls the best match back into a prompt.
//!
//! ```text
//! cargo run --example quickstart [STORE_DIR]
//! ```
//!
//! With no argument the store goes to a fresh temporary directory; give a directory to keep
//! it (it is plain markdown: look inside).

use memcore::compose::ComposeRequest;
use memcore::{Format, ListOptions, Memcore, MemoryUpdate, NewMemory, Query};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let temp;
    let root = match std::env::args_os().nth(1) {
        Some(dir) => std::path::PathBuf::from(dir),
        None => {
            temp = tempfile::tempdir()?;
            temp.path().join("memories")
        }
    };
    let memcore = Memcore::open(&root)?;
    println!("store: {}\n", root.display());

    // 1. Store what the agent learned during a session.
    let notes = [
        (
            "knowledge",
            "# GPU Acceleration Patterns\n\nPrefer Metal on Apple silicon; batch small kernels \
             to hide launch latency.",
            &["gpu", "performance"][..],
        ),
        (
            "decisions",
            "# Use tantivy for full-text search\n\nBM25 in-process beats running a search server \
             for an embedded library.",
            &["search", "architecture"][..],
        ),
        (
            "knowledge",
            "# Flaky CI on macOS\n\nThe integration tests time out when the runner is cold; \
             warm the cache first.",
            &["ci", "testing"][..],
        ),
    ];
    for (collection, content, tags) in notes {
        let stored = memcore.put(
            NewMemory::new(content)
                .collection(collection)
                .tags(tags.iter().copied())
                .created_by("quickstart-agent")
                .context("learned while building memcore"),
        )?;
        println!("stored  {}/{} (version {})", stored.collection, stored.id, stored.version);
    }

    // 2. Knowledge evolves: update in place; the old version is kept in history.
    let updated = memcore.update(
        "knowledge/gpu-acceleration-patterns",
        MemoryUpdate::new()
            .content(
                "# GPU Acceleration Patterns\n\nPrefer Metal on Apple silicon and CUDA graphs \
                 on NVIDIA; batch small kernels to hide launch latency.",
            )
            .tags(["cuda"])
            .merge_tags(true),
    )?;
    println!("updated {}/{} (version {})\n", updated.collection, updated.id, updated.version);

    // 3. List with a seed-000 filter.
    let listing = memcore.list(&ListOptions::new().filter("tags=gpu,ci")?)?;
    println!("memories tagged gpu or ci:");
    for summary in &listing.memories {
        println!(
            "  {:<10} {:<28} v{}  [{}]",
            summary.collection,
            summary.id,
            summary.version,
            summary.tags.join(", ")
        );
    }

    // 4. Search by meaning and keywords (hybrid: BM25 and embeddings fused by rank).
    let question = "how do I make my GPU code faster?";
    let results = memcore.search(&Query::new(question).limit(3))?;
    println!("\nsearch ({}): {question}", results.mode);
    for warning in &results.warnings {
        println!("  warning: {warning}");
    }
    for hit in &results.hits {
        let similarity = hit.parts.vector_similarity.map_or("-".into(), |s| format!("{s:.2}"));
        let text_rank = hit.parts.text_rank.map_or("-".into(), |r| r.to_string());
        println!(
            "  {:.4}  {}/{}  (similarity {similarity}, text rank {text_rank})",
            hit.score, hit.memory.collection, hit.memory.id
        );
    }

    // 5. Pull the best match back into a prompt.
    let best = results.hits.first().ok_or("no search results")?;
    let memory = memcore.get(&best.memory)?;
    println!("\n--- context block for the prompt ---\n{}", memory.render(Format::Context));
    println!("\n--- history of {} ---", memory.id);
    for version in memcore.versions(&memory)? {
        let marker = if version.current { " (current)" } else { "" };
        println!("  v{} at {}{marker}", version.rev, version.timestamp.to_rfc3339());
    }

    // 6. Or let memcore assemble the whole block within a token budget: working memory and
    //    what the question finds, each labelled [M1].. for citation, with a manifest of why.
    let context = memcore.compose(&ComposeRequest::new(question).budget(300))?;
    println!(
        "\n--- composed context ({} of {} tokens) ---\n{}",
        context.tokens, context.budget.total, context.text
    );
    for entry in &context.manifest {
        let label = entry.label.as_deref().unwrap_or("--");
        println!(
            "  {label:<3} {:<32} {:?} #{} -> {:?}",
            entry.reference.to_string(),
            entry.source,
            entry.rank,
            entry.outcome
        );
    }
    Ok(())
}
