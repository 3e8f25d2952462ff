//! The cold tier's archive through its public API, on real files: archiving, searching with
//! filters, retried and conflicting batches, torn appends, a writer that died before its
//! index commit, damaged frames, and purges (a crash in the middle of one included) after
//! which no file under the archive holds the purged text.
#![allow(clippy::unwrap_used)]

mod tiers;

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use memcore::{
    ArchiveFilter, ArchivedKind, ArchivedRecord, Category, ColdArchive, Memory, NewMemory,
    Timestamp,
};

fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}

fn open(dir: &Path) -> ColdArchive {
    ColdArchive::open(dir, Duration::from_secs(5)).unwrap()
}

fn turn(session: &str, n: usize, when: &str, text: &str) -> ArchivedRecord {
    ArchivedRecord::new(format!("{session}/{n}"), ArchivedKind::Turn, at(when), text)
        .session(session)
        .agent(if n.is_multiple_of(2) { "host" } else { "guest" })
}

/// The ids a search finds, best first.
fn found(archive: &ColdArchive, text: &str, filter: &ArchiveFilter) -> Vec<String> {
    archive.search(text, filter, 50).unwrap().into_iter().map(|hit| hit.record.id).collect()
}

fn sorted(mut ids: Vec<String>) -> Vec<String> {
    ids.sort();
    ids
}

fn segments(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir.join("segments")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

fn all_texts(archive: &ColdArchive) -> Vec<String> {
    let mut texts = Vec::new();
    archive
        .scan(&mut |record| {
            texts.push(record.unwrap().text);
            ControlFlow::Continue(())
        })
        .unwrap();
    texts
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.path().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

#[test]
fn records_are_found_by_text_and_filters_and_kept_per_quarter() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open(dir.path());
    let report = archive
        .archive(vec![
            turn("ep-46", 1, "2026-08-02T20:00:00Z", "The lace order from the supplier was late."),
            turn("ep-46", 2, "2026-08-02T20:01:00Z", "We should find another lace supplier."),
            turn(
                "ep-47",
                1,
                "2026-11-20T20:00:00Z",
                "The new supplier delivered the lace on time.",
            ),
            ArchivedRecord::new(
                "trace-9",
                ArchivedKind::ToolTrace,
                at("2026-11-20T20:02:00Z"),
                "grep supplier orders.csv",
            ),
        ])
        .unwrap();
    assert_eq!(report.archived, 4);
    let names: Vec<String> = segments(dir.path())
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["2026-q3.1.jsonl.zst", "2026-q4.1.jsonl.zst"]);

    let everything = ArchiveFilter::default();
    assert_eq!(
        sorted(found(&archive, "supplier", &everything)),
        ["ep-46/1", "ep-46/2", "ep-47/1", "trace-9"]
    );
    let mut by_session = ArchiveFilter::default();
    by_session.sessions = vec!["ep-46".into()];
    assert_eq!(sorted(found(&archive, "lace", &by_session)), ["ep-46/1", "ep-46/2"]);
    let mut by_agent = ArchiveFilter::default();
    by_agent.agents = vec!["host".into()];
    assert_eq!(found(&archive, "supplier", &by_agent), ["ep-46/2"]);
    let mut traces = ArchiveFilter::default();
    traces.kinds = vec![ArchivedKind::ToolTrace];
    assert_eq!(found(&archive, "supplier", &traces), ["trace-9"]);
    let mut autumn = ArchiveFilter::default();
    autumn.from = Some(at("2026-10-01T00:00:00Z"));
    autumn.kinds = vec![ArchivedKind::Turn];
    assert_eq!(found(&archive, "supplier", &autumn), ["ep-47/1"]);

    let got = archive.get("ep-47/1").unwrap();
    assert_eq!(got.text, "The new supplier delivered the lace on time.");
    assert_eq!(got.session.as_deref(), Some("ep-47"));
    assert_eq!(archive.get("ep-99/1").unwrap_err().category(), Category::NotFound);
    assert_eq!(all_texts(&archive).len(), 4);
    assert!(archive.verify().unwrap().consistent());

    // Another handle (another process) sees the same.
    let other = open(dir.path());
    assert_eq!(found(&other, "delivered", &everything), ["ep-47/1"]);
}

#[test]
fn a_demoted_memory_keeps_every_field() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open(dir.path());
    let memory: Memory = NewMemory::new("Use PostgreSQL for the event store.")
        .id("event-store")
        .tags(["db"])
        .into_memory(&"decisions".parse().unwrap(), &memcore::Limits::default(), memcore::now())
        .unwrap();
    archive.archive(vec![ArchivedRecord::of_memory(memory.clone())]).unwrap();
    let got = archive.get("decisions/event-store").unwrap();
    assert_eq!(got.kind, ArchivedKind::Memory);
    assert_eq!(got.origin, Some(memory.reference()));
    assert_eq!(got.memory.as_deref(), Some(&memory));
}

