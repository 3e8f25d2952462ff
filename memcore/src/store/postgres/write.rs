//! Writing rows inside a write transaction, a whole batch at a time: one query reads the
//! rows the batch replaces, and one statement each writes the new rows, the kept versions
//! and the change feed's entries (arrays passed as parameters and `unnest`ed).

use std::collections::HashMap;
use std::path::PathBuf;

use super::PostgresStore;
use super::connection::{Tx, failed};
use super::rows::{MEMORY_COLUMNS, frontmatter, memory_of};
use crate::store::{PutMode, TrashEntry, already_exists, not_found, succeed};
use crate::{Collection, Error, Memory, MemoryId, MemoryRef, MemoryUpdate, Result, Timestamp};

/// A memory's key: `(collection, id)`.
type Key = (String, String);

fn key_of(memory: &Memory) -> Key {
    (memory.collection.as_str().to_owned(), memory.id.as_str().to_owned())
}

impl PostgresStore {
    /// Stores `memories` as `put` would, in order, inside `tx`: a conflict under
    /// [`PutMode::CreateOnly`]; a replacement keeps the old `created_at`, takes the next
    /// version and keeps the old one in the history. A memory given twice is written once,
    /// as its last version.
    pub(super) fn put_all(
        &self,
        tx: &mut Tx<'_, '_>,
        memories: Vec<Memory>,
        mode: PutMode,
    ) -> Result<Vec<Memory>> {
        let keys: Vec<Key> = memories.iter().map(key_of).collect();
        let mut existing = self.lock_rows(tx, &keys, "storing memories")?;
        let mut pending: HashMap<Key, Memory> = HashMap::with_capacity(memories.len());
        let mut replaced = Vec::new();
        let mut prepared = Vec::with_capacity(memories.len());
        for (mut memory, key) in memories.into_iter().zip(keys) {
            let old = match pending.get(&key) {
                Some(pending) => Some(pending.clone()),
                None => match existing.remove(&key) {
                    Some(Ok(old)) => {
                        replaced.push(old.clone());
                        Some(old)
                    }
                    Some(Err(_)) if mode == PutMode::CreateOnly => {
                        return Err(already_exists(&memory));
                    }
                    // A damaged row is replaced; its text stays in the trash.
                    Some(Err(_)) => {
                        let what = "storing memories";
                        let (collection, id) = (&memory.collection, &memory.id);
                        self.trash_row(tx, collection, id, memory.updated_at, what)?;
                        None
                    }
                    None => None,
                },
            };
            if let Some(old) = old {
                if mode == PutMode::CreateOnly {
                    return Err(already_exists(&memory));
                }
                succeed(&mut memory, &old);
            }
            pending.insert(key, memory.clone());
            prepared.push(memory);
        }
        self.keep_versions(tx, &replaced)?;
        self.store_rows(tx, pending.values())?;
        Ok(prepared)
    }

    /// Applies `changes` as `update_many` would, inside `tx`: a change whose memory is gone
    /// or moved past its expected version is skipped; a memory changed twice is refused.
    pub(super) fn update_all(
        &self,
        tx: &mut Tx<'_, '_>,
        changes: &[(MemoryRef, MemoryUpdate)],
        now: Timestamp,
    ) -> Result<Vec<Memory>> {
        let what = "updating memories";
        let keys: Vec<Key> = changes
            .iter()
            .filter_map(|(r, _)| Some((r.collection()?.as_str().to_owned(), r.id().to_string())))
            .collect();
        let mut existing = self.lock_rows(tx, &keys, what)?;
        let mut olds = Vec::with_capacity(changes.len());
        let mut stored: Vec<Memory> = Vec::with_capacity(changes.len());
        for (reference, change) in changes {
            let old = match reference.collection() {
                Some(collection) => {
                    let key = (collection.as_str().to_owned(), reference.id().to_string());
                    if let Some(Err(_)) = existing.get(&key)
                        && let Some(Err(damaged)) = existing.remove(&key)
                    {
                        return Err(damaged);
                    }
                    match existing.get(&key) {
                        Some(Ok(old)) => old.clone(),
                        _ => continue,
                    }
                }
                None => match self.find(tx, reference, true, what)? {
                    Some(old) => old,
                    None => continue,
                },
            };
            if stored.iter().any(|m| m.reference() == old.reference()) {
                return Err(changed_twice(reference));
            }
            let next = match change.apply(&old, &self.limits, now) {
                Ok(next) => next,
                Err(Error::Conflict { .. }) => continue,
                Err(e) => return Err(e),
            };
            olds.push(old);
            stored.push(next);
        }
        self.keep_versions(tx, &olds)?;
        self.store_rows(tx, stored.iter())?;
        Ok(stored)
    }

