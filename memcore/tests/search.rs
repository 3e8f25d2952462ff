//! Search through the public API with the real embedding model: modes, filters, recency,
//! read-after-write, graceful degradation, and the index lifecycle (journal replay, verify,
//! repair, reindex).
//!
//! Needs the model files (`scripts/fetch-models`; `scripts/test-all` runs it first).

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::Path;

use memcore::{
    Category, Config, EmbeddingConfig, Maintenance, Memcore, MemoryUpdate, NewMemory, PutMode,
    Query, SearchMode, Status,
};

const NOTES: [(&str, &str, &str, &[&str]); 6] = [
    (
        "gpu",
        "knowledge",
        "GPU kernels run faster when small launches are batched together.",
        &["gpu", "performance"],
    ),
    (
        "cooking",
        "personal",
        "My grandmother's lasagna recipe needs fresh basil and ricotta.",
        &["food"],
    ),
    ("ci", "knowledge", "The continuous integration pipeline times out on cold runners.", &["ci"]),
    ("hiking", "personal", "We walked the mountain trail at dawn and saw an eagle.", &["outdoors"]),
    (
        "db",
        "decisions",
        "We chose tantivy for full-text search instead of running Elasticsearch.",
        &["search"],
    ),
    ("cat", "personal", "The cat knocks glasses off the kitchen table every morning.", &["pets"]),
];

fn store(dir: &Path) -> Memcore {
    let memcore = Memcore::open(dir).expect("store opens");
    let notes = NOTES
        .iter()
        .map(|(id, collection, text, tags)| {
            NewMemory::new(*text).id(*id).collection(*collection).tags(tags.iter().copied())
        })
        .collect();
    memcore.put_many(notes).expect("put_many");
    memcore
}

/// Every write's journal record is gone (replayed, finished or abandoned).
fn assert_journal_cleared(store: &Path) {
    let journal = store.join(".memcore/index/journal");
    assert_eq!(fs::read_dir(&journal).unwrap().count(), 0, "journal records left");
}

fn ids(memcore: &Memcore, query: &Query) -> Vec<String> {
    let results = memcore.search(query).expect("search");
    assert!(results.warnings.is_empty(), "unexpected warnings: {:?}", results.warnings);
    results.hits.iter().map(|h| h.memory.id.to_string()).collect()
}

#[test]
fn semantic_finds_meaning_without_shared_words() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = store(dir.path());
    let query =
        Query::new("pet animal breaking things at home").mode(SearchMode::Semantic).limit(3);
    assert_eq!(ids(&memcore, &query)[0], "cat");
    let query = Query::new("graphics card speed tricks").mode(SearchMode::Semantic).limit(3);
    assert_eq!(ids(&memcore, &query)[0], "gpu");
}

#[test]
fn text_and_hybrid_rank_and_explain() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = store(dir.path());
    let text = memcore.search(&Query::new("tantivy elasticsearch").mode(SearchMode::Text)).unwrap();
    assert_eq!(text.mode, SearchMode::Text);
    assert_eq!(text.hits[0].memory.id.as_str(), "db");
    assert_eq!(text.hits[0].parts.text_rank, Some(1));
    assert!(text.hits[0].parts.vector_rank.is_none());

    let hybrid = memcore.search(&Query::new("which search engine did we pick?")).unwrap();
    assert_eq!(hybrid.mode, SearchMode::Hybrid);
    let top = &hybrid.hits[0];
    assert_eq!(top.memory.id.as_str(), "db");
    assert!(top.parts.vector_similarity.is_some());
    assert!((top.score - top.parts.base * top.parts.recency).abs() < 1e-12);
    assert!(hybrid.hits.windows(2).all(|w| w[0].score >= w[1].score));
}