#[test]
fn a_retried_batch_is_recognised_and_a_changed_record_is_a_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open(dir.path());
    let batch = vec![
        turn("s1", 1, "2026-11-01T10:00:00Z", "first"),
        turn("s1", 2, "2026-11-01T10:01:00Z", "second"),
    ];
    archive.archive(batch.clone()).unwrap();
    let again = archive.archive(batch).unwrap();
    assert_eq!((again.archived, again.already), (0, 2));
    let err = archive.archive(vec![turn("s1", 1, "2026-11-01T10:00:00Z", "changed")]).unwrap_err();
    assert_eq!(err.category(), Category::Conflict, "{err}");
    let err = archive
        .archive(vec![
            turn("s2", 1, "2026-11-01T10:00:00Z", "a"),
            turn("s2", 1, "2026-11-01T10:00:00Z", "b"),
        ])
        .unwrap_err();
    assert_eq!(err.category(), Category::Validation, "{err}");
    for session in ["../etc", "a/b", "", "UPPER"] {
        let err = archive.archive(vec![turn(session, 1, "2026-11-01T10:00:00Z", "x")]).unwrap_err();
        assert_eq!(err.category(), Category::Validation, "{session:?}: {err}");
    }
    assert_eq!(all_texts(&archive), ["first", "second"]);
}

#[test]
fn a_torn_append_is_cut_off_by_the_next_writer_and_by_repair() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open(dir.path());
    archive.archive(vec![turn("s1", 1, "2026-11-01T10:00:00Z", "the heron returns")]).unwrap();
    let segment = &segments(dir.path())[0];
    let mut bytes = std::fs::read(segment).unwrap();
    let whole = bytes.len();
    bytes.extend_from_slice(&[0x5e, 0x2a, 0x4d, 0x18, 16, 0, 0, 0, b'M', b'C']);
    std::fs::write(segment, &bytes).unwrap();

    assert_eq!(found(&archive, "heron", &ArchiveFilter::default()), ["s1/1"]);
    let check = archive.verify().unwrap();
    assert_eq!(check.torn_bytes, 10, "{check:?}");
    assert!(!check.consistent());
    archive.archive(vec![turn("s1", 2, "2026-11-01T10:05:00Z", "the heron leaves")]).unwrap();
    assert!(archive.verify().unwrap().consistent());
    assert_eq!(sorted(found(&archive, "heron", &ArchiveFilter::default())), ["s1/1", "s1/2"]);

    let mut bytes = std::fs::read(segment).unwrap();
    bytes.extend_from_slice(b"garbage");
    std::fs::write(segment, &bytes).unwrap();
    let repair = archive.repair().unwrap();
    assert_eq!(repair.torn_bytes, 7);
    assert_eq!(repair.reindexed, 2);
    assert!(std::fs::metadata(segment).unwrap().len() > whole as u64);
    assert!(archive.verify().unwrap().consistent());
}

#[test]
fn frames_a_writer_appended_before_dying_are_indexed_by_the_next_writer() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open(dir.path());
    archive.archive(vec![turn("s1", 1, "2026-11-01T10:00:00Z", "kept before the crash")]).unwrap();
    let before = tempfile::tempdir().unwrap();
    copy_dir(&dir.path().join("index"), before.path());
    archive
        .archive(vec![turn("s1", 2, "2026-11-01T10:01:00Z", "appended, then the writer died")])
        .unwrap();
    drop(archive);
    // The index as it was before the second commit: the frame is in the segment only.
    std::fs::remove_dir_all(dir.path().join("index")).unwrap();
    copy_dir(before.path(), &dir.path().join("index"));

    let archive = open(dir.path());
    assert_eq!(archive.verify().unwrap().unindexed, 1);
    // The retried batch finds its record archived already, and indexes it.
    let retried = archive
        .archive(vec![turn("s1", 2, "2026-11-01T10:01:00Z", "appended, then the writer died")])
        .unwrap();
    assert_eq!((retried.archived, retried.already), (0, 1));
    assert_eq!(found(&archive, "died", &ArchiveFilter::default()), ["s1/2"]);
    assert!(archive.verify().unwrap().consistent());
}

