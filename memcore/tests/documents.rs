//! Documents through the public API: ingest, re-ingest, change, rebuild, purge, feedback,
//! search with places, bad input, and an ingest that died part-way. Full text only, but for
//! one test with the real model (a purge must leave no vector behind either).

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

mod counted;

use std::fs;
use std::path::{Path, PathBuf};

use memcore::docs::{
    DocsFeedbackRequest, DocsIngestRequest, DocsListRequest, DocsPurgeRequest, DocsRebuildRequest,
    DocsSearchRequest, IngestOutcome,
};
use memcore::{Category, Config, EmbeddingConfig, Memcore, NewMemory, SearchMode};

const RUNBOOK: &str = "# Queue Runbook\n\nWhat to do when the billing queue backs up.\n\n\
    ## Diagnose\n\nCheck the consumer lag first with the describe command.\n\n\
    ```sh\nkafka-consumer-groups --describe --group billing\n```\n\n\
    ## Recover\n\nRestart the consumers one at a time, oldest first.\n";

/// A project directory with the store in `.memcore` and files written by the tests.
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Self {
        Self { dir: tempfile::tempdir().unwrap() }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn store(&self) -> PathBuf {
        self.root().join(".memcore")
    }

    fn write(&self, name: &str, text: impl AsRef<[u8]>) {
        let path = self.root().join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// The store without the model: full-text search.
    fn open(&self) -> Memcore {
        let config = Config {
            embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
            ..Config::default()
        };
        Memcore::builder().path(self.store()).config(config).open().unwrap()
    }
}

fn ingest(memcore: &Memcore, paths: &[&str], size: usize) -> Vec<IngestOutcome> {
    let request = DocsIngestRequest::new(paths.iter().copied()).chunking(size, 0);
    let report = memcore.docs_ingest(&request).unwrap();
    report.documents.iter().map(|d| d.outcome).collect()
}

fn chunk_count(memcore: &Memcore) -> usize {
    let options = memcore::ListOptions::new().collection("docs");
    memcore.list(&options).unwrap().memories.len()
}

/// Every file under `dir` whose bytes hold `needle`.
fn files_holding(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_holding(&path, needle));
        } else if let Ok(bytes) = fs::read(&path)
            && bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
        {
            found.push(path);
        }
    }
    found
}

#[test]
fn ingest_stores_chunks_that_know_their_place_and_search_finds_them() {
    let project = Project::new();
    project.write("ops/runbook.md", RUNBOOK);
    let memcore = project.open();
    assert_eq!(ingest(&memcore, &["ops/runbook.md"], 120), [IngestOutcome::Added]);

    let listing = memcore.docs_list(&DocsListRequest::default()).unwrap();
    let record = &listing.documents[0];
    assert_eq!((record.id.as_str(), record.source.as_str()), ("ops-runbook.md", "ops/runbook.md"));
    assert_eq!(record.title, "Queue Runbook");
    assert_eq!(record.chunks.len(), 4, "{record:?}");
    assert_eq!(chunk_count(&memcore), 4);
    let chunk = memcore.get(&record.chunks[2]).unwrap();
    assert_eq!(chunk.title, "Queue Runbook › Diagnose");
    assert!(chunk.content.starts_with("```sh"), "code blocks stay whole: {}", chunk.content);

    let hits = memcore
        .docs_search(&DocsSearchRequest::new("restart consumers oldest").mode(SearchMode::Text))
        .unwrap();
    let hit = &hits.hits[0];
    assert_eq!((hit.document.as_str(), hit.position, hit.chunks), ("ops-runbook.md", 3, 4));
    assert_eq!(hit.heading_path, ["Queue Runbook", "Recover"]);
    assert!(hit.text.contains("oldest first"));
    assert_eq!(hit.reference, record.chunks[3]);
}

#[test]
fn re_ingesting_an_unchanged_document_writes_nothing() {
    let project = Project::new();
    project.write("runbook.md", RUNBOOK);
    let memcore = project.open();
    ingest(&memcore, &["runbook.md"], 120);
    let before = memcore.get("documents/runbook.md").unwrap();
    assert_eq!(ingest(&memcore, &["runbook.md"], 120), [IngestOutcome::Unchanged]);
    let after = memcore.get("documents/runbook.md").unwrap();
    assert_eq!((after.version, after.updated_at), (before.version, before.updated_at));
    assert_eq!(chunk_count(&memcore), 4);
}

