//! init and store selection: project-local detection from a nested directory, --local,
//! --global, --store.

use predicates::str::contains;

use crate::support::{Sandbox, json_error};

#[test]
fn init_then_commands_from_a_nested_directory_use_the_project_store() {
    let sandbox = Sandbox::new();
    let project = sandbox.path().join("project");
    let nested = project.join("src/deep/er");
    std::fs::create_dir_all(&nested).unwrap();

    let init = sandbox.bare_in(&project).args(["init", "--json"]).assert().success();
    let init: serde_json::Value = serde_json::from_slice(&init.get_output().stdout).unwrap();
    assert_eq!(init["config_file"], project.join(".memcore.yaml").display().to_string());
    assert_eq!(init["store"], project.join(".memcore").display().to_string());
    assert_eq!(init["backend"], "file");
    let config = std::fs::read_to_string(project.join(".memcore.yaml")).unwrap();
    assert!(config.contains("path: .memcore"), "{config}");
    assert!(project.join(".memcore").is_dir());

    sandbox
        .bare_in(&nested)
        .args(["put", "-", "--id", "auth"])
        .write_stdin("Tokens expire after an hour.")
        .assert()
        .success();
    assert!(project.join(".memcore/memory/auth.md").is_file());
    for scope in [&[][..], &["--local"]] {
        sandbox
            .bare_in(&nested)
            .args(scope)
            .args(["get", "auth", "--format", "raw"])
            .assert()
            .success()
            .stdout("Tokens expire after an hour.\n");
    }
    let stats = sandbox.bare_in(&nested).args(["stats", "--json"]).assert().success();
    let stats: serde_json::Value = serde_json::from_slice(&stats.get_output().stdout).unwrap();
    assert_eq!(stats["config_file"], project.join(".memcore.yaml").display().to_string());

    // --global skips the project: the global store is $MEMCORE_HOME.
    sandbox.bare_in(&nested).args(["--global", "get", "auth"]).assert().code(1);
    sandbox
        .bare_in(&nested)
        .args(["--global", "put", "-", "--id", "everywhere"])
        .write_stdin("Global note.")
        .assert()
        .success();
    assert!(sandbox.path().join("home/memory/everywhere.md").is_file());

    // A second init refuses to replace the config.
    let again = sandbox.bare_in(&nested.join("..")).args(["init"]).output().unwrap();
    assert!(again.status.success(), "a nested directory may become a project of its own");
    let output = sandbox.bare_in(&project).args(["init", "--json"]).output().unwrap();
    assert_eq!(output.status.code(), Some(5));
    assert_eq!(json_error(&output)["category"], "CONFLICT");
}

#[test]
fn outside_a_project_local_is_not_found_and_detection_uses_the_global_store() {
    let sandbox = Sandbox::new();
    sandbox
        .bare_in(sandbox.path())
        .args(["--local", "list"])
        .assert()
        .code(1)
        .stderr(contains("memcore init"));
    sandbox
        .bare_in(sandbox.path())
        .args(["put", "-", "--id", "note"])
        .write_stdin("Global by default.")
        .assert()
        .success();
    assert!(sandbox.path().join("home/memory/note.md").is_file());
}

#[test]
fn init_takes_no_other_store() {
    let sandbox = Sandbox::new();
    for flag in ["--global", "--store=elsewhere"] {
        sandbox.bare_in(sandbox.path()).args(["init", flag]).assert().code(2);
    }
    assert!(!sandbox.path().join(".memcore.yaml").exists());
    sandbox.bare_in(sandbox.path()).args(["--local", "--global", "list"]).assert().code(2);
}
