//! `hook EVENT`: Claude Code lifecycle hooks (seed 002 section 5). Each reads the event's JSON
//! on standard input and writes the seed's output JSON on standard output. A hook never
//! blocks the agent: whatever fails, it prints `{"continue": true}`, says why on standard
//! error, and exits 0.
//!
//! Settings are the seed's environment variables (defaults in brackets): `HOOK_ENABLED`
//! [true] for every hook, `HOOK_<EVENT>_ENABLED` [true] for SESSION_START, USER_PROMPT,
//! POST_TOOL_USE, PRE_COMPACT, STOP; `HOOK_<EVENT>_TIMEOUT` in seconds [`HOOK_TIMEOUT`, 30;
//! POST_TOOL_USE 5, PRE_COMPACT 15], after which the hook answers without its result and
//! exits (a memory file or index write cut short is whole or absent, as after a crash; see
//! ARCHITECTURE.md for the limits of that);
//! `HOOK_SESSION_START_BUDGET_MODE` [adaptive] or `fixed` with
//! `HOOK_SESSION_START_FIXED_BUDGET` [1000]; `HOOK_PRE_COMPACT_AUTO_CAPTURE` [true],
//! `HOOK_PRE_COMPACT_PROMPT_FIRST` [false], `HOOK_PRE_COMPACT_MIN_CONFIDENCE` [0.85],
//! `HOOK_PRE_COMPACT_MAX_CAPTURES` [3].

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use memcore::capture::{CaptureAction, CaptureDecision, CaptureRequest, SuggestedCapture};
use memcore::compose::{BudgetMode, ComposeRequest};
use memcore::session::{TranscriptFormat, parse_transcript};
use memcore::{Memcore, Query};
use serde_json::{Value, json};

use crate::cli::{GlobalArgs, HookCommand, HookEvent, HookInstallArgs};
use crate::failure::Failure;
use crate::output::Output;
use crate::{input, store};

/// The most a hook reads from standard input (a prompt of 10 MB is refused, not read whole).
const STDIN_LIMIT: u64 = 8 * 1024 * 1024;
/// The most a transcript a hook analyses may have.
const TRANSCRIPT_LIMIT: u64 = 64 * 1024 * 1024;
/// Tools after which related memories are offered (seed 5.3).
const FILE_TOOLS: [&str; 4] = ["Read", "Write", "Edit", "MultiEdit"];
/// Path parts that say nothing about a file's domain (seed 5.3).
const UNINFORMATIVE: [&str; 7] = ["src", "lib", "tests", "test", ".", "..", ""];

/// `hook ...`: an event answered, or the settings installed.
pub(super) fn command(
    global: &GlobalArgs,
    command: HookCommand,
    out: &mut Output,
) -> Result<(), Failure> {
    let event = match command {
        HookCommand::SessionStart => HookEvent::SessionStart,
        HookCommand::UserPromptSubmit => HookEvent::UserPromptSubmit,
        HookCommand::PostToolUse => HookEvent::PostToolUse,
        HookCommand::PreCompact => HookEvent::PreCompact,
        HookCommand::Stop => HookEvent::Stop,
        HookCommand::Install(args) => return install(&args, out),
    };
    run(global, event)
}

/// `hook EVENT`: the event's output JSON, or `{"continue": true}` and a reason on stderr,
/// within the event's time limit. The answer is worked out on a thread of its own; when the
/// limit passes first, the process answers and exits without it.
fn run(global: &GlobalArgs, event: HookEvent) -> Result<(), Failure> {
    let limit = time_limit(event);
    let (sender, receiver) = mpsc::channel();
    let worker_global = global.clone();
    let worker = std::thread::Builder::new()
        .name(format!("hook {}", event.name()))
        .spawn(move || sender.send(respond(&worker_global, event)));
    let outcome = match worker {
        Ok(_) => receiver.recv_timeout(limit),
        // No thread to spare: answer without a time limit rather than not at all.
        Err(_) => Ok(respond(global, event)),
    };
    let output = match outcome {
        Ok(Ok(output)) => output,
        Ok(Err(failure)) => go_on(event, &failure.message()),
        Err(mpsc::RecvTimeoutError::Timeout) => go_on(
            event,
            &format!(
                "gave up after {:.1} s (HOOK_{}_TIMEOUT); nothing was lost",
                limit.as_secs_f64(),
                event.variable()
            ),
        ),
        Err(mpsc::RecvTimeoutError::Disconnected) => go_on(event, "the hook stopped unexpectedly"),
    };
    println!("{output}");
    Ok(())
}