#[test]
fn a_changed_document_replaces_exactly_its_chunks() {
    let project = Project::new();
    project.write("runbook.md", RUNBOOK);
    project.write("other.md", "# Other\n\nUnrelated notes about lunch.\n");
    let memcore = project.open();
    ingest(&memcore, &["runbook.md", "other.md"], 120);
    let old = memcore.docs_list(&DocsListRequest::default()).unwrap().documents;

    project.write("runbook.md", RUNBOOK.replace("oldest first", "newest first zebra"));
    assert_eq!(ingest(&memcore, &["runbook.md"], 120), [IngestOutcome::Replaced]);
    let new = memcore.document("runbook.md").unwrap();
    assert_ne!(new.generation, old[1].generation);
    for gone in &old[1].chunks {
        assert_eq!(memcore.get(gone).unwrap_err().category(), Category::NotFound);
    }
    assert_eq!(chunk_count(&memcore), new.chunks.len() + old[0].chunks.len());
    assert!(files_holding(&project.store(), "oldest first").is_empty(), "old chunks left a copy");
    let hits =
        memcore.docs_search(&DocsSearchRequest::new("zebra").mode(SearchMode::Text)).unwrap();
    assert_eq!(hits.hits.len(), 1);

    // New tags are a change too: every chunk carries them.
    let tagged = DocsIngestRequest::new(["runbook.md"]).chunking(120, 0).tags(["ops"]);
    let report = memcore.docs_ingest(&tagged).unwrap();
    assert_eq!(report.documents[0].outcome, IngestOutcome::Replaced);
    let chunk = memcore.get(&report.documents[0].document.chunks[0]).unwrap();
    assert_eq!(chunk.tags, ["ops"]);
}

#[test]
fn rebuild_splits_again_from_the_files() {
    let project = Project::new();
    project.write("runbook.md", RUNBOOK);
    let memcore = project.open();
    ingest(&memcore, &["runbook.md"], 120);
    let unchanged = memcore.docs_rebuild(&DocsRebuildRequest::default()).unwrap();
    assert_eq!(unchanged.documents[0].outcome, IngestOutcome::Unchanged);

    let mut request = DocsRebuildRequest::default();
    request.chunk_size = Some(1000);
    let report = memcore.docs_rebuild(&request).unwrap();
    assert_eq!(report.documents[0].outcome, IngestOutcome::Replaced);
    assert_eq!(report.documents[0].document.chunks.len(), 3, "one per section");
    assert_eq!(chunk_count(&memcore), 3);

    fs::remove_file(project.root().join("runbook.md")).unwrap();
    let err = memcore.docs_rebuild(&DocsRebuildRequest::default()).unwrap_err();
    assert_eq!(err.category(), Category::NotFound, "{err}");
    assert!(err.recovery().contains("purge"), "{}", err.recovery());
}

#[test]
fn purge_leaves_no_trace_in_any_file() {
    let project = Project::new();
    project.write("secret.md", "# Secret Plan\n\nThe launch codeword is xylophonic.\n");
    project.write("kept.md", "# Kept\n\nThis one stays.\n");
    let memcore = project.open();
    ingest(&memcore, &["secret.md", "kept.md"], 1000);
    project.write("secret.md", "# Secret Plan\n\nThe launch codeword is xylophonic, twice.\n");
    ingest(&memcore, &["secret.md"], 1000);
    memcore.docs_feedback(&DocsFeedbackRequest::new("secret.md", 4)).unwrap();
    drop(fs::remove_file(project.root().join("secret.md")));

    let purged = memcore.docs_purge(&DocsPurgeRequest::new("secret.md"));
    let purged = purged.unwrap();
    assert_eq!((purged.chunks, purged.feedback), (1, 1));
    assert!(files_holding(&project.store(), "xylophonic").is_empty());
    assert!(files_holding(&project.store(), "secret.md").is_empty());
    let listing = memcore.docs_list(&DocsListRequest::default()).unwrap();
    assert_eq!(listing.documents.len(), 1);
    let again = memcore.docs_purge(&DocsPurgeRequest::new("secret.md"));
    assert_eq!(again.unwrap_err().category(), Category::NotFound);
    assert!(memcore.verify().unwrap().is_consistent());
}

