//! A handle's project (seed 003's manifest): the manifest read when the store opened, the
//! summariser its summary mode names, and the operations `project_init`, `project_info` and
//! `project_trust`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Memcore;
use crate::agent::{PROFILE_KIND, PROFILES_COLLECTION};
use crate::config::Location;
use crate::docs::DocsListRequest;
use crate::project::manifest::{CONTEXT_TURNS, WINDOW_DAYS};
use crate::project::{
    CommandLine, CommandSummarizer, ProjectInfo, ProjectInitRequest, ProjectManifest,
    ProjectPolicy, Retention, SummaryMode, SummarySettings, TrustedCommands, manifest_path,
    project_dir,
};
use crate::session::{ExtractiveSummarizer, Summarizer, TranscriptMessage, condense};
use serde_json::Map;

use crate::{Error, ListOptions, Result, TimelineKind, TimelineRequest};

/// How many sessions `project_info` shows.
const RECENT_SESSIONS: usize = 5;

/// What a handle knows of its project.
#[derive(Debug)]
pub(super) struct ProjectState {
    /// The manifest read at open.
    manifest: Option<ProjectManifest>,
    /// The project directory.
    dir: PathBuf,
    /// Where trusted commands are recorded, or why there is no such place.
    trust: std::result::Result<TrustedCommands, String>,
    /// Mode `command`: the summariser.
    command: Option<Arc<CommandSummarizer>>,
}

impl ProjectState {
    /// Reads the manifest of the store at `location` and applies its retention to the
    /// location's config. A manifest that does not read is a validation error: the store's
    /// policy would be unknown.
    pub(super) fn load(location: &mut Location, trust_file: Option<PathBuf>) -> Result<Self> {
        let manifest = ProjectManifest::load(&manifest_path(&location.root))?;
        if let Some(manifest) = &manifest {
            manifest.apply(&mut location.config);
        }
        // Canonical: the program and its trust are resolved against the same directory
        // whatever the process's working directory is then.
        let named = project_dir(location);
        let dir = named.canonicalize().unwrap_or(named);
        let trust = match trust_file {
            Some(file) => Ok(TrustedCommands::at(file)),
            None => TrustedCommands::user().map_err(|e| e.to_string()),
        };
        let command =
            manifest.as_ref().filter(|m| m.summary.mode == SummaryMode::Command).map(|m| {
                let argv = m.summary.argv().to_vec();
                let trust = trust.as_ref().ok().cloned();
                Arc::new(CommandSummarizer::new(argv, &dir, m.summary.timeout(), trust))
            });
        Ok(Self { manifest, dir, trust, command })
    }

    fn mode(&self) -> SummaryMode {
        self.manifest.as_ref().map(|m| m.summary.mode).unwrap_or_default()
    }

    fn trust(&self) -> Result<&TrustedCommands> {
        self.trust.as_ref().map_err(|why| {
            Error::validation(
                format!("there is no place to keep trusted commands in: {why}"),
                "set MEMCORE_HOME to a directory of your own",
            )
        })
    }
}