#[test]
fn a_name_the_search_gives_ranks_that_person_s_memories_above_mentions_of_them() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore
        .put_many(vec![
            NewMemory::new("Ana, that hike looked great!").id("to-ana").created_by("Ben"),
            NewMemory::new("I hiked up the ridge with my sister on Sunday before the rain came.")
                .id("by-ana")
                .created_by("Ana"),
            NewMemory::new("Dora went for a hike too.").id("by-carl").created_by("Carl"),
        ])
        .unwrap();
    let found = |text: &str| ids(&memcore, &Query::new(text).mode(SearchMode::Text));
    assert_eq!(found("What did Ana's hike look like?")[..2], ["by-ana", "to-ana"]);
    let hits = memcore.search(&Query::new("Ana hike").mode(SearchMode::Text)).unwrap().hits;
    let factor = |id: &str| hits.iter().find(|h| h.memory.id.as_str() == id).unwrap().parts;
    assert_eq!(factor("by-ana").author_factor, None, "by the person named");
    let other = factor("to-ana");
    assert_eq!(other.author_factor, Some(0.7), "by someone else: {other:?}");
    assert!((other.base - 0.7 * f64::from(other.text_score.unwrap())).abs() < 1e-6);
    assert_eq!(found("\"Ana, that hike\"")[0], "to-ana", "a quoted name is a phrase's word");
    // A name of nobody who wrote here is searched as before, in the content.
    assert_eq!(found("Dora hike")[0], "by-carl");
    let hits = memcore.search(&Query::new("Dora hike").mode(SearchMode::Text)).unwrap().hits;
    assert!(hits.iter().all(|h| h.parts.author_factor.is_none()), "no author named");
}

#[test]
fn the_words_a_question_is_made_of_do_not_rank_memories() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore
        .put_many(vec![
            NewMemory::new("What did you do? How was it?").id("frame"),
            NewMemory::new("We painted the shed for the birthday party.").id("party"),
        ])
        .unwrap();
    let found = |text: &str| ids(&memcore, &Query::new(text).mode(SearchMode::Text));
    assert_eq!(found("What did you do for the birthday?"), ["party"]);
    // A search made only of such words still finds them.
    assert_eq!(found("what did you do"), ["frame"]);
}

#[test]
fn a_search_in_a_collection_ranks_as_a_store_of_its_own_would() {
    let own: Vec<NewMemory> = ["alpha", "beta", "beta gamma"]
        .iter()
        .enumerate()
        .map(|(n, text)| NewMemory::new(*text).id(format!("a{n}")).collection("a"))
        .collect();
    // Another source, where "alpha" is common: in the whole index "beta" is the rarer word.
    let other = (0..10).map(|n| NewMemory::new("alpha delta").id(format!("b{n}")).collection("b"));
    let search = |memcore: &Memcore| {
        ids(memcore, &Query::new("alpha beta").mode(SearchMode::Text).collection("a"))
    };
    let (alone_dir, shared_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let alone = Memcore::open(alone_dir.path()).unwrap();
    alone.put_many(own.clone()).unwrap();
    let shared = Memcore::open(shared_dir.path()).unwrap();
    shared.put_many(own.into_iter().chain(other).collect()).unwrap();
    assert_eq!(search(&alone)[0], "a0", "in its own store \"alpha\" is the rarer word");
    assert_eq!(search(&shared), search(&alone));
}

#[test]
fn filters_narrow_results() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = store(dir.path());
    let base = || Query::new("things that happened").mode(SearchMode::Hybrid).limit(10);
    let personal = ids(&memcore, &base().collection("personal"));
    assert!(
        !personal.is_empty()
            && personal.iter().all(|id| ["cooking", "hiking", "cat"].contains(&id.as_str()))
    );
    assert_eq!(ids(&memcore, &base().tags_any(["pets", "food"])).len(), 2);
    assert_eq!(ids(&memcore, &base().tags_all(["gpu", "performance"])), ["gpu"]);
    assert_eq!(ids(&memcore, &base().filter("tags=ci").unwrap()), ["ci"]);

    memcore.update("hiking", MemoryUpdate::new().status(Status::Archived)).unwrap();
    let query = Query::new("mountain trail eagle").mode(SearchMode::Text);
    assert!(
        !ids(&memcore, &query).contains(&"hiking".to_owned()),
        "archived memories are hidden by default"
    );
    assert_eq!(ids(&memcore, &query.statuses([Status::Archived])), ["hiking"]);
}

