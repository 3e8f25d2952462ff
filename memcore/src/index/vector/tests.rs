//! Unit tests of the vector index: log, replay, refresh across instances, torn tails, model
//! changes, compaction, and the HNSW path against the exact scan on real MiniLM vectors.

use std::collections::HashSet;
use std::fs::OpenOptions;
use std::path::Path;

use chrono::DateTime;

use super::graph::GraphHandle;
use super::rows::Rows;
use super::*;
use crate::{Category, MemoryRef, Status};

/// Real all-MiniLM-L6-v2 vectors (30 sentences) shared by the embedding tests.
const REFERENCE: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/fixtures/minilm/reference.json");

/// The reference sentences and their vectors.
pub(super) fn reference() -> Vec<(String, Vec<f32>)> {
    let raw = std::fs::read_to_string(REFERENCE).expect("the MiniLM reference fixture exists");
    let json: serde_json::Value = serde_json::from_str(&raw).expect("reference.json parses");
    json["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| {
            let text = item["text"].as_str().expect("text").to_owned();
            let vector = item["embedding"]
                .as_array()
                .expect("embedding")
                .iter()
                .map(|x| x.as_f64().expect("number") as f32)
                .collect();
            (text, vector)
        })
        .collect()
}

/// The key `text` names.
pub(super) fn k(text: &str) -> MemoryRef {
    text.parse().expect("valid key")
}

/// Metadata for `key` (`collection/id`) with `tags`.
pub(super) fn meta(key: &str, tags: &[&str]) -> DocMeta {
    let at = DateTime::from_timestamp(1_700_000_000, 0).expect("valid timestamp");
    DocMeta {
        key: k(key),
        collection: key.split('/').next().unwrap_or_default().to_owned(),
        status: Status::Active,
        kind: None,
        tags: tags.iter().map(|t| (*t).to_owned()).collect(),
        created_at: at,
        updated_at: at,
        hash: format!("h-{key}"),
    }
}

/// A unit vector of dimension 8 pointing mostly along axis `axis`, tilted by `tilt`.
fn axis(axis: usize, tilt: f32) -> Vec<f32> {
    let mut v = vec![0.0; 8];
    v[axis % 8] = 1.0;
    v[(axis + 1) % 8] = tilt;
    v
}

/// Options that keep everything synchronous and the graph out of the way. Rows are read from
/// the log however small it is (the default keeps small logs in memory, which every other
/// test of the crate exercises).
fn exact_options() -> VectorOptions {
    VectorOptions {
        hnsw_threshold: usize::MAX,
        background: false,
        rows_on_disk_min_rows: 0,
        ..VectorOptions::default()
    }
}

/// Options that force the graph from `threshold` live rows, synchronously, used by every
/// search however small the index; rows read from the log.
fn graph_options(threshold: usize) -> VectorOptions {
    VectorOptions {
        hnsw_threshold: threshold,
        background: false,
        graph_visit_cost: 0.0,
        rows_on_disk_min_rows: 0,
        ..VectorOptions::default()
    }
}

/// Opens an index of 8-d vectors.
fn open8(dir: &Path) -> VectorIndex {
    VectorIndex::open_with(dir, 8, "test-model", exact_options()).expect("opens")
}

/// Keys of a result list.
fn keys(found: &[(MemoryRef, f32)]) -> Vec<String> {
    found.iter().map(|(k, _)| k.to_string()).collect()
}

/// Unfiltered search.
fn search(index: &VectorIndex, query: &[f32], k: usize) -> Vec<(MemoryRef, f32)> {
    index.search(query, k, &DocFilter::default(), None).expect("search")
}

#[test]
fn upsert_search_replace_remove() {
    let dir = tempfile::tempdir().expect("tempdir");
    let index = open8(dir.path());
    assert!(index.is_empty());
    index
        .upsert(&[
            (meta("m/a", &[]), axis(0, 0.0)),
            (meta("m/b", &[]), axis(1, 0.0)),
            (meta("m/c", &[]), axis(0, 0.5)),
        ])
        .expect("upsert");
    assert_eq!(index.len(), 3);

    let found = search(&index, &axis(0, 0.0), 2);
    assert_eq!(keys(&found), ["m/a", "m/c"]);
    assert!((found[0].1 - 1.0).abs() < 1e-6, "cosine of identical vectors is 1: {found:?}");
    assert!((found[1].1 - 1.0 / 1.25f32.sqrt()).abs() < 1e-6, "vectors are normalised");

    // Replace: the key moves, no duplicate appears.
    index.upsert(&[(meta("m/a", &["moved"]), axis(1, 0.1))]).expect("replace");
    assert_eq!(index.len(), 3);
    let found = search(&index, &axis(1, 0.0), 3);
    assert_eq!(keys(&found), ["m/b", "m/a", "m/c"]);
    assert_eq!(index.meta(&k("m/a")).expect("meta").tags, ["moved"]);

    index.remove(&[k("m/b"), k("m/missing")]).expect("remove");
    assert_eq!(index.len(), 2);
    assert!(index.meta(&k("m/b")).is_none());
    assert_eq!(keys(&search(&index, &axis(1, 0.0), 10)), ["m/a", "m/c"]);
    assert_eq!(
        index.all_keys().expect("keys"),
        [(k("m/a"), "h-m/a".to_owned()), (k("m/c"), "h-m/c".to_owned())]
    );
    assert!(search(&index, &axis(1, 0.0), 0).is_empty());
}

