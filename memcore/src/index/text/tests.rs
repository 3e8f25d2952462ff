//! The full-text index's tests: reads after writes, filters, hostile queries, damage, and
//! several handles and processes sharing one directory.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use chrono::TimeZone;
use tantivy::schema::{STRING, Schema};
use tantivy::{Index, TantivyDocument};

use super::query::{MAX_NESTING, MAX_QUERY_BYTES, tame};
use super::*;
use crate::{Collection, Limits, MemoryRef, NewMemory, Status};

/// An index document for a memory with this title, content, tags and type.
fn doc(title: &str, content: &str, tags: &[&str], kind: Option<&str>) -> IndexDoc {
    let mut new = NewMemory::new(content).title(title).tags(tags.iter().copied());
    if let Some(kind) = kind {
        new = new.kind(kind);
    }
    let memory = new
        .into_memory(&Collection::default(), &Limits::default(), crate::now())
        .expect("valid memory");
    IndexDoc::of(&memory)
}

/// The keys of a search.
fn keys(index: &TextIndex, text: &str, filter: &DocFilter) -> Vec<MemoryRef> {
    index.search(text, filter, 50).expect("search").into_iter().map(|(k, _)| k).collect()
}

/// A key from text.
fn key(text: &str) -> MemoryRef {
    text.parse().expect("valid key")
}

/// A new index in a temporary directory (keep the directory alive).
fn open() -> (tempfile::TempDir, TextIndex) {
    let dir = tempfile::tempdir().expect("tempdir");
    let index = TextIndex::open(&dir.path().join("text")).expect("open");
    (dir, index)
}

/// The handle can be shared across threads.
#[test]
fn is_send_and_sync() {
    /// Compiles only for `Send + Sync` types.
    fn check<T: Send + Sync>() {}
    check::<TextIndex>();
}

/// Writes are visible at once; upserts replace; deletes remove; clear empties.
#[test]
fn read_after_write_upsert_and_delete() {
    let (_dir, index) = open();
    assert_eq!(index.live_count(), 0);
    let a = doc("GPU notes", "Prefer Metal on Apple silicon.", &[], None);
    let b = doc("Rust tips", "Borrow checker patterns.", &[], None);
    index.apply(&[a.clone(), b.clone()], &[]).expect("apply");
    assert_eq!(index.live_count(), 2);
    assert_eq!(keys(&index, "metal", &DocFilter::default()), vec![a.meta.key.clone()]);

    // Upsert replaces: same key, new text, no duplicate.
    let mut a2 = a.clone();
    a2.content = "Prefer Vulkan on Linux.".into();
    a2.meta.hash = "changed".into();
    index.apply(std::slice::from_ref(&a2), &[]).expect("apply");
    assert_eq!(index.live_count(), 2);
    assert!(keys(&index, "metal", &DocFilter::default()).is_empty());
    assert_eq!(keys(&index, "vulkan", &DocFilter::default()), vec![a.meta.key.clone()]);
    let all = index.all_keys().expect("all keys");
    assert_eq!(all.len(), 2);
    assert!(all.contains(&(a.meta.key.clone(), "changed".to_string())));
    assert!(all.contains(&(b.meta.key.clone(), b.meta.hash.clone())));

    // The same key twice in one batch: the last wins.
    let mut a3 = a.clone();
    a3.meta.hash = "third".into();
    index.apply(&[a2, a3], &[]).expect("apply");
    assert_eq!(index.live_count(), 2);
    assert!(index.all_keys().expect("keys").contains(&(a.meta.key.clone(), "third".into())));

    // Delete, including an absent key.
    index.apply(&[], &[a.meta.key.clone(), key("general/absent")]).expect("apply");
    assert_eq!(index.live_count(), 1);
    assert_eq!(index.all_keys().expect("keys"), [(b.meta.key.clone(), b.meta.hash.clone())]);
    assert!(keys(&index, "metal vulkan", &DocFilter::default()).is_empty());

    // An empty apply writes nothing and is fine.
    index.apply(&[], &[]).expect("empty apply");

    index.clear().expect("clear");
    assert_eq!(index.live_count(), 0);
    assert!(index.all_keys().expect("keys").is_empty());
}

