//! A YAML document as a tree of nodes that remember where they were written.
//!
//! Built from the events of `saphyr-parser` so every key and value keeps its
//! 1-based line and column. Plain scalars are resolved with the YAML 1.2 core
//! schema (null, booleans, integers, floats, else strings). The builder is
//! bounded: input size, nesting depth and the node count after alias
//! expansion are capped, so no input can exhaust time, memory or the stack.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};

use super::Finding;

/// Largest spec file accepted, in bytes.
pub const MAX_BYTES: usize = 1024 * 1024;
/// Deepest nesting of lists and mappings accepted.
pub const MAX_DEPTH: usize = 64;
/// Most nodes a document may hold once aliases are expanded.
pub const MAX_NODES: usize = 100_000;

/// A 1-based line and column (columns count characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Pos {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl Pos {
    fn of(span: &Span) -> Pos {
        Pos {
            line: span.start.line().max(1),
            column: span.start.col() + 1,
        }
    }
}

/// A scalar after resolution.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// `~`, `null` or nothing.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A floating point number (possibly infinite or NaN).
    Float(f64),
    /// Text.
    Str(String),
}

/// The content of a node.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A scalar, with the text as written (for messages).
    Scalar(Scalar, String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in source order, keys as text.
    Map(Vec<(Key, Node)>),
}

/// A mapping key and its position.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    /// The key as text.
    pub text: String,
    /// Where the key starts.
    pub pos: Pos,
}

/// A node of the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// What it holds.
    pub kind: Kind,
    /// Where it starts.
    pub pos: Pos,
    /// Number of nodes in this subtree, itself included.
    size: usize,
}

impl Node {
    /// The mapping entry with key `key`, when this node is a mapping that has it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Map(entries) => entries.iter().find(|(k, _)| k.text == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The key itself of entry `key` (for positions of keys).
    pub fn key(&self, key: &str) -> Option<&Key> {
        match &self.kind {
            Kind::Map(entries) => entries.iter().find(|(k, _)| k.text == key).map(|(k, _)| k),
            _ => None,
        }
    }

    /// The entries of a mapping, empty for anything else.
    pub fn entries(&self) -> &[(Key, Node)] {
        match &self.kind {
            Kind::Map(entries) => entries,
            _ => &[],
        }
    }

    /// Follow a JSON pointer (`/subsystems/0/$ref`, `~1` and `~0` escaped).
    pub fn pointer(&self, pointer: &str) -> Option<&Node> {
        let mut node = self;
        for part in pointer.split('/').skip(1) {
            let part = part.replace("~1", "/").replace("~0", "~");
            node = match &node.kind {
                Kind::Map(_) => node.get(&part)?,
                Kind::Seq(items) => items.get(part.parse::<usize>().ok()?)?,
                Kind::Scalar(..) => return None,
            };
        }
        Some(node)
    }

    /// The tree as a JSON value (mappings keep their order). `Err` holds the
    /// position of a number JSON cannot represent (infinite or NaN).
    pub fn to_json(&self) -> Result<serde_json::Value, Pos> {
        use serde_json::Value;
        Ok(match &self.kind {
            Kind::Scalar(Scalar::Null, _) => Value::Null,
            Kind::Scalar(Scalar::Bool(b), _) => Value::Bool(*b),
            Kind::Scalar(Scalar::Int(i), _) => Value::from(*i),
            // A whole float (`4.0`) is an integer to JSON Schema; keep it one for the model too.
            Kind::Scalar(Scalar::Float(f), _) if f.fract() == 0.0 && f.abs() < 9.0e15 => {
                Value::from(*f as i64)
            }
            Kind::Scalar(Scalar::Float(f), _) => {
                Value::Number(serde_json::Number::from_f64(*f).ok_or(self.pos)?)
            }
            Kind::Scalar(Scalar::Str(s), _) => Value::String(s.clone()),
            Kind::Seq(items) => {
                Value::Array(items.iter().map(Node::to_json).collect::<Result<_, _>>()?)
            }
            Kind::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| Ok((k.text.clone(), v.to_json()?)))
                    .collect::<Result<_, Pos>>()?,
            ),
        })
    }
}