#[test]
fn filter_and_allow_set() {
    let dir = tempfile::tempdir().expect("tempdir");
    let index = open8(dir.path());
    index
        .upsert(&[
            (meta("work/a", &["gpu"]), axis(0, 0.0)),
            (meta("work/b", &["cpu"]), axis(0, 0.2)),
            (meta("home/c", &["gpu"]), axis(0, 0.1)),
        ])
        .expect("upsert");
    let q = axis(0, 0.0);

    let filter = DocFilter { collections: vec!["work".into()], ..DocFilter::default() };
    assert_eq!(keys(&index.search(&q, 10, &filter, None).expect("search")), ["work/a", "work/b"]);

    let filter = DocFilter { tags_any: vec!["gpu".into()], ..DocFilter::default() };
    assert_eq!(keys(&index.search(&q, 10, &filter, None).expect("search")), ["work/a", "home/c"]);

    let allow: HashSet<MemoryRef> = [k("work/b"), k("home/c")].into();
    let found = index.search(&q, 10, &DocFilter::default(), Some(&allow)).expect("search");
    assert_eq!(keys(&found), ["home/c", "work/b"]);

    let filter = DocFilter { collections: vec!["work".into()], ..DocFilter::default() };
    assert_eq!(keys(&index.search(&q, 10, &filter, Some(&allow)).expect("search")), ["work/b"]);

    let empty = HashSet::new();
    assert!(index.search(&q, 10, &DocFilter::default(), Some(&empty)).expect("search").is_empty());
}

#[test]
fn persists_across_reopen() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let index = open8(dir.path());
        index
            .upsert(&[(meta("m/a", &["x"]), axis(0, 0.0)), (meta("m/b", &[]), axis(1, 0.0))])
            .expect("upsert");
        index.upsert(&[(meta("m/a", &["y"]), axis(2, 0.0))]).expect("replace");
        index.remove(&[k("m/b")]).expect("remove");
    }
    let index = open8(dir.path());
    assert_eq!(index.len(), 1);
    assert_eq!(index.meta(&k("m/a")).expect("meta").tags, ["y"]);
    assert_eq!(keys(&search(&index, &axis(2, 0.0), 5)), ["m/a"]);
    assert_eq!(index.model_id(), "test-model");
    assert_eq!(index.dimension(), 8);
}

#[test]
fn two_instances_see_each_others_writes_after_refresh() {
    let dir = tempfile::tempdir().expect("tempdir");
    let one = open8(dir.path());
    let two = open8(dir.path());
    two.load().expect("load");
    one.upsert(&[(meta("m/a", &[]), axis(0, 0.0))]).expect("upsert");
    assert_eq!(two.len(), 0, "not before a refresh");
    two.refresh().expect("refresh");
    assert_eq!(two.len(), 1);

    // The other one writes: it catches up first, so nothing is lost.
    two.upsert(&[(meta("m/b", &[]), axis(1, 0.0))]).expect("upsert");
    two.remove(&[k("m/a")]).expect("remove");
    one.refresh().expect("refresh");
    assert_eq!(keys(&search(&one, &axis(1, 0.0), 5)), ["m/b"]);

    // A refresh with nothing new changes nothing.
    one.refresh().expect("refresh");
    assert_eq!(one.len(), 1);

    // Clear is seen too (the file is replaced).
    one.clear().expect("clear");
    two.refresh().expect("refresh");
    assert!(two.is_empty());
    two.upsert(&[(meta("m/c", &[]), axis(2, 0.0))]).expect("upsert");
    one.refresh().expect("refresh");
    assert_eq!(keys(&search(&one, &axis(2, 0.0), 5)), ["m/c"]);
}

#[test]
fn torn_tail_is_ignored_then_cut_off() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(LOG_FILE);
    {
        let index = open8(dir.path());
        index.upsert(&[(meta("m/a", &[]), axis(0, 0.0))]).expect("upsert");
        index.upsert(&[(meta("m/b", &[]), axis(1, 0.0))]).expect("upsert");
    }
    // A crash in the middle of the second record.
    let len = std::fs::metadata(&path).expect("stat").len();
    OpenOptions::new().write(true).open(&path).expect("open").set_len(len - 7).expect("truncate");

    let index = open8(dir.path());
    assert_eq!(index.len(), 1, "the torn record is ignored");
    let other = open8(dir.path());

    // Garbage after the torn record does not help it either.
    {
        use std::io::Write;
        let mut file = OpenOptions::new().append(true).open(&path).expect("open");
        file.write_all(&[0xff; 100]).expect("write");
    }
    index.refresh().expect("refresh");
    assert_eq!(index.len(), 1);

    // The next write cuts the tail off and appends after the last intact record.
    index.upsert(&[(meta("m/c", &[]), axis(2, 0.0))]).expect("upsert");
    other.refresh().expect("refresh");
    let reopened = open8(dir.path());
    for index in [&index, &other, &reopened] {
        assert_eq!(index.all_keys().expect("keys").len(), 2);
        assert_eq!(keys(&search(index, &axis(2, 0.0), 1)), ["m/c"]);
    }
}