#[test]
fn writes_are_searchable_at_once_and_deletes_vanish() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = store(dir.path());
    let quokka = NewMemory::new("Quokkas are small marsupials from Rottnest Island.").id("quokka");
    memcore.put(quokka.title("Animal facts")).unwrap();
    for mode in [SearchMode::Text, SearchMode::Semantic, SearchMode::Hybrid] {
        assert_eq!(
            ids(&memcore, &Query::new("quokka marsupial").mode(mode).limit(1)),
            ["quokka"],
            "{mode}"
        );
    }
    memcore
        .update("quokka", MemoryUpdate::new().content("Wombats dig burrows in Tasmania."))
        .unwrap();
    assert_eq!(
        ids(&memcore, &Query::new("wombat burrows").mode(SearchMode::Text).limit(1)),
        ["quokka"]
    );
    assert_eq!(ids(&memcore, &Query::new("rottnest").mode(SearchMode::Text)), Vec::<String>::new());
    memcore.delete("quokka").unwrap();
    for mode in [SearchMode::Text, SearchMode::Semantic] {
        assert!(
            !ids(&memcore, &Query::new("wombat burrows").mode(mode)).contains(&"quokka".to_owned())
        );
    }
    memcore.restore("quokka").unwrap();
    assert_eq!(
        ids(&memcore, &Query::new("wombat burrows").mode(SearchMode::Text).limit(1)),
        ["quokka"]
    );
}

#[test]
fn recency_boost_prefers_fresh_memories() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    let old = memcore::parse_timestamp("2020-01-01").unwrap();
    memcore
        .put(NewMemory::new("deploy checklist for the release").id("old").created_at(old))
        .unwrap();
    memcore.put(NewMemory::new("deploy checklist for the release v2").id("new")).unwrap();
    let query = Query::new("deploy checklist release").mode(SearchMode::Text).recency(30.0, 1.0);
    let results = memcore.search(&query).unwrap();
    assert_eq!(results.hits[0].memory.id.as_str(), "new");
    let old_hit = results.hits.iter().find(|h| h.memory.id.as_str() == "old").unwrap();
    assert!(old_hit.parts.recency < 0.01, "{:?}", old_hit.parts);
}

#[test]
fn without_the_model_search_falls_back_to_text_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        embedding: EmbeddingConfig {
            enabled: true,
            model_dir: Some(dir.path().join("no-model-here")),
        },
        ..Config::default()
    };
    let memcore = Memcore::builder().path(dir.path().join("store")).config(config).open().unwrap();
    memcore.put(NewMemory::new("The cat sleeps on the warm laptop.").id("cat")).unwrap();
    for mode in [SearchMode::Semantic, SearchMode::Hybrid] {
        let results = memcore.search(&Query::new("cat laptop").mode(mode)).unwrap();
        assert_eq!(results.mode, SearchMode::Text);
        assert_eq!(results.hits[0].memory.id.as_str(), "cat");
        assert!(results.warnings[0].contains("fetch-models"), "{:?}", results.warnings);
    }
    let report = memcore.verify().unwrap();
    let vectors = report.index("vector").unwrap();
    assert!(vectors.unavailable.is_some() && vectors.is_clean(), "{vectors:?}");
}

#[test]
fn bad_queries_are_validation_errors() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = store(dir.path());
    let t = memcore::now();
    let bad = [
        Query::new("   "),
        Query::new("x").limit(0),
        Query::new("x").limit(1_000_000),
        Query::new("x").recency(0.0, 0.5),
        Query::new("x").recency(30.0, 2.0),
        Query::new("x").min_similarity(3.0),
        Query::new("x").created_between(Some(t), Some(t)),
        Query::new("x").collection("../etc"),
    ];
    for query in bad {
        let err = memcore.search(&query).unwrap_err();
        assert_eq!(err.category(), Category::Validation, "{query:?}: {err}");
    }
    let hostile = Query::new("\"unbalanced (AND OR title:: ~~ ^^ 🦀 \\").mode(SearchMode::Hybrid);
    memcore.search(&hostile).expect("hostile text is searched, not parsed as syntax");
    let unknown = memcore.search(&Query::new("cat").filter("colour=red").unwrap()).unwrap();
    assert!(unknown.warnings.iter().any(|w| w.contains("colour")));
}

