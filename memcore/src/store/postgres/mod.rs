//! [`PostgresStore`]: memories in a PostgreSQL database shared by processes on many
//! machines, each keeping its derived indexes locally and following the others' writes
//! through a change feed.
//!
//! Rows carry the same fields and content as memory files (frontmatter as JSONB, content as
//! text); old versions go to `memcore_history`, deleted memories to `memcore_trash`. Every
//! write is one transaction under an advisory lock per namespace, so that the change
//! sequence a write takes (`memcore_changes`) commits in order: a process that has seen
//! change `n` has seen every change before it. Writes announce themselves with `NOTIFY`,
//! and a process listening (see [`crate::store::ChangeFeed::has_news`]) syncs its indexes
//! before its next search. The vectors memcore embeds are kept beside the rows
//! (`memcore_vectors`, see [`crate::store::SharedVectors`]), so that a new machine fills its
//! vector index without running the model.

mod connection;
mod feed;
mod rows;
mod schema;
mod vectors;
mod write;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub(crate) use connection::redact;
use connection::{Connection, Sql, Tx, failed};
use feed::Listener;
use rows::{MEMORY_COLUMNS, memory_of, place};
use vectors::VectorTable;

use super::fsutil::create_private_dir_all;
use super::{
    ChangeFeed, MemoryStore, PutMode, SharedVectors, StoreHistory, TrashEntry, Version, Visitor,
    not_found, version_entry,
};
use crate::config::{Config, Versioning};
use crate::{Collection, Error, Limits, Memory, MemoryRef, MemoryUpdate, Result, Timestamp};

/// How many memories a scan reads per query.
const SCAN_PAGE: i64 = 500;

/// A store in a PostgreSQL database, under one namespace of it.
///
/// Open it with `backend: postgres` in the store's config (see [`crate::PostgresConfig`]), or
/// directly; the directory given holds this machine's indexes and locks, the database the
/// memories. Several processes, on this machine or others, may share the namespace.
///
/// ```no_run
/// use memcore::{Config, Memcore, NewMemory, PostgresStore};
/// let mut config = Config::default();
/// config.postgres.url = Some("postgres://agent@db.internal/memory".parse()?);
/// config.postgres.namespace = "my-project".into();
/// let store = PostgresStore::open("/var/lib/agent/memcore", &config)?;
/// let memcore = Memcore::builder().store(store).config(config).open()?;
/// memcore.put(NewMemory::new("The fleet deploys on Tuesdays.").id("deploys"))?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct PostgresStore {
    root: PathBuf,
    private_dir: PathBuf,
    namespace: String,
    limits: Limits,
    /// How many old versions to keep per memory; `None` keeps no history.
    max_versions: Option<usize>,
    connection: Arc<Connection>,
    /// Names the database's schema in change-feed cursors.
    store_id: String,
    listener: Listener,
    /// The vectors kept for every machine; `None` with `postgres.share_vectors: false`.
    vectors: Option<Arc<VectorTable>>,
}