#[test]
fn purge_with_the_model_leaves_no_vector_behind() {
    let project = Project::new();
    project.write("secret.md", "# Secret Plan\n\nThe launch codeword is xylophonic.\n");
    let memcore =
        Memcore::builder().path(project.store()).embedder(counted::model()).open().unwrap();
    ingest(&memcore, &["secret.md"], 1000);
    let hits = memcore.docs_search(&DocsSearchRequest::new("launch codeword")).unwrap();
    assert_eq!(hits.mode, SearchMode::Hybrid);
    assert_eq!(hits.hits[0].document, "secret.md");
    memcore.docs_purge(&DocsPurgeRequest::new("secret.md")).unwrap();
    assert!(files_holding(&project.store(), "secret.md").is_empty());
    assert!(files_holding(&project.store(), "xylophonic").is_empty());
}

#[test]
fn feedback_is_appended_and_can_nudge_the_ranking() {
    let project = Project::new();
    project.write("a.md", "# Alpha\n\nDeploy the service with the deploy script.\n");
    project.write("b.md", "# Beta\n\nDeploy the service with the deploy script too.\n");
    let memcore = project.open();
    ingest(&memcore, &["a.md", "b.md"], 1000);
    let search = |prior: bool| {
        let mut request = DocsSearchRequest::new("deploy service").mode(SearchMode::Text);
        request.feedback_prior = prior;
        let hits = memcore.docs_search(&request).unwrap().hits;
        hits.iter().map(|h| h.document.clone()).collect::<Vec<_>>()
    };
    let plain = search(false);
    let (worse, better) = (plain[0].clone(), plain[1].clone());
    for _ in 0..2 {
        memcore.docs_feedback(&DocsFeedbackRequest::new(&worse, 1)).unwrap();
    }
    memcore.docs_feedback(&DocsFeedbackRequest::new(&better, 5).chunk(0)).unwrap();
    let listed = memcore.list(&memcore::ListOptions::new().collection("doc-feedback")).unwrap();
    assert_eq!(listed.memories.len(), 3, "each rating is its own record");
    assert_eq!(search(false), plain, "off by default");
    assert_eq!(search(true), [better, worse]);

    let bad = memcore.docs_feedback(&DocsFeedbackRequest::new("a.md", 6)).unwrap_err();
    assert_eq!(bad.category(), Category::Validation);
    let bad = memcore.docs_feedback(&DocsFeedbackRequest::new("a.md", 3).chunk(9)).unwrap_err();
    assert_eq!(bad.category(), Category::Validation);
    let unknown = memcore.docs_feedback(&DocsFeedbackRequest::new("nope.md", 3)).unwrap_err();
    assert_eq!(unknown.category(), Category::NotFound);
}

#[test]
fn bad_files_are_refused_before_anything_is_written() {
    let project = Project::new();
    project.write("good.md", RUNBOOK);
    project.write("binary.pdf", b"%PDF-1.7\n\0\x01\x02");
    project.write("latin1.txt", b"caf\xe9 au lait");
    project.write("blank.md", "\n  \n");
    project.write("big.txt", "word ".repeat(1000));
    project.write("Good.MD", "# Shadow\n\nSame id as good.md.\n");
    std::os::unix::fs::symlink(project.root().join("good.md"), project.root().join("link.md"))
        .unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("far.md"), "# Far\n\nAway.\n").unwrap();
    let memcore = project.open();

    let far = outside.path().join("far.md").display().to_string();
    let cases: [(&[&str], Category); 8] = [
        (&["good.md", "binary.pdf"], Category::Validation),
        (&["good.md", "latin1.txt"], Category::Validation),
        (&["good.md", "blank.md"], Category::Validation),
        (&["good.md", "link.md"], Category::Validation),
        (&["good.md", "../x/far.md"], Category::Validation),
        (&["good.md", far.as_str()], Category::Validation),
        (&["good.md", "gone.md"], Category::NotFound),
        (&["good.md", "Good.MD"], Category::Validation),
    ];
    for (paths, category) in cases {
        let err = memcore.docs_ingest(&DocsIngestRequest::new(paths.iter().copied())).unwrap_err();
        assert_eq!(err.category(), category, "{paths:?}: {err}");
        assert!(!err.recovery().is_empty());
    }
    // A 200 MB file (sparse: no disk used) is refused by its size, before it is read.
    fs::File::create(project.root().join("huge.txt")).unwrap().set_len(200 << 20).unwrap();
    let huge = memcore.docs_ingest(&DocsIngestRequest::new(["good.md", "huge.txt"])).unwrap_err();
    assert_eq!(huge.category(), Category::Validation, "{huge}");
    assert!(huge.recovery().contains("max_bytes"), "{}", huge.recovery());
    let mut small = DocsIngestRequest::new(["good.md", "big.txt"]);
    small.max_bytes = Some(4096);
    assert_eq!(memcore.docs_ingest(&small).unwrap_err().category(), Category::Validation);
    let mut bad_size = DocsIngestRequest::new(["good.md"]);
    bad_size.chunk_size = Some(5);
    assert_eq!(memcore.docs_ingest(&bad_size).unwrap_err().category(), Category::Validation);
    let none = DocsIngestRequest::new(Vec::<String>::new());
    assert_eq!(memcore.docs_ingest(&none).unwrap_err().category(), Category::Validation);

    assert!(memcore.docs_list(&DocsListRequest::default()).unwrap().documents.is_empty());
    assert_eq!(chunk_count(&memcore), 0);

    // Once one of them is in, the other is a conflict rather than a silent replacement.
    ingest(&memcore, &["good.md"], 1000);
    let err = memcore.docs_ingest(&DocsIngestRequest::new(["Good.MD"])).unwrap_err();
    assert_eq!(err.category(), Category::Conflict, "{err}");
}

