//! `docs ingest | list | search | purge | rebuild | feedback`.

use std::path::Path;

use memcore::Memcore;
use memcore::docs::{
    DocsFeedbackRequest, DocsIngestRequest, DocsListRequest, DocsPurgeRequest, DocsRebuildRequest,
    DocsSearchRequest, IngestReport,
};

use crate::cli::DocsCommand;
use crate::failure::Failure;
use crate::output::{Output, serde_name};
use crate::store::working_dir;

/// Runs a `docs` subcommand.
pub(super) fn run(
    memcore: &Memcore,
    command: DocsCommand,
    out: &mut Output,
) -> Result<(), Failure> {
    match command {
        DocsCommand::Ingest(args) => {
            let cwd = working_dir()?;
            let paths =
                args.paths.iter().map(|p| text_of(&cwd.join(p))).collect::<Result<_, _>>()?;
            let mut request = DocsIngestRequest::new(Vec::<String>::new()).tags(args.tags);
            request.paths = paths;
            request.root = args.root.map(|root| text_of(&cwd.join(root))).transpose()?;
            request.chunk_size = args.chunk_size;
            request.overlap = args.overlap;
            request.max_bytes = args.max_bytes;
            report(&memcore.docs_ingest(&request)?, out)
        }
        DocsCommand::List(args) => {
            let mut request = DocsListRequest::default();
            request.tags = args.tags;
            let listing = memcore.docs_list(&request)?;
            if out.json() {
                return out.print_json(&listing);
            }
            if listing.documents.is_empty() {
                out.note("no documents (`memcore docs ingest FILE...` adds some)");
                return Ok(());
            }
            let rows: Vec<Vec<String>> = listing
                .documents
                .iter()
                .map(|d| {
                    vec![
                        d.id.clone(),
                        d.chunks.len().to_string(),
                        d.tags.join(","),
                        d.source.clone(),
                    ]
                })
                .collect();
            out.table(&["DOCUMENT", "CHUNKS", "TAGS", "SOURCE"], &rows)
        }
        DocsCommand::Search(args) => {
            let mut request = DocsSearchRequest::new(args.query).mode(args.mode).limit(args.limit);
            request.documents = args.documents;
            request.tags = args.tags;
            request.feedback_prior = args.feedback_prior;
            let found = memcore.docs_search(&request)?;
            for warning in &found.warnings {
                out.warn(warning);
            }
            if out.json() {
                return out.print_json(&found);
            }
            if found.hits.is_empty() {
                out.note("no matches");
                return Ok(());
            }
            for (n, hit) in found.hits.iter().enumerate() {
                let mut place = hit.document.clone();
                for heading in &hit.heading_path {
                    place.push_str(" › ");
                    place.push_str(heading);
                }
                out.line(&format!(
                    "{}. {place}  [chunk {} of {}, {:.3}]",
                    n + 1,
                    hit.position + 1,
                    hit.chunks,
                    hit.score
                ))?;
                let excerpt: String = hit.text.split_whitespace().collect::<Vec<_>>().join(" ");
                let excerpt: String = excerpt.chars().take(200).collect();
                out.line(&format!("   {excerpt}"))?;
            }
            Ok(())
        }
        DocsCommand::Purge(args) => {
            let purged = memcore.docs_purge(&DocsPurgeRequest::new(args.document))?;
            if out.json() {
                return out.print_json(&purged);
            }
            out.confirm(&format!(
                "purged document {}: {} chunks, {} ratings, {} copies",
                purged.document, purged.chunks, purged.feedback, purged.copies
            ))
        }
        DocsCommand::Rebuild(args) => {
            let mut request = DocsRebuildRequest::default();
            request.documents = args.documents;
            request.chunk_size = args.chunk_size;
            request.overlap = args.overlap;
            report(&memcore.docs_rebuild(&request)?, out)
        }
        DocsCommand::Feedback(args) => {
            let mut request = DocsFeedbackRequest::new(args.document, args.rating);
            request.chunk = args.chunk;
            request.note = args.note;
            request.by = args.by;
            let record = memcore.docs_feedback(&request)?;
            if out.json() {
                return out.print_json(&record);
            }
            out.confirm(&format!(
                "rated {} {} of 5 ({})",
                record.document, record.rating, record.reference
            ))
        }
    }
}

/// Prints what an ingest or a rebuild did.
fn report(report: &IngestReport, out: &mut Output) -> Result<(), Failure> {
    if out.json() {
        return out.print_json(report);
    }
    let rows: Vec<Vec<String>> = report
        .documents
        .iter()
        .map(|d| {
            vec![
                serde_name(&d.outcome),
                d.document.id.clone(),
                d.document.chunks.len().to_string(),
                d.document.source.clone(),
            ]
        })
        .collect();
    if rows.is_empty() {
        out.note("no documents");
        return Ok(());
    }
    out.table(&["OUTCOME", "DOCUMENT", "CHUNKS", "SOURCE"], &rows)
}

/// A path as the request records take it, or a validation error for one that is not UTF-8.
fn text_of(path: &Path) -> Result<String, Failure> {
    path.to_str().map(str::to_owned).ok_or_else(|| {
        memcore::Error::validation(
            format!("the path {} is not UTF-8", path.display()),
            "rename the file with a UTF-8 name",
        )
        .into()
    })
}