/// Documents survive reopening; the directory is private.
#[test]
fn reopen_keeps_documents() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("text");
    let a = doc("GPU notes", "Prefer Metal.", &["gpu"], None);
    TextIndex::open(&path).expect("open").apply(std::slice::from_ref(&a), &[]).expect("apply");
    let index = TextIndex::open(&path).expect("reopen");
    assert_eq!(keys(&index, "metal", &DocFilter::default()), vec![a.meta.key]);
    use std::os::unix::fs::PermissionsExt;
    let mode = fs::metadata(&path).expect("metadata").permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
}

/// Memories written one at a time are merged with their peers, never into the segment of an
/// earlier batch: a single write does not rewrite hundreds of documents (tantivy's default
/// merge policy would merge that segment after the seventh single write).
#[test]
fn single_writes_leave_a_batch_segment_alone() {
    let (_dir, index) = open();
    let batch: Vec<IndexDoc> =
        (0..300).map(|i| doc(&format!("batch {i}"), "Batched words.", &[], None)).collect();
    index.apply(&batch, &[]).expect("batch");
    let segments = |index: &TextIndex| index.index.searchable_segment_metas().expect("metas");
    let batch_segment = segments(&index)[0].id();
    for i in 0..24 {
        let single = doc(&format!("single {i}"), "One at a time.", &[], None);
        index.apply(&[single], &[]).expect("single write");
    }
    let now = segments(&index);
    assert!(
        now.iter().any(|s| s.id() == batch_segment && s.max_doc() == 300),
        "the batch's segment was rewritten: {:?}",
        now.iter().map(|s| s.max_doc()).collect::<Vec<_>>()
    );
    assert!(now.len() <= 8, "the single writes' segments are merged: {} segments", now.len());
    assert_eq!(index.live_count(), 324);
}

/// English analysis: stems, folded accents, tags and ids are searchable.
#[test]
fn stemming_stop_words_and_tags_are_searchable() {
    let (_dir, index) = open();
    let a = doc("Daily habit", "She runs every morning.", &["fitness"], None);
    let b = doc("Café review", "The espresso was bitter.", &["coffee-shops"], None);
    index.apply(&[a.clone(), b.clone()], &[]).expect("apply");
    assert_eq!(keys(&index, "running", &DocFilter::default()), vec![a.meta.key.clone()]);
    assert_eq!(keys(&index, "run", &DocFilter::default()), vec![a.meta.key.clone()]);
    assert_eq!(keys(&index, "cafe", &DocFilter::default()), vec![b.meta.key.clone()]);
    assert_eq!(keys(&index, "fitness", &DocFilter::default()), vec![a.meta.key.clone()]);
    assert_eq!(keys(&index, "coffee", &DocFilter::default()), vec![b.meta.key.clone()]);
    // By exact id.
    assert_eq!(keys(&index, &b.id, &DocFilter::default()), vec![b.meta.key.clone()]);
    // Stop words alone match nothing (and do not fail).
    assert!(keys(&index, "the", &DocFilter::default()).is_empty());
}

/// The title boost ranks a title match first.
#[test]
fn title_hit_ranks_above_content_hit() {
    let (_dir, index) = open();
    let title = doc("Tokio scheduling", "Notes on async runtimes and work stealing.", &[], None);
    let content = doc("Async notes", "Notes on tokio runtimes and work stealing.", &[], None);
    index.apply(&[content.clone(), title.clone()], &[]).expect("apply");
    let hits = index.search("tokio", &DocFilter::default(), 10).expect("search");
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0].0, title.meta.key);
    assert!(hits[0].1 > hits[1].1, "{hits:?}");
}

/// The author (`created_by`) is searched: a question naming a speaker finds what they said.
#[test]
fn the_author_is_searched() {
    let (_dir, index) = open();
    let by = |author: &str, content: &str| {
        let memory = NewMemory::new(content)
            .created_by(author)
            .into_memory(&Collection::default(), &Limits::default(), crate::now())
            .expect("valid memory");
        IndexDoc::of(&memory)
    };
    let caroline = by("Caroline", "I went to the support group yesterday.");
    let melanie = by("Melanie", "I went to the pottery class yesterday.");
    index.apply(&[caroline.clone(), melanie.clone()], &[]).expect("apply");
    let hits = keys(&index, "When did Caroline go?", &DocFilter::default());
    assert_eq!(hits.first(), Some(&caroline.meta.key), "{hits:?}");
    assert_eq!(keys(&index, "melanie", &DocFilter::default()), vec![melanie.meta.key.clone()]);
}

