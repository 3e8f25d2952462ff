//! Bounded fuzzing of every parser that reads untrusted text (issue 14), as property tests
//! that run in CI: frontmatter (imports and memory files on disk), git-notes blocks, filters,
//! the search query parser and link extraction. Each must return a value or a typed error,
//! never panic; what a store holds stays readable. (Keepit markers, capture signals and
//! transcripts have theirs beside their code.)

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

mod gitrepo;

use std::path::Path;
use std::sync::LazyLock;

use memcore::links::{EdgeTypes, extract_links};
use memcore::{
    Backend, Config, EmbeddingConfig, Filter, ListOptions, Memcore, NewMemory, Query, SearchMode,
};
use proptest::prelude::*;

fn config(backend: Backend) -> Config {
    Config {
        backend,
        embedding: EmbeddingConfig { enabled: false, model_dir: None },
        ..Config::default()
    }
}

/// Text shaped like frontmatter: fences, keys memcore knows, YAML punctuation, any text.
fn frontmatterish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("---\n".to_owned()),
        Just("\u{feff}".to_owned()),
        "(id|title|tags|status|created_at|importance|metadata|collection|type): "
            .prop_map(String::from),
        "[\\[\\]{}:,\"'&*!|>#-]{0,6}".prop_map(String::from),
        "\\PC{0,20}".prop_map(String::from),
        Just("\n".to_owned()),
        Just("  - ".to_owned()),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
}

/// One file store shared by the cases that write files into it.
static STORE: LazyLock<(tempfile::TempDir, Memcore)> = LazyLock::new(|| {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::builder().path(dir.path()).config(config(Backend::File)).open().unwrap();
    memcore.put(NewMemory::new("a memory that must stay readable").id("keep")).unwrap();
    (dir, memcore)
});

fn write_file(root: &Path, name: &str, text: &str) {
    let dir = root.join("fuzz");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), text).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn imported_markdown_parses_or_is_refused(text in frontmatterish()) {
        let _ = NewMemory::from_markdown(&text);
    }

    #[test]
    fn memory_files_on_disk_never_break_reads(text in frontmatterish(), n in 0u32..1_000_000) {
        let (dir, memcore) = &*STORE;
        write_file(dir.path(), &format!("f{n}.md"), &text);
        let _ = memcore.get(format!("fuzz/f{n}").as_str());
        let listing = memcore.list(&ListOptions::new().collection("fuzz")).unwrap();
        prop_assert!(listing.memories.len() + listing.skipped.len() >= 1);
        prop_assert!(memcore.get("keep").is_ok());
    }

    #[test]
    fn filters_parse_or_are_refused(text in "[a-z_.=,!<>* \\PC]{0,40}") {
        let _ = text.parse::<Filter>();
    }

    #[test]
    fn any_query_text_searches_or_is_refused(text in "\\PC{0,60}|[\"()+\\-:*~^\\[\\]{}!\\\\ a-z]{0,40}") {
        let (_, memcore) = &*STORE;
        let _ = memcore.search(&Query::new(text).mode(SearchMode::Text));
    }

    #[test]
    fn link_extraction_never_panics(text in "(\\PC|\\[\\[|\\]\\]|\\||`|\n){0,200}") {
        for edge in extract_links(&text, &EdgeTypes::untyped()) {
            prop_assert!(!edge.target.is_empty());
        }
    }
}

proptest! {
    // Each case makes a repository and a store: fewer cases.
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn git_notes_of_any_text_never_break_the_store(text in frontmatterish()) {
        let dir = tempfile::tempdir().unwrap();
        let repo = gitrepo::init_with_commit(dir.path());
        let head = repo.head().unwrap().peel_to_commit().unwrap().id();
        let signature = git2::Signature::now("fuzz", "fuzz@example.invalid").unwrap();
        repo.note(&signature, &signature, Some("refs/notes/mem/progress"), head, &text, true).unwrap();
        let memcore = Memcore::builder().path(dir.path()).config(config(Backend::GitNotes)).open().unwrap();
        let _ = memcore.list(&ListOptions::new());
        let _ = memcore.search(&Query::new("memory").mode(SearchMode::Text));
        prop_assert!(memcore.put(NewMemory::new("still writable").collection("progress")).is_ok());
    }
}
