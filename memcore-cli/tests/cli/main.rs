//! The `memcore` binary, driven as a person or an agent would: every subcommand on temp
//! stores, stdin, JSON schemas, exit codes, store detection and bad input.
//!
//! Search runs without the embedding model (an empty MEMCORE_MODEL_DIR: text search and a
//! warning) except one test, which needs the real model (`scripts/fetch-models`).

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

mod bad_input;
mod history;
mod maintenance;
mod memories;
mod project;
mod readme;
mod search;
mod support;
mod terminal;
