//! Context composition through the public API, on a real store with the real model: working
//! memory (pinned, active blockers, recent decisions), semantic context, deduplication, the
//! budget never exceeded (by either tokenizer), labels, formats, the manifest, bad budgets.
//!
//! Needs the model files (`scripts/fetch-models`; `scripts/test-all` runs it first).

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use memcore::compose::{
    BudgetTier, CandidateSource, ComposeRequest, ContextFormat, Outcome, Section, TokenCounter,
    Tokenizer,
};
use memcore::{Category, Memcore, NewMemory, Status, Timestamp};

/// A store whose clock moves a minute per call, with a project's memories.
fn project(dir: &std::path::Path) -> Memcore {
    let tick = Arc::new(AtomicI64::new(0));
    let start = memcore::parse_timestamp("2026-01-15T10:00:00Z").unwrap();
    let memcore = Memcore::builder()
        .path(dir)
        .clock(move || start + chrono::Duration::minutes(tick.fetch_add(1, Ordering::SeqCst)))
        .open()
        .unwrap();
    let memories = [
        NewMemory::new("We use Postgres 16 for the main database because of JSONB.")
            .collection("decisions")
            .id("use-postgres")
            .kind("decision"),
        NewMemory::new("Deploys go through the blue-green pipeline on Fridays only.")
            .collection("decisions")
            .id("deploy-fridays")
            .kind("decision"),
        NewMemory::new("The API is written in Rust with axum and tokio.")
            .collection("decisions")
            .id("api-rust")
            .kind("decision"),
        NewMemory::new("Blocked by the expired TLS certificate on the staging load balancer.")
            .collection("blockers")
            .id("tls-cert")
            .kind("blocker"),
        NewMemory::new("Waiting on the vendor for the payments sandbox keys.")
            .collection("blockers")
            .id("sandbox-keys")
            .kind("blocker")
            .status(Status::Resolved),
        NewMemory::new("Never run migrations by hand on production; use the migrate job.")
            .collection("rules")
            .id("no-manual-migrations")
            .importance(1.0),
        NewMemory::new(
            "The deploy pipeline builds a container, runs smoke tests, then flips traffic.",
        )
        .collection("notes")
        .id("deploy-pipeline"),
        NewMemory::new("Grafana dashboards live in the ops repository under dashboards/.")
            .collection("notes")
            .id("grafana"),
    ];
    for memory in memories {
        memcore.put(memory).unwrap();
    }
    memcore
}

fn refs(context: &memcore::compose::ComposedContext, source: CandidateSource) -> Vec<String> {
    context
        .manifest
        .iter()
        .filter(|e| e.source == source)
        .map(|e| e.reference.to_string())
        .collect()
}

#[test]
fn working_memory_and_semantic_context_are_labelled_and_explained() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = project(dir.path());
    let context = memcore
        .compose(&ComposeRequest::new("how does the deploy pipeline work?").budget(2000))
        .unwrap();
    assert!(context.tokens <= 2000);
    assert_eq!(refs(&context, CandidateSource::Pinned), ["rules/no-manual-migrations"]);
    assert_eq!(
        refs(&context, CandidateSource::Blocker),
        ["blockers/tls-cert"],
        "resolved blockers are not working memory"
    );
    assert_eq!(
        refs(&context, CandidateSource::Decision),
        ["decisions/api-rust", "decisions/deploy-fridays", "decisions/use-postgres"],
        "newest first"
    );
    let search = refs(&context, CandidateSource::Search);
    assert!(search[..2].contains(&"notes/deploy-pipeline".to_owned()), "{search:?}");
    // A search hit already in working memory is a duplicate, named as such.
    for entry in context.manifest.iter().filter(|e| e.source == CandidateSource::Search) {
        let in_working = refs(&context, CandidateSource::Decision)
            .contains(&entry.reference.to_string())
            || refs(&context, CandidateSource::Pinned).contains(&entry.reference.to_string())
            || refs(&context, CandidateSource::Blocker).contains(&entry.reference.to_string());
        assert_eq!(entry.outcome == Outcome::Duplicate, in_working, "{entry:?}");
        assert!(entry.parts.is_some() && entry.score.is_some());
    }
    // Labels in order, each in the text with its ref.
    for (n, item) in context.items.iter().enumerate() {
        assert_eq!(item.label, format!("M{}", n + 1));
        assert!(
            context.text.contains(&format!("label=\"{}\" ref=\"{}\"", item.label, item.reference))
        );
    }
    assert!(context.text.starts_with("<memory_context>\n<working_memory>\n"));
    assert!(context.items.iter().any(|i| i.section == Section::Semantic));
    let again = memcore
        .compose(&ComposeRequest::new("how does the deploy pipeline work?").budget(2000))
        .unwrap();
    assert_eq!((again.text, again.manifest), (context.text, context.manifest), "deterministic");
}

