//! The vector log: the one file that persists a vector index, its format, reading and writing.
//!
//! Layout, all integers little-endian:
//!
//! ```text
//! header   b"MCVECLOG" | version u32 | dimension u32 | generation u64 | model_len u32 | model
//!          | hash u64 (of everything before it)
//! record   len u32 | hash u64 (of the payload, seeded with len) | payload (len bytes)
//! payload  1u8 | meta_len u32 | meta (JSON DocMeta) | dimension x f32     add or replace a key
//!          2u8 | key (UTF-8)                                             remove a key
//! ```
//!
//! The file only grows, one fsynced batch of records per write, except when it is replaced
//! whole (compaction, clear): then a new file with a new random `generation` is renamed over
//! it, so a reader that sees another inode or generation reloads from scratch. A record cut
//! short by a crash, or whose hash does not match, ends the readable log: readers stop before
//! it (it may also be a write still in progress) and the next writer cuts it off.

use std::fs::{self, File, OpenOptions};
use std::io::{BufReader, BufWriter, ErrorKind, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;

use crate::index::DocMeta;
use crate::store::fsutil::{TEMP_PREFIX, sync_dir};
use crate::{Error, Result};

use super::REBUILD;

/// The file's first bytes.
const MAGIC: [u8; 8] = *b"MCVECLOG";
/// The format version this code writes and reads.
const VERSION: u32 = 1;
/// Bytes before a record's payload: length and hash.
const RECORD_HEAD: usize = 12;
/// The largest payload accepted; anything longer is damage, not data.
const MAX_PAYLOAD: usize = 1 << 26;
/// The longest model id accepted in a header.
const MAX_MODEL_ID: usize = 4096;
/// Payload tag of an add (or replace) record.
const TAG_ADD: u8 = 1;
/// Payload tag of a remove record.
const TAG_REMOVE: u8 = 2;

/// Identifies one file on disk across renames of other files over its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FileId {
    /// Device number.
    dev: u64,
    /// Inode number.
    ino: u64,
}

impl FileId {
    /// The identity of the file `meta` describes.
    pub(super) fn of(meta: &fs::Metadata) -> Self {
        Self { dev: meta.dev(), ino: meta.ino() }
    }
}

/// What a log holds before its records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Header {
    /// Length of every vector.
    pub(super) dimension: usize,
    /// The embedding model that produced the vectors.
    pub(super) model_id: String,
    /// Random id of this file's contents; changes whenever the file is replaced whole.
    pub(super) generation: u64,
}

/// The outcome of reading a header.
#[derive(Debug)]
pub(super) enum HeaderRead {
    /// A valid header, and the offset of the first record.
    Valid(Header, u64),
    /// Not a header this code can use; says why.
    Unusable(String),
}

impl Header {
    /// The header's bytes.
    pub(super) fn encode(&self) -> Vec<u8> {
        let model = self.model_id.as_bytes();
        let mut bytes = Vec::with_capacity(40 + model.len());
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&(self.dimension as u32).to_le_bytes());
        bytes.extend_from_slice(&self.generation.to_le_bytes());
        bytes.extend_from_slice(&(model.len() as u32).to_le_bytes());
        bytes.extend_from_slice(model);
        let hash = hash64(&bytes, 0);
        bytes.extend_from_slice(&hash.to_le_bytes());
        bytes
    }

    /// Reads the header at the start of `file`.
    pub(super) fn read(file: &File) -> std::io::Result<HeaderRead> {
        let mut fixed = [0u8; 28];
        if !read_full(file, 0, &mut fixed)? {
            return Ok(HeaderRead::Unusable("the file is too short for a header".into()));
        }
        if fixed[..8] != MAGIC {
            return Ok(HeaderRead::Unusable("the file is not a memcore vector log".into()));
        }
        let version = u32_at(&fixed, 8);
        if version != VERSION {
            return Ok(HeaderRead::Unusable(format!(
                "the file has format version {version}; this memcore reads version {VERSION}"
            )));
        }
        let dimension = u32_at(&fixed, 12) as usize;
        let generation = u64_at(&fixed, 16);
        let model_len = u32_at(&fixed, 24) as usize;
        if model_len > MAX_MODEL_ID {
            return Ok(HeaderRead::Unusable("the header is damaged".into()));
        }
        let mut rest = vec![0u8; model_len + 8];
        if !read_full(file, 28, &mut rest)? {
            return Ok(HeaderRead::Unusable("the header is cut short".into()));
        }
        let mut all = fixed.to_vec();
        all.extend_from_slice(&rest[..model_len]);
        if hash64(&all, 0) != u64_at(&rest, model_len) {
            return Ok(HeaderRead::Unusable("the header is damaged (hash mismatch)".into()));
        }
        let Ok(model_id) = String::from_utf8(rest[..model_len].to_vec()) else {
            return Ok(HeaderRead::Unusable("the header's model id is not UTF-8".into()));
        };
        let end = (28 + model_len + 8) as u64;
        Ok(HeaderRead::Valid(Header { dimension, model_id, generation }, end))
    }
}

