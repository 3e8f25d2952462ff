//! In-conversation retrieval through the public API: keywords or an agent's output with
//! `<<retrieve: ...>>` markers fetch `[Doc n]`-labelled passages into a live session, labels
//! stay stable within the session, the retrieval history records queries, labels and
//! sources, and the session's summary ends with `Sources: ...`; and the errors.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use memcore::docs::DocsIngestRequest;
use memcore::session::{SessionEndRequest, SessionStartRequest};
use memcore::{
    Backend, Category, Config, EmbeddingConfig, Memcore, NewMemory, RecallRequest, RetrieveRequest,
    SearchMode, Tier,
};

const RUNBOOK: &str = "# Queue Runbook\n\n## Diagnose\n\nCheck the consumer lag of the billing \
    queue with the describe command.\n\n## Recover\n\nRestart the billing consumers one at a \
    time, oldest first.\n";

/// A project with a runbook and a tiered store (without the model), a live session
/// `incident-7` with the agent `ops`, and one memory.
fn project() -> (tempfile::TempDir, Memcore) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("runbook.md"), RUNBOOK).unwrap();
    let config = Config {
        backend: Backend::Tiered,
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        ..Config::default()
    };
    let memcore =
        Memcore::builder().path(dir.path().join(".memcore")).config(config).open().unwrap();
    memcore.docs_ingest(&DocsIngestRequest::new(["runbook.md"])).unwrap();
    memcore.put(NewMemory::new("The billing consumers were last restarted by Ann.")).unwrap();
    let start = SessionStartRequest::new("incident-7");
    memcore.session_start(&start.agents(["ops"])).unwrap();
    (dir, memcore)
}

fn text(request: RetrieveRequest) -> RetrieveRequest {
    request.mode(SearchMode::Text)
}

#[test]
fn retrieved_passages_are_labelled_appended_and_recorded() {
    let (_dir, memcore) = project();
    let asked = text(RetrieveRequest::keywords("incident-7", "consumer lag describe")).limit(1);
    let first = memcore.retrieve(&asked).unwrap();
    let passage = &first.passages[0];
    assert_eq!((passage.label.as_str(), passage.tier), ("Doc 1", Tier::Warm));
    assert_eq!(passage.document.as_deref(), Some("runbook.md"));
    assert!(passage.text.contains("Check the consumer lag"), "{passage:?}");
    assert!(first.context.starts_with("[Doc 1] Queue Runbook"), "{}", first.context);

    // An agent's output: each marker is a query; a source keeps its label.
    let output = "Let me look. <<retrieve: restart billing consumers>> and \
                  <<retrieve: consumer lag describe>> `<<retrieve: not this>>`";
    let second =
        memcore.retrieve(&text(RetrieveRequest::output("incident-7", output)).limit(2)).unwrap();
    assert_eq!(second.queries, ["restart billing consumers", "consumer lag describe"]);
    let labels: Vec<&str> = second.passages.iter().map(|p| p.label.as_str()).collect();
    assert!(
        labels.contains(&"Doc 2") && labels.contains(&"M1") && labels.contains(&"Doc 1"),
        "{labels:?}"
    );

    // The session's context holds the passages; its history the queries, labels, sources.
    let live = memcore.session_live("incident-7").unwrap();
    let doc1 = live.evidence.iter().find(|e| e.label == "Doc 1").unwrap();
    assert!(doc1.text.contains("Check the consumer lag"));
    assert_eq!(live.retrievals.len(), 3);
    assert_eq!(live.retrievals[0].query, "consumer lag describe");
    assert_eq!(live.retrievals[0].labels, ["Doc 1"]);
    assert_eq!(live.retrievals[0].sources, std::slice::from_ref(&passage.source));

    // An output without markers retrieves nothing and records nothing.
    let none = memcore.retrieve(&RetrieveRequest::output("incident-7", "All done.")).unwrap();
    assert!(none.queries.is_empty() && none.passages.is_empty() && none.context.is_empty());
    assert_eq!(memcore.session_live("incident-7").unwrap().retrievals.len(), 3);

    memcore.session_end(&SessionEndRequest::new("incident-7")).unwrap();
    let summary = memcore.get("sessions/incident-7").unwrap().content;
    let last = summary.trim_end().lines().last().unwrap();
    assert!(last.starts_with("Sources: Doc 1, "), "{summary}");
    assert!(last.contains("M1") && last.contains("Doc 2"), "{summary}");
}

#[test]
fn a_recall_labels_documents_chunks_doc_n() {
    let (_dir, memcore) = project();
    let recalled =
        memcore.recall(&RecallRequest::new("billing consumers").mode(SearchMode::Text)).unwrap();
    let labels: Vec<&str> = recalled.hits.iter().map(|h| h.label.as_str()).collect();
    assert!(labels.contains(&"Doc 1") && labels.contains(&"M1"), "{labels:?}");
    let doc = recalled.hits.iter().find(|h| h.label == "Doc 1").unwrap();
    assert_eq!(doc.document.as_deref(), Some("runbook.md"));
}

#[test]
fn bad_retrievals_are_typed_errors() {
    let (dir, memcore) = project();
    let category = |request: RetrieveRequest| memcore.retrieve(&request).unwrap_err().category();
    assert_eq!(category(RetrieveRequest::keywords("no-such", "lag")), Category::NotFound);
    assert_eq!(category(RetrieveRequest::keywords("incident-7", "  ")), Category::Validation);
    let marker = RetrieveRequest::output("incident-7", "see <<retrieve: >>");
    assert_eq!(category(marker), Category::Validation);
    let mut both = RetrieveRequest::keywords("incident-7", "lag");
    both.output = Some("<<retrieve: lag>>".into());
    assert_eq!(category(both), Category::Validation);
    let outsider = RetrieveRequest::keywords("incident-7", "lag").agent("nobody");
    assert_eq!(category(outsider), Category::Validation);
    assert_eq!(memcore.session_live("incident-7").unwrap().retrievals.len(), 0);

    let plain = Memcore::builder().path(dir.path().join("plain")).open().unwrap();
    let unsupported = plain.retrieve(&RetrieveRequest::keywords("incident-7", "lag")).unwrap_err();
    assert_eq!(unsupported.category(), Category::Unsupported);
}
