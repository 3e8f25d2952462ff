//! The change feed: a cursor of the namespace's change sequence, the memories changed since
//! one, and a listener that learns of other processes' writes through `LISTEN`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;

use super::PostgresStore;
use super::connection::{Connection, failed};
use crate::store::ChangeFeed;
use crate::{Collection, Error, MemoryId, MemoryRef, Result};

/// The channel writes notify, with their namespace as the payload.
pub(super) const CHANNEL: &str = "memcore_changes";

/// How often the listener looks up from waiting to see whether its store is gone.
const POLL: Duration = Duration::from_millis(500);

/// How long the listener waits before connecting again after its connection failed.
const RECONNECT: Duration = Duration::from_secs(1);

impl ChangeFeed for PostgresStore {
    /// `<schema id>:<change sequence>`.
    fn cursor(&self) -> Result<String> {
        // What was heard before the cursor is read is covered by a sync up to it.
        let heard = self.listener.heard.load(Ordering::SeqCst);
        self.listener.reading.store(heard, Ordering::SeqCst);
        let row = self.connection.with(|sql| {
            sql.query_one(
                "SELECT coalesce(max(seq), 0) FROM memcore_changes WHERE namespace = $1",
                &[&self.namespace],
            )
            .map_err(failed("reading the change sequence"))
        })?;
        let seq: i64 = row.get(0);
        Ok(format!("{}:{seq}", self.store_id))
    }

    fn changed_since(&self, cursor: &str) -> Result<Vec<MemoryRef>> {
        let seq = cursor
            .strip_prefix(self.store_id.as_str())
            .and_then(|rest| rest.strip_prefix(':'))
            .and_then(|seq| seq.parse::<i64>().ok())
            .ok_or_else(|| {
                Error::validation(
                    format!("sync cursor {cursor:?} is not one of this database's"),
                    "run a full reindex (the database was replaced or the cursor damaged)",
                )
            })?;
        let rows = self.connection.with(|sql| {
            sql.query(
                "SELECT collection, id FROM memcore_changes WHERE namespace = $1 AND seq > $2",
                &[&self.namespace, &seq],
            )
            .map_err(failed("reading the change feed"))
        })?;
        let mut changed = Vec::with_capacity(rows.len());
        for row in rows {
            let (collection, id): (String, String) = (row.get(0), row.get(1));
            // A name that does not parse cannot be indexed; the scan reports its row.
            if let (Ok(collection), Ok(id)) = (Collection::new(collection), MemoryId::new(id)) {
                changed.push(MemoryRef::new(collection, id));
            }
        }
        Ok(changed)
    }

    /// True once another process has written to the namespace since the indexes were last
    /// synced. The first call starts a listening thread with a connection of its own, and
    /// is true: writes may have come since the store opened.
    fn has_news(&self) -> bool {
        self.listener.start()
            || self.listener.heard.load(Ordering::SeqCst)
                > self.listener.synced.load(Ordering::SeqCst)
    }

    fn synced_to(&self, _cursor: &str) {
        let reading = self.listener.reading.load(Ordering::SeqCst);
        self.listener.synced.fetch_max(reading, Ordering::SeqCst);
    }
}

/// Listens for the namespace's notifications on a thread of its own, started on first use
/// and stopped when the store is dropped.
pub(super) struct Listener {
    connection: Arc<Connection>,
    namespace: String,
    /// Counts what the thread heard: other processes' writes, and each (re)connection, after
    /// which writes may have been missed.
    heard: Arc<AtomicU64>,
    /// `heard` when [`ChangeFeed::cursor`] was last read.
    reading: AtomicU64,
    /// `heard` as of the last completed sync.
    synced: AtomicU64,
    started: AtomicBool,
    stop: Arc<AtomicBool>,
}

impl Listener {
    /// A listener for `namespace`, not yet started.
    pub(super) fn new(connection: Arc<Connection>, namespace: String) -> Self {
        Self {
            connection,
            namespace,
            heard: Arc::new(AtomicU64::new(0)),
            reading: AtomicU64::new(0),
            synced: AtomicU64::new(0),
            started: AtomicBool::new(false),
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Starts the thread unless it runs; whether it started now.
    fn start(&self) -> bool {
        if self.started.swap(true, Ordering::SeqCst) {
            return false;
        }
        let (connection, namespace) = (Arc::clone(&self.connection), self.namespace.clone());
        let (heard, stop) = (Arc::clone(&self.heard), Arc::clone(&self.stop));
        let spawned = thread::Builder::new()
            .name("memcore-listen".into())
            .spawn(move || listen(&connection, &namespace, &heard, &stop));
        if spawned.is_err() {
            // Without a listener every search syncs: slower, never stale.
            self.started.store(false, Ordering::SeqCst);
        }
        true
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// The listening loop: connect, `LISTEN`, count other processes' writes to `namespace` as
/// heard; count each (re)connection too (notifications may have been missed meanwhile).
fn listen(connection: &Connection, namespace: &str, heard: &AtomicU64, stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        let Ok(mut client) = connection.connect() else {
            heard.fetch_add(1, Ordering::SeqCst);
            thread::sleep(RECONNECT);
            continue;
        };
        if client.batch_execute(&format!("LISTEN {CHANNEL}")).is_err() {
            thread::sleep(RECONNECT);
            continue;
        }
        // Writes made before this point were not heard.
        heard.fetch_add(1, Ordering::SeqCst);
        while !stop.load(Ordering::SeqCst) && !client.is_closed() {
            let mut notifications = client.notifications();
            let mut waiting = notifications.timeout_iter(POLL);
            match waiting.next() {
                Ok(Some(note)) => {
                    let own = note.process_id() == connection.backend_pid();
                    if note.payload() == namespace && !own {
                        heard.fetch_add(1, Ordering::SeqCst);
                    }
                }
                Ok(None) => {}
                Err(_) => break,
            }
        }
    }
}
