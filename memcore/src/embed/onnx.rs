//! The default embedder: all-MiniLM-L6-v2 (dynamic int8) through ONNX Runtime.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use ort::session::{Session, SessionInputValue};
use ort::value::Tensor;
use parking_lot::{Mutex, MutexGuard};
use tokenizers::{Encoding, Tokenizer, TruncationParams};

use super::locate::{ModelFiles, model_id_of};
use super::pool::mean_pool_normalise;
use super::runtime::{Runtime, panic_message, runtime};
use super::{Embedder, FETCH_RECOVERY};
use crate::concurrent::alongside;
use crate::{Error, Result};

/// Token limit per text (sentence-transformers' `max_seq_length` for this model).
const MAX_TOKENS: usize = 256;
/// Vectors of one worker, each with the index of its text.
type Embedded = Vec<(usize, Vec<f32>)>;

/// The most batch sessions an embedder keeps (one per core up to this), and the most
/// threads of its query session.
const MAX_SESSIONS: usize = 4;
/// The model output pooled into sentence vectors.
const OUTPUT: &str = "last_hidden_state";

/// Recovery hint for failures while running the model on valid files.
const RUN_RECOVERY: &str = "retry; if it persists, run `memcore model fetch --force` (or \
                            `scripts/fetch-models --force`) to reinstall the model and runtime";

/// Embeds text with sentence-transformers all-MiniLM-L6-v2 (int8 ONNX, 384 dimensions).
///
/// The pipeline is sentence-transformers': the model's WordPiece tokenizer, truncation at 256
/// tokens, mean pooling over the tokens and L2 normalisation, so the cosine of two vectors is
/// their dot product. The model is the one [`ModelFiles::verify`] recognises, and its id
/// ([`Embedder::model_id`]) follows the file: `scripts/fetch-models` installs a dynamic int8
/// one, whose matrix products run in int8 (about three times faster than the wheel's file,
/// which computes in fp32).
///
/// Every text runs through the model on its own: dynamic quantisation scales a run's
/// activations by their range over the whole input, so a text batched with others would get
/// a vector that depends on them, and padded batches are slower here anyway (535 against 208
/// passages/s).
///
/// ONNX Runtime is loaded from [`ModelFiles::runtime`] the first time an embedder is built
/// and stays loaded for the life of the process (one runtime library per process). A single
/// text (a search query) runs on the query session, made with the embedder, whose threads
/// (one per core, at most four) spin while it runs, and stop when it ends: about 1.3 ms for
/// a short query on two cores. Several texts run on one session per core (at most four),
/// made on the first such call, each on one intra-op thread without spinning, so they do not
/// fight the caller's own
/// threads: longest first, each text taken by whichever session is free. Making a session
/// costs about 60 ms, so a fresh process that only queries (a hook, a CLI search) makes one
/// instead of one per core more; a process that only ingests keeps the idle query session
/// (its weights, about 20 MB). A query finding the query session busy takes a batch session
/// once they exist, so it waits for one text of a long ingest at most; before that it waits
/// for the query session. On one core a single batch session does everything. Tokenisation
/// runs outside the locks.
///
/// ONNX Runtime 1.29 and later sends Microsoft telemetry from Linux and macOS, and keeps a
/// device id under `~/.cache/Microsoft`, unless `ORT_DISABLE_TELEMETRY=1` is in the
/// environment when the first embedder loads it (the environment's own switch, which memcore
/// sets, comes too late for the first event). This library cannot set the variable safely
/// once threads run: set it first thing in `main`, as the `memcore` command and the Python
/// module do.
///
/// ```no_run
/// use memcore::{Embedder, ModelFiles, OnnxEmbedder};
///
/// let embedder = OnnxEmbedder::new(&ModelFiles::locate(None)?)?;
/// let vectors = embedder.embed(&["GPU drivers need a reboot", "restart after installing CUDA"])?;
/// assert_eq!(vectors[0].len(), embedder.dimension());
/// // Unit vectors: the dot product is the cosine similarity.
/// let cosine: f32 = vectors[0].iter().zip(&vectors[1]).map(|(a, b)| a * b).sum();
/// println!("similarity {cosine:.3}");
/// # Ok::<(), memcore::Error>(())
/// ```
pub struct OnnxEmbedder {
    tokenizer: Tokenizer,
    /// One session per core, made on the first batch: the texts of a large input run on all
    /// of them at once.
    batch_sessions: OnceLock<Vec<Mutex<Session>>>,
    /// Held while the batch sessions are made, so that two first batches make them once.
    making_batch_sessions: Mutex<()>,
    /// For a single text (a search query): every core on one text, threads spinning while
    /// it runs and not after (about 1.3 ms per short query here); `None` on one core.
    query_session: Option<Mutex<Session>>,
    /// What the batch sessions are made from.
    runtime: &'static Runtime,
    /// The model file, for the batch sessions.
    model: PathBuf,
    /// Whether the model takes `token_type_ids` (this one does; some exports do not).
    token_type_ids: bool,
    /// The id recorded with every vector, from the model file's hash.
    model_id: &'static str,
}