#[test]
fn a_damaged_frame_is_reported_the_rest_stays_readable_and_repair_sets_it_aside() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open(dir.path());
    archive
        .archive(vec![turn("s1", 1, "2026-11-01T10:00:00Z", "the otter in the first frame")])
        .unwrap();
    archive
        .archive(vec![turn("s1", 2, "2026-11-01T10:01:00Z", "the otter in the second frame")])
        .unwrap();
    let segment = &segments(dir.path())[0];
    let mut bytes = std::fs::read(segment).unwrap();
    bytes[30] ^= 0xff;
    std::fs::write(segment, &bytes).unwrap();

    let check = archive.verify().unwrap();
    assert_eq!(check.damaged.len(), 1, "{check:?}");
    assert!(check.damaged[0].contains("@0"), "{check:?}");
    assert_eq!(archive.get("s1/2").unwrap().text, "the otter in the second frame");
    let err = archive.get("s1/1").unwrap_err();
    assert_eq!(err.category(), Category::Parse, "{err}");
    assert!(err.recovery().contains("repair"), "{}", err.recovery());
    let err = archive.purge(&["s1/1".to_owned()]).unwrap_err();
    assert_eq!(err.category(), Category::Parse, "{err}");

    let repair = archive.repair().unwrap();
    assert_eq!(repair.frames_set_aside, 1);
    assert_eq!(repair.reindexed, 1);
    assert!(dir.path().join("damaged").read_dir().unwrap().next().is_some());
    assert!(archive.verify().unwrap().consistent());
    assert_eq!(found(&archive, "otter", &ArchiveFilter::default()), ["s1/2"]);
}

#[test]
fn purge_leaves_no_file_holding_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open(dir.path());
    let mut turns: Vec<ArchivedRecord> = (0..40)
        .map(|n| {
            turn("ep-1", n, "2026-11-01T10:00:00Z", &format!("routine turn {n} about knitting"))
        })
        .collect();
    turns.push(turn("ep-2", 1, "2026-11-02T10:00:00Z", "my password is zorbaxqq do not keep it"));
    turns.push(turn("ep-2", 2, "2026-11-02T10:01:00Z", "knitting resumes"));
    archive.archive(turns).unwrap();
    // Segments are compressed and the index's term dictionary shares prefixes, so the bytes
    // of a file say little: the unit tests check the index's terms; this checks what a
    // user's grep would see, and the records themselves.

    let report = archive.purge(&["ep-2/1".to_owned(), "nope".to_owned()]).unwrap();
    assert_eq!(report.purged, 1);
    assert_eq!(report.missing, ["nope"]);
    assert_eq!(report.segments_rewritten, 1);
    assert_eq!(tiers::files_holding(dir.path(), "zorbaxqq"), Vec::<PathBuf>::new());
    assert!(all_texts(&archive).iter().all(|t| !t.contains("zorbaxqq")));
    assert!(found(&archive, "zorbaxqq password", &ArchiveFilter::default()).is_empty());
    assert_eq!(archive.get("ep-2/1").unwrap_err().category(), Category::NotFound);
    assert_eq!(found(&archive, "knitting", &ArchiveFilter::default()).len(), 41);
    assert!(archive.verify().unwrap().consistent());

    let report = archive.purge_session("ep-1").unwrap();
    assert_eq!(report.purged, 40);
    assert_eq!(found(&archive, "knitting", &ArchiveFilter::default()), ["ep-2/2"]);
    assert!(archive.verify().unwrap().consistent());
}

#[test]
fn a_purge_that_died_before_its_index_commit_is_finished_by_the_next_writer() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open(dir.path());
    archive
        .archive(vec![
            turn("s1", 1, "2026-11-01T10:00:00Z", "the secret word is plumquartz"),
            turn("s1", 2, "2026-11-01T10:01:00Z", "an ordinary remark"),
        ])
        .unwrap();
    let old_segment = segments(dir.path())[0].clone();
    let saved = std::fs::read(&old_segment).unwrap();
    let index_before = tempfile::tempdir().unwrap();
    copy_dir(&dir.path().join("index"), index_before.path());
    archive.purge(&["s1/1".to_owned()]).unwrap();
    drop(archive);
    // As if the purge died after writing the new generation: the old one and the old index
    // are still there.
    std::fs::write(&old_segment, saved).unwrap();
    std::fs::remove_dir_all(dir.path().join("index")).unwrap();
    copy_dir(index_before.path(), &dir.path().join("index"));
    assert_eq!(segments(dir.path()).len(), 2);

    let archive = open(dir.path());
    archive.archive(vec![turn("s1", 3, "2026-11-01T10:02:00Z", "a later remark")]).unwrap();
    assert_eq!(segments(dir.path()).len(), 1);
    assert!(archive.verify().unwrap().consistent());
    assert!(found(&archive, "plumquartz", &ArchiveFilter::default()).is_empty());
    assert_eq!(sorted(found(&archive, "remark", &ArchiveFilter::default())), ["s1/2", "s1/3"]);
    assert_eq!(tiers::files_holding(dir.path(), "plumquartz"), Vec::<PathBuf>::new());
}