#[test]
fn a_process_that_only_writes_appends_without_reading_the_log() {
    let dir = tempfile::tempdir().expect("tempdir");
    let reader = open8(dir.path());
    reader.load().expect("load");
    let items: Vec<_> = (0..6).map(|i| (meta(&format!("m/{i}"), &[]), axis(i, 0.0))).collect();
    reader.upsert(&items).expect("upsert");

    let writer = open8(dir.path());
    writer.upsert(&[(meta("m/new", &[]), axis(6, 0.0))]).expect("upsert");
    writer.upsert(&[(meta("m/newer", &[]), axis(7, 0.0))]).expect("its own end is trusted");
    writer.remove(&[k("m/0"), k("m/absent")]).expect("remove");
    {
        let state = writer.state.read();
        assert!(!state.loaded && state.metas.is_empty(), "nothing was read");
    }
    reader.refresh().expect("refresh");
    let fresh = open8(dir.path());
    for index in [&reader, &fresh] {
        assert_eq!(index.len(), 7);
        assert_eq!(keys(&search(index, &axis(7, 0.0), 1)), ["m/newer"]);
        assert!(index.meta(&k("m/0")).is_none(), "removed");
    }
}

#[test]
fn a_rebuild_after_clear_keeps_no_rows_and_is_stamped_level() {
    let dir = tempfile::tempdir().expect("tempdir");
    let index = open8(dir.path());
    index.upsert(&[(meta("m/old", &[]), axis(0, 0.0))]).expect("upsert");
    index.load().expect("load");
    index.clear().expect("clear");
    let items: Vec<_> = (0..6).map(|i| (meta(&format!("m/{i}"), &[]), axis(i, 0.0))).collect();
    index.upsert(&items[..3]).expect("first batch");
    index.upsert(&items[3..]).expect("second batch, after its own end");
    index.stamp_level().expect("stamp");
    {
        let state = index.state.read();
        assert!(!state.loaded && state.metas.is_empty(), "the rebuild kept no rows");
    }
    let fresh = open8(dir.path());
    fresh.load().expect("load");
    assert!(fresh.stamped_level(), "stamped at the rebuilt log's generation");
    for handle in [&index, &fresh] {
        assert_eq!(keys(&search(handle, &axis(5, 0.0), 1)), ["m/5"]);
        assert_eq!(handle.len(), 6, "the old row is gone");
    }
}

#[test]
fn a_writer_that_cannot_trust_the_end_reads_the_log_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(LOG_FILE);
    open8(dir.path()).upsert(&[(meta("m/a", &[]), axis(0, 0.0))]).expect("upsert");
    // A writer killed in the middle of its append: the file is longer than the marker says.
    {
        use std::io::Write;
        let mut file = OpenOptions::new().append(true).open(&path).expect("open");
        file.write_all(&[0x55; 40]).expect("write");
    }
    let writer = open8(dir.path());
    writer.upsert(&[(meta("m/b", &[]), axis(1, 0.0))]).expect("upsert");
    assert!(writer.state.read().loaded, "read the log to find its intact end");
    // No marker at all (an older writer, or lost in a power failure): read as well.
    std::fs::remove_file(dir.path().join("vectors.end")).expect("remove marker");
    let other = open8(dir.path());
    other.upsert(&[(meta("m/c", &[]), axis(2, 0.0))]).expect("upsert");
    assert!(other.state.read().loaded);
    let fresh = open8(dir.path());
    assert_eq!(
        fresh
            .all_keys()
            .expect("keys")
            .into_iter()
            .map(|(key, _)| key.to_string())
            .collect::<Vec<_>>(),
        ["m/a", "m/b", "m/c"],
        "the torn bytes were cut off, nothing else"
    );
}

#[test]
fn damaged_header_is_an_index_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join(LOG_FILE), b"not a vector log at all").expect("write");
    let err =
        VectorIndex::open_with(dir.path(), 8, "test-model", exact_options()).expect_err("damaged");
    assert_eq!(err.category(), Category::Index);
    assert!(ModelChanged::of(&err).is_none());
}

#[test]
fn model_change_is_detected() {
    let dir = tempfile::tempdir().expect("tempdir");
    open8(dir.path()).upsert(&[(meta("m/a", &[]), axis(0, 0.0))]).expect("upsert");

    let err =
        VectorIndex::open_with(dir.path(), 8, "other-model", exact_options()).expect_err("model");
    assert_eq!(err.category(), Category::Index);
    let changed = ModelChanged::of(&err).expect("typed");
    assert_eq!(changed.found_model, "test-model");
    assert_eq!(changed.wanted_model, "other-model");

    let err =
        VectorIndex::open_with(dir.path(), 16, "test-model", exact_options()).expect_err("dim");
    let changed = ModelChanged::of(&err).expect("typed");
    assert_eq!((changed.found_dimension, changed.wanted_dimension), (8, 16));

    // After the directory is wiped, the new model starts afresh.
    std::fs::remove_dir_all(dir.path()).expect("wipe");
    let index =
        VectorIndex::open_with(dir.path(), 16, "other-model", exact_options()).expect("fresh");
    assert!(index.is_empty());
}

