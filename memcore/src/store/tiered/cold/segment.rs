//! Archive segments: append-only files of zstd-compressed JSON lines, one per quarter.
//!
//! A segment is a sequence of frames, one per append: a zstd *skippable* frame carrying
//! memcore's header (the length and CRC-32 of the data that follows, how many records it
//! holds, and a CRC-32 of those fields), then one zstd frame of JSON lines. The file is a
//! valid zstd stream: `zstd -dc 2026-q4.1.jsonl.zst` prints its records. The header lets a
//! reader skip a damaged frame and read on (a damaged header is skipped by looking for the
//! next whole one), and lets a writer find the end of the last whole frame (a crashed append
//! leaves a torn tail, which the next writer cuts off: its append never returned).
//!
//! A segment is never changed in place: purging rewrites it as the next generation
//! (`<quarter>.<generation>.jsonl.zst`), and the older generation is removed once the index
//! points at the new one.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::record::ArchivedRecord;
use crate::store::fsutil::{sync_dir, sync_paths, write_temp};
use crate::{Error, Result, Timestamp};

/// The magic number of the skippable frame carrying a header (zstd reserves
/// `0x184D2A50..=0x184D2A5F` for them).
const SKIPPABLE_MAGIC: u32 = 0x184D_2A5E;

/// memcore's tag inside the skippable frame.
const HEADER_TAG: &[u8; 4] = b"MCA1";

/// The header's size on disk: magic, frame size, then the fields (tag, data length, data
/// CRC-32, record count) and their own CRC-32.
pub(super) const HEADER_LEN: u64 = 28;

/// The skippable frame's size field: what follows it in the header.
const HEADER_FIELDS_LEN: u32 = 20;

/// zstd's compression level for segments. On frames of 1,024 conversation turns of the
/// bench corpus: level 3 keeps 24.3% of the bytes, 9 keeps 22.1%, 19 keeps 21.0%.
const LEVEL: i32 = 9;

/// The file name suffix of segments.
const SUFFIX: &str = ".jsonl.zst";

/// Which segment a record belongs to: the quarter of its time, `2026-q4`.
pub(super) fn quarter_of(at: Timestamp) -> String {
    use chrono::Datelike;
    format!("{:04}-q{}", at.year(), at.month0() / 3 + 1)
}

/// A segment file's name: `<quarter>.<generation>.jsonl.zst`.
pub(super) fn file_name(quarter: &str, generation: u32) -> String {
    format!("{quarter}.{generation}{SUFFIX}")
}

/// The quarter and generation a segment file name gives, if it is one ([`file_name`]
/// makes exactly such names; [`quarter_of`] quarters of the years 0 to 9999).
pub(super) fn parse_name(name: &str) -> Option<(String, u32)> {
    let stem = name.strip_suffix(SUFFIX)?;
    let (quarter, generation) = stem.rsplit_once('.')?;
    let valid_quarter = quarter.len() == 7
        && quarter.as_bytes()[4..6] == *b"-q"
        && quarter[..4].bytes().all(|b| b.is_ascii_digit())
        && (b'1'..=b'4').contains(&quarter.as_bytes()[6]);
    let parsed = (quarter.to_owned(), generation.parse().ok()?);
    (valid_quarter && file_name(&parsed.0, parsed.1) == name).then_some(parsed)
}

/// Where a frame starts in its segment, and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FrameInfo {
    /// The offset of its header.
    pub(super) offset: u64,
    /// The length of its compressed data (after the header).
    pub(super) data_len: u32,
    /// Its CRC-32.
    pub(super) crc: u32,
    /// How many records it holds.
    pub(super) records: u32,
}

impl FrameInfo {
    /// The offset just past the frame.
    pub(super) fn end(&self) -> u64 {
        self.offset + HEADER_LEN + u64::from(self.data_len)
    }
}

/// What walking a segment's headers found.
#[derive(Debug, Default)]
pub(super) struct Layout {
    /// The frames whose headers are whole, in order.
    pub(super) frames: Vec<FrameInfo>,
    /// Byte ranges between whole frames that hold no whole header: damage.
    pub(super) gaps: Vec<(u64, u64)>,
    /// Where the last whole frame ends: the length the file should have.
    pub(super) valid_len: u64,
    /// Bytes after it that are no whole frame (a torn append).
    pub(super) torn: u64,
}

