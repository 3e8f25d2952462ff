//! Vectors kept in PostgreSQL for every machine (`memcore_vectors`): a machine that indexes
//! memories another one embedded takes their vectors instead of running the model, and only
//! ever the vectors of the same model and text. Real cluster, real ONNX model (counted by a
//! wrapper, to see what each machine embedded).
#![cfg(feature = "postgres")]
#![allow(clippy::unwrap_used)]

mod counted;
mod pgcluster;

use std::path::Path;
use std::sync::Arc;

use counted::Counted;
use memcore::{
    Config, Embedder, Memcore, MemoryUpdate, NewMemory, PostgresStore, Query, SearchMode,
};

fn config(namespace: &str, share: bool) -> Config {
    let mut config = pgcluster::config(pgcluster::shared().url(), namespace);
    config.postgres.share_vectors = share;
    config
}

/// A machine: a handle over `namespace` with its indexes in `dir`, embedding with `embedder`.
fn machine(dir: &Path, config: &Config, embedder: &Arc<Counted>) -> Memcore {
    let store = PostgresStore::open(dir, config).unwrap();
    let embedder: Arc<dyn Embedder> = Arc::clone(embedder) as Arc<dyn Embedder>;
    Memcore::builder().store(store).config(config.clone()).embedder(embedder).open().unwrap()
}

/// The ids a semantic search for `text` finds, best first.
fn nearest(memcore: &Memcore, text: &str) -> Vec<String> {
    let query = Query::new(text).mode(SearchMode::Semantic).limit(5);
    let results = memcore.search(&query).unwrap();
    assert!(results.warnings.is_empty(), "{:?}", results.warnings);
    results.hits.iter().map(|hit| hit.memory.id.to_string()).collect()
}

const NOTES: [(&str, &str); 6] = [
    ("deploys", "The fleet deploys on Tuesdays after the morning stand-up."),
    ("heron", "A grey heron nests by the reservoir every spring."),
    ("db", "The staging database runs PostgreSQL 15 on the old rack."),
    ("coffee", "Ann drinks her coffee black, no sugar."),
    ("train", "The last train to the coast leaves at 23:10."),
    ("keys", "The spare office keys hang behind the fire door."),
];

fn write_notes(memcore: &Memcore) {
    let notes = NOTES.iter().map(|(id, text)| NewMemory::new(*text).id(*id)).collect();
    memcore.put_many(notes).unwrap();
}

fn kept_vectors(namespace: &str) -> i64 {
    pgcluster::shared()
        .client()
        .query_one("SELECT count(*) FROM memcore_vectors WHERE namespace = $1", &[&namespace])
        .unwrap()
        .get(0)
}

#[test]
fn a_new_machine_takes_the_vectors_another_embedded() {
    let namespace = pgcluster::namespace();
    let config = config(&namespace, true);
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (embed_a, embed_b) = (Counted::new(), Counted::new());
    let a = machine(dir_a.path(), &config, &embed_a);
    write_notes(&a);
    assert_eq!(embed_a.texts(), NOTES.len());
    assert_eq!(kept_vectors(&namespace), NOTES.len() as i64);

    // B builds its indexes from the database on open, taking A's vectors.
    let b = machine(dir_b.path(), &config, &embed_b);
    assert_eq!(embed_b.texts(), 0, "B embedded what A had");
    let question = "when does the fleet deploy";
    assert_eq!(nearest(&b, question), nearest(&a, question));
    assert_eq!(nearest(&b, question)[0], "deploys");
    assert_eq!(embed_b.texts(), 1, "B embeds its question only");
    assert!(b.verify().unwrap().consistent);

    // A's later writes travel with their vectors: B's sync embeds nothing.
    a.update("heron", MemoryUpdate::new().content("Two herons and a cormorant share the weir."))
        .unwrap();
    a.put(NewMemory::new("Invoices go out on the first of the month.").id("invoices")).unwrap();
    assert_eq!(b.sync().unwrap().synced, 2);
    assert_eq!(embed_b.texts(), 1, "B embedded what A had");
    assert_eq!(nearest(&b, "birds at the weir")[0], "heron");
    assert_eq!(nearest(&b, "billing each month")[0], "invoices");

    // A deleted memory's vector goes with it.
    a.delete("train").unwrap();
    assert_eq!(kept_vectors(&namespace), NOTES.len() as i64);
}

#[test]
fn a_vector_the_writer_gave_is_not_kept_for_other_machines() {
    let namespace = pgcluster::namespace();
    let config = config(&namespace, true);
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = machine(dir_a.path(), &config, &Counted::new());
    let heron = counted::model().embed(&["A grey heron nests by the reservoir."]).unwrap();
    a.put(NewMemory::new("Note 17.").id("note").vector(heron[0].clone())).unwrap();
    a.put(NewMemory::new("The fleet deploys on Tuesdays.").id("deploys")).unwrap();
    assert_eq!(kept_vectors(&namespace), 1, "only the model's vector of a text is kept");
    // Another machine embeds the memory's text: the given vector was this writer's.
    let embed_b = Counted::new();
    let b = machine(dir_b.path(), &config, &embed_b);
    assert_eq!(embed_b.texts(), 1);
    assert!(b.verify().unwrap().consistent);
}

