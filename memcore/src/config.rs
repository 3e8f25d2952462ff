//! Configuration (`.memcore.yaml`) and scopes: where a store lives.
//!
//! - The **global** store is `$MEMCORE_HOME`, else `$XDG_DATA_HOME/memcore`, else
//!   `~/.local/share/memcore`; its optional settings are in `config.yaml` inside it.
//! - A **project-local** store is found by walking up from a directory to the first
//!   `.memcore.yaml` (or `.memcore.yml`, `.memcore.json`); its `path:` (default `.memcore`)
//!   is resolved against the directory holding the config and must stay inside it.
//!
//! ```yaml
//! # .memcore.yaml
//! version: 1
//! path: .memcore            # the store, relative to this file's directory
//! default_collection: memory
//! versioning: auto          # auto | builtin | git | off
//! max_versions: 10
//! limits:
//!   max_content_bytes: 102400
//!   max_summary_chars: 100
//! embedding:
//!   enabled: true
//!   model_dir: /opt/models/minilm   # model + tokenizer only; else $MEMCORE_MODEL_DIR, else
//!                                   # the default cache (never the ONNX Runtime library)
//! decay:                    # how relevance fades (search's recency boost, the lifecycle)
//!   half_life_days: 30
//!   types:
//!     journal: { rate: 0.90, floor: 0.10 }
//!     fact: { rate: 0.98, floor: 0.20 }
//! lifecycle:                # what `lifecycle run` archives, tombstones and deletes
//!   archive_after_days: 90
//!   min_relevance: 0.1
//!   tombstone_after_days: 180
//!   delete_after_days: 365
//!   compress_archived: true
//! capture:                  # what `capture` stores, suggests and skips
//!   namespaces: [decisions, learnings, blockers, solutions, preferences, notes, progress]
//!   auto_threshold: 0.95
//!   suggest_threshold: 0.70
//!   novelty_threshold: 0.3
//!   similarity_threshold: 0.7
//! links:                    # how [[links]] are typed, by words in their context
//!   edge_types:
//!     - { type: refactors, keywords: [refactor, refactoring, rewrite, restructure] }
//!     - { type: plans, keywords: [plan, todo, will, should] }
//! ```

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::capture::CaptureConfig;
use crate::decay::{DecayConfig, LifecycleConfig};
use crate::links::EdgeTypes;
use crate::{Collection, Error, Limits, Result};

/// The names a project config may have, in the order they are looked for.
pub const PROJECT_CONFIG_NAMES: [&str; 3] = [".memcore.yaml", ".memcore.yml", ".memcore.json"];
/// The settings file inside the global store.
pub const GLOBAL_CONFIG_NAME: &str = "config.yaml";
/// The store directory of a project when its config does not name one.
pub const DEFAULT_PROJECT_STORE: &str = ".memcore";

/// How a file store keeps the history of each memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Versioning {
    /// Git when the store is inside a git work tree, else built-in `.versions/`.
    #[default]
    Auto,
    /// Built-in `.versions/<id>/vN_<time>.md` files, kept to `max_versions`.
    Builtin,
    /// Git history of the work tree holding the store.
    Git,
    /// No history.
    Off,
}

/// Where memories live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backend {
    /// One markdown file per memory under the store directory ([`crate::FileStore`]).
    #[default]
    File,
    /// Git notes under `refs/notes/mem/<namespace>` of the repository holding the store
    /// directory ([`crate::GitNotesStore`]); collections are namespaces.
    GitNotes,
    /// Rows of a PostgreSQL database shared by many machines (`PostgresStore`, cargo feature
    /// `postgres`); the store directory keeps this machine's indexes. See [`PostgresConfig`].
    Postgres,
    /// Hot, warm and cold tiers (seed 003, [`crate::TieredStore`]): live sessions in memory,
    /// memories as files (the warm tier, indexed as usual), transcripts and demoted memories
    /// in a compressed archive under `.memcore/tiers/`. See [`TieredConfig`].
    Tiered,
}