impl fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresStore")
            .field("database", &self.connection.shown())
            .field("namespace", &self.namespace)
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl PostgresStore {
    /// Connects to the database `config.postgres` names (its `url`, else
    /// `$MEMCORE_DATABASE_URL`), creating or migrating memcore's tables, with this
    /// machine's private files (indexes, locks) under `root`.
    ///
    /// Fails with [`Error::Validation`] when no URL is given or it does not parse, or the
    /// namespace is empty, with
    /// [`Error::Storage`] when the database cannot be reached (the message shows the URL
    /// without its password), and with [`Error::Unsupported`] when a newer memcore has
    /// migrated the database past what this one reads.
    pub fn open(root: impl AsRef<Path>, config: &Config) -> Result<Self> {
        let root = root.as_ref().to_path_buf();
        config.postgres.validate()?;
        let url = config.postgres.database_url()?;
        let lock_timeout = std::time::Duration::from_millis(config.lock_timeout_ms);
        let connection = Arc::new(Connection::new(url.expose(), lock_timeout)?);
        let store_id = connection.with(|sql| schema::prepare(sql.client))?;
        let private_dir = root.join(super::PRIVATE_DIR);
        create_private_dir_all(&private_dir)?;
        let max_versions = match config.versioning {
            Versioning::Off => None,
            _ => Some(config.max_versions),
        };
        let namespace = config.postgres.namespace.clone();
        let listener = Listener::new(Arc::clone(&connection), namespace.clone());
        let vectors = config
            .postgres
            .share_vectors
            .then(|| Arc::new(VectorTable::new(Arc::clone(&connection), namespace.clone())));
        Ok(Self {
            root,
            private_dir,
            namespace,
            limits: config.limits,
            max_versions,
            connection,
            store_id,
            listener,
            vectors,
        })
    }

    /// The namespace this store reads and writes.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// Runs `work` in one transaction that holds the namespace's write lock, records nothing
    /// by itself and announces the namespace's change on commit; an error rolls everything back.
    fn write<T>(&self, what: &str, work: impl FnOnce(&mut Tx<'_, '_>) -> Result<T>) -> Result<T> {
        self.connection.with(|sql| {
            sql.transaction(what, |tx| {
                tx.execute(
                    "SELECT pg_advisory_xact_lock($1, hashtext($2))",
                    &[&schema::LOCK_CLASS, &self.namespace],
                )
                .map_err(failed(what))?;
                let outcome = work(tx)?;
                tx.execute("SELECT pg_notify($1, $2)", &[&feed::CHANNEL, &self.namespace])
                    .map_err(failed(what))?;
                Ok(outcome)
            })
        })
    }

    /// The memory `reference` names, read with `client` (locked for update when `lock`).
    fn find(
        &self,
        sql: &mut Sql<'_, impl postgres::GenericClient>,
        reference: &MemoryRef,
        lock: bool,
        what: &str,
    ) -> Result<Option<Memory>> {
        let for_update = if lock { " FOR UPDATE" } else { "" };
        let id = reference.id().as_str();
        let rows = match reference.collection() {
            Some(collection) => sql.query(
                &format!(
                    "SELECT {MEMORY_COLUMNS} FROM memcore_memories \
                     WHERE namespace = $1 AND collection = $2 AND id = $3{for_update}"
                ),
                &[&self.namespace, &collection.as_str(), &id],
            ),
            None => sql.query(
                &format!(
                    "SELECT {MEMORY_COLUMNS} FROM memcore_memories \
                     WHERE namespace = $1 AND id = $2 ORDER BY collection{for_update}"
                ),
                &[&self.namespace, &id],
            ),
        }
        .map_err(failed(what))?;
        match rows.as_slice() {
            [] => Ok(None),
            [row] => memory_of(&self.namespace, row, 0).map(Some),
            several => {
                let names: Vec<String> = several.iter().map(|row| row.get(0)).collect();
                Err(Error::conflict(
                    format!("memory '{id}' exists in several collections: {}", names.join(", ")),
                    "name the collection to say which one you mean",
                ))
            }
        }
    }
}