#[test]
fn invalid_vectors_are_rejected_without_writing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let index = open8(dir.path());
    let good = (meta("m/ok", &[]), axis(0, 0.0));
    let cases = [
        vec![1.0; 7],
        vec![f32::NAN; 8],
        {
            let mut v = axis(0, 0.0);
            v[3] = f32::INFINITY;
            v
        },
        vec![0.0; 8],
    ];
    for bad in cases {
        let err =
            index.upsert(&[good.clone(), (meta("m/bad", &[]), bad.clone())]).expect_err("bad");
        assert_eq!(err.category(), Category::Validation, "{err}");
        let err = index.search(&bad, 3, &DocFilter::default(), None).expect_err("bad query");
        assert_eq!(err.category(), Category::Validation, "{err}");
    }
    // (An empty key cannot be made: a `MemoryRef` is validated when parsed.)
    assert!(index.is_empty(), "nothing written");
    assert!(open8(dir.path()).is_empty(), "nothing persisted");
}

/// Exact search, compacting from 10 dead rows that are 30% of all.
fn compacting_options() -> VectorOptions {
    VectorOptions { compact_min_dead: 10, compact_ratio: 0.3, ..exact_options() }
}

/// Opens the 8-d index in `dir` with `options`, its log read: processes that have read the
/// log compact it (one that only writes has no rows).
fn open_loaded(dir: &Path, options: &VectorOptions) -> VectorIndex {
    let index = VectorIndex::open_with(dir, 8, "test-model", options.clone()).expect("open");
    index.load().expect("load");
    index
}

#[test]
fn compaction_keeps_results_identical() {
    let dir = tempfile::tempdir().expect("tempdir");
    let options = compacting_options();
    let index = open_loaded(dir.path(), &options);
    let reader =
        VectorIndex::open_with(dir.path(), 8, "test-model", options.clone()).expect("open");
    let items: Vec<_> =
        (0..40).map(|i| (meta(&format!("m/{i:02}"), &[]), axis(i, i as f32 / 50.0))).collect();
    index.upsert(&items).expect("upsert");
    let generation = index.state.read().generation();
    let queries: Vec<Vec<f32>> = (0..8).map(|i| axis(i, 0.3)).collect();
    let before: Vec<_> = queries.iter().map(|q| search(&index, q, 5)).collect();

    // Nine replacements with the same vectors: not yet due (10 dead rows needed).
    index.upsert(&items[..9]).expect("replace");
    assert_eq!(index.state.read().generation(), generation);
    assert_eq!(index.state.read().dead, 9);
    // Seven more: 16 dead of 56 rows (29%) is still under the ratio.
    index.upsert(&items[9..16]).expect("replace");
    assert_eq!(index.state.read().generation(), generation);
    // 20 dead of 60 rows: compacted.
    index.upsert(&items[16..20]).expect("replace");
    let state = index.state.read();
    assert_ne!(state.generation(), generation, "a new file");
    assert_eq!((state.dead, state.row_count()), (0, 40));
    drop(state);

    let after: Vec<_> = queries.iter().map(|q| search(&index, q, 5)).collect();
    assert_eq!(before, after);
    reader.refresh().expect("refresh");
    let seen: Vec<_> = queries.iter().map(|q| search(&reader, q, 5)).collect();
    assert_eq!(before, seen);
    let reopened = open_loaded(dir.path(), &options);
    assert_eq!(reopened.state.read().row_count(), 40);
    let reread: Vec<_> = queries.iter().map(|q| search(&reopened, q, 5)).collect();
    assert_eq!(before, reread);
}

#[test]
fn the_level_stamp_survives_compaction_but_not_a_clear_or_its_removal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let options = compacting_options();
    let index = open_loaded(dir.path(), &options);
    let items: Vec<_> = (0..20).map(|i| (meta(&format!("m/{i:02}"), &[]), axis(i, 0.1))).collect();
    index.upsert(&items).expect("upsert");
    assert!(!index.stamped_level(), "not stamped until someone compares");
    index.stamp_level().expect("stamp");
    assert!(index.stamped_level());
    let other = VectorIndex::open_with(dir.path(), 8, "test-model", options.clone()).expect("open");
    assert!(!other.stamped_level(), "a process that has not read the log cannot tell");
    other.load().expect("load");
    assert!(other.stamped_level(), "another process sees the stamp");

    // Replacing every row compacts the log under a new generation: still stamped.
    let generation = index.state.read().generation();
    index.upsert(&items).expect("replace");
    assert_ne!(index.state.read().generation(), generation, "compacted");
    assert!(index.stamped_level());
    assert!(!other.stamped_level(), "names a generation the other process has not read");
    other.refresh().expect("refresh");
    assert!(other.stamped_level());

    remove_level_stamp(dir.path()).expect("remove");
    assert!(!index.stamped_level() && !other.stamped_level());
    remove_level_stamp(dir.path()).expect("removing no stamp is fine");

    index.stamp_level().expect("stamp");
    index.clear().expect("clear");
    index.load().expect("load the cleared log");
    assert!(!index.stamped_level(), "a cleared log is not level with anything");
}

/// Opens an index of the reference vectors (plus `extra` copies with other keys), with a graph
/// from `threshold` rows.
fn reference_index(dir: &Path, threshold: usize, persist: bool) -> VectorIndex {
    reference_index_with(dir, VectorOptions { persist_graph: persist, ..graph_options(threshold) })
}

