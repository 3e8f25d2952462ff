//! Compression versions and multi-session composition on a store (seed 004 sections 4.3-4.4
//! and 5.2-5.3). Everything is computed first and written last, under the registry's lock:
//! a summariser that fails leaves the registry as it was.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::Memcore;
use crate::session::registry::{Registry, check_name, missing_versions, unknown_session};
use crate::session::{
    ComponentRequest, CompositionComponent, CompositionOutput, CompositionRecord, Compressed,
    CompressionRecord, CompressionSettings, ExtractiveSummarizer, Manifest, MarkerKey,
    Recompression, Selection, SelectionCriteria, SessionComposeRequest, SessionCompressRequest,
    SessionKeepit, SessionRecord, Summarizer, SummarizerChoice, SummaryMessage, TranscriptMessage,
    VersionsFile, compress, parse_transcript, render_jsonl, render_markdown, select_best_version,
};
use crate::{Error, Result, Timestamp};

/// The most components a composition may have.
const MAX_COMPONENTS: usize = 100;

/// A version computed but not yet written.
struct PendingVersion {
    session_id: String,
    compressed: Compressed,
    settings: CompressionSettings,
    source_version: Option<String>,
    tokenizer: String,
}

impl Memcore {
    /// Compresses a session into a new version (seed 004 section 5.2): from its original or
    /// (`from_version`) a version, with the settings' tiers and keepit decay, through the
    /// chosen summariser. The version's files (`vNNN_{mode}-{preset}_{N}k.md` and `.jsonl`)
    /// and record are written only once the summary is made; a failing summariser writes
    /// nothing.
    pub fn session_compress(&self, request: &SessionCompressRequest) -> Result<CompressionRecord> {
        self.session_compress_with(request, self.choose_summarizer(request.summarizer)?)
    }

    /// [`Memcore::session_compress`] with `summarizer`, whatever the request's `summarizer`
    /// says (a summariser for this call only, such as a Python callable passed to it).
    pub fn session_compress_with(
        &self,
        request: &SessionCompressRequest,
        summarizer: Arc<dyn Summarizer>,
    ) -> Result<CompressionRecord> {
        let registry = self.registry();
        let session = self.session_show(&request.session)?;
        let pending = self.compress_session(
            &registry,
            &session,
            &request.settings,
            request.from_version.as_deref(),
            summarizer.as_ref(),
        )?;
        let _lock = registry.lock()?;
        let now = self.now();
        let mut manifest = registry.manifest(now)?;
        if !manifest.sessions.contains_key(&request.session) {
            return Err(unknown_session(&request.session));
        }
        let mut writes = VersionWrites::new(&registry);
        let record = writes.add(&mut manifest, pending, now)?;
        writes.save()?;
        registry.save_manifest(&mut manifest, now)?;
        Ok(record)
    }

    /// Composes several sessions into one context (seed 004 section 4.4): each component
    /// gets `budget / components` tokens and uses the version named, a recompression, or the
    /// version [`select_best_version`] picks, compressing on demand (uniform, moderate, ratio
    /// `ceil(tokens / budget)`, session distance = its place from 1) when none will do. The
    /// output is written to `composed/<name>/` (`composed.md`, `composed.jsonl`,
    /// `composition.json`) with any new versions; the sessions' `last_accessed` is updated.
    pub fn session_compose(&self, request: &SessionComposeRequest) -> Result<CompositionRecord> {
        self.session_compose_with(request, self.choose_summarizer(request.summarizer)?)
    }