/// Settings of the tiered backend (seed 003's `retention`).
///
/// ```yaml
/// backend: tiered
/// tiered:
///   hot_context_turns: 12
///   hot_summary_tokens: 300
///   warm_window_days: 120
///   rolling_summary: true
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TieredConfig {
    /// Turns a live session keeps verbatim; older ones roll into its summary.
    pub hot_context_turns: usize,
    /// About how many tokens a live session's rolling summary (and the summary its end
    /// writes to the warm tier) is kept to.
    pub hot_summary_tokens: usize,
    /// Days a memory stays in the warm tier before compaction demotes it to the cold one.
    pub warm_window_days: u32,
    /// Whether turns leaving a live session's window roll into its summary (else they leave
    /// its context; the transcript keeps them). A manifest's summary mode `none` turns it
    /// off.
    pub rolling_summary: bool,
}

impl Default for TieredConfig {
    fn default() -> Self {
        Self {
            hot_context_turns: crate::store::DEFAULT_HOT_CONTEXT_TURNS,
            hot_summary_tokens: crate::store::DEFAULT_HOT_SUMMARY_TOKENS,
            warm_window_days: 120,
            rolling_summary: true,
        }
    }
}

/// A database connection string: a `postgres://` URL or `key=value` pairs. Shown (in
/// `Debug`, in messages) with its password hidden.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DatabaseUrl(String);

impl DatabaseUrl {
    /// The connection string itself, password included: for connecting only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::str::FromStr for DatabaseUrl {
    type Err = std::convert::Infallible;

    fn from_str(url: &str) -> std::result::Result<Self, Self::Err> {
        Ok(Self(url.to_owned()))
    }
}

impl std::fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        #[cfg(feature = "postgres")]
        let shown = crate::store::redact(&self.0);
        #[cfg(not(feature = "postgres"))]
        let shown = "(hidden)";
        write!(f, "DatabaseUrl({shown})")
    }
}

/// The environment variable that gives the database URL when the config does not.
pub const DATABASE_URL_VAR: &str = "MEMCORE_DATABASE_URL";

/// Settings of the PostgreSQL backend.
///
/// ```yaml
/// backend: postgres
/// postgres:
///   url: postgres://agent@db.internal:5432/memory   # else $MEMCORE_DATABASE_URL
///   namespace: my-project                           # many projects share one database
///   share_vectors: true                             # new machines take the vectors
/// ```
///
/// Keep passwords out of files that are shared: in `$MEMCORE_DATABASE_URL`, or in
/// PostgreSQL's own `~/.pgpass`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PostgresConfig {
    /// The database; else `$MEMCORE_DATABASE_URL`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<DatabaseUrl>,
    /// Which of the database's stores this is (`default` unless set).
    pub namespace: String,
    /// Whether the vectors memcore embeds are kept in the database (`true` unless set), so
    /// that other machines take them instead of running the model: about 1.5 KiB per memory
    /// with the default model.
    pub share_vectors: bool,
}

impl Default for PostgresConfig {
    fn default() -> Self {
        Self { url: None, namespace: "default".to_owned(), share_vectors: true }
    }
}

impl PostgresConfig {
    /// The configured URL, else `$MEMCORE_DATABASE_URL`; a validation error when neither
    /// is set.
    pub fn database_url(&self) -> Result<DatabaseUrl> {
        if let Some(url) = &self.url {
            return Ok(url.clone());
        }
        match std::env::var(DATABASE_URL_VAR) {
            Ok(url) if !url.trim().is_empty() => Ok(DatabaseUrl(url)),
            _ => Err(Error::validation(
                "the postgres backend needs a database URL, and none is set",
                format!(
                    "set `postgres.url` in the store's config or ${DATABASE_URL_VAR}, such as \
                     postgres://user@host:5432/dbname"
                ),
            )),
        }
    }

    /// A validation error for an empty or overlong namespace.
    pub(crate) fn validate(&self) -> Result<()> {
        let length = self.namespace.chars().count();
        if length == 0 || length > 200 || self.namespace.chars().any(char::is_control) {
            return Err(Error::validation(
                format!("invalid postgres namespace {:?}", self.namespace),
                "use 1 to 200 printable characters, such as the project's name",
            ));
        }
        Ok(())
    }
}

/// Settings of the git-notes backend (seed 002).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GitNotesConfig {
    /// The namespaces memories may use (one notes ref each); seed 002's ten by default.
    pub namespaces: Vec<Collection>,
    /// The commit new memories are attached to, as a revision; `HEAD` by default.
    pub commit: String,
}

impl Default for GitNotesConfig {
    fn default() -> Self {
        Self {
            namespaces: crate::store::DEFAULT_NAMESPACES
                .iter()
                .filter_map(|name| Collection::new(*name).ok())
                .collect(),
            commit: "HEAD".to_owned(),
        }
    }
}

