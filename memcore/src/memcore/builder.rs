//! [`MemcoreBuilder`]: which store to open (a path, a scope, or a store you made), with which
//! settings, clock and embedder.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::project::ProjectState;
use super::{Clock, Memcore};
use crate::config::{self, Backend, Config, Location, Scope};
use crate::index::EmbedderChoice;
use crate::indexed::{IndexedStore, Maintenance};
use crate::search::query_cache::QueryCache;
use crate::session::Summarizer;
use crate::store::{FileStore, GitNotesStore, MemoryStore, TieredStore};
use crate::{Embedder, Error, ModelFiles, Result, Timestamp};

/// Builds a [`Memcore`]: from an explicit path, from a [`Scope`] resolved from a directory,
/// or over a [`MemoryStore`] of your own.
#[derive(Default)]
#[must_use]
pub struct MemcoreBuilder {
    path: Option<PathBuf>,
    scope: Scope,
    start_dir: Option<PathBuf>,
    config: Option<Config>,
    backend: Option<Backend>,
    store: Option<Box<dyn MemoryStore>>,
    skip_sync: bool,
    clock: Option<Clock>,
    embedder: Option<Arc<dyn Embedder>>,
    installed_model: Option<ModelFiles>,
    summarizer: Option<Arc<dyn Summarizer>>,
    trusted_commands: Option<PathBuf>,
}

impl fmt::Debug for MemcoreBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemcoreBuilder")
            .field("path", &self.path)
            .field("scope", &self.scope)
            .field("backend", &self.backend)
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

impl MemcoreBuilder {
    /// Opens the store at this directory, ignoring scope detection.
    pub fn path(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// Which store to open when no path is given (default [`Scope::Auto`]).
    pub fn scope(mut self, scope: Scope) -> Self {
        self.scope = scope;
        self
    }

    /// Where scope detection starts walking up (default: the working directory).
    pub fn start_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.start_dir = Some(dir.into());
        self
    }

    /// Settings to use instead of those found on disk.
    pub fn config(mut self, config: Config) -> Self {
        self.config = Some(config);
        self
    }

    /// The clock used for `created_at`, `updated_at` and deletion times (default: UTC now).
    pub fn clock(mut self, clock: impl Fn() -> Timestamp + Send + Sync + 'static) -> Self {
        self.clock = Some(Arc::new(clock));
        self
    }

