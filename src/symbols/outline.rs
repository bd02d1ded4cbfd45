//! A file's outline: its symbols with extents, qualified names and
//! semantic hashes, or the reason it has none.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;

use super::lang::Lang;

/// One named symbol of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Symbol {
    /// Qualified name (`Session::refresh`, `Router.get`, `(*Server).Serve`).
    pub name: String,
    /// What it is: `function`, `method`, `class`, `struct`, `impl`, ...
    pub kind: &'static str,
    /// First line of its extent (1-based), attached comments and attributes included.
    pub start_line: u32,
    /// Last line of its extent (1-based, inclusive).
    pub end_line: u32,
    /// The enclosing symbol, an index into [`Outline::symbols`].
    #[serde(skip)]
    pub parent: Option<usize>,
    /// Semantic hash of its extent (comments, whitespace and its own name dropped).
    #[serde(skip)]
    pub hash: [u8; 32],
}

impl Symbol {
    /// Whether `line` lies within the extent.
    pub fn contains(&self, line: u32) -> bool {
        self.start_line <= line && line <= self.end_line
    }
}

/// A file's outline, or why it has none.
#[derive(Debug, Clone, Serialize)]
pub struct Outline {
    /// The language, when the file is one the outline knows.
    pub language: Option<&'static str>,
    /// Why the file has no outline and counts as one whole-file unit
    /// (`None` when it was parsed).
    pub fallback: Option<String>,
    /// The symbols, in order of their start (a parent before its children).
    pub symbols: Vec<Symbol>,
    /// Separator of qualified names' segments.
    #[serde(skip)]
    pub separator: &'static str,
    /// The semantic hash of the whole file.
    #[serde(skip)]
    pub file_hash: SemanticHash,
}

impl Outline {
    /// The index of every symbol named `name`.
    pub fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = usize> + 'a {
        self.symbols
            .iter()
            .enumerate()
            .filter(move |(_, s)| s.name == name)
            .map(|(i, _)| i)
    }

    /// Nesting depth of symbol `index` (0 at top level).
    pub fn depth(&self, index: usize) -> usize {
        let mut depth = 0;
        let mut at = self.symbols[index].parent;
        while let Some(p) = at {
            depth += 1;
            at = self.symbols[p].parent;
        }
        depth
    }
}

/// A semantic hash: of the token stream for a file the outline parses, of
/// the bytes otherwise. The kind keeps the two from ever comparing equal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SemanticHash {
    /// Whether the digest is over tokens (`true`) or bytes.
    pub tokens: bool,
    /// BLAKE3 digest.
    pub digest: [u8; 32],
}

impl std::fmt::Display for SemanticHash {
    /// `tokens1:<hex>` or `bytes:<hex>`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.tokens { "tokens1" } else { "bytes" };
        write!(f, "{kind}:{}", blake3::Hash::from(self.digest).to_hex())
    }
}

/// The hash of content that has no token stream: its bytes.
pub(super) fn bytes_hash(bytes: &[u8]) -> SemanticHash {
    SemanticHash {
        tokens: false,
        digest: *blake3::hash(bytes).as_bytes(),
    }
}

fn fallback(lang: Option<Lang>, bytes: &[u8], reason: String) -> Outline {
    Outline {
        language: lang.map(Lang::name),
        fallback: Some(reason),
        symbols: Vec::new(),
        separator: lang.map_or(".", Lang::separator),
        file_hash: bytes_hash(bytes),
    }
}

/// A kept outline's key: the language and the BLAKE3 of the content.
pub(super) type Key = (Option<Lang>, [u8; 32]);

/// The outlines kept, by key. Each slot is filled once: callers asking for
/// the same content at once wait for one parse, while other contents are
/// parsed side by side (the map's lock is held only to find the slot).
type Kept = Mutex<HashMap<Key, Arc<OnceLock<Arc<Outline>>>>>;
static KEPT: OnceLock<Kept> = OnceLock::new();

/// Outlines (and hashes) kept by (language, content hash): a blob is parsed
/// once per process. Bounded: cleared when it holds this many.
pub(super) const KEPT_OUTLINES: usize = 4096;

/// The outline kept for `key`, if one was made.
pub(super) fn kept_outline(key: &Key) -> Option<Arc<Outline>> {
    let kept = KEPT.get()?.lock().unwrap_or_else(|e| e.into_inner());
    kept.get(key)?.get().cloned()
}

