//! Finding spec files, reading them safely and parsing them into the model
//! with positioned findings; then the checks across the set.

use std::path::Path;

use super::yaml::{self, Node};
use super::{
    Finding, LoadedSpec, SPEC_DIR, Spec, SpecSet, globs, is_spec_path, json_schema_value, refs,
    schema_check, sort_findings,
};

/// Most findings reported for one file; the rest are summarized.
const MAX_FINDINGS_PER_FILE: usize = 50;

/// Every spec file under `root/.notarai`, repository-relative, sorted, as
/// the one walker ([`crate::walk`]) lists them.
pub fn discover(root: &Path) -> Vec<String> {
    let dir = root.join(SPEC_DIR);
    // A `.notarai` that is a link may only lead somewhere inside the project.
    if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
        let inside = match (dir.canonicalize(), root.canonicalize()) {
            (Ok(target), Ok(root)) => target.starts_with(root),
            _ => false,
        };
        if !inside {
            tracing::warn!(
                "{} is a link to outside the project; its specs are not loaded",
                dir.display()
            );
            return Vec::new();
        }
    }
    // Links are not followed; a FIFO or device named like a spec is listed
    // so that loading it reports what it is (the reader never opens it).
    use crate::walk::Kind;
    crate::walk::entries(&dir, SPEC_DIR, usize::MAX)
        .into_iter()
        .filter(|e| matches!(e.kind, Kind::File | Kind::Other) && is_spec_path(&e.rel))
        .map(|e| e.rel)
        .collect()
}