#[test]
fn an_ingest_that_died_part_way_is_finished_on_open() {
    let project = Project::new();
    project.write("runbook.md", RUNBOOK);
    let record = {
        let memcore = project.open();
        ingest(&memcore, &["runbook.md"], 120);
        // What a crash after the new chunks and before the record leaves: chunks of another
        // generation, and the pending file that announced them.
        let mut stray = NewMemory::new("A half-written chunk mentioning quokka.")
            .id("runbook.md.ffffffffffff.0000")
            .collection("docs");
        stray.metadata.insert("document".into(), "runbook.md".into());
        stray.metadata.insert("generation".into(), "ffffffffffff".into());
        stray.metadata.insert("position".into(), 0.into());
        memcore.put(stray).unwrap();
        let pending = project.store().join(".memcore/documents.pending.json");
        fs::write(pending, r#"{"documents":["runbook.md"]}"#).unwrap();
        let hits =
            memcore.docs_search(&DocsSearchRequest::new("quokka").mode(SearchMode::Text)).unwrap();
        assert!(hits.hits.is_empty(), "a chunk its record does not name is never a hit");
        memcore.document("runbook.md").unwrap()
    };
    let memcore = project.open();
    let stray = memcore.get("docs/runbook.md.ffffffffffff.0000").unwrap_err();
    assert_eq!(stray.category(), Category::NotFound);
    assert_eq!(chunk_count(&memcore), record.chunks.len());
    assert_eq!(ingest(&memcore, &["runbook.md"], 120), [IngestOutcome::Unchanged]);
}

#[test]
fn a_replacement_that_died_before_the_old_chunks_went_is_finished_on_open() {
    let project = Project::new();
    project.write("runbook.md", RUNBOOK);
    let old = {
        let memcore = project.open();
        ingest(&memcore, &["runbook.md"], 120);
        memcore.document("runbook.md").unwrap()
    };
    // What a crash after the new record and before the removal leaves: the new generation
    // written and named, the old chunks still there, the change written down.
    project.write("runbook.md", RUNBOOK.replace("oldest first", "newest first"));
    {
        let memcore = project.open();
        ingest(&memcore, &["runbook.md"], 120);
        let new = memcore.document("runbook.md").unwrap();
        for (reference, chunk) in old.chunks.iter().zip(0..) {
            let mut back = NewMemory::new(format!("old chunk {chunk} mentioning wombat"))
                .id(reference.id().as_str())
                .collection("docs");
            back.metadata.insert("document".into(), "runbook.md".into());
            back.metadata.insert("generation".into(), old.generation.clone().into());
            back.metadata.insert("position".into(), chunk.into());
            memcore.put(back).unwrap();
        }
        let pending = serde_json::json!({"documents": ["runbook.md"], "remove": old.chunks});
        fs::write(project.store().join(".memcore/documents.pending.json"), pending.to_string())
            .unwrap();
        assert_eq!(chunk_count(&memcore), old.chunks.len() + new.chunks.len());
    }
    let memcore = project.open();
    assert_eq!(chunk_count(&memcore), memcore.document("runbook.md").unwrap().chunks.len());
    assert!(files_holding(&project.store(), "wombat").is_empty(), "no trash copy is left");
    assert!(!project.store().join(".memcore/documents.pending.json").exists());
}

#[test]
fn a_purge_that_died_part_way_is_finished_on_open() {
    let project = Project::new();
    project.write("secret.md", "# Secret\n\nThe vault code is numbat.\n");
    {
        let memcore = project.open();
        ingest(&memcore, &["secret.md"], 1000);
        let record = memcore.document("secret.md").unwrap();
        // The record went, then the process died: the chunks are still there.
        memcore.delete("documents/secret.md").unwrap();
        let mut remove = vec!["documents/secret.md".to_owned()];
        remove.extend(record.chunks.iter().map(ToString::to_string));
        let pending =
            serde_json::json!({"documents": ["secret.md"], "remove": remove, "compact": true});
        fs::write(project.store().join(".memcore/documents.pending.json"), pending.to_string())
            .unwrap();
    }
    let memcore = project.open();
    assert_eq!(chunk_count(&memcore), 0);
    assert!(files_holding(&project.store(), "numbat").is_empty());
    assert!(files_holding(&project.store(), "secret.md").is_empty());
}

#[test]
fn a_failed_ingest_leaves_the_old_document_whole() {
    let project = Project::new();
    project.write("runbook.md", RUNBOOK);
    let config = Config {
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        limits: memcore::Limits { max_content_bytes: 300, ..memcore::Limits::default() },
        ..Config::default()
    };
    let memcore = Memcore::builder().path(project.store()).config(config).open().unwrap();
    ingest(&memcore, &["runbook.md"], 120);
    let before = memcore.document("runbook.md").unwrap();
    // Chunks of 1000 characters are over the store's content limit: the write fails.
    project.write("runbook.md", format!("{RUNBOOK}\n{}", "More words here. ".repeat(40)));
    let err = memcore.docs_ingest(&DocsIngestRequest::new(["runbook.md"])).unwrap_err();
    assert_eq!(err.category(), Category::Validation, "{err}");
    assert_eq!(memcore.document("runbook.md").unwrap(), before);
    assert_eq!(chunk_count(&memcore), before.chunks.len());
    assert!(!project.store().join(".memcore/documents.pending.json").exists());
}

#[test]
fn documents_are_left_alone_by_the_lifecycle_and_repaired_by_ingest() {
    let project = Project::new();
    project.write("runbook.md", RUNBOOK);
    let memcore = project.open();
    ingest(&memcore, &["runbook.md"], 120);
    let record = memcore.document("runbook.md").unwrap();
    let later = memcore::parse_timestamp("2999-01-01T00:00:00Z").unwrap();
    let run =
        memcore.process_lifecycle(&memcore::decay::LifecycleOptions::new().now(later)).unwrap();
    assert!(run.steps.is_empty(), "documents follow their files: {:?}", run.steps);

    // A chunk lost by hand is written again by the next ingest of the unchanged file.
    memcore.delete(&record.chunks[1]).unwrap();
    assert_eq!(ingest(&memcore, &["runbook.md"], 120), [IngestOutcome::Replaced]);
    assert_eq!(chunk_count(&memcore), record.chunks.len());
}

#[test]
fn documents_are_not_working_memory() {
    let project = Project::new();
    project.write("runbook.md", RUNBOOK);
    let memcore = project.open();
    ingest(&memcore, &["runbook.md"], 120);
    let mut pinned = NewMemory::new("Never deploy on Fridays.").collection("decisions");
    pinned.importance = Some(1.0);
    memcore.put(pinned).unwrap();
    let context = memcore.compose(&memcore::compose::ComposeRequest::new("").budget(2000)).unwrap();
    let working: Vec<String> =
        context.manifest.iter().map(|entry| entry.reference.to_string()).collect();
    assert!(working.iter().any(|r| r.starts_with("decisions/")), "{working:?}");
    assert!(
        !working.iter().any(|r| r.starts_with("docs/") || r.starts_with("documents/")),
        "{working:?}"
    );
}
