//! Append-only JSON-lines files, durable line by line: the timeline, the hot tier's turn
//! journals and the purge audit log. An append cut short by a crash leaves a torn last line,
//! which readers skip and the next append cuts. Callers serialise their own appends (a lock
//! file, or the owning session's lock).

use std::fs::OpenOptions;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::{Error, Result};

/// Appends `value` to the file at `path` as one JSON line, and syncs it (and, for a new
/// file, its directory).
pub(crate) fn append<T: Serialize>(path: &Path, value: &T, what: &str) -> Result<()> {
    let mut line = serde_json::to_vec(value).map_err(|e| {
        Error::validation(format!("a {what} could not be written: {e}"), "report this")
    })?;
    line.push(b'\n');
    let failed = |e| Error::io(format!("appending to {}", path.display()), e);
    let mut file = OpenOptions::new()
        .create(true)
        .read(true)
        .write(true)
        .truncate(false)
        .open(path)
        .map_err(failed)?;
    let whole = whole_lines_len(&mut file).map_err(failed)?;
    file.set_len(whole).map_err(failed)?;
    file.seek(SeekFrom::Start(whole)).map_err(failed)?;
    file.write_all(&line).map_err(failed)?;
    file.sync_all().map_err(failed)?;
    if whole == 0
        && let Some(dir) = path.parent()
    {
        crate::store::fsutil::sync_dir(dir)?;
    }
    Ok(())
}

/// The lines of the file at `path` that parse, in order, and how many do not (a torn last
/// line, or a line edited by hand). A missing file has no lines.
pub(crate) fn read<T: DeserializeOwned>(path: &Path) -> Result<(Vec<T>, usize)> {
    let text = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
    };
    let mut values = Vec::new();
    let mut unreadable = 0;
    for line in text.split(|&b| b == b'\n').filter(|line| !line.is_empty()) {
        match serde_json::from_slice::<T>(line) {
            Ok(value) => values.push(value),
            Err(_) => unreadable += 1,
        }
    }
    Ok((values, unreadable))
}

/// The length of the file's whole lines: up to and including its last newline.
fn whole_lines_len(file: &mut std::fs::File) -> std::io::Result<u64> {
    let len = file.metadata()?.len();
    let mut end = len;
    let mut buffer = [0u8; 4096];
    while end > 0 {
        let start = end.saturating_sub(buffer.len() as u64);
        let chunk = &mut buffer[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(chunk)?;
        if let Some(newline) = chunk.iter().rposition(|&b| b == b'\n') {
            return Ok(start + newline as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}
