//! Conversation turns (`session` and `turn` metadata) are searched with the turn before them:
//! a short reply is found by the words of the message it answers, from a batch, from single
//! puts in order, and after a reindex when the turns came out of order.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use memcore::{Memcore, NewMemory, Query, SESSION_KEY, SearchMode, TURN_KEY};

/// Turn `turn` of `session`, said by `who`.
fn turn(session: &str, turn: u64, who: &str, text: &str) -> NewMemory {
    NewMemory::new(text)
        .id(format!("{session}-{turn}"))
        .created_by(who)
        .meta(SESSION_KEY, session)
        .meta(TURN_KEY, turn)
}

/// The ids of the full-text hits of `text`.
fn found(memcore: &Memcore, text: &str) -> Vec<String> {
    let query = Query::new(text).mode(SearchMode::Text).limit(10);
    memcore.search(&query).unwrap().hits.iter().map(|h| h.memory.id.to_string()).collect()
}

#[test]
fn a_reply_is_found_by_the_turn_it_answers() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore
        .put_many(vec![
            turn("trip", 1, "Ana", "Did you ever make it to the glacier?"),
            turn("trip", 2, "Ben", "Yes, last week, it was stunning."),
            turn("trip", 3, "Ana", "Lucky you."),
        ])
        .unwrap();
    // The answer ranks first: the turn that only asks keeps just what its neighbour lends it.
    assert_eq!(found(&memcore, "glacier"), ["trip-2", "trip-1"]);
    assert_eq!(found(&memcore, "stunning"), ["trip-2", "trip-3"]);
}

#[test]
fn single_puts_in_order_find_the_stored_turn_before() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore.put(turn("s1", 7, "Ana", "Which bakery sells the rye sourdough?")).unwrap();
    memcore.put(turn("s1", 8, "Ben", "The one on Elm Street.")).unwrap();
    assert_eq!(found(&memcore, "sourdough"), ["s1-8", "s1-7"]);

    // A reopened handle (a fresh process) finds it through the index too.
    drop(memcore);
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore.put(turn("s1", 9, "Ana", "Thanks!")).unwrap();
    assert_eq!(found(&memcore, "Elm"), ["s1-8", "s1-9"]);
}

#[test]
fn turns_of_other_sessions_collections_or_without_a_number_stay_apart() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore
        .put_many(vec![
            turn("a", 1, "Ana", "The kayak trip is on Sunday."),
            turn("b", 2, "Ben", "Sounds good."),
            turn("a", 2, "Ben", "Count me in.").collection("elsewhere"),
            NewMemory::new("Great.").id("loose").meta(SESSION_KEY, "a").meta(TURN_KEY, "two"),
            turn("a", 0, "Ana", "Kayak first, lunch after."),
        ])
        .unwrap();
    let mut hits = found(&memcore, "kayak");
    hits.sort();
    assert_eq!(hits, ["a-0", "a-1"], "turn 1 follows turn 0 but is found for its own words");
    assert_eq!(found(&memcore, "lunch"), ["a-0", "a-1"], "turn 0 is the context of turn 1");
}

#[test]
fn a_turn_stored_before_the_one_it_follows_gets_it_when_that_one_arrives() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore.put(turn("late", 2, "Ben", "It was in the attic all along.")).unwrap();
    assert_eq!(found(&memcore, "attic"), ["late-2"]);
    memcore.put(turn("late", 1, "Ana", "Where did you find the old violin?")).unwrap();
    assert_eq!(found(&memcore, "violin"), ["late-2", "late-1"]);
    memcore.reindex(&mut |_| {}).unwrap();
    assert_eq!(found(&memcore, "violin"), ["late-2", "late-1"], "and a rebuild agrees");
}

#[test]
fn a_changed_or_deleted_turn_leaves_the_next_turn_s_context() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore
        .put_many(vec![
            turn("p", 1, "Ana", "My passport number is X123."),
            turn("p", 2, "Ben", "Noted."),
            turn("p", 3, "Ana", "Thanks."),
        ])
        .unwrap();
    assert_eq!(found(&memcore, "passport"), ["p-1", "p-2"]);
    memcore.put(turn("p", 1, "Ana", "My visa is sorted.")).unwrap();
    assert_eq!(found(&memcore, "passport"), Vec::<String>::new(), "the old words are gone");
    assert_eq!(found(&memcore, "visa"), ["p-1", "p-2"]);
    memcore.delete("p-2").unwrap();
    assert_eq!(found(&memcore, "visa"), ["p-1"]);
    assert_eq!(found(&memcore, "noted"), Vec::<String>::new(), "turn 3 lost its context");
    let report = memcore.verify().unwrap();
    assert!(report.consistent, "{report:?}");
}

#[test]
fn a_turn_takes_no_context_from_another_agent_s_turn() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore
        .put_many(vec![
            turn("ag", 1, "Ana", "The launch code is tulip.").meta(memcore::AGENT_KEY, "scout"),
            turn("ag", 2, "Ben", "Understood."),
        ])
        .unwrap();
    assert_eq!(found(&memcore, "tulip"), ["ag-1"], "a private turn lends no words");
}