impl MemoryStore for PostgresStore {
    fn backend(&self) -> &'static str {
        "postgres"
    }

    /// The directory of this machine's private files.
    fn root(&self) -> &Path {
        &self.root
    }

    /// `<root>/.memcore`.
    fn private_dir(&self) -> &Path {
        &self.private_dir
    }

    fn put(&self, memory: Memory, mode: PutMode) -> Result<Memory> {
        let mut stored =
            self.write("storing a memory", |tx| self.put_all(tx, vec![memory], mode))?;
        stored.pop().ok_or_else(|| Error::storage("the database stored nothing", None, "retry"))
    }

    /// One transaction for the whole batch: all of it is stored, or none.
    fn put_many(&self, memories: Vec<Memory>, mode: PutMode) -> Result<Vec<Memory>> {
        self.write("storing memories", |tx| self.put_all(tx, memories, mode))
    }

    fn get(&self, reference: &MemoryRef) -> Result<Arc<Memory>> {
        let found =
            self.connection.with(|sql| self.find(sql, reference, false, "reading a memory"))?;
        found.map(Arc::new).ok_or_else(|| not_found(reference.collection(), reference.id()))
    }

    /// One query for every reference that names its collection; bare ids one at a time.
    fn get_many(&self, references: &[MemoryRef]) -> Result<Vec<Result<Arc<Memory>>>> {
        let (collections, ids): (Vec<&str>, Vec<&str>) = references
            .iter()
            .filter_map(|r| Some((r.collection()?.as_str(), r.id().as_str())))
            .unzip();
        let rows = self.connection.with(|sql| {
            sql.query(
                &format!(
                    "SELECT {MEMORY_COLUMNS} FROM memcore_memories \
                         JOIN unnest($2::text[], $3::text[]) AS wanted (c, i) \
                         ON collection = wanted.c AND id = wanted.i WHERE namespace = $1"
                ),
                &[&self.namespace, &collections, &ids],
            )
            .map_err(failed("reading memories"))
        })?;
        let found: HashMap<(&str, &str), &postgres::Row> =
            rows.iter().map(|row| ((row.get(0), row.get(1)), row)).collect();
        Ok(references
            .iter()
            .map(|reference| match reference.collection() {
                Some(collection) => {
                    match found.get(&(collection.as_str(), reference.id().as_str())) {
                        Some(row) => memory_of(&self.namespace, row, 0).map(Arc::new),
                        None => Err(not_found(Some(collection), reference.id())),
                    }
                }
                None => self.get(reference),
            })
            .collect())
    }

    fn update(
        &self,
        reference: &MemoryRef,
        change: &MemoryUpdate,
        now: Timestamp,
    ) -> Result<Memory> {
        self.write("updating a memory", |tx| self.update_one(tx, reference, change, now))
    }

    /// One transaction for the whole batch; changes whose memory is gone or moved past
    /// their expected version are skipped.
    fn update_many(
        &self,
        changes: &[(MemoryRef, MemoryUpdate)],
        now: Timestamp,
    ) -> Result<Vec<Memory>> {
        self.write("updating memories", |tx| self.update_all(tx, changes, now))
    }

    fn delete(&self, reference: &MemoryRef, now: Timestamp) -> Result<TrashEntry> {
        let what = "deleting a memory";
        self.write(what, |tx| {
            let collection = match (self.find(tx, reference, true, what), reference.collection()) {
                (Ok(Some(memory)), _) => memory.collection,
                (Ok(None), _) => return Err(not_found(reference.collection(), reference.id())),
                // A damaged row can still be deleted (to the trash), as a damaged file can.
                (Err(Error::Corrupted { .. }), Some(collection)) => collection.clone(),
                (Err(e), _) => return Err(e),
            };
            self.trash_row(tx, &collection, reference.id(), now, what)
        })
    }

    fn restore(&self, reference: &MemoryRef) -> Result<Arc<Memory>> {
        let what = "restoring a memory";
        let id = reference.id();
        self.write(what, |tx| {
            let collection = reference.collection().map(Collection::as_str);
            let row = tx
                .query_opt(
                    &format!(
                        "SELECT seq, {MEMORY_COLUMNS} FROM memcore_trash \
                         WHERE namespace = $1 AND id = $2 AND ($3::text IS NULL OR collection = $3) \
                         ORDER BY seq DESC LIMIT 1"
                    ),
                    &[&self.namespace, &id.as_str(), &collection],
                )
                .map_err(failed(what))?
                .ok_or_else(|| {
                    Error::not_found(
                        format!("deleted memory '{id}' in the trash"),
                        "only memories removed with delete can be restored; check the id",
                    )
                })?;
            let seq: i64 = row.get(0);
            let memory = memory_of(&self.namespace, &row, 1)?;
            let live = match self.find(tx, &memory.reference(), true, what) {
                Ok(live) => live.is_some(),
                Err(Error::Corrupted { .. }) => true,
                Err(e) => return Err(e),
            };
            if live {
                return Err(Error::conflict(
                    format!("memory '{id}' exists again in collection '{}'", memory.collection),
                    "delete or rename the live memory first, then restore",
                ));
            }
            tx.execute("DELETE FROM memcore_trash WHERE seq = $1", &[&seq]).map_err(failed(what))?;
            self.store_rows(tx, std::iter::once(&memory))?;
            Ok(Arc::new(memory))
        })
    }

    fn collections(&self) -> Result<Vec<Collection>> {
        let rows = self.connection.with(|sql| {
            sql.query(
                "SELECT DISTINCT collection FROM memcore_memories WHERE namespace = $1 \
                     ORDER BY collection",
                &[&self.namespace],
            )
            .map_err(failed("listing collections"))
        })?;
        rows.iter()
            .map(|row| {
                let name: String = row.get(0);
                Collection::new(name.as_str()).map_err(|e| {
                    Error::corrupted(
                        place(&self.namespace, &name, ""),
                        None,
                        format!("invalid collection name: {e}"),
                        "rename the collection of its rows to a valid name",
                    )
                })
            })
            .collect()
    }

    /// Reads the memories in pages, in key order, so that a visitor may call the store.
    fn scan(&self, collection: Option<&Collection>, visit: &mut Visitor<'_>) -> Result<()> {
        let wanted = collection.map(Collection::as_str);
        let mut after = (String::new(), String::new());
        loop {
            let rows = self.connection.with(|sql| {
                sql
                    .query(
                        &format!(
                            "SELECT {MEMORY_COLUMNS} FROM memcore_memories WHERE namespace = $1 \
                             AND ($2::text IS NULL OR collection = $2) AND (collection, id) > ($3, $4) \
                             ORDER BY collection, id LIMIT $5"
                        ),
                        &[&self.namespace, &wanted, &after.0, &after.1, &SCAN_PAGE],
                    )
                    .map_err(failed("reading memories"))
            })?;
            for row in &rows {
                if visit(memory_of(&self.namespace, row, 0).map(Arc::new)).is_break() {
                    return Ok(());
                }
            }
            match rows.last() {
                Some(last) if rows.len() as i64 == SCAN_PAGE => after = (last.get(0), last.get(1)),
                _ => return Ok(()),
            }
        }
    }

    /// Old versions are kept in `memcore_history` unless `versioning: off`.
    fn history(&self) -> Option<&dyn StoreHistory> {
        self.max_versions.map(|_| self as &dyn StoreHistory)
    }

    fn change_feed(&self) -> Option<&dyn ChangeFeed> {
        Some(self)
    }

    fn atomic_batches(&self) -> bool {
        true
    }

    fn shared_vectors(&self) -> Option<Arc<dyn SharedVectors>> {
        self.vectors.as_ref().map(|table| Arc::clone(table) as Arc<dyn SharedVectors>)
    }

    /// Removes vectors kept for memories that are gone (a machine that embedded a memory
    /// while another deleted it may keep its vector after the delete).
    fn remove_leftovers(&self) -> Result<usize> {
        let removed = self.connection.with(|sql| {
            sql.execute(
                "DELETE FROM memcore_vectors AS v WHERE v.namespace = $1 AND NOT EXISTS ( \
                     SELECT 1 FROM memcore_memories AS m WHERE m.namespace = v.namespace \
                     AND m.collection = v.collection AND m.id = v.id)",
                &[&self.namespace],
            )
            .map_err(failed("removing the vectors of deleted memories"))
        })?;
        Ok(usize::try_from(removed).unwrap_or(usize::MAX))
    }
}