/// [`outline`], kept by content: the same bytes in the same language are
/// parsed once per process (the long-lived server asks again and again).
pub fn outline_cached(path: &str, bytes: &[u8]) -> Arc<Outline> {
    let key = (Lang::of_path(path), *blake3::hash(bytes).as_bytes());
    let slot = {
        let mut kept = KEPT
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if kept.len() >= KEPT_OUTLINES {
            kept.clear();
        }
        kept.entry(key).or_default().clone()
    };
    slot.get_or_init(|| {
        let made = Arc::new(outline(path, bytes));
        super::facts::learned(super::facts::Fact {
            key: super::facts::ContentKey {
                lang: key.0,
                content: key.1,
            },
            hash: made.file_hash,
            outline: Some(made.clone()),
        });
        made
    })
    .clone()
}

/// Keep an outline learned by an earlier process ([`super::facts::seed`]):
/// it is found like one parsed here.
pub(super) fn keep(key: Key, made: Arc<Outline>) {
    let mut kept = KEPT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if kept.len() >= KEPT_OUTLINES {
        kept.clear();
    }
    let slot = kept.entry(key).or_default();
    let _ = slot.set(made);
}

/// The outline of `bytes`, the content of `path` (whose extension chooses
/// the language). Never fails: a file the outline cannot read has a
/// [`Outline::fallback`] reason instead of symbols.
pub fn outline(path: &str, bytes: &[u8]) -> Outline {
    let Some(lang) = Lang::of_path(path) else {
        return fallback(
            None,
            bytes,
            "no symbol outline for this kind of file".into(),
        );
    };
    if std::str::from_utf8(bytes).is_err() {
        return fallback(Some(lang), bytes, "not UTF-8 text".into());
    }
    parse(lang, bytes)
}

#[cfg(not(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
)))]
fn parse(lang: Lang, bytes: &[u8]) -> Outline {
    fallback(
        Some(lang),
        bytes,
        format!("notarai was built without the `{}` feature", lang.feature()),
    )
}

