//! The one error type of memcore.
//!
//! Variants are grouped by what the caller can do about them, not by where they came from:
//! fix the input ([`Error::Validation`]), look elsewhere ([`Error::NotFound`]), retry or
//! resolve a clash ([`Error::Conflict`]), check the disk or repository ([`Error::Io`],
//! [`Error::Storage`]), mend a file by hand
//! ([`Error::Corrupted`]), rebuild derived data ([`Error::Index`]), install the model
//! ([`Error::Embedding`]) or pick another backend ([`Error::Unsupported`]).
//!
//! Every error carries a [`Category`] (the classification of the seed designs) and a recovery
//! hint that says what to do next:
//!
//! ```
//! use memcore::{Category, Error};
//!
//! let err = Error::validation("id must not be empty", "pass a non-empty id such as `gpu-notes`");
//! assert_eq!(err.category(), Category::Validation);
//! assert_eq!(err.recovery(), "pass a non-empty id such as `gpu-notes`");
//! assert_eq!(err.to_string(), "id must not be empty");
//! ```

use std::fmt;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize, Serializer};

/// A boxed third-party error kept as the `source` of one of ours, so that the versions of our
/// dependencies stay out of the public API.
pub type BoxedSource = Box<dyn std::error::Error + Send + Sync + 'static>;

/// `Result` with memcore's [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in memcore.
///
/// Match on the variant to decide what to do; show [`Error::recovery`] to a person.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input breaks a rule (an id, a collection, a size limit, a config value).
    /// Nothing was written.
    #[error("{message}")]
    Validation {
        /// What is wrong with the input.
        message: String,
        /// How to fix the input.
        recovery: String,
    },

    /// A request record (JSON from C, the CLI or MCP; keyword arguments from Python) does not
    /// fit its operation's schema: an unknown or missing field, a value of the wrong type or
    /// outside its set. Nothing was done. Its category is [`Category::Validation`].
    #[error("{message}")]
    Request {
        /// Which field is wrong and how.
        message: String,
        /// Where the schema is described.
        recovery: String,
    },

    /// The thing asked for does not exist.
    #[error("{what} not found")]
    NotFound {
        /// What was looked for, e.g. `memory 'gpu-notes' in collection 'knowledge'`.
        what: String,
        /// Where else to look.
        recovery: String,
    },

    /// The request clashes with the current state: a memory already exists, an id is
    /// ambiguous, or another writer holds the store's lock.
    #[error("{message}")]
    Conflict {
        /// What clashed.
        message: String,
        /// How to resolve the clash.
        recovery: String,
    },

    /// Reading or writing the store failed at the operating-system level.
    #[error("{message}: {source}")]
    Io {
        /// What memcore was doing, naming the path.
        message: String,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
        /// What to check.
        recovery: String,
    },

    /// The storage backend failed below the file system: a git repository that is missing,
    /// empty, locked by another writer or otherwise unusable.
    #[error("{message}")]
    Storage {
        /// What failed.
        message: String,
        /// The underlying error, if any.
        #[source]
        source: Option<BoxedSource>,
        /// What to check or run.
        recovery: String,
    },

    /// Stored data could not be parsed (broken frontmatter, invalid UTF-8, a damaged file).
    /// Only the damaged item is affected; the rest of the store still loads.
    #[error("{}", corrupted_message(path, *line, message))]
    Corrupted {
        /// The damaged file.
        path: PathBuf,
        /// The 1-based line of the problem in that file, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
        /// How to mend it.
        recovery: String,
    },

    /// A derived index (full-text, vector, graph) failed; the store itself is intact and the
    /// index can be rebuilt from it.
    #[error("{message}")]
    Index {
        /// What failed.
        message: String,
        /// The underlying error, if any.
        #[source]
        source: Option<BoxedSource>,
        /// How to rebuild or repair.
        recovery: String,
    },

    /// The embedding model or its runtime is missing, damaged or failed.
    #[error("{message}")]
    Embedding {
        /// What failed.
        message: String,
        /// The underlying error, if any.
        #[source]
        source: Option<BoxedSource>,
        /// How to install or fix the model.
        recovery: String,
    },

    /// A function the caller gave memcore (a summariser callback, a Python callable, a C
    /// function pointer) failed, panicked, raised or returned something unusable. Nothing
    /// was written.
    #[error("{message}")]
    Callback {
        /// What the callback did.
        message: String,
        /// What to check.
        recovery: String,
    },

    /// The backend does not offer this operation.
    #[error("{operation} is not supported by the {backend} backend")]
    Unsupported {
        /// The operation asked for.
        operation: String,
        /// The backend that lacks it.
        backend: String,
        /// What to use instead.
        recovery: String,
    },
}