    /// Uses this backend whatever the config says. With [`Backend::GitNotes`] the path (or
    /// scope) is any directory inside the repository; its notes are the store and the
    /// indexes live in `.git/memcore/`.
    ///
    /// ```
    /// use memcore::{Backend, Memcore, NewMemory};
    /// # let dir = tempfile::tempdir()?;
    /// # let repo = git2::Repository::init(dir.path())?;
    /// # let sig = git2::Signature::now("t", "t@example.com")?;
    /// # let tree = repo.find_tree(repo.index()?.write_tree()?)?;
    /// # repo.commit(Some("HEAD"), &sig, &sig, "initial", &tree, &[])?;
    /// let memcore = Memcore::builder().path(dir.path()).backend(Backend::GitNotes).open()?;
    /// let stored = memcore.put(NewMemory::new("Use PostgreSQL.").collection("decisions"))?;
    /// assert!(stored.id.as_str().starts_with("decisions:"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn backend(mut self, backend: Backend) -> Self {
        self.backend = Some(backend);
        self
    }

    /// Opens over `store` instead of a backend the config names: a store of your own, or one
    /// of memcore's wrapped (to inject faults in tests, say). Its indexes live in its
    /// [`MemoryStore::private_dir`]; the settings are those given with
    /// [`MemcoreBuilder::config`], else the defaults. Path, scope and backend are then not
    /// used.
    ///
    /// ```
    /// use memcore::{Config, FileStore, Memcore, NewMemory};
    /// # let dir = tempfile::tempdir()?;
    /// let store = FileStore::open(dir.path(), &Config::default())?;
    /// let memcore = Memcore::builder().store(store).open()?;
    /// memcore.put(NewMemory::new("Prefer Metal.").id("gpu"))?;
    /// assert_eq!(memcore.get("gpu")?.content, "Prefer Metal.");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn store(mut self, store: impl MemoryStore + 'static) -> Self {
        self.store = Some(Box::new(store));
        self
    }

    /// Whether opening syncs the indexes with changes made behind memcore's back (default
    /// true; only stores with a change feed, git notes, do anything). Turn it off to call
    /// [`Memcore::sync`] yourself and see its report.
    pub fn sync_on_open(mut self, sync: bool) -> Self {
        self.skip_sync = !sync;
        self
    }

    /// The embedder for semantic search, instead of the default ONNX model.
    pub fn embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        self.embedder = Some(embedder);
        self
    }

    /// Model files installed with the program, for the default embedder to use when no
    /// model directory is configured or set in `$MEMCORE_MODEL_DIR` and the default cache
    /// lacks the files ([`ModelFiles::locate_or_installed`]). The Python package passes the
    /// model its wheel carries and the ONNX Runtime of its `embeddings` extra.
    pub fn installed_model(mut self, files: ModelFiles) -> Self {
        self.installed_model = Some(files);
        self
    }

    /// The summariser session compressions use (default: the built-in extractive one); it
    /// can be changed later with [`Memcore::set_summarizer`].
    pub fn summarizer(mut self, summarizer: Arc<dyn Summarizer>) -> Self {
        self.summarizer = Some(summarizer);
        self
    }

    /// Where the summary commands this machine's user trusts are recorded (default
    /// `trusted-commands.json` in the global root): see [`crate::project::TrustedCommands`].
    pub fn trusted_commands(mut self, file: impl Into<PathBuf>) -> Self {
        self.trusted_commands = Some(file.into());
        self
    }

    /// Resolves the location and opens the store (creating its directory if needed) and its
    /// indexes (replaying work a crash interrupted; rebuilding a damaged index).
    pub fn open(self) -> Result<Memcore> {
        let (store, location, project) = match self.store {
            Some(store) => {
                let config = self.config.unwrap_or_default();
                let mut location =
                    Location { root: store.root().to_path_buf(), config_file: None, config };
                let project = ProjectState::load(&mut location, self.trusted_commands)?;
                (store, location, project)
            }
            None => {
                let mut location = match self.path {
                    Some(root) => Location::at(root)?,
                    None => {
                        let start = match self.start_dir {
                            Some(dir) => dir,
                            None => std::env::current_dir().map_err(|e| {
                                Error::io("reading the working directory for scope detection", e)
                            })?,
                        };
                        config::locate(self.scope, &start)?
                    }
                };
                if let Some(config) = self.config {
                    location.config = config;
                }
                if let Some(backend) = self.backend {
                    location.config.backend = backend;
                }
                // The manifest's retention is in the config before the backend reads it.
                let project = ProjectState::load(&mut location, self.trusted_commands)?;
                (open_backend(&location)?, location, project)
            }
        };
        location.config.validate()?;
        let embedding = &location.config.embedding;
        let embedder = match self.embedder {
            Some(embedder) => EmbedderChoice::Given(embedder),
            None if embedding.enabled => EmbedderChoice::Auto {
                model_dir: embedding.model_dir.clone(),
                installed: self.installed_model,
            },
            None => EmbedderChoice::Off,
        };
        let lock_timeout = Duration::from_millis(location.config.lock_timeout_ms);
        let (indexed, opened) = IndexedStore::open(store, embedder, lock_timeout)?;
        let has_feed = indexed.store().change_feed().is_some();
        let mut memcore = Memcore {
            indexed,
            query_cache: QueryCache::default(),
            location,
            clock: self.clock.unwrap_or_else(|| Arc::new(crate::now)),
            opened,
            summarizer: parking_lot::RwLock::new(self.summarizer),
            project,
        };
        memcore.finish_merges();
        memcore.finish_document_changes();
        // A store that can say what changed (git notes fetched from another clone, a database
        // other machines write to) is synced on open; the others are kept level by the write
        // protocol.
        if !self.skip_sync && has_feed {
            let report = memcore.sync()?;
            if report.synced > 0 {
                let synced = Maintenance::Synced { memories: report.synced, full: report.full };
                memcore.opened.push(synced);
            }
        }
        Ok(memcore)
    }
}

/// The store the location's backend names.
fn open_backend(location: &Location) -> Result<Box<dyn MemoryStore>> {
    Ok(match location.config.backend {
        Backend::File => Box::new(FileStore::open(&location.root, &location.config)?),
        Backend::GitNotes => Box::new(GitNotesStore::open(&location.root, &location.config)?),
        Backend::Tiered => Box::new(TieredStore::open(&location.root, &location.config)?),
        #[cfg(feature = "postgres")]
        Backend::Postgres => {
            Box::new(crate::PostgresStore::open(&location.root, &location.config)?)
        }
        #[cfg(not(feature = "postgres"))]
        Backend::Postgres => {
            return Err(Error::unsupported(
                "opening a PostgreSQL store",
                "postgres",
                "this build of memcore lacks it: build with the cargo feature `postgres` (the \
                 CLI, the C library and the Python module have it)",
            ));
        }
    })
}
