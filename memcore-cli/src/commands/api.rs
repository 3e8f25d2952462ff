//! `call` and `operations`: every library operation by name, on request records as JSON.

use std::path::Path;

use memcore::Memcore;
use memcore::api::{OPERATIONS, operation};
use serde_json::{Value, json};

use crate::cli::{CallArgs, OperationsArgs};
use crate::failure::Failure;
use crate::input;
use crate::output::Output;

/// The largest request `call` reads from standard input: 256 MiB (a batch of thousands of
/// memories at the default content limit).
const MAX_REQUEST_BYTES: u64 = 256 * 1024 * 1024;

/// The request record of `call`: its JSON argument, standard input for `-`, else `{}`. The
/// operation's name is checked first, so a typo opens no store.
pub(super) fn request(args: &CallArgs) -> Result<Value, Failure> {
    operation(&args.operation)?;
    let text = match args.request.as_deref() {
        None => return Ok(json!({})),
        Some("-") => input::read_text(Path::new("-"), MAX_REQUEST_BYTES, "a request may have")?,
        Some(text) => text.to_owned(),
    };
    serde_json::from_str(&text).map_err(|err| {
        Failure::usage(
            format!("the request is not JSON: {err}"),
            format!(
                "give the `{}` request as one JSON object; `memcore operations {}` prints its \
                 schema",
                args.operation, args.operation
            ),
        )
    })
}

/// `call OPERATION [REQUEST]`: runs it and prints the result record as JSON.
pub(super) fn call(
    memcore: &Memcore,
    name: &str,
    request: Value,
    out: &mut Output,
) -> Result<(), Failure> {
    let result = memcore.call(name, request)?;
    out.print_json(&result)
}

/// `operations [OPERATION]`: a table of names and summaries (a JSON list with `--json`), or
/// one operation's schemas.
pub(super) fn operations(args: &OperationsArgs, out: &mut Output) -> Result<(), Failure> {
    if let Some(name) = &args.operation {
        return out.print_json(&operation(name)?.describe());
    }
    if out.json() {
        let list: Vec<Value> = OPERATIONS
            .iter()
            .map(|entry| json!({ "name": entry.name, "summary": entry.summary }))
            .collect();
        return out.print_json(&json!({ "operations": list }));
    }
    let rows: Vec<Vec<String>> = OPERATIONS
        .iter()
        .map(|entry| vec![entry.name.to_owned(), entry.summary.to_owned()])
        .collect();
    out.table(&["OPERATION", "WHAT IT DOES"], &rows)
}