    /// Applies `change` to the memory `reference` names, inside `tx`.
    pub(super) fn update_one(
        &self,
        tx: &mut Tx<'_, '_>,
        reference: &MemoryRef,
        change: &MemoryUpdate,
        now: Timestamp,
    ) -> Result<Memory> {
        let old = self
            .find(tx, reference, true, "updating a memory")?
            .ok_or_else(|| not_found(reference.collection(), reference.id()))?;
        let next = change.apply(&old, &self.limits, now)?;
        self.keep_versions(tx, std::slice::from_ref(&old))?;
        self.store_rows(tx, std::iter::once(&next))?;
        Ok(next)
    }

    /// The rows of `keys` that exist, locked for update, each parsed (or the error of a
    /// damaged one).
    fn lock_rows(
        &self,
        tx: &mut Tx<'_, '_>,
        keys: &[Key],
        what: &str,
    ) -> Result<HashMap<Key, Result<Memory>>> {
        let (collections, ids): (Vec<&str>, Vec<&str>) =
            keys.iter().map(|(c, i)| (c.as_str(), i.as_str())).unzip();
        let rows = tx
            .query(
                &format!(
                    "SELECT {MEMORY_COLUMNS} FROM memcore_memories \
                     JOIN unnest($2::text[], $3::text[]) AS wanted (c, i) \
                     ON collection = wanted.c AND id = wanted.i \
                     WHERE namespace = $1 FOR UPDATE OF memcore_memories"
                ),
                &[&self.namespace, &collections, &ids],
            )
            .map_err(failed(what))?;
        Ok(rows
            .iter()
            .map(|row| ((row.get(0), row.get(1)), memory_of(&self.namespace, row, 0)))
            .collect())
    }