/// A finding inside one text, before its file is known: why a text is not
/// a usable YAML document, or where it breaks the schema. [`RawFinding::in_file`]
/// makes it a [`Finding`].
#[derive(Debug, Clone, PartialEq)]
pub struct RawFinding {
    /// Where.
    pub pos: Pos,
    /// What, for a person.
    pub message: String,
    /// What to do about it, when known.
    pub hint: Option<String>,
}

impl RawFinding {
    /// An error at `pos`.
    pub(super) fn new(pos: Pos, message: impl Into<String>) -> RawFinding {
        RawFinding {
            pos,
            message: message.into(),
            hint: None,
        }
    }

    /// The same finding with a hint.
    pub(super) fn with_hint(mut self, hint: impl Into<String>) -> RawFinding {
        self.hint = Some(hint.into());
        self
    }

    /// The error [`Finding`] this is in the file `path`.
    pub fn in_file(self, path: &str) -> Finding {
        let mut f = Finding::error(path, self.pos.line, self.pos.column, self.message);
        f.hint = self.hint;
        f
    }
}

enum Frame {
    Seq {
        pos: Pos,
        anchor: usize,
        items: Vec<Node>,
        size: usize,
    },
    Map {
        pos: Pos,
        anchor: usize,
        entries: Vec<(Key, Node)>,
        key: Option<Key>,
        size: usize,
    },
}

/// Parse one YAML document into a positioned tree. `Ok(None)` for a file
/// with no document at all (empty or only comments).
pub fn parse(text: &str) -> Result<Option<Node>, RawFinding> {
    if text.len() > MAX_BYTES {
        return Err(RawFinding::new(
            Pos { line: 1, column: 1 },
            format!(
                "the file is {} bytes; a spec may be at most {} bytes",
                text.len(),
                MAX_BYTES
            ),
        )
        .with_hint("split it into several specs and list them under `subsystems`"));
    }
    Builder::default().run(text)
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    anchors: HashMap<usize, Node>,
    nodes: usize,
    root: Option<Node>,
    documents: usize,
}

impl Builder {
    fn run(mut self, text: &str) -> Result<Option<Node>, RawFinding> {
        for item in Parser::new_from_str(text) {
            let (event, span) = item.map_err(|e| {
                RawFinding::new(
                    Pos {
                        line: e.marker().line().max(1),
                        column: e.marker().col() + 1,
                    },
                    format!("YAML syntax error: {}", e.info()),
                )
            })?;
            self.event(event, Pos::of(&span))?;
        }
        Ok(self.root)
    }