#[test]
fn a_tight_budget_cuts_and_leaves_out_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = project(dir.path());
    let request =
        ComposeRequest::new("deploy pipeline").budget(120).format(ContextFormat::Markdown);
    let context = memcore.compose(&request).unwrap();
    assert!(context.tokens <= 120, "{}", context.tokens);
    assert!(context.text.starts_with("# Memory context\n\n## Working memory\n\n### [M1]"));
    assert!(context.manifest.iter().any(|e| e.outcome == Outcome::OverBudget));
    for entry in &context.manifest {
        assert!(
            entry.budget_left <= 120 && entry.tokens_used <= entry.tokens.max(entry.tokens_used)
        );
    }
    let used: usize = context.items.iter().map(|i| i.tokens).sum();
    assert!(used <= context.tokens);
}

#[test]
fn tiers_modes_and_the_exact_tokenizer_keep_within_budget() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = project(dir.path());
    let simple =
        memcore.compose(&ComposeRequest::new("database").tier(BudgetTier::Simple)).unwrap();
    assert_eq!(
        (simple.budget.total, simple.budget.working, simple.budget.semantic),
        (500, 300, 100)
    );
    let adaptive = memcore.compose(&ComposeRequest::new("database")).unwrap();
    assert_eq!(adaptive.budget.tier, Some(BudgetTier::Simple), "8 memories is a simple project");
    let exact = memcore
        .compose(&ComposeRequest::new("database").budget(150).tokenizer(Tokenizer::Cl100k))
        .unwrap();
    assert!(Tokenizer::Cl100k.counter().count(&exact.text) <= 150);
    assert_eq!(exact.tokens, memcore::compose::Cl100kCounter.count(&exact.text));
    let mut no_working = ComposeRequest::new("grafana dashboards").budget(400);
    no_working.no_working_memory = true;
    let context = memcore.compose(&no_working).unwrap();
    assert!(context.manifest.iter().all(|e| e.section == Section::Semantic));
}

#[test]
fn budgets_below_one_item_and_bad_requests_are_validation_errors() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = project(dir.path());
    for budget in [0, 10] {
        let err = memcore.compose(&ComposeRequest::new("database").budget(budget)).unwrap_err();
        assert_eq!(err.category(), Category::Validation, "{err}");
    }
    let both = ComposeRequest::new("x").budget(500).tier(BudgetTier::Full);
    assert_eq!(memcore.compose(&both).unwrap_err().category(), Category::Validation);
    let mut many = ComposeRequest::new("x");
    many.candidates = Some(10_000);
    assert_eq!(memcore.compose(&many).unwrap_err().category(), Category::Validation);
    let parsed =
        memcore.call("compose", serde_json::json!({"query": "x", "budget": "lots"})).unwrap_err();
    assert_eq!(parsed.category(), Category::Validation);
}

#[test]
fn an_empty_store_composes_an_empty_frame() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    let context = memcore.compose(&ComposeRequest::new("anything").budget(300)).unwrap();
    assert!(context.items.is_empty() && context.manifest.is_empty());
    assert_eq!(
        context.text,
        "<memory_context>\n<working_memory>\n</working_memory>\n<semantic_context>\n</semantic_context>\n</memory_context>\n"
    );
    let _: Timestamp = context.composed_at;
}
