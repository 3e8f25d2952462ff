//! The header drift check: `include/memcore.h` must be exactly what cbindgen generates from
//! this crate. Run with `MEMCORE_BLESS=1` to rewrite the header instead of failing.

use std::path::{Path, PathBuf};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The header comment: the crate README (build, conventions, JSON schemas) as a C comment.
fn preamble() -> String {
    let readme = std::fs::read_to_string(crate_dir().join("README.md")).expect("README.md");
    assert!(
        !readme.contains("*/") && !readme.contains("/*"),
        "README.md must not contain C comment delimiters: it becomes the header's preamble"
    );
    let mut text = String::from("/*\n");
    for line in readme.lines() {
        if line.is_empty() {
            text.push_str(" *\n");
        } else {
            text.push_str(" * ");
            text.push_str(line);
            text.push('\n');
        }
    }
    text.push_str(" */");
    text
}

/// The version macros, from Cargo.toml so that they can never disagree with the library.
fn version_macros() -> String {
    let major: u32 = env!("CARGO_PKG_VERSION_MAJOR").parse().expect("major");
    let minor: u32 = env!("CARGO_PKG_VERSION_MINOR").parse().expect("minor");
    let patch: u32 = env!("CARGO_PKG_VERSION_PATCH").parse().expect("patch");
    format!(
        "\n/** The version of memcore this header belongs to; compare with memcore_version(). */\n\
         #define MEMCORE_VERSION \"{}\"\n\
         #define MEMCORE_VERSION_MAJOR {major}\n\
         #define MEMCORE_VERSION_MINOR {minor}\n\
         #define MEMCORE_VERSION_PATCH {patch}\n\
         /** MAJOR * 10000 + MINOR * 100 + PATCH, for `#if MEMCORE_VERSION_NUMBER >= ...`. */\n\
         #define MEMCORE_VERSION_NUMBER {}\n",
        env!("CARGO_PKG_VERSION"),
        major * 10_000 + minor * 100 + patch,
    )
}

fn generate() -> String {
    let dir = crate_dir();
    let mut config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    config.header = Some(preamble());
    config.after_includes = Some(version_macros());
    let bindings = cbindgen::Builder::new()
        .with_crate(&dir)
        .with_config(config)
        .generate()
        .expect("cbindgen could not generate the header");
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).expect("the header is UTF-8")
}

fn header_path() -> PathBuf {
    crate_dir().join("..").join("include").join("memcore.h")
}

#[test]
fn header_matches_the_code() {
    let generated = generate();
    let path = header_path();
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if std::env::var_os("MEMCORE_BLESS").is_some_and(|v| v == "1") {
        if committed != generated {
            std::fs::write(&path, &generated).expect("writing include/memcore.h");
            eprintln!("rewrote {}", display(&path));
        }
        return;
    }
    assert!(
        committed == generated,
        "{} is out of date with the code; regenerate it with\n\
         \n    MEMCORE_BLESS=1 cargo test -p memcore-ffi --test header\n\
         \nand commit the result",
        display(&path)
    );
}

fn display(path: &Path) -> String {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf()).display().to_string()
}