/// One record as read back.
#[derive(Debug)]
pub(super) enum Entry<'a> {
    /// Add `meta.key`, replacing any row it had.
    Add {
        /// The metadata.
        meta: DocMeta,
        /// The vector, as `dimension` little-endian f32.
        vector: &'a [u8],
        /// Where the whole record is in the log file.
        record: Span,
    },
    /// Remove `key`.
    Remove {
        /// The key.
        key: &'a str,
    },
}

/// Where a record is in the log file: its first byte and its length, head included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    /// Offset of its first byte.
    pub(super) at: u64,
    /// Its length in bytes.
    pub(super) len: u64,
}

/// The vector of `record`, the bytes of an add record read back from the log (head
/// included), if they are still intact: the length, hash, tag and vector length checked as
/// when the log was first read. `None` for anything else.
pub(super) fn intact_add_vector(record: &[u8], dimension: usize) -> Option<&[u8]> {
    let head = record.get(..RECORD_HEAD)?;
    let payload = &record[RECORD_HEAD..];
    let intact = u32_at(head, 0) as usize == payload.len() && payload_intact(head, payload);
    let (_meta, vector) = split_add(payload, dimension).filter(|_| intact)?;
    Some(vector)
}

/// Whether `payload` is what the record head `head` says it is (its hash matches).
fn payload_intact(head: &[u8], payload: &[u8]) -> bool {
    hash64(payload, payload.len() as u64) == u64_at(head, 4)
}

/// The metadata and vector bytes of an add record's payload, if it is one and its lengths
/// fit vectors of `dimension`.
fn split_add(payload: &[u8], dimension: usize) -> Option<(&[u8], &[u8])> {
    if payload.len() < 5 || payload[0] != TAG_ADD {
        return None;
    }
    let meta_len = u32_at(payload, 1) as usize;
    (5 + meta_len + dimension * 4 == payload.len())
        .then(|| (&payload[5..5 + meta_len], &payload[5 + meta_len..]))
}

/// Appends an add record for `meta` and `vector` to `buf`.
pub(super) fn encode_add(buf: &mut Vec<u8>, meta: &DocMeta, vector: &[f32]) -> Result<()> {
    let json = serde_json::to_vec(meta).map_err(|e| {
        Error::index(
            format!("cannot encode the metadata of {}", meta.key),
            Some(Box::new(e)),
            REBUILD,
        )
    })?;
    let start = begin_record(buf);
    buf.push(TAG_ADD);
    buf.extend_from_slice(&(json.len() as u32).to_le_bytes());
    buf.extend_from_slice(&json);
    for x in vector {
        buf.extend_from_slice(&x.to_le_bytes());
    }
    end_record(buf, start);
    Ok(())
}

/// Appends a remove record for `key` to `buf`.
pub(super) fn encode_remove(buf: &mut Vec<u8>, key: &str) {
    let start = begin_record(buf);
    buf.push(TAG_REMOVE);
    buf.extend_from_slice(key.as_bytes());
    end_record(buf, start);
}

/// Reserves a record head in `buf`; returns where the record starts.
fn begin_record(buf: &mut Vec<u8>) -> usize {
    let start = buf.len();
    buf.extend_from_slice(&[0u8; RECORD_HEAD]);
    start
}

/// Fills in the head of the record that starts at `start` and runs to the end of `buf`.
fn end_record(buf: &mut [u8], start: usize) {
    let len = buf.len() - start - RECORD_HEAD;
    let hash = hash64(&buf[start + RECORD_HEAD..], len as u64);
    buf[start..start + 4].copy_from_slice(&(len as u32).to_le_bytes());
    buf[start + 4..start + RECORD_HEAD].copy_from_slice(&hash.to_le_bytes());
}

