//! `memcore_status`: what every fallible function returns, and `memcore_status_name`.

use std::ffi::{CStr, c_char};

use crate::boundary;

/// The outcome of a memcore call. `MEMCORE_STATUS_OK` (0) is success; anything else is a
/// failure, described in detail by `memcore_last_error_message()`.
///
/// The numbers are stable: a status keeps its number forever and a retired number is never
/// reused. They are grouped: 1-99 the caller's arguments were unusable, 100-199 the store
/// refused or failed, 200-299 memcore itself failed. New statuses may be added in any
/// release, so treat an unknown number as a failure of its group.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum memcore_status {
    /// Success.
    Ok = 0,
    /// A required pointer argument was NULL (or an optional one was NULL with a non-zero
    /// length).
    NullParameter = 1,
    /// A string argument was not valid UTF-8.
    InvalidUtf8 = 2,
    /// A JSON argument was not JSON, or did not fit its record's schema (wrong type, unknown
    /// field, missing required field, a value outside its set such as an unknown status).
    InvalidJson = 3,
    /// An argument broke a rule: a bad id, collection, reference or filter, empty or
    /// oversized content, an importance outside 0..1, a forbidden status change, an unknown
    /// enum value. Nothing was written.
    InvalidArgument = 4,
    /// The memory (or collection, version, project config) asked for does not exist.
    NotFound = 100,
    /// The request clashes with the store's state: the memory already exists (create-only
    /// put), an id is ambiguous across collections, or another writer holds the lock.
    Conflict = 101,
    /// Reading or writing the store failed at the operating-system level.
    Io = 102,
    /// A stored file could not be parsed; the message names the file (and line).
    Corrupted = 103,
    /// A derived index failed; the store itself is intact and the index can be rebuilt.
    Index = 104,
    /// The embedding model or its runtime is missing, damaged or failed.
    Embedding = 105,
    /// The store's backend (or configuration) does not offer the operation, e.g. version
    /// history with `versioning: off`.
    Unsupported = 106,
    /// A callback the caller gave memcore (a summariser) returned non-zero, or gave back
    /// something unusable (no summary, invalid UTF-8, an empty or overlong summary); or a
    /// summariser written in Rust panicked. Nothing was written.
    Callback = 107,
    /// memcore panicked; the panic was caught and the call abandoned. A bug: please report
    /// the message.
    Panic = 200,
    /// An error memcore did not expect (for example a new kind of core error this binding
    /// does not know yet). A bug: please report the message.
    Internal = 201,
}

impl memcore_status {
    /// Every status, in number order.
    pub const ALL: [Self; 15] = [
        Self::Ok,
        Self::NullParameter,
        Self::InvalidUtf8,
        Self::InvalidJson,
        Self::InvalidArgument,
        Self::NotFound,
        Self::Conflict,
        Self::Io,
        Self::Corrupted,
        Self::Index,
        Self::Embedding,
        Self::Unsupported,
        Self::Callback,
        Self::Panic,
        Self::Internal,
    ];