/// `{"continue": true}`, saying on stderr why the hook has nothing else to say.
fn go_on(event: HookEvent, why: &str) -> Value {
    eprintln!("memcore hook {}: {why}", event.name());
    json!({"continue": true})
}

/// How long `event` may take: `HOOK_<EVENT>_TIMEOUT` seconds, else the seed's default for it
/// (PostToolUse 5, PreCompact 15), else `HOOK_TIMEOUT` [30]. A value that is not a duration
/// (negative, not a number) counts as not set.
fn time_limit(event: HookEvent) -> Duration {
    let seconds = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|v| Duration::try_from_secs_f64(v.trim().parse().ok()?).ok())
    };
    let default = match event {
        HookEvent::PostToolUse => Duration::from_secs(5),
        HookEvent::PreCompact => Duration::from_secs(15),
        _ => seconds("HOOK_TIMEOUT").unwrap_or(Duration::from_secs(30)),
    };
    seconds(&format!("HOOK_{}_TIMEOUT", event.variable())).unwrap_or(default)
}

/// The event's answer.
fn respond(global: &GlobalArgs, event: HookEvent) -> Result<Value, Failure> {
    if !setting("HOOK_ENABLED", true)
        || !setting(&format!("HOOK_{}_ENABLED", event.variable()), true)
    {
        return Ok(json!({"continue": true}));
    }
    let text = input::read_text(Path::new("-"), STDIN_LIMIT, "a hook reads")?;
    let event_input: Value = serde_json::from_str(&text).map_err(|e| {
        Failure::usage(format!("the event is not JSON: {e}"), "pipe the agent's hook JSON in")
    })?;
    if !event_input.is_object() {
        return Err(Failure::usage(
            "the event is not a JSON object",
            "pipe the agent's hook JSON in",
        ));
    }
    let field = |name: &str| event_input.get(name).and_then(Value::as_str);
    let start = field("cwd").map(PathBuf::from).filter(|dir| dir.is_dir());
    let memcore = store::open_from(global, start)?;
    match event {
        HookEvent::SessionStart => session_start(&memcore, field("cwd")),
        HookEvent::UserPromptSubmit => user_prompt(&memcore, field("prompt")),
        HookEvent::PostToolUse => post_tool_use(&memcore, &event_input),
        HookEvent::PreCompact => pre_compact(&memcore, &event_input),
        HookEvent::Stop => stop(&memcore, field("transcript_path")),
    }
}

/// A boolean or number setting from the environment, else `default`.
fn setting<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok()).unwrap_or(default)
}

/// SessionStart (seed 5.1): the composed `<memory_context>` for the project.
fn session_start(memcore: &Memcore, cwd: Option<&str>) -> Result<Value, Failure> {
    let project =
        cwd.and_then(|cwd| Path::new(cwd).file_name()).map(|n| n.to_string_lossy().into_owned());
    let mut request = ComposeRequest::new(project.unwrap_or_default());
    if std::env::var("HOOK_SESSION_START_BUDGET_MODE").is_ok_and(|mode| mode.trim() == "fixed") {
        request.mode = BudgetMode::Fixed;
        request.budget = Some(setting("HOOK_SESSION_START_FIXED_BUDGET", 1000));
    }
    let context = memcore.compose(&request)?;
    Ok(json!({
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context.text}
    }))
}

