//! Throwaway PostgreSQL clusters for tests, started by `scripts/pg-cluster` (which installs
//! PostgreSQL from Debian's packages when it is missing and we are root).
//!
//! [`shared`] is one cluster per test binary, stopped when the binary exits; tests keep out
//! of each other's way with a namespace each ([`namespace`]). [`Cluster::start`] makes one
//! of a test's own, for tests that stop the server.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A running cluster.
pub struct Cluster {
    dir: PathBuf,
    url: String,
}

/// `scripts/pg-cluster` of the workspace holding the crate this helper is compiled into.
fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .map(|dir| dir.join("scripts/pg-cluster"))
        .find(|script| script.is_file())
        .expect("scripts/pg-cluster in the workspace")
}

fn run(args: &[&str]) -> String {
    run_with(args, "off")
}

fn run_with(args: &[&str], fsync: &str) -> String {
    let out = Command::new(script())
        .args(args)
        .env("PG_CLUSTER_FSYNC", fsync)
        .output()
        .expect("scripts/pg-cluster runs");
    assert!(
        out.status.success(),
        "scripts/pg-cluster {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or_default().to_owned()
}

impl Cluster {
    /// Starts a new cluster, stopped when it is dropped (or this process exits).
    pub fn start() -> Self {
        Self::start_with("off")
    }

    /// [`Cluster::start`] with a server that syncs its writes to disk, for benchmarks.
    pub fn start_durable() -> Self {
        Self::start_with("on")
    }

    fn start_with(fsync: &str) -> Self {
        let dir = tempfile::Builder::new().prefix("memcore-pg").tempdir().expect("temp dir").keep();
        let pid = std::process::id().to_string();
        let url = run_with(&["start", dir.to_str().expect("UTF-8 path"), &pid], fsync);
        Self { dir, url }
    }

    /// The connection string (key=value form, password included).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The connection string of another database of this cluster, created if missing.
    pub fn database(&self, name: &str) -> String {
        let mut client = postgres::Client::connect(&self.url, postgres::NoTls).expect("connect");
        let exists = client
            .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
            .expect("query")
            .is_some();
        if !exists {
            client.batch_execute(&format!("CREATE DATABASE \"{name}\"")).expect("create database");
        }
        self.url.replace("dbname=postgres", &format!("dbname={name}"))
    }

    /// A client of the cluster's default database, for checks behind memcore's back.
    pub fn client(&self) -> postgres::Client {
        postgres::Client::connect(&self.url, postgres::NoTls).expect("connect")
    }

    /// Stops the server, keeping its data.
    pub fn halt(&self) {
        run(&["halt", self.dir.to_str().expect("UTF-8 path")]);
    }

    /// Starts the server again after [`Cluster::halt`].
    pub fn resume(&self) {
        run(&["resume", self.dir.to_str().expect("UTF-8 path")]);
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(script()).args(["stop", self.dir.to_str().unwrap_or("")]).output();
    }
}

/// The cluster this test binary shares between its tests.
pub fn shared() -> &'static Cluster {
    static SHARED: OnceLock<Cluster> = OnceLock::new();
    SHARED.get_or_init(Cluster::start)
}

/// A namespace no other test of this run uses.
pub fn namespace() -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    format!("test-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Settings of a store in `namespace` of `url`.
pub fn config(url: &str, namespace: &str) -> memcore::Config {
    let mut config = memcore::Config::default();
    config.postgres.url = Some(url.parse().expect("infallible"));
    config.postgres.namespace = namespace.to_owned();
    config.embedding.enabled = false;
    config
}
