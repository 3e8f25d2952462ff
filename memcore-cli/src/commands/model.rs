//! `model`: where the embedding model and ONNX Runtime are, or how to get them.

use memcore::ModelFiles;
use serde_json::json;

use crate::cli::GlobalArgs;
use crate::failure::Failure;
use crate::output::Output;

/// `model`: locates the files (honouring the store's `embedding.model_dir`) and checks the
/// model's hash. Missing or wrong files are an error whose hint says how to fetch them.
pub(super) fn run(global: &GlobalArgs, out: &mut Output) -> Result<(), Failure> {
    let location = crate::store::locate(global)?;
    let embedding = &location.config.embedding;
    let files = ModelFiles::locate(embedding.model_dir.as_deref())?;
    let model_id = files.verify()?;
    if !embedding.enabled {
        let source = location.config_file.as_ref().map(|f| f.display().to_string());
        out.warn(&format!(
            "semantic search is switched off (embedding.enabled: false in {})",
            source.as_deref().unwrap_or("the settings")
        ));
    }
    if out.json() {
        return out.print_json(&json!({
            "model": files.model,
            "model_id": model_id,
            "tokenizer": files.tokenizer,
            "runtime": files.runtime,
            "verified": true,
            "enabled": embedding.enabled,
        }));
    }
    let rows =
        [("model", &files.model), ("tokenizer", &files.tokenizer), ("runtime", &files.runtime)]
            .map(|(name, path)| vec![name.to_owned(), path.display().to_string()]);
    out.table(&["FILE", "PATH"], &rows)?;
    out.confirm(&format!("the model is the pinned {model_id} (sha256 checked)"))
}
