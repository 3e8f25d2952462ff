//! The Claude Code plugin (`integrations/claude-code/`): its manifests are valid, its hooks
//! are the ones `memcore hook install` prints, its MCP server entry starts `memcore mcp`,
//! and each slash command's CLI line runs against a temp store and prints JSON.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::Sandbox;

/// The plugin marketplace directory of the repository.
fn marketplace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../integrations/claude-code")
}

/// The plugin's directory.
fn plugin() -> PathBuf {
    marketplace().join("retain")
}

fn json_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The slash commands, each with arguments a user might give.
const COMMANDS: [(&str, &str); 8] = [
    ("put", "notes.md --collection knowledge --tags gpu --id gpu-patterns"),
    ("get", "knowledge/gpu-patterns"),
    ("search", "metal on apple silicon"),
    ("list", "--collection knowledge"),
    ("update", "gpu-patterns --tags metal --merge-tags"),
    ("compose", "port the renderer to the GPU"),
    ("capture", "We decided to use Metal on Apple silicon because CUDA is unavailable there."),
    ("delete", "knowledge/gpu-patterns"),
];

/// A command file's frontmatter (as YAML) and its `!`-prefixed shell line.
fn command(name: &str) -> (serde_yaml::Value, String) {
    let path = plugin().join("commands").join(format!("{name}.md"));
    let text = std::fs::read_to_string(&path).unwrap();
    let rest = text.strip_prefix("---\n").expect("frontmatter");
    let (front, body) = rest.split_once("\n---\n").expect("frontmatter's end");
    let front: serde_yaml::Value = serde_yaml::from_str(front).unwrap();
    let line = body
        .lines()
        .find_map(|line| line.strip_prefix("!`").and_then(|l| l.strip_suffix('`')))
        .unwrap_or_else(|| panic!("{name}.md runs no command"));
    (front, line.to_owned())
}

#[test]
fn the_manifests_are_valid() {
    let plugin_json = json_file(&plugin().join(".claude-plugin/plugin.json"));
    assert_eq!(plugin_json["name"], "retain", "the seed's /retain:* commands");
    assert_eq!(plugin_json["version"], env!("CARGO_PKG_VERSION"));
    assert!(plugin_json["description"].as_str().is_some_and(|d| !d.is_empty()));
    let market = json_file(&marketplace().join(".claude-plugin/marketplace.json"));
    assert_eq!(market["plugins"][0]["name"], "retain");
    assert_eq!(market["plugins"][0]["source"], "./retain");
    assert!(market["owner"]["name"].is_string());

    let mcp = json_file(&plugin().join(".mcp.json"));
    assert_eq!(mcp["mcpServers"]["memcore"]["command"], "memcore");
    assert_eq!(mcp["mcpServers"]["memcore"]["args"], serde_json::json!(["mcp"]));

    let mut names: Vec<String> = std::fs::read_dir(plugin().join("commands"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected: Vec<String> = COMMANDS.iter().map(|(name, _)| format!("{name}.md")).collect();
    expected.sort();
    assert_eq!(names, expected);
    for (name, _) in COMMANDS {
        let (front, line) = command(name);
        assert!(front["description"].as_str().is_some_and(|d| !d.is_empty()), "{name}");
        assert!(front["argument-hint"].is_string(), "{name}");
        let allowed = front["allowed-tools"].as_str().unwrap_or_default();
        assert!(allowed.contains(&format!("Bash(memcore {name}:*)")), "{name}: {allowed}");
        assert!(line.contains(&format!("memcore {name} ")) && line.contains("--json"), "{line}");
    }
}

#[test]
fn the_hooks_are_the_ones_hook_install_prints() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&["hook", "install", "--command", "memcore"]).output().unwrap();
    assert!(output.status.success());
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    let shipped = json_file(&plugin().join("hooks/hooks.json"));
    assert_eq!(
        shipped, printed,
        "regenerate: memcore hook install --command memcore > integrations/claude-code/retain/hooks/hooks.json"
    );
}

#[test]
fn each_slash_command_runs_its_cli_line() {
    let sandbox = Sandbox::new();
    std::fs::write(
        sandbox.path().join("notes.md"),
        "# GPU Patterns\n\nPrefer Metal on Apple silicon, CUDA elsewhere.\n",
    )
    .unwrap();
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_memcore")).parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin_dir)
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    for (name, arguments) in COMMANDS {
        let (_, line) = command(name);
        let script = line.replace("$ARGUMENTS", arguments);
        // As Claude Code runs it: a shell in the project, `memcore` on the PATH; the store is
        // the sandbox's global one.
        let output = sandbox
            .command_in("bash", sandbox.path())
            .env("PATH", &path)
            .args(["-c", &script])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "/retain:{name} {arguments}: {script}\n{stdout}\n{stderr}"
        );
        let value: Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("/retain:{name}: not JSON ({e}): {stdout}"));
        match name {
            "search" => {
                assert_eq!(value["hits"][0]["memory"]["ref"], "knowledge/gpu-patterns", "{value}")
            }
            "update" => assert_eq!(value["metadata"]["version"], 2, "{value}"),
            "compose" => assert!(value["text"].as_str().unwrap().contains("Metal"), "{value}"),
            _ => {}
        }
    }
}
