//! The default embedder: all-MiniLM-L6-v2 (int8) through ONNX Runtime.

use std::borrow::Cow;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use ort::session::{RunOptions, Session, SessionInputValue};
use ort::value::Tensor;
use parking_lot::{Mutex, MutexGuard};
use tokenizers::{Encoding, Tokenizer, TruncationParams};

use super::locate::ModelFiles;
use super::pool::mean_pool_normalise;
use super::runtime::{Runtime, panic_message, runtime};
use super::{Embedder, FETCH_RECOVERY};
use crate::{Error, Result};

/// The model id recorded with every vector this embedder makes.
const MODEL_ID: &str = "all-MiniLM-L6-v2-int8";
/// The length of every vector.
const DIMENSION: usize = 384;
/// Token limit per text (sentence-transformers' `max_seq_length` for this model).
const MAX_TOKENS: usize = 256;
/// Texts per inference call; larger inputs are split.
const CHUNK: usize = 32;
/// Vectors of one worker, each with the index of its text.
type Embedded = Vec<(usize, Vec<f32>)>;

/// The most batch sessions an embedder keeps (one per core up to this), and the most
/// threads of its query session.
const MAX_SESSIONS: usize = 4;
/// The model output pooled into sentence vectors.
const OUTPUT: &str = "last_hidden_state";
/// ONNX Runtime's run option releasing a session's unused arena memory after the run.
const ARENA_SHRINKAGE: &str = "memory.enable_memory_arena_shrinkage";

/// Recovery hint for failures while running the model on valid files.
const RUN_RECOVERY: &str = "retry; if it persists, run `scripts/fetch-models --force` to \
                            reinstall the model and runtime";

/// Embeds text with sentence-transformers all-MiniLM-L6-v2 (int8 ONNX, 384 dimensions).
///
/// The pipeline is sentence-transformers': the model's WordPiece tokenizer, truncation at 256
/// tokens, padding to the longest text of a batch, mean pooling over the attention mask and
/// L2 normalisation, so the cosine of two vectors is their dot product.
///
/// ONNX Runtime is loaded from [`ModelFiles::runtime`] the first time an embedder is built
/// and stays loaded for the life of the process (one runtime library per process). A single
/// text (a search query) runs on the query session, made with the embedder, whose threads
/// (one per core, at most four) spin while it runs: about 5 ms instead of 8 for a short query
/// on two cores. Batches run on one session per core (at most four), made on the first
/// batch, each on one intra-op thread without spinning, so they do not fight the caller's own
/// threads: a large input is cut into chunks of 32 texts, longest first, taken by whichever
/// session is free. Making a session costs about 170 ms (ONNX Runtime folds the quantised
/// weights), so a fresh process that only queries (a hook, a CLI search) makes one instead of
/// one per core more; a process that only ingests keeps the idle query session (its weights,
/// tens of MB). A query finding the query session busy takes a batch session once they exist,
/// so it waits for one chunk of a long ingest at most; before that it waits for the query
/// session. On one core a single batch session does everything. Tokenisation runs outside
/// the locks.
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
    /// One session per core, made on the first batch: chunks of a large input run on all of
    /// them at once.
    batch_sessions: OnceLock<Vec<Mutex<Session>>>,
    /// Held while the batch sessions are made, so that two first batches make them once.
    making_batch_sessions: Mutex<()>,
    /// For a single text (a search query): every core on one text, threads spinning while
    /// it runs (8 -> 5 ms per query here); `None` on one core.
    query_session: Option<Mutex<Session>>,
    /// What the batch sessions are made from.
    runtime: &'static Runtime,
    /// The model file, for the batch sessions.
    model: PathBuf,
    /// Whether the model takes `token_type_ids` (this one does; some exports do not).
    token_type_ids: bool,
}

impl fmt::Debug for OnnxEmbedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OnnxEmbedder")
            .field("model_id", &MODEL_ID)
            .field("dimension", &DIMENSION)
            .field("max_tokens", &MAX_TOKENS)
            .finish_non_exhaustive()
    }
}

impl OnnxEmbedder {
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
        files.verify()?;
        let tokenizer = load_tokenizer(files)?;
        let rt = runtime(&files.runtime)?;