    /// [`Memcore::session_compose`] with `summarizer` for what it compresses, whatever the
    /// request's `summarizer` says.
    pub fn session_compose_with(
        &self,
        request: &SessionComposeRequest,
        summarizer: Arc<dyn Summarizer>,
    ) -> Result<CompositionRecord> {
        check_name("composition name", &request.name)?;
        if request.components.is_empty() || request.components.len() > MAX_COMPONENTS {
            return Err(Error::validation(
                format!(
                    "a composition needs 1 to {MAX_COMPONENTS} components, not {}",
                    request.components.len()
                ),
                "name the sessions to compose, newest first",
            ));
        }
        if request.budget < request.components.len() {
            return Err(Error::validation(
                format!(
                    "a budget of {} tokens cannot be split among {} sessions",
                    request.budget,
                    request.components.len()
                ),
                "give a budget of at least a few hundred tokens per session",
            ));
        }
        let registry = self.registry();
        let manifest = registry.manifest(self.now())?;
        if manifest.compositions.contains_key(&request.name) && !request.replace {
            return Err(name_taken(&request.name));
        }
        let per_component = request.budget / request.components.len();
        let mut planned = Vec::with_capacity(request.components.len());
        for (order, component) in request.components.iter().enumerate() {
            let session = manifest
                .sessions
                .get(&component.session)
                .cloned()
                .ok_or_else(|| unknown_session(&component.session))?;
            let session = self.with_versions(&registry, session)?;
            planned.push(self.plan_component(
                &registry,
                &session,
                component,
                order,
                per_component,
                summarizer.as_ref(),
            )?);
        }
        let _lock = registry.lock()?;
        let now = self.now();
        let mut manifest = registry.manifest(now)?;
        if manifest.compositions.contains_key(&request.name) && !request.replace {
            return Err(name_taken(&request.name));
        }
        let mut writes = VersionWrites::new(&registry);
        let mut components = Vec::with_capacity(planned.len());
        let mut parts = Vec::with_capacity(planned.len());
        for plan in planned {
            let mut component = plan.component;
            let messages = match plan.pending {
                Some(pending) => {
                    let messages = pending.compressed.messages.clone();
                    let record = writes.add(&mut manifest, pending, now)?;
                    component.version_id = record.version_id;
                    messages
                }
                None => {
                    // A version chosen before the lock must still be there (a prune may
                    // have run meanwhile).
                    let versions = writes.versions(&component.session_id)?;
                    let id = &component.version_id;
                    if id != "original" && !versions.versions.iter().any(|v| &v.version_id == id) {
                        return Err(Error::conflict(
                            format!(
                                "version {id} of session {} was pruned while composing",
                                component.session_id
                            ),
                            "compose again",
                        ));
                    }
                    plan.messages
                }
            };
            if let Some(session) = manifest.sessions.get_mut(&component.session_id) {
                session.last_accessed = Some(now);
            }
            parts.push((component.session_id.clone(), component.version_id.clone(), messages));
            components.push(component);
        }
        let record = write_composition(&registry, &mut manifest, request, components, &parts, now)?;
        writes.save()?;
        registry.save_manifest(&mut manifest, now)?;
        Ok(record)
    }

    /// The summariser a request chooses.
    fn choose_summarizer(&self, choice: SummarizerChoice) -> Result<Arc<dyn Summarizer>> {
        let set = self.summarizer.read().clone();
        match (choice, set) {
            (SummarizerChoice::Extractive, _) => Ok(Arc::new(ExtractiveSummarizer)),
            // Asked for, a summary is made even in the manifest's mode `none`.
            (SummarizerChoice::Auto, _) => {
                Ok(self.automatic_summarizer().unwrap_or_else(|| Arc::new(ExtractiveSummarizer)))
            }
            (SummarizerChoice::Callback, Some(summarizer)) => Ok(summarizer),
            (SummarizerChoice::Callback, None) => Err(Error::validation(
                "the callback summariser was asked for, but none is set on this handle",
                "set one first (set_summarizer in Rust and Python, memcore_set_summarizer in C), \
                 or use extractive",
            )),
        }
    }

