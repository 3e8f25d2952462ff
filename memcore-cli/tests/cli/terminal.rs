//! Colour and the progress bar: only on a terminal (a pseudo-terminal from `script`, which
//! Debian always has), never with NO_COLOR, never into a pipe.

use crate::support::{GPU, Sandbox};

/// Runs `memcore --store <store> ARGS` on a pseudo-terminal; returns what it printed there.
fn on_a_terminal(sandbox: &Sandbox, args: &str, no_color: bool) -> String {
    let command = format!(
        "'{}' --store '{}' {args}",
        env!("CARGO_BIN_EXE_memcore"),
        sandbox.store().display()
    );
    let mut script = sandbox.command_in("script", sandbox.path());
    script.args(["-qec", &command, "/dev/null"]).env("TERM", "xterm-256color");
    if no_color {
        script.env("NO_COLOR", "1");
    } else {
        script.env_remove("NO_COLOR");
    }
    let output = script.output().unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn colour_on_a_terminal_unless_no_color() {
    let sandbox = Sandbox::new();
    sandbox.put(GPU, &[]);
    for args in ["list", "get nope"] {
        let coloured = on_a_terminal(&sandbox, args, false);
        assert!(coloured.contains('\x1b'), "{args}: no colour on a terminal: {coloured:?}");
        let plain = on_a_terminal(&sandbox, args, true);
        assert!(!plain.contains('\x1b'), "{args}: colour despite NO_COLOR: {plain:?}");
    }
}

#[test]
fn piped_output_has_no_colour_even_when_forced() {
    let sandbox = Sandbox::new();
    sandbox.put(GPU, &[]);
    for args in [&["list"][..], &["get", "nope"], &["search", "metal"]] {
        let output = sandbox.run(args).env("CLICOLOR_FORCE", "1").output().unwrap();
        assert!(!output.stdout.contains(&0x1b), "{args:?}: escape code on stdout");
        assert!(!output.stderr.contains(&0x1b), "{args:?}: escape code on stderr");
    }
}

#[test]
fn reindex_draws_a_progress_bar_only_on_a_terminal() {
    let sandbox = Sandbox::new();
    sandbox.put(GPU, &[]);
    let shown = on_a_terminal(&sandbox, "reindex", true);
    assert!(shown.contains("memories indexed"), "{shown:?}");
    assert!(shown.contains("indexed 1 memory"), "{shown:?}");
    let quiet = on_a_terminal(&sandbox, "reindex -q", true);
    assert!(!quiet.contains("memories indexed"), "{quiet:?}");
    // Piped: tested in maintenance (stderr stays empty).
}
