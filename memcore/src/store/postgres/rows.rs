//! Memories as rows: the frontmatter as JSONB (the same keys and values as a memory file's),
//! the content as text.

use std::path::PathBuf;

use postgres::Row;
use serde_json::Value as Json;

use crate::format::frontmatter::{memory_from_mapping, memory_mapping};
use crate::{Collection, Error, Memory, MemoryId, Result};

/// The columns every memory query selects, in the order [`memory_of`] reads them.
pub(super) const MEMORY_COLUMNS: &str = "collection, id, frontmatter, content";

/// The frontmatter of `memory` as JSON, keys in the order files use. A validation error
/// when a field or the content holds a NUL character, which PostgreSQL's `text` and `jsonb`
/// cannot store.
pub(super) fn frontmatter(memory: &Memory) -> Result<Json> {
    let fields = serde_json::to_value(memory_mapping(memory)).map_err(|e| {
        Error::validation(
            format!("memory {} cannot be stored as JSON: {e}", memory.reference()),
            "keep metadata to JSON values (strings, numbers, lists, maps)",
        )
    })?;
    if memory.content.contains('\0') || holds_nul(&fields) {
        return Err(Error::validation(
            format!(
                "memory {} holds a NUL character (U+0000), which PostgreSQL cannot store",
                memory.reference()
            ),
            "remove the NUL characters (a file store keeps them, if you need them)",
        ));
    }
    Ok(fields)
}

/// Whether a string anywhere in `value` (a key included) holds a NUL character.
fn holds_nul(value: &Json) -> bool {
    match value {
        Json::String(s) => s.contains('\0'),
        Json::Array(items) => items.iter().any(holds_nul),
        Json::Object(map) => map.iter().any(|(key, item)| key.contains('\0') || holds_nul(item)),
        Json::Null | Json::Bool(_) | Json::Number(_) => false,
    }
}

/// Where a row is, shown as the path of a damaged item: `postgres:<namespace>/<collection>/<id>`.
pub(super) fn place(namespace: &str, collection: &str, id: &str) -> PathBuf {
    PathBuf::from(format!("postgres:{namespace}/{collection}/{id}"))
}

/// The memory a row of [`MEMORY_COLUMNS`] holds (from column `offset` on).
pub(super) fn memory_of(namespace: &str, row: &Row, offset: usize) -> Result<Memory> {
    let collection: String = row.get(offset);
    let id: String = row.get(offset + 1);
    let frontmatter: Json = row.get(offset + 2);
    let content: String = row.get(offset + 3);
    let damaged = |message: String| {
        Error::corrupted(
            place(namespace, &collection, &id),
            None,
            message,
            "fix the row's frontmatter (JSONB) or delete the row; the rest of the store is unaffected",
        )
    };
    let collection_name = Collection::new(collection.as_str())
        .map_err(|e| damaged(format!("invalid collection: {e}")))?;
    let memory_id = MemoryId::new(id.as_str()).map_err(|e| damaged(format!("invalid id: {e}")))?;
    let mapping = match serde_yaml::to_value(&frontmatter) {
        Ok(serde_yaml::Value::Mapping(mapping)) => mapping,
        _ => return Err(damaged("the frontmatter is not a JSON object".into())),
    };
    memory_from_mapping(mapping, &content, &collection_name, &memory_id, crate::now())
        .map_err(|e| damaged(e.message))
}