impl Memcore {
    /// The project: its manifest (as read when the store opened), the policy in force (the
    /// manifest over the config), its agents (the manifest's defaults and every profile),
    /// how many documents it has and, for a tiered store, its newest sessions.
    ///
    /// ```
    /// use memcore::Memcore;
    /// use memcore::project::SummaryMode;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let memcore = Memcore::open(dir.path())?;
    /// let info = memcore.project_info()?;
    /// assert!(info.manifest.is_none());
    /// assert_eq!(info.policy.summary_mode, SummaryMode::Heuristic);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn project_info(&self) -> Result<ProjectInfo> {
        let state = &self.project;
        let config = &self.location().config;
        let manifest = state.manifest.clone();
        let summary = manifest.as_ref().map(|m| m.summary.clone()).unwrap_or_default();
        let command_trusted = match (&state.command, summary.mode) {
            (Some(command), SummaryMode::Command) => Some(command.is_trusted()?),
            _ => None,
        };
        let mut agents: Vec<String> =
            manifest.iter().flat_map(|m| m.default_agents.iter().cloned()).collect();
        let profiles = self.list(&ListOptions::new().collection(PROFILES_COLLECTION))?;
        agents.extend(
            profiles
                .memories
                .iter()
                .filter(|m| m.kind.as_deref() == Some(PROFILE_KIND))
                .map(|m| m.id.to_string()),
        );
        agents.sort();
        agents.dedup();
        let recent_sessions = match self.tiers() {
            Some(tiers) => {
                let (entries, _) = tiers.timeline().entries(&TimelineRequest::default())?;
                let sessions =
                    entries.into_iter().rev().filter(|e| e.kind == TimelineKind::Session);
                sessions.take(RECENT_SESSIONS).collect()
            }
            None => Vec::new(),
        };
        Ok(ProjectInfo {
            project_dir: state.dir.display().to_string(),
            manifest_path: self.manifest_file().display().to_string(),
            manifest,
            policy: ProjectPolicy {
                backend: self.backend().to_owned(),
                hot_context_turns: config.tiered.hot_context_turns,
                hot_summary_tokens: config.tiered.hot_summary_tokens,
                warm_window_days: config.tiered.warm_window_days,
                archive_after_days: config.lifecycle.archive_after_days,
                summary_mode: summary.mode,
                summary_command: summary.argv().to_vec(),
                command_trusted,
            },
            agents,
            documents: self.docs_list(&DocsListRequest::default())?.documents.len(),
            recent_sessions,
            notes: Vec::new(),
        })
    }

    /// Writes the project's manifest, `project.json` in the store directory: what `request`
    /// leaves out is the policy in force, so the manifest shows every value. It never
    /// replaces a manifest ([`Error::Conflict`]: edit that one), and applies from the next
    /// time the store is opened.
    ///
    /// ```
    /// use memcore::Memcore;
    /// use memcore::project::ProjectInitRequest;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let store = dir.path().join("knit-cast");
    /// let info = Memcore::open(&store)?
    ///     .project_init(&ProjectInitRequest::new().default_agents(["patch", "loom"]))?;
    /// assert_eq!(info.manifest.unwrap().project_id.as_deref(), Some("knit-cast"));
    /// let reopened = Memcore::open(&store)?.project_info()?;
    /// assert_eq!(reopened.agents, ["loom", "patch"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn project_init(&self, request: &ProjectInitRequest) -> Result<ProjectInfo> {
        let manifest = self.new_manifest(request)?;
        manifest.validate()?;
        let path = self.manifest_file();
        write_new(&path, manifest.to_json().as_bytes())?;
        let mut info = self.project_info()?;
        info.manifest = Some(manifest);
        info.notes
            .push(format!("{} applies from the next time the store is opened", path.display()));
        Ok(info)
    }

    /// Trusts the summary command of the project's manifest (as it is on disk now) on this
    /// machine, for this project: mode `command` runs only once trusted, since a manifest
    /// may come from a cloned repository. Trust covers the command line and, for a program
    /// inside the project, its contents; a change of either needs trust again. Without a
    /// command to trust, an [`Error::Validation`].
    pub fn project_trust(&self) -> Result<ProjectInfo> {
        let path = self.manifest_file();
        let manifest = ProjectManifest::load(&path)?;
        let argv = manifest
            .as_ref()
            .filter(|m| m.summary.mode == SummaryMode::Command)
            .map(|m| m.summary.argv().to_vec())
            .ok_or_else(|| {
                Error::validation(
                    format!("{} names no summary command to trust", path.display()),
                    "set summary.mode to command and summary.command to the program first",
                )
            })?;
        let state = &self.project;
        state.trust()?.trust(&state.dir, &argv, self.now())?;
        self.project_info()
    }

    /// The project directory (canonical when it could be resolved at open): documents and
    /// summary commands are relative to it.
    pub(super) fn project_dir(&self) -> &Path {
        &self.project.dir
    }

    /// The agents a session has when it names none: the manifest's `default_agents`.
    pub(super) fn default_agents(&self) -> Vec<String> {
        self.project.manifest.as_ref().map(|m| m.default_agents.clone()).unwrap_or_default()
    }

    /// The summariser of the summaries memcore makes by itself (sessions' ends, compaction
    /// digests): the one set in code, else the manifest's mode (`None` for mode `none`).
    pub(super) fn automatic_summarizer(&self) -> Option<Arc<dyn Summarizer>> {
        if let Some(set) = self.summarizer.read().clone() {
            return Some(set);
        }
        match self.project.mode() {
            SummaryMode::Heuristic => Some(Arc::new(ExtractiveSummarizer)),
            SummaryMode::Command => self.project.command.clone().map(|c| c as Arc<dyn Summarizer>),
            SummaryMode::None => None,
        }
    }

    /// `messages` summarised to about `tokens` tokens by [`Memcore::automatic_summarizer`];
    /// empty in mode `none`.
    pub(super) fn summarize_automatically(
        &self,
        messages: Vec<TranscriptMessage>,
        tokens: usize,
    ) -> Result<String> {
        match self.automatic_summarizer() {
            Some(summarizer) => condense(summarizer.as_ref(), messages, tokens),
            None => Ok(String::new()),
        }
    }

    /// The manifest `request` asks for, the policy in force filling what it leaves out.
    fn new_manifest(&self, request: &ProjectInitRequest) -> Result<ProjectManifest> {
        let config = &self.location().config;
        let project_id = match &request.project_id {
            Some(id) => id.clone(),
            None => default_project_id(&self.location().root)?,
        };
        let command = match request.summary_command.as_slice() {
            [] => None,
            argv => Some(CommandLine::Argv(argv.to_vec())),
        };
        let mode = request.summary_mode.unwrap_or(if command.is_some() {
            SummaryMode::Command
        } else {
            SummaryMode::Heuristic
        });
        // What the request leaves out is the config's value, when a manifest may hold it.
        let archive_after_days = config.lifecycle.archive_after_days.ceil();
        let archive_after_days =
            (1.0..=36_500.0).contains(&archive_after_days).then_some(archive_after_days as u32);
        let turns = Some(config.tiered.hot_context_turns).filter(|n| CONTEXT_TURNS.contains(n));
        let window = Some(config.tiered.warm_window_days).filter(|n| WINDOW_DAYS.contains(n));
        let retention = Retention {
            hot_context_turns: request.hot_context_turns.or(turns),
            warm_window_days: request.warm_window_days.or(window),
            archive_after_days: request.archive_after_days.or(archive_after_days),
            other: Map::new(),
        };
        let summary = SummarySettings {
            mode,
            command,
            timeout_ms: request.summary_timeout_ms,
            other: Map::new(),
        };
        Ok(ProjectManifest {
            display_name: Some(request.display_name.clone().unwrap_or_else(|| project_id.clone())),
            project_id: Some(project_id),
            description: request.description.clone(),
            default_agents: request.default_agents.clone(),
            retention,
            summary,
            other: Map::new(),
        })
    }

    fn manifest_file(&self) -> PathBuf {
        manifest_path(&self.location().root)
    }
}