/// Settings of a store. Every field has a sensible default, so an empty file is valid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// The format version of this file; 1.
    pub version: u32,
    /// Project configs only: the store directory, relative to the config's directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// The collection used when a memory names none.
    pub default_collection: Collection,
    /// Where memories live: files (default), git notes, PostgreSQL or tiers.
    pub backend: Backend,
    /// Settings of the git-notes backend.
    pub git_notes: GitNotesConfig,
    /// Settings of the PostgreSQL backend.
    pub postgres: PostgresConfig,
    /// Settings of the tiered backend.
    pub tiered: TieredConfig,
    /// How history is kept.
    pub versioning: Versioning,
    /// With git versioning: commit every change of a memory file (and only that file) to the
    /// current branch, so that each write is a version. Off by default: your own commits
    /// make the versions.
    pub git_autocommit: bool,
    /// How many old versions built-in history keeps per memory.
    pub max_versions: usize,
    /// Size limits.
    pub limits: Limits,
    /// How long a writer waits for another process's lock before giving up, in milliseconds.
    pub lock_timeout_ms: u64,
    /// Semantic search settings.
    pub embedding: EmbeddingConfig,
    /// How relevance decays with age.
    pub decay: DecayConfig,
    /// The thresholds of automatic lifecycle processing.
    pub lifecycle: LifecycleConfig,
    /// How the capture engine decides.
    pub capture: CaptureConfig,
    /// How links are typed.
    pub links: EdgeTypes,
}

/// Semantic search settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EmbeddingConfig {
    /// Whether to embed memories and offer semantic and hybrid search (default true; without
    /// the model files search falls back to full text with a warning).
    pub enabled: bool,
    /// Where the model and tokenizer are; else `$MEMCORE_MODEL_DIR`, else the default cache.
    /// The ONNX Runtime library is never loaded from here (a config may come from a cloned
    /// repository): it comes from `$ORT_DYLIB_PATH` or the trusted directories.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_dir: Option<PathBuf>,
}

impl Default for EmbeddingConfig {
    fn default() -> Self {
        Self { enabled: true, model_dir: None }
    }
}

impl Default for Config {
    fn default() -> Self {
        Self {
            version: 1,
            path: None,
            default_collection: Collection::default(),
            backend: Backend::default(),
            git_notes: GitNotesConfig::default(),
            postgres: PostgresConfig::default(),
            tiered: TieredConfig::default(),
            versioning: Versioning::default(),
            git_autocommit: false,
            max_versions: 10,
            limits: Limits::default(),
            lock_timeout_ms: 60_000,
            embedding: EmbeddingConfig::default(),
            decay: DecayConfig::default(),
            lifecycle: LifecycleConfig::default(),
            capture: CaptureConfig::default(),
            links: EdgeTypes::default(),
        }
    }
}

impl Config {
    /// Reads a config file: YAML, or JSON for a `.json` file.
    pub fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::io(format!("reading config {}", path.display()), e))?;
        let is_json = path.extension().is_some_and(|ext| ext == "json");
        let parsed = if is_json {
            serde_json::from_str(&text).map_err(|e| e.to_string())
        } else if text.trim().is_empty() {
            Ok(Self::default())
        } else {
            serde_yaml::from_str(&text).map_err(|e| e.to_string())
        };
        let config: Self = parsed.map_err(|e| {
            Error::validation(
                format!("invalid config {}: {e}", path.display()),
                "fix the file; see the memcore docs (module `config`) for the keys it takes",
            )
        })?;
        if config.version != 1 {
            return Err(Error::validation(
                format!(
                    "config {} has version {}, this memcore reads version 1",
                    path.display(),
                    config.version
                ),
                "set `version: 1` or upgrade memcore",
            ));
        }
        config.validate().map_err(|e| {
            Error::validation(format!("invalid config {}: {e}", path.display()), e.recovery())
        })?;
        Ok(config)
    }

    /// A validation error for a setting out of range (a negative half-life, a decay rate
    /// above 1, a NaN threshold, ...).
    pub fn validate(&self) -> Result<()> {
        self.decay.validate()?;
        self.lifecycle.validate()?;
        self.capture.validate()?;
        self.postgres.validate()?;
        self.links.validate()
    }

    /// The config as YAML, as `memcore init` writes it.
    pub fn to_yaml(&self) -> String {
        // A struct of plain values always serialises.
        serde_yaml::to_string(self).unwrap_or_default()
    }
}