#[test]
fn only_vectors_of_the_same_model_and_text_are_taken() {
    let namespace = pgcluster::namespace();
    let config = config(&namespace, true);
    let dir_a = tempfile::tempdir().unwrap();
    let a = machine(dir_a.path(), &config, &Counted::new());
    write_notes(&a);

    // A memory changed behind the back of every vector (a row edited in the database) and a
    // vector damaged (a length that is no whole number of floats) are embedded anew.
    let client = &mut pgcluster::shared().client();
    client
        .execute(
            "UPDATE memcore_memories SET content = 'The train now leaves at 22:40.' \
             WHERE namespace = $1 AND id = 'train'",
            &[&namespace],
        )
        .unwrap();
    client
        .execute(
            "UPDATE memcore_vectors SET vector = '\\x010203' WHERE namespace = $1 AND id = 'keys'",
            &[&namespace],
        )
        .unwrap();
    let (dir_b, embed_b) = (tempfile::tempdir().unwrap(), Counted::new());
    let b = machine(dir_b.path(), &config, &embed_b);
    assert_eq!(embed_b.texts(), 2, "the changed memory and the damaged vector");
    assert_eq!(nearest(&b, "departure time of the train")[0], "train");
    assert_eq!(nearest(&b, "where are the spare keys")[0], "keys");

    // Another model takes none of them, and keeps its own beside them.
    let (dir_c, embed_c) = (tempfile::tempdir().unwrap(), Counted::named("another-model"));
    let _c = machine(dir_c.path(), &config, &embed_c);
    assert_eq!(embed_c.texts(), NOTES.len());
    assert_eq!(kept_vectors(&namespace), 2 * NOTES.len() as i64);
}

#[test]
fn without_share_vectors_nothing_is_kept_and_every_machine_embeds() {
    let namespace = pgcluster::namespace();
    let config = config(&namespace, false);
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = machine(dir_a.path(), &config, &Counted::new());
    write_notes(&a);
    assert_eq!(kept_vectors(&namespace), 0);
    let embed_b = Counted::new();
    let _b = machine(dir_b.path(), &config, &embed_b);
    assert_eq!(embed_b.texts(), NOTES.len());
}

#[test]
fn repair_removes_vectors_left_for_deleted_memories() {
    let namespace = pgcluster::namespace();
    let config = config(&namespace, true);
    let dir = tempfile::tempdir().unwrap();
    let a = machine(dir.path(), &config, &Counted::new());
    write_notes(&a);
    // A vector kept by a machine that embedded a memory while another deleted it.
    pgcluster::shared()
        .client()
        .execute(
            "DELETE FROM memcore_memories WHERE namespace = $1 AND id = 'coffee'",
            &[&namespace],
        )
        .unwrap();
    assert_eq!(kept_vectors(&namespace), NOTES.len() as i64);
    let report = a.repair().unwrap();
    assert_eq!(report.leftovers, 1, "{report:?}");
    assert_eq!(kept_vectors(&namespace), NOTES.len() as i64 - 1);
}

#[test]
fn a_database_of_schema_version_1_is_migrated_and_keeps_its_memories() {
    let cluster = pgcluster::shared();
    let url = cluster.database("schema_v1");
    let config = pgcluster::config(&url, "old");
    let dir = tempfile::tempdir().unwrap();
    let store = PostgresStore::open(dir.path(), &config).unwrap();
    let memcore = Memcore::builder().store(store).config(config.clone()).open().unwrap();
    memcore.put(NewMemory::new("written before vectors were kept").id("old")).unwrap();
    drop(memcore);
    // Back to what memcore 0.x with schema version 1 left.
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client
        .batch_execute("DROP TABLE memcore_vectors; UPDATE memcore_schema SET version = 1")
        .unwrap();

    let (dir_b, embed_b) = (tempfile::tempdir().unwrap(), Counted::new());
    let b = machine(dir_b.path(), &config, &embed_b);
    let version: i32 = client.query_one("SELECT version FROM memcore_schema", &[]).unwrap().get(0);
    assert_eq!(version, 2);
    assert_eq!(b.get("old").unwrap().content, "written before vectors were kept");
    assert_eq!(embed_b.texts(), 1);
    let kept: i64 = client.query_one("SELECT count(*) FROM memcore_vectors", &[]).unwrap().get(0);
    assert_eq!(kept, 1);
}

#[test]
fn a_batch_naming_a_memory_twice_keeps_its_last_vector() {
    let namespace = pgcluster::namespace();
    let config = config(&namespace, true);
    let dir_a = tempfile::tempdir().unwrap();
    let a = machine(dir_a.path(), &config, &Counted::new());
    a.put_many(vec![
        NewMemory::new("The ferry leaves at noon.").id("ferry"),
        NewMemory::new("The ferry now leaves at one.").id("ferry"),
        NewMemory::new("Lunch is at the harbour cafe.").id("lunch"),
    ])
    .unwrap();
    let (dir_b, embed_b) = (tempfile::tempdir().unwrap(), Counted::new());
    let b = machine(dir_b.path(), &config, &embed_b);
    assert_eq!(embed_b.texts(), 0, "B embedded what A had");
    assert_eq!(nearest(&b, "when does the boat go")[0], "ferry");
}