impl fmt::Debug for OnnxEmbedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OnnxEmbedder")
            .field("model_id", &self.model_id)
            .field("dimension", &Self::DIMENSION)
            .field("max_tokens", &MAX_TOKENS)
            .finish_non_exhaustive()
    }
}

impl OnnxEmbedder {
    /// The length of every vector ([`Embedder::dimension`]), known before the model loads.
    pub const DIMENSION: usize = 384;

    /// Loads the model, its tokenizer and (once per process) ONNX Runtime.
    ///
    /// Checks the model's hash first ([`ModelFiles::verify`]).
    ///
    /// # Errors
    ///
    /// [`Error::Embedding`] when a file is missing or damaged, the runtime library cannot be
    /// loaded (or a different one is already loaded in this process), or the model does not
    /// have the expected inputs and outputs.
    pub fn new(files: &ModelFiles) -> Result<Self> {
        let model_id = files.verify()?;
        // The first session checks the model: the query session on two cores or more (all a
        // process answering queries needs), else the one batch session.
        let cores = cores();
        let first_session = || -> Result<(&'static Runtime, Session)> {
            let rt = runtime(&files.runtime)?;
            let session = match cores {
                1 => load_session(&rt.env, &files.model, 1, false)?,
                _ => load_session(&rt.env, &files.model, cores.min(MAX_SESSIONS), true)?,
            };
            Ok((rt, session))
        };
        // The tokenizer (10-20 ms) loads while ONNX Runtime makes the session; without a
        // thread, one after the other.
        let (tokenizer, first) = alongside(
            || load_tokenizer(files),
            first_session,
            || Error::embedding("loading the tokenizer panicked", None, FETCH_RECOVERY),
        );
        let tokenizer = tokenizer?;
        let (rt, first) = first?;
        let token_type_ids = check_signature(&first, &files.model)?;
        let (query_session, batch_sessions) = match cores {
            1 => (None, OnceLock::from(vec![Mutex::new(first)])),
            _ => (Some(Mutex::new(first)), OnceLock::new()),
        };
        Ok(Self {
            tokenizer,
            batch_sessions,
            making_batch_sessions: Mutex::new(()),
            query_session,
            runtime: rt,
            model: files.model.clone(),
            token_type_ids,
            model_id,
        })
    }

    /// The per-core batch sessions, made on first use.
    fn batch_sessions(&self) -> Result<&[Mutex<Session>]> {
        if let Some(sessions) = self.batch_sessions.get() {
            return Ok(sessions);
        }
        let _making = self.making_batch_sessions.lock();
        if let Some(sessions) = self.batch_sessions.get() {
            return Ok(sessions);
        }
        // The file may have changed since `new` checked it (a reinstall under a long-lived
        // process): another model would make vectors of another space under this one's id.
        let now = model_id_of(&self.model)?;
        if now != self.model_id {
            return Err(Error::embedding(
                format!(
                    "{} changed since it was loaded (now {now}, loaded as {})",
                    self.model.display(),
                    self.model_id
                ),
                None,
                "restart the process, so that it embeds with the new model throughout",
            ));
        }
        let sessions = (0..cores().clamp(1, MAX_SESSIONS))
            .map(|_| load_session(&self.runtime.env, &self.model, 1, false))
            .collect::<Result<Vec<_>>>()?;
        // A model of another shape is refused here too.
        if check_signature(&sessions[0], &self.model)? != self.token_type_ids {
            return Err(Error::embedding(
                format!("{} changed since it was loaded", self.model.display()),
                None,
                FETCH_RECOVERY,
            ));
        }
        Ok(self.batch_sessions.get_or_init(|| sessions.into_iter().map(Mutex::new).collect()))
    }

