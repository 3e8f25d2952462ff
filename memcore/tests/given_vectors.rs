//! Vectors the caller brings (precomputed embeddings): `NewMemory::vector` on put and
//! `Query::vector` on search are taken instead of running the embedder, checked against its
//! dimension, and a bad one writes nothing. The embedder is the real ONNX model, wrapped to
//! count what it embeds.
#![allow(clippy::unwrap_used)]

mod counted;

use std::path::Path;
use std::sync::Arc;

use counted::{Counted, model};
use memcore::{Config, Embedder, Error, Memcore, NewMemory, Query, SearchMode};

/// A store in `dir` embedding with a counted model.
fn open(dir: &Path) -> (Memcore, Arc<Counted>) {
    let counted = Counted::new();
    let embedder = Arc::clone(&counted) as Arc<dyn Embedder>;
    (Memcore::builder().path(dir).embedder(embedder).open().unwrap(), counted)
}

/// The model's vector of `text`.
fn vector_of(text: &str) -> Vec<f32> {
    model().embed(&[text]).unwrap().remove(0)
}

/// The ids a semantic search with `query` finds, best first.
fn nearest(memcore: &Memcore, query: Query) -> Vec<String> {
    let results = memcore.search(&query.mode(SearchMode::Semantic).limit(3)).unwrap();
    assert!(results.warnings.is_empty(), "{:?}", results.warnings);
    results.hits.iter().map(|hit| hit.memory.id.to_string()).collect()
}

#[test]
fn a_given_vector_is_indexed_instead_of_the_memorys_text() {
    let dir = tempfile::tempdir().unwrap();
    let (memcore, counted) = open(dir.path());
    memcore.put(NewMemory::new("The fleet deploys on Tuesdays.").id("deploys")).unwrap();
    let before = counted.texts();
    // The text says nothing of birds; the vector given for it does.
    let heron = vector_of("A grey heron nests by the reservoir every spring.");
    memcore.put(NewMemory::new("Note 17.").id("note").vector(heron.clone())).unwrap();
    assert_eq!(counted.texts(), before, "a memory with a vector is not embedded");

    assert_eq!(nearest(&memcore, Query::new("where do the birds nest?"))[0], "note");
    assert_eq!(nearest(&memcore, Query::new("release schedule"))[0], "deploys");
}

#[test]
fn a_batch_embeds_only_the_memories_without_a_vector() {
    let dir = tempfile::tempdir().unwrap();
    let (memcore, counted) = open(dir.path());
    memcore.put(NewMemory::new("warm-up").id("warm-up")).unwrap();
    let before = counted.texts();
    let memories = vec![
        NewMemory::new("First.")
            .id("a")
            .vector(vector_of("The spare office keys hang behind the fire door.")),
        NewMemory::new("The last train to the coast leaves at 23:10.").id("b"),
        NewMemory::new("Third.")
            .id("c")
            .vector(vector_of("Ann drinks her coffee black, no sugar.")),
    ];
    memcore.put_many(memories).unwrap();
    assert_eq!(counted.texts() - before, 1, "only the memory without a vector is embedded");
    assert_eq!(nearest(&memcore, Query::new("where are the keys?"))[0], "a");
    assert_eq!(nearest(&memcore, Query::new("how does Ann take her coffee?"))[0], "c");
    assert_eq!(nearest(&memcore, Query::new("when is the last train?"))[0], "b");
}

