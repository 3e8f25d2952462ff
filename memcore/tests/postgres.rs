//! The PostgreSQL backend beyond the conformance suite: opening from a config, several
//! machines (handles with local indexes of their own) following each other's writes, faults
//! (a lost connection, a restarting server, a killed writer), bad input and SQL
//! metacharacters. Every test runs against a real cluster (`scripts/pg-cluster`).
#![cfg(feature = "postgres")]
#![allow(clippy::unwrap_used)]

mod pgcluster;

use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use memcore::{
    Category, Config, Memcore, MemoryStore, NewMemory, PostgresStore, Query, SearchMode,
};

/// A handle over `namespace` of the shared cluster with its indexes in `dir`.
fn open(dir: &Path, namespace: &str) -> Memcore {
    let config = pgcluster::config(pgcluster::shared().url(), namespace);
    open_with(dir, config)
}

fn open_with(dir: &Path, config: Config) -> Memcore {
    let store = PostgresStore::open(dir, &config).unwrap();
    Memcore::builder().store(store).config(config).open().unwrap()
}

/// The ids a full-text search for `word` finds, sorted.
fn found(memcore: &Memcore, word: &str) -> Vec<String> {
    let query = Query::new(word).mode(SearchMode::Text).limit(1000);
    let mut ids: Vec<String> =
        memcore.search(&query).unwrap().hits.iter().map(|hit| hit.memory.id.to_string()).collect();
    ids.sort();
    ids
}

#[test]
fn a_store_directory_whose_config_names_postgres_opens_it() {
    let dir = tempfile::tempdir().unwrap();
    let namespace = pgcluster::namespace();
    let yaml = format!(
        "backend: postgres\npostgres:\n  url: \"{}\"\n  namespace: {namespace}\nembedding:\n  enabled: false\n",
        pgcluster::shared().url()
    );
    std::fs::write(dir.path().join("config.yaml"), yaml).unwrap();
    let memcore = Memcore::builder().path(dir.path()).open().unwrap();
    memcore.put(NewMemory::new("The fleet deploys on Tuesdays.").id("deploys")).unwrap();
    assert_eq!(memcore.get("deploys").unwrap().content, "The fleet deploys on Tuesdays.");
    assert_eq!(found(&memcore, "tuesdays"), ["deploys"]);
    // The memories are rows, the indexes local files.
    let count: i64 = pgcluster::shared()
        .client()
        .query_one("SELECT count(*) FROM memcore_memories WHERE namespace = $1", &[&namespace])
        .unwrap()
        .get(0);
    assert_eq!(count, 1);
    assert!(dir.path().join(memcore::PRIVATE_DIR).join("index").is_dir());
}

#[test]
fn two_machines_writing_at_once_see_each_others_memories_after_sync() {
    let namespace = pgcluster::namespace();
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b) = (open(dir_a.path(), &namespace), open(dir_b.path(), &namespace));
    thread::scope(|scope| {
        for (name, memcore) in [("a", &a), ("b", &b)] {
            scope.spawn(move || {
                for i in 0..40 {
                    let text = format!("shared fleet note {i} written by {name}");
                    memcore.put(NewMemory::new(text).id(format!("{name}-{i}"))).unwrap();
                }
            });
        }
    });
    a.sync().unwrap();
    b.sync().unwrap();
    let everything: Vec<String> = {
        let mut ids: Vec<String> =
            ["a", "b"].iter().flat_map(|n| (0..40).map(move |i| format!("{n}-{i}"))).collect();
        ids.sort();
        ids
    };
    assert_eq!(found(&a, "fleet"), everything);
    assert_eq!(found(&b, "fleet"), everything);

    // Changes and deletions travel too.
    a.update("b-1", memcore::MemoryUpdate::new().content("rewritten by a")).unwrap();
    a.delete("b-2").unwrap();
    let report = b.sync().unwrap();
    assert_eq!(report.synced, 2, "{report:?}");
    assert!(!found(&b, "fleet").contains(&"b-2".to_owned()));
    assert_eq!(found(&b, "rewritten"), ["b-1"]);
    assert!(b.verify().unwrap().consistent);
}

