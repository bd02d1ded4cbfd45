//! Checks a positioned YAML tree against the JSON Schema generated from the
//! model, and words each finding for a person, with a hint.
//!
//! Only the keywords schemars emits for the model are interpreted: `$ref`,
//! `type`, `enum`, `const`, `oneOf`/`anyOf`, `properties`, `required`,
//! `additionalProperties`, `items`, `minItems`, `minimum`/`maximum`,
//! `allOf`, `not` and `if`/`then`/`else`. Because the schema comes from the same types the
//! loader deserializes into, a tree that passes here deserializes.

use serde_json::Value;

use super::yaml::{Kind, Node, RawFinding, Scalar};

/// Check `node` against the root `schema` (whose `$defs` resolve `$ref`s).
/// A `schema_version` that names no supported version is the one finding
/// reported: the rest of such a file follows another format, and "fixing"
/// it key by key would be wrong.
pub fn check(node: &Node, schema: &Value) -> Vec<RawFinding> {
    if let Some(v) = unsupported_version(node, schema) {
        return vec![v];
    }
    let mut out = Vec::new();
    Checker {
        root: schema,
        probe: false,
    }
    .check(node, schema, "", &mut out);
    out
}

/// The finding on a `schema_version` written as text that is not one of
/// the versions the root schema lists (a 0.3 or 0.4 file, or a typo).
fn unsupported_version(node: &Node, schema: &Value) -> Option<RawFinding> {
    let value = node.get("schema_version")?;
    let Kind::Scalar(Scalar::Str(version), _) = &value.kind else {
        return None;
    };
    let supported: Vec<&str> = schema
        .pointer("/properties/schema_version/enum")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    if supported.contains(&version.as_str()) {
        return None;
    }
    let newest = supported.first()?;
    Some(RawFinding {
        pos: value.pos,
        message: format!("unsupported spec format version `{version}`"),
        hint: Some(format!(
            "notarai reads schema_version {}; update the file to the newest format and write `schema_version: '{newest}'`",
            supported.join(", ")
        )),
    })
}

struct Checker<'s> {
    root: &'s Value,
    /// Evaluating an `if`: a missing key is missing, even when a misspelt
    /// one is reported elsewhere.
    probe: bool,
}

/// Type names of the schema, as a person reads them.
fn expected_name(ty: &str) -> &'static str {
    match ty {
        "string" => "text",
        "array" => "a list",
        "object" => "a mapping of `key: value` lines",
        "integer" => "a whole number",
        "number" => "a number",
        "boolean" => "true or false",
        "null" => "empty",
        _ => "something else",
    }
}

fn found_name(node: &Node) -> &'static str {
    match &node.kind {
        Kind::Scalar(Scalar::Null, _) => "nothing",
        Kind::Scalar(Scalar::Bool(_), _) => "a boolean",
        Kind::Scalar(Scalar::Int(_), _) | Kind::Scalar(Scalar::Float(_), _) => "a number",
        Kind::Scalar(Scalar::Str(_), _) => "text",
        Kind::Seq(_) => "a list",
        Kind::Map(_) => "a mapping",
    }
}

fn has_type(node: &Node, ty: &str) -> bool {
    match (&node.kind, ty) {
        (Kind::Scalar(Scalar::Null, _), "null") => true,
        (Kind::Scalar(Scalar::Bool(_), _), "boolean") => true,
        (Kind::Scalar(Scalar::Int(_), _), "integer" | "number") => true,
        (Kind::Scalar(Scalar::Float(f), _), "number") => f.is_finite(),
        (Kind::Scalar(Scalar::Float(f), _), "integer") => f.fract() == 0.0 && f.is_finite(),
        (Kind::Scalar(Scalar::Str(_), _), "string") => true,
        (Kind::Seq(_), "array") => true,
        (Kind::Map(_), "object") => true,
        _ => false,
    }
}

/// The value of a scalar node as JSON, for enum comparison.
fn scalar_json(node: &Node) -> Option<Value> {
    match &node.kind {
        Kind::Scalar(..) => node.to_json().ok(),
        _ => None,
    }
}

fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The subject of a message: "`tier`", "`behaviors[0].name`", or "the spec".
fn subject(path: &str) -> String {
    if path.is_empty() {
        "the spec".to_string()
    } else {
        format!("`{path}`")
    }
}