    /// Writes the rows of `memories` and records their changes.
    pub(super) fn store_rows<'m>(
        &self,
        tx: &mut Tx<'_, '_>,
        memories: impl Iterator<Item = &'m Memory>,
    ) -> Result<()> {
        let what = "storing memories";
        let mut columns = Columns::default();
        for memory in memories {
            columns.push(memory)?;
        }
        if columns.ids.is_empty() {
            return Ok(());
        }
        tx.execute(
            "INSERT INTO memcore_memories (namespace, collection, id, version, frontmatter, content) \
             SELECT $1, * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::jsonb[], $6::text[]) \
             ON CONFLICT (namespace, collection, id) DO UPDATE SET \
             version = EXCLUDED.version, frontmatter = EXCLUDED.frontmatter, \
             content = EXCLUDED.content",
            &[
                &self.namespace,
                &columns.collections,
                &columns.ids,
                &columns.versions,
                &columns.frontmatters,
                &columns.contents,
            ],
        )
        .map_err(failed(what))?;
        self.record_changes(tx, &columns.collections, &columns.ids)
    }

    /// Notes in the change feed that the memories `collections[i]/ids[i]` changed.
    fn record_changes(
        &self,
        tx: &mut Tx<'_, '_>,
        collections: &[String],
        ids: &[String],
    ) -> Result<()> {
        tx.execute(
            "INSERT INTO memcore_changes (namespace, collection, id, seq) \
             SELECT $1, c, i, nextval('memcore_change_seq') FROM unnest($2::text[], $3::text[]) AS k (c, i) \
             ON CONFLICT (namespace, collection, id) DO UPDATE SET seq = EXCLUDED.seq",
            &[&self.namespace, &collections, &ids],
        )
        .map_err(failed("recording changes"))?;
        Ok(())
    }

    /// Keeps `olds` in the history before they are replaced, each memory's history pruned to
    /// `max_versions`. A kept version of an earlier memory of the same name (deleted, then
    /// made anew) gives way to the new one's.
    fn keep_versions(&self, tx: &mut Tx<'_, '_>, olds: &[Memory]) -> Result<()> {
        let Some(max_versions) = self.max_versions else {
            return Ok(());
        };
        if olds.is_empty() {
            return Ok(());
        }
        let what = "keeping old versions";
        let mut columns = Columns::default();
        for old in olds {
            columns.push(old)?;
        }
        tx.execute(
            "INSERT INTO memcore_history (namespace, collection, id, version, frontmatter, content) \
             SELECT $1, * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::jsonb[], $6::text[]) \
             ON CONFLICT (namespace, collection, id, version) DO UPDATE SET \
             frontmatter = EXCLUDED.frontmatter, content = EXCLUDED.content",
            &[
                &self.namespace,
                &columns.collections,
                &columns.ids,
                &columns.versions,
                &columns.frontmatters,
                &columns.contents,
            ],
        )
        .map_err(failed(what))?;
        let keep = i64::try_from(max_versions).unwrap_or(i64::MAX);
        tx.execute(
            "DELETE FROM memcore_history AS h USING ( \
                 SELECT collection, id, version, \
                        row_number() OVER (PARTITION BY collection, id ORDER BY version DESC) AS newer \
                 FROM memcore_history \
                 JOIN unnest($2::text[], $3::text[]) AS k (c, i) ON collection = k.c AND id = k.i \
                 WHERE namespace = $1) AS ranked \
             WHERE h.namespace = $1 AND h.collection = ranked.collection AND h.id = ranked.id \
             AND h.version = ranked.version AND ranked.newer > $4",
            &[&self.namespace, &columns.collections, &columns.ids, &keep],
        )
        .map_err(failed(what))?;
        Ok(())
    }

    /// Moves the row of `collection/id` to the trash; returns the trash entry.
    pub(super) fn trash_row(
        &self,
        tx: &mut Tx<'_, '_>,
        collection: &Collection,
        id: &MemoryId,
        now: Timestamp,
        what: &str,
    ) -> Result<TrashEntry> {
        let deleted_at = crate::format::frontmatter::format_timestamp(&now);
        let row = tx
            .query_one(
                "WITH gone AS (DELETE FROM memcore_memories \
                     WHERE namespace = $1 AND collection = $2 AND id = $3 \
                     RETURNING namespace, collection, id, frontmatter, content) \
                 INSERT INTO memcore_trash (namespace, collection, id, deleted_at, frontmatter, content) \
                 SELECT namespace, collection, id, $4, frontmatter, content FROM gone \
                 RETURNING seq",
                &[&self.namespace, &collection.as_str(), &id.as_str(), &deleted_at],
            )
            .map_err(failed(what))?;
        let seq: i64 = row.get(0);
        tx.execute(
            "DELETE FROM memcore_vectors WHERE namespace = $1 AND collection = $2 AND id = $3",
            &[&self.namespace, &collection.as_str(), &id.as_str()],
        )
        .map_err(failed(what))?;
        let (collections, ids) = ([collection.as_str().to_owned()], [id.as_str().to_owned()]);
        self.record_changes(tx, &collections, &ids)?;
        let slot = PathBuf::from(format!("postgres:{}/trash/{seq}", self.namespace));
        Ok(TrashEntry::new(collection.clone(), id.clone(), now, slot))
    }
}

/// Rows as the column arrays a statement `unnest`s.
#[derive(Default)]
struct Columns {
    collections: Vec<String>,
    ids: Vec<String>,
    versions: Vec<i64>,
    frontmatters: Vec<serde_json::Value>,
    contents: Vec<String>,
}

impl Columns {
    fn push(&mut self, memory: &Memory) -> Result<()> {
        self.frontmatters.push(frontmatter(memory)?);
        self.collections.push(memory.collection.as_str().to_owned());
        self.ids.push(memory.id.as_str().to_owned());
        self.versions.push(i64::try_from(memory.version).unwrap_or(i64::MAX));
        self.contents.push(memory.content.clone());
        Ok(())
    }
}

fn changed_twice(reference: &MemoryRef) -> Error {
    Error::validation(
        format!("memory {reference} is changed twice in one batch"),
        "merge the two changes into one",
    )
}