#[test]
fn a_search_follows_other_processes_writes_without_a_sync_call() {
    let namespace = pgcluster::namespace();
    let (dir_a, dir_b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (a, b) = (open(dir_a.path(), &namespace), open(dir_b.path(), &namespace));
    // Written after b opened, before b listens: b's first search still finds it.
    a.put(NewMemory::new("A grey heron nests by the reservoir.").id("heron")).unwrap();
    assert_eq!(found(&b, "heron"), ["heron"]);
    // Later writes reach b through its listener.
    a.put(NewMemory::new("A second heron joined it.").id("second")).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while found(&b, "heron").len() < 2 {
        assert!(Instant::now() < deadline, "b never heard of a's second write");
        thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn damaged_rows_are_reported_and_can_be_deleted_but_not_overwritten_by_create_only() {
    let namespace = pgcluster::namespace();
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path(), &namespace);
    memcore.put(NewMemory::new("soon damaged").id("broken")).unwrap();
    memcore.put(NewMemory::new("also damaged").id("broken2")).unwrap();
    pgcluster::shared()
        .client()
        .execute(
            "UPDATE memcore_memories SET frontmatter = '\"not an object\"' WHERE namespace = $1",
            &[&namespace],
        )
        .unwrap();
    let err = memcore.get("memory/broken").unwrap_err();
    assert_eq!(err.category(), Category::Parse, "{err}");
    assert!(err.to_string().contains(&format!("postgres:{namespace}/memory/broken")), "{err}");
    let err = memcore
        .put_with(NewMemory::new("new").id("broken"), memcore::PutMode::CreateOnly)
        .unwrap_err();
    assert_eq!(err.category(), Category::Conflict, "{err}");
    memcore.delete("memory/broken").unwrap();
    // Restoring over a damaged live memory is a conflict, as over a live one.
    memcore.put(NewMemory::new("gone").id("gone")).unwrap();
    memcore.delete("gone").unwrap();
    pgcluster::shared()
        .client()
        .execute(
            "UPDATE memcore_trash SET id = 'broken2' WHERE namespace = $1 AND id = 'gone'",
            &[&namespace],
        )
        .unwrap();
    let err = memcore.restore("memory/broken2").unwrap_err();
    assert_eq!(err.category(), Category::Conflict, "{err}");
    // An upsert replaces the damaged row, whose text stays in the trash.
    let stored = memcore.put(NewMemory::new("mended").id("broken2")).unwrap();
    assert_eq!((stored.version, memcore.get("broken2").unwrap().content.as_str()), (1, "mended"));
}

#[test]
fn history_of_a_memory_made_anew_keeps_the_new_versions() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path(), &pgcluster::namespace());
    memcore.put(NewMemory::new("A").id("x")).unwrap();
    memcore.put(NewMemory::new("B").id("x")).unwrap();
    memcore.delete("x").unwrap();
    memcore.put(NewMemory::new("C").id("x")).unwrap();
    memcore.put(NewMemory::new("D").id("x")).unwrap();
    assert_eq!(memcore.get_version("x", "1").unwrap().content, "C");
    assert_eq!(memcore.get("x").unwrap().content, "D");
}

#[test]
fn sql_metacharacters_are_stored_as_data() {
    let evil = "'; DROP TABLE memories; --";
    let namespace = format!("{}{evil}", pgcluster::namespace());
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path(), &namespace);
    let stored = memcore
        .put(NewMemory::new(format!("{evil} \" \\ $1 %s")).id("evil").tags([evil]).summary(evil))
        .unwrap();
    let got = memcore.get("evil").unwrap();
    assert_eq!(got, stored);
    assert_eq!(got.tags, [evil]);
    assert_eq!(got.content, format!("{evil} \" \\ $1 %s"));
    // NUL cannot be stored in PostgreSQL text: refused before any SQL runs, nothing written.
    for new in [NewMemory::new("a\0b").id("nul"), NewMemory::new("x").id("nul").meta("k", "a\0b")] {
        let err = memcore.put(new).unwrap_err();
        assert_eq!(err.category(), Category::Validation, "{err}");
        assert!(err.to_string().contains("NUL"), "{err}");
    }
    assert_eq!(memcore.get("nul").unwrap_err().category(), Category::NotFound);
    // An id cannot hold them: memcore's names are validated before any SQL runs.
    let err = memcore.put(NewMemory::new("x").id(evil)).unwrap_err();
    assert_eq!(err.category(), Category::Validation, "{err}");
    let tables: i64 = pgcluster::shared()
        .client()
        .query_one("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'memcore_%'", &[])
        .unwrap()
        .get(0);
    assert_eq!(tables, 6);
}

#[test]
fn a_restarting_server_gives_a_retryable_error_and_loses_nothing() {
    let cluster = pgcluster::Cluster::start();
    let dir = tempfile::tempdir().unwrap();
    let memcore = open_with(dir.path(), pgcluster::config(cluster.url(), "restart"));
    memcore.put(NewMemory::new("before the restart").id("before")).unwrap();
    cluster.halt();
    let err = memcore.put(NewMemory::new("during the restart").id("during")).unwrap_err();
    assert_eq!(err.category(), Category::Storage, "{err}");
    assert!(err.recovery().contains("retry"), "{}", err.recovery());
    cluster.resume();
    memcore.put(NewMemory::new("during the restart").id("during")).unwrap();
    assert_eq!(memcore.get("before").unwrap().content, "before the restart");
    assert_eq!(found(&memcore, "restart"), ["before", "during"]);
}

