//! `memcore` on a PostgreSQL store: two store directories (two machines' indexes) over one
//! namespace, written by concurrent processes; `--backend postgres` with
//! `$MEMCORE_DATABASE_URL`; a missing URL.

use std::path::Path;

use crate::pgcluster;
use crate::support::{Sandbox, hit_ids, json_of};

/// Writes a store directory whose settings name `namespace` of `url`.
fn configure(dir: &Path, url: &str, namespace: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let yaml =
        format!("backend: postgres\npostgres:\n  url: \"{url}\"\n  namespace: {namespace}\n");
    std::fs::write(dir.join("config.yaml"), yaml).unwrap();
}

#[test]
fn processes_on_two_machines_see_each_others_memories() {
    let sandbox = Sandbox::new();
    let namespace = pgcluster::namespace();
    let url = pgcluster::shared().url();
    let (a, b) = (sandbox.path().join("a"), sandbox.path().join("b"));
    configure(&a, url, &namespace);
    configure(&b, url, &namespace);
    // Both machines write at once, one process per memory.
    for round in 0..3 {
        let mut writers = Vec::new();
        for (name, dir) in [("a", &a), ("b", &b)] {
            let id = format!("{name}{round}");
            let mut cmd = sandbox.process_in(env!("CARGO_BIN_EXE_memcore"), sandbox.path());
            cmd.arg("--store").arg(dir).args(["put", "--id", &id, "--quiet", "-"]);
            cmd.stdin(std::process::Stdio::piped());
            let mut child = cmd.spawn().unwrap();
            let text = format!("harbour crane log {round} from {name}");
            std::io::Write::write_all(&mut child.stdin.take().unwrap(), text.as_bytes()).unwrap();
            writers.push(child);
        }
        for mut writer in writers {
            assert!(writer.wait().unwrap().success());
        }
    }
    let everyone = ["a0", "a1", "a2", "b0", "b1", "b2"];
    for dir in [&a, &b] {
        let mut search = sandbox.bare_in(sandbox.path());
        search.arg("--store").arg(dir).args(["search", "harbour crane"]);
        assert_eq!(hit_ids(&json_of(&mut search)), everyone);
    }
    // A deletion on one machine reaches the other's index by `sync`.
    let mut delete = sandbox.bare_in(sandbox.path());
    delete.arg("--store").arg(&a).args(["delete", "b1", "--quiet"]).assert().success();
    let mut sync = sandbox.bare_in(sandbox.path());
    sync.arg("--store").arg(&b).args(["sync"]);
    json_of(&mut sync);
    let mut search = sandbox.bare_in(sandbox.path());
    search.arg("--store").arg(&b).args(["search", "harbour crane"]);
    assert_eq!(hit_ids(&json_of(&mut search)), ["a0", "a1", "a2", "b0", "b2"]);
}

#[test]
fn backend_postgres_takes_the_url_from_the_environment() {
    let sandbox = Sandbox::new();
    let url = pgcluster::shared().database("cli_environment");
    let mut put = sandbox.run(&["--backend", "postgres", "put", "--id", "env", "--quiet", "-"]);
    put.env(memcore::DATABASE_URL_VAR, &url).write_stdin("kept in the database").assert().success();
    let mut get = sandbox.run(&["--backend", "postgres", "get", "env"]);
    let got = json_of(get.env(memcore::DATABASE_URL_VAR, &url));
    assert_eq!(got["content"], "kept in the database");
    let rows: i64 = postgres::Client::connect(&url, postgres::NoTls)
        .unwrap()
        .query_one("SELECT count(*) FROM memcore_memories WHERE namespace = 'default'", &[])
        .unwrap()
        .get(0);
    assert_eq!(rows, 1);

    // Without a URL: a validation error saying where to give one.
    let error = sandbox.error_in(
        sandbox.path(),
        &["--store", "elsewhere", "--backend", "postgres", "list"],
        3,
    );
    let recovery = error["recovery"].as_str().unwrap();
    assert!(recovery.contains("MEMCORE_DATABASE_URL"), "{error}");
}

#[test]
fn init_with_backend_postgres_names_the_namespace_after_the_project() {
    let sandbox = Sandbox::new();
    let url = pgcluster::shared().database("cli_init");
    let project = sandbox.path().join("harbour-ops");
    std::fs::create_dir(&project).unwrap();
    let mut init = sandbox.bare_in(&project);
    init.args(["--backend", "postgres", "init"]).env(memcore::DATABASE_URL_VAR, &url);
    init.assert().success();
    let config = std::fs::read_to_string(project.join(".memcore.yaml")).unwrap();
    assert!(config.contains("backend: postgres"), "{config}");
    assert!(config.contains("namespace: harbour-ops"), "{config}");
    assert!(!config.contains("password"), "the URL stays in the environment: {config}");
    let mut put = sandbox.bare_in(&project);
    put.args(["put", "--id", "berth", "--quiet", "-"]).env(memcore::DATABASE_URL_VAR, &url);
    put.write_stdin("Berth 4 is closed for dredging.").assert().success();
    let rows: i64 = postgres::Client::connect(&url, postgres::NoTls)
        .unwrap()
        .query_one("SELECT count(*) FROM memcore_memories WHERE namespace = 'harbour-ops'", &[])
        .unwrap()
        .get(0);
    assert_eq!(rows, 1);
}