/// [`reference_index`] with `options`.
fn reference_index_with(dir: &Path, options: VectorOptions) -> VectorIndex {
    let index = VectorIndex::open_with(dir, 384, "all-MiniLM-L6-v2-int8", options).expect("open");
    let items: Vec<_> = reference()
        .into_iter()
        .enumerate()
        .map(|(i, (_, v))| {
            let collection = if i % 3 == 0 { "even" } else { "odd" };
            (meta(&format!("{collection}/s{i:02}"), &[if i % 2 == 0 { "two" } else { "one" }]), v)
        })
        .collect();
    index.upsert(&items).expect("upsert");
    index.load().expect("load");
    index
}

/// How many of the exact top 5 the graph found, over many queries.
#[derive(Default)]
struct Recall {
    found: usize,
    wanted: usize,
}

impl Recall {
    /// Searches both indexes for the top 5 of `query`; asserts the graph's hits carry their
    /// exact scores, counts how many of the exact top 5 it found, and returns its hits.
    fn check(
        &mut self,
        exact: &VectorIndex,
        graph: &VectorIndex,
        query: &[f32],
        filter: &DocFilter,
    ) -> Vec<(MemoryRef, f32)> {
        let all = exact.search(query, usize::MAX, filter, None).expect("exact");
        let want = &all[..all.len().min(5)];
        let got = graph.search(query, 5, filter, None).expect("graph");
        assert_eq!(got.len(), want.len(), "filter {filter:?}");
        for (key, score) in &got {
            let truth = all.iter().find(|(k, _)| k == key).expect("a row the filter allows");
            assert!((score - truth.1).abs() < 1e-6, "exact scores: {got:?} vs {all:?}");
        }
        self.wanted += want.len();
        self.found += got.iter().filter(|(k, _)| want.iter().any(|(w, _)| w == k)).count();
        got
    }

    /// Asserts recall@5 of at least 95%.
    fn assert_near_one(&self) {
        let Self { found, wanted } = self;
        assert!(found * 100 >= wanted * 95, "recall@5 {found}/{wanted}");
    }
}

#[test]
fn hnsw_agrees_with_exact_on_real_vectors() {
    let exact_dir = tempfile::tempdir().expect("tempdir");
    let graph_dir = tempfile::tempdir().expect("tempdir");
    let exact = reference_index(exact_dir.path(), usize::MAX, false);
    let graph = reference_index(graph_dir.path(), 8, false);
    let queries: Vec<Vec<f32>> = reference().into_iter().map(|(_, v)| v).collect();

    // The first search starts the graph (synchronously here); later ones use it.
    let _ = search(&graph, &queries[0], 5);
    assert_eq!(graph.wait_for_graph(), Some(30), "the graph covers every row");
    let filters = [
        DocFilter::default(),
        DocFilter { collections: vec!["odd".into()], ..DocFilter::default() },
        DocFilter { tags_all: vec!["two".into()], ..DocFilter::default() },
    ];
    // HNSW is approximate: its random levels (and the order parallel inserts land in) can
    // leave a row unreachable now and then, even among 30. So every hit must carry its exact
    // score, a stored vector must find itself first, and recall@5 must stay near 1 (a broken
    // graph or distance scores far lower).
    let mut recall = Recall::default();
    for filter in &filters {
        for (i, q) in queries.iter().enumerate() {
            let got = recall.check(&exact, &graph, q, filter);
            if filter.collections.is_empty() && filter.tags_all.is_empty() {
                assert_eq!(got[0].0, search(&exact, q, 1)[0].0, "query {i} finds itself first");
            }
        }
    }
    recall.assert_near_one();
    {
        let state = graph.state.read();
        assert!(state.graph.as_ref().and_then(GraphHandle::ready).is_some());
        let keep = |row: usize| state.metas[row].is_some();
        let hits = graph
            .graph_search(&state, &queries[1], 5, &keep, true)
            .expect("read")
            .expect("the graph answers");
        assert_eq!(hits.len(), 5);
    }

    // Removed and replaced rows never come back from the graph; new rows are found at once.
    let first = exact.all_keys().expect("keys")[0].0.clone();
    for index in [&exact, &graph] {
        index.remove(std::slice::from_ref(&first)).expect("remove");
        index.upsert(&[(meta("new/x", &[]), queries[0].clone())]).expect("upsert");
    }
    let mut recall = Recall::default();
    for q in &queries {
        let got = recall.check(&exact, &graph, q, &DocFilter::default());
        assert!(got.iter().all(|(k, _)| *k != first));
    }
    recall.assert_near_one();
    assert_eq!(keys(&search(&graph, &queries[0], 2))[0..1], ["new/x"]);
}