/// The encoded frame (header and data) of `records`.
pub(super) fn encode(records: &[ArchivedRecord]) -> Result<Vec<u8>> {
    let mut lines = Vec::new();
    for record in records {
        serde_json::to_writer(&mut lines, record).map_err(|e| {
            Error::validation(format!("archiving record {}: {e}", record.id), "report a bug")
        })?;
        lines.push(b'\n');
    }
    let data = zstd::bulk::compress(&lines, LEVEL)
        .map_err(|e| Error::io("compressing archive records", e))?;
    let too_big = || {
        Error::validation(
            "an archive batch compresses to more than 4 GiB",
            "archive in smaller batches",
        )
    };
    let data_len = u32::try_from(data.len()).map_err(|_| too_big())?;
    let count = u32::try_from(records.len()).map_err(|_| too_big())?;
    let mut frame = Vec::with_capacity(data.len() + HEADER_LEN as usize);
    frame.extend_from_slice(&SKIPPABLE_MAGIC.to_le_bytes());
    frame.extend_from_slice(&HEADER_FIELDS_LEN.to_le_bytes());
    frame.extend_from_slice(HEADER_TAG);
    frame.extend_from_slice(&data_len.to_le_bytes());
    frame.extend_from_slice(&crc32fast::hash(&data).to_le_bytes());
    frame.extend_from_slice(&count.to_le_bytes());
    let fields_crc = crc32fast::hash(&frame[8..24]);
    frame.extend_from_slice(&fields_crc.to_le_bytes());
    frame.extend_from_slice(&data);
    Ok(frame)
}

fn io<'a>(path: &'a Path, what: &'a str) -> impl Fn(std::io::Error) -> Error + 'a {
    move |e| Error::io(format!("{what} {}", path.display()), e)
}

/// Walks the headers of the segment at `path`: the whole frames, the damaged ranges between
/// them, and where the last one ends. Reads only the headers, unless one is damaged: then
/// the rest of the file is searched for the next whole header.
pub(super) fn layout(path: &Path) -> Result<Layout> {
    let mut file = File::open(path).map_err(io(path, "opening archive segment"))?;
    let len = file.metadata().map_err(io(path, "reading archive segment"))?.len();
    let mut layout = Layout::default();
    let mut offset = 0;
    let mut header = [0u8; HEADER_LEN as usize];
    while offset + HEADER_LEN <= len {
        file.seek(SeekFrom::Start(offset)).map_err(io(path, "reading archive segment"))?;
        file.read_exact(&mut header).map_err(io(path, "reading archive segment"))?;
        match parse_header(&header, offset).filter(|frame| frame.end() <= len) {
            Some(frame) => {
                layout.frames.push(frame);
                offset = frame.end();
            }
            None => match next_header(&mut file, offset + 1, len, path)? {
                Some(next) => {
                    layout.gaps.push((offset, next));
                    offset = next;
                }
                None => break,
            },
        }
    }
    layout.valid_len = layout.frames.last().map_or(0, FrameInfo::end);
    layout.torn = len - layout.valid_len;
    // A gap after the last whole frame is the torn tail, not damage between frames.
    layout.gaps.retain(|&(start, _)| start < layout.valid_len);
    Ok(layout)
}

/// The offset of the first whole header at or after `from` whose frame fits in the file.
fn next_header(file: &mut File, from: u64, len: u64, path: &Path) -> Result<Option<u64>> {
    let mut rest = Vec::new();
    file.seek(SeekFrom::Start(from)).map_err(io(path, "reading archive segment"))?;
    file.read_to_end(&mut rest).map_err(io(path, "reading archive segment"))?;
    let magic = SKIPPABLE_MAGIC.to_le_bytes();
    let found = rest.windows(HEADER_LEN as usize).enumerate().find_map(|(i, window)| {
        let offset = from + i as u64;
        let header: &[u8; HEADER_LEN as usize] = window.try_into().ok()?;
        (window[..4] == magic)
            .then(|| parse_header(header, offset))
            .flatten()
            .filter(|frame| frame.end() <= len)
            .map(|_| offset)
    });
    Ok(found)
}