    /// Tokenises `texts`, runs them one by one on the sessions and returns vectors in the
    /// input order.
    fn embed_all(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let encodings = texts
            .iter()
            .map(|text| self.tokenizer.encode(*text, true).map(Tokens::of))
            .collect::<std::result::Result<Vec<Tokens>, _>>()
            .map_err(|e| {
                Error::embedding(format!("cannot tokenise a text: {e}"), Some(e), RUN_RECOVERY)
            })?;

        if let [encoding] = encodings.as_slice()
            && let Some(query_session) = &self.query_session
        {
            // Busy: a batch session if they exist, else wait for it (a query takes ms;
            // making the batch sessions, hundreds).
            let session = match (query_session.try_lock(), self.batch_sessions.get()) {
                (Some(session), _) => Some(session),
                (None, None) => Some(query_session.lock()),
                (None, Some(_)) => None,
            };
            if let Some(session) = session {
                return Ok(vec![self.run_one(encoding, session)?]);
            }
        }
        let sessions = self.batch_sessions()?;

        // One text per run: the model quantises each run's activations by their range over
        // the whole input, so a text's vector would otherwise depend on the texts sharing its
        // batch (and padded batches cost more than single texts here: 535 against 208 texts/s).
        // Longest first, each taken by whichever worker is free next: the workers finish
        // together instead of one waiting on the other's longer texts.
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| Reverse(encodings[i].ids.len()));
        let next = AtomicUsize::new(0);
        let workers = sessions.len().min(order.len());
        let run = |worker: usize| -> Result<Embedded> {
            let mut done = Vec::new();
            while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                let session = match workers {
                    1 => free_session(sessions),
                    _ => sessions[worker].lock(),
                };
                match self.run_one(&encodings[i], session) {
                    Ok(vector) => done.push((i, vector)),
                    Err(e) => {
                        // The call fails: the other workers stop after their current text.
                        next.store(order.len(), Ordering::Relaxed);
                        return Err(e);
                    }
                }
            }
            Ok(done)
        };
        let results: Vec<Result<Embedded>> = if workers <= 1 {
            vec![run(0)]
        } else {
            std::thread::scope(|scope| {
                // A worker the system refuses a thread for leaves its texts to the others.
                let handles: Vec<_> = (1..workers)
                    .filter_map(|w| {
                        std::thread::Builder::new().spawn_scoped(scope, move || run(w)).ok()
                    })
                    .collect();
                let mut results = vec![run(0)];
                results.extend(handles.into_iter().map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(Error::embedding("an embedding thread panicked", None, RUN_RECOVERY))
                    })
                }));
                results
            })
        };
        let mut vectors = vec![Vec::new(); encodings.len()];
        for result in results {
            for (i, vector) in result? {
                vectors[i] = vector;
            }
        }
        Ok(vectors)
    }

    /// Runs one text through the model on `session` and pools its tokens into a vector.
    fn run_one(&self, encoding: &Tokens, mut session: MutexGuard<'_, Session>) -> Result<Vec<f32>> {
        let tokens = encoding.ids.len();
        let ids: Vec<i64> = encoding.ids.iter().map(|&id| i64::from(id)).collect();
        let mask: Vec<i64> = encoding.mask.iter().map(|&m| i64::from(m)).collect();
        let tensor = |data: Vec<i64>| {
            Tensor::from_array(([1, tokens], data)).map_err(|e| {
                Error::embedding(
                    format!("cannot build an input tensor of shape [1, {tokens}]: {e}"),
                    Some(Box::new(e)),
                    RUN_RECOVERY,
                )
            })
        };
        let mut inputs: Vec<(Cow<'_, str>, SessionInputValue<'_>)> = vec![
            ("input_ids".into(), tensor(ids)?.into()),
            ("attention_mask".into(), tensor(mask.clone())?.into()),
        ];
        if self.token_type_ids {
            inputs.push(("token_type_ids".into(), tensor(vec![0i64; tokens])?.into()));
        }

        let run_error = |e: ort::Error| {
            Error::embedding(
                format!("running the embedding model failed: {e}"),
                Some(Box::new(e)),
                RUN_RECOVERY,
            )
        };
        let outputs = session.run(inputs).map_err(run_error)?;
        let (shape, hidden) = outputs[OUTPUT].try_extract_tensor::<f32>().map_err(run_error)?;
        let expected = [1, tokens as i64, Self::DIMENSION as i64];
        if **shape != expected {
            return Err(Error::embedding(
                format!("the embedding model returned shape {shape:?}, expected {expected:?}"),
                None,
                FETCH_RECOVERY,
            ));
        }
        Ok(mean_pool_normalise(hidden, &mask, Self::DIMENSION))
    }
}

/// A text's tokens as the model takes them: all that is kept of its `Encoding`, which also
/// holds every token's string, offsets, word ids and masks. Those came to about 12 KB per
/// passage, held for a whole batch: a `put` of 20,000 passages peaked at 417 MB.
struct Tokens {
    /// Token ids.
    ids: Box<[u32]>,
    /// The attention mask (all ones: texts are not padded).
    mask: Box<[u32]>,
}

impl Tokens {
    /// Keeps the ids and the mask of `encoding`.
    fn of(encoding: Encoding) -> Self {
        Self { ids: encoding.get_ids().into(), mask: encoding.get_attention_mask().into() }
    }
}