#[test]
fn hnsw_dump_is_loaded_on_reopen_and_damage_falls_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let queries: Vec<Vec<f32>> = reference().into_iter().map(|(_, v)| v).collect();
    let expected: Vec<_>;
    {
        let index = reference_index(dir.path(), 8, true);
        let _ = search(&index, &queries[0], 5);
        let state = index.state.read();
        let graph = state.graph.as_ref().expect("graph");
        graph.dump().expect("dump");
        drop(state);
        expected = queries.iter().map(|q| search(&index, q, 5)).collect();
    }
    let sidecar = graph::read_sidecar(&dir.path().join(GRAPH_DIR)).expect("sidecar");
    assert_eq!(sidecar.rows, 30);

    let index = VectorIndex::open_with(dir.path(), 384, "all-MiniLM-L6-v2-int8", graph_options(8))
        .expect("open");
    let got: Vec<_> = queries.iter().map(|q| search(&index, q, 5)).collect();
    assert_eq!(got, expected);
    let state = index.state.read();
    let graph = state.graph.as_ref().expect("graph");
    assert_eq!(graph.loaded_from(), Some(sidecar.basename.as_str()), "loaded, not rebuilt");
    assert!(graph.ready().is_some());
    drop(state);
    drop(index);

    // A damaged data file is caught by the hash check, never reaches hnsw_rs (which would exit
    // the process), and the graph is rebuilt.
    let data = dir.path().join(GRAPH_DIR).join(format!("{}.hnsw.data", sidecar.basename));
    let len = std::fs::metadata(&data).expect("stat").len();
    OpenOptions::new().write(true).open(&data).expect("open").set_len(len / 2).expect("truncate");
    let index = VectorIndex::open_with(dir.path(), 384, "all-MiniLM-L6-v2-int8", graph_options(8))
        .expect("open");
    assert_eq!(search(&index, &queries[0], 5), expected[0], "the scan answers");
    match index.graph_status() {
        GraphStatus::Failed(why) => assert!(why.contains("damaged"), "{why}"),
        other => panic!("the damaged dump must fail to load: {other:?}"),
    }
    let got: Vec<_> = queries.iter().map(|q| search(&index, q, 5)).collect();
    assert_eq!(got, expected);
    assert_eq!(index.graph_status(), GraphStatus::Ready { indexed: 30, rows: 30 });
    let state = index.state.read();
    assert_eq!(state.bad_dumps.as_slice(), std::slice::from_ref(&sidecar.basename));
    let graph = state.graph.as_ref().expect("rebuilt graph");
    assert_eq!(graph.loaded_from(), None);
    assert!(graph.ready().is_some());
}

#[test]
fn background_graph_starts_at_the_second_search() {
    let dir = tempfile::tempdir().expect("tempdir");
    let exact_dir = tempfile::tempdir().expect("tempdir");
    let queries: Vec<Vec<f32>> = reference().into_iter().map(|(_, v)| v).collect();
    let exact = reference_index(exact_dir.path(), usize::MAX, false);
    let options = VectorOptions { background: true, ..graph_options(8) };
    let index =
        VectorIndex::open_with(dir.path(), 384, "all-MiniLM-L6-v2-int8", options).expect("open");
    let items: Vec<_> = {
        let state = exact.state.read();
        state
            .by_key
            .iter()
            .map(|(key, &r)| (meta(&key.to_string(), &[]), state.rows.vector(r as usize)))
            .collect()
    };
    index.upsert(&items).expect("upsert");
    assert_eq!(keys(&search(&index, &queries[3], 3)), keys(&search(&exact, &queries[3], 3)));
    assert_eq!(index.graph_status(), GraphStatus::Off, "a one-shot search starts no graph");
    // From the second search on, a graph runs; until it is ready, results come from the scan,
    // then from the graph: approximate (its rows are inserted in parallel, so even 30 of them
    // may leave one poorly linked), so judged by recall.
    let recall = |index: &VectorIndex| -> f64 {
        let mut found = 0;
        for q in &queries {
            let want = keys(&search(&exact, q, 3));
            found += keys(&search(index, q, 3)).iter().filter(|k| want.contains(k)).count();
        }
        found as f64 / (3 * queries.len()) as f64
    };
    assert!(recall(&index) >= 0.9);
    assert_eq!(index.wait_for_graph(), Some(30));
    assert_eq!(index.graph_status(), GraphStatus::Ready { indexed: 30, rows: 30 });
    assert!(recall(&index) >= 0.9);
}

#[test]
fn graph_follows_other_processes_and_compaction() {
    let dir = tempfile::tempdir().expect("tempdir");
    let queries: Vec<Vec<f32>> = reference().into_iter().map(|(_, v)| v).collect();
    let options = VectorOptions { compact_min_dead: 5, ..graph_options(8) };
    let writer = VectorIndex::open_with(dir.path(), 384, "m", options.clone()).expect("open");
    writer.load().expect("load");
    let reader = VectorIndex::open_with(dir.path(), 384, "m", options).expect("open");
    let items: Vec<_> = queries
        .iter()
        .enumerate()
        .map(|(i, v)| (meta(&format!("c/{i:02}"), &[]), v.clone()))
        .collect();
    writer.upsert(&items[..20]).expect("upsert");
    reader.refresh().expect("refresh");
    let _ = search(&reader, &queries[0], 3);
    assert_eq!(reader.wait_for_graph(), Some(20));

    writer.upsert(&items[20..]).expect("upsert");
    reader.refresh().expect("refresh");
    assert_eq!(reader.wait_for_graph(), Some(30), "new rows reach the reader's graph");
    assert_eq!(keys(&search(&reader, &queries[25], 1)), ["c/25"]);

    // Enough replacements to compact: the reader reloads and its graph is rebuilt.
    writer.upsert(&items[..13]).expect("replace");
    assert_eq!(writer.state.read().row_count(), 30, "compacted");
    reader.refresh().expect("refresh");
    assert_eq!(reader.state.read().row_count(), 30);
    assert_eq!(reader.wait_for_graph(), Some(30));
    for (i, q) in queries.iter().enumerate() {
        assert_eq!(keys(&search(&reader, q, 1)), [format!("c/{i:02}")]);
    }
}

