//! Archive compression (seed 002, 6.3), without the seed's loss: archiving replaces a
//! memory's content with a short searchable stub and keeps the original bytes, zlib-compressed
//! and checksummed, in the memory's own frontmatter; restoring it brings them back exactly.
//!
//! Keeping the original inside the memory (rather than in a file beside it) makes archiving
//! one atomic write on every backend, and the original travels with the memory through git,
//! history and the trash.

use std::io::{Read, Write};

use crate::hex::sha256_hex;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use flate2::Compression;
use flate2::read::ZlibDecoder;
use flate2::write::ZlibEncoder;
use serde::{Deserialize, Serialize};

use crate::{Error, Memory, Result};

/// The metadata key holding an archived memory's original content.
pub const ARCHIVE_KEY: &str = "archived_original";

/// How much of the content the stub keeps when the memory has no summary, in characters.
const STUB_CHARS: usize = 200;

/// An archived memory's original content, as kept under [`ARCHIVE_KEY`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArchivedOriginal {
    /// How `data` is encoded: `zlib+base64`.
    encoding: String,
    /// The original's length in bytes.
    bytes: usize,
    /// The original's SHA-256, hex.
    sha256: String,
    /// The compressed original.
    data: String,
}

/// The only encoding written and read.
const ENCODING: &str = "zlib+base64";

/// The archived form of `memory`: the stub that replaces its content and the metadata value
/// that keeps the original. `None` when compressing would not make the memory smaller (short
/// content) or it holds an archived original already.
pub(crate) fn compress(memory: &Memory) -> Option<(String, serde_json::Value)> {
    if memory.metadata.contains_key(ARCHIVE_KEY) {
        return None;
    }
    let original = memory.content.as_bytes();
    let mut encoder = ZlibEncoder::new(Vec::new(), Compression::new(6));
    // Writing to a Vec cannot fail.
    encoder.write_all(original).ok()?;
    let compressed = encoder.finish().ok()?;
    let ratio = compressed.len() as f64 / original.len().max(1) as f64;
    let stub = format!(
        "[ARCHIVED] [Compressed: {} bytes, ratio: {ratio:.2}] Original summary: {}",
        compressed.len(),
        summary_of(memory)
    );
    let kept = ArchivedOriginal {
        encoding: ENCODING.to_owned(),
        bytes: original.len(),
        sha256: sha256_hex(original),
        data: STANDARD.encode(&compressed),
    };
    if stub.len() + kept.data.len() >= original.len() {
        return None;
    }
    Some((stub, serde_json::to_value(kept).ok()?))
}

/// The summary the stub shows: the memory's own, else the start of its content on one line.
fn summary_of(memory: &Memory) -> String {
    if let Some(summary) = &memory.summary {
        return summary.clone();
    }
    let flat = memory.content.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(STUB_CHARS) {
        Some((cut, _)) => format!("{}...", &flat[..cut]),
        None => flat,
    }
}

/// The original content kept in `memory`'s metadata, checked against its length and hash;
/// `None` when the memory holds none.
pub(crate) fn original(memory: &Memory) -> Result<Option<String>> {
    let Some(value) = memory.metadata.get(ARCHIVE_KEY) else {
        return Ok(None);
    };
    let damaged = |why: String| {
        Error::corrupted(
            memory.reference().to_string(),
            None,
            format!("the archived original content is damaged: {why}"),
            format!(
                "recover the content from the memory's history (versions), then remove the \
                 `{ARCHIVE_KEY}` metadata key with an update"
            ),
        )
    };
    let kept: ArchivedOriginal =
        serde_json::from_value(value.clone()).map_err(|e| damaged(e.to_string()))?;
    if kept.encoding != ENCODING {
        return Err(damaged(format!("unknown encoding `{}`", kept.encoding)));
    }
    let compressed = STANDARD.decode(&kept.data).map_err(|e| damaged(e.to_string()))?;
    let mut bytes = Vec::with_capacity(kept.bytes);
    ZlibDecoder::new(compressed.as_slice())
        .take(kept.bytes as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| damaged(e.to_string()))?;
    if bytes.len() != kept.bytes || sha256_hex(&bytes) != kept.sha256 {
        return Err(damaged("its length or checksum does not match".to_owned()));
    }
    String::from_utf8(bytes).map(Some).map_err(|e| damaged(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Collection, Limits, NewMemory};

    fn memory(content: &str) -> Memory {
        NewMemory::new(content)
            .summary("GPU kernel tuning notes")
            .into_memory(&Collection::default(), &Limits::default(), crate::now())
            .unwrap()
    }

    #[test]
    fn round_trips_exact_bytes() {
        let content = "# Tuning\n\n".to_owned() + &"Prefer Metal on Apple silicon. ✓ ".repeat(60);
        let mut archived = memory(&content);
        let (stub, kept) = compress(&archived).unwrap();
        assert!(stub.starts_with("[ARCHIVED] [Compressed: "));
        assert!(stub.ends_with("Original summary: GPU kernel tuning notes"));
        archived.content = stub;
        archived.metadata.insert(ARCHIVE_KEY.into(), kept);
        assert_eq!(original(&archived).unwrap().as_deref(), Some(content.as_str()));
        assert!(compress(&archived).is_none(), "archived twice");
    }

    #[test]
    fn short_content_is_not_compressed() {
        assert!(compress(&memory("A short note.")).is_none());
        assert_eq!(original(&memory("A short note.")).unwrap(), None);
    }

    #[test]
    fn damage_is_reported_not_restored() {
        let content = "lorem ipsum dolor ".repeat(100);
        let mut archived = memory(&content);
        let (stub, mut kept) = compress(&archived).unwrap();
        archived.content = stub;
        kept["sha256"] = "00".into();
        archived.metadata.insert(ARCHIVE_KEY.into(), kept);
        let err = original(&archived).unwrap_err();
        assert!(err.to_string().contains("damaged"), "{err}");
        archived.metadata.insert(ARCHIVE_KEY.into(), "not an object".into());
        assert!(original(&archived).is_err());
    }
}
