//! The session registry on disk (seed 004 section 3, one store being one project):
//!
//! ```text
//! <store private dir>/sessions/
//!   manifest.json                     sessions and compositions
//!   lock                              writers' lock (several processes may share a store)
//!   originals/<session>.jsonl         immutable copies of the transcripts (SHA-256 checked)
//!   summaries/<session>/versions.json the session's versions
//!   summaries/<session>/v001_uniform-moderate_3k.{md,jsonl}
//!   composed/<name>/composed.{md,jsonl}, composition.json
//! ```
//!
//! Every file is written atomically (temporary file, fsync, rename); records are written
//! last, so a crash leaves at worst an unreferenced file, never a record naming a missing
//! one.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub(crate) use crate::hex::sha256_hex;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::records::{Manifest, SessionRecord, VersionsFile};
use crate::store::fsutil::{create_private_dir_all, write_atomic};
use crate::store::lock::{LockGuard, StoreLock};
use crate::{Error, Result, Timestamp};

/// The registry's directory in the store's private directory.
pub(crate) const SESSIONS_DIR: &str = "sessions";

/// A store's session registry.
#[derive(Debug)]
pub(crate) struct Registry {
    dir: PathBuf,
    lock: StoreLock,
}

impl Registry {
    /// The registry in `private_dir` (created on the first write).
    pub(crate) fn new(private_dir: &Path, lock_timeout: Duration) -> Self {
        let dir = private_dir.join(SESSIONS_DIR);
        let lock = StoreLock::new(&dir.join("lock"), lock_timeout);
        Self { dir, lock }
    }

    /// The registry's directory.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Takes the writers' lock (creating the directory).
    pub(crate) fn lock(&self) -> Result<LockGuard<'_>> {
        create_private_dir_all(&self.dir)?;
        self.lock.acquire()
    }

    /// The manifest (an empty one made at `now` before the first write). Every name in it
    /// that becomes a path is checked, so a damaged or hostile manifest cannot reach outside
    /// the registry.
    pub(crate) fn manifest(&self, now: Timestamp) -> Result<Manifest> {
        let path = self.dir.join("manifest.json");
        let manifest: Manifest = read_json(&path)?.unwrap_or_else(|| Manifest::new(now));
        for (id, session) in &manifest.sessions {
            let original = session.original_file.strip_prefix("originals/").unwrap_or("");
            if id != &session.session_id
                || check_name("session id", id).is_err()
                || check_name("original", original).is_err()
            {
                return Err(damaged(&path, format!("session {id:?} names files it may not")));
            }
        }
        let bad =
            manifest.compositions.keys().find(|name| check_name("composition", name).is_err());
        if let Some(name) = bad {
            return Err(damaged(&path, format!("composition {name:?} is not a valid name")));
        }
        Ok(manifest)
    }

    /// Writes the manifest, stamped `now`.
    pub(crate) fn save_manifest(&self, manifest: &mut Manifest, now: Timestamp) -> Result<()> {
        manifest.last_modified = now;
        write_json(&self.dir.join("manifest.json"), manifest)
    }

    /// A session's versions file, if it has one; its file names are checked as the
    /// manifest's are.
    pub(crate) fn versions(&self, session_id: &str) -> Result<Option<VersionsFile>> {
        let path = self.summaries(session_id).join("versions.json");
        let versions: Option<VersionsFile> = read_json(&path)?;
        let all = versions.iter().flat_map(|v| &v.versions);
        if let Some(bad) = all.clone().find(|v| check_name("version file", &v.file).is_err()) {
            return Err(damaged(
                &path,
                format!("version {} names the file {:?}", bad.version_id, bad.file),
            ));
        }
        Ok(versions)
    }

    /// Writes a session's versions file.
    pub(crate) fn save_versions(&self, versions: &VersionsFile) -> Result<()> {
        let dir = self.summaries(&versions.session_id);
        create_private_dir_all(&dir)?;
        write_json(&dir.join("versions.json"), versions)
    }

    /// The directory of a session's versions.
    pub(crate) fn summaries(&self, session_id: &str) -> PathBuf {
        self.dir.join("summaries").join(session_id)
    }

    /// The original's path relative to the registry: named by the session and the start of
    /// its SHA-256, so a replaced transcript never overwrites the one the manifest names.
    pub(crate) fn original_name(session_id: &str, sha256: &str) -> String {
        format!("originals/{session_id}-{}.jsonl", &sha256[..sha256.len().min(12)])
    }

    /// Writes `bytes` at `relative` (inside the registry), creating its directory.
    pub(crate) fn write(&self, relative: &str, bytes: &[u8]) -> Result<()> {
        let path = self.dir.join(relative);
        if let Some(parent) = path.parent() {
            create_private_dir_all(parent)?;
        }
        write_atomic(&path, bytes)
    }

    /// The transcript `session` was registered with, checked against its SHA-256.
    pub(crate) fn original(&self, session: &SessionRecord) -> Result<String> {
        self.read(&session.original_file, Some(&session.original_sha256))
    }

    /// Reads the file at `relative`, checking its SHA-256 when one is given.
    pub(crate) fn read(&self, relative: &str, sha256: Option<&str>) -> Result<String> {
        let path = self.dir.join(relative);
        let bytes = fs::read(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::corrupted(
                &path,
                None,
                "a file the registry names is missing",
                "prune the version it belongs to, or register the session again with --replace",
            ),
            _ => Error::io(format!("reading {}", path.display()), e),
        })?;
        if let Some(expected) = sha256
            && sha256_hex(&bytes) != expected
        {
            return Err(Error::corrupted(
                &path,
                None,
                "the session's original changed after it was registered",
                "originals are immutable: register the transcript again with --replace",
            ));
        }
        String::from_utf8(bytes).map_err(|_| {
            Error::corrupted(
                &path,
                None,
                "not UTF-8",
                "register the transcript again with --replace",
            )
        })
    }

    /// Removes the directory at `relative` with everything in it; a missing one is fine.
    pub(crate) fn remove_dir_all(&self, relative: &Path) -> Result<()> {
        self.remove_with(relative, |path| fs::remove_dir_all(path))
    }

    /// Removes the file at `relative`; a missing file is fine.
    pub(crate) fn remove(&self, relative: &Path) -> Result<()> {
        self.remove_with(relative, |path| fs::remove_file(path))
    }

    /// Runs `remove` on `relative`, taking a missing entry as removed.
    fn remove_with(
        &self,
        relative: &Path,
        remove: impl FnOnce(&Path) -> std::io::Result<()>,
    ) -> Result<()> {
        let path = self.dir.join(relative);
        match remove(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(Error::io(format!("removing {}", path.display()), e))
            }
            _ => Ok(()),
        }
    }
}

