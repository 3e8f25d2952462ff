//! The session registry on a store ([`crate::session`]): registering transcripts, listing
//! and showing sessions, and pruning versions. Compression and composition are in
//! `session_compose.rs`.

use std::path::Path;
use std::sync::Arc;

use super::Memcore;
use crate::compose::TokenCounter;
use crate::decay::{extract_markers, lenient_markers};
use crate::session::registry::{
    Registry, check_name, missing_versions, sha256_hex, unknown_session,
};
use crate::session::{
    MAX_TRANSCRIPT_BYTES, PruneResult, SessionAddRequest, SessionKeepit, SessionListing,
    SessionPruneRequest, SessionRecord, SessionSummary, Summarizer, Transcript, VersionsFile,
    parse_transcript,
};
use crate::{Error, Result};

/// Characters of message text kept on each side of a keepit marker as its context.
const MARKER_CONTEXT_CHARS: usize = 80;

impl Memcore {
    /// Sets the summariser compressions use when their request says `auto` or `callback`,
    /// and the one of the summaries memcore makes by itself (`None`: the project manifest's
    /// summary mode, else the built-in extractive one). A Python callable or a C function pointer
    /// arrives here as a [`crate::session::CallbackSummarizer`].
    pub fn set_summarizer(&self, summarizer: Option<Arc<dyn Summarizer>>) {
        let old = std::mem::replace(&mut *self.summarizer.write(), summarizer);
        // Dropped after the lock: dropping a Python callable may run code that uses the handle.
        drop(old);
    }

    /// The session registry.
    pub(super) fn registry(&self) -> Registry {
        Registry::new(self.indexed.store().private_dir(), self.lock_timeout())
    }

    /// Registers a conversation transcript (seed 004 section 5.1): reads it (malformed lines
    /// skipped and reported in the record), copies it into the registry as the session's
    /// immutable original, and records its tokens, messages, times and keepit markers.
    ///
    /// Registering the same transcript again returns the record unchanged; a changed one
    /// under the same id is a conflict unless `replace` is set.
    ///
    /// ```no_run
    /// use memcore::{Memcore, session::SessionAddRequest};
    ///
    /// let memcore = Memcore::open("/tmp/memories")?;
    /// let session = memcore.session_add(&SessionAddRequest::new("abc123.jsonl"))?;
    /// println!("{} tokens, {} keepit markers", session.original_tokens, session.keepit_markers.len());
    /// # Ok::<(), memcore::Error>(())
    /// ```
    pub fn session_add(&self, request: &SessionAddRequest) -> Result<SessionRecord> {
        let path = Path::new(&request.path);
        let bytes = read_transcript(path)?;
        let text = String::from_utf8(bytes).map_err(|_| {
            Error::validation(
                format!("{} is not UTF-8 text", path.display()),
                "give a JSONL transcript",
            )
        })?;
        let transcript = parse_transcript(&text, request.format)?;
        let session_id = match (&request.session_id, &transcript.session_id) {
            (Some(id), _) | (None, Some(id)) => id.clone(),
            // A file name, folded to lower case (ids are, so that no two differ by case).
            (None, None) => {
                path.file_stem().map(|s| s.to_string_lossy().to_lowercase()).unwrap_or_default()
            }
        };
        check_name("session id", &session_id)?;
        let registry = self.registry();
        let _lock = registry.lock()?;
        let now = self.now();
        let mut manifest = registry.manifest(now)?;
        let sha256 = sha256_hex(text.as_bytes());
        for name in &request.composed_from {
            let composition = manifest.compositions.get_mut(name).ok_or_else(|| {
                Error::not_found(
                    format!("composition {name:?}"),
                    "list compositions with `memcore session list`",
                )
            })?;
            if !composition.used_in_sessions.contains(&session_id) {
                composition.used_in_sessions.push(session_id.clone());
            }
        }
        let existing = manifest.sessions.get(&session_id).cloned();
        if let Some(existing) = existing.as_ref().filter(|e| e.original_sha256 == sha256) {
            // The same transcript again: only the compositions it started from change.
            if !request.composed_from.is_empty() {
                registry.save_manifest(&mut manifest, now)?;
            }
            return self.with_versions(&registry, existing.clone());
        }
        if existing.is_some() && !request.replace {
            return Err(Error::conflict(
                format!("session {session_id} is registered with another transcript"),
                "originals are immutable: pass replace to register the new transcript \
                 (its versions are kept), or give another session id",
            ));
        }
        let counter = request.tokenizer.counter();
        let mut record = session_record(&session_id, path, &transcript, counter, now);
        record.tokenizer = request.tokenizer;
        record.original_file = Registry::original_name(&session_id, &sha256);
        record.original_sha256 = sha256;
        if let Some(existing) = &existing {
            record.last_accessed = existing.last_accessed;
            record.registered_at = existing.registered_at;
            carry_marker_history(&mut record, existing);
        }
        // A new file beside the old original; the old one goes once the manifest has switched.
        registry.write(&record.original_file, text.as_bytes())?;
        let mut versions = match registry.versions(&session_id)? {
            Some(versions) => versions,
            None => VersionsFile {
                session_id: session_id.clone(),
                original_file: String::new(),
                original_tokens: 0,
                original_messages: 0,
                versions: Vec::new(),
                next_version: 1,
            },
        };
        versions.original_file = record.original_file.clone();
        versions.original_tokens = record.original_tokens;
        versions.original_messages = record.original_messages;
        registry.save_versions(&versions)?;
        manifest.sessions.insert(session_id, record.clone());
        registry.save_manifest(&mut manifest, now)?;
        if let Some(old) = existing.filter(|old| old.original_file != record.original_file) {
            registry.remove(Path::new(&old.original_file))?;
        }
        record.compressions = versions.versions;
        Ok(record)
    }