    /// One parser event at `pos`.
    fn event(&mut self, event: Event<'_>, pos: Pos) -> Result<(), RawFinding> {
        match event {
            Event::DocumentStart(_) => {
                self.documents += 1;
                if self.documents > 1 {
                    return Err(RawFinding::new(
                        pos,
                        "a spec file holds one YAML document; this is a second one",
                    )
                    .with_hint(
                        "remove the `---` line, or move the second document to its own file",
                    ));
                }
            }
            Event::Scalar(value, style, anchor, tag) => {
                let scalar = resolve(&value, style, tag.as_deref(), pos)?;
                let node = Node {
                    kind: Kind::Scalar(scalar, value.into_owned()),
                    pos,
                    size: 1,
                };
                self.count(1, pos)?;
                self.value(node, anchor)?;
            }
            Event::Alias(id) => self.alias(id, pos)?,
            Event::SequenceStart(anchor, tag) => {
                self.open(pos, tag.as_deref(), "seq")?;
                self.stack.push(Frame::Seq {
                    pos,
                    anchor,
                    items: Vec::new(),
                    size: 1,
                });
            }
            Event::MappingStart(anchor, tag) => {
                self.open(pos, tag.as_deref(), "map")?;
                self.stack.push(Frame::Map {
                    pos,
                    anchor,
                    entries: Vec::new(),
                    key: None,
                    size: 1,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(pos)?,
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => {}
        }
        Ok(())
    }

    /// An alias: a copy of its anchored node, counted whole against
    /// [`MAX_NODES`] (so a billion laughs stops early).
    fn alias(&mut self, id: usize, pos: Pos) -> Result<(), RawFinding> {
        let Some(node) = self.anchors.get(&id) else {
            return Err(RawFinding::new(pos, "alias to an unknown anchor"));
        };
        let size = node.size;
        self.nodes = self.nodes.saturating_add(size);
        if self.nodes > MAX_NODES {
            return Err(too_many_nodes(pos));
        }
        let node = node.clone();
        self.value(node, 0)
    }

    /// The end of the innermost sequence or mapping: its node, placed in
    /// the one around it.
    fn close(&mut self, pos: Pos) -> Result<(), RawFinding> {
        let (node, anchor) = match self.stack.pop() {
            Some(Frame::Seq {
                pos,
                anchor,
                items,
                size,
            }) => (
                Node {
                    kind: Kind::Seq(items),
                    pos,
                    size,
                },
                anchor,
            ),
            Some(Frame::Map {
                pos,
                anchor,
                entries,
                size,
                ..
            }) => (
                Node {
                    kind: Kind::Map(entries),
                    pos,
                    size,
                },
                anchor,
            ),
            None => return Err(RawFinding::new(pos, "unbalanced YAML structure")),
        };
        self.value(node, anchor)
    }

    fn open(&mut self, pos: Pos, tag: Option<&Tag>, expected: &str) -> Result<(), RawFinding> {
        if let Some(tag) = tag
            && !(tag.is_yaml_core_schema() && tag.suffix == expected)
            && !(tag.handle == "!" && tag.suffix.is_empty())
        {
            return Err(unsupported_tag(pos, tag));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(RawFinding::new(
                pos,
                format!("nesting deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.count(1, pos)
    }

    /// Account for `n` more nodes; an error past [`MAX_NODES`].
    fn count(&mut self, n: usize, pos: Pos) -> Result<(), RawFinding> {
        self.nodes = self.nodes.saturating_add(n);
        if self.nodes > MAX_NODES {
            return Err(too_many_nodes(pos));
        }
        Ok(())
    }

    /// Attach a finished node to the open container (or make it the root).
    fn value(&mut self, node: Node, anchor: usize) -> Result<(), RawFinding> {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq { items, size, .. }) => {
                *size += node.size;
                items.push(node);
            }
            Some(Frame::Map {
                entries, key, size, ..
            }) => match key.take() {
                None => {
                    let text = match node.kind {
                        Kind::Scalar(Scalar::Null, ref raw) if raw.is_empty() => {
                            return Err(RawFinding::new(node.pos, "a key is missing before `:`"));
                        }
                        Kind::Scalar(_, raw) => raw,
                        _ => {
                            return Err(RawFinding::new(
                                node.pos,
                                "a mapping key must be plain text, not a list or mapping",
                            ));
                        }
                    };
                    if entries.iter().any(|(k, _)| k.text == text) {
                        return Err(RawFinding::new(node.pos, format!("duplicate key `{text}`"))
                            .with_hint(
                                "each key may appear once per mapping; merge the two entries",
                            ));
                    }
                    *key = Some(Key {
                        text,
                        pos: node.pos,
                    });
                }
                Some(k) => {
                    *size += node.size;
                    entries.push((k, node));
                }
            },
        }
        Ok(())
    }
}

fn too_many_nodes(pos: Pos) -> RawFinding {
    RawFinding::new(
        pos,
        format!("the document expands to more than {MAX_NODES} values (aliases included)"),
    )
    .with_hint("a spec this large is likely an alias bomb; write the values out or split the spec")
}

fn unsupported_tag(pos: Pos, tag: &Tag) -> RawFinding {
    RawFinding::new(pos, format!("unsupported YAML tag `{tag}`"))
        .with_hint("remove the tag; specs use plain YAML values")
}

/// Resolve a scalar: quoted and block scalars are text; plain ones follow
/// the YAML 1.2 core schema unless a core tag says otherwise.
fn resolve(
    value: &str,
    style: ScalarStyle,
    tag: Option<&Tag>,
    pos: Pos,
) -> Result<Scalar, RawFinding> {
    if let Some(tag) = tag {
        if tag.handle == "!" && tag.suffix.is_empty() {
            return Ok(Scalar::Str(value.to_string()));
        }
        if !tag.is_yaml_core_schema() {
            return Err(unsupported_tag(pos, tag));
        }
        let bad = || RawFinding::new(pos, format!("`{value}` is not a valid !!{}", tag.suffix));
        return match tag.suffix.as_str() {
            "str" => Ok(Scalar::Str(value.to_string())),
            "null" => matches!(plain(value), Scalar::Null)
                .then_some(Scalar::Null)
                .ok_or_else(bad),
            "bool" => match plain(value) {
                Scalar::Bool(b) => Ok(Scalar::Bool(b)),
                _ => Err(bad()),
            },
            "int" => match plain(value) {
                Scalar::Int(i) => Ok(Scalar::Int(i)),
                _ => Err(bad()),
            },
            "float" => match plain(value) {
                Scalar::Int(i) => Ok(Scalar::Float(i as f64)),
                Scalar::Float(f) => Ok(Scalar::Float(f)),
                _ => Err(bad()),
            },
            _ => Err(unsupported_tag(pos, tag)),
        };
    }
    Ok(match style {
        ScalarStyle::Plain => plain(value),
        _ => Scalar::Str(value.to_string()),
    })
}

/// YAML 1.2 core schema resolution of a plain scalar.
fn plain(v: &str) -> Scalar {
    match v {
        "" | "~" | "null" | "Null" | "NULL" => return Scalar::Null,
        "true" | "True" | "TRUE" => return Scalar::Bool(true),
        "false" | "False" | "FALSE" => return Scalar::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Scalar::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Scalar::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Scalar::Float(f64::NAN),
        _ => {}
    }
    let digits = |s: &str, radix: u32| !s.is_empty() && s.chars().all(|c| c.is_digit(radix));
    if let Some(hex) = v.strip_prefix("0x")
        && digits(hex, 16)
    {
        return i64::from_str_radix(hex, 16).map_or(Scalar::Str(v.to_string()), Scalar::Int);
    }
    if let Some(oct) = v.strip_prefix("0o")
        && digits(oct, 8)
    {
        return i64::from_str_radix(oct, 8).map_or(Scalar::Str(v.to_string()), Scalar::Int);
    }
    let unsigned = v.strip_prefix(['-', '+']).unwrap_or(v);
    if digits(unsigned, 10) {
        return v.parse::<i64>().map_or_else(
            |_| Scalar::Float(v.parse().unwrap_or(f64::NAN)),
            Scalar::Int,
        );
    }
    if is_float(unsigned)
        && let Ok(f) = v.parse::<f64>()
    {
        return Scalar::Float(f);
    }
    Scalar::Str(v.to_string())
}

/// `(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` without the sign.
fn is_float(s: &str) -> bool {
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (int, frac) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], Some(&mantissa[i + 1..])),
        None => (mantissa, None),
    };
    let all_digits = |p: &str| p.chars().all(|c| c.is_ascii_digit());
    let mantissa_ok = match frac {
        Some(f) => all_digits(int) && all_digits(f) && !(int.is_empty() && f.is_empty()),
        None => !int.is_empty() && all_digits(int),
    };
    let exponent_ok = match exponent {
        Some(e) => {
            let e = e.strip_prefix(['-', '+']).unwrap_or(e);
            !e.is_empty() && all_digits(e)
        }
        None => true,
    };
    mantissa_ok && exponent_ok && (frac.is_some() || exponent.is_some())
}

#[cfg(test)]
mod tests;
