//! Durable file-system primitives: private directories, atomic writes, atomic moves.

use std::fs::{self, DirBuilder, File};
use std::io::Write;
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;

use crate::{Error, Result};

/// Prefix of temporary files; names starting with `.` are never taken for memories.
pub(crate) const TEMP_PREFIX: &str = ".tmp-";

/// Creates `dir` and its missing parents with mode 0700.
pub(crate) fn create_private_dir_all(dir: &Path) -> Result<()> {
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| Error::io(format!("creating directory {}", dir.display()), e))
}

/// Flushes a directory's entries (a create, rename or unlink inside it) to disk.
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    sync_paths(&[dir])
}

/// Writes `bytes` to `path` atomically and durably: a private temp file in the same directory,
/// fsync, rename over `path`, fsync the directory. Readers see the old file or the new one,
/// never a mix; a crash leaves at most a stray temp file.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let temp = write_temp(path, bytes)?;
    let failed = |e| Error::io(format!("writing {}", path.display()), e);
    File::open(&temp).and_then(|f| f.sync_all()).map_err(failed)?;
    temp.persist(path).map_err(|e| failed(e.error))?;
    sync_dir(path.parent().unwrap_or(Path::new(".")))
}

/// Makes every regular file directly in `dir` readable and writable by its owner only
/// (0600), for files a library created with the default mode (tantivy's segments).
pub(crate) fn restrict_files(dir: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let failed = |e| Error::io(format!("restricting the files of {}", dir.display()), e);
    for entry in fs::read_dir(dir).map_err(failed)? {
        let entry = entry.map_err(failed)?;
        // A file removed meanwhile (a merged segment) needs nothing.
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_file() && meta.permissions().mode() & 0o077 != 0 {
            match fs::set_permissions(entry.path(), fs::Permissions::from_mode(0o600)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(failed(e)),
                _ => {}
            }
        }
    }
    Ok(())
}

/// Writes `bytes` to a private temp file beside `path`, without syncing: the first half of a
/// batched atomic write. Sync the file system, then [`tempfile::TempPath::persist`] it.
pub(crate) fn write_temp(path: &Path, bytes: &[u8]) -> Result<tempfile::TempPath> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let failed = |e| Error::io(format!("writing {}", path.display()), e);
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX).permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600));
    let mut temp = match builder.tempfile_in(dir) {
        Ok(temp) => temp,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            create_private_dir_all(dir)?;
            builder.tempfile_in(dir).map_err(failed)?
        }
        Err(e) => return Err(failed(e)),
    };
    temp.write_all(bytes).map_err(failed)?;
    Ok(temp.into_temp_path())
}

/// Makes the files or directories at `paths` durable, one `fsync` each: for a few files,
/// cheaper than [`sync_file_system`], whose cost grows with whatever else waits to be written
/// on that file system (a large copy just made beside the store made one put wait 640 ms).
pub(crate) fn sync_paths(paths: &[&Path]) -> Result<()> {
    for path in paths {
        File::open(path)
            .and_then(|f| f.sync_all())
            .map_err(|e| Error::io(format!("syncing {}", path.display()), e))?;
    }
    Ok(())
}

/// Flushes everything written to the file system holding `dir` (one `syncfs`): the
/// durability point of a batch of writes.
pub(crate) fn sync_file_system(dir: &Path) -> Result<()> {
    let failed = |e| Error::io(format!("syncing the file system of {}", dir.display()), e);
    let handle = File::open(dir).map_err(failed)?;
    rustix::fs::syncfs(&handle).map_err(|e| failed(e.into()))
}

/// Moves `from` to `to` (same file system) durably, creating `to`'s directory.
pub(crate) fn move_durably(from: &Path, to: &Path) -> Result<()> {
    let target_dir = to.parent().unwrap_or(Path::new("."));
    create_private_dir_all(target_dir)?;
    fs::rename(from, to)
        .map_err(|e| Error::io(format!("moving {} to {}", from.display(), to.display()), e))?;
    sync_dir(target_dir)?;
    match from.parent() {
        Some(source_dir) if source_dir != target_dir => sync_dir(source_dir),
        _ => Ok(()),
    }
}

/// Decodes a file's bytes as UTF-8, or says on which line the first invalid byte is.
pub(crate) fn decode_utf8(path: &Path, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..valid].iter().filter(|&&b| b == b'\n').count() + 1;
        Error::corrupted(
            path,
            Some(line),
            format!("the file is not valid UTF-8 (byte {valid})"),
            "re-save the file as UTF-8, or restore the memory from its version history",
        )
    })
}

/// Removes the file at `path`; one already gone is fine. `what` names it in the error.
pub(crate) fn remove_file_if_present(path: &Path, what: &str) -> Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(format!("removing {what} {}", path.display()), e)),
    }
}

/// Removes the directory `dir` and everything in it; one already gone is fine. `what` names
/// it in the error.
pub(crate) fn remove_dir_if_present(dir: &Path, what: &str) -> Result<()> {
    match fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(format!("removing {what} {}", dir.display()), e)),
    }
}
