//! A tantivy directory that leaves flushing to the operating system.
//!
//! tantivy fsyncs every segment file, `meta.json` and the directory on each commit: about 16
//! syncs, 70-140 ms per commit on the machines we measured, which would dominate every
//! `put`. The text index is derived data: the store is written durably first and the index
//! journal records pending work, so a process crash loses nothing (the page cache survives
//! it), and after a power failure a damaged index is rebuilt on open and a stale one is found
//! by `verify` and mended by `repair`. Files are still written completely and `meta.json`
//! is still replaced atomically (temp file + rename), so readers never see a torn commit.

use std::fs::OpenOptions;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    AntiCallToken, Directory, DirectoryLock, FileHandle, FileSlice, Lock, MmapDirectory,
    TerminatingWrite, WatchCallback, WatchHandle, WritePtr,
};

/// [`MmapDirectory`] without fsync; see the module docs for why that is safe here.
#[derive(Debug, Clone)]
pub(crate) struct UnsyncedDirectory {
    inner: MmapDirectory,
    root: PathBuf,
}

impl UnsyncedDirectory {
    /// The directory at `root`, which must exist.
    pub(crate) fn open(root: &Path) -> tantivy::Result<Self> {
        let inner = MmapDirectory::open(root)?;
        Ok(Self { inner, root: root.to_path_buf() })
    }
}

/// A file writer whose `terminate` flushes to the OS but does not sync to disk.
struct UnsyncedFile(std::fs::File);

impl Write for UnsyncedFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl TerminatingWrite for UnsyncedFile {
    fn terminate_ref(&mut self, _: AntiCallToken) -> io::Result<()> {
        self.0.flush()
    }
}

impl Directory for UnsyncedDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.inner.get_file_handle(path)
    }

    fn open_read(&self, path: &Path) -> Result<FileSlice, OpenReadError> {
        self.inner.open_read(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.inner.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.inner.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        let file =
            OpenOptions::new().write(true).create_new(true).open(self.root.join(path)).map_err(
                |e| {
                    if e.kind() == io::ErrorKind::AlreadyExists {
                        OpenWriteError::FileAlreadyExists(path.to_path_buf())
                    } else {
                        OpenWriteError::wrap_io_error(e, path.to_path_buf())
                    }
                },
            )?;
        Ok(BufWriter::new(Box::new(UnsyncedFile(file))))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.inner.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        let mut temp = tempfile::Builder::new().prefix(".tmp-").tempfile_in(&self.root)?;
        temp.write_all(data)?;
        temp.persist(self.root.join(path)).map_err(|e| e.error)?;
        Ok(())
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.inner.acquire_lock(lock)
    }

    fn watch(&self, callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.inner.watch(callback)
    }

    fn sync_directory(&self) -> io::Result<()> {
        Ok(())
    }
}