/// Reads the intact records of `file` between `from` and `to`, handing each to `apply`.
///
/// Returns the offset just after the last intact record: `to` when all were intact, less
/// when the log ends with a record that is cut short or damaged (a crash, or a write still in
/// progress in another process). A record that is intact but cannot be decoded is an error:
/// that is not a torn write but a log this code does not understand.
pub(super) fn read_file_records(
    file: &File,
    path: &Path,
    from: u64,
    to: u64,
    dimension: usize,
    apply: &mut dyn FnMut(Entry<'_>),
) -> Result<u64> {
    let mut reader = BufReader::with_capacity(1 << 20, file);
    reader
        .seek(SeekFrom::Start(from))
        .map_err(|e| Error::io(format!("reading the vector index {}", path.display()), e))?;
    read_records(&mut reader, path, from, to, dimension, apply)
}

/// [`read_file_records`] from `reader`, positioned at offset `from` of the log at `path` (or
/// holding records about to be written there).
pub(super) fn read_records(
    reader: &mut dyn Read,
    path: &Path,
    from: u64,
    to: u64,
    dimension: usize,
    apply: &mut dyn FnMut(Entry<'_>),
) -> Result<u64> {
    let io_failed = |e| Error::io(format!("reading the vector index {}", path.display()), e);
    let mut pos = from;
    let mut payload = Vec::new();
    loop {
        if to.saturating_sub(pos) < RECORD_HEAD as u64 {
            return Ok(pos);
        }
        let mut head = [0u8; RECORD_HEAD];
        reader.read_exact(&mut head).map_err(io_failed)?;
        let len = u32_at(&head, 0) as usize;
        if len == 0 || len > MAX_PAYLOAD || pos + (RECORD_HEAD + len) as u64 > to {
            return Ok(pos);
        }
        payload.resize(len, 0);
        reader.read_exact(&mut payload).map_err(io_failed)?;
        if !payload_intact(&head, &payload) {
            return Ok(pos);
        }
        let undecodable = |what: &str| {
            Error::index(
                format!(
                    "the vector index {} has an unreadable record at byte {pos}: {what}",
                    path.display()
                ),
                None,
                REBUILD,
            )
        };
        match payload[0] {
            TAG_ADD if len >= 5 => {
                let Some((meta, vector)) = split_add(&payload, dimension) else {
                    return Err(undecodable("wrong length for this dimension"));
                };
                let meta: DocMeta = serde_json::from_slice(meta)
                    .map_err(|e| undecodable(&format!("bad metadata ({e})")))?;
                let record = Span { at: pos, len: (RECORD_HEAD + len) as u64 };
                apply(Entry::Add { meta, vector, record });
            }
            TAG_REMOVE => {
                let key = std::str::from_utf8(&payload[1..])
                    .map_err(|_| undecodable("key is not UTF-8"))?;
                apply(Entry::Remove { key });
            }
            tag => return Err(undecodable(&format!("unknown record type {tag}"))),
        }
        pos += (RECORD_HEAD + len) as u64;
    }
}

/// Decodes a vector stored as little-endian f32 into `out`.
pub(super) fn decode_vector(bytes: &[u8], out: &mut Vec<f32>) {
    out.extend(bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])));
}

/// Appends `bytes` to the log at `path` at offset `at`, cutting off anything after `at` first
/// (a torn record left by a crash), and syncs. The file must still be `expect`.
///
/// Returns the new end of the log. Only one process may write at a time (the caller holds
/// the store's lock).
pub(super) fn append(path: &Path, expect: FileId, at: u64, bytes: &[u8]) -> Result<u64> {
    let failed = |e| Error::io(format!("writing the vector index {}", path.display()), e);
    let file = OpenOptions::new().write(true).open(path).map_err(failed)?;
    let meta = file.metadata().map_err(failed)?;
    if FileId::of(&meta) != expect {
        return Err(Error::conflict(
            format!("the vector index {} was replaced during a write", path.display()),
            "retry; only one process may write to a store at a time",
        ));
    }
    if meta.len() != at {
        file.set_len(at).map_err(failed)?;
    }
    file.write_all_at(bytes, at).map_err(failed)?;
    file.sync_data().map_err(failed)?;
    Ok(at + bytes.len() as u64)
}

