//! The exception hierarchy, the one place where a [`memcore::Error`] becomes a Python
//! exception ([`to_pyerr`]), and [`run`], the wrapper every call into the core goes through.
//!
//! ```text
//! MemcoreError(Exception)                 .category, .recovery (and __notes__ on 3.11+)
//!   NotFoundError                         NOT_FOUND
//!   ValidationError(MemcoreError, ValueError)  VALIDATION (also bad arguments, closed handle)
//!     RequestError(ValidationError, TypeError)  arguments of the wrong shape (unknown, missing, wrong type)
//!   ConflictError                         CONFLICT
//!   StorageError                          STORAGE
//!   CorruptedError                        PARSE (.path, .line)
//!   MemcoreIndexError                     INDEX (not named IndexError: no builtin shadowing)
//!   EmbeddingError                        EMBEDDING
//!   UnsupportedError                      UNSUPPORTED
//!   CallbackError                         CALLBACK (a summariser callable raised or returned garbage)
//! ```
//!
//! The classes are made with `type(name, bases, namespace)` so that `ValidationError` and
//! `RequestError` can have two bases, which `create_exception!` cannot express.

use std::any::Any;
use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};

use memcore::{Category, ErrorInfo};
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyTuple, PyType};

/// The base class every memcore exception derives from.
const BASE: &str = "MemcoreError";
/// The category of a panic that reached the binding: a bug, not a user error.
const INTERNAL: &str = "INTERNAL";

/// A base of an exception class besides its memcore parent.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Builtin {
    /// None.
    No,
    /// The builtin `ValueError`.
    Value,
    /// The builtin `TypeError`.
    Type,
}

/// One exception class below [`BASE`].
struct Class {
    name: &'static str,
    /// The memcore class it derives from (made before it).
    parent: &'static str,
    /// The `Category::as_str` it stands for.
    category: &'static str,
    /// A builtin base it has too.
    builtin: Builtin,
    doc: &'static str,
}

/// The class of requests that do not fit their record: a `ValidationError` and a
/// `TypeError`, as Python's own argument errors are.
const REQUEST: &str = "RequestError";

const CLASSES: [Class; 10] = [
    Class {
        name: "NotFoundError",
        category: "NOT_FOUND",
        builtin: Builtin::No,
        parent: BASE,
        doc: "The memory, version or store asked for does not exist.",
    },
    Class {
        name: "ValidationError",
        category: "VALIDATION",
        builtin: Builtin::Value,
        parent: BASE,
        doc: "The input breaks a rule (an id, a size limit, an argument value); nothing was \
              written. Also a ValueError.",
    },
    Class {
        name: "ConflictError",
        category: "CONFLICT",
        builtin: Builtin::No,
        parent: BASE,
        doc: "The request clashes with the current state: the memory exists, the id is \
              ambiguous, or another writer held the store's lock too long.",
    },
    Class {
        name: "StorageError",
        category: "STORAGE",
        builtin: Builtin::No,
        parent: BASE,
        doc: "Reading or writing the store failed: at the operating-system level, or in the \
              git repository holding it (e.g. one without a first commit).",
    },
    Class {
        name: "CorruptedError",
        category: "PARSE",
        builtin: Builtin::No,
        parent: BASE,
        doc: "A stored file could not be parsed; `.path` and `.line` say where.",
    },
    Class {
        name: "MemcoreIndexError",
        category: "INDEX",
        builtin: Builtin::No,
        parent: BASE,
        doc: "A derived index failed; the store is intact and the index can be rebuilt.",
    },
    Class {
        name: "EmbeddingError",
        category: "EMBEDDING",
        builtin: Builtin::No,
        parent: BASE,
        doc: "The embedding model or its runtime is missing, damaged or failed.",
    },
    Class {
        name: "UnsupportedError",
        category: "UNSUPPORTED",
        builtin: Builtin::No,
        parent: BASE,
        doc: "The store's backend does not offer this operation.",
    },
    Class {
        name: "CallbackError",
        category: "CALLBACK",
        builtin: Builtin::No,
        parent: BASE,
        doc: "A function given to memcore (an embedder, a summariser) raised, or returned \
              something unusable (not a summary; not one vector of its dimension per text). \
              The exception it raised is the cause.",
    },
    Class {
        name: REQUEST,
        category: "VALIDATION",
        builtin: Builtin::Type,
        parent: "ValidationError",
        doc: "The arguments do not fit the operation's request record: an unknown keyword, a \
              missing one, a value of the wrong type. Also a ValidationError and a TypeError.",
    },
];

