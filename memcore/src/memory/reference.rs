//! [`MemoryRef`]: how a memory is named wherever a name crosses a module or binding boundary.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Collection, Memory, MemoryId, MemorySummary};
use crate::{Error, Result};

/// A reference to a memory: `collection/id`, or a bare `id` when the collection is left to
/// the store to find (an id held by several collections is then a conflict).
///
/// It is what every binding passes around as text: the `ref` of results, the keys of index
/// reports, the argument of `get`, `update` and friends. Parsing validates both parts.
///
/// ```
/// use memcore::MemoryRef;
///
/// let full: MemoryRef = "knowledge/gpu-patterns".parse()?;
/// assert_eq!(full.collection().map(|c| c.as_str()), Some("knowledge"));
/// assert_eq!(full.id().as_str(), "gpu-patterns");
/// assert_eq!(full.to_string(), "knowledge/gpu-patterns");
///
/// let bare: MemoryRef = "gpu-patterns".parse()?;
/// assert!(bare.collection().is_none());
/// assert!("../etc/passwd".parse::<MemoryRef>().is_err());
/// # Ok::<(), memcore::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MemoryRef {
    collection: Option<Collection>,
    id: MemoryId,
}

impl MemoryRef {
    /// The memory `id` in `collection`.
    pub fn new(collection: Collection, id: MemoryId) -> Self {
        Self { collection: Some(collection), id }
    }

    /// The memory `id` in whichever collection holds it.
    pub fn bare(id: MemoryId) -> Self {
        Self { collection: None, id }
    }

    /// `id` (or `collection/id` in `id`) with an optional separate `collection`, as the
    /// bindings take them; both ways of naming the collection at once is a validation error.
    ///
    /// ```
    /// use memcore::MemoryRef;
    ///
    /// let r = MemoryRef::parse_parts("gpu", Some("knowledge"))?;
    /// assert_eq!(r.to_string(), "knowledge/gpu");
    /// assert_eq!(MemoryRef::parse_parts("knowledge/gpu", None)?, r);
    /// assert!(MemoryRef::parse_parts("knowledge/gpu", Some("other")).is_err());
    /// # Ok::<(), memcore::Error>(())
    /// ```
    pub fn parse_parts(id: &str, collection: Option<&str>) -> Result<Self> {
        match collection {
            None => id.parse(),
            Some(collection) if id.contains('/') => Err(Error::validation(
                format!("{id:?} names a collection and so does collection={collection:?}"),
                "give the collection once: either `collection/id` or the id alone",
            )),
            Some(collection) => Ok(Self::new(Collection::new(collection)?, MemoryId::new(id)?)),
        }
    }

    /// The collection, when the reference names one.
    pub fn collection(&self) -> Option<&Collection> {
        self.collection.as_ref()
    }

    /// The id.
    pub fn id(&self) -> &MemoryId {
        &self.id
    }

    /// Whether the reference names its collection (`collection/id`), so that it finds
    /// exactly one memory.
    pub fn is_qualified(&self) -> bool {
        self.collection.is_some()
    }
}

impl fmt::Display for MemoryRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.collection {
            Some(collection) => write!(f, "{collection}/{}", self.id),
            None => write!(f, "{}", self.id),
        }
    }
}

impl FromStr for MemoryRef {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        match s.split_once('/') {
            Some((collection, id)) => {
                Ok(Self::new(Collection::new(collection)?, MemoryId::new(id)?))
            }
            None => Ok(Self::bare(MemoryId::new(s)?)),
        }
    }
}

/// Compares with text as written: `collection/id`, or the id of a bare reference.
impl PartialEq<&str> for MemoryRef {
    fn eq(&self, other: &&str) -> bool {
        match (&self.collection, other.split_once('/')) {
            (Some(collection), Some((c, id))) => collection.as_str() == c && self.id.as_str() == id,
            (None, None) => self.id.as_str() == *other,
            _ => false,
        }
    }
}

impl Serialize for MemoryRef {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for MemoryRef {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Cow::<'de, str>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for MemoryRef {
    fn schema_name() -> Cow<'static, str> {
        "MemoryRef".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": "A memory: `collection/id`, or its id alone when no other \
                            collection holds that id.",
            "examples": ["knowledge/gpu-patterns", "gpu-patterns"]
        })
    }
}

/// What names a memory in the methods of [`crate::Memcore`]: a [`MemoryRef`], text to
/// parse as one (`"id"` or `"collection/id"`), or a memory (or its summary) itself.
pub trait IntoMemoryRef {
    /// The reference, validated.
    fn into_memory_ref(self) -> Result<MemoryRef>;
}

impl IntoMemoryRef for MemoryRef {
    fn into_memory_ref(self) -> Result<MemoryRef> {
        Ok(self)
    }
}

impl IntoMemoryRef for &MemoryRef {
    fn into_memory_ref(self) -> Result<MemoryRef> {
        Ok(self.clone())
    }
}

impl IntoMemoryRef for &str {
    fn into_memory_ref(self) -> Result<MemoryRef> {
        self.parse()
    }
}

impl IntoMemoryRef for String {
    fn into_memory_ref(self) -> Result<MemoryRef> {
        self.parse()
    }
}

impl IntoMemoryRef for &String {
    fn into_memory_ref(self) -> Result<MemoryRef> {
        self.parse()
    }
}

impl IntoMemoryRef for &Memory {
    fn into_memory_ref(self) -> Result<MemoryRef> {
        Ok(self.reference())
    }
}

impl IntoMemoryRef for &MemorySummary {
    fn into_memory_ref(self) -> Result<MemoryRef> {
        Ok(self.reference.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_text_and_json() {
        for text in ["knowledge/gpu", "gpu", "decisions/decisions:abc123:0"] {
            let r: MemoryRef = text.parse().unwrap();
            assert_eq!(r.to_string(), text);
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(serde_json::from_str::<MemoryRef>(&json).unwrap(), r);
        }
    }

    #[test]
    fn compares_with_text() {
        let r: MemoryRef = "k/gpu".parse().unwrap();
        assert!(r == "k/gpu" && r != "gpu" && r != "k/cpu" && r != "x/gpu");
        assert!(MemoryRef::bare("gpu".parse().unwrap()) == "gpu");
        assert_eq!(vec![r], ["k/gpu"]);
    }

    #[test]
    fn rejects_bad_parts() {
        for bad in ["", "/", "a/", "/b", "a/b/c", "A/b", "a/../b", ".trash/x"] {
            assert!(bad.parse::<MemoryRef>().is_err(), "{bad:?} accepted");
        }
        let err = serde_json::from_str::<MemoryRef>("\"a/b/c\"").unwrap_err();
        assert!(err.to_string().contains("invalid id"), "{err}");
    }
}