impl StoreHistory for PostgresStore {
    fn versions(&self, reference: &MemoryRef) -> Result<Vec<Version>> {
        let current = self.get(reference)?;
        let mut versions = self
            .kept(&current, None)?
            .iter()
            .map(|memory| version_entry(memory, false))
            .collect::<Vec<_>>();
        versions.push(version_entry(&current, true));
        Ok(versions)
    }

    fn get_version(&self, reference: &MemoryRef, rev: &str) -> Result<Memory> {
        let number: u64 = rev.trim_start_matches('v').parse().map_err(|_| {
            Error::validation(
                format!("invalid version {rev:?}"),
                "give a version number such as `2` (see versions)",
            )
        })?;
        let current = self.get(reference)?;
        if current.version == number {
            return Ok((*current).clone());
        }
        self.kept(&current, Some(number))?.pop().ok_or_else(|| {
            Error::not_found(
                format!("version {number} of memory '{}'", current.id),
                "list the kept versions with versions (old ones beyond max_versions are pruned)",
            )
        })
    }
}

impl PostgresStore {
    /// The kept old versions of `current`, oldest first (only `version` when given).
    fn kept(&self, current: &Memory, version: Option<u64>) -> Result<Vec<Memory>> {
        let version = version.map(|v| i64::try_from(v).unwrap_or(i64::MAX));
        let rows = self.connection.with(|sql| {
            sql.query(
                &format!(
                    "SELECT {MEMORY_COLUMNS} FROM memcore_history WHERE namespace = $1 \
                         AND collection = $2 AND id = $3 AND ($4::bigint IS NULL OR version = $4) \
                         ORDER BY version"
                ),
                &[&self.namespace, &current.collection.as_str(), &current.id.as_str(), &version],
            )
            .map_err(failed("reading old versions"))
        })?;
        rows.iter().map(|row| memory_of(&self.namespace, row, 0)).collect()
    }
}