/// The exception class standing for `category`.
fn class_name(category: Category) -> &'static str {
    match category {
        Category::NotFound => "NotFoundError",
        Category::Validation => "ValidationError",
        Category::Conflict => "ConflictError",
        Category::Storage => "StorageError",
        Category::Parse => "CorruptedError",
        Category::Index => "MemcoreIndexError",
        Category::Embedding => "EmbeddingError",
        Category::Unsupported => "UnsupportedError",
        Category::Callback => "CallbackError",
        // A category added to the core later: still a MemcoreError, with its category.
        _ => BASE,
    }
}

/// The exception classes, made once per process.
struct Classes {
    /// `(name, class)`, the base first.
    all: Vec<(&'static str, Py<PyType>)>,
}

impl Classes {
    fn get(&self, name: &str) -> &Py<PyType> {
        self.all.iter().find(|(n, _)| *n == name).map_or(&self.all[0].1, |(_, class)| class)
    }
}

static CLASSES_ONCE: PyOnceLock<Classes> = PyOnceLock::new();

fn classes(py: Python<'_>) -> PyResult<&'static Classes> {
    CLASSES_ONCE.get_or_try_init(py, || {
        let type_ = py.get_type::<PyType>();
        let make = |name: &str, bases: Bound<'_, PyTuple>, doc: &str, category: &str| {
            let namespace = PyDict::new(py);
            namespace.set_item("__module__", "memcore")?;
            namespace.set_item("__doc__", doc)?;
            namespace.set_item("category", category)?;
            namespace.set_item("recovery", "")?;
            let class = type_.call1((name, bases, namespace))?;
            Ok::<_, PyErr>(class.cast_into::<PyType>()?.unbind())
        };
        let base = make(
            BASE,
            PyTuple::new(py, [py.get_type::<PyException>()])?,
            "Base class of every memcore error. `.category` is the error's category \
             (e.g. 'NOT_FOUND') and `.recovery` says what to do next.",
            INTERNAL,
        )?;
        let mut all = vec![(BASE, base)];
        for class in &CLASSES {
            let parent = all.iter().find(|(name, _)| *name == class.parent).map(|(_, c)| c);
            let mut bases = vec![parent.unwrap_or(&all[0].1).bind(py).clone()];
            match class.builtin {
                Builtin::No => {}
                Builtin::Value => bases.push(py.get_type::<PyValueError>()),
                Builtin::Type => bases.push(py.get_type::<PyTypeError>()),
            }
            let made = make(class.name, PyTuple::new(py, bases)?, class.doc, class.category)?;
            if class.name == "CorruptedError" {
                made.bind(py).setattr("path", py.None())?;
                made.bind(py).setattr("line", py.None())?;
            }
            all.push((class.name, made));
        }
        Ok(Classes { all })
    })
}

/// An exception of class `name` with its attributes set; never fails (a failure to build it
/// is returned instead, which cannot happen short of memory exhaustion).
fn exception(py: Python<'_>, name: &str, message: &str, category: &str, recovery: &str) -> PyErr {
    let build = || -> PyResult<Bound<'_, PyAny>> {
        let class = classes(py)?.get(name).bind(py);
        let value = class.call1((message,))?;
        value.setattr("category", category)?;
        value.setattr("recovery", recovery)?;
        if !recovery.is_empty() {
            // Shown under the traceback by Python 3.11+, harmless before.
            value.setattr("__notes__", PyList::new(py, [format!("hint: {recovery}")])?)?;
        }
        Ok(value)
    };
    match build() {
        Ok(value) => PyErr::from_value(value),
        Err(err) => err,
    }
}

