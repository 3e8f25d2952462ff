//! Git backends at scale, on realistic text: capture into git notes (one memory, without
//! embedding) on a repository holding 10k notes; a cold read of all 10k notes; a full reindex
//! of them; and `versions` / `get_version` of a file-store memory with 100 git revisions.
//! Run with `cargo bench --bench git`.

// criterion_main! generates an undocumented `pub fn main`.
#![allow(missing_docs)]

mod support;

use std::hint::black_box;
use std::ops::ControlFlow;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use git2::{Repository, Signature};
use memcore::{
    Backend, Collection, CommitAttachment, Config, EmbeddingConfig, GitNotesStore, Limits, Memcore,
    MemoryStore, MemoryUpdate, NewMemory, PutMode,
};

const NOTES: usize = 10_000;
const PER_COMMIT: usize = 10;
const REVISIONS: usize = 100;

fn no_model() -> EmbeddingConfig {
    EmbeddingConfig { enabled: false, model_dir: None }
}

/// A commit on HEAD with an empty change; returns its id.
fn commit(repo: &Repository, message: &str) -> String {
    let signature = Signature::now("bench", "bench@example.com").expect("signature");
    let tree =
        repo.find_tree(repo.index().expect("index").write_tree().expect("tree")).expect("tree");
    let parent = repo.head().ok().and_then(|head| head.peel_to_commit().ok());
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    repo.commit(Some("HEAD"), &signature, &signature, message, &tree, &parents)
        .expect("commit")
        .to_string()
}

/// A repository with `NOTES` memories of corpus text, `PER_COMMIT` per commit, spread over
/// seed 002's ten namespaces.
fn repository_with_notes() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let repo = Repository::init(dir.path()).expect("git init");
    commit(&repo, "initial");
    let store = GitNotesStore::open(dir.path(), &Config::default()).expect("store");
    // A few passages hold NUL bytes, which git notes refuse (a typed validation error).
    let passages: Vec<_> = support::corpus(NOTES + 100)
        .into_iter()
        .filter(|p| !p.text.contains('\0'))
        .take(NOTES)
        .collect();
    for (n, chunk) in passages.chunks(PER_COMMIT).enumerate() {
        let sha = commit(&repo, &format!("commit {n}"));
        let namespaces = memcore::DEFAULT_NAMESPACES;
        let batch = chunk
            .iter()
            .enumerate()
            .map(|(i, passage)| {
                let namespace: Collection =
                    namespaces[(n + i) % namespaces.len()].parse().expect("ns");
                NewMemory::new(passage.text.clone())
                    .id(format!("p{n}-{i}"))
                    .into_memory(&namespace, &Limits::default(), memcore::now())
                    .expect("valid")
            })
            .collect();
        store.put_many_at(batch, &sha, PutMode::CreateOnly).expect("put");
    }
    dir
}

fn count_all(store: &dyn MemoryStore) -> usize {
    let mut count = 0;
    store
        .scan(None, &mut |item| {
            item.expect("loads");
            count += 1;
            ControlFlow::Continue(())
        })
        .expect("scan");
    count
}

fn notes(c: &mut Criterion) {
    let dir = repository_with_notes();
    let mut group = c.benchmark_group("git_notes_10k");
    group.sample_size(20).measurement_time(Duration::from_secs(10));

    let store = GitNotesStore::open(dir.path(), &Config::default()).expect("store");
    assert_eq!(count_all(&store), NOTES);
    let learnings: Collection = "learnings".parse().expect("ns");
    let mut n = 0_u64;
    group.bench_function("capture_one_memory", |b| {
        b.iter(|| {
            n += 1;
            let memory = NewMemory::new(format!("Captured insight number {n}."))
                .id("bench-capture")
                .into_memory(&learnings, &Limits::default(), memcore::now())
                .expect("valid");
            black_box(store.put(memory, PutMode::Upsert).expect("put"))
        })
    });
    group.bench_function("open_and_read_all_cold", |b| {
        b.iter(|| {
            let store = GitNotesStore::open(dir.path(), &Config::default()).expect("store");
            black_box(count_all(&store))
        })
    });
    let config = Config { backend: Backend::GitNotes, embedding: no_model(), ..Config::default() };
    let memcore = Memcore::builder().path(dir.path()).config(config).open().expect("memcore");
    group.sample_size(10).measurement_time(Duration::from_secs(30));
    group.bench_function("full_reindex_text", |b| {
        b.iter(|| black_box(memcore.reindex(&mut |_| {}).expect("reindex")))
    });
    group.finish();
}

/// A file store inside a work tree whose memory `m` has `REVISIONS` committed versions.
fn store_with_revisions(dir: &Path) -> Memcore {
    let repo = Repository::init(dir).expect("git init");
    commit(&repo, "initial");
    let config = Config { git_autocommit: true, embedding: no_model(), ..Config::default() };
    let memcore =
        Memcore::builder().path(dir.join("memories")).config(config).open().expect("memcore");
    let passages = support::corpus(REVISIONS);
    memcore.put(NewMemory::new(passages[0].text.clone()).id("m")).expect("put");
    for passage in &passages[1..] {
        memcore.update("m", MemoryUpdate::new().content(passage.text.clone())).expect("update");
    }
    memcore
}

fn versions(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let memcore = store_with_revisions(dir.path());
    assert_eq!(memcore.versions("m").expect("versions").len(), REVISIONS);
    let mut group = c.benchmark_group("git_versions_100_revisions");
    group.sample_size(20);
    group.bench_function("versions", |b| b.iter(|| black_box(memcore.versions("m").expect("v"))));
    group.bench_function("get_version_head_50", |b| {
        b.iter(|| black_box(memcore.get_version("m", "HEAD~50").expect("get")))
    });
    group.bench_function("diff_head_99_to_current", |b| {
        b.iter(|| black_box(memcore.diff("m", "HEAD~99", Memcore::CURRENT).expect("diff")))
    });
    group.finish();
}

criterion_group!(benches, notes, versions);
criterion_main!(benches);
