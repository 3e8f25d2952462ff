//! Validated names: [`MemoryId`] and [`Collection`], and id generation.
//!
//! Both names become path components of the file store (`<root>/<collection>/<id>.md`), so
//! their grammar rules out traversal and hidden files by construction: lower-case ASCII
//! letters, digits and `.`, `_`, `-` (ids also `:`, the separator of git-notes ids), starting
//! with a letter or digit, never containing `..`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize};
use sha2::{Digest, Sha256};

use crate::{Error, Result};

/// The longest id, in bytes.
pub const MAX_ID_LEN: usize = 128;
/// The longest collection name, in bytes.
pub const MAX_COLLECTION_LEN: usize = 64;
/// The longest slug generated from a title or heading, in bytes (seed 000).
const MAX_SLUG_LEN: usize = 50;
/// Hex digits of the content-hash fallback id (seed 000).
const HASH_ID_LEN: usize = 12;

/// The id of a memory, unique within its collection.
///
/// ```
/// use memcore::MemoryId;
///
/// let id: MemoryId = "gpu-patterns".parse()?;
/// assert_eq!(id.as_str(), "gpu-patterns");
/// assert!("../etc/passwd".parse::<MemoryId>().is_err());
/// # Ok::<(), memcore::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct MemoryId(String);

/// The name of a collection: a folder of the file store, a namespace of the git-notes store.
///
/// ```
/// use memcore::Collection;
///
/// let c: Collection = "knowledge".parse()?;
/// assert_eq!(c.as_str(), "knowledge");
/// assert!(".trash".parse::<Collection>().is_err());
/// # Ok::<(), memcore::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Collection(String);

impl MemoryId {
    /// Validates `id`; see the module docs for the grammar.
    pub fn new(id: impl Into<String>) -> Result<Self> {
        let id = id.into();
        check_name("id", &id, MAX_ID_LEN, |c| is_name_char(c) || c == ':')?;
        Ok(Self(id))
    }

    /// The id derived as seed 000 prescribes: the slug of `title` if given and non-empty,
    /// else the slug of the content's first level-1 heading, else the first 12 hex digits of
    /// the SHA-256 of the content.
    ///
    /// ```
    /// use memcore::MemoryId;
    ///
    /// assert_eq!(MemoryId::generate(Some("GPU Acceleration Patterns"), "").as_str(),
    ///            "gpu-acceleration-patterns");
    /// assert_eq!(MemoryId::generate(None, "# Security Audit\n\nFindings").as_str(),
    ///            "security-audit");
    /// assert_eq!(MemoryId::generate(None, "no heading here").as_str().len(), 12);
    /// ```
    pub fn generate(title: Option<&str>, content: &str) -> Self {
        let from_title = || title.map(slugify).filter(|slug| !slug.is_empty());
        let from_heading = || {
            crate::format::first_heading(content)
                .map(|heading| slugify(&heading))
                .filter(|slug| !slug.is_empty())
        };
        Self(from_title().or_else(from_heading).unwrap_or_else(|| content_hash_id(content)))
    }

    /// The id as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The id of the memory at `index` of the note on `commit` (full hex) in `namespace` of
    /// the git-notes store: `namespace:commit:index`, valid by construction (a collection name,
    /// hex and digits, at most 64 + 40 + 22 bytes).
    pub(crate) fn git_locator(namespace: &Collection, commit: &str, index: usize) -> Self {
        Self(format!("{namespace}:{commit}:{index}"))
    }
}

impl Collection {
    /// Validates `name`; see the module docs for the grammar.
    pub fn new(name: impl Into<String>) -> Result<Self> {
        let name = name.into();
        check_name("collection", &name, MAX_COLLECTION_LEN, is_name_char)?;
        Ok(Self(name))
    }

    /// The collection used when none is given: `memory`.
    pub fn default_name() -> Self {
        Self("memory".to_owned())
    }

    /// The name as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for Collection {
    fn default() -> Self {
        Self::default_name()
    }
}

/// A filename-safe slug: transliterated to ASCII, lower case, runs of other characters
/// folded to one `-`, trimmed, at most 50 bytes.
pub(crate) fn slugify(text: &str) -> String {
    let slug = slug::slugify(text);
    let cut = slug.len().min(MAX_SLUG_LEN);
    slug[..cut].trim_end_matches('-').to_owned()
}

impl MemoryId {
    /// The id made from a hash of `content` alone (what [`MemoryId::generate`] falls back to):
    /// equal contents get equal ids, different ones different ids.
    pub(crate) fn for_content(content: &str) -> Self {
        Self(content_hash_id(content))
    }
}

