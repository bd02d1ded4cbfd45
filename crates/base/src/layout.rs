//! Where notarai keeps things inside a repository: the spec folder, its own
//! cache folder and the files in it. A leaf module: it imports nothing of
//! notarai, so every layer can name these places without pulling in another.

/// Folder under the root that holds the specs.
pub const SPEC_DIR: &str = ".notarai";
/// Folder under [`SPEC_DIR`] that holds notarai's own state, never specs.
pub const CACHE_DIR: &str = ".notarai/.cache";
/// The preferred system spec when several specs have `subsystems`.
pub const SYSTEM_SPEC: &str = ".notarai/system.spec.yaml";
/// The hash cache database, relative to the root.
pub const DB_FILE: &str = ".notarai/.cache/notarai.db";
/// The facts one process learned of contents (semantic hashes, outlines)
/// for the next, relative to the root: a database of its own beside the
/// hash cache.
pub const FACTS_FILE: &str = ".notarai/.cache/facts.db";
/// The JSON Schema of the spec format that `notarai init` writes (and
/// regenerates) for editors: notarai's own file, like the state file.
pub const SCHEMA_FILE: &str = ".notarai/notarai.spec.json";
/// The kept spec load status, relative to the root.
pub const LOAD_STATUS_FILE: &str = ".notarai/.cache/load-status.json";
/// The folder git keeps its own data in; never walked.
pub const GIT_DIR: &str = ".git";
/// The pre-edit hook's index of the specs (their stamps, globs and the
/// lines it tells), relative to the root.
pub const SPEC_INDEX_FILE: &str = ".notarai/.cache/spec-index.json";
/// The cache folder's own ignore file, holding `*`: whatever notarai keeps
/// there is never a file git tracks, whatever the project's `.gitignore`.
pub const CACHE_GITIGNORE: &str = ".notarai/.cache/.gitignore";