/// UserPromptSubmit (seed 5.2): markers or signals; auto captures stored, suggestions offered.
fn user_prompt(memcore: &Memcore, prompt: Option<&str>) -> Result<Value, Failure> {
    let prompt =
        prompt.ok_or_else(|| Failure::usage("the event has no `prompt`", "pass the prompt"))?;
    let mut request = CaptureRequest::new(prompt);
    request.apply = true;
    let decision = memcore.capture(&request)?;
    Ok(match decision.action {
        CaptureAction::Skip => json!({"continue": true}),
        CaptureAction::Suggest => {
            let suggestions: Vec<&SuggestedCapture> = decision.captures.iter().collect();
            json!({
                "continue": true,
                "hookSpecificOutput": {
                    "hookEventName": "UserPromptSubmit",
                    "captureSuggestions": suggestions.iter().map(|c| suggestion(c)).collect::<Vec<_>>(),
                    "additionalContext": tagged("capture_suggestions", &suggestions),
                }
            })
        }
        CaptureAction::Auto => {
            let captured = captured(&decision);
            json!({
                "continue": true,
                "message": format!("Captured {} memory(s) automatically", captured.len()),
                "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "capturedMemories": captured}
            })
        }
    })
}

/// The seed's shape of a suggested capture.
fn suggestion(capture: &SuggestedCapture) -> Value {
    json!({
        "namespace": capture.namespace,
        "summary": capture.summary,
        "content": capture.content,
        "tags": capture.tags,
        "confidence": capture.confidence,
    })
}

/// The stored captures as the seed lists them (the auto ones, in order, with their refs).
fn captured(decision: &CaptureDecision) -> Vec<Value> {
    let auto = decision.captures.iter().filter(|c| c.action == CaptureAction::Auto);
    auto.zip(&decision.stored)
        .map(|(capture, stored)| json!({"success": true, "memory_id": stored, "summary": capture.summary}))
        .collect()
}

/// `<tag>` around one line per capture, for a prompt.
fn tagged(tag: &str, captures: &[&SuggestedCapture]) -> String {
    let lines: Vec<String> = captures
        .iter()
        .map(|c| format!("- [{}] {} (confidence {:.2})", c.namespace, c.summary, c.confidence))
        .collect();
    format!("<{tag}>\n{}\n</{tag}>", lines.join("\n"))
}

/// PostToolUse (seed 5.3): after a file tool, the memories about the file's domain.
fn post_tool_use(memcore: &Memcore, event: &Value) -> Result<Value, Failure> {
    let tool = event.get("tool_name").and_then(Value::as_str).unwrap_or_default();
    let path = event
        .get("tool_input")
        .and_then(|input| input.get("file_path"))
        .or_else(|| event.get("file_path"))
        .and_then(Value::as_str);
    let (true, Some(path)) = (FILE_TOOLS.contains(&tool), path) else {
        return Ok(json!({"continue": true}));
    };
    let results = memcore.search(&Query::new(domain(path)).limit(3))?;
    if results.hits.is_empty() {
        return Ok(json!({"continue": true}));
    }
    let lines: Vec<String> = results
        .hits
        .iter()
        .map(|hit| {
            format!(
                "- {} ({}): {}",
                hit.memory.title,
                hit.memory.reference,
                hit.memory.tags.join(", ")
            )
        })
        .collect();
    Ok(json!({
        "continue": true,
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "additionalContext": format!("<related_memories>\n{}\n</related_memories>", lines.join("\n")),
        }
    }))
}

/// The words of a file path that say what it is about (seed 5.3's `extract_domain`).
fn domain(path: &str) -> String {
    let path = Path::new(path);
    let mut words: Vec<String> = path
        .components()
        .filter_map(|c| c.as_os_str().to_str())
        .filter(|part| !UNINFORMATIVE.contains(part) && *part != "/")
        .map(str::to_owned)
        .collect();
    if let Some(stem) = path.file_stem().and_then(|s| s.to_str())
        && !words.iter().any(|w| w == stem)
    {
        words.push(stem.to_owned());
    }
    words.join(" ")
}