    /// A new version of `session`, computed but not written.
    fn compress_session(
        &self,
        registry: &Registry,
        session: &SessionRecord,
        settings: &CompressionSettings,
        from_version: Option<&str>,
        summarizer: &dyn Summarizer,
    ) -> Result<PendingVersion> {
        let messages = match from_version {
            None | Some("original") => {
                let text = registry.original(session)?;
                parse_transcript(&text, session.format)?.messages
            }
            Some(version_id) => version_messages(registry, session, version_id)?
                .into_iter()
                .enumerate()
                .map(|(n, mut message)| {
                    // A summary of its own (a callback's) has no source: name it uniquely.
                    message.source_uuid.get_or_insert_with(|| format!("{version_id}-{n}"));
                    TranscriptMessage::from(message)
                })
                .collect(),
        };
        let counter = session.tokenizer.counter();
        let mut settings = settings.clone();
        settings.model = summarizer.name().to_owned();
        let compressed = compress(&messages, &settings, summarizer, counter)?;
        Ok(PendingVersion {
            session_id: session.session_id.clone(),
            compressed,
            settings,
            source_version: from_version.filter(|v| *v != "original").map(str::to_owned),
            tokenizer: counter.name().to_owned(),
        })
    }

    /// How one component of a composition is made.
    fn plan_component(
        &self,
        registry: &Registry,
        session: &SessionRecord,
        request: &ComponentRequest,
        order: usize,
        budget: usize,
        summarizer: &dyn Summarizer,
    ) -> Result<PlannedComponent> {
        let mut component = CompositionComponent {
            session_id: session.session_id.clone(),
            version_id: String::new(),
            order,
            token_contribution: 0,
            token_budget: budget,
            selection: String::new(),
            score: None,
            recompress: None,
        };
        let new_version = |settings: &CompressionSettings,
                           component: &mut CompositionComponent,
                           selection: &str| {
            let pending = self.compress_session(registry, session, settings, None, summarizer)?;
            if let Some(recompress) = &mut component.recompress {
                // As made: with the summariser's name.
                recompress.settings = pending.settings.clone();
            }
            component.token_contribution = pending.compressed.output_tokens;
            component.selection = selection.to_owned();
            Ok::<_, Error>(PlannedComponent {
                component: component.clone(),
                messages: Vec::new(),
                pending: Some(pending),
            })
        };
        if let Some(version) = request.version.as_deref().filter(|v| *v != "auto") {
            component.version_id = version.to_owned();
            component.selection = "explicit".to_owned();
            component.token_contribution = version_tokens(session, version)?;
            let messages = version_messages(registry, session, version)?;
            return Ok(PlannedComponent { component, messages, pending: None });
        }
        if let Some(settings) = &request.recompress {
            component.recompress = Some(Recompression {
                settings: settings.clone(),
                reason: "asked for in the composition request".to_owned(),
            });
            return new_version(settings, &mut component, "recompressed");
        }
        let criteria = SelectionCriteria {
            max_tokens: Some(budget),
            preserve_keepits: true,
            ..SelectionCriteria::default()
        };
        match select_best_version(session, &criteria) {
            Selection::Original => {
                component.version_id = "original".to_owned();
                component.selection = "original".to_owned();
                component.token_contribution = session.original_tokens;
                let messages = version_messages(registry, session, "original")?;
                Ok(PlannedComponent { component, messages, pending: None })
            }
            Selection::Version(version, score) => {
                component.version_id = version.version_id.clone();
                component.selection = "selected".to_owned();
                component.score = Some(score);
                component.token_contribution = version.output_tokens;
                let messages = version_messages(registry, session, &version.version_id)?;
                Ok(PlannedComponent { component, messages, pending: None })
            }
            Selection::NeedNewCompression => {
                let ratio = (session.original_tokens as f64 / budget.max(1) as f64).ceil().max(1.0);
                let mut settings = CompressionSettings::uniform(ratio);
                settings.aggressiveness = Some(crate::decay::Aggressiveness::Moderate);
                settings.session_distance = Some(u32::try_from(order + 1).unwrap_or(u32::MAX));
                component.recompress = Some(Recompression {
                    settings: settings.clone(),
                    reason: "no version fits the component's budget".to_owned(),
                });
                new_version(&settings, &mut component, "compressed-on-demand")
            }
        }
    }
}

/// A component with its messages, or the version still to be written that holds them.
struct PlannedComponent {
    component: CompositionComponent,
    messages: Vec<SummaryMessage>,
    pending: Option<PendingVersion>,
}