#[test]
fn a_connection_lost_mid_session_is_retryable() {
    // A database of its own, so that killing its connections touches no other test.
    let url = pgcluster::shared().database("lost_connection");
    let dir = tempfile::tempdir().unwrap();
    let memcore = open_with(dir.path(), pgcluster::config(&url, "lost"));
    memcore.put(NewMemory::new("first").id("first")).unwrap();
    let killed: i64 = pgcluster::shared()
        .client()
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
             WHERE datname = 'lost_connection' AND application_name = 'memcore'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(killed, 1);
    let err = memcore.put(NewMemory::new("second").id("second")).unwrap_err();
    assert_eq!(err.category(), Category::Storage, "{err}");
    assert!(err.recovery().contains("retry"), "{}", err.recovery());
    memcore.put(NewMemory::new("second").id("second")).unwrap();
    assert_eq!(memcore.get("first").unwrap().content, "first");
    assert_eq!(memcore.get("second").unwrap().content, "second");
}

#[test]
fn bad_urls_and_credentials_are_typed_errors_that_hide_the_password() {
    let dir = tempfile::tempdir().unwrap();
    let url = pgcluster::shared().url();
    let password = url.split("password=").nth(1).unwrap().split(' ').next().unwrap().to_owned();
    let wrong = url.replace(&password, "not-the-password-42");
    let nowhere = "host=/nonexistent/socket/dir port=5432 user=memcore password=hunter2-secret";
    for (url, secret) in [(wrong.as_str(), "not-the-password-42"), (nowhere, "hunter2-secret")] {
        let err = PostgresStore::open(dir.path(), &pgcluster::config(url, "x")).unwrap_err();
        assert_eq!(err.category(), Category::Storage, "{err}");
        let shown = format!("{err} {} {err:?}", err.recovery());
        assert!(!shown.contains(secret), "{shown}");
        assert!(shown.contains("password=***"), "{shown}");
    }
    let err =
        PostgresStore::open(dir.path(), &pgcluster::config("postgres://a:b@h:notaport/", "x"))
            .unwrap_err();
    assert_eq!(err.category(), Category::Validation, "{err}");
    assert!(!err.to_string().contains(":b@"), "{err}");
    let mut config = pgcluster::config(url, "");
    let err = PostgresStore::open(dir.path(), &config).unwrap_err();
    assert_eq!(err.category(), Category::Validation, "{err}");
    if std::env::var_os(memcore::DATABASE_URL_VAR).is_none() {
        config.postgres.url = None;
        let err = config.postgres.database_url().unwrap_err();
        assert_eq!(err.category(), Category::Validation, "{err}");
        assert!(err.recovery().contains(memcore::DATABASE_URL_VAR));
    }
}

#[test]
fn a_schema_of_a_newer_memcore_is_refused_and_left_alone() {
    let cluster = pgcluster::shared();
    let url = cluster.database("newer_schema");
    let dir = tempfile::tempdir().unwrap();
    let memcore = open_with(dir.path(), pgcluster::config(&url, "n"));
    memcore.put(NewMemory::new("kept").id("kept")).unwrap();
    drop(memcore);
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client.execute("UPDATE memcore_schema SET version = 99", &[]).unwrap();
    let err = PostgresStore::open(dir.path(), &pgcluster::config(&url, "n")).unwrap_err();
    assert_eq!(err.category(), Category::Unsupported, "{err}");
    assert!(err.recovery().contains("upgrade memcore"), "{}", err.recovery());
    let version: i32 = client.query_one("SELECT version FROM memcore_schema", &[]).unwrap().get(0);
    assert_eq!(version, 99);
    let kept: i64 = client.query_one("SELECT count(*) FROM memcore_memories", &[]).unwrap().get(0);
    assert_eq!(kept, 1);
}

#[test]
fn verify_and_repair_compare_the_local_indexes_with_the_database() {
    let namespace = pgcluster::namespace();
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path(), &namespace);
    for i in 0..5 {
        memcore.put(NewMemory::new(format!("ledger entry {i}")).id(format!("e{i}"))).unwrap();
    }
    // A row removed behind memcore's back, leaving no trace in the change feed.
    pgcluster::shared()
        .client()
        .execute("DELETE FROM memcore_memories WHERE namespace = $1 AND id = 'e3'", &[&namespace])
        .unwrap();
    let report = memcore.verify().unwrap();
    assert!(!report.consistent, "{report:?}");
    let repaired = memcore.repair().unwrap();
    assert_eq!(repaired.removed, 1, "{repaired:?}");
    assert!(memcore.verify().unwrap().consistent);
    assert_eq!(found(&memcore, "ledger"), ["e0", "e1", "e2", "e4"]);
}