#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
fn parse(lang: Lang, bytes: &[u8]) -> Outline {
    use tree_sitter::StreamingIterator;

    let Some(config) = super::lang::config(lang) else {
        return fallback(
            Some(lang),
            bytes,
            format!("notarai was built without the `{}` feature", lang.feature()),
        );
    };
    let Some(tree) = parse_tree(config, bytes) else {
        return fallback(Some(lang), bytes, "the parser gave up".into());
    };
    let root = tree.root_node();
    if root.has_error() {
        let line = first_error_line(root);
        return fallback(
            Some(lang),
            bytes,
            format!("the file does not parse as {} (line {line})", lang.name()),
        );
    }

    // Every definition the query finds, once per node.
    struct Def<'t> {
        node: tree_sitter::Node<'t>,
        name: Option<tree_sitter::Node<'t>>,
        kind: &'static str,
    }
    let mut defs: Vec<Def> = Vec::new();
    let mut seen: HashMap<usize, usize> = HashMap::new();
    let names = config.query.capture_names();
    let mut cursor = tree_sitter::QueryCursor::new();
    let mut matches = cursor.matches(&config.query, root, bytes);
    while let Some(m) = matches.next() {
        let mut def = None;
        let mut name = None;
        for c in m.captures {
            let capture = names[c.index as usize];
            if Some(c.index) == config.name_capture {
                name = Some(c.node);
            } else if let Some(kind) = capture.strip_prefix("def.") {
                def = Some((c.node, static_kind(kind)));
            }
        }
        if let Some((node, kind)) = def
            && !seen.contains_key(&node.id())
        {
            seen.insert(node.id(), defs.len());
            defs.push(Def { node, name, kind });
        }
    }
    defs.sort_by_key(|d| (d.node.start_byte(), std::cmp::Reverse(d.node.end_byte())));
    let by_node: HashMap<usize, usize> = defs
        .iter()
        .enumerate()
        .map(|(i, d)| (d.node.id(), i))
        .collect();

    let text = |n: tree_sitter::Node| n.utf8_text(bytes).unwrap_or_default();
    let family = Family::of(root);
    let mut symbols: Vec<Symbol> = Vec::with_capacity(defs.len());
    let mut index_of: Vec<Option<usize>> = vec![None; defs.len()];
    for (i, def) in defs.iter().enumerate() {
        // The enclosing definition, and whether this one may stand in it.
        let mut up = family.parent(def.node);
        let mut parent_def = None;
        while let Some(n) = up {
            if let Some(&p) = by_node.get(&n.id()) {
                parent_def = Some(p);
                break;
            }
            up = family.parent(n);
        }
        let parent = parent_def.and_then(|p| index_of[p]);
        if parent_def.is_some() && parent.is_none() {
            continue; // inside something that was dropped
        }
        // An object literal's method belongs to a module-level declaration.
        let in_object = def.node.kind() == "pair"
            || family
                .parent(def.node)
                .is_some_and(|p| p.kind() == "object");
        if in_object {
            let declarator = family
                .parent(def.node)
                .filter(|p| p.kind() == "object")
                .or_else(|| family.parent(def.node).and_then(|p| family.parent(p)))
                .and_then(|o| {
                    if o.kind() == "object" {
                        family.parent(o)
                    } else {
                        Some(o)
                    }
                });
            let holder = parent_def.map(|p| defs[p].node.id());
            if declarator.map(|d| d.id()) != holder {
                continue;
            }
        }
        let kind = if def.kind == "const"
            && def.node.child_by_field_name("value").is_some_and(|v| {
                matches!(
                    v.kind(),
                    "arrow_function" | "function_expression" | "function" | "generator_function"
                )
            }) {
            "function"
        } else {
            def.kind
        };
        let own = match def.kind {
            "impl" => impl_name(def.node, bytes),
            _ if lang == Lang::Go && def.kind == "method" => {
                format!(
                    "{}.{}",
                    receiver_name(def.node, bytes),
                    def.name.map(text).unwrap_or_default()
                )
            }
            _ => def.name.map(text).unwrap_or_default().to_string(),
        };
        let name = match parent {
            Some(p) => format!("{}{}{own}", symbols[p].name, lang.separator()),
            None => own,
        };
        let (extent, first) = extent(config, &family, def.node);
        let end = {
            let e = extent.end_position();
            if e.column == 0 && e.row > extent.start_position().row {
                e.row
            } else {
                e.row + 1
            }
        };
        let hash = {
            let mut hasher = blake3::Hasher::new();
            for node in &first {
                hash_tree(config, *node, bytes, None, &mut hasher);
            }
            hash_tree(config, extent, bytes, def.name.map(|n| n.id()), &mut hasher);
            *hasher.finalize().as_bytes()
        };
        let start = first
            .first()
            .map_or(extent.start_position().row, |n| n.start_position().row);
        let start = comments_above(
            config,
            &family,
            first.first().copied().unwrap_or(extent),
            bytes,
        )
        .unwrap_or(start);
        index_of[i] = Some(symbols.len());
        symbols.push(Symbol {
            name,
            kind,
            start_line: start as u32 + 1,
            end_line: end as u32,
            parent,
            hash,
        });
    }
    let file_hash = tree_hash(config, &tree, bytes);
    Outline {
        language: Some(lang.name()),
        fallback: None,
        symbols,
        separator: lang.separator(),
        file_hash,
    }
}

/// `bytes` parsed by this thread's parser for `config`'s language.
#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
pub(super) fn parse_tree(config: &super::lang::Config, bytes: &[u8]) -> Option<tree_sitter::Tree> {
    parse_tree_from(config, bytes, None)
}

/// `bytes` parsed by this thread's parser, reusing `old` (a tree already
/// edited to match `bytes`) where it can.
#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
pub(super) fn parse_tree_from(
    config: &super::lang::Config,
    bytes: &[u8],
    old: Option<&tree_sitter::Tree>,
) -> Option<tree_sitter::Tree> {
    use std::cell::RefCell;
    thread_local! {
        static PARSER: RefCell<tree_sitter::Parser> = RefCell::new(tree_sitter::Parser::new());
    }
    PARSER.with(|parser| {
        let mut parser = parser.borrow_mut();
        parser.set_language(&config.language).ok()?;
        parser.parse(bytes, old)
    })
}

/// The semantic hash of `bytes` parsed as `tree`: its token stream's hash
/// when the tree has no error, else the bytes'.
#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
pub(super) fn tree_hash(
    config: &super::lang::Config,
    tree: &tree_sitter::Tree,
    bytes: &[u8],
) -> SemanticHash {
    let root = tree.root_node();
    if root.has_error() {
        return bytes_hash(bytes);
    }
    let mut hasher = blake3::Hasher::new();
    hash_tree(config, root, bytes, None, &mut hasher);
    SemanticHash {
        tokens: true,
        digest: *hasher.finalize().as_bytes(),
    }
}