/// Every filter condition, in search and `filter_keys`, agrees with `DocFilter::matches`.
#[test]
fn every_filter_kind() {
    let (_dir, index) = open();
    let t = |secs| chrono::Utc.timestamp_opt(secs, 0).single().expect("time");
    let default = Collection::default().to_string();
    let mut a = doc("alpha", "shared words here", &["x", "y"], Some("note"));
    let mut b = doc("beta", "shared words here", &["y"], Some("task"));
    let mut c = doc("gamma", "shared words here", &["z"], None);
    a.meta.collection = "work".into();
    a.meta.key = key("work/alpha");
    b.meta.status = Status::Archived;
    (a.meta.created_at, a.meta.updated_at) = (t(1_000), t(5_000));
    (b.meta.created_at, b.meta.updated_at) = (t(2_000), t(6_000));
    (c.meta.created_at, c.meta.updated_at) = (t(3_000), t(7_000));
    // A time past tantivy's year-2262 limit must not overflow.
    c.meta.updated_at = chrono::Utc.with_ymd_and_hms(3000, 1, 1, 0, 0, 0).single().expect("t");
    index.apply(&[a.clone(), b.clone(), c.clone()], &[]).expect("apply");
    let (ka, kb, kc) = (a.meta.key.clone(), b.meta.key.clone(), c.meta.key.clone());

    let cases: Vec<(DocFilter, Vec<&MemoryRef>)> = vec![
        (DocFilter::default(), vec![&ka, &kb, &kc]),
        (DocFilter { collections: vec!["work".into()], ..Default::default() }, vec![&ka]),
        (
            DocFilter { collections: vec!["work".into(), default.clone()], ..Default::default() },
            vec![&ka, &kb, &kc],
        ),
        (
            DocFilter { tags_any: vec!["x".into(), "z".into()], ..Default::default() },
            vec![&ka, &kc],
        ),
        (DocFilter { tags_all: vec!["x".into(), "y".into()], ..Default::default() }, vec![&ka]),
        (DocFilter { tags_all: vec!["y".into()], ..Default::default() }, vec![&ka, &kb]),
        (DocFilter { kinds: vec!["task".into(), "other".into()], ..Default::default() }, vec![&kb]),
        (DocFilter { statuses: vec![Status::Active], ..Default::default() }, vec![&ka, &kc]),
        (DocFilter { statuses: vec![Status::Archived], ..Default::default() }, vec![&kb]),
        (DocFilter { created_from: Some(t(2_000)), ..Default::default() }, vec![&kb, &kc]),
        (DocFilter { created_to: Some(t(2_000)), ..Default::default() }, vec![&ka]),
        (
            DocFilter {
                created_from: Some(t(1_500)),
                created_to: Some(t(3_000)),
                ..Default::default()
            },
            vec![&kb],
        ),
        (
            DocFilter {
                created_from: Some(t(1_000) + chrono::Duration::milliseconds(1)),
                ..Default::default()
            },
            vec![&kb, &kc],
        ),
        (DocFilter { updated_from: Some(t(6_000)), ..Default::default() }, vec![&kb, &kc]),
        (DocFilter { updated_to: Some(t(6_000)), ..Default::default() }, vec![&ka]),
        (
            DocFilter {
                tags_any: vec!["y".into()],
                statuses: vec![Status::Active],
                ..Default::default()
            },
            vec![&ka],
        ),
    ];
    let metas = [&a.meta, &b.meta, &c.meta];
    for (filter, expected) in cases {
        let mut expected: Vec<MemoryRef> = expected.into_iter().cloned().collect();
        expected.sort();
        // The index agrees with `DocFilter::matches`.
        let mut by_matches: Vec<MemoryRef> =
            metas.iter().filter(|m| filter.matches(m)).map(|m| m.key.clone()).collect();
        by_matches.sort();
        assert_eq!(by_matches, expected, "matches() for {filter:?}");
        assert_eq!(index.filter_keys(&filter).expect("filter keys"), expected, "{filter:?}");
        let mut found = keys(&index, "shared", &filter);
        found.sort();
        assert_eq!(found, expected, "search with {filter:?}");
    }
}

