//! Real writer processes killed with SIGKILL at random moments (issue 14): for the file store
//! and the git-notes store, three writers put memories (single puts and batches) and print
//! each id once its write is acknowledged; the parent kills one writer every 50-400 ms and
//! starts another, for a bounded time (`MEMCORE_CRASH_SECONDS`, default 6 per backend).
//! Afterwards the store reopens, every acknowledged write is there with its content, the
//! indexes agree with the store (`verify`), and `repair` leaves no temporary file behind.
//!
//! The children are this test binary run again (selected with `--exact`, told what to do
//! through an environment variable), so they are real separate processes.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

mod gitrepo;

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use memcore::{Backend, Config, EmbeddingConfig, Memcore, NewMemory};

const ROLE: &str = "MEMCORE_CRASH_WRITER";
const WRITERS: usize = 3;

fn config(backend: Backend) -> Config {
    Config {
        backend,
        embedding: EmbeddingConfig { enabled: false, model_dir: None },
        ..Config::default()
    }
}

fn open(path: &Path, backend: Backend) -> Memcore {
    Memcore::builder().path(path).config(config(backend)).open().unwrap()
}

/// What writer `name` stores under `id`.
fn content(id: &str) -> String {
    format!("crash test memory {id}: {}", "payload ".repeat(20))
}

/// The child: writes until killed, printing `ACK <tag> <collection/id>` after each write is
/// acknowledged.
#[test]
fn crash_writer_child() {
    let Ok(spec) = std::env::var(ROLE) else { return };
    let mut parts = spec.splitn(3, '\t');
    let (backend, path, name) =
        (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
    let backend = if backend == "git-notes" { Backend::GitNotes } else { Backend::File };
    let memcore = open(Path::new(path), backend);
    let mut out = std::io::stdout().lock();
    for n in 0.. {
        let ids: Vec<String> = if n % 4 == 3 {
            (0..3).map(|k| format!("{name}-{n}-{k}")).collect()
        } else {
            vec![format!("{name}-{n}")]
        };
        let memories =
            ids.iter().map(|id| NewMemory::new(content(id)).id(id.clone()).collection("progress"));
        let stored = memcore.put_many(memories.collect()).unwrap();
        // The store names the memory (git notes make their own ids).
        for (id, memory) in ids.iter().zip(&stored) {
            writeln!(out, "ACK {id} {}", memory.reference()).unwrap();
        }
        out.flush().unwrap();
    }
}

/// A running writer and the thread collecting what it acknowledged.
struct Writer {
    child: Child,
    reader: JoinHandle<()>,
}

fn spawn(
    store: &Path,
    backend: &str,
    name: &str,
    acked: &Arc<Mutex<Vec<(String, String)>>>,
) -> Writer {
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args(["--exact", "crash_writer_child", "--test-threads", "1", "--nocapture"])
        .env(ROLE, format!("{backend}\t{}\t{name}", store.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let acked = Arc::clone(acked);
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            // The test harness prints its own lines too.
            if let Some(ack) = line.strip_prefix("ACK ")
                && let Some((tag, reference)) = ack.split_once(' ')
            {
                acked.lock().unwrap().push((tag.to_owned(), reference.to_owned()));
            }
        }
    });
    Writer { child, reader }
}

/// A small deterministic generator for kill times (no dependency needed for this).
fn next(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *seed >> 33
}

fn kill(mut writer: Writer) {
    let _ = writer.child.kill(); // SIGKILL
    let _ = writer.child.wait();
    writer.reader.join().unwrap();
}

fn temp_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if entry.file_name() == ".git" || entry.file_name() == ".memcore" {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            found.extend(temp_files(&path));
        } else if entry.file_name().to_string_lossy().starts_with(".tmp-") {
            found.push(path);
        }
    }
    found
}

fn crash_run(store: &Path, backend: &str) {
    let kind = if backend == "git-notes" { Backend::GitNotes } else { Backend::File };
    drop(open(store, kind)); // created before the writers race to create it
    let seconds =
        std::env::var("MEMCORE_CRASH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(6);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let acked = Arc::new(Mutex::new(Vec::new()));
    let mut spawned = 0;
    let mut name = || {
        spawned += 1;
        format!("w{spawned}")
    };
    let mut writers: Vec<Writer> =
        (0..WRITERS).map(|_| spawn(store, backend, &name(), &acked)).collect();
    let mut seed = 0x5eed_u64;
    let mut kills = 0;
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50 + next(&mut seed) % 350));
        let victim = (next(&mut seed) as usize) % writers.len();
        kill(writers.swap_remove(victim));
        kills += 1;
        writers.push(spawn(store, backend, &name(), &acked));
    }
    writers.into_iter().for_each(kill);

    let acked = acked.lock().unwrap().clone();
    assert!(kills > 5 && acked.len() > 20, "{backend}: {kills} kills, {} writes", acked.len());
    let memcore = open(store, kind);
    for (tag, reference) in &acked {
        let memory = memcore.get(reference.as_str()).unwrap_or_else(|e| {
            panic!("{backend}: acknowledged {tag} ({reference}) lost after {kills} kills: {e}")
        });
        assert_eq!(memory.content.trim_end(), content(tag).trim_end(), "{backend}: {tag}");
    }
    let report = memcore.verify().unwrap();
    assert!(report.is_consistent(), "{backend}: {report:?}");
    memcore.repair().unwrap();
    assert!(temp_files(store).is_empty(), "{backend}: {:?}", temp_files(store));
    let unique: HashSet<&String> = acked.iter().map(|(_, reference)| reference).collect();
    println!("{backend}: {kills} writers killed, {} acknowledged writes, none lost", unique.len());
}

#[test]
fn killed_file_store_writers_lose_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    crash_run(dir.path(), "file");
}

#[test]
fn killed_git_notes_writers_lose_no_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    gitrepo::init_with_commit(dir.path());
    crash_run(dir.path(), "git-notes");
}