fn parse_header(header: &[u8; HEADER_LEN as usize], offset: u64) -> Option<FrameInfo> {
    let word =
        |i: usize| u32::from_le_bytes([header[i], header[i + 1], header[i + 2], header[i + 3]]);
    let valid = word(0) == SKIPPABLE_MAGIC
        && word(4) == HEADER_FIELDS_LEN
        && &header[8..12] == HEADER_TAG.as_slice()
        && crc32fast::hash(&header[8..24]) == word(24);
    valid.then(|| FrameInfo { offset, data_len: word(12), crc: word(16), records: word(20) })
}

/// Appends `frame` (from [`encode`]) to the segment at `path` after its last whole frame
/// (a torn tail is cut off first), durably; returns where it starts. Creates the segment
/// when missing. `covered` is how far the index says the segment goes: a segment whose whole
/// frames end before that was damaged, and is an [`Error::Corrupted`] rather than cut
/// (`repair` sets the damage aside). The caller holds the archive's lock.
pub(super) fn append(path: &Path, frame: &[u8], covered: u64) -> Result<u64> {
    let created = !path.exists();
    let offset = if created { 0 } else { layout(path)?.valid_len };
    if offset < covered {
        return Err(damaged(path, offset, "frames the index holds end before it says"));
    }
    let mut file = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(false)
        .open(path)
        .map_err(io(path, "opening archive segment"))?;
    file.set_len(offset).map_err(io(path, "writing archive segment"))?;
    file.seek(SeekFrom::Start(offset)).map_err(io(path, "writing archive segment"))?;
    file.write_all(frame).map_err(io(path, "writing archive segment"))?;
    file.sync_all().map_err(io(path, "syncing archive segment"))?;
    if created && let Some(dir) = path.parent() {
        sync_dir(dir)?;
    }
    Ok(offset)
}

/// The records of the frame at `offset` of the segment at `path`. A frame that fails its
/// checksum or does not decode is [`Error::Corrupted`].
pub(super) fn read_frame(path: &Path, offset: u64) -> Result<Vec<ArchivedRecord>> {
    let (frame, data) = read_data(path, offset)?;
    decode(path, &frame, &data)
}

/// The records `ids` of the frame at `offset` of the segment at `path`, by id (those it does
/// not hold are missing): only their lines are parsed.
pub(super) fn read_records(
    path: &Path,
    offset: u64,
    ids: &[&str],
) -> Result<HashMap<String, ArchivedRecord>> {
    let (frame, data) = read_data(path, offset)?;
    let lines = decompress(path, &frame, &data)?;
    // A record's line starts with its id: `{"id":"<id>",` (the first field serialised).
    let prefixes: Vec<(String, &str)> = ids
        .iter()
        .map(|id| Ok((format!("{{\"id\":{},", serde_json::to_string(id)?), *id)))
        .collect::<std::result::Result<_, serde_json::Error>>()
        .map_err(|e| damaged(path, offset, &e.to_string()))?;
    let mut found = HashMap::with_capacity(ids.len());
    for line in lines.split(|&b| b == b'\n') {
        if let Some((_, id)) =
            prefixes.iter().find(|(prefix, _)| line.starts_with(prefix.as_bytes()))
        {
            let record: ArchivedRecord = serde_json::from_slice(line)
                .map_err(|e| damaged(path, offset, &format!("a record does not parse: {e}")))?;
            found.insert((*id).to_owned(), record);
        }
    }
    Ok(found)
}

/// The header and compressed data of the frame at `offset`.
fn read_data(path: &Path, offset: u64) -> Result<(FrameInfo, Vec<u8>)> {
    let mut file = File::open(path).map_err(io(path, "opening archive segment"))?;
    let mut header = [0u8; HEADER_LEN as usize];
    file.seek(SeekFrom::Start(offset)).map_err(io(path, "reading archive segment"))?;
    file.read_exact(&mut header).map_err(io(path, "reading archive segment"))?;
    let frame = parse_header(&header, offset)
        .ok_or_else(|| damaged(path, offset, "no frame header at this offset"))?;
    let len = file.metadata().map_err(io(path, "reading archive segment"))?.len();
    if frame.end() > len {
        return Err(damaged(path, offset, "the frame runs past the end of the file"));
    }
    let mut data = vec![0u8; frame.data_len as usize];
    file.read_exact(&mut data).map_err(io(path, "reading archive segment"))?;
    Ok((frame, data))
}