#[test]
fn writers_on_several_threads_all_land() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open(dir.path());
    std::thread::scope(|scope| {
        for t in 0..4 {
            let archive = &archive;
            scope.spawn(move || {
                for n in 0..10 {
                    let session = format!("t{t}");
                    archive
                        .archive(vec![turn(&session, n, "2026-11-01T10:00:00Z", "concurrent note")])
                        .unwrap();
                }
            });
        }
    });
    assert_eq!(found(&archive, "concurrent", &ArchiveFilter::default()).len(), 40);
    assert!(archive.verify().unwrap().consistent());
}

/// The offsets of the frames of the segment at `path` (where memcore's header tag is).
fn frame_offsets(path: &Path) -> Vec<usize> {
    let bytes = std::fs::read(path).unwrap();
    bytes.windows(4).enumerate().filter(|(_, w)| *w == b"MCA1").map(|(i, _)| i - 8).collect()
}

#[test]
fn a_damaged_header_hides_no_later_frame_and_no_writer_cuts_them() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open(dir.path());
    for n in 1..=3 {
        archive
            .archive(vec![turn("s1", n, "2026-11-01T10:00:00Z", &format!("badger note {n}"))])
            .unwrap();
    }
    let segment = &segments(dir.path())[0];
    let offsets = frame_offsets(segment);
    assert_eq!(offsets.len(), 3);
    let mut bytes = std::fs::read(segment).unwrap();
    bytes[offsets[1] + 13] ^= 0x40; // the second frame's data length
    std::fs::write(segment, &bytes).unwrap();

    let check = archive.verify().unwrap();
    assert_eq!(check.damaged.len(), 1, "{check:?}");
    assert_eq!(check.torn_bytes, 0, "{check:?}");
    assert_eq!(archive.get("s1/3").unwrap().text, "badger note 3");
    // The next append keeps the frames after the damage.
    archive.archive(vec![turn("s1", 4, "2026-11-01T10:00:00Z", "badger note 4")]).unwrap();
    assert_eq!(archive.get("s1/3").unwrap().text, "badger note 3");
    assert_eq!(archive.get("s1/4").unwrap().text, "badger note 4");

    let repair = archive.repair().unwrap();
    assert_eq!(repair.frames_set_aside, 1);
    assert_eq!(repair.reindexed, 3);
    assert!(archive.verify().unwrap().consistent());
    assert_eq!(
        sorted(found(&archive, "badger", &ArchiveFilter::default())),
        ["s1/1", "s1/3", "s1/4"]
    );
}

#[test]
fn records_dated_outside_years_0_to_9999_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let archive = open(dir.path());
    for when in ["+10000-01-01T00:00:00Z", "-0001-01-01T00:00:00Z"] {
        let err = archive.archive(vec![turn("s1", 1, when, "from far away")]).unwrap_err();
        assert_eq!(err.category(), Category::Validation, "{when}: {err}");
    }
}

#[test]
fn two_handles_see_each_others_records_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (open(dir.path()), open(dir.path()));
    // b has read the index before a writes.
    assert!(found(&b, "mole", &ArchiveFilter::default()).is_empty());
    a.archive(vec![turn("s1", 1, "2026-11-01T10:00:00Z", "the mole digs")]).unwrap();
    let err = b.archive(vec![turn("s1", 1, "2026-11-01T10:00:00Z", "another text")]).unwrap_err();
    assert_eq!(err.category(), Category::Conflict, "{err}");
    let report = b.purge(&["s1/1".to_owned()]).unwrap();
    assert_eq!(report.purged, 1, "{report:?}");
    assert_eq!(a.get("s1/1").unwrap_err().category(), Category::NotFound);
    std::thread::scope(|scope| {
        for (name, archive) in [("a", &a), ("b", &b)] {
            scope.spawn(move || {
                for n in 0..10 {
                    let session = format!("w-{name}");
                    archive
                        .archive(vec![turn(&session, n, "2026-11-01T10:00:00Z", "shared work")])
                        .unwrap();
                }
            });
        }
    });
    assert_eq!(found(&a, "shared", &ArchiveFilter::default()).len(), 20);
    assert!(b.verify().unwrap().consistent());
}