        // The first session checks the model: the query session on two cores or more (all a
        // process answering queries needs), else the one batch session.
        let cores = cores();
        let first = match cores {
            1 => load_session(&rt.env, &files.model, 1, false)?,
            _ => load_session(&rt.env, &files.model, cores.min(MAX_SESSIONS), true)?,
        };
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
        let sessions = (0..cores().clamp(1, MAX_SESSIONS))
            .map(|_| load_session(&self.runtime.env, &self.model, 1, false))
            .collect::<Result<Vec<_>>>()?;
        // The file may have changed since `new` checked it (a reinstall under a long-lived
        // process): a model of another shape is refused here too.
        if check_signature(&sessions[0], &self.model)? != self.token_type_ids {
            return Err(Error::embedding(
                format!("{} changed since it was loaded", self.model.display()),
                None,
                FETCH_RECOVERY,
            ));
        }
        Ok(self.batch_sessions.get_or_init(|| sessions.into_iter().map(Mutex::new).collect()))
    }

    /// Tokenises `texts`, runs them in chunks of similar length and returns vectors in the
    /// input order.
    fn embed_all(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let encodings = texts
            .iter()
            .map(|text| self.tokenizer.encode(*text, true))
            .collect::<std::result::Result<Vec<Encoding>, _>>()
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
                return self.run_batch(&[encoding], session, false);
            }
        }
        let sessions = self.batch_sessions()?;

        // Sorting by length keeps padding (wasted attention work) small in mixed batches; the
        // attention mask makes the result independent of the batch a text lands in.
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());

        // Longest chunks first, each taken by whichever worker is free next: the workers
        // finish together instead of one waiting on the other's longer texts.
        let chunks: Vec<&[usize]> = order.chunks(CHUNK).rev().collect();
        let next = AtomicUsize::new(0);
        let workers = sessions.len().min(chunks.len());
        let run = |worker: usize| -> Result<Embedded> {
            let mut done = Vec::new();
            while let Some(chunk) = chunks.get(next.fetch_add(1, Ordering::Relaxed)) {
                let batch: Vec<&Encoding> = chunk.iter().map(|&i| &encodings[i]).collect();
                let session = match workers {
                    1 => free_session(sessions),
                    _ => sessions[worker].lock(),
                };
                done.extend(chunk.iter().copied().zip(self.run_batch(&batch, session, true)?));
            }
            Ok(done)
        };
        let results: Vec<Result<Embedded>> = if workers <= 1 {
            vec![run(0)]
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = (1..workers).map(|w| scope.spawn(move || run(w))).collect();
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

    /// Runs one padded batch through the model on `session` and pools it; `shrink_arena`
    /// releases the session's unused arena memory afterwards.
    fn run_batch(
        &self,
        batch: &[&Encoding],
        mut session: MutexGuard<'_, Session>,
        shrink_arena: bool,
    ) -> Result<Vec<Vec<f32>>> {
        let rows = batch.len();
        let cols = batch.iter().map(|e| e.get_ids().len()).max().unwrap_or(0);
        let mut ids = vec![0i64; rows * cols];
        let mut mask = vec![0i64; rows * cols];
        for (row, encoding) in batch.iter().enumerate() {
            let start = row * cols;
            for (j, (&id, &m)) in
                encoding.get_ids().iter().zip(encoding.get_attention_mask()).enumerate()
            {
                ids[start + j] = i64::from(id);
                mask[start + j] = i64::from(m);
            }
        }

        let tensor = |data: Vec<i64>| {
            Tensor::from_array(([rows, cols], data)).map_err(|e| {
                Error::embedding(
                    format!("cannot build an input tensor of shape [{rows}, {cols}]: {e}"),
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
            inputs.push(("token_type_ids".into(), tensor(vec![0i64; rows * cols])?.into()));
        }

        let run_error = |e: ort::Error| {
            Error::embedding(
                format!("running the embedding model failed: {e}"),
                Some(Box::new(e)),
                RUN_RECOVERY,
            )
        };
        // A batch hands the memory its activations took back (a session's arena otherwise
        // keeps the largest batch's: about 190 MB per session after an ingest); a query's are
        // small, and keeping them saves it a few allocations.
        let mut options = RunOptions::new().map_err(run_error)?;
        if shrink_arena {
            options.set(ARENA_SHRINKAGE, "cpu:0").map_err(run_error)?;
        }
        let outputs = session.run_with_options(inputs, &options).map_err(run_error)?;
        let (shape, hidden) = outputs[OUTPUT].try_extract_tensor::<f32>().map_err(run_error)?;
        let expected = [rows as i64, cols as i64, DIMENSION as i64];
        if **shape != expected {
            return Err(Error::embedding(
                format!("the embedding model returned shape {shape:?}, expected {expected:?}"),
                None,
                FETCH_RECOVERY,
            ));
        }
        Ok(hidden
            .chunks_exact(cols * DIMENSION)
            .zip(mask.chunks_exact(cols))
            .map(|(tokens, mask)| mean_pool_normalise(tokens, mask, DIMENSION))
            .collect())
    }
}

impl Embedder for OnnxEmbedder {
    fn model_id(&self) -> &str {
        MODEL_ID
    }

    fn dimension(&self) -> usize {
        DIMENSION
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
/// (batches are padded to their longest text in [`OnnxEmbedder::run_batch`]).
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
        .with_inter_op_spinning(false)?
        .commit_from_file(model)
}
