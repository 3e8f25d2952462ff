//! Reading and deleting compositions (seed 004's `GET` and `DELETE
//! /memory/compositions/{id}`): a composition is found by its name, its composed context read
//! from the registry, and deleting it frees the versions it used for pruning.

use std::path::Path;

use super::Memcore;
use crate::session::registry::check_name;
use crate::session::{CompositionContext, CompositionRecord};
use crate::{Error, Result};

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
        check_name("composition name", name)?;
        let registry = self.registry();
        let composition = registry
            .manifest(self.now())?
            .compositions
            .remove(name)
            .ok_or_else(|| unknown(name))?;
        let file = format!("composed/{name}/{}", composition.context_file());
        if !registry.dir().join(&file).is_file() {
            return Err(Error::not_found(
                format!("the composed context of {name:?} ({file})"),
                "compose it again with replace, or delete the composition",
            ));
        }
        let context = registry.read(&file, None)?;
        Ok(CompositionContext { composition, context })
    }

    /// Deletes the composition named `name`: its entry in the registry first, then its
    /// directory, so that a crash between the two leaves only files a new composition of the
    /// name replaces. The versions it used may be pruned afterwards. Returns its record.
    pub fn session_composition_delete(&self, name: &str) -> Result<CompositionRecord> {
        check_name("composition name", name)?;
        let registry = self.registry();
        let _lock = registry.lock()?;
        let now = self.now();
        let mut manifest = registry.manifest(now)?;
        let record = manifest.compositions.remove(name).ok_or_else(|| unknown(name))?;
        registry.save_manifest(&mut manifest, now)?;
        registry.remove_dir_all(Path::new(&format!("composed/{name}")))?;
        Ok(record)
    }
}

/// The error for a composition that does not exist.
fn unknown(name: &str) -> Error {
    Error::not_found(
        format!("composition {name:?}"),
        "list compositions with `memcore session list`",
    )
}