fn corrupted_message(path: &std::path::Path, line: Option<usize>, message: &str) -> String {
    match line {
        Some(line) => format!("{}:{line}: {message}", path.display()),
        None => format!("{}: {message}", path.display()),
    }
}

/// The classification of an error, as in the seed designs' error table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum Category {
    /// Input rejected before anything was written.
    Validation,
    /// The item asked for does not exist.
    NotFound,
    /// A clash with the current state or another writer.
    Conflict,
    /// The storage layer (file system, git) failed.
    Storage,
    /// Stored data could not be parsed.
    Parse,
    /// A derived index failed.
    Index,
    /// The embedding model or runtime failed.
    Embedding,
    /// The backend lacks the operation.
    Unsupported,
    /// A function the caller gave memcore failed.
    Callback,
}

impl Category {
    /// The upper-case name used in messages and bindings, e.g. `"VALIDATION"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Validation => "VALIDATION",
            Self::NotFound => "NOT_FOUND",
            Self::Conflict => "CONFLICT",
            Self::Storage => "STORAGE",
            Self::Parse => "PARSE",
            Self::Index => "INDEX",
            Self::Embedding => "EMBEDDING",
            Self::Unsupported => "UNSUPPORTED",
            Self::Callback => "CALLBACK",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl Error {
    /// A [`Error::Validation`] error.
    pub fn validation(message: impl Into<String>, recovery: impl Into<String>) -> Self {
        Self::Validation { message: message.into(), recovery: recovery.into() }
    }

    /// An [`Error::Request`] error.
    pub fn request(message: impl Into<String>, recovery: impl Into<String>) -> Self {
        Self::Request { message: message.into(), recovery: recovery.into() }
    }

    /// A [`Error::NotFound`] error; `what` names the missing thing.
    pub fn not_found(what: impl Into<String>, recovery: impl Into<String>) -> Self {
        Self::NotFound { what: what.into(), recovery: recovery.into() }
    }

    /// A [`Error::Conflict`] error.
    pub fn conflict(message: impl Into<String>, recovery: impl Into<String>) -> Self {
        Self::Conflict { message: message.into(), recovery: recovery.into() }
    }

    /// An [`Error::Io`] error; `message` says what was being done and to which path.
    pub fn io(message: impl Into<String>, source: std::io::Error) -> Self {
        let recovery = match source.kind() {
            std::io::ErrorKind::PermissionDenied => {
                "check the permissions of the store directory (memcore creates it 0700)"
            }
            std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => {
                "free disk space and retry; nothing was changed"
            }
            _ => "check that the store path exists, is a directory and is writable, then retry",
        };
        Self::Io { message: message.into(), source, recovery: recovery.into() }
    }

    /// A [`Error::Storage`] error with an optional underlying cause.
    pub fn storage(
        message: impl Into<String>,
        source: Option<BoxedSource>,
        recovery: impl Into<String>,
    ) -> Self {
        Self::Storage { message: message.into(), source, recovery: recovery.into() }
    }

    /// A [`Error::Corrupted`] error for `path` (and `line`, when known).
    pub fn corrupted(
        path: impl Into<PathBuf>,
        line: Option<usize>,
        message: impl Into<String>,
        recovery: impl Into<String>,
    ) -> Self {
        Self::Corrupted {
            path: path.into(),
            line,
            message: message.into(),
            recovery: recovery.into(),
        }
    }

    /// An [`Error::Index`] error with an optional underlying cause.
    pub fn index(
        message: impl Into<String>,
        source: Option<BoxedSource>,
        recovery: impl Into<String>,
    ) -> Self {
        Self::Index { message: message.into(), source, recovery: recovery.into() }
    }

    /// An [`Error::Embedding`] error with an optional underlying cause.
    pub fn embedding(
        message: impl Into<String>,
        source: Option<BoxedSource>,
        recovery: impl Into<String>,
    ) -> Self {
        Self::Embedding { message: message.into(), source, recovery: recovery.into() }
    }

    /// An [`Error::Callback`] error: a function the caller gave memcore failed; `recovery`
    /// says what the function must do instead.
    pub fn callback(message: impl Into<String>, recovery: impl Into<String>) -> Self {
        Self::Callback { message: message.into(), recovery: recovery.into() }
    }

    /// An [`Error::Unsupported`] error: `backend` lacks `operation`.
    pub fn unsupported(
        operation: impl Into<String>,
        backend: impl Into<String>,
        recovery: impl Into<String>,
    ) -> Self {
        Self::Unsupported {
            operation: operation.into(),
            backend: backend.into(),
            recovery: recovery.into(),
        }
    }

    /// The error's classification.
    pub fn category(&self) -> Category {
        match self {
            Self::Validation { .. } | Self::Request { .. } => Category::Validation,
            Self::NotFound { .. } => Category::NotFound,
            Self::Conflict { .. } => Category::Conflict,
            Self::Io { .. } | Self::Storage { .. } => Category::Storage,
            Self::Corrupted { .. } => Category::Parse,
            Self::Index { .. } => Category::Index,
            Self::Embedding { .. } => Category::Embedding,
            Self::Unsupported { .. } => Category::Unsupported,
            Self::Callback { .. } => Category::Callback,
        }
    }

    /// What to do about the error, in one sentence for a person or an agent.
    pub fn recovery(&self) -> &str {
        match self {
            Self::Validation { recovery, .. }
            | Self::Request { recovery, .. }
            | Self::NotFound { recovery, .. }
            | Self::Conflict { recovery, .. }
            | Self::Io { recovery, .. }
            | Self::Storage { recovery, .. }
            | Self::Corrupted { recovery, .. }
            | Self::Index { recovery, .. }
            | Self::Embedding { recovery, .. }
            | Self::Unsupported { recovery, .. }
            | Self::Callback { recovery, .. } => recovery,
        }
    }

    /// The message, category and recovery hint in one block, as shown by the CLI and the
    /// bindings: `[CATEGORY] message` then `-> recovery`.
    pub fn report(&self) -> String {
        format!("[{}] {self}\n-> {}", self.category(), self.recovery())
    }
}

/// An [`Error`] as data, for results that report errors beside what succeeded (a listing's
/// unreadable files): what every binding shows of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ErrorInfo {
    /// The classification.
    pub category: Category,
    /// What went wrong.
    pub message: String,
    /// What to do about it.
    pub recovery: String,
    /// The file concerned, for [`Error::Corrupted`].
    pub path: Option<PathBuf>,
    /// The 1-based line in that file, when known.
    pub line: Option<usize>,
}