/// Which store to open when no explicit path is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// The project-local store if a project config is found walking up, else the global one.
    #[default]
    Auto,
    /// The project-local store; an error when there is no project config.
    Local,
    /// The global store.
    Global,
}

/// Where a store was found and with which settings.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Location {
    /// The store's root directory.
    pub root: PathBuf,
    /// The config file that placed it there, if any.
    pub config_file: Option<PathBuf>,
    /// The settings in force.
    pub config: Config,
}

impl Location {
    /// The store at the directory `root`, with the settings of its `config.yaml` when it has
    /// one (else the defaults), as [`crate::Memcore::open`] opens it. Reads, never writes.
    ///
    /// ```
    /// let dir = tempfile::tempdir()?;
    /// std::fs::write(dir.path().join("config.yaml"), "max_versions: 3\n")?;
    /// let location = memcore::Location::at(dir.path())?;
    /// assert_eq!(location.config.max_versions, 3);
    /// assert_eq!(location.config_file, Some(dir.path().join("config.yaml")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Validation`] for an empty path or an invalid `config.yaml`.
    pub fn at(root: impl Into<PathBuf>) -> Result<Self> {
        let root = root.into();
        if root.as_os_str().is_empty() {
            return Err(Error::validation(
                "the store path is empty",
                "give the directory of the store, e.g. `./memories`, or open by scope",
            ));
        }
        let config_file = root.join(GLOBAL_CONFIG_NAME);
        let on_disk = config_file.is_file();
        let config = if on_disk { Config::load(&config_file)? } else { Config::default() };
        Ok(Self { root, config_file: on_disk.then_some(config_file), config })
    }
}

/// The global store directory: `$MEMCORE_HOME`, else `$XDG_DATA_HOME/memcore`, else
/// `~/.local/share/memcore`.
pub fn global_root() -> Result<PathBuf> {
    global_root_from(|name| std::env::var_os(name), std::env::home_dir())
}

/// [`global_root`] with the environment and home directory passed in.
fn global_root_from(
    env: impl Fn(&str) -> Option<std::ffi::OsString>,
    home: Option<PathBuf>,
) -> Result<PathBuf> {
    let from_env = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(root) = from_env("MEMCORE_HOME") {
        return Ok(root);
    }
    if let Some(data) = from_env("XDG_DATA_HOME") {
        return Ok(data.join("memcore"));
    }
    home.map(|home| home.join(".local/share/memcore")).ok_or_else(|| {
        Error::validation(
            "cannot find the global store: no home directory",
            "set MEMCORE_HOME to the directory for the global store",
        )
    })
}

/// Finds the first project config walking up from `start`.
pub fn find_project_config(start: &Path) -> Option<PathBuf> {
    start.ancestors().find_map(|dir| {
        PROJECT_CONFIG_NAMES.iter().map(|name| dir.join(name)).find(|candidate| candidate.is_file())
    })
}

/// Resolves `scope` from `start` (usually the working directory) to a store location.
pub fn locate(scope: Scope, start: &Path) -> Result<Location> {
    let project = match scope {
        Scope::Global => None,
        Scope::Auto | Scope::Local => find_project_config(start),
    };
    match (scope, project) {
        (_, Some(config_file)) => project_location(config_file),
        (Scope::Local, None) => Err(Error::not_found(
            format!("project config ({}) in {} or above", PROJECT_CONFIG_NAMES[0], start.display()),
            "create one with `memcore init` in the project root, or open the global store",
        )),
        _ => global_location(),
    }
}

fn global_location() -> Result<Location> {
    let root = global_root()?;
    let config_file = root.join(GLOBAL_CONFIG_NAME);
    let config =
        if config_file.is_file() { Config::load(&config_file)? } else { Config::default() };
    let config_file = config_file.is_file().then_some(config_file);
    Ok(Location { root, config_file, config })
}

fn project_location(config_file: PathBuf) -> Result<Location> {
    let config = Config::load(&config_file)?;
    let project_root = config_file.parent().unwrap_or(Path::new(".")).to_path_buf();
    let relative = config.path.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_PROJECT_STORE));
    let root = contained_path(&project_root, &relative).map_err(|why| {
        Error::validation(
            format!("config {}: store path {}: {why}", config_file.display(), relative.display()),
            "give a relative `path:` inside the project, such as `.memcore`",
        )
    })?;
    Ok(Location { root, config_file: Some(config_file), config })
}