fn content_hash_id(content: &str) -> String {
    let digest = Sha256::digest(content.as_bytes());
    crate::hex::hex(&digest[..HASH_ID_LEN / 2])
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-')
}

fn check_name(
    kind: &str,
    name: &str,
    max_len: usize,
    allowed: impl Fn(char) -> bool,
) -> Result<()> {
    // The messages are made only for a name that fails: valid names (every key read back
    // from an index) pass without an allocation.
    let reject = |why: String| {
        let rule = format!(
            "a {kind} uses lower-case letters, digits, '.', '_' and '-', starts with a letter \
             or digit and is at most {max_len} bytes, e.g. `gpu-patterns`"
        );
        Err(Error::validation(format!("invalid {kind} {name:?}: {why}"), rule))
    };
    if name.is_empty() {
        return reject("it is empty".into());
    }
    if name.len() > max_len {
        return reject(format!("it is {} bytes long (max {max_len})", name.len()));
    }
    if name.contains("..") {
        return reject("it contains '..'".into());
    }
    if let Some(bad) = name.chars().find(|&c| !allowed(c)) {
        let hint = if bad.is_ascii_uppercase() { " (use lower case)" } else { "" };
        return reject(format!("it contains {bad:?}{hint}"));
    }
    let first = name.chars().next().unwrap_or('-');
    if !(first.is_ascii_lowercase() || first.is_ascii_digit()) {
        return reject(format!("it starts with {first:?}"));
    }
    Ok(())
}

macro_rules! name_impls {
    ($ty:ident, $max_len:expr, $pattern:literal) => {
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.pad(&self.0)
            }
        }

        impl FromStr for $ty {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self> {
                Self::new(s)
            }
        }

        impl TryFrom<String> for $ty {
            type Error = Error;
            fn try_from(s: String) -> Result<Self> {
                Self::new(s)
            }
        }

        impl TryFrom<&str> for $ty {
            type Error = Error;
            fn try_from(s: &str) -> Result<Self> {
                Self::new(s)
            }
        }

        impl AsRef<str> for $ty {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl schemars::JsonSchema for $ty {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($ty).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({
                    "type": "string",
                    "pattern": $pattern,
                    "maxLength": $max_len,
                })
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let raw = String::deserialize(deserializer)?;
                Self::new(raw).map_err(serde::de::Error::custom)
            }
        }
    };
}

name_impls!(MemoryId, MAX_ID_LEN, "^[a-z0-9][a-z0-9._:-]*$");
name_impls!(Collection, MAX_COLLECTION_LEN, "^[a-z0-9][a-z0-9._-]*$");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_traversal_and_hidden_names() {
        for bad in
            ["", "..", "a/b", "a\\b", "a\0b", "-rf", ".hidden", "a..b", "UPPER", "sp ace", "é"]
        {
            assert!(MemoryId::new(bad).is_err(), "{bad:?} accepted as id");
            assert!(Collection::new(bad).is_err(), "{bad:?} accepted as collection");
        }
        assert!(MemoryId::new("x".repeat(MAX_ID_LEN + 1)).is_err());
        assert!(MemoryId::new("x".repeat(MAX_ID_LEN)).is_ok());
        assert!(Collection::new("x".repeat(MAX_COLLECTION_LEN + 1)).is_err());
    }

    #[test]
    fn accepts_slugs_and_git_note_ids() {
        for good in ["gpu-patterns", "v1.2_notes", "5f3a2c8b12ef", "decisions:abc123:0"] {
            assert!(MemoryId::new(good).is_ok(), "{good:?} rejected");
        }
        assert!(Collection::new("decisions:x").is_err());
    }

    #[test]
    fn error_explains_the_rule() {
        let err = MemoryId::new("Bad/Id").unwrap_err();
        assert!(err.to_string().contains("'B' (use lower case)"), "{err}");
        assert!(err.recovery().contains("lower-case letters"));
    }

    #[test]
    fn generation_follows_seed_priority() {
        assert_eq!(MemoryId::generate(Some("Hello, World!"), "# Other").as_str(), "hello-world");
        assert_eq!(
            MemoryId::generate(None, "intro\n# The *Real* Title\n").as_str(),
            "the-real-title"
        );
        assert_eq!(MemoryId::generate(Some("!!!"), "# Heading").as_str(), "heading");
        let hashed = MemoryId::generate(None, "plain text");
        assert_eq!(hashed.as_str().len(), 12);
        assert!(hashed.as_str().chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(hashed, MemoryId::generate(None, "plain text"));
        let long = MemoryId::generate(Some(&"word ".repeat(40)), "");
        assert!(long.as_str().len() <= MAX_SLUG_LEN && !long.as_str().ends_with('-'));
        assert!(MemoryId::new(long.as_str()).is_ok());
    }
}
