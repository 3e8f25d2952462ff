//! Reading and deleting compositions (seed 004's `GET` and `DELETE
//! /memory/compositions/{id}`): a composition is found by its name, its composed context read
//! from the registry, and deleting it frees the versions it used for pruning.

use std::path::Path;

use super::Memcore;
use crate::session::registry::{Registry, check_name};
use crate::session::{CompositionContext, CompositionRecord};
use crate::{Error, Result};

/// The files a composition may have written, inside `composed/<name>/`.
const COMPOSED_FILES: [&str; 3] = ["composed.md", "composed.jsonl", "composition.json"];

impl Memcore {
    /// The composition named `name` with the context it composed: `composed.md`, or
    /// `composed.jsonl` when only that was written.
    ///
    /// ```no_run
    /// # let memcore = memcore::Memcore::open("store")?;
    /// let composed = memcore.session_composition("weekly")?;
    /// println!("{} tokens:\n{}", composed.composition.total_tokens, composed.context);
    /// # Ok::<(), memcore::Error>(())
    /// ```
    pub fn session_composition(&self, name: &str) -> Result<CompositionContext> {
        let registry = self.registry();
        let composition = find(&registry, self, name)?;
        let file = if composition.output_file.ends_with(".jsonl") {
            "composed.jsonl"
        } else {
            "composed.md"
        };
        let context = registry.read(&format!("composed/{name}/{file}"), None)?;
        Ok(CompositionContext { composition, context })
    }

    /// Deletes the composition named `name`: its entry in the registry first, then its
    /// files, so that a crash between the two leaves only files a new composition of the
    /// name replaces. The versions it used may be pruned afterwards. Returns its record.
    pub fn session_composition_delete(&self, name: &str) -> Result<CompositionRecord> {
        let registry = self.registry();
        let _lock = registry.lock()?;
        let now = self.now();
        let mut manifest = registry.manifest(now)?;
        check_name("composition name", name)?;
        let record = manifest.compositions.remove(name).ok_or_else(|| unknown(name))?;
        registry.save_manifest(&mut manifest, now)?;
        for file in COMPOSED_FILES {
            registry.remove(Path::new(&format!("composed/{name}/{file}")))?;
        }
        registry.remove_dir(Path::new(&format!("composed/{name}")))?;
        Ok(record)
    }
}

/// The record of the composition `name`.
fn find(registry: &Registry, memcore: &Memcore, name: &str) -> Result<CompositionRecord> {
    check_name("composition name", name)?;
    registry.manifest(memcore.now())?.compositions.remove(name).ok_or_else(|| unknown(name))
}

/// The error for a composition that does not exist.
fn unknown(name: &str) -> Error {
    Error::not_found(
        format!("composition {name:?}"),
        "list compositions with `memcore session list`",
    )
}