#[test]
fn the_guard_catches_rows_the_graph_search_missed() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Rows in memory: the test adds rows to the state that are not in the log.
    let options = VectorOptions {
        persist_graph: false,
        rows_on_disk_min_rows: usize::MAX,
        ..graph_options(8)
    };
    let index = reference_index_with(dir.path(), options);
    let queries: Vec<Vec<f32>> = reference().into_iter().map(|(_, v)| v).collect();
    let _ = search(&index, &queries[0], 3);
    assert_eq!(index.wait_for_graph(), Some(30));
    // Rows 30..=64 reach the state but not the graph, which is told it covers them: a graph
    // search that "missed" them. Row 64 (in the guard's sample) is the twin of query 5.
    {
        let mut state = index.state.write();
        for row in 30..=64 {
            let mut meta = meta(&format!("late/r{row}"), &[]);
            meta.hash = String::new();
            let source = if row == 64 { &queries[5] } else { &queries[row % 30] };
            let negated: Vec<f32> =
                source.iter().map(|x| if row == 64 { *x } else { -x }).collect();
            let bytes: Vec<u8> = negated.iter().flat_map(|x| x.to_le_bytes()).collect();
            let record = log::Span { at: 0, len: 0 };
            state.apply(log::Entry::Add { meta, vector: &bytes, record });
        }
        let rows = state.row_count();
        let graph = state.graph.as_mut().expect("graph");
        graph.insert(Vec::new(), Rows::default(), rows);
        assert!(graph.barrier());
    }
    assert_eq!(index.wait_for_graph(), Some(65));
    {
        let state = index.state.read();
        assert_eq!(state.guard.len(), 3 * 384, "rows 0, 32 and 64 are in the guard sample");
        assert_eq!(state.guard[2 * 384..], state.rows.vector(64));
    }
    let found = search(&index, &queries[5], 2);
    assert_eq!(keys(&found)[0], "late/r64", "found by the scan after the guard fired: {found:?}");
}

#[test]
fn distance_never_panics_or_goes_negative() {
    use hnsw_rs::prelude::Distance;
    let v: Vec<f32> = reference().remove(0).1;
    let d = graph::DotClamped;
    assert_eq!(d.eval(&v, &v), 0.0);
    let scaled: Vec<f32> = v.iter().map(|x| x * 1.01).collect();
    assert_eq!(d.eval(&v, &scaled), 0.0);
    let negated: Vec<f32> = v.iter().map(|x| -x).collect();
    assert!((d.eval(&v, &negated) - 2.0).abs() < 1e-5);
    let nan = vec![f32::NAN; v.len()];
    assert_eq!(d.eval(&v, &nan), 0.0);
}

#[test]
fn top_k_keeps_the_best() {
    let mut top = scan::TopK::new(3);
    for (row, score) in [(0, 0.1), (1, 0.9), (2, 0.5), (3, 0.95), (4, -1.0), (5, 0.5)] {
        top.push(row, score);
    }
    assert_eq!(top.into_sorted(), [(3, 0.95), (1, 0.9), (2, 0.5)]);
    let a: Vec<f32> = (0..19).map(|i| i as f32).collect();
    assert_eq!(scan::dot(&a, &a), (0..19).map(|i| (i * i) as f32).sum::<f32>());
}

#[test]
fn hash_detects_changes() {
    let a = b"some bytes to hash, longer than one block of thirty-two bytes";
    let mut b = *a;
    b[40] ^= 1;
    assert_ne!(log::hash64(a, 0), log::hash64(&b, 0));
    assert_ne!(log::hash64(a, 0), log::hash64(a, 1));
    assert_eq!(log::hash64(a, 7), log::hash64(a, 7));
}

/// Unit vectors mixed from the MiniLM reference vectors (more clustered than real embeddings).
fn mixed_minilm_rows(n: usize) -> Vec<Vec<f32>> {
    let reference = reference();
    let m = reference.len();
    (0..n)
        .map(|i| {
            let (a, b, c) = (i % m, (i * 7 + 3) % m, (i * 13 + 5) % m);
            let mut v: Vec<f32> = (0..reference[a].1.len())
                .map(|d| {
                    reference[a].1[d] + 0.5 * reference[b].1[d] + 0.25 * reference[c].1[d]
                        - 0.1 * ((i * 31 + d * 17) % 11) as f32 / 11.0
                })
                .collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| *x /= norm);
            v
        })
        .collect()
}