/// Read the spec file `rel` below `root` as text through the bounded reader
/// ([`crate::safe_fs::read`]): a FIFO, folder or device is refused without
/// being opened, a link out of `root` is not followed, and no more than
/// [`yaml::MAX_BYTES`] are read; large and binary files are refused before
/// parsing.
pub fn read_text(root: &Path, rel: &str) -> Result<String, Finding> {
    use crate::safe_fs::FsError;
    let bytes = match crate::safe_fs::read(root, Path::new(rel), yaml::MAX_BYTES as u64) {
        Ok(bytes) => bytes,
        Err(FsError::TooLarge { .. }) => {
            return Err(Finding::error(
                rel,
                1,
                1,
                format!(
                    "the file is larger than {} bytes, the limit for a spec",
                    yaml::MAX_BYTES
                ),
            )
            .with_hint("split it into several specs and list them under `subsystems`"));
        }
        Err(FsError::NotFound { .. }) => {
            return Err(Finding::error(
                rel,
                1,
                1,
                "cannot read the file: it does not exist",
            ));
        }
        Err(e) => {
            return Err(Finding::error(
                rel,
                1,
                1,
                format!("cannot read the file: {e}"),
            ));
        }
    };
    if bytes.iter().take(8000).any(|&b| b == 0) {
        return Err(Finding::error(
            rel,
            1,
            1,
            "the file is binary, not YAML text",
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        let (line, column) = position_of_byte(e.as_bytes(), e.utf8_error().valid_up_to());
        Finding::error(rel, line, column, "the file is not valid UTF-8 text")
            .with_hint("save the spec as UTF-8")
    })
}

fn position_of_byte(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = String::from_utf8_lossy(&bytes[..offset]);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Parse and validate spec text. On success, the spec and its positioned tree.
pub fn parse_text(path: &str, text: &str) -> Result<(Spec, Node), Vec<Finding>> {
    let tree = match yaml::parse(text) {
        Ok(Some(tree)) => tree,
        Ok(None) => {
            return Err(vec![
                Finding::error(path, 1, 1, "the spec is empty").with_hint(
                    "a spec needs at least `schema_version: '0.8'`, `intent:` and `artifacts:`",
                ),
            ]);
        }
        Err(e) => return Err(vec![e.in_file(path)]),
    };
    let raw = schema_check::check(&tree, json_schema_value());
    if !raw.is_empty() {
        let mut out: Vec<Finding> = raw.into_iter().map(|r| r.in_file(path)).collect();
        sort_findings(&mut out);
        if out.len() > MAX_FINDINGS_PER_FILE {
            let more = out.len() - MAX_FINDINGS_PER_FILE;
            out.truncate(MAX_FINDINGS_PER_FILE);
            let last = &out[MAX_FINDINGS_PER_FILE - 1];
            let (line, column) = (last.line, last.column);
            out.push(Finding::error(
                path,
                line,
                column,
                format!("... and {more} more error(s)"),
            ));
        }
        return Err(out);
    }
    let json = tree.to_json().map_err(|pos| {
        vec![
            Finding::error(
                path,
                pos.line,
                pos.column,
                "this number is not finite (JSON has no infinity or NaN)",
            )
            .with_hint("put it in quotes to keep it as text"),
        ]
    })?;
    match serde_json::from_value::<Spec>(json) {
        Ok(spec) => Ok((spec, tree)),
        // The schema is generated from the same types, so this is a bug in
        // the schema walk; report it rather than panic.
        Err(e) => Err(vec![Finding::error(
            path,
            1,
            1,
            format!("the spec does not fit the model: {e}"),
        )]),
    }
}

/// Read and parse one spec file.
pub fn read_and_parse(root: &Path, rel: &str) -> Result<(String, Spec, Node), Vec<Finding>> {
    let raw = read_text(root, rel).map_err(|f| vec![f])?;
    let (spec, tree) = parse_text(rel, &raw)?;
    Ok((raw, spec, tree))
}

/// The checks of one parsed spec on its own: refs point to existing files
/// inside the repository, globs compile, `tested_by` files exist.
pub fn file_checks(root: &Path, rel: &str, spec: &Spec, tree: &Node) -> Vec<Finding> {
    let mut out = refs::check_refs_exist(root, rel, spec, tree);
    out.extend(refs::check_tested_by(root, rel, spec, tree));
    out.extend(globs::check_compile(rel, spec, tree));
    out
}

/// A parsed spec with its findings, or its errors.
type Parsed = Result<(String, Spec, Node), Vec<Finding>>;

/// Read and parse `files` on all cores (parsing dominates the start of the
/// MCP server), keeping their order.
fn parse_all(root: &Path, files: Vec<String>) -> Vec<(String, Parsed)> {
    let parsed = crate::parallel::map(
        &files,
        16,
        |rel| read_and_parse(root, rel),
        |rel| {
            Err(vec![Finding::error(
                rel,
                1,
                1,
                "internal error while parsing this spec",
            )])
        },
    );
    files.into_iter().zip(parsed).collect()
}

/// Load every spec under `root` and check the set.
pub fn load_set(root: &Path, files: Option<&[String]>) -> SpecSet {
    parse_set(root).finish(root, files)
}

/// Every spec under `root` read, parsed and checked on its own and across
/// the set: all of [`load_set`] but the checks against the repository's
/// files, which [`ParsedSet::finish`] adds.
pub fn parse_set(root: &Path) -> ParsedSet {
    let mut set = SpecSet::default();
    let mut trees = Vec::new();
    for (rel, parsed) in parse_all(root, discover(root)) {
        match parsed {
            Ok((raw, spec, tree)) => {
                set.findings.extend(file_checks(root, &rel, &spec, &tree));
                set.specs.push(LoadedSpec {
                    path: rel,
                    raw,
                    spec,
                });
                trees.push(tree);
            }
            Err(findings) => {
                tracing::debug!(path = %rel, errors = findings.len(), "spec failed to load");
                set.invalid.extend(findings);
            }
        }
    }
    set.system = refs::choose_system(&set.specs);
    set.findings.extend(refs::check_set(&set, &trees));
    ParsedSet { set, trees }
}

/// The specs of a root parsed, waiting for the repository's files (see
/// [`parse_set`]): made where the files are not known yet, so the parse
/// can run beside the walk that finds them.
pub struct ParsedSet {
    set: SpecSet,
    trees: Vec<Node>,
}

impl ParsedSet {
    /// The set with the checks against `files` (the repository's files,
    /// as [`SpecSet::load_with`] takes them; `None` skips them).
    pub fn finish(self, root: &Path, files: Option<&[String]>) -> SpecSet {
        let ParsedSet { mut set, trees } = self;
        if let Some(files) = files {
            set.findings
                .extend(globs::check_orphans(&set.specs, &trees, files));
            set.findings
                .extend(globs::check_anchors(root, &set.specs, &trees, files));
        }
        sort_findings(&mut set.invalid);
        sort_findings(&mut set.findings);
        set
    }
}
