#![doc = include_str!("../README.md")]
//!
//! ## Map of the crate
//!
//! One module per C type: [`handle`] (`memcore_t`, `memcore_scope`), [`memory`]
//! (`memcore_put*`, `memcore_get`, `memcore_render`, `memcore_update_json`,
//! `memcore_delete`, `memcore_restore`, `memcore_put_mode`, `memcore_format`), [`listing`]
//! (`memcore_list`, `memcore_collections`), [`history`] (`memcore_versions`,
//! `memcore_get_version`), [`search`] (`memcore_search`), [`call`] (`memcore_call`,
//! `memcore_operations`: every operation on the library's JSON records), [`summarizer`]
//! (`memcore_set_summarizer`, `memcore_summary_write`: a C summariser for session
//! compressions), [`embedder`] (`memcore_open_with_embedder`: an embedding model of the
//! caller's own), [`status`]
//! (`memcore_status`, `memcore_status_name`), [`error`]
//! (`memcore_last_error_message`), [`string`] (`memcore_string_free`) and
//! [`memcore_version`] here. `include/memcore.h` is generated from these by
//! `tests/header.rs`.
//!
//! Inside, every export is `boundary::run(|| ...)`: the panic boundary, the NULL and UTF-8
//! checks and the one place where a failure becomes a status and a last-error message.
#![allow(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(unsafe_op_in_unsafe_fn)]
#![allow(non_camel_case_types)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

// The order of the modules is the order of the header (rustfmt keeps groups apart).
pub mod status;

pub mod error;

pub mod string;

pub mod handle;

pub mod memory;

pub mod listing;

pub mod history;

pub mod search;

pub mod call;

pub mod summarizer;

pub mod embedder;

mod boundary;
mod json;

use std::ffi::{CStr, c_char};

/// The library's version, such as `"0.2.0"`: compare it with the header's
/// `MEMCORE_VERSION` to check that the library loaded at run time is the one compiled
/// against. A static string: never NULL, never freed.
///
/// # Safety
///
/// None: always safe to call.
#[unsafe(no_mangle)]
pub extern "C" fn memcore_version() -> *const c_char {
    const VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(version) => version,
            Err(_) => panic!("the package version contains a NUL byte"),
        };
    VERSION.as_ptr()
}

#[cfg(test)]
mod tests {
    #[test]
    fn version_matches_the_package() {
        // SAFETY: `memcore_version` returns a static C string.
        let version = unsafe { std::ffi::CStr::from_ptr(super::memcore_version()) };
        assert_eq!(version.to_str().ok(), Some(env!("CARGO_PKG_VERSION")));
    }
}