/// The error for a composition name in use.
fn name_taken(name: &str) -> Error {
    Error::conflict(
        format!("a composition named {name} exists"),
        "choose another name, or pass replace",
    )
}

/// The tokens of `version_id` of `session` (`original` for the transcript).
fn version_tokens(session: &SessionRecord, version_id: &str) -> Result<usize> {
    if version_id == "original" {
        return Ok(session.original_tokens);
    }
    find_version(session, version_id).map(|v| v.output_tokens)
}

/// The record of `version_id`, or a not-found error.
pub(super) fn find_version<'s>(
    session: &'s SessionRecord,
    version_id: &str,
) -> Result<&'s CompressionRecord> {
    session.compressions.iter().find(|v| v.version_id == version_id).ok_or_else(|| {
        Error::not_found(
            format!("version {version_id} of session {}", session.session_id),
            "show the session's versions with `memcore session show ID`",
        )
    })
}

/// The messages of `version_id` of `session` (`original`: the transcript's).
fn version_messages(
    registry: &Registry,
    session: &SessionRecord,
    version_id: &str,
) -> Result<Vec<SummaryMessage>> {
    if version_id == "original" {
        let text = registry.original(session)?;
        let transcript = parse_transcript(&text, session.format)?;
        return Ok(transcript
            .messages
            .into_iter()
            .map(|m| SummaryMessage { role: m.role, content: m.content, source_uuid: Some(m.uuid) })
            .collect());
    }
    let version = find_version(session, version_id)?;
    let relative = format!("summaries/{}/{}.jsonl", session.session_id, version.file);
    let text = registry.read(&relative, None)?;
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            serde_json::from_str::<SummaryMessage>(line).map_err(|e| {
                Error::corrupted(
                    registry.dir().join(&relative),
                    Some(e.line()),
                    e.to_string(),
                    "prune the version and compress again",
                )
            })
        })
        .collect()
}

/// The versions written by one operation: their files at once, their `versions.json`
/// records together at the end ([`VersionWrites::save`]), so that a failure part-way leaves
/// only files no record names.
struct VersionWrites<'r> {
    registry: &'r Registry,
    files: BTreeMap<String, VersionsFile>,
}

impl<'r> VersionWrites<'r> {
    fn new(registry: &'r Registry) -> Self {
        Self { registry, files: BTreeMap::new() }
    }

    /// A session's versions as this operation has them so far.
    fn versions(&mut self, session_id: &str) -> Result<&mut VersionsFile> {
        if !self.files.contains_key(session_id) {
            let file = self
                .registry
                .versions(session_id)?
                .ok_or_else(|| missing_versions(self.registry, session_id))?;
            self.files.insert(session_id.to_owned(), file);
        }
        self.files.get_mut(session_id).ok_or_else(|| unknown_session(session_id))
    }

    /// Writes a computed version's files, numbering it after every version the session ever
    /// had (a pruned number is never reused), and notes its keepit outcomes in the
    /// manifest's session.
    fn add(
        &mut self,
        manifest: &mut Manifest,
        pending: PendingVersion,
        now: Timestamp,
    ) -> Result<CompressionRecord> {
        let registry = self.registry;
        let session_id = pending.session_id.clone();
        let versions = self.versions(&session_id)?;
        let highest = versions
            .versions
            .iter()
            .filter_map(|v| v.version_id.strip_prefix('v')?.parse::<u32>().ok())
            .max();
        let number = versions.next_version.max(highest.map_or(1, |h| h + 1));
        versions.next_version = number + 1;
        let version_id = format!("v{number:03}");
        let compressed = pending.compressed;
        let thousands = ((compressed.output_tokens as f64 / 1000.0).round() as usize).max(1);
        let (mode, preset) = (pending.settings.mode_name(), pending.settings.preset_name());
        let file = format!("{version_id}_{mode}-{preset}_{thousands}k");
        let heading = format!(
            "Session {session_id}, {version_id}: {mode}-{preset}, {} tokens ({}:1)",
            compressed.output_tokens,
            compressed.ratio()
        );
        let dir = format!("summaries/{session_id}");
        registry.write(
            &format!("{dir}/{file}.md"),
            render_markdown(&heading, &compressed.messages).as_bytes(),
        )?;
        registry.write(
            &format!("{dir}/{file}.jsonl"),
            render_jsonl(&compressed.messages)?.as_bytes(),
        )?;
        let record = CompressionRecord {
            version_id: version_id.clone(),
            file,
            created_at: now,
            settings: pending.settings,
            output_tokens: compressed.output_tokens,
            output_messages: compressed.messages.len(),
            compression_ratio: compressed.ratio(),
            keepit_stats: compressed.keepit_stats.clone(),
            source_version: pending.source_version,
            tokenizer: pending.tokenizer,
        };
        versions.versions.push(record.clone());
        if let Some(session) = manifest.sessions.get_mut(&session_id) {
            let is = |keys: &[MarkerKey], marker: &SessionKeepit| {
                keys.iter()
                    .any(|k| k.message_uuid == marker.message_uuid && k.content == marker.content)
            };
            for marker in &mut session.keepit_markers {
                if is(&compressed.survived, marker) {
                    marker.survived_in.push(version_id.clone());
                } else if is(&compressed.summarized, marker) {
                    marker.summarized_in.push(version_id.clone());
                }
            }
        }
        Ok(record)
    }