#[test]
fn a_search_does_not_wait_for_a_writer_at_work() {
    let dir = tempfile::tempdir().unwrap();
    drop(store(dir.path()));
    let config = Config { lock_timeout_ms: 200, ..Config::default() };
    let memcore = Memcore::builder().path(dir.path()).config(config).open().unwrap();
    // Another process's writer at work: it holds the index lock, has journaled its key and
    // written the store, and has not indexed yet.
    let lock = fs::File::options().write(true).open(dir.path().join(".memcore/index/lock"));
    let lock = lock.unwrap();
    lock.lock().unwrap();
    fs::write(dir.path().join(".memcore/index/journal/knowledge@late"), "").unwrap();
    fs::write(dir.path().join("knowledge/late.md"), "Written by the other writer: octopus facts.")
        .unwrap();
    // The search neither waits for the lock (a timeout would come back as a warning) nor
    // sees the unfinished write.
    assert!(ids(&memcore, &Query::new("octopus").mode(SearchMode::Text)).is_empty());
    // The writer died there: its lock is gone, and the next search replays its record.
    drop(lock);
    assert_eq!(ids(&memcore, &Query::new("octopus").mode(SearchMode::Text)), ["late"]);
    assert_journal_cleared(dir.path());
}

#[test]
fn replacing_a_memory_indexes_what_the_store_kept() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = store(dir.path());
    let first = memcore.get("personal/cat").unwrap();
    // The store keeps the creation time and bumps the version, so the entries prepared from
    // the new memory while the store wrote it are rebuilt before they are published.
    let replaced = memcore
        .put_many(vec![
            NewMemory::new("The parrot sings opera on the balcony.")
                .id("cat")
                .collection("personal"),
            NewMemory::new("Zeppelins float over the harbour.")
                .id("zeppelin")
                .collection("personal"),
        ])
        .unwrap();
    assert_eq!(
        (replaced[0].version, replaced[0].created_at),
        (first.version + 1, first.created_at)
    );
    assert!(memcore.verify().unwrap().is_consistent());
    assert_eq!(ids(&memcore, &Query::new("parrot opera").mode(SearchMode::Text)), ["cat"]);
    assert!(ids(&memcore, &Query::new("glasses").mode(SearchMode::Text)).is_empty());
    assert_eq!(
        ids(&memcore, &Query::new("airship").mode(SearchMode::Semantic).limit(1)),
        ["zeppelin"]
    );
    assert_journal_cleared(dir.path());
}

#[test]
fn a_refused_batch_leaves_no_index_entries() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = store(dir.path());
    let batch = vec![
        NewMemory::new("Quasars outshine whole galaxies.").id("quasar").collection("knowledge"),
        NewMemory::new("The parrot sings opera.").id("cat").collection("personal"),
    ];
    let err = memcore.put_many_with(batch, PutMode::CreateOnly).unwrap_err();
    assert_eq!(err.category(), Category::Conflict);
    // The entries prepared while the store refused the batch were never published.
    assert!(ids(&memcore, &Query::new("quasars").mode(SearchMode::Text)).is_empty());
    assert!(ids(&memcore, &Query::new("parrot opera").mode(SearchMode::Text)).is_empty());
    assert!(memcore.verify().unwrap().is_consistent());
    assert_journal_cleared(dir.path());
}

#[test]
fn hand_edits_are_found_by_verify_and_fixed_by_repair() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = store(dir.path());
    assert!(memcore.verify().unwrap().is_consistent());

    let path = dir.path().join("personal/cat.md");
    let text = fs::read_to_string(&path).unwrap().replace("The cat knocks", "The parrot knocks");
    fs::write(&path, text).unwrap();
    fs::remove_file(dir.path().join("knowledge/ci.md")).unwrap();
    fs::write(dir.path().join("knowledge/dropped.md"), "A note about zeppelins.").unwrap();

    let report = memcore.verify().unwrap();
    assert!(!report.is_consistent());
    let text = &report.index("text").unwrap().diff;
    assert_eq!(text.mismatched, ["personal/cat"]);
    assert_eq!(text.orphaned, ["knowledge/ci"]);
    assert_eq!(text.missing, ["knowledge/dropped"]);
    let vectors = &report.index("vector").unwrap().diff;
    assert_eq!(vectors.mismatched, ["personal/cat"]);
    assert_eq!(vectors.missing, ["knowledge/dropped"]);

    let repaired = memcore.repair().unwrap();
    assert_eq!((repaired.reindexed, repaired.removed), (2, 1));
    assert!(memcore.verify().unwrap().is_consistent());
    assert_eq!(ids(&memcore, &Query::new("zeppelins").mode(SearchMode::Text)), ["dropped"]);
    assert_eq!(ids(&memcore, &Query::new("parrot").mode(SearchMode::Text)), ["cat"]);
}