#[test]
fn a_query_vector_is_searched_instead_of_the_querys_text() {
    let dir = tempfile::tempdir().unwrap();
    let (memcore, counted) = open(dir.path());
    memcore.put(NewMemory::new("The fleet deploys on Tuesdays.").id("deploys")).unwrap();
    memcore.put(NewMemory::new("A grey heron nests by the reservoir.").id("heron")).unwrap();
    let birds = vector_of("which birds live near the water?");
    let before = counted.texts();
    assert_eq!(nearest(&memcore, Query::new("deploys").vector(birds.clone()))[0], "heron");
    // In semantic mode the vector alone will do; the other modes need words.
    assert_eq!(nearest(&memcore, Query::new("").vector(birds.clone()))[0], "heron");
    let words_needed = Query::new(" ").vector(birds.clone()).mode(SearchMode::Text);
    assert!(matches!(memcore.search(&words_needed), Err(Error::Validation { .. })));
    // Hybrid: the words still go to full-text search, the vector to the vector index.
    let hybrid = memcore.search(&Query::new("Tuesdays").vector(birds).limit(2)).unwrap();
    let parts: Vec<_> =
        hybrid.hits.iter().map(|hit| (hit.memory.id.to_string(), hit.parts)).collect();
    let deploys = parts.iter().find(|(id, _)| id == "deploys").unwrap().1;
    let heron = parts.iter().find(|(id, _)| id == "heron").unwrap().1;
    assert!(deploys.text_rank == Some(1), "{parts:?}");
    assert!(heron.vector_rank == Some(1), "{parts:?}");
    assert_eq!(counted.texts(), before, "a query with a vector is not embedded");
}

#[test]
fn a_bad_vector_is_a_validation_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (memcore, _) = open(dir.path());
    let good = vector_of("anything");
    let mut nan = good.clone();
    nan[3] = f32::NAN;
    let bad = [
        (vec![0.5; 3], "has 3 values"),
        (nan, "not a finite number"),
        (vec![0.0; good.len()], "length of zero"),
        (vec![1e20; good.len()], "too large to compute"),
    ];
    for (vector, says) in bad {
        let batch = vec![
            NewMemory::new("fine").id("fine"),
            NewMemory::new("bad").id("bad").vector(vector.clone()),
        ];
        let err = memcore.put_many(batch).unwrap_err();
        assert!(matches!(err, Error::Validation { .. }), "{err:?}");
        assert!(err.to_string().contains(says), "{err}");
        assert!(err.to_string().contains("memory 2 of 2"), "{err}");
        assert!(memcore.get("fine").is_err(), "nothing is written");

        let err = memcore.search(&Query::new("x").vector(vector)).unwrap_err();
        assert!(matches!(err, Error::Validation { .. }), "{err:?}");
        assert!(err.to_string().contains("the query's vector"), "{err}");
    }
}

#[test]
fn a_vector_without_a_vector_index_is_an_embedding_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.embedding.enabled = false;
    let memcore = Memcore::builder().path(dir.path()).config(config).open().unwrap();
    let err = memcore.put(NewMemory::new("x").id("x").vector(vec![1.0; 384])).unwrap_err();
    assert!(matches!(err, Error::Embedding { .. }), "{err:?}");
    assert!(memcore.get("x").is_err(), "nothing is written");
    // A search by a vector alone cannot fall back on words; one with words does.
    let by_vector = Query::new("").mode(SearchMode::Semantic).vector(vec![1.0; 384]);
    let err = memcore.search(&by_vector).unwrap_err();
    assert!(matches!(err, Error::Embedding { .. }), "{err:?}");
    let with_words = memcore.search(&Query::new("x").vector(vec![1.0; 384])).unwrap();
    assert_eq!(with_words.mode, SearchMode::Text);
    assert_eq!(with_words.warnings.len(), 1, "{:?}", with_words.warnings);
    // Without a vector the same store writes (full text only).
    memcore.put(NewMemory::new("x").id("x")).unwrap();
}

#[test]
fn a_rebuild_embeds_the_memory_again_with_the_stores_embedder() {
    let dir = tempfile::tempdir().unwrap();
    let (memcore, _) = open(dir.path());
    let heron = vector_of("A grey heron nests by the reservoir every spring.");
    memcore.put(NewMemory::new("Note 17.").id("note").vector(heron)).unwrap();
    let similarity = |memcore: &Memcore| {
        let query = Query::new("birds nesting").mode(SearchMode::Semantic);
        memcore.search(&query).unwrap().hits[0].parts.vector_similarity.unwrap()
    };
    let given = similarity(&memcore);
    memcore.reindex(&mut |_| {}).unwrap();
    let embedded = similarity(&memcore);
    assert!(embedded < given - 0.1, "the rebuild embedded the text: {given} -> {embedded}");
}