#[test]
fn the_sign_bit_scan_returns_the_float_scans_neighbours_with_exact_scores() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rows = mixed_minilm_rows(6_000);
    let writer = VectorIndex::open_with(dir.path(), 384, "minilm", exact_options()).expect("open");
    let items: Vec<_> = rows
        .iter()
        .enumerate()
        .map(|(i, v)| (meta(&format!("c{}/r{i}", i % 5), &[]), v.clone()))
        .collect();
    writer.upsert(&items).expect("upsert");
    writer.remove(&[k("c0/r0"), k("c1/r1")]).expect("remove");
    let float = VectorOptions { quantized_scan_min_rows: usize::MAX, ..exact_options() };
    let float = VectorIndex::open_with(dir.path(), 384, "minilm", float).expect("open");
    assert!(exact_options().quantized_scan_min_rows <= rows.len(), "the sign-bit path is tested");
    let (mut found, mut wanted) = (0, 0);
    let only_c2 = DocFilter { collections: vec!["c2".into()], ..DocFilter::default() };
    for (_, query) in reference() {
        for filter in [DocFilter::default(), only_c2.clone()] {
            let truth = float.search(&query, 10, &filter, None).expect("float scan");
            let got = writer.search(&query, 10, &filter, None).expect("sign-bit scan");
            assert_eq!(got.len(), 10);
            for (key, score) in &got {
                let exact = truth.iter().find(|(k, _)| k == key).map(|(_, s)| *s);
                let state = writer.state.read();
                let row = state.by_key[key] as usize;
                assert_eq!(*score, scan::dot(&query, &state.rows.vector(row)), "exact score");
                let name = key.to_string();
                assert!(filter.collections.is_empty() || name.starts_with("c2/"), "{name}");
                assert!(name != "c0/r0" && name != "c1/r1", "{name} was removed");
                found += usize::from(exact.is_some());
            }
            wanted += truth.len();
        }
    }
    let recall = found as f64 / wanted as f64;
    // Mixtures of 30 sentences: far more clustered than real memories, so a hard case for
    // sign bits (the 97k bench passages need a shorter list for recall 1.0).
    assert!(recall >= 0.99, "recall@10 of the sign-bit scan against the float scan: {recall}");
}

#[test]
fn rows_read_from_the_log_score_exactly_as_rows_in_memory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let open = |rows_on_disk_min_rows| {
        let options = VectorOptions { rows_on_disk_min_rows, ..compacting_options() };
        VectorIndex::open_with(dir.path(), 384, "all-MiniLM-L6-v2-int8", options).expect("open")
    };
    let vectors: Vec<Vec<f32>> = reference().into_iter().map(|(_, v)| v).collect();
    let items = |from: usize, tag: &str| -> Vec<(DocMeta, Vec<f32>)> {
        (from..vectors.len())
            .map(|i| (meta(&format!("c/{i:02}"), &[tag]), vectors[i].clone()))
            .collect()
    };
    let writer = open(usize::MAX);
    writer.upsert(&items(0, "first")).expect("upsert");
    // Two processes that load the log: one keeps its rows in memory, one reads them from it.
    let (memory, disk) = (open(usize::MAX), open(1));
    memory.load().expect("load");
    disk.load().expect("load");
    assert!(memory.state.read().rows.in_memory().is_some());
    assert!(disk.state.read().rows.in_memory().is_none());
    let same = |when: &str| {
        for (i, q) in vectors.iter().enumerate() {
            let scan = search(&memory, q, 5);
            assert_eq!(scan, search(&disk, q, 5), "{when}: query {i}");
            assert_eq!(scan[0].0.to_string(), format!("c/{i:02}"), "{when}: query {i}");
            let allow: HashSet<MemoryRef> =
                scan.iter().skip(1).map(|(key, _)| key.clone()).collect();
            let allowed =
                |index: &VectorIndex| index.search(q, 2, &DocFilter::default(), Some(&allow));
            assert_eq!(allowed(&memory).expect("search"), allowed(&disk).expect("search"));
        }
    };
    same("loaded");
    // Rows the writer appends (read as a tail) and rows the reader writes itself.
    writer.upsert(&items(20, "second")).expect("replace");
    disk.upsert(&items(28, "third")).expect("replace");
    memory.refresh().expect("refresh");
    disk.refresh().expect("refresh");
    assert_eq!(disk.state.read().row_count(), 42, "not compacted yet");
    same("appended");
    // Enough replacements for the process that reads from the log to compact it.
    disk.upsert(&items(0, "fourth")).expect("replace");
    assert_eq!(disk.state.read().row_count(), 30, "compacted from the rows on disk");
    memory.refresh().expect("refresh");
    same("compacted");
}

#[test]
fn a_record_damaged_after_loading_is_an_index_error_not_a_wrong_score() {
    use std::os::unix::fs::FileExt;

    let dir = tempfile::tempdir().expect("tempdir");
    let index = VectorIndex::open_with(dir.path(), 384, "all-MiniLM-L6-v2-int8", exact_options())
        .expect("open");
    let vectors: Vec<Vec<f32>> = reference().into_iter().map(|(_, v)| v).collect();
    let items: Vec<_> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| (meta(&format!("c/{i:02}"), &[]), v.clone()))
        .collect();
    index.upsert(&items).expect("upsert");
    index.load().expect("load");
    assert!(index.state.read().rows.in_memory().is_none(), "rows read from the log");
    assert_eq!(search(&index, &vectors[3], 1)[0].0.to_string(), "c/03");
    // One bit of the last record's vector flipped in place (same file, same length).
    let log =
        OpenOptions::new().read(true).write(true).open(dir.path().join(LOG_FILE)).expect("log");
    let last = log.metadata().expect("metadata").len() - 1;
    let mut byte = [0u8];
    log.read_exact_at(&mut byte, last).expect("read");
    log.write_all_at(&[byte[0] ^ 1], last).expect("damage");
    let failed = index.search(&vectors[3], 1, &DocFilter::default(), None).expect_err("damaged");
    assert_eq!(failed.category(), Category::Index, "{failed}");
    assert!(failed.to_string().contains("damaged"), "{failed}");
}