/// A writer that died after journaling `records` (file name, text) and writing the store
/// (knowledge/late written, personal/cat removed), before indexing: the next open replays it.
fn replayed_after_crash(records: &[(&str, &str)]) {
    let dir = tempfile::tempdir().unwrap();
    drop(store(dir.path()));
    let journal = dir.path().join(".memcore/index/journal");
    for (name, text) in records {
        fs::write(journal.join(name), text).unwrap();
    }
    fs::write(
        dir.path().join("knowledge/late.md"),
        "Written just before the crash: octopus facts.",
    )
    .unwrap();
    fs::remove_file(dir.path().join("personal/cat.md")).unwrap();

    let memcore = Memcore::open(dir.path()).unwrap();
    assert_journal_cleared(dir.path());
    assert_eq!(ids(&memcore, &Query::new("octopus").mode(SearchMode::Text)), ["late"]);
    assert!(ids(&memcore, &Query::new("cat glasses").mode(SearchMode::Text)).is_empty());
    assert!(memcore.verify().unwrap().is_consistent());
}

#[test]
fn interrupted_writes_are_replayed_on_open() {
    replayed_after_crash(&[("knowledge@late", ""), ("personal@cat", "")]);
}

#[test]
fn an_interrupted_batch_is_replayed_and_a_torn_record_dropped() {
    replayed_after_crash(&[
        ("batch-7-1-0", "knowledge/late\npersonal/cat\n# complete\n"),
        // A writer that died while journaling, before touching the store.
        ("batch-7-2-1", "knowledge/never\n"),
    ]);
}

#[test]
fn a_damaged_index_is_rebuilt_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    drop(store(dir.path()));
    let text_dir = dir.path().join(".memcore/index/text");
    fs::write(text_dir.join("meta.json"), "{ not json").unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    assert_eq!(
        ids(&memcore, &Query::new("lasagna basil").mode(SearchMode::Text).limit(1)),
        ["cooking"]
    );

    fs::remove_dir_all(dir.path().join(".memcore/index")).unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    assert_eq!(
        ids(&memcore, &Query::new("lasagna basil").mode(SearchMode::Text).limit(1)),
        ["cooking"]
    );
    let mut seen = Vec::new();
    let report = memcore.reindex(&mut |p| seen.push((p.done, p.total))).unwrap();
    assert_eq!(report.memories, NOTES.len());
    assert_eq!(report.indexes["text"].indexed, NOTES.len());
    assert_eq!(seen.first(), Some(&(0, NOTES.len())));
    assert_eq!(seen.last(), Some(&(NOTES.len(), NOTES.len())));
    assert!(memcore.verify().unwrap().is_consistent());
}

#[test]
fn two_handles_see_each_others_writes() {
    let dir = tempfile::tempdir().unwrap();
    let first = store(dir.path());
    let second = Memcore::open(dir.path()).unwrap();
    second.put(NewMemory::new("Axolotls regrow their limbs.").id("axolotl")).unwrap();
    for mode in [SearchMode::Text, SearchMode::Semantic] {
        assert_eq!(
            ids(&first, &Query::new("axolotl limbs").mode(mode).limit(1)),
            ["axolotl"],
            "{mode}"
        );
    }
}

/// The `CaughtUp` work a search reports, if any: `(indexed, removed)`.
fn caught_up(results: &memcore::SearchResults) -> Option<(usize, usize)> {
    results.maintenance.iter().find_map(|m| match m {
        Maintenance::CaughtUp { indexed, removed, .. } => Some((*indexed, *removed)),
        _ => None,
    })
}