/// Filter clauses add nothing to BM25 scores.
#[test]
fn filters_do_not_change_scores() {
    let (_dir, index) = open();
    let a = doc("alpha", "tokio tokio runtime", &["x"], None);
    let b = doc("beta", "tokio runtime and more words", &["x"], None);
    index.apply(&[a, b], &[]).expect("apply");
    let plain = index.search("tokio", &DocFilter::default(), 10).expect("search");
    let filtered = index
        .search("tokio", &DocFilter { tags_any: vec!["x".into()], ..Default::default() }, 10)
        .expect("search");
    assert_eq!(plain, filtered);
}

/// Malformed and pathological query text neither fails nor overflows the stack.
#[test]
fn hostile_queries_do_not_fail() {
    let (_dir, index) = open();
    let a = doc("Quoted things", "AND OR NOT title: weird (stuff) here \"quoted\"", &[], None);
    index.apply(&[a], &[]).expect("apply");
    let deep = format!("{}x{}", "(".repeat(100_000), ")".repeat(3));
    let long = "word ".repeat(50_000);
    let hostile = [
        "\"unbalanced quote",
        "title:",
        ":",
        "::::",
        "AND",
        "OR OR AND NOT",
        "a AND",
        "NOT",
        "-",
        "+",
        "((((",
        "))))",
        "(a OR b",
        "🦀 rust 🚀",
        "🦀",
        "title:\"x",
        "nofield:value",
        "created:[2020 TO",
        "created:>2020",
        "updated:[a TO b]",
        "*",
        "a*",
        "~2",
        "word~",
        "\\",
        "[",
        "{}",
        "^2",
        "title:^",
        "IN [",
        "a:b:c:d",
        "'",
        "%s%n",
        "\u{0}",
        &deep,
        &long,
        &"NOT ".repeat(5_000),
        &"NOT (".repeat(5_000),
        &"(NOT ".repeat(5_000),
        &"a:".repeat(5_000),
        &"-(".repeat(5_000),
        &"+-".repeat(5_000),
        &"\"a\" ".repeat(5_000),
        &"a AND ".repeat(5_000),
        &"title:(".repeat(5_000),
    ];
    for text in hostile {
        let shown: String = text.chars().take(40).collect();
        index
            .search(text, &DocFilter::default(), 10)
            .unwrap_or_else(|e| panic!("query {shown:?} failed: {e}"));
    }
    assert_eq!(keys(&index, "\"quoted", &DocFilter::default()).len(), 1);
    let err = index.search("  \t\n", &DocFilter::default(), 10).expect_err("blank");
    assert_eq!(err.category(), crate::Category::Validation);
    assert!(index.search("quoted", &DocFilter::default(), 0).expect("limit 0").is_empty());
}

/// `tame` caps nesting, `NOT` runs and length.
#[test]
fn deep_nesting_is_flattened() {
    assert_eq!(tame("((a))"), "((a))");
    let deep = format!("{}a{}", "(".repeat(10), ")".repeat(10));
    let tamed = tame(&deep);
    assert_eq!(tamed.matches('(').count(), MAX_NESTING);
    assert_eq!(tamed.matches(')').count(), MAX_NESTING);
    assert_eq!(tame(&"é".repeat(MAX_QUERY_BYTES)).len(), MAX_QUERY_BYTES);
    assert_eq!(tame("a NOT NOT\tNOT  b NOT c"), "a NOT    b NOT c");
    assert_eq!(tame("NOTE NOT NOTHING"), "NOTE NOT NOTHING");
}

/// Garbage in `meta.json` is an index error; `create_fresh` recovers.
#[test]
fn damaged_index_is_an_index_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("text");
    let a = doc("GPU notes", "Prefer Metal.", &[], None);
    TextIndex::open(&path).expect("open").apply(std::slice::from_ref(&a), &[]).expect("apply");

    fs::write(path.join("meta.json"), b"\x00garbage{{{").expect("write");
    let err = TextIndex::open(&path).expect_err("damaged meta.json");
    assert_eq!(err.category(), crate::Category::Index);
    assert!(err.recovery().contains("reindex"), "{}", err.recovery());

    let index = TextIndex::create_fresh(&path).expect("create fresh");
    assert_eq!(index.live_count(), 0);
    index.apply(&[a], &[]).expect("apply after rebuild");
    assert_eq!(index.live_count(), 1);
}