/// `base/relative`, if it stays inside `base` (lexically, and through symlinks where the
/// path exists).
fn contained_path(base: &Path, relative: &Path) -> std::result::Result<PathBuf, &'static str> {
    let mut depth = 0usize;
    for component in relative.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir if depth > 0 => depth -= 1,
            Component::ParentDir => return Err("it leaves the project root"),
            Component::RootDir | Component::Prefix(_) => return Err("it must be relative"),
        }
    }
    let joined = base.join(relative);
    if let (Ok(real_base), Ok(real)) = (base.canonicalize(), joined.canonicalize())
        && !real.starts_with(&real_base)
    {
        return Err("it leads outside the project root through a symbolic link");
    }
    Ok(joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_root_follows_env_then_home() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        let home = Some(PathBuf::from("/home/u"));
        let both = env(&[("MEMCORE_HOME", "/m"), ("XDG_DATA_HOME", "/x")]);
        assert_eq!(global_root_from(both, home.clone()).unwrap(), PathBuf::from("/m"));
        let xdg = env(&[("MEMCORE_HOME", ""), ("XDG_DATA_HOME", "/x")]);
        assert_eq!(global_root_from(xdg, home.clone()).unwrap(), PathBuf::from("/x/memcore"));
        let expected = PathBuf::from("/home/u/.local/share/memcore");
        assert_eq!(global_root_from(env(&[]), home).unwrap(), expected);
        assert!(global_root_from(env(&[]), None).is_err());
    }

    #[test]
    fn empty_and_json_configs_load() {
        let dir = tempfile::tempdir().unwrap();
        let yaml = dir.path().join(".memcore.yaml");
        std::fs::write(&yaml, "").unwrap();
        assert_eq!(Config::load(&yaml).unwrap(), Config::default());
        let json = dir.path().join("c.json");
        std::fs::write(&json, r#"{"path": "mem", "max_versions": 3}"#).unwrap();
        let config = Config::load(&json).unwrap();
        assert_eq!((config.path.unwrap(), config.max_versions), (PathBuf::from("mem"), 3));
    }

    #[test]
    fn typos_and_bad_versions_are_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".memcore.yaml");
        std::fs::write(&file, "max_version: 3\n").unwrap();
        let err = Config::load(&file).unwrap_err();
        assert!(err.to_string().contains("max_version"), "{err}");
        std::fs::write(&file, "version: 2\n").unwrap();
        assert!(Config::load(&file).is_err());
        std::fs::write(&file, "default_collection: ../x\n").unwrap();
        assert!(Config::load(&file).is_err());
    }

    #[test]
    fn finds_project_config_from_nested_dir() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".memcore.yaml"), "path: store\n").unwrap();
        let nested = dir.path().join("a/b/c");
        std::fs::create_dir_all(&nested).unwrap();
        let location = locate(Scope::Auto, &nested).unwrap();
        assert_eq!(location.root, dir.path().join("store"));
        assert_eq!(locate(Scope::Local, &nested).unwrap(), location);
    }

    #[test]
    fn store_path_must_stay_inside_project() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        for bad in ["../outside", "/abs/path", "a/../../b"] {
            std::fs::write(project.join(".memcore.yaml"), format!("path: {bad}\n")).unwrap();
            let err = locate(Scope::Local, &project).unwrap_err();
            assert_eq!(err.category(), crate::Category::Validation, "{bad}: {err}");
        }
        std::os::unix::fs::symlink(dir.path(), project.join("link")).unwrap();
        std::fs::write(project.join(".memcore.yaml"), "path: link\n").unwrap();
        assert!(locate(Scope::Local, &project).is_err());
        std::fs::write(project.join(".memcore.yaml"), "path: a/../inside\n").unwrap();
        assert_eq!(locate(Scope::Local, &project).unwrap().root, project.join("a/../inside"));
    }

    #[test]
    fn local_scope_without_config_is_not_found() {
        let dir = tempfile::tempdir().unwrap();
        let err = locate(Scope::Local, dir.path()).unwrap_err();
        assert_eq!(err.category(), crate::Category::NotFound);
        assert!(err.recovery().contains("memcore init"));
    }
}