#[test]
fn an_updated_turn_keeps_the_turn_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore
        .put_many(vec![
            turn("u", 1, "Ana", "Is the marathon in April?"),
            turn("u", 2, "Ben", "Yes, the second week."),
        ])
        .unwrap();
    let change = memcore::MemoryUpdate::new().content("Yes, the third week.");
    memcore.update("u-2", change).unwrap();
    assert_eq!(found(&memcore, "marathon"), ["u-2", "u-1"]);
}

#[test]
fn neighbouring_turns_found_together_lend_each_other_score() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore
        .put_many(vec![
            turn("n", 1, "Ana", "How was the trip to the lighthouse?"),
            turn("n", 2, "Ben", "Windy, but we reached the lighthouse and the old harbour."),
            turn("n", 3, "Ana", "Did the harbour cafe still sell crab rolls?"),
            NewMemory::new("The harbour and the lighthouse were painted in 1902.").id("note"),
        ])
        .unwrap();
    let query = Query::new("lighthouse harbour").mode(SearchMode::Text).limit(10);
    let hits = memcore.search(&query).unwrap().hits;
    let parts = |id: &str| hits.iter().find(|h| h.memory.id.as_str() == id).unwrap().parts;
    let middle = parts("n-2");
    let lent = middle.neighbours.expect("its neighbours were found too");
    let own = f64::from(middle.text_score.unwrap());
    assert!(lent > 0.0 && (middle.base - own - lent).abs() < 1e-9, "{middle:?}");
    assert_eq!(parts("note").neighbours, None, "a memory that is no turn lends nothing");
    assert_eq!(hits[0].memory.id.as_str(), "n-2", "the turn its neighbours back up ranks first");
}

#[test]
fn a_turn_that_only_asks_ranks_below_the_answer_it_gets() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore
        .put_many(vec![
            turn("gym", 1, "Maria", "How often do you and your family work out together?"),
            turn("gym", 2, "John", "Three times a week; it keeps us on track."),
        ])
        .unwrap();
    let query = Query::new("how often does the family work out together").mode(SearchMode::Text);
    let hits = memcore.search(&query).unwrap().hits;
    let parts = |id: &str| hits.iter().find(|h| h.memory.id.as_str() == id).unwrap().parts;
    assert_eq!(hits[0].memory.id.as_str(), "gym-2", "the answer ranks above the question");
    let asked = parts("gym-1");
    assert_eq!(asked.question_share, Some(1.0));
    let lent = asked.neighbours.expect("the answer lends the question its share");
    assert!((asked.base - lent).abs() < 1e-9, "it keeps nothing of its own score: {asked:?}");
    assert_eq!(parts("gym-2").question_share, None, "the answer tells");
}

#[test]
fn a_full_text_index_of_an_older_schema_is_rebuilt_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore.put(turn("up", 1, "Ana", "The ferry leaves at noon.")).unwrap();
    drop(memcore);
    // An index as an older memcore made it: another schema.
    let text = dir.path().join(".memcore/index/text");
    std::fs::remove_dir_all(&text).unwrap();
    std::fs::create_dir_all(&text).unwrap();
    let mut schema = tantivy::schema::Schema::builder();
    schema.add_text_field("key", tantivy::schema::STRING | tantivy::schema::STORED);
    let old = tantivy::Index::create_in_dir(&text, schema.build()).unwrap();
    old.writer::<tantivy::TantivyDocument>(15_000_000).unwrap().commit().unwrap();

    let memcore = Memcore::open(dir.path()).unwrap();
    let rebuilt = memcore::Maintenance::Rebuilt { memories: 1, damaged: false };
    assert_eq!(memcore.opened_with(), [rebuilt], "an upgrade, not damage");
    assert_eq!(found(&memcore, "ferry"), ["up-1"]);
}

#[test]
fn a_turn_moved_to_another_place_leaves_its_old_follower() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore
        .put_many(vec![
            turn("m", 1, "Ana", "The pin for the gate is 4471."),
            turn("m", 2, "Ben", "Got it."),
        ])
        .unwrap();
    assert_eq!(found(&memcore, "gate"), ["m-1", "m-2"]);
    let moved = memcore::MemoryUpdate::new().meta(TURN_KEY, 7);
    memcore.update("m-1", moved).unwrap();
    assert_eq!(found(&memcore, "gate"), ["m-1"], "turn 2 no longer follows it");
}

#[test]
fn an_owner_that_is_not_text_lends_no_words_and_views_lend_no_scores() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore
        .put_many(vec![
            turn("o", 1, "Ana", "The vault opens at dusk.").meta(memcore::AGENT_KEY, 7),
            turn("o", 2, "Ben", "The vault is old."),
            turn("o", 3, "Ana", "Secret vault plans.").meta(memcore::AGENT_KEY, "scout"),
        ])
        .unwrap();
    assert_eq!(found(&memcore, "dusk"), ["o-1"], "an owner no agent can name lends nothing");
    let view = Query::new("vault").mode(SearchMode::Text).agent("other");
    let hits = memcore.search(&view).unwrap().hits;
    let ids: Vec<&str> = hits.iter().map(|h| h.memory.id.as_str()).collect();
    assert_eq!(ids, ["o-2"]);
    assert_eq!(hits[0].parts.neighbours, None, "hidden turns lift nothing in a view");
}