/// Garbage segment files (a tantivy panic) are an index error.
#[test]
fn damaged_segment_files_are_an_index_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("text");
    let a = doc("GPU notes", "Prefer Metal.", &[], None);
    TextIndex::open(&path).expect("open").apply(&[a], &[]).expect("apply");
    for entry in fs::read_dir(&path).expect("read dir") {
        let entry = entry.expect("entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with('.') && name != "meta.json" {
            fs::write(entry.path(), b"garbage").expect("write");
        }
    }
    let err = TextIndex::open(&path).expect_err("damaged segments");
    assert_eq!(err.category(), crate::Category::Index);
    assert!(err.recovery().contains("reindex"));
}

/// An index with another schema is an index error.
#[test]
fn other_schema_is_an_index_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut builder = Schema::builder();
    builder.add_text_field("something_else", STRING);
    Index::create_in_dir(dir.path(), builder.build()).expect("create");
    let err = TextIndex::open(dir.path()).expect_err("schema mismatch");
    assert_eq!(err.category(), crate::Category::Index);
    assert!(err.to_string().contains("another schema"), "{err}");
}

/// Two handles on one new index, as two processes would have (keep the directory alive).
fn two_handles() -> (tempfile::TempDir, TextIndex, TextIndex) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("text");
    let one = TextIndex::open(&path).expect("open one");
    let two = TextIndex::open(&path).expect("open two");
    (dir, one, two)
}

/// Two handles on one directory, as two processes would: both write, both see.
#[test]
fn two_handles_share_one_directory() {
    let (dir, one, two) = two_handles();
    let path = dir.path().join("text");
    let a = doc("From one", "written by the first process", &[], None);
    let b = doc("From two", "written by the second process", &[], None);
    one.apply(std::slice::from_ref(&a), &[]).expect("apply one");
    two.apply(std::slice::from_ref(&b), &[]).expect("apply two");
    assert_eq!(two.live_count(), 2, "a writer starts from the latest commit");
    assert_eq!(one.live_count(), 1, "not refreshed yet");
    one.refresh().expect("refresh");
    two.refresh().expect("refresh");
    assert_eq!(one.live_count(), 2);
    let mut found = keys(&one, "written", &DocFilter::default());
    found.sort();
    let mut expected = vec![a.meta.key.clone(), b.meta.key.clone()];
    expected.sort();
    assert_eq!(found, expected);

    // A writer held elsewhere makes apply wait, then succeed once it is released.
    let held = {
        let directory = tantivy::directory::MmapDirectory::open(&path).expect("dir");
        let index = Index::open(directory).expect("index");
        index.writer_with_num_threads::<TantivyDocument>(1, 15_000_000).expect("writer")
    };
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        drop(held);
    });
    let started = Instant::now();
    one.apply(&[], std::slice::from_ref(&a.meta.key)).expect("apply after waiting");
    assert!(started.elapsed() >= Duration::from_millis(250));
    release.join().expect("join");
    two.refresh().expect("refresh");
    assert_eq!(two.live_count(), 1);

    // Many commits from both handles: merges keep working, nothing is lost.
    for i in 0..12 {
        let mut d = doc(&format!("note {i}"), "merge test", &[], None);
        d.meta.key = key(&format!("general/note-{i}"));
        if i % 2 == 0 { &one } else { &two }.apply(&[d], &[]).expect("apply");
    }
    one.refresh().expect("refresh");
    two.refresh().expect("refresh");
    assert_eq!(one.live_count(), 13);
    assert_eq!(two.all_keys().expect("keys"), one.all_keys().expect("keys"));
}

/// An upsert replaces a document another handle committed after this one last read the
/// index, and two upserts of one new key in a batch leave one document: upserts of keys the
/// index lacks skip the delete, so this is what that must not get wrong.
#[test]
fn upserts_replace_what_another_handle_committed_and_new_keys_are_added_once() {
    let (_dir, one, two) = two_handles();
    // `two` has read the empty index; `one` then commits the key.
    assert_eq!(two.live_count(), 0);
    let first = doc("Shared key", "the earlier wording", &[], None);
    one.apply(std::slice::from_ref(&first), &[]).expect("apply one");
    let mut second = doc("Shared key", "the later wording", &[], None);
    second.meta.key = first.meta.key.clone();
    two.apply(std::slice::from_ref(&second), &[]).expect("apply two");
    assert_eq!(two.live_count(), 1, "replaced, not added beside it");
    assert_eq!(keys(&two, "later", &DocFilter::default()), std::slice::from_ref(&first.meta.key));
    assert!(keys(&two, "earlier", &DocFilter::default()).is_empty());

    // One new key twice in one batch, and again in the next: one document, the last.
    let mut versions: Vec<IndexDoc> = ["alpha", "beta", "gamma"]
        .iter()
        .map(|word| doc("Twice", &format!("version {word}"), &[], None))
        .collect();
    for version in &mut versions {
        version.meta.key = key("general/twice");
    }
    two.apply(&versions[..2], &[]).expect("apply twice");
    assert_eq!(two.live_count(), 2);
    assert_eq!(keys(&two, "beta", &DocFilter::default()), [key("general/twice")]);
    assert!(keys(&two, "alpha", &DocFilter::default()).is_empty());
    two.apply(&versions[2..], &[]).expect("apply again");
    one.refresh().expect("refresh");
    assert_eq!(one.live_count(), 2);
    assert_eq!(keys(&one, "gamma", &DocFilter::default()), [key("general/twice")]);
    assert!(keys(&one, "beta", &DocFilter::default()).is_empty());
}

