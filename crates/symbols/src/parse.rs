//! The tree-sitter side of the outline (built with at least one grammar):
//! a file parsed by this thread's parser, its definitions found by the
//! language's query, each made a [`Symbol`] with its qualified name, its
//! extent (leading comments and attributes included) and the hash of its
//! program ([`Program`]); the hash of a whole tree.

use std::collections::HashMap;

use super::family::Family;
pub(super) use super::family::IdHash;
use super::lang::Lang;
use super::outline::{Outline, SemanticHash, Symbol, bytes_hash, fallback};
use super::prepared::{Parsed, damage_gaps, damage_of, parse_prepared};
use super::program::Program;

/// The outline of `bytes` in `lang` (UTF-8): its symbols, or why it has
/// none (no grammar built in, the parser gave up). A file whose parse has
/// errors is outlined around them: its [`Outline::damage`] says where, each
/// symbol meeting it is `damaged`, and its file hash is its bytes'.
pub(super) fn parse(lang: Lang, bytes: &[u8]) -> Outline {
    let Some(config) = super::lang::config(lang) else {
        return fallback(
            Some(lang),
            bytes,
            format!("notarai was built without the `{}` feature", lang.feature()),
        );
    };
    let Some(parsed) = parse_prepared(config, bytes) else {
        return fallback(Some(lang), bytes, "the parser gave up".into());
    };
    let original = bytes;
    let bytes: &[u8] = &parsed.bytes;
    let root = parsed.tree.root_node();
    let damage = damage_of(lang, root, bytes);
    if let Some(why) = super::program::layout_is_code(lang, bytes) {
        return fallback(
            Some(lang),
            original,
            format!("{why}: not outlined, compared by its bytes"),
        );
    }
    let defs = definitions(config, root, bytes);
    if let Some(line) = too_deep(&defs) {
        return fallback(
            Some(lang),
            original,
            format!(
                "symbols nested deeper than {} levels (line {line}): not outlined, hashed by its bytes",
                super::outline::MAX_NESTING
            ),
        );
    }
    if too_nested_for_size(&defs, bytes.len()) {
        return fallback(
            Some(lang),
            original,
            format!(
                "symbols nested over {}x the file's size in all (extents or names): not outlined, hashed by its bytes",
                super::outline::NESTED_BYTES_FACTOR
            ),
        );
    }
    let program = Program::of(config, root, bytes);
    let mut symbols = Symbols {
        lang,
        config,
        bytes,
        family: Family::of(root),
        defs: &defs,
        program: &program,
        marks: &parsed.marks,
        damage: damage.as_ref(),
    }
    .all();
    if let Some(damage) = &damage {
        damage_gaps(&mut symbols, damage, root.end_position().row as u32 + 1);
    }
    Outline {
        language: Some(lang.name()),
        fallback: None,
        file_hash: match damage {
            Some(_) => bytes_hash(original),
            None => program_hash(&program, root, &parsed.marks, bytes),
        },
        damage,
        symbols,
        separator: lang.separator(),
        by_name: Default::default(),
    }
}

/// One definition the language's query found.
struct Def<'t> {
    node: tree_sitter::Node<'t>,
    name: Option<tree_sitter::Node<'t>>,
    kind: &'static str,
}

/// Every definition the query finds in the tree under `root`, once per
/// node, in the order of the file (an enclosing one before those inside).
fn definitions<'t>(
    config: &super::lang::Config,
    root: tree_sitter::Node<'t>,
    bytes: &[u8],
) -> Vec<Def<'t>> {
    use tree_sitter::StreamingIterator;

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
                def = Some((c.node, super::outline::static_kind(kind)));
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
    defs
}

/// The line of the first definition nested deeper than
/// [`super::outline::MAX_NESTING`] definitions, if any: one pass over the
/// definitions in file order with a stack of the open ones' ends.
fn too_deep(defs: &[Def]) -> Option<usize> {
    let mut open: Vec<usize> = Vec::new();
    for def in defs {
        while open.last().is_some_and(|&end| end <= def.node.start_byte()) {
            open.pop();
        }
        if open.len() >= super::outline::MAX_NESTING {
            return Some(def.node.start_position().row + 1);
        }
        open.push(def.node.end_byte());
    }
    None
}