/// The JSON lines of a frame's data, its checksum checked.
fn decompress(path: &Path, frame: &FrameInfo, data: &[u8]) -> Result<Vec<u8>> {
    if crc32fast::hash(data) != frame.crc {
        return Err(damaged(path, frame.offset, "its checksum does not match"));
    }
    zstd::stream::decode_all(data)
        .map_err(|e| damaged(path, frame.offset, &format!("it does not decompress: {e}")))
}

/// A segment read whole: its layout, and the records of each whole frame (or why they
/// could not be read).
pub(super) struct Contents {
    /// Where its frames and damaged ranges are.
    pub(super) layout: Layout,
    /// Each whole frame's records.
    pub(super) frames: Vec<(FrameInfo, Result<Vec<ArchivedRecord>>)>,
    /// The file's bytes.
    pub(super) bytes: Vec<u8>,
}

impl Contents {
    /// Whether a frame could not be read or a range holds no frame.
    pub(super) fn is_damaged(&self) -> bool {
        !self.layout.gaps.is_empty() || self.frames.iter().any(|(_, frame)| frame.is_err())
    }

    /// The bytes from `start` to `end`.
    pub(super) fn slice(&self, start: u64, end: u64) -> &[u8] {
        let at = |offset: u64| usize::try_from(offset).unwrap_or(usize::MAX).min(self.bytes.len());
        &self.bytes[at(start)..at(end).max(at(start))]
    }
}

/// The segment at `path`, read whole.
pub(super) fn read_all(path: &Path) -> Result<Contents> {
    let layout = layout(path)?;
    let bytes = std::fs::read(path).map_err(io(path, "reading archive segment"))?;
    let mut contents = Contents { layout, frames: Vec::new(), bytes };
    contents.frames = contents
        .layout
        .frames
        .iter()
        .map(|frame| {
            let data = contents.slice(frame.offset + HEADER_LEN, frame.end());
            (*frame, decode(path, frame, data))
        })
        .collect();
    Ok(contents)
}

fn decode(path: &Path, frame: &FrameInfo, data: &[u8]) -> Result<Vec<ArchivedRecord>> {
    let lines = decompress(path, frame, data)?;
    let records = lines
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(serde_json::from_slice)
        .collect::<std::result::Result<Vec<ArchivedRecord>, _>>()
        .map_err(|e| damaged(path, frame.offset, &format!("a record does not parse: {e}")))?;
    if records.len() != frame.records as usize {
        return Err(damaged(path, frame.offset, "it holds another number of records"));
    }
    Ok(records)
}

fn damaged(path: &Path, offset: u64, why: &str) -> Error {
    Error::corrupted(
        PathBuf::from(format!("{}@{offset}", path.display())),
        None,
        format!("archive frame damaged: {why}"),
        "run `memcore repair`: it sets the damaged frame aside and keeps the rest of the \
         segment",
    )
}

/// Writes `frames` (each from [`encode`]) as the segment at `path`, durably, replacing
/// nothing: the file must not exist. Returns each frame's offset.
pub(super) fn write_new(path: &Path, frames: &[Vec<u8>]) -> Result<Vec<u64>> {
    let mut bytes = Vec::with_capacity(frames.iter().map(Vec::len).sum());
    let mut offsets = Vec::with_capacity(frames.len());
    for frame in frames {
        offsets.push(bytes.len() as u64);
        bytes.extend_from_slice(frame);
    }
    let temp = write_temp(path, &bytes)?;
    sync_paths(&[&temp])?;
    temp.persist_noclobber(path)
        .map_err(|e| Error::io(format!("creating archive segment {}", path.display()), e.error))?;
    if let Some(dir) = path.parent() {
        sync_dir(dir)?;
    }
    Ok(offsets)
}