/// With `MEMCORE_TEXT_CHILD=<dir>:<name>`, writes ten documents to the index in `<dir>`,
/// one commit each (the other half of `processes_share_one_directory`); otherwise nothing.
#[test]
fn child_process_writer() {
    let Ok(spec) = std::env::var("MEMCORE_TEXT_CHILD") else { return };
    let (dir, name) = spec.rsplit_once(':').expect("dir:name");
    let index = TextIndex::open(Path::new(dir)).expect("open in child");
    for i in 0..10 {
        let mut d = doc(&format!("{name} {i}"), "written by a child process", &[], None);
        d.meta.key = key(&format!("general/{name}-{i}"));
        index.apply(&[d], &[]).expect("apply in child");
    }
}

/// Real processes writing one index at once: every document of every process is there.
#[test]
fn processes_share_one_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("text");
    let index = TextIndex::open(&path).expect("open");
    let exe = std::env::current_exe().expect("test binary");
    let children: Vec<_> = ["first", "second"]
        .into_iter()
        .map(|name| {
            std::process::Command::new(&exe)
                .args(["index::text::tests::child_process_writer", "--exact", "--quiet"])
                .env("MEMCORE_TEXT_CHILD", format!("{}:{name}", path.display()))
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("spawn child")
        })
        .collect();
    for i in 0..10 {
        let mut d = doc(&format!("parent {i}"), "written by the parent process", &[], None);
        d.meta.key = key(&format!("general/parent-{i}"));
        index.apply(&[d], &[]).expect("apply in parent");
    }
    for mut child in children {
        assert!(child.wait().expect("wait").success(), "a child failed");
    }
    index.refresh().expect("refresh");
    assert_eq!(index.live_count(), 30);
    assert_eq!(index.filter_keys(&DocFilter::default()).expect("keys").len(), 30);
    assert_eq!(keys(&index, "child", &DocFilter::default()).len(), 20);
    let reopened = TextIndex::open(&path).expect("reopen");
    assert_eq!(reopened.all_keys().expect("keys"), index.all_keys().expect("keys"));
}

/// Costs of the write path; run with `--ignored --nocapture`.
#[test]
#[ignore = "timing"]
fn measure_costs() {
    let (_dir, index) = open();
    let docs: Vec<IndexDoc> = (0..10_000)
        .map(|i| {
            let mut d = doc(
                &format!("Note {i}"),
                &format!("Memory number {i} about gpu rust tokio metal and {}", i % 97),
                &["bench", if i % 2 == 0 { "even" } else { "odd" }],
                Some("note"),
            );
            d.meta.key = key(&format!("general/note-{i}"));
            d
        })
        .collect();
    let time = |label: &str, f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        println!("{label}: {:?}", start.elapsed());
    };
    for i in 0..5 {
        time(&format!("writer open + 1 add + commit #{i}"), &mut || {
            index.apply(&docs[i..=i], &[]).expect("apply");
        });
    }
    time("1000 adds + commit", &mut || index.apply(&docs[..1000], &[]).expect("apply"));
    time("9000 adds + commit", &mut || index.apply(&docs[1000..], &[]).expect("apply"));
    for i in 0..3 {
        time(&format!("1 upsert into 10k #{i}"), &mut || {
            index.apply(&docs[i..=i], &[]).expect("apply");
        });
    }
    time("refresh, unchanged", &mut || index.refresh().expect("refresh"));
    time("search 'gpu tokio' top 10", &mut || {
        index.search("gpu tokio", &DocFilter::default(), 10).expect("search");
    });
    let even = DocFilter { tags_any: vec!["even".into()], ..Default::default() };
    time("search 'gpu tokio' tag filter top 10", &mut || {
        index.search("gpu tokio", &even, 10).expect("search");
    });
    time("filter_keys (5k of 10k)", &mut || {
        assert_eq!(index.filter_keys(&even).expect("keys").len(), 5_000);
    });
    time("all_keys (10k)", &mut || {
        assert_eq!(index.all_keys().expect("keys").len(), 10_000);
    });
    time("reopen", &mut || drop(TextIndex::open(&index.dir).expect("open")));
}