/// Every node's parent and previous sibling, found in one walk of the tree:
/// tree-sitter's own `parent()` and `prev_sibling()` search from the root
/// or the parent each time, quadratic on a file of many items.
#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
struct Family<'t> {
    parent: HashMap<usize, tree_sitter::Node<'t>, IdHash>,
    prev: HashMap<usize, tree_sitter::Node<'t>, IdHash>,
}

#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
/// Hashing for node ids (addresses): one multiplication, no SipHash.
type IdHash = std::hash::BuildHasherDefault<IdHasher>;

#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
/// See [`IdHash`].
#[derive(Default)]
struct IdHasher(u64);

#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
impl<'t> Family<'t> {
    fn of(root: tree_sitter::Node<'t>) -> Family<'t> {
        let mut family = Family {
            parent: HashMap::default(),
            prev: HashMap::default(),
        };
        let mut cursor = root.walk();
        let mut todo = vec![root];
        while let Some(node) = todo.pop() {
            let mut last: Option<tree_sitter::Node<'t>> = None;
            for child in node.children(&mut cursor) {
                family.parent.insert(child.id(), node);
                if let Some(prev) = last {
                    family.prev.insert(child.id(), prev);
                }
                last = Some(child);
                if child.child_count() > 0 {
                    todo.push(child);
                }
            }
        }
        family
    }

    fn parent(&self, node: tree_sitter::Node<'t>) -> Option<tree_sitter::Node<'t>> {
        self.parent.get(&node.id()).copied()
    }

    fn prev(&self, node: tree_sitter::Node<'t>) -> Option<tree_sitter::Node<'t>> {
        self.prev.get(&node.id()).copied()
    }
}

/// The symbol kind `kind` names, as the outline spells it (`symbol` for
/// one it does not know).
pub(super) fn static_kind(kind: &str) -> &'static str {
    const KINDS: &[&str] = &[
        "function",
        "method",
        "struct",
        "enum",
        "trait",
        "impl",
        "type",
        "const",
        "static",
        "module",
        "class",
        "interface",
        "namespace",
    ];
    KINDS
        .iter()
        .find(|k| **k == kind)
        .copied()
        .unwrap_or("symbol")
}

#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
fn first_error_line(root: tree_sitter::Node) -> usize {
    let mut cursor = root.walk();
    let mut node = root;
    'down: loop {
        if node.is_error() || node.is_missing() {
            return node.start_position().row + 1;
        }
        for child in node.children(&mut cursor) {
            if child.has_error() {
                node = child;
                continue 'down;
            }
        }
        return node.start_position().row + 1;
    }
}

#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
/// A type as a name: generic arguments dropped (`Parser<'a>` is `Parser`,
/// `List[T]` is `List`), whitespace squeezed.
fn strip_generics(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '<' | '[' => depth += 1,
            '>' | ']' => depth = depth.saturating_sub(1),
            c if depth == 0 && !c.is_whitespace() => out.push(c),
            _ => {}
        }
    }
    out
}

/// `Type` or `<Type as Trait>` for a Rust `impl` block.
#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
fn impl_name(node: tree_sitter::Node, bytes: &[u8]) -> String {
    let text = |field: &str| {
        node.child_by_field_name(field)
            .and_then(|n| n.utf8_text(bytes).ok())
            .map(strip_generics)
    };
    let ty = text("type").unwrap_or_default();
    match text("trait") {
        Some(tr) => format!("<{ty} as {tr}>"),
        None => ty,
    }
}

/// `(*T)` or `(T)` for a Go method, exactly as its receiver is declared
/// (type parameters dropped).
#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
fn receiver_name(node: tree_sitter::Node, bytes: &[u8]) -> String {
    let ty = node
        .child_by_field_name("receiver")
        .and_then(|list| list.named_child(0))
        .and_then(|param| param.child_by_field_name("type"))
        .and_then(|t| t.utf8_text(bytes).ok())
        .map(strip_generics)
        .unwrap_or_default();
    format!("({ty})")
}

