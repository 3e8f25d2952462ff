//! A bogus ONNX Runtime library is an error, not a panic, and is not remembered.
//!
//! Its own test binary, so that no other test has loaded the real runtime into the process
//! first (a process holds one ONNX Runtime for good). Needs the real model files: run
//! `scripts/fetch-models` first.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use memcore::{Category, Embedder, ModelFiles, OnnxEmbedder};

#[test]
fn bogus_runtime_then_real_runtime() {
    let real = ModelFiles::locate(None).unwrap_or_else(|e| {
        panic!(
            "this test needs the real model files: {e}\n-> {}\n\
             run `scripts/fetch-models` from the workspace root (or set MEMCORE_MODEL_DIR)",
            e.recovery()
        )
    });
    let dir = tempfile::tempdir().expect("tempdir");

    // A text file where the shared library should be.
    let text = dir.path().join("libonnxruntime.so.1.31.1");
    std::fs::write(&text, "not a shared library\n").expect("write");
    let files = ModelFiles { runtime: text.clone(), ..real.clone() };
    let err = OnnxEmbedder::new(&files).expect_err("a text file is no runtime");
    eprintln!("{}", err.report());
    assert_eq!(err.category(), Category::Embedding);
    assert!(err.to_string().contains(&text.display().to_string()), "{err}");
    assert!(std::error::Error::source(&err).is_some(), "the loader's error is kept as source");

    // A path that does not exist.
    let files = ModelFiles { runtime: dir.path().join("missing.so"), ..real.clone() };
    let err = OnnxEmbedder::new(&files).expect_err("no such file");
    assert_eq!(err.category(), Category::Embedding);
    assert!(err.to_string().contains("missing.so"), "{err}");

    // The failures were not cached: the real runtime still loads.
    let embedder = OnnxEmbedder::new(&real).unwrap_or_else(|e| panic!("{}", e.report()));
    assert_eq!(embedder.embed(&["hello"]).expect("embed")[0].len(), 384);

    // Once loaded, a different library in the same process is refused with a clear error.
    let err = OnnxEmbedder::new(&ModelFiles { runtime: text, ..real }).expect_err("second runtime");
    assert_eq!(err.category(), Category::Embedding);
    eprintln!("{}", err.report());
    assert!(err.to_string().contains("already loaded"), "{err}");
}