impl Embedder for OnnxEmbedder {
    fn model_id(&self) -> &str {
        self.model_id
    }

    fn dimension(&self) -> usize {
        Self::DIMENSION
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        self.embed_all(texts)
    }
}

/// A session of `sessions` no other call is using, or the first one when all are busy.
fn free_session(sessions: &[Mutex<Session>]) -> MutexGuard<'_, Session> {
    sessions.iter().find_map(|s| s.try_lock()).unwrap_or_else(|| sessions[0].lock())
}

/// Whether `session`'s model is a BERT sentence encoder this embedder can run (inputs
/// `input_ids`, `attention_mask` and optionally `token_type_ids`; output
/// `last_hidden_state`); `Ok(true)` when it takes `token_type_ids`.
fn check_signature(session: &Session, model: &Path) -> Result<bool> {
    let inputs: Vec<&str> = session.inputs().iter().map(|i| i.name()).collect();
    let outputs: Vec<&str> = session.outputs().iter().map(|o| o.name()).collect();
    let known = ["input_ids", "attention_mask", "token_type_ids"];
    if !inputs.contains(&"input_ids")
        || !inputs.contains(&"attention_mask")
        || inputs.iter().any(|name| !known.contains(name))
        || !outputs.contains(&OUTPUT)
    {
        return Err(Error::embedding(
            format!(
                "{} is not a BERT sentence encoder this embedder can run: inputs {inputs:?}, \
                 outputs {outputs:?} (expected input_ids, attention_mask[, token_type_ids] \
                 -> {OUTPUT})",
                model.display()
            ),
            None,
            FETCH_RECOVERY,
        ));
    }
    Ok(inputs.contains(&"token_type_ids"))
}

/// The cores this process may use.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Loads `tokenizer.json` with sentence-transformers' settings instead of its packaged ones
/// (fixed padding to 128 and truncation at 128): truncation at [`MAX_TOKENS`], no padding
/// (each text runs through the model on its own, [`OnnxEmbedder::run_one`]).
///
/// Texts are encoded one by one with [`Tokenizer::encode`], which never uses the tokenizers
/// crate's rayon pool, so its parallelism is off without touching its process-wide setting.
fn load_tokenizer(files: &ModelFiles) -> Result<Tokenizer> {
    let path = &files.tokenizer;
    let mut tokenizer = Tokenizer::from_file(path).map_err(|e| {
        Error::embedding(
            format!("cannot load the tokenizer {}: {e}", path.display()),
            Some(e),
            FETCH_RECOVERY,
        )
    })?;
    tokenizer.with_padding(None);
    tokenizer
        .with_truncation(Some(TruncationParams { max_length: MAX_TOKENS, ..Default::default() }))
        .map_err(|e| {
            Error::embedding(
                format!("cannot set truncation on the tokenizer {}: {e}", path.display()),
                Some(e),
                FETCH_RECOVERY,
            )
        })?;
    Ok(tokenizer)
}

/// Loads the model into a new session on `threads` intra-op threads (`spinning` while a run
/// waits for work); a failure or a panic inside ONNX Runtime is an
/// [`Error::Embedding`] naming the model file.
fn load_session(
    env: &ort::environment::Environment,
    model: &Path,
    threads: usize,
    spinning: bool,
) -> Result<Session> {
    match catch_unwind(AssertUnwindSafe(|| build_session(env, model, threads, spinning))) {
        Ok(Ok(session)) => Ok(session),
        Ok(Err(e)) => Err(Error::embedding(
            format!("cannot load the embedding model {}: {e}", model.display()),
            Some(Box::new(e)),
            FETCH_RECOVERY,
        )),
        Err(panic) => Err(Error::embedding(
            format!(
                "loading the embedding model {} failed: {}",
                model.display(),
                panic_message(panic.as_ref())
            ),
            None,
            FETCH_RECOVERY,
        )),
    }
}

/// Builds a session in a function returning `ort::Result`, since the builder's errors carry
/// the builder and do not box directly.
fn build_session(
    env: &ort::environment::Environment,
    model: &Path,
    threads: usize,
    spinning: bool,
) -> ort::Result<Session> {
    Session::builder(env)?
        .with_intra_threads(threads)?
        .with_inter_threads(1)?
        .with_intra_op_spinning(spinning)?
        // Spin while a run needs the threads, never after it: threads left spinning took the
        // cores from the rest of a put (the store write and the full-text commit that follow
        // its embedding), about 4 ms of a 15 ms put at 100k; a query's embedding is as fast.
        .with_config_entry("session.force_spinning_stop", "1")?
        .with_inter_op_spinning(false)?
        .commit_from_file(model)
}
