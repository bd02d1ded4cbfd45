//! The symbol outline: which named symbols a source file holds, their
//! extent and qualified names, a hunk's symbol, and semantic hashes.
//!
//! The rules are `../shared/reference/symbols.md` (summarised in the README,
//! "Symbol anchors"): Rust, TypeScript/TSX, JavaScript, Python and Go are
//! parsed with tree-sitter and the official grammars, and notarai's own
//! queries (`queries/*.scm`, one per grammar, data beside the code) say
//! what counts. Each language is a cargo feature (`lang-rust`,
//! `lang-typescript`, `lang-python`, `lang-go`), all on by default.
//!
//! A file in another language has no outline: [`Outline::fallback`] says
//! why, and every caller treats it as one whole-file unit (its semantic
//! hash is then its bytes' hash). A file whose parse has errors is
//! outlined around them ([`Outline::damage`], a partial outline): the
//! symbols outside the damaged ranges are kept, an anchor naming a damaged
//! symbol (or none, when the outline is partial) governs the whole file
//! ([`whole_file_because`]), and the file hash is its bytes'. Syntax newer
//! than a grammar (TypeScript's variance annotations) is blanked by an
//! offset-preserving pre-pass first (`modern.rs`).
//!
//! A symbol's extent runs from its first attached doc comment, attribute or
//! decorator line (a plain comment directly above, with no blank line
//! between, is attached) to its closing line. Its semantic hash is BLAKE3
//! over its program (`program/`: the syntax tree with every token the
//! language treats as code, the comments that are code above it included)
//! with its own name left out, so a reformat or a plain comment edit
//! leaves it equal and a renamed symbol with the same body is recognised.
//!
//! The crate `notarai-symbols` (`crates/symbols`), the only one that
//! parses: it names nothing of notarai but the floor, `notarai-base`. Outlines are kept by content hash
//! in a [`SymbolCache`] the caller owns (one per project), so a
//! long-lived server parses each blob once.

#![warn(missing_docs)]
// No function longer than `too-many-lines-threshold` (clippy.toml).
#![warn(clippy::too_many_lines)]
// The one writer, reader, walker and process starter are lints
// (`clippy.toml`); unit tests may do anything.
#![cfg_attr(test, allow(clippy::disallowed_methods, clippy::disallowed_types))]

// The floor every error of notarai implements (`crate::error::Diagnose`).
use notarai_base::error;

mod anchor;
mod attribute;
mod facts;
#[cfg(feature = "grammar")]
mod family;
mod kept;
mod lang;
#[cfg(feature = "grammar")]
mod modern;
mod outline;
#[cfg(feature = "grammar")]
mod parse;
#[cfg(feature = "grammar")]
mod prepared;
#[cfg(feature = "grammar")]
mod program;
mod rebind;
mod tokens;

pub use anchor::{
    Anchor, AnchorError, governed_by, indices, named_by, split_anchor, whole_file_because,
};
pub use attribute::{
    Attribution, HunkLines, HunkSymbols, Line, PatchSymbols, annotate_patch, attribute,
    attribute_hunk, attribute_since, hunk_lines, patch_symbols,
};
pub use facts::{ContentKey, Fact, KeptFact, version as facts_version};
pub use kept::SymbolCache;
pub use lang::Lang;
pub use outline::{
    Damage, MAX_DAMAGE_RANGES, MAX_NESTING, MAX_PARSED_BYTES, NESTED_BYTES_FACTOR, Outline,
    SemanticHash, Symbol, outline,
};
pub use rebind::{alias_of, last_segment, rebinds, rebinds_any};
pub use tokens::{semantic_hash, semantic_hash_pair};

#[cfg(test)]
mod partial_tests;
#[cfg(test)]
mod tests;
