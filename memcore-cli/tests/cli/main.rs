//! The `memcore` binary, driven as a person or an agent would: every subcommand on temp
//! stores, stdin, JSON schemas, exit codes, store detection and bad input.
//!
//! Git repositories are made with libgit2 (`gitrepo`), so no `git` binary is needed.
//!
//! Search runs without the embedding model (an empty MEMCORE_MODEL_DIR: text search and a
//! warning) except one test, which needs the real model (`scripts/fetch-models`).

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

mod agents;
mod bad_input;
mod capture;
mod compose;
mod decay;
mod documents;
mod git_notes;
// The library's helper for real repositories (libgit2, no `git` binary), shared as it is.
#[path = "../../../memcore/tests/gitrepo/mod.rs"]
mod gitrepo;
mod history;
mod hook;
mod links;
mod maintenance;
mod manifest;
mod mcp;
mod memories;
mod operations;
mod plugin;
// The library's throwaway PostgreSQL clusters (scripts/pg-cluster), shared as they are.
#[path = "../../../memcore/tests/pgcluster/mod.rs"]
mod pgcluster;
mod postgres;
mod project;
mod readme;
mod search;
mod serve;
mod support;
mod terminal;
mod tiers;