/// Whether the definitions' extents (or their qualified names) add up to more than
/// [`super::outline::NESTED_BYTES_FACTOR`] times the file (plus 64 KiB):
/// each symbol's hash walks its extent, so that sum is the outline's work
/// (a few hundred functions nested around a large body would be hundreds
/// of walks of the file).
/// The qualified names are held to the same budget: a name is its
/// enclosing definitions' names and its own, so one long name around many
/// definitions would be repeated in each (the sum is bounded from above
/// with a stack of the open definitions' name lengths, in one pass).
fn too_nested_for_size(defs: &[Def], len: usize) -> bool {
    let budget = super::outline::NESTED_BYTES_FACTOR * len + 64 * 1024;
    let mut total: usize = 0;
    let mut names: usize = 0;
    // The open definitions: their end and the length of their name with
    // their enclosing ones' (a separator counted as 2 bytes).
    let mut open: Vec<(usize, usize)> = Vec::new();
    for def in defs {
        while open
            .last()
            .is_some_and(|&(end, _)| end <= def.node.start_byte())
        {
            open.pop();
        }
        total = total.saturating_add(def.node.end_byte() - def.node.start_byte());
        // Its own segment, at most: its name, or the type and trait of an
        // `impl`, a Go method's receiver and name.
        let len_of = |n: tree_sitter::Node| n.end_byte() - n.start_byte();
        let own = def.name.map_or(0, len_of)
            + ["type", "trait", "receiver"]
                .iter()
                .filter_map(|f| def.node.child_by_field_name(f))
                .map(len_of)
                .sum::<usize>()
            + 8;
        let qualified = open.last().map_or(0, |&(_, q)| q).saturating_add(own);
        names = names.saturating_add(qualified);
        if total > budget || names > budget {
            return true;
        }
        open.push((def.node.end_byte(), qualified));
    }
    false
}

/// The definitions of one file made symbols.
struct Symbols<'a, 't> {
    lang: Lang,
    config: &'a super::lang::Config,
    bytes: &'a [u8],
    family: Family<'t>,
    defs: &'a [Def<'t>],
    program: &'a Program<'a>,
    /// The modifiers the pre-pass blanked (`modern.rs`).
    marks: &'a [super::modern::Blanked],
    /// Where the file does not parse, if anywhere.
    damage: Option<&'a super::outline::Damage>,
}

impl Symbols<'_, '_> {
    /// Every definition that may stand where it is, as a symbol named
    /// inside its enclosing one.
    fn all(&self) -> Vec<Symbol> {
        let by_node: HashMap<usize, usize> = self
            .defs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.node.id(), i))
            .collect();
        let mut symbols: Vec<Symbol> = Vec::with_capacity(self.defs.len());
        let mut index_of: Vec<Option<usize>> = vec![None; self.defs.len()];
        for (i, def) in self.defs.iter().enumerate() {
            let parent_def = self.enclosing(&by_node, def.node);
            let parent = parent_def.and_then(|p| index_of[p]);
            if parent_def.is_some() && parent.is_none() {
                continue; // inside something that was dropped
            }
            if !self.may_stand(def, parent_def) {
                continue;
            }
            let own = self.own_name(def);
            let name = match parent {
                Some(p) => format!("{}{}{own}", symbols[p].name, self.lang.separator()),
                None => own,
            };
            index_of[i] = Some(symbols.len());
            symbols.push(self.symbol(def, name, parent));
        }
        symbols
    }

    /// The index of the definition enclosing `node`, if any.
    fn enclosing(&self, by_node: &HashMap<usize, usize>, node: tree_sitter::Node) -> Option<usize> {
        let mut up = self.family.parent(node);
        while let Some(n) = up {
            if let Some(&p) = by_node.get(&n.id()) {
                return Some(p);
            }
            up = self.family.parent(n);
        }
        None
    }

    /// Whether `def` may stand in its enclosing definition: an object
    /// literal's method belongs only to a module-level declaration.
    fn may_stand(&self, def: &Def, parent_def: Option<usize>) -> bool {
        let family = &self.family;
        let in_object = def.node.kind() == "pair"
            || family
                .parent(def.node)
                .is_some_and(|p| p.kind() == "object");
        if !in_object {
            return true;
        }
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
        let holder = parent_def.map(|p| self.defs[p].node.id());
        declarator.map(|d| d.id()) == holder
    }

    /// `def`'s own name, before its enclosing one's: an `impl`'s type
    /// (and trait), a Go method's receiver type and name, else its name.
    fn own_name(&self, def: &Def) -> String {
        let text = |n: tree_sitter::Node| n.utf8_text(self.bytes).unwrap_or_default();
        match def.kind {
            "impl" => impl_name(def.node, self.bytes),
            "method" if self.lang == Lang::Go => format!(
                "{}.{}",
                receiver_name(def.node, self.bytes),
                def.name.map(text).unwrap_or_default()
            ),
            _ => def.name.map(text).unwrap_or_default().to_string(),
        }
    }

    /// The symbol of `def`: its kind (a `const` holding a function is a
    /// function), its lines (leading comments and attributes included) and
    /// the hash of its program (its own name left out, the comments above
    /// it that are code in).
    fn symbol(&self, def: &Def, name: String, parent: Option<usize>) -> Symbol {
        let (config, bytes) = (self.config, self.bytes);
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
        let (extent, first) = extent(config, &self.family, def.node);
        let e = extent.end_position();
        let end = if e.column == 0 && e.row > extent.start_position().row {
            e.row
        } else {
            e.row + 1
        };
        let mut hasher = blake3::Hasher::new();
        // The comments above it that are code (a doc comment: doctests run).
        let mut above = Vec::new();
        let mut prev = self.family.prev(first.first().copied().unwrap_or(extent));
        while let Some(p) = prev {
            if !config.comments.contains(&p.kind()) {
                break;
            }
            if self.program.is_code_comment(p) {
                above.push(p);
            }
            prev = self.family.prev(p);
        }
        for node in above.iter().rev() {
            self.program.hash(*node, None, &mut hasher);
        }
        for node in &first {
            self.program.hash(*node, None, &mut hasher);
        }
        self.program
            .hash(extent, def.name.map(|n| n.id()), &mut hasher);
        let from = first
            .first()
            .map_or(extent.start_byte(), |n| n.start_byte());
        super::modern::hash_marks(self.marks, bytes, from, extent.end_byte(), &mut hasher);
        let start = first
            .first()
            .map_or(extent.start_position().row, |n| n.start_position().row);
        let start = comments_above(
            config,
            &self.family,
            first.first().copied().unwrap_or(extent),
            bytes,
        )
        .unwrap_or(start);
        let (start_line, end_line) = (start as u32 + 1, end as u32);
        Symbol {
            name,
            kind,
            start_line,
            end_line,
            parent,
            hash: *hasher.finalize().as_bytes(),
            damaged: self
                .damage
                .is_some_and(|d| d.meets(start_line, end_line + 1)),
        }
    }
}