/// The summary is searched like the content; a title derived from the content is not
/// indexed a second time.
#[test]
fn summaries_are_searched_and_derived_titles_are_not_indexed_twice() {
    let (_dir, index) = open();
    let summarised = NewMemory::new("The deploy script now waits for the health check.")
        .id("deploy")
        .summary("Rollout ordering for kubernetes")
        .into_memory(&Collection::default(), &Limits::default(), crate::now())
        .expect("valid memory");
    let untitled = NewMemory::new("Metal shaders compile at first launch.")
        .id("first")
        .into_memory(&Collection::default(), &Limits::default(), crate::now())
        .expect("valid memory");
    let titled = NewMemory::new("Metal shaders compile at first launch.")
        .id("second")
        .title("Notes")
        .into_memory(&Collection::default(), &Limits::default(), crate::now())
        .expect("valid memory");
    let docs: Vec<IndexDoc> = [&summarised, &untitled, &titled].map(IndexDoc::of).to_vec();
    assert!(docs[1].title_repeats && !docs[2].title_repeats);
    index.apply(&docs, &[]).expect("apply");
    assert_eq!(keys(&index, "kubernetes", &DocFilter::default()), [key("memory/deploy")]);
    // The same content with a derived title or an unrelated given one scores the same: the
    // derived title adds nothing (indexed, it would match the query a second time).
    let scores: Vec<(MemoryRef, f32)> =
        index.search("metal shaders", &DocFilter::default(), 10).expect("search");
    assert_eq!(scores.len(), 2, "{scores:?}");
    assert!((scores[0].1 - scores[1].1).abs() < 1e-4, "{scores:?}");
}

/// Whether any segment of `index` (deleted documents included) has `word` in the content
/// field's term dictionary.
fn holds_word(index: &TextIndex, word: &str) -> bool {
    let mut analyzer = index.index.tokenizer_for_field(index.fields.content).expect("analyzer");
    let mut stream = analyzer.token_stream(word);
    let token = stream.next().expect("a token").text.clone();
    let term = Term::from_field_text(index.fields.content, &token);
    let searcher = index.reader.searcher();
    searcher.segment_readers().iter().any(|segment| {
        segment
            .inverted_index(index.fields.content)
            .expect("postings")
            .doc_freq(&term)
            .expect("freq")
            > 0
    })
}

/// After a delete the words stay in the segment files; compacting removes them, and the
/// other documents stay searchable.
#[test]
fn compacting_leaves_no_segment_holding_deleted_words() {
    let (dir, index) = open();
    let secret = doc("Secret", "The word is xylophonequartz.", &[], None);
    let kept = doc("Kept", "An ordinary note about knitting.", &[], None);
    index.apply(&[secret.clone(), kept.clone()], &[]).expect("apply");
    index.apply(&[], std::slice::from_ref(&secret.meta.key)).expect("delete");
    assert!(keys(&index, "xylophonequartz", &DocFilter::default()).is_empty());
    assert!(holds_word(&index, "xylophonequartz"), "a delete alone leaves the words");
    let files_before = fs::read_dir(dir.path().join("text")).expect("list").count();
    index.compact_deleted().expect("compact");
    assert!(!holds_word(&index, "xylophonequartz"));
    assert!(holds_word(&index, "knitting"));
    assert_eq!(keys(&index, "knitting", &DocFilter::default()), vec![kept.meta.key.clone()]);
    let files_after = fs::read_dir(dir.path().join("text")).expect("list").count();
    assert!(
        files_after <= files_before,
        "old segment files removed: {files_before} -> {files_after}"
    );
    // Reopened from disk: the same.
    let reopened = TextIndex::open(&dir.path().join("text")).expect("reopen");
    assert!(!holds_word(&reopened, "xylophonequartz"));
}
