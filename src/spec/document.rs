//! Another YAML file of `.notarai/` read as a spec is: with positions, its
//! JSON Schema generated from the Rust type it becomes, every finding
//! worded with a hint (`check.yaml` is one).

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::Finding;
use super::yaml::{self, Node};

/// A parsed document and where each of its values starts.
#[derive(Debug, Clone)]
pub struct Document<T> {
    /// The typed value.
    pub value: T,
    tree: Node,
}

impl<T> Document<T> {
    /// The 1-based line and column of the value at a JSON pointer
    /// (`/ignore/0/until`); the document's start when there is none.
    pub fn position(&self, pointer: &str) -> (usize, usize) {
        self.tree
            .pointer(pointer)
            .map_or((1, 1), |n| (n.pos.line, n.pos.column))
    }
}

/// Parse `text` (the file `path`, for the findings) as a `T`: YAML with
/// positions, checked against `T`'s JSON Schema (doc comments as
/// descriptions, `null` not allowed for an optional key), then
/// deserialized. An empty document is `T::default()`.
pub fn parse_document<T: DeserializeOwned + JsonSchema + Default>(
    path: &str,
    text: &str,
) -> Result<Document<T>, Vec<Finding>> {
    let tree = match yaml::parse(text) {
        Ok(Some(tree)) => tree,
        Ok(None) => {
            return Ok(Document {
                value: T::default(),
                tree: yaml::parse("{}").ok().flatten().expect("{} parses"),
            });
        }
        Err(e) => return Err(vec![e.in_file(path)]),
    };
    let mut schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    super::strip_null(&mut schema);
    let raw = super::schema_check::check(&tree, &schema);
    if !raw.is_empty() {
        let mut out: Vec<Finding> = raw.into_iter().map(|r| r.in_file(path)).collect();
        super::sort_findings(&mut out);
        return Err(out);
    }
    let json = tree.to_json().map_err(|pos| {
        vec![Finding::error(
            path,
            pos.line,
            pos.column,
            "this number is not finite",
        )]
    })?;
    match serde_json::from_value::<T>(json) {
        Ok(value) => Ok(Document { value, tree }),
        Err(e) => Err(vec![Finding::error(path, 1, 1, e.to_string())]),
    }
}

/// The positions of a YAML text's values, without a type: what a check of
/// an already loaded spec needs to point at a line. `None` when the text
/// is not YAML.
pub fn yaml_positions(text: &str) -> Option<Document<()>> {
    let tree = yaml::parse(text).ok().flatten()?;
    Some(Document { value: (), tree })
}