/// `bytes` parsed by this thread's parser for `config`'s language.
pub(super) fn parse_tree(config: &super::lang::Config, bytes: &[u8]) -> Option<tree_sitter::Tree> {
    parse_tree_from(config, bytes, None)
}

/// `bytes` parsed by this thread's parser, reusing `old` (a tree already
/// edited to match `bytes`) where it can.
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

/// The semantic hash of a file parsed as `parsed` (`original`: its own
/// bytes): its program's hash ([`Program`], with what the pre-pass blanked)
/// when the tree has no error (a `MISSING` node is one) and its symbols
/// nest no deeper than the outline keeps, else the bytes' (as the
/// outline's file hash).
pub(super) fn tree_hash(
    config: &super::lang::Config,
    parsed: &Parsed,
    original: &[u8],
) -> SemanticHash {
    let root = parsed.tree.root_node();
    let bytes: &[u8] = &parsed.bytes;
    if root.has_error() || super::program::layout_is_code(config.lang, bytes).is_some() || {
        let defs = definitions(config, root, bytes);
        too_deep(&defs).is_some() || too_nested_for_size(&defs, bytes.len())
    } {
        return bytes_hash(original);
    }
    program_hash(
        &Program::of(config, root, bytes),
        root,
        &parsed.marks,
        bytes,
    )
}

/// The semantic hash of a whole tree without errors: its program's, and
/// the modifiers the pre-pass blanked.
fn program_hash(
    program: &Program,
    root: tree_sitter::Node,
    marks: &[super::modern::Blanked],
    bytes: &[u8],
) -> SemanticHash {
    let mut hasher = blake3::Hasher::new();
    program.hash(root, None, &mut hasher);
    super::modern::hash_marks(marks, bytes, 0, bytes.len(), &mut hasher);
    SemanticHash {
        tokens: true,
        digest: *hasher.finalize().as_bytes(),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generics_are_dropped_from_type_names() {
        assert_eq!(strip_generics("Parser<'a>"), "Parser");
        assert_eq!(strip_generics("*List[T]"), "*List");
        assert_eq!(strip_generics("Vec<Option<u8>>"), "Vec");
    }
}