impl ErrorInfo {
    /// The data of `err`.
    pub fn of(err: &Error) -> Self {
        let (path, line) = match err {
            Error::Corrupted { path, line, .. } => (Some(path.clone()), *line),
            _ => (None, None),
        };
        Self {
            category: err.category(),
            message: err.to_string(),
            recovery: err.recovery().to_owned(),
            path,
            line,
        }
    }
}

/// Serialises errors as [`ErrorInfo`]s (`#[serde(serialize_with = ...)]`).
pub(crate) fn serialize_infos<S: Serializer>(errors: &[Error], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(errors.iter().map(ErrorInfo::of))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_has_category_and_recovery() {
        let errors = [
            Error::validation("bad", "fix it"),
            Error::request("unknown field `x`", "see the schema"),
            Error::not_found("memory 'x'", "list memories"),
            Error::conflict("exists", "use replace"),
            Error::io("reading /x", std::io::Error::from(std::io::ErrorKind::PermissionDenied)),
            Error::storage("repository has no commits", None, "create an initial commit"),
            Error::corrupted("/s/a.md", Some(3), "bad yaml", "fix line 3"),
            Error::index("broken", None, "run reindex"),
            Error::embedding("no model", None, "run setup"),
            Error::unsupported("versions", "git-notes", "use the file store"),
        ];
        let categories: Vec<_> = errors.iter().map(Error::category).collect();
        assert_eq!(
            categories,
            [
                Category::Validation,
                Category::Validation,
                Category::NotFound,
                Category::Conflict,
                Category::Storage,
                Category::Storage,
                Category::Parse,
                Category::Index,
                Category::Embedding,
                Category::Unsupported
            ]
        );
        assert!(errors.iter().all(|e| !e.recovery().is_empty()));
    }

    #[test]
    fn corrupted_names_file_and_line() {
        let err = Error::corrupted("/s/a.md", Some(3), "bad yaml", "fix it");
        assert_eq!(err.to_string(), "/s/a.md:3: bad yaml");
        assert_eq!(err.report(), "[PARSE] /s/a.md:3: bad yaml\n-> fix it");
    }

    #[test]
    fn io_recovery_depends_on_kind() {
        let err =
            Error::io("writing x", std::io::Error::from(std::io::ErrorKind::PermissionDenied));
        assert!(err.recovery().contains("permissions"));
    }
}