#[test]
fn a_write_without_the_model_is_caught_up_by_every_handle_and_only_then() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store");
    let with_model = store(&path);
    let semantic = |query: &str| Query::new(query).mode(SearchMode::Semantic).limit(1);
    // The first handle compares the indexes once and stamps them level...
    with_model.search(&semantic("batched GPU launches")).unwrap();
    // ...so a new handle searches without comparing them again.
    let fresh = Memcore::open(&path).unwrap();
    let results = fresh.search(&semantic("batched GPU launches")).unwrap();
    assert_eq!(caught_up(&results), None, "{:?}", results.maintenance);
    assert_eq!(results.hits[0].memory.id.as_str(), "gpu");

    // A handle without the model writes: its memory has no vector.
    let config = Config {
        embedding: EmbeddingConfig { enabled: true, model_dir: Some(dir.path().join("none")) },
        ..Config::default()
    };
    let without = Memcore::builder().path(&path).config(config).open().unwrap();
    without.put(NewMemory::new("Axolotls regrow their limbs.").id("axolotl")).unwrap();

    // Both handles with the model embed it at their next semantic search: the one that was
    // level already, and a new one. Whichever catches up first stamps the indexes level.
    let results = with_model.search(&semantic("salamander regenerating legs")).unwrap();
    assert_eq!(caught_up(&results), Some((1, 0)), "{:?}", results.maintenance);
    assert_eq!(results.hits[0].memory.id.as_str(), "axolotl");
    let results = Memcore::open(&path).unwrap().search(&semantic("salamander legs")).unwrap();
    assert_eq!(caught_up(&results), None, "{:?}", results.maintenance);
    assert_eq!(results.hits[0].memory.id.as_str(), "axolotl");
    let report = fresh.verify().unwrap();
    assert!(report.index("vector").unwrap().is_clean(), "{report:?}");
}

#[test]
fn a_repair_or_reindex_without_the_model_leaves_the_vectors_to_catch_up() {
    for rebuild in ["repair", "reindex"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store");
        let with_model = store(&path);
        let semantic = |query: &str| Query::new(query).mode(SearchMode::Semantic).limit(1);
        with_model.search(&semantic("batched GPU launches")).unwrap();
        // A memory added behind memcore's back, then indexed by a handle without the model.
        fs::write(path.join("knowledge/airship.md"), "Zeppelins float on hydrogen.").unwrap();
        let config = Config {
            embedding: EmbeddingConfig { enabled: true, model_dir: Some(dir.path().join("none")) },
            ..Config::default()
        };
        let without = Memcore::builder().path(&path).config(config).open().unwrap();
        match rebuild {
            "repair" => assert_eq!(without.repair().unwrap().reindexed, 1),
            _ => assert_eq!(without.reindex(&mut |_| {}).unwrap().memories, 7),
        }
        let results = Memcore::open(&path).unwrap().search(&semantic("dirigible gas")).unwrap();
        assert_eq!(caught_up(&results), Some((1, 0)), "{rebuild}: {:?}", results.maintenance);
        assert_eq!(results.hits[0].memory.id.as_str(), "airship", "{rebuild}");
    }
}

#[test]
fn a_date_the_query_names_is_preferred_in_text_and_hybrid_search() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    let at = |day: u32| {
        chrono::NaiveDate::from_ymd_opt(2024, 3, day)
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap()
            .and_utc()
    };
    memcore
        .put_many(vec![
            NewMemory::new("We fixed the flaky deploy script.").id("early").created_at(at(3)),
            NewMemory::new("Deploy script news: the deploy script was rewritten.")
                .id("late")
                .created_at(at(20)),
        ])
        .unwrap();
    let ranked = |text: &str, mode: SearchMode| {
        let hits = memcore.search(&Query::new(text).mode(mode)).unwrap().hits;
        hits.iter().map(|h| (h.memory.id.to_string(), h.parts.date_factor)).collect::<Vec<_>>()
    };
    let undated = ranked("deploy script", SearchMode::Text);
    assert_eq!(undated[0], ("late".to_owned(), None), "the words alone favour the other");
    for mode in [SearchMode::Text, SearchMode::Hybrid] {
        let dated = ranked("deploy script on 3 March 2024", mode);
        assert_eq!(dated[0], ("early".to_owned(), Some(2.0)), "{mode}");
        assert_eq!(dated[1].1, None);
    }
    let month = ranked("deploy script in March 2024", SearchMode::Text);
    assert!(month.iter().all(|(_, factor)| *factor == Some(2.0)), "both are from March");
}