/// The error for a session that is not registered.
pub(crate) fn unknown_session(session_id: &str) -> Error {
    Error::not_found(
        format!("session {session_id:?}"),
        "list sessions with `memcore session list`, or add it",
    )
}

/// The error for a registered session whose `versions.json` is gone.
pub(crate) fn missing_versions(registry: &Registry, session_id: &str) -> Error {
    Error::corrupted(
        registry.summaries(session_id).join("versions.json"),
        None,
        "the session is registered but its versions file is missing",
        "register the session again with --replace (its versions are lost)",
    )
}

/// A registry file that is damaged: `why`.
fn damaged(path: &Path, why: String) -> Error {
    Error::corrupted(
        path,
        None,
        why,
        "restore the file from a backup, or remove the registry entry",
    )
}

/// A JSON file read into `T`; `None` when it does not exist.
fn read_json<T: DeserializeOwned>(path: &Path) -> Result<Option<T>> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
    };
    serde_json::from_slice(&bytes).map(Some).map_err(|e| {
        Error::corrupted(
            path,
            Some(e.line()),
            e.to_string(),
            "restore the file from a backup or remove it",
        )
    })
}

/// Writes `value` as pretty JSON at `path`, atomically.
fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| {
        Error::validation(format!("a record could not be written: {e}"), "report this")
    })?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// Validates a session id or composition name: it becomes a file name.
pub(crate) fn check_name(what: &str, name: &str) -> Result<()> {
    let valid = !name.is_empty()
        && name.len() <= 128
        && name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && !name.ends_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'))
        && !name.contains("..");
    if valid {
        Ok(())
    } else {
        Err(Error::validation(
            format!("invalid {what} {name:?}"),
            format!(
                "a {what} is 1-128 lower-case ASCII letters, digits, '.', '_' or '-', starting with \
                 a letter or digit (names differing only by case would clash on some file systems)"
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_would_escape_are_refused() {
        for bad in ["", "../x", ".hidden", "a/b", "a..b", "é", "ABC", "x."] {
            assert!(check_name("session id", bad).is_err(), "{bad:?}");
        }
        check_name("session id", "3f2a-9c_1.x").expect("valid");
    }
}
