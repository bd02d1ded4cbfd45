//! A file parsed for the outline: the tree of its bytes, or, for
//! TypeScript whose parse has errors, of its bytes with the syntax the
//! grammar lacks prepared (`modern.rs`); and where a tree that still has
//! errors is damaged (the ranges a partial outline is drawn around).

use super::lang::Lang;
use super::parse::parse_tree;

/// A file parsed for the outline: its tree, the bytes the tree was parsed
/// from (the file's own, or with syntax newer than the grammar blanked by
/// `modern.rs`: same length, same lines), and what was blanked.
pub(crate) struct Parsed<'b> {
    /// The syntax tree.
    pub tree: tree_sitter::Tree,
    /// The bytes it was parsed from.
    pub bytes: std::borrow::Cow<'b, [u8]>,
    /// The modifiers blanked, which the hashes take in.
    pub marks: Vec<super::modern::Blanked>,
}

/// `bytes` parsed by this thread's parser for `config`'s language; a
/// TypeScript file whose parse has errors is parsed again with what the
/// grammar lacks prepared (`modern.rs`: variance modifiers, `export type
/// *`, call signatures without `;`, a bare `&` in a JSX attribute), and
/// that parse is kept when it has fewer errors.
pub(super) fn parse_prepared<'b>(
    config: &super::lang::Config,
    bytes: &'b [u8],
) -> Option<Parsed<'b>> {
    let tree = parse_tree(config, bytes)?;
    let plain = |tree| Parsed {
        tree,
        bytes: std::borrow::Cow::Borrowed(bytes),
        marks: Vec::new(),
    };
    if !tree.root_node().has_error() || !matches!(config.lang, Lang::TypeScript | Lang::Tsx) {
        return Some(plain(tree));
    }
    let Some((blanked, marks)) =
        super::modern::prepass(bytes, tree.root_node(), config.lang == Lang::Tsx)
    else {
        return Some(plain(tree));
    };
    match parse_tree(config, &blanked) {
        Some(again) if errors(again.root_node()) < errors(tree.root_node()) => Some(Parsed {
            tree: again,
            bytes: std::borrow::Cow::Owned(blanked),
            marks,
        }),
        _ => Some(plain(tree)),
    }
}

/// How many `ERROR` and `MISSING` nodes the tree under `root` holds (only
/// the subtrees with errors are walked).
fn errors(root: tree_sitter::Node) -> usize {
    let mut count = 0;
    let mut todo = vec![root];
    let mut cursor = root.walk();
    while let Some(node) = todo.pop() {
        if node.is_error() || node.is_missing() {
            count += 1;
            continue;
        }
        todo.extend(node.children(&mut cursor).filter(|c| c.has_error()));
    }
    count
}

/// Where the tree under `root` has errors: each `ERROR` node's lines and
/// each `MISSING` token's line, and in Python each statement indented where
/// CPython refuses it ([`misindented`]), merged and in order (at most
/// [`super::outline::MAX_DAMAGE_RANGES`], the last running to the end);
/// `None` when there is none.
pub(super) fn damage_of(
    lang: Lang,
    root: tree_sitter::Node,
    bytes: &[u8],
) -> Option<super::outline::Damage> {
    let mut ranges: Vec<[u32; 2]> = Vec::new();
    if lang == Lang::Python {
        // A byte order mark puts the first line's statement at column 3.
        let bom = if bytes.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        misindented(root, bom, &mut ranges);
    }
    if !root.has_error() {
        return merge(root, ranges);
    }
    let mut todo = vec![root];
    let mut cursor = root.walk();
    while let Some(node) = todo.pop() {
        if node.is_error() || node.is_missing() {
            let (a, b) = (node.start_position().row, node.end_position().row);
            ranges.push([a as u32 + 1, b.max(a) as u32 + 1]);
            continue;
        }
        todo.extend(node.children(&mut cursor).filter(|c| c.has_error()));
    }
    if ranges.is_empty() {
        // `has_error` without an error node below: the root itself.
        let last = root.end_position().row as u32 + 1;
        ranges.push([1, last]);
    }
    merge(root, ranges)
}

/// `ranges` sorted and merged, at most
/// [`super::outline::MAX_DAMAGE_RANGES`] (`None` when empty).
fn merge(root: tree_sitter::Node, mut ranges: Vec<[u32; 2]>) -> Option<super::outline::Damage> {
    ranges.sort_unstable();
    let mut merged: Vec<[u32; 2]> = Vec::new();
    for r in ranges {
        match merged.last_mut() {
            Some(m) if r[0] <= m[1] + 1 => m[1] = m[1].max(r[1]),
            _ => merged.push(r),
        }
    }
    if merged.len() > super::outline::MAX_DAMAGE_RANGES {
        let end = root.end_position().row as u32 + 1;
        merged.truncate(super::outline::MAX_DAMAGE_RANGES);
        if let Some(last) = merged.last_mut() {
            last[1] = end.max(last[1]);
        }
    }
    Some(super::outline::Damage {
        first_line: merged.first()?[0],
        ranges: merged,
    })
}

/// The lines of Python statements tree-sitter accepted at an indentation
/// CPython refuses ("unexpected indent"): a statement of the module not in
/// column 0, or one of a block not in the column of the block's first
/// statement. tree-sitter's scanner takes them without an `ERROR` node, so
/// a body cut short by a stray dedent would otherwise look whole.
fn misindented(root: tree_sitter::Node, bom: usize, ranges: &mut Vec<[u32; 2]>) {
    let mut cursor = root.walk();
    let mut todo = vec![root];
    while let Some(node) = todo.pop() {
        let body = matches!(node.kind(), "module" | "block");
        let mut column: Option<usize> = (node.kind() == "module").then_some(0);
        // The row the statement before ended on: `a; b` share a line.
        let mut row: Option<usize> = None;
        for child in node.children(&mut cursor) {
            if child.child_count() > 0 {
                todo.push(child);
            }
            if !body || !child.is_named() || child.kind() == "comment" || child.is_extra() {
                continue;
            }
            let same_line = row == Some(child.start_position().row);
            row = Some(child.end_position().row);
            if same_line {
                continue;
            }
            let at = match child.start_position() {
                p if p.row == 0 => p.column.saturating_sub(bom),
                p => p.column,
            };
            match column {
                None => column = Some(at),
                Some(c) if c != at => {
                    let row = child.start_position().row as u32 + 1;
                    ranges.push([row, row]);
                }
                Some(_) => {}
            }
        }
    }
}

/// Marks damaged each symbol whose range may have been cut short by the
/// parser's recovery: damage between its start and the next symbol of
/// its parent (or its parent's end, or the file's end for the last) means
/// the rest of its body may lie there, read as code outside every symbol
/// (a stray `}` closes a function early and what follows is top-level
/// code). The symbols are in order of their start, a parent first.
pub(super) fn damage_gaps(
    symbols: &mut [super::outline::Symbol],
    damage: &super::outline::Damage,
    last_line: u32,
) {
    // The start of the next symbol with the same parent, walking back.
    let mut next: std::collections::HashMap<Option<usize>, u32> = std::collections::HashMap::new();
    for i in (0..symbols.len()).rev() {
        let s = &symbols[i];
        let end = match next.get(&s.parent) {
            Some(&start) => start.saturating_sub(1),
            None => s.parent.map_or(last_line, |p| symbols[p].end_line),
        };
        let cut = damage.meets(s.start_line, end.max(s.end_line + 1));
        next.insert(s.parent, s.start_line);
        symbols[i].damaged |= cut;
    }
}
