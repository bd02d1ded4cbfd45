//! Modern syntax the bundled grammars do not know, made parseable by an
//! offset-preserving pre-pass: the bytes of a construct the grammar lacks
//! are blanked with spaces, so every other byte, line and column stays
//! where it was (symbol extents, hunk lines and byte offsets all agree
//! with the file), and what was blanked is kept as [`Blanked`] marks that
//! the hashes take in (a change of a blanked modifier is a change of the
//! program, never formatting).
//!
//! Only TypeScript's variance annotations so far (TypeScript 4.7:
//! `<in T>`, `<out O = unknown>`, `<in out T>`), which
//! `tree-sitter-typescript` 0.23.2 (the newest published) does not parse:
//! measured on the TypeScript of colinhacks/zod, honojs/hono, trpc/trpc
//! and TanStack/query (`docs/performance.md`, "Partial outlines"), the
//! only construct of recent TypeScript the grammar rejected. The pre-pass
//! runs only on a file whose parse has errors, and its result is kept only
//! when the blanked file parses with fewer errors.

/// A modifier blanked out of the file: its word and where it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Blanked {
    /// Byte offset of the modifier in the file.
    pub at: usize,
    /// The modifier (`in`, `out`).
    pub word: &'static str,
}

/// The variance modifiers of type parameter lists in `bytes` (TypeScript):
/// each `in` or `out` that follows `<` or `,` (blanks and comments
/// between) and precedes another modifier or a type parameter's name. A
/// candidate whose node in `tree` is a string, comment, template or
/// regular expression is text, not syntax, and is left alone. `None` when
/// there is none.
pub(super) fn variance(bytes: &[u8], root: tree_sitter::Node) -> Option<(Vec<u8>, Vec<Blanked>)> {
    let mut marks = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if matches!(bytes[i], b'<' | b',') {
            let mut at = skip_blank(bytes, i + 1);
            let mut found = Vec::new();
            while let Some(word) = modifier_at(bytes, at) {
                let after = skip_blank(bytes, at + word.len());
                if after == at + word.len() {
                    break; // `int`, `outer`: no blank after the word
                }
                found.push(Blanked { at, word });
                at = after;
            }
            if !found.is_empty() && starts_name(bytes, at) && !is_text(root, found[0].at) {
                marks.extend(found);
            }
        }
        i += 1;
    }
    if marks.is_empty() {
        return None;
    }
    let mut out = bytes.to_vec();
    for m in &marks {
        out[m.at..m.at + m.word.len()].fill(b' ');
    }
    Some((out, marks))
}

/// The modifier word starting at `at`, when one starts there.
fn modifier_at(bytes: &[u8], at: usize) -> Option<&'static str> {
    ["out", "in"].into_iter().find(|w| {
        bytes[at.min(bytes.len())..].starts_with(w.as_bytes())
            && !bytes
                .get(at + w.len())
                .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$'))
    })
}

/// Whether a type parameter's name starts at `at` (a letter, `_`, `$`, or
/// a byte of a non-ASCII letter), and it is not a keyword that would make
/// the modifier an operator (`in` of `for (x in y)` never follows `<`/`,`
/// and a name; `extends`, `keyof` never name a parameter).
fn starts_name(bytes: &[u8], at: usize) -> bool {
    let Some(&b) = bytes.get(at) else {
        return false;
    };
    if !(b.is_ascii_alphabetic() || matches!(b, b'_' | b'$') || b >= 0x80) {
        return false;
    }
    let end = bytes[at..]
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$') || *b >= 0x80))
        .map_or(bytes.len(), |n| at + n);
    !matches!(
        &bytes[at..end],
        b"extends" | b"keyof" | b"typeof" | b"infer"
    )
}

/// The first byte from `at` that is neither whitespace nor inside a
/// comment (`//` to the end of the line, `/* ... */`).
fn skip_blank(bytes: &[u8], mut at: usize) -> usize {
    loop {
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        if bytes[at.min(bytes.len())..].starts_with(b"//") {
            at = bytes[at..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |n| at + n);
        } else if bytes[at.min(bytes.len())..].starts_with(b"/*") {
            at = bytes[at + 2..]
                .windows(2)
                .position(|w| w == b"*/")
                .map_or(bytes.len(), |n| at + 2 + n + 2);
        } else {
            return at;
        }
    }
}

/// Whether the smallest node of `root` at byte `at` is text: a string, a
/// comment, a template or a regular expression (or inside one).
fn is_text(root: tree_sitter::Node, at: usize) -> bool {
    let mut node = root.descendant_for_byte_range(at, at + 1);
    while let Some(n) = node {
        if matches!(
            n.kind(),
            "string"
                | "string_fragment"
                | "comment"
                | "template_string"
                | "regex"
                | "regex_pattern"
        ) {
            return true;
        }
        node = n.parent();
    }
    false
}

/// Feed the marks between bytes `from` and `to` to `hasher`: each word
/// with the name that follows it (where it is, not by offset, so moving
/// code keeps the hash).
pub(super) fn hash_marks(
    marks: &[Blanked],
    bytes: &[u8],
    from: usize,
    to: usize,
    hasher: &mut blake3::Hasher,
) {
    for m in marks.iter().filter(|m| from <= m.at && m.at < to) {
        let at = skip_blank(bytes, m.at + m.word.len());
        let end = bytes[at..]
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$') || *b >= 0x80))
            .map_or(bytes.len(), |n| at + n);
        hasher.update(b"\0variance\0");
        hasher.update(m.word.as_bytes());
        hasher.update(b" ");
        hasher.update(&bytes[at..end]);
    }
}