/// PreCompact (seed 5.4): what is worth keeping from the context about to be compacted;
/// captured (confidence at least the minimum, at most the maximum count) or, in prompt-first
/// mode, suggested on stderr.
fn pre_compact(memcore: &Memcore, event: &Value) -> Result<Value, Failure> {
    let text = context_text(event)?;
    let decision = memcore.capture(&CaptureRequest::new(text))?;
    let min_confidence: f64 = setting("HOOK_PRE_COMPACT_MIN_CONFIDENCE", 0.85);
    let max_captures: usize = setting("HOOK_PRE_COMPACT_MAX_CAPTURES", 3);
    let chosen: Vec<&SuggestedCapture> = decision
        .captures
        .iter()
        .filter(|c| c.confidence >= min_confidence)
        .take(max_captures)
        .collect();
    if setting("HOOK_PRE_COMPACT_PROMPT_FIRST", false) {
        for capture in &chosen {
            eprintln!("[memory] Would capture: {}", capture.summary);
        }
        return Ok(json!({
            "continue": true,
            "hookSpecificOutput": {
                "suggestions": chosen.iter().map(|c| suggestion(c)).collect::<Vec<_>>(),
                "message": "Use /capture to manually capture these memories",
            }
        }));
    }
    if !setting("HOOK_PRE_COMPACT_AUTO_CAPTURE", true) || chosen.is_empty() {
        return Ok(json!({"continue": true}));
    }
    let mut captured = Vec::new();
    for capture in chosen {
        // Each as an explicit capture of its own text: stored unless it repeats a memory.
        let mut request = CaptureRequest::new(capture.content.clone());
        request.namespace = Some(capture.namespace.clone());
        request.summary = Some(capture.summary.clone());
        request.tags.clone_from(&capture.tags);
        request.apply = true;
        let stored = memcore.capture(&request)?;
        captured.extend(
            stored
                .stored
                .iter()
                .map(|r| json!({"success": true, "memory_id": r, "summary": capture.summary})),
        );
    }
    Ok(json!({
        "continue": true,
        "message": format!("Captured {} memory(s) before compaction", captured.len()),
        "hookSpecificOutput": {"hookEventName": "PreCompact", "capturedMemories": captured}
    }))
}

/// The text a PreCompact event carries: its excerpt and summary, else its transcript.
fn context_text(event: &Value) -> Result<String, Failure> {
    let given: Vec<&str> = ["transcript_excerpt", "context_summary"]
        .iter()
        .filter_map(|name| event.get(*name).and_then(Value::as_str))
        .collect();
    if !given.is_empty() {
        return Ok(given.join("\n\n"));
    }
    match event.get("transcript_path").and_then(Value::as_str) {
        Some(path) => transcript_text(Path::new(path)),
        None => Ok(String::new()),
    }
}