/// The default project id: the store directory's name (its parent's for a store named
/// `.memcore`) as a slug.
fn default_project_id(root: &Path) -> Result<String> {
    let root =
        root.canonicalize().map_err(|e| Error::io(format!("resolving {}", root.display()), e))?;
    let named = if root.file_name().is_some_and(|n| n == crate::DEFAULT_PROJECT_STORE) {
        root.parent().unwrap_or(&root)
    } else {
        &root
    };
    let name = named.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let id = slug::slugify(name);
    Ok(if id.is_empty() { "project".to_owned() } else { id })
}

/// Writes `bytes` to a new file `path`, atomically and durably; an [`Error::Conflict`] when
/// it exists (a manifest is edited by hand, never overwritten).
fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let failed = |e: std::io::Error| Error::io(format!("writing {}", path.display()), e);
    // A git-notes store keeps its data in the repository: its directory may not exist yet.
    std::fs::create_dir_all(dir).map_err(failed)?;
    let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(failed)?;
    temp.write_all(bytes).map_err(failed)?;
    temp.as_file().sync_all().map_err(failed)?;
    match temp.persist_noclobber(path) {
        Ok(_) => crate::store::fsutil::sync_dir(dir),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Err(Error::conflict(
            format!("{} exists", path.display()),
            "edit it (memcore keeps keys it does not know), or move it away to start anew",
        )),
        Err(e) => Err(failed(e.error)),
    }
}
