//! The writer lock of a store: a mutex for the threads of this process plus an advisory file
//! lock (`flock`) for other processes, so several agents, hooks and CLIs can share one store.

use std::fs::{File, OpenOptions, TryLockError};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use parking_lot::{Mutex, MutexGuard};

use crate::{Error, Result};

/// How long to sleep between attempts while another process holds the lock, at most.
const MAX_BACKOFF: Duration = Duration::from_millis(2);

/// The lock guarding writes to one store.
#[derive(Debug)]
pub(crate) struct StoreLock {
    path: PathBuf,
    /// The lock file, opened on first use and kept open; the mutex orders this process's
    /// threads before they compete with other processes through `flock`.
    file: Mutex<Option<File>>,
    timeout: Duration,
}

/// Held while writing; dropping it releases both locks.
pub(crate) struct LockGuard<'a> {
    file: MutexGuard<'a, Option<File>>,
}

impl Drop for LockGuard<'_> {
    fn drop(&mut self) {
        if let Some(file) = self.file.as_ref() {
            // Unlocking an flock we hold cannot fail in a way we could act on; closing the
            // file would release it too.
            let _ = file.unlock();
        }
    }
}

impl StoreLock {
    /// A lock on the file at `path` (created on first use, mode 0600).
    pub(crate) fn new(path: &Path, timeout: Duration) -> Self {
        Self { path: path.to_path_buf(), file: Mutex::new(None), timeout }
    }

    /// Waits for the lock, up to the timeout; then an [`Error::Conflict`] naming the lock file.
    pub(crate) fn acquire(&self) -> Result<LockGuard<'_>> {
        let deadline = Instant::now() + self.timeout;
        let mut slot = self.file.try_lock_until(deadline).ok_or_else(|| self.timed_out())?;
        self.open_file(&mut slot)?;
        let mut backoff = Duration::from_micros(200);
        loop {
            let attempt = slot.as_ref().map(File::try_lock);
            match attempt.unwrap_or(Ok(())) {
                Ok(()) => return Ok(LockGuard { file: slot }),
                Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(backoff);
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
                Err(TryLockError::WouldBlock) => return Err(self.timed_out()),
                Err(TryLockError::Error(e)) => {
                    return Err(Error::io(format!("locking {}", self.path.display()), e));
                }
            }
        }
    }

    /// The lock if no one holds it now, else `None` (without waiting).
    pub(crate) fn try_acquire(&self) -> Result<Option<LockGuard<'_>>> {
        let Some(mut slot) = self.file.try_lock() else { return Ok(None) };
        self.open_file(&mut slot)?;
        match slot.as_ref().map(File::try_lock).unwrap_or(Ok(())) {
            Ok(()) => Ok(Some(LockGuard { file: slot })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => {
                Err(Error::io(format!("locking {}", self.path.display()), e))
            }
        }
    }

    /// Opens the lock file into `slot` the first time.
    fn open_file(&self, slot: &mut Option<File>) -> Result<()> {
        if slot.is_none() {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .mode(0o600)
                .open(&self.path)
                .map_err(|e| Error::io(format!("opening lock file {}", self.path.display()), e))?;
            *slot = Some(file);
        }
        Ok(())
    }

    fn timed_out(&self) -> Error {
        Error::conflict(
            format!(
                "another writer held the store lock {} for more than {} ms",
                self.path.display(),
                self.timeout.as_millis()
            ),
            "wait and retry; if no memcore process is running, a stuck process holds it \
             (raise lock_timeout_ms in the config for long operations)",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_holder_times_out_then_succeeds_after_release() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let first = StoreLock::new(&path, Duration::from_millis(50));
        let other_process = StoreLock::new(&path, Duration::from_millis(50));
        let guard = first.acquire().unwrap();
        let err = other_process.acquire().err().unwrap();
        assert_eq!(err.category(), crate::Category::Conflict);
        assert!(other_process.try_acquire().unwrap().is_none(), "held by the first");
        drop(guard);
        assert!(other_process.try_acquire().unwrap().is_some());
        assert!(other_process.acquire().is_ok());
    }
}