/// Creates the log at `path` holding only `header`, unless a file is already there.
///
/// Returns whether this call created it. The file appears whole or not at all: it is written
/// to a temp file and hard-linked into place, which fails if another process got there first.
pub(super) fn create(dir: &Path, path: &Path, header: &Header) -> Result<bool> {
    let temp = write_temp(dir, path, |out| out.write_all(&header.encode()))?;
    let linked = fs::hard_link(temp.path(), path);
    drop(temp);
    match linked {
        Ok(()) => {
            sync_dir(dir)?;
            Ok(true)
        }
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(Error::io(format!("creating the vector index {}", path.display()), e)),
    }
}

/// Replaces the log at `path` whole with `header` followed by what `body` writes (records
/// encoded with [`encode_add`]), durably: temp file, fsync, rename, fsync of the directory.
pub(super) fn replace(
    dir: &Path,
    path: &Path,
    header: &Header,
    body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let temp = write_temp(dir, path, |out| {
        out.write_all(&header.encode())?;
        body(out)
    })?;
    temp.persist(path).map_err(|e| {
        Error::io(format!("replacing the vector index {}", path.display()), e.error)
    })?;
    sync_dir(dir)
}

/// A private (0600) temp file in `dir` holding what `write` wrote, synced.
fn write_temp(
    dir: &Path,
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<tempfile::NamedTempFile> {
    let failed = |e| Error::io(format!("writing the vector index {}", path.display()), e);
    let temp = tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))
        .tempfile_in(dir)
        .map_err(failed)?;
    let mut out = BufWriter::with_capacity(1 << 20, temp.as_file());
    write(&mut out).map_err(failed)?;
    out.flush().map_err(failed)?;
    drop(out);
    temp.as_file().sync_all().map_err(failed)?;
    Ok(temp)
}

/// Opens the log for reading; `None` if there is none.
pub(super) fn open(path: &Path) -> Result<Option<(File, FileId, u64)>> {
    let failed = |e| Error::io(format!("opening the vector index {}", path.display()), e);
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(failed(e)),
    };
    let meta = file.metadata().map_err(failed)?;
    Ok(Some((file, FileId::of(&meta), meta.len())))
}

/// Fills `buf` from `file` at `offset`; `false` if the file ends first.
fn read_full(file: &File, offset: u64, buf: &mut [u8]) -> std::io::Result<bool> {
    match file.read_exact_at(buf, offset) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

/// The little-endian u32 at `at` (the caller checked the length).
fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(b)
}

/// The little-endian u64 at `at` (the caller checked the length).
fn u64_at(bytes: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(b)
}

/// A fast 64-bit hash of `bytes` for detecting torn and damaged data (not for security).
///
/// Four independent lanes over 32-byte blocks keep it at several GB/s, so checking a graph
/// dump of 100k vectors costs tens of milliseconds.
pub(super) fn hash64(bytes: &[u8], seed: u64) -> u64 {
    const P1: u64 = 0x9E37_79B1_85EB_CA87;
    const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
    const P3: u64 = 0x1656_67B1_9E37_79F9;
    let mut lanes = [seed ^ P1, seed ^ P2, seed ^ P3, !seed];
    let (blocks, rest) = bytes.as_chunks::<32>();
    for block in blocks {
        let (words, _) = block.as_chunks::<8>();
        for (lane, word) in lanes.iter_mut().zip(words) {
            let w = u64::from_le_bytes(*word);
            *lane = (*lane ^ w.wrapping_mul(P2)).rotate_left(31).wrapping_mul(P1);
        }
    }
    let mut h = lanes[0].rotate_left(1)
        ^ lanes[1].rotate_left(7)
        ^ lanes[2].rotate_left(12)
        ^ lanes[3].rotate_left(18)
        ^ (bytes.len() as u64).wrapping_mul(P3);
    for &b in rest {
        h = (h ^ u64::from(b)).wrapping_mul(P1).rotate_left(23);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ (h >> 32)
}

/// Hashes the file at `path` in 1 MiB pieces chained through [`hash64`]; returns its length
/// and hash.
pub(super) fn hash_file(path: &Path) -> std::io::Result<(u64, u64)> {
    let mut file = File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let (mut len, mut hash) = (0u64, 0u64);
    loop {
        let mut filled = 0;
        while filled < buf.len() {
            match file.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if filled == 0 {
            return Ok((len, hash));
        }
        len += filled as u64;
        hash = hash64(&buf[..filled], hash);
    }
}
