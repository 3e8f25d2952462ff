//! `capture`: the capture engine on a text from a file or standard input.

use memcore::Memcore;
use memcore::capture::{CaptureDecision, CaptureRequest};

use crate::cli::CaptureArgs;
use crate::failure::Failure;
use crate::input;
use crate::output::{Output, serde_name};

/// The largest text `capture` reads: detection is linear, so a long transcript is fine.
const TEXT_LIMIT: u64 = 16 * 1024 * 1024;

/// `capture [FILE|-]`: the decision, each capture, why signals were skipped, what was stored.
pub(super) fn run(memcore: &Memcore, args: CaptureArgs, out: &mut Output) -> Result<(), Failure> {
    let text = input::read_text(&args.file, TEXT_LIMIT, "capture reads")?;
    let mut request = CaptureRequest::new(text).tags(args.tags).check_novelty(!args.no_novelty);
    request.namespace = args.namespace;
    request.summary = args.summary;
    request.created_by = args.created_by;
    request.apply = args.apply;
    request.apply_suggested = args.apply_suggested;
    let decision = memcore.capture(&request)?;
    for warning in &decision.warnings {
        out.warn(warning);
    }
    if out.json() {
        return out.print_json(&decision);
    }
    print(&decision, out)
}

/// The decision as a table of captures, notes for skipped signals, and a summary line.
fn print(decision: &CaptureDecision, out: &mut Output) -> Result<(), Failure> {
    if !decision.captures.is_empty() {
        let rows: Vec<Vec<String>> = decision
            .captures
            .iter()
            .map(|capture| {
                vec![
                    serde_name(&capture.action),
                    capture.namespace.clone(),
                    format!("{:.2}", capture.confidence),
                    format!("{:.2}", capture.novelty.score),
                    capture.summary.clone(),
                ]
            })
            .collect();
        out.table(&["ACTION", "NAMESPACE", "CONFIDENCE", "NOVELTY", "SUMMARY"], &rows)?;
    }
    for skipped in &decision.skipped {
        let signal = &decision.signals[skipped.signal];
        out.note(&format!("skipped \"{}\": {}", signal.matched, skipped.reason));
    }
    for stored in &decision.stored {
        out.confirm(&format!("stored {stored}"))?;
    }
    out.confirm(&format!("{}: {}", serde_name(&decision.action), decision.reason))
}