/// The closest candidate to `word`, when it is close enough to be a typo.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_lowercase();
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(&lower, &c.to_lowercase()), c))
        .filter(|(d, c)| {
            // Short words are too alike to guess between; allow one edit per three letters.
            let len = c.chars().count();
            *d <= if len < 4 { 0 } else { len / 3 }
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

impl<'s> Checker<'s> {
    fn resolve(&self, reference: &str) -> Option<&'s Value> {
        self.root.pointer(reference.strip_prefix('#')?)
    }

    fn check(&self, node: &Node, schema: &'s Value, path: &str, out: &mut Vec<RawFinding>) {
        let obj = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => {
                out.push(RawFinding {
                    pos: node.pos,
                    message: format!("{} is not allowed here", subject(path)),
                    hint: None,
                });
                return;
            }
            Value::Object(obj) => obj,
            _ => return,
        };
        if let Some(target) = obj
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| self.resolve(r))
        {
            let before = out.len();
            self.check(node, target, path, out);
            if out.len() > before {
                return;
            }
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = obj.get(key)
                && !self.alternatives(node, branches, path, out)
            {
                return;
            }
        }
        if let Some(ty) = obj.get("type")
            && !self.type_ok(node, ty, path, obj, out)
        {
            return;
        }
        if let Some(Value::Array(allowed)) = obj.get("enum") {
            self.enumeration(node, allowed, path, out);
        }
        if let Some(c) = obj.get("const") {
            self.enumeration(node, std::slice::from_ref(c), path, out);
        }
        self.bounds(node, obj, path, out);
        match &node.kind {
            Kind::Map(_) => self.object(node, obj, path, out),
            Kind::Seq(items) => {
                if let Some(min) = obj.get("minItems").and_then(Value::as_u64)
                    && (items.len() as u64) < min
                {
                    out.push(RawFinding {
                        pos: node.pos,
                        message: format!(
                            "{} needs at least {min} item(s), found {}",
                            subject(path),
                            items.len()
                        ),
                        hint: None,
                    });
                }
                if let Some(item_schema) = obj.get("items") {
                    for (i, item) in items.iter().enumerate() {
                        self.check(item, item_schema, &format!("{path}[{i}]"), out);
                    }
                }
            }
            Kind::Scalar(..) => {}
        }
        if let Some(Value::Array(all)) = obj.get("allOf") {
            for branch in all {
                self.check(node, branch, path, out);
            }
        }
        if let Some(forbidden) = obj.get("not") {
            self.not(node, forbidden, obj.get("description"), path, out);
        }
        if let Some(cond) = obj.get("if") {
            let mut probe = Vec::new();
            Checker {
                root: self.root,
                probe: true,
            }
            .check(node, cond, path, &mut probe);
            let branch = if probe.is_empty() {
                obj.get("then")
            } else {
                obj.get("else")
            };
            if let Some(branch) = branch {
                self.check(node, branch, path, out);
            }
        }
    }

    /// `not`: the node must not match `forbidden`. The form the model uses,
    /// `not: {anyOf: [{required: [key]}, ...]}`, is reported at each present
    /// key, with the schema's `description` as the hint.
    fn not(
        &self,
        node: &Node,
        forbidden: &'s Value,
        description: Option<&Value>,
        path: &str,
        out: &mut Vec<RawFinding>,
    ) {
        let mut probe = Vec::new();
        Checker {
            root: self.root,
            probe: true,
        }
        .check(node, forbidden, path, &mut probe);
        if !probe.is_empty() {
            return;
        }
        let hint = description.and_then(Value::as_str).map(str::to_string);
        let keys: Vec<&str> = forbidden
            .get("anyOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|b| b.get("required")?.as_array())
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut reported = false;
        for (key, _) in node.entries() {
            if keys.contains(&key.text.as_str()) {
                let place = if path.is_empty() {
                    String::new()
                } else {
                    format!(" in `{path}`")
                };
                out.push(RawFinding {
                    pos: key.pos,
                    message: format!("`{}` is not allowed here{place}", key.text),
                    hint: hint.clone(),
                });
                reported = true;
            }
        }
        if !reported {
            out.push(RawFinding {
                pos: node.pos,
                message: format!("{} is not allowed here", subject(path)),
                hint,
            });
        }
    }

    /// `oneOf`/`anyOf`: a list of constants is an enum; otherwise the node
    /// must match one branch. Returns whether checking should go on.
    fn alternatives(
        &self,
        node: &Node,
        branches: &'s [Value],
        path: &str,
        out: &mut Vec<RawFinding>,
    ) -> bool {
        let consts: Option<Vec<Value>> = branches
            .iter()
            .map(|b| b.get("const").cloned().or_else(|| b.get("enum").cloned()))
            .collect::<Option<Vec<_>>>()
            .map(|vs| {
                vs.into_iter()
                    .flat_map(|v| match v {
                        Value::Array(a) => a,
                        other => vec![other],
                    })
                    .collect()
            });
        if let Some(values) = consts {
            return self.enumeration(node, &values, path, out);
        }
        let mut best: Option<Vec<RawFinding>> = None;
        for branch in branches {
            let mut errs = Vec::new();
            self.check(node, branch, path, &mut errs);
            if errs.is_empty() {
                return true;
            }
            let typed = branch
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| has_type(node, t));
            if best.is_none() || typed {
                best = Some(errs);
            }
        }
        out.extend(best.unwrap_or_default());
        false
    }

    fn type_ok(
        &self,
        node: &Node,
        ty: &Value,
        path: &str,
        obj: &serde_json::Map<String, Value>,
        out: &mut Vec<RawFinding>,
    ) -> bool {
        let types: Vec<&str> = match ty {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => return true,
        };
        if types.iter().any(|t| has_type(node, t)) {
            return true;
        }
        let expected = types
            .iter()
            .map(|t| expected_name(t))
            .collect::<Vec<_>>()
            .join(" or ");
        let found = match &node.kind {
            Kind::Scalar(Scalar::Float(f), _) if !f.is_finite() => "a number that is not finite",
            Kind::Scalar(Scalar::Float(_), _) if types.contains(&"integer") => "a fraction",
            _ => found_name(node),
        };
        let hint = self.type_hint(node, &types, obj);
        out.push(RawFinding {
            pos: node.pos,
            message: format!("{} must be {expected}, found {found}", subject(path)),
            hint,
        });
        false
    }

    fn type_hint(
        &self,
        node: &Node,
        types: &[&str],
        obj: &serde_json::Map<String, Value>,
    ) -> Option<String> {
        let raw = match &node.kind {
            Kind::Scalar(_, raw) => Some(raw.as_str()),
            _ => None,
        };
        if types.contains(&"string") {
            return match (&node.kind, raw) {
                (Kind::Scalar(Scalar::Null, _), _) => Some("write the text after the colon".into()),
                (Kind::Scalar(..), Some(raw)) => Some(format!("put it in quotes: '{raw}'")),
                _ => None,
            };
        }
        if types.contains(&"array") {
            return Some(
                match (
                    &node.kind,
                    obj.get("items").and_then(|i| self.single_required(i)),
                ) {
                    (Kind::Scalar(Scalar::Str(s), _), Some(field)) => {
                        format!("write a list, one item per line: `- {field}: '{s}'`")
                    }
                    (Kind::Scalar(Scalar::Str(s), _), None) => {
                        format!("write a list, one item per line: `- '{s}'`")
                    }
                    _ => "write a list, one `- ` item per line".into(),
                },
            );
        }
        if types.contains(&"object") {
            if let (Kind::Scalar(Scalar::Str(s), _), Some(field)) = (
                &node.kind,
                self.single_required(&Value::Object(obj.clone())),
            ) {
                return Some(format!("write `{field}: '{s}'`"));
            }
            return Some("write `key: value` lines indented under the key".into());
        }
        None
    }

    /// The one required property of an object schema (`path`, `$ref`, ...), if it has exactly one.
    fn single_required(&self, schema: &'s Value) -> Option<String> {
        let schema = match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => self.resolve(r)?,
            None => schema,
        };
        match schema.get("required")?.as_array()?.as_slice() {
            [Value::String(only)] => Some(only.clone()),
            _ => None,
        }
    }

    fn enumeration(
        &self,
        node: &Node,
        allowed: &[Value],
        path: &str,
        out: &mut Vec<RawFinding>,
    ) -> bool {
        let value = scalar_json(node);
        if value.as_ref().is_some_and(|v| allowed.contains(v)) {
            return true;
        }
        let names: Vec<String> = allowed.iter().map(show).collect();
        let written = match &node.kind {
            Kind::Scalar(_, raw) => raw.clone(),
            _ => found_name(node).to_string(),
        };
        let mut hint = format!("expected one of {}", names.join(", "));
        if let Some(close) = closest(&written, names.iter().map(String::as_str)) {
            hint = format!("did you mean `{close}`? {hint}");
        }
        out.push(RawFinding {
            pos: node.pos,
            message: format!("{} has an unknown value `{written}`", subject(path)),
            hint: Some(hint),
        });
        false
    }

    fn bounds(
        &self,
        node: &Node,
        obj: &serde_json::Map<String, Value>,
        path: &str,
        out: &mut Vec<RawFinding>,
    ) {
        let n = match &node.kind {
            Kind::Scalar(Scalar::Int(i), _) => *i as f64,
            Kind::Scalar(Scalar::Float(f), _) => *f,
            _ => return,
        };
        let mut min = obj.get("minimum").and_then(Value::as_f64);
        let mut max = obj.get("maximum").and_then(Value::as_f64);
        // The model stores `int64`/`uint*` integers: a whole number beyond
        // that range cannot be held and is reported here, at its position.
        match obj.get("format").and_then(Value::as_str) {
            Some("int64") => {
                min = min.or(Some(i64::MIN as f64));
                max = max.or(Some(i64::MAX as f64));
            }
            Some("uint64") | Some("uint") => {
                min = min.or(Some(0.0));
                max = max.or(Some(u64::MAX as f64));
            }
            _ => {}
        }
        if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
            let range = match (min, max) {
                (Some(a), Some(b)) => format!("from {a} to {b}"),
                (Some(a), None) => format!("at least {a}"),
                (None, Some(b)) => format!("at most {b}"),
                (None, None) => unreachable!("checked above"),
            };
            out.push(RawFinding {
                pos: node.pos,
                message: format!("{} is {n}, out of range", subject(path)),
                hint: Some(format!("use a value {range}")),
            });
        }
    }

    fn object(
        &self,
        node: &Node,
        obj: &'s serde_json::Map<String, Value>,
        path: &str,
        out: &mut Vec<RawFinding>,
    ) {
        let empty = serde_json::Map::new();
        let props = obj
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let additional = obj.get("additionalProperties");
        let join = |key: &str| {
            if path.is_empty() {
                key.to_string()
            } else {
                format!("{path}.{key}")
            }
        };
        for (key, value) in node.entries() {
            if let Some(prop) = props.get(&key.text) {
                self.check(value, prop, &join(&key.text), out);
                continue;
            }
            match additional {
                Some(Value::Bool(false)) => {
                    let hint = match closest(&key.text, props.keys().map(String::as_str)) {
                        Some(close) => format!("did you mean `{close}`?"),
                        None => format!(
                            "allowed keys here: {}",
                            props
                                .keys()
                                .map(String::as_str)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    };
                    let place = if path.is_empty() {
                        String::new()
                    } else {
                        format!(" in `{path}`")
                    };
                    out.push(RawFinding {
                        pos: key.pos,
                        message: format!("unknown key `{}`{place}", key.text),
                        hint: Some(hint),
                    });
                }
                Some(schema @ Value::Object(_)) => self.check(value, schema, &join(&key.text), out),
                _ => {}
            }
        }
        if let Some(Value::Array(required)) = obj.get("required") {
            for key in required.iter().filter_map(Value::as_str) {
                if node.get(key).is_some() {
                    continue;
                }
                // A misspelt key is reported once, as unknown with a suggestion
                // (a probe of an alternative only needs to know it fails).
                let misspelt = || {
                    node.entries().iter().any(|(k, _)| {
                        !props.contains_key(&k.text) && closest(&k.text, [key]).is_some()
                    })
                };
                if !self.probe && misspelt() {
                    continue;
                }
                let hint = if key == "behaviors" && path.is_empty() {
                    "add `behaviors:` with at least one `- name: / given: / then:` item, or set `tier: registered` or `tier: derived`".to_string()
                } else if key == "artifacts" && path.is_empty() {
                    "add `artifacts:` with the files this spec governs, or set `cross_cutting: true` for a concern that other specs pull in with `applies`".to_string()
                } else {
                    format!("add `{key}: ...`")
                };
                let place = if path.is_empty() {
                    String::new()
                } else {
                    format!(" in `{path}`")
                };
                out.push(RawFinding {
                    pos: node.pos,
                    message: format!("missing required key `{key}`{place}"),
                    hint: Some(hint),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests;