    /// The registered sessions and compositions.
    pub fn session_list(&self) -> Result<SessionListing> {
        let registry = self.registry();
        let manifest = registry.manifest(self.now())?;
        let mut sessions = Vec::with_capacity(manifest.sessions.len());
        for record in manifest.sessions.into_values() {
            sessions.push(SessionSummary::of(&self.with_versions(&registry, record)?));
        }
        Ok(SessionListing { sessions, compositions: manifest.compositions.into_values().collect() })
    }

    /// A registered session, with its versions.
    pub fn session_show(&self, session_id: &str) -> Result<SessionRecord> {
        let registry = self.registry();
        let manifest = registry.manifest(self.now())?;
        let record = manifest
            .sessions
            .get(session_id)
            .cloned()
            .ok_or_else(|| unknown_session(session_id))?;
        self.with_versions(&registry, record)
    }

    /// Deletes versions of a session (seed 004 section 5.5): those named, or all but the
    /// newest `keep_latest`. A version a composition uses is refused (a conflict naming the
    /// compositions) unless `force`, when it is deleted with a warning; the compositions'
    /// own files stay.
    pub fn session_prune(&self, request: &SessionPruneRequest) -> Result<PruneResult> {
        let registry = self.registry();
        let _lock = registry.lock()?;
        let now = self.now();
        let manifest = registry.manifest(now)?;
        if !manifest.sessions.contains_key(&request.session) {
            return Err(unknown_session(&request.session));
        }
        let mut versions = registry
            .versions(&request.session)?
            .ok_or_else(|| missing_versions(&registry, &request.session))?;
        let doomed: Vec<String> = match (request.keep_latest, request.versions.is_empty()) {
            (Some(_), false) | (None, true) => {
                return Err(Error::validation(
                    "say which versions to prune: give versions or keep_latest (one of them)",
                    "e.g. versions: [\"v001\"], or keep_latest: 2",
                ));
            }
            (Some(keep), true) => {
                let count = versions.versions.len().saturating_sub(keep);
                versions.versions.iter().take(count).map(|v| v.version_id.clone()).collect()
            }
            (None, false) => {
                for id in &request.versions {
                    if !versions.versions.iter().any(|v| &v.version_id == id) {
                        return Err(Error::not_found(
                            format!("version {id} of session {}", request.session),
                            "show the session's versions with `memcore session show ID`",
                        ));
                    }
                }
                request.versions.clone()
            }
        };
        let mut warnings = Vec::new();
        for id in &doomed {
            let users = manifest.compositions_using(&request.session, id);
            if users.is_empty() {
                continue;
            }
            let message = format!("version {id} is used by compositions: {}", users.join(", "));
            if !request.force {
                return Err(Error::conflict(
                    message,
                    "pass force to delete it anyway (the compositions' files stay), or keep it",
                ));
            }
            warnings.push(message);
        }
        let (gone, kept): (Vec<_>, Vec<_>) =
            versions.versions.into_iter().partition(|v| doomed.contains(&v.version_id));
        versions.versions = kept;
        registry.save_versions(&versions)?;
        let summaries = Path::new("summaries").join(&request.session);
        for version in &gone {
            for ext in ["md", "jsonl"] {
                registry.remove(&summaries.join(format!("{}.{ext}", version.file)))?;
            }
        }
        Ok(PruneResult {
            deleted: gone.into_iter().map(|v| v.version_id).collect(),
            kept: versions.versions.into_iter().map(|v| v.version_id).collect(),
            warnings,
        })
    }

