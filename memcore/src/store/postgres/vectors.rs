//! The vectors memcore embedded, kept in `memcore_vectors` for every machine that indexes
//! the namespace: one row per memory and model, with the hash of the text embedded, the
//! vector as little-endian `f32`s (`bytea`: a batch passes as one `bytea[]` parameter,
//! where `real[][]` would be flattened by `unnest`).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::connection::{Connection, failed};
use crate::store::{SharedVectors, VectorKey};
use crate::{MemoryRef, Result};

/// How many vectors one statement keeps (about 1.5 MiB of parameters with the default model).
const KEEP_BATCH: usize = 1_000;

/// The vectors of one namespace.
#[derive(Debug)]
pub(super) struct VectorTable {
    connection: Arc<Connection>,
    namespace: String,
}

impl VectorTable {
    pub(super) fn new(connection: Arc<Connection>, namespace: String) -> Self {
        Self { connection, namespace }
    }
}

/// The columns of `keys`: collections, ids, text hashes.
fn columns<'k>(keys: impl Iterator<Item = &'k VectorKey>) -> [Vec<&'k str>; 3] {
    let mut columns: [Vec<&str>; 3] = Default::default();
    for key in keys {
        // Keys name their collection: the vector index keeps qualified references.
        let collection = key.reference.collection().map_or("", |c| c.as_str());
        columns[0].push(collection);
        columns[1].push(key.reference.id().as_str());
        columns[2].push(&key.text_hash);
    }
    columns
}

impl SharedVectors for VectorTable {
    fn fetch_vectors(&self, model: &str, keys: &[VectorKey]) -> Result<Vec<Option<Vec<f32>>>> {
        let [collections, ids, hashes] = columns(keys.iter());
        let rows = self.connection.with(|sql| {
            sql.query(
                "SELECT wanted.n, v.vector FROM memcore_vectors AS v \
                 JOIN unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY \
                     AS wanted (c, i, h, n) \
                 ON v.collection = wanted.c AND v.id = wanted.i AND v.text_hash = wanted.h \
                 WHERE v.namespace = $1 AND v.model = $2",
                &[&self.namespace, &model, &collections, &ids, &hashes],
            )
            .map_err(failed("reading shared vectors"))
        })?;
        let mut found = vec![None; keys.len()];
        for row in rows {
            let position: i64 = row.get(0);
            let bytes: Vec<u8> = row.get(1);
            let slot = usize::try_from(position - 1).ok().and_then(|i| found.get_mut(i));
            // A length that is no whole number of floats was damaged: left out, re-embedded.
            if let Some(slot) = slot
                && bytes.len().is_multiple_of(4)
            {
                *slot = Some(
                    bytes
                        .chunks_exact(4)
                        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                        .collect(),
                );
            }
        }
        Ok(found)
    }

    fn keep_vectors(&self, model: &str, vectors: &[(VectorKey, &[f32])]) -> Result<()> {
        // One row per memory (the last given: a statement may not change a row twice), in
        // key order: two processes keeping overlapping batches take the rows' locks in the
        // same order, and never deadlock.
        let unique: BTreeMap<&MemoryRef, (&VectorKey, &[f32])> =
            vectors.iter().map(|(key, vector)| (&key.reference, (key, *vector))).collect();
        let unique: Vec<(&VectorKey, &[f32])> = unique.into_values().collect();
        for chunk in unique.chunks(KEEP_BATCH) {
            let [collections, ids, hashes] = columns(chunk.iter().map(|(key, _)| *key));
            let blobs: Vec<Vec<u8>> = chunk
                .iter()
                .map(|(_, vector)| vector.iter().flat_map(|x| x.to_le_bytes()).collect())
                .collect();
            self.connection.with(|sql| {
                sql.execute(
                    "INSERT INTO memcore_vectors (namespace, model, collection, id, text_hash, vector) \
                     SELECT $1, $2, * FROM unnest($3::text[], $4::text[], $5::text[], $6::bytea[]) \
                     ON CONFLICT (namespace, collection, id, model) DO UPDATE SET \
                     text_hash = EXCLUDED.text_hash, vector = EXCLUDED.vector",
                    &[&self.namespace, &model, &collections, &ids, &hashes, &blobs],
                )
                .map_err(failed("keeping shared vectors"))
            })?;
        }
        Ok(())
    }
}