    /// Saves every changed `versions.json`.
    fn save(self) -> Result<()> {
        self.files.values().try_for_each(|file| self.registry.save_versions(file))
    }
}

/// Writes a composition's files and records it in the manifest.
fn write_composition(
    registry: &Registry,
    manifest: &mut Manifest,
    request: &SessionComposeRequest,
    components: Vec<CompositionComponent>,
    parts: &[(String, String, Vec<SummaryMessage>)],
    now: Timestamp,
) -> Result<CompositionRecord> {
    let dir = format!("composed/{}", request.name);
    let mut markdown = format!("# Composed context: {}\n\n", request.name);
    let mut jsonl = String::new();
    let mut total_messages = 0;
    for (session_id, version_id, messages) in parts {
        markdown.push_str(
            &render_markdown(&format!("Session {session_id} ({version_id})"), messages)
                .replacen("# ", "## ", 1),
        );
        for message in messages {
            let line = serde_json::json!({
                "session_id": session_id, "version_id": version_id,
                "role": message.role, "content": message.content,
            });
            jsonl.push_str(&line.to_string());
            jsonl.push('\n');
        }
        total_messages += messages.len();
    }
    if request.output != CompositionOutput::Jsonl {
        registry.write(&format!("{dir}/composed.md"), markdown.as_bytes())?;
    }
    if request.output != CompositionOutput::Markdown {
        registry.write(&format!("{dir}/composed.jsonl"), jsonl.as_bytes())?;
    }
    let total_tokens = components.iter().map(|c| c.token_contribution).sum();
    let warnings = components
        .iter()
        .filter(|c| c.token_contribution > c.token_budget)
        .map(|c| {
            format!(
                "session {} ({}) takes {} tokens, over its budget of {}",
                c.session_id, c.version_id, c.token_contribution, c.token_budget
            )
        })
        .collect();
    let output_file = match request.output {
        CompositionOutput::Jsonl => format!("{dir}/composed.jsonl"),
        _ => format!("{dir}/composed.md"),
    };
    let used_in_sessions = manifest
        .compositions
        .get(&request.name)
        .map(|c| c.used_in_sessions.clone())
        .unwrap_or_default();
    let record = CompositionRecord {
        composition_id: format!("{}-{}", now.format("%Y%m%dT%H%M%S%.6fZ"), request.name),
        name: request.name.clone(),
        created_at: now,
        token_budget: request.budget,
        components,
        output_file,
        total_tokens,
        total_messages,
        used_in_sessions,
        warnings,
    };
    let bytes = serde_json::to_vec_pretty(&record).map_err(|e| {
        Error::validation(format!("the composition could not be written: {e}"), "report this")
    })?;
    registry.write(&format!("{dir}/composition.json"), &bytes)?;
    manifest.compositions.insert(request.name.clone(), record.clone());
    Ok(record)
}