/// The messages of the transcript at `path`, one paragraph each.
fn transcript_text(path: &Path) -> Result<String, Failure> {
    let text = input::read_text(path, TRANSCRIPT_LIMIT, "a hook analyses")?;
    let transcript = parse_transcript(&text, TranscriptFormat::Auto)?;
    Ok(transcript.messages.iter().map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n\n"))
}

/// Stop (seed 5.5): what the session said that was not captured, and an index sync.
fn stop(memcore: &Memcore, transcript: Option<&str>) -> Result<Value, Failure> {
    let uncaptured: Vec<Value> = match transcript.map(Path::new).filter(|p| p.is_file()) {
        Some(path) => {
            let decision = memcore.capture(&CaptureRequest::new(transcript_text(path)?))?;
            decision
                .captures
                .iter()
                .filter(|c| c.confidence >= 0.7)
                .take(5)
                .map(|c| {
                    let signal = &decision.signals[c.signal];
                    json!({
                        "type": signal.kind,
                        "match": signal.matched,
                        "confidence": c.confidence,
                        "context": signal.context,
                        "suggestedNamespace": c.namespace,
                    })
                })
                .collect()
        }
        None => Vec::new(),
    };
    let synced = memcore.sync()?;
    let mut message = format!("Index synced: {} memories indexed", synced.synced);
    let mut output = json!({
        "continue": true,
        "hookSpecificOutput": {"hookEventName": "Stop", "syncStats": {"indexed": synced.synced}}
    });
    if !uncaptured.is_empty() {
        message = format!(
            "Found {} potentially uncaptured memory(s) from this session. Consider using \
             /remember to capture them.\n{message}",
            uncaptured.len()
        );
        let lines: Vec<String> = uncaptured
            .iter()
            .map(|u| {
                format!(
                    "- [{}] {}",
                    u["suggestedNamespace"].as_str().unwrap_or(""),
                    u["context"].as_str().unwrap_or("")
                )
            })
            .collect();
        output["hookSpecificOutput"]["uncapturedContent"] = Value::Array(uncaptured);
        output["hookSpecificOutput"]["additionalContext"] = Value::String(format!(
            "<uncaptured_memories>\n{}\n</uncaptured_memories>",
            lines.join("\n")
        ));
    }
    output["message"] = Value::String(message);
    Ok(output)
}

/// `hook install`: Claude Code's hook settings for every event (PostToolUse only for the
/// file tools), printed, or merged into `--settings FILE` (an entry already running the same
/// command is left as it is; everything else in the file is kept).
fn install(args: &HookInstallArgs, out: &mut Output) -> Result<(), Failure> {
    let program = match &args.command {
        Some(command) => command.clone(),
        None => std::env::current_exe()
            .map(|exe| exe.display().to_string())
            .unwrap_or_else(|_| "memcore".to_owned()),
    };
    let Some(path) = &args.settings else {
        let mut settings = json!({});
        merge_hooks(&mut settings, &program)?;
        return out.print_json(&settings);
    };
    let mut settings: Value = match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => json!({}),
        Ok(text) => serde_json::from_str(&text).map_err(|e| {
            Failure::usage(
                format!("{} is not JSON: {e}", path.display()),
                "fix the file, or give another",
            )
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({}),
        Err(e) => return Err(Failure::unreadable(path, &e)),
    };
    let added = merge_hooks(&mut settings, &program)?;
    let text = serde_json::to_string_pretty(&settings).map_err(|e| {
        Failure::usage(format!("the settings could not be written: {e}"), "report this")
    })? + "\n";
    let temp = path.with_extension("json.memcore-tmp");
    std::fs::write(&temp, text)
        .and_then(|()| std::fs::rename(&temp, path))
        .map_err(|e| memcore::Error::io(format!("writing {}", path.display()), e))?;
    out.confirm(&format!("{} hook(s) added to {}", added, path.display()))
}

/// Adds memcore's hook for every event to Claude Code `settings` (an object), with Claude
/// Code's own time limit a little above the hook's so the hook answers first (an entry
/// already there gets the limit refreshed); returns how many were added.
fn merge_hooks(settings: &mut Value, program: &str) -> Result<usize, Failure> {
    let not_object =
        || Failure::usage("the settings' `hooks` is not an object", "fix the settings file");
    let root = settings.as_object_mut().ok_or_else(not_object)?;
    let hooks =
        root.entry("hooks").or_insert_with(|| json!({})).as_object_mut().ok_or_else(not_object)?;
    let mut added = 0;
    for event in HookEvent::ALL {
        let command = format!("{program} hook {}", event.name());
        let timeout = time_limit(event).as_secs() + 5;
        let entries = hooks.entry(event.claude_name()).or_insert_with(|| json!([]));
        let Some(entries) = entries.as_array_mut() else { return Err(not_object()) };
        let mut present = false;
        let ours = entries
            .iter_mut()
            .filter_map(|entry| entry.get_mut("hooks").and_then(Value::as_array_mut))
            .flatten()
            .filter_map(Value::as_object_mut)
            .filter(|hook| hook.get("command").and_then(Value::as_str) == Some(command.as_str()));
        for hook in ours {
            hook.insert("timeout".to_owned(), json!(timeout));
            present = true;
        }
        if present {
            continue;
        }
        let mut entry =
            json!({"hooks": [{"type": "command", "command": command, "timeout": timeout}]});
        if event == HookEvent::PostToolUse {
            entry["matcher"] = json!(FILE_TOOLS.join("|"));
        }
        entries.push(entry);
        added += 1;
    }
    Ok(added)
}