/// The batch size of [`writer_child`]; every batch is one transaction.
const CHILD_BATCH: usize = 200;

/// Not a test of its own: the writer process of
/// [`a_killed_writer_leaves_whole_batches_only`], which runs this test binary again with
/// `MEMCORE_PG_CHILD` set. Without it, it returns at once.
#[test]
fn writer_child() {
    let Ok(spec) = std::env::var("MEMCORE_PG_CHILD") else { return };
    let (url, namespace) = spec.split_once('\n').unwrap();
    let store = PostgresStore::open(
        tempfile::tempdir().unwrap().path(),
        &pgcluster::config(url, namespace),
    )
    .unwrap();
    let limits = memcore::Limits::default();
    let collection: memcore::Collection = "memory".parse().unwrap();
    for batch in 0.. {
        let memories = (0..CHILD_BATCH)
            .map(|i| {
                NewMemory::new(format!("batch {batch} memory {i} {}", "padding ".repeat(50)))
                    .id(format!("m{batch}-{i}"))
                    .into_memory(&collection, &limits, memcore::now())
                    .unwrap()
            })
            .collect();
        store.put_many(memories, memcore::PutMode::Upsert).unwrap();
    }
}

#[test]
fn a_killed_writer_leaves_whole_batches_only() {
    let namespace = pgcluster::namespace();
    let url = pgcluster::shared().url();
    let count = || -> i64 {
        pgcluster::shared()
            .client()
            .query_one("SELECT count(*) FROM memcore_memories WHERE namespace = $1", &[&namespace])
            .unwrap()
            .get(0)
    };
    let dir = tempfile::tempdir().unwrap();
    PostgresStore::open(dir.path(), &pgcluster::config(url, &namespace)).unwrap(); // the tables
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "writer_child", "--nocapture"])
        .env("MEMCORE_PG_CHILD", format!("{url}\n{namespace}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while count() < 2 * CHILD_BATCH as i64 {
        assert!(Instant::now() < deadline, "the writer wrote nothing");
        thread::sleep(Duration::from_millis(20));
    }
    thread::sleep(Duration::from_millis(37));
    child.kill().unwrap();
    child.wait().unwrap();
    let stored = count();
    assert_eq!(stored % CHILD_BATCH as i64, 0, "a batch was stored in part: {stored}");
    // The feed names exactly what is stored.
    let fed: i64 = pgcluster::shared()
        .client()
        .query_one("SELECT count(*) FROM memcore_changes WHERE namespace = $1", &[&namespace])
        .unwrap()
        .get(0);
    assert_eq!(fed, stored);
}

#[test]
fn history_is_pruned_to_max_versions_and_a_batch_may_name_a_memory_twice() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = pgcluster::config(pgcluster::shared().url(), &pgcluster::namespace());
    config.max_versions = 2;
    let memcore = open_with(dir.path(), config);
    for i in 1..=5 {
        memcore.put(NewMemory::new(format!("draft {i}")).id("draft")).unwrap();
    }
    let versions: Vec<Option<u64>> =
        memcore.versions("draft").unwrap().iter().map(|v| v.version).collect();
    assert_eq!(versions, [Some(3), Some(4), Some(5)]);
    assert_eq!(memcore.get_version("draft", "4").unwrap().content, "draft 4");
    let stored = memcore
        .put_many(vec![
            NewMemory::new("first take").id("twice"),
            NewMemory::new("second take").id("twice"),
        ])
        .unwrap();
    assert_eq!(stored.iter().map(|m| m.version).collect::<Vec<_>>(), [1, 2]);
    let got = memcore.get("twice").unwrap();
    assert_eq!((got.content.as_str(), got.version), ("second take", 2));
    assert_eq!(found(&memcore, "take"), ["twice"]);
}

#[test]
fn a_writer_holding_the_namespace_lock_past_lock_timeout_is_a_retryable_conflict() {
    let namespace = pgcluster::namespace();
    let dir = tempfile::tempdir().unwrap();
    let mut config = pgcluster::config(pgcluster::shared().url(), &namespace);
    config.lock_timeout_ms = 300;
    let memcore = open_with(dir.path(), config);
    let mut holder = pgcluster::shared().client();
    let mut tx = holder.transaction().unwrap();
    // The lock every write of the namespace takes (memcore's class `MEMC`).
    tx.execute("SELECT pg_advisory_xact_lock(1296387395, hashtext($1))", &[&namespace]).unwrap();
    let err = memcore.put(NewMemory::new("waits").id("waits")).unwrap_err();
    assert_eq!(err.category(), Category::Conflict, "{err}");
    assert!(err.recovery().contains("retry"), "{}", err.recovery());
    tx.rollback().unwrap();
    memcore.put(NewMemory::new("waits").id("waits")).unwrap();
}