/// The Python exception for a memcore error: the class by category, `str()` the message,
/// `.category` and `.recovery` from the error. The one mapping of the binding.
pub(crate) fn to_pyerr(py: Python<'_>, err: &memcore::Error) -> PyErr {
    if let memcore::Error::Request { .. } = err {
        return exception(py, REQUEST, &err.to_string(), "VALIDATION", err.recovery());
    }
    from_info(py, &ErrorInfo::of(err))
}

/// The Python exception for an error reported as data (a listing's unreadable files).
pub(crate) fn from_info(py: Python<'_>, info: &ErrorInfo) -> PyErr {
    let category = info.category;
    let pyerr =
        exception(py, class_name(category), &info.message, category.as_str(), &info.recovery);
    if let Some(path) = &info.path {
        let value = pyerr.value(py);
        let set = value
            .setattr("path", path.display().to_string())
            .and_then(|()| value.setattr("line", info.line));
        if let Err(failed) = set {
            return failed;
        }
    }
    pyerr
}

/// A `ValidationError` for a bad argument detected by the binding itself.
pub(crate) fn invalid(py: Python<'_>, message: impl Into<String>, recovery: &str) -> PyErr {
    to_pyerr(py, &memcore::Error::validation(message, recovery))
}

/// A `RequestError` for an argument the binding cannot turn into its request record (a value
/// of a type JSON has no place for, an `items` that is not a list of items): the same class
/// the core raises for a field of the wrong type, so one `except` catches both.
pub(crate) fn unfit(py: Python<'_>, message: impl Into<String>, recovery: &str) -> PyErr {
    to_pyerr(py, &memcore::Error::request(message, recovery))
}

/// The `MemcoreError` for a panic caught at the boundary.
fn panic_error(py: Python<'_>, payload: &(dyn Any + Send)) -> PyErr {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    exception(
        py,
        BASE,
        &format!("internal error in memcore: {what}"),
        INTERNAL,
        "this is a bug in memcore, please report it with this message; the store is \
         consistent (every write is atomic), so retrying or reopening is safe",
    )
}

/// Runs `call` with the GIL released and panics caught: the wrapper of every call that
/// touches disk, index or model. Extract the arguments before, convert the result after.
pub(crate) fn run<T, F>(py: Python<'_>, call: F) -> PyResult<T>
where
    F: FnOnce() -> memcore::Result<T> + Send,
    T: Send,
{
    RAISED.with(|slot| slot.borrow_mut().take());
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(call)));
    let raised = RAISED.with(|slot| slot.borrow_mut().take());
    match (outcome, raised) {
        // Ctrl-C (or `sys.exit`) inside a callback stops the program, even when the core
        // went on without the callback's result (a write whose vectors wait).
        (_, Some(raised)) if !raised.is_instance_of::<PyException>(py) => Err(raised),
        (Ok(Ok(value)), _) => Ok(value),
        (Ok(Err(err)), raised) => {
            let err = to_pyerr(py, &err);
            err.set_cause(py, raised);
            Err(err)
        }
        (Err(payload), _) => Err(panic_error(py, payload.as_ref())),
    }
}

thread_local! {
    /// The last exception a Python callback (an embedder, a summariser) raised on this thread
    /// during the current call into the core; [`run`] makes it the cause of the call's error.
    static RAISED: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

/// Keeps `err`, which a Python callback raised, for [`run`] to give the call's error as its
/// cause (the core calls callbacks on the thread that called it). Returns what to tell the
/// core: `it raised {err}`.
pub(crate) fn callback_raised(err: PyErr) -> String {
    let message = format!("it raised {err}");
    RAISED.with(|slot| *slot.borrow_mut() = Some(err));
    message
}

/// Raises the panic-to-exception path on purpose, for the test suite.
#[pyfunction]
fn _panic_for_tests(py: Python<'_>, message: String) -> PyResult<()> {
    run(py, move || -> memcore::Result<()> { panic!("{message}") })
}

/// Adds the exception classes (and the test hook) to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    for (name, class) in &classes(py)?.all {
        m.add(*name, class.bind(py))?;
    }
    // Not in `__all__`: a test hook, not API.
    m.setattr("_panic_for_tests", wrap_pyfunction!(_panic_for_tests, m)?)?;
    Ok(())
}
