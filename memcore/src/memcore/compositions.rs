//! Reading a session's versions and compositions back (seed 004's `GET
//! /memory/sessions/{id}/versions/{version}` and `GET /memory/compositions/{id}`), and deleting
//! compositions (`DELETE /memory/compositions/{id}`), which frees the versions they used for
//! pruning.

use std::path::Path;

use super::Memcore;
use super::session_compose::find_version;
use crate::session::registry::check_name;
use crate::session::{CompositionContext, CompositionRecord, VersionContent};
use crate::{Error, Result};

impl Memcore {
    /// Version `version_id` of a session with its text (the markdown rendering of its
    /// messages), or with `original` the transcript as registered.
    ///
    /// ```no_run
    /// # let memcore = memcore::Memcore::open("store")?;
    /// let v1 = memcore.session_version("standup-1", "v001")?;
    /// println!("{}", v1.content);
    /// # Ok::<(), memcore::Error>(())
    /// ```
    pub fn session_version(&self, session_id: &str, version_id: &str) -> Result<VersionContent> {
        let session = self.session_show(session_id)?;
        let registry = self.registry();
        if version_id == "original" {
            let content = registry.original(&session)?;
            return Ok(VersionContent { version: None, content });
        }
        let version = find_version(&session, version_id)?.clone();
        let content =
            registry.read(&format!("summaries/{session_id}/{}.md", version.file), None)?;
        Ok(VersionContent { version: Some(version), content })
    }

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