/// The node whose lines a symbol spans (wrappers such as `export` or a
/// decorated definition included) and the attributes or decorators
/// attached above it, first one first.
#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
fn extent<'t>(
    config: &super::lang::Config,
    family: &Family<'t>,
    node: tree_sitter::Node<'t>,
) -> (tree_sitter::Node<'t>, Vec<tree_sitter::Node<'t>>) {
    let mut at = node;
    while let Some(parent) = family.parent(at) {
        if !config.wrappers.contains(&parent.kind()) {
            break;
        }
        // A declaration of several names or specs is not one symbol's.
        let lone = match parent.kind() {
            "lexical_declaration" | "const_declaration" | "type_declaration" => {
                let mut cursor = parent.walk();
                parent
                    .named_children(&mut cursor)
                    .filter(|c| !config.comments.contains(&c.kind()))
                    .count()
                    == 1
            }
            _ => true,
        };
        if !lone {
            break;
        }
        at = parent;
    }
    let mut attached = Vec::new();
    let mut prev = family.prev(at);
    while let Some(p) = prev {
        if config.attached.contains(&p.kind()) {
            attached.push(p);
            prev = family.prev(p);
        } else {
            break;
        }
    }
    attached.reverse();
    (at, attached)
}

/// The first row of the plain comments directly above `node` (no blank
/// line between, each on a line of its own), when there are any.
#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
fn comments_above<'t>(
    config: &super::lang::Config,
    family: &Family<'t>,
    node: tree_sitter::Node<'t>,
    bytes: &[u8],
) -> Option<usize> {
    let mut top = node.start_position().row;
    let mut found = None;
    let mut prev = family.prev(node);
    while let Some(p) = prev {
        if !config.comments.contains(&p.kind()) || p.end_position().row + 1 < top {
            break;
        }
        // Alone on its line: only whitespace before it on that line.
        let line_start = bytes[..p.start_byte()]
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |i| i + 1);
        if !bytes[line_start..p.start_byte()]
            .iter()
            .all(|b| b.is_ascii_whitespace())
        {
            break;
        }
        let text = p.utf8_text(bytes).unwrap_or_default();
        if text.starts_with("//!") || text.starts_with("/*!") {
            break; // an inner doc comment belongs to the module
        }
        top = p.start_position().row;
        found = Some(top);
        prev = family.prev(p);
    }
    found
}

/// Feed the token stream of `node` to `hasher`: each named node's kind
/// around its children, each token's kind and text, comments left out,
/// whitespace never seen; a string literal is one token (its spaces count).
/// `skip` leaves one node (a symbol's own name) out.
#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
fn hash_tree(
    config: &super::lang::Config,
    node: tree_sitter::Node,
    bytes: &[u8],
    skip: Option<usize>,
    hasher: &mut blake3::Hasher,
) {
    // One contiguous buffer hashed at the end: BLAKE3 of the concatenation
    // equals the streamed updates, and many tiny updates cost far more.
    let mut buf: Vec<u8> = Vec::with_capacity(node.end_byte() - node.start_byte() + 64);
    let mut cursor = node.walk();
    let mut depth = 0usize;
    loop {
        let n = cursor.node();
        let leaf = n.child_count() == 0 || is_literal(n.kind());
        let skipped = config.comments.contains(&n.kind()) || Some(n.id()) == skip;
        if !skipped {
            buf.extend_from_slice(&n.kind_id().to_le_bytes());
            if leaf {
                let text = &bytes[n.start_byte()..n.end_byte()];
                let trimmed = text.trim_ascii();
                buf.extend_from_slice(&(trimmed.len() as u32).to_le_bytes());
                buf.extend_from_slice(trimmed);
            }
        }
        if !skipped && !leaf && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if depth == 0 {
                hasher.update(&buf);
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            cursor.goto_parent();
            depth -= 1;
            buf.extend_from_slice(b")");
        }
    }
}

#[cfg(any(
    feature = "lang-rust",
    feature = "lang-typescript",
    feature = "lang-python",
    feature = "lang-go"
))]
/// String and character literals: hashed as one token, spaces and all.
fn is_literal(kind: &str) -> bool {
    matches!(
        kind,
        "string"
            | "string_literal"
            | "raw_string_literal"
            | "char_literal"
            | "template_string"
            | "interpreted_string_literal"
            | "rune_literal"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(any(
        feature = "lang-rust",
        feature = "lang-typescript",
        feature = "lang-python",
        feature = "lang-go"
    ))]
    #[test]
    fn generics_are_dropped_from_type_names() {
        assert_eq!(strip_generics("Parser<'a>"), "Parser");
        assert_eq!(strip_generics("*List[T]"), "*List");
        assert_eq!(strip_generics("Vec<Option<u8>>"), "Vec");
    }

    #[test]
    fn other_files_fall_back_to_their_bytes() {
        let o = outline("README.md", b"# hi\n");
        assert!(o.fallback.is_some());
        assert!(!o.file_hash.tokens);
        assert!(o.file_hash.to_string().starts_with("bytes:"));
    }
}