    /// The status with this number, if there is one.
    pub fn from_u32(number: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|status| *status as u32 == number)
    }

    /// The upper-case name, the enum constant without its `MEMCORE_STATUS_` prefix.
    pub fn name(self) -> &'static str {
        self.c_name().to_str().unwrap_or("UNKNOWN")
    }

    fn c_name(self) -> &'static CStr {
        match self {
            Self::Ok => c"OK",
            Self::NullParameter => c"NULL_PARAMETER",
            Self::InvalidUtf8 => c"INVALID_UTF8",
            Self::InvalidJson => c"INVALID_JSON",
            Self::InvalidArgument => c"INVALID_ARGUMENT",
            Self::NotFound => c"NOT_FOUND",
            Self::Conflict => c"CONFLICT",
            Self::Io => c"IO",
            Self::Corrupted => c"CORRUPTED",
            Self::Index => c"INDEX",
            Self::Embedding => c"EMBEDDING",
            Self::Unsupported => c"UNSUPPORTED",
            Self::Callback => c"CALLBACK",
            Self::Panic => c"PANIC",
            Self::Internal => c"INTERNAL",
        }
    }

    /// The status a core error maps to: the one place the C ABI maps errors.
    pub fn of_error(err: &memcore::Error) -> Self {
        use memcore::Error;
        match err {
            Error::Validation { .. } => Self::InvalidArgument,
            Error::Request { .. } => Self::InvalidJson,
            Error::NotFound { .. } => Self::NotFound,
            Error::Conflict { .. } => Self::Conflict,
            Error::Io { .. } | Error::Storage { .. } => Self::Io,
            Error::Corrupted { .. } => Self::Corrupted,
            Error::Index { .. } => Self::Index,
            Error::Embedding { .. } => Self::Embedding,
            Error::Unsupported { .. } => Self::Unsupported,
            Error::Callback { .. } => Self::Callback,
            _ => Self::Internal,
        }
    }
}

/// The name of a status: `"OK"`, `"NOT_FOUND"`, ... (the constant without its
/// `MEMCORE_STATUS_` prefix), or `"UNKNOWN"` for a number that is no status.
///
/// Takes the status as a plain `uint32_t` so that any number is safe to pass. The returned
/// string is static: never NULL, never freed.
///
/// # Safety
///
/// None: any value may be passed.
#[unsafe(no_mangle)]
pub extern "C" fn memcore_status_name(status: u32) -> *const c_char {
    boundary::guard(c"UNKNOWN".as_ptr(), || {
        memcore_status::from_u32(status).map_or(c"UNKNOWN", memcore_status::c_name).as_ptr()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(number: u32) -> String {
        // SAFETY: `memcore_status_name` returns a static C string.
        unsafe { CStr::from_ptr(memcore_status_name(number)) }.to_string_lossy().into_owned()
    }

    #[test]
    fn numbers_and_names_are_stable() {
        let table: Vec<(u32, String)> =
            memcore_status::ALL.iter().map(|s| (*s as u32, name(*s as u32))).collect();
        let expected = [
            (0, "OK"),
            (1, "NULL_PARAMETER"),
            (2, "INVALID_UTF8"),
            (3, "INVALID_JSON"),
            (4, "INVALID_ARGUMENT"),
            (100, "NOT_FOUND"),
            (101, "CONFLICT"),
            (102, "IO"),
            (103, "CORRUPTED"),
            (104, "INDEX"),
            (105, "EMBEDDING"),
            (106, "UNSUPPORTED"),
            (107, "CALLBACK"),
            (200, "PANIC"),
            (201, "INTERNAL"),
        ];
        let expected: Vec<(u32, String)> =
            expected.iter().map(|(n, s)| (*n, (*s).to_owned())).collect();
        assert_eq!(table, expected);
        assert_eq!(name(5), "UNKNOWN");
        assert_eq!(name(u32::MAX), "UNKNOWN");
    }

    #[test]
    fn every_core_error_maps_to_its_status() {
        use memcore::Error;
        let io = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let cases = [
            (Error::validation("m", "r"), memcore_status::InvalidArgument),
            (Error::request("m", "r"), memcore_status::InvalidJson),
            (Error::not_found("x", "r"), memcore_status::NotFound),
            (Error::conflict("m", "r"), memcore_status::Conflict),
            (Error::io("m", io), memcore_status::Io),
            (Error::corrupted("/a.md", Some(1), "m", "r"), memcore_status::Corrupted),
            (Error::index("m", None, "r"), memcore_status::Index),
            (Error::embedding("m", None, "r"), memcore_status::Embedding),
            (Error::unsupported("op", "file", "r"), memcore_status::Unsupported),
            (Error::callback("m", "r"), memcore_status::Callback),
        ];
        for (err, status) in cases {
            assert_eq!(memcore_status::of_error(&err), status, "{err}");
        }
    }
}