    /// `record` with its versions from its `versions.json`.
    pub(super) fn with_versions(
        &self,
        registry: &Registry,
        mut record: SessionRecord,
    ) -> Result<SessionRecord> {
        let versions = registry.versions(&record.session_id)?;
        record.compressions =
            versions.ok_or_else(|| missing_versions(registry, &record.session_id))?.versions;
        Ok(record)
    }
}

/// The bytes of the transcript at `path`, refusing what is not a regular file or is too big.
fn read_transcript(path: &Path) -> Result<Vec<u8>> {
    let metadata = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::not_found(
            format!("transcript {}", path.display()),
            "check the path of the session file",
        ),
        _ => Error::io(format!("reading {}", path.display()), e),
    })?;
    if !metadata.is_file() {
        return Err(Error::validation(
            format!("{} is not a file", path.display()),
            "give a JSONL transcript file",
        ));
    }
    if metadata.len() > MAX_TRANSCRIPT_BYTES as u64 {
        return Err(Error::validation(
            format!(
                "{} is {} bytes, more than the {} a transcript may have",
                path.display(),
                metadata.len(),
                MAX_TRANSCRIPT_BYTES
            ),
            "split the transcript, or compress it with another tool first",
        ));
    }
    std::fs::read(path).map_err(|e| Error::io(format!("reading {}", path.display()), e))
}

/// The record of a freshly read transcript.
fn session_record(
    session_id: &str,
    path: &Path,
    transcript: &Transcript,
    counter: &dyn TokenCounter,
    now: crate::Timestamp,
) -> SessionRecord {
    let mut keepit_markers = Vec::new();
    let mut keepit_warnings = Vec::new();
    for message in &transcript.messages {
        if let Err(e) = extract_markers(&message.content) {
            keepit_warnings.push(format!("message {}: {e}", message.uuid));
        }
        let markers = lenient_markers(&message.content).into_iter().enumerate();
        keepit_markers.extend(markers.map(|(n, marker)| SessionKeepit {
            marker_id: format!("{}#{n}", message.uuid),
            message_uuid: message.uuid.clone(),
            weight: marker.weight,
            context: marker_context(&message.content, marker.start, marker.end),
            content: marker.content,
            start: marker.start_char,
            end: marker.end_char,
            created_at: message.timestamp,
            survived_in: Vec::new(),
            summarized_in: Vec::new(),
        }));
    }
    let times = transcript.messages.iter().filter_map(|m| m.timestamp);
    SessionRecord {
        session_id: session_id.to_owned(),
        original_file: String::new(),
        source_file: std::fs::canonicalize(path)
            .unwrap_or_else(|_| path.to_path_buf())
            .display()
            .to_string(),
        original_sha256: String::new(),
        format: transcript.format,
        tokenizer: crate::compose::Tokenizer::default(),
        original_tokens: transcript.messages.iter().map(|m| counter.count(&m.content)).sum(),
        original_messages: transcript.messages.len(),
        skipped_lines: transcript.skipped.clone(),
        skipped_count: transcript.skipped_count,
        first_timestamp: times.clone().min(),
        last_timestamp: times.max(),
        registered_at: now,
        last_accessed: None,
        metadata: transcript.metadata.clone(),
        keepit_markers,
        keepit_warnings,
        compressions: Vec::new(),
    }
}

/// The text around `start..end` of `text`: up to [`MARKER_CONTEXT_CHARS`] characters each side.
fn marker_context(text: &str, start: usize, end: usize) -> String {
    let before =
        text[..start].char_indices().rev().nth(MARKER_CONTEXT_CHARS - 1).map_or(0, |(at, _)| at);
    let after =
        text[end..].char_indices().nth(MARKER_CONTEXT_CHARS).map_or(text.len(), |(at, _)| end + at);
    text[before..after].trim().to_owned()
}

/// Keeps the survival history of the markers `existing` shares with `record` (same message
/// and text) when a session is registered again.
fn carry_marker_history(record: &mut SessionRecord, existing: &SessionRecord) {
    for marker in &mut record.keepit_markers {
        if let Some(old) = existing
            .keepit_markers
            .iter()
            .find(|old| old.message_uuid == marker.message_uuid && old.content == marker.content)
        {
            marker.survived_in.clone_from(&old.survived_in);
            marker.summarized_in.clone_from(&old.summarized_in);
        }
    }
}
