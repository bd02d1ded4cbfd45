//! `notarai symbols`: a file's outline, or the symbol of a line range
//! attributed exactly as a diff hunk is.

use std::path::Path;

use serde::Serialize;

use super::{Result, ReviewError};
use crate::changes::{BlobRead, GitRepo};
use crate::hashing::MAX_HASHED;
use crate::repo_path::RepoPath;
use crate::symbols::{self, Attribution, Line, Symbol};

/// A line range, first and last line (1-based, inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LineRange {
    /// First line.
    pub first: u32,
    /// Last line.
    pub last: u32,
}

impl LineRange {
    /// Read `A` or `A-B` (1-based, `A <= B`).
    pub fn parse(text: &str) -> std::result::Result<LineRange, String> {
        let (a, b) = text.split_once('-').unwrap_or((text, text));
        let num = |s: &str| {
            s.trim()
                .parse::<u32>()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| {
                    format!("`{text}` is not a line range: write `A` or `A-B`, lines from 1")
                })
        };
        let (first, last) = (num(a)?, num(b)?);
        if first > last {
            return Err(format!("`{text}`: the first line comes after the last"));
        }
        Ok(LineRange { first, last })
    }
}

/// The answer of `notarai symbols`.
#[derive(Debug, Clone, Serialize)]
pub struct SymbolsAnswer {
    /// The file, relative to the repository root.
    pub path: String,
    /// The commit it was read at (`None`: the work tree).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rev: Option<String>,
    /// Its language, when the outline knows it.
    pub language: Option<&'static str>,
    /// Why the file has no outline: it is one whole-file unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    /// Where the file does not parse, when it was outlined around its
    /// errors (a partial outline): symbols meeting it are `damaged`, and an
    /// anchor naming one (or a symbol not found) governs the whole file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub damage: Option<symbols::Damage>,
    /// `damage` in one sentence, naming the line the parser stopped
    /// understanding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub whole_file_because: Option<String>,
    /// The outline (without `--lines`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbols: Option<Vec<OutlineEntry>>,
    /// The line range asked (with `--lines`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<LineRange>,
    /// Its symbol (with `--lines`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribution: Option<Attribution>,
}

/// One symbol of an outline as printed.
#[derive(Debug, Clone, Serialize)]
pub struct OutlineEntry {
    /// The symbol.
    #[serde(flatten)]
    pub symbol: Symbol,
    /// Nesting depth (0: top level).
    pub depth: usize,
}

/// The outline of `path` (in the work tree, or at commit `rev`), or the
/// attribution of `lines` in it.
pub fn symbols(
    root: &Path,
    git: Option<&GitRepo>,
    path: &RepoPath,
    rev: Option<&str>,
    lines: Option<LineRange>,
) -> Result<SymbolsAnswer> {
    let bytes = match rev {
        None => crate::safe_fs::read(root, Path::new(path.as_str()), MAX_HASHED)
            .map_err(|e| ReviewError::invalid(e.to_string()))?,
        Some(rev) => {
            let git = git.ok_or_else(|| ReviewError::invalid("--rev needs a git repository"))?;
            match git.read_at(rev, path.as_str(), MAX_HASHED)? {
                BlobRead::Bytes(bytes) => bytes,
                BlobRead::Absent => {
                    return Err(ReviewError::invalid(format!(
                        "{} is not a file in {rev}",
                        path.as_str()
                    ))
                    .hinted("check the path with `git ls-tree -r --name-only <rev>`"));
                }
                BlobRead::TooLarge(size) => {
                    return Err(ReviewError::invalid(format!(
                        "{} is {size} bytes in {rev}, more than the {MAX_HASHED} notarai reads",
                        path.as_str()
                    )));
                }
            }
        }
    };
    let outline = symbols::outline(path.as_str(), &bytes);
    let mut answer = SymbolsAnswer {
        path: path.as_str().to_string(),
        rev: rev.map(str::to_string),
        language: outline.language,
        fallback: outline.fallback.clone(),
        damage: outline.damage.clone(),
        whole_file_because: outline
            .damage
            .as_ref()
            .map(|d| d.says(outline.language.unwrap_or("its language"))),
        symbols: None,
        lines,
        attribution: None,
    };
    match lines {
        None => {
            answer.symbols = Some(
                outline
                    .symbols
                    .iter()
                    .enumerate()
                    .map(|(i, s)| OutlineEntry {
                        symbol: s.clone(),
                        depth: outline.depth(i),
                    })
                    .collect(),
            );
        }
        Some(range) => {
            let text = String::from_utf8_lossy(&bytes);
            let count = text.lines().count() as u32;
            if range.last > count.max(1) {
                return Err(ReviewError::invalid(format!(
                    "{} has {count} lines; --lines {}-{} goes past the end",
                    path.as_str(),
                    range.first,
                    range.last
                )));
            }
            let blank: Vec<bool> = text.lines().map(|l| l.trim().is_empty()).collect();
            let changed: Vec<Line> = (range.first..=range.last)
                .map(|l| (l, blank.get(l as usize - 1).copied().unwrap_or(true)))
                .collect();
            // As a hunk is read: against the file one commit earlier (the
            // parent of `rev`, or `HEAD` for the work tree), so a symbol
            // the lines cover whole counts as added only when it is new.
            let before = match (git, rev) {
                (Some(git), Some(rev)) => git
                    .read_at(&format!("{rev}^"), path.as_str(), MAX_HASHED)
                    .ok(),
                (Some(git), None) => git.read_at("HEAD", path.as_str(), MAX_HASHED).ok(),
                (None, _) => None,
            };
            let attribution = match before {
                Some(BlobRead::Bytes(old)) => {
                    let before = symbols::outline(path.as_str(), &old);
                    symbols::attribute_since(&outline, &changed, &before)
                }
                _ => symbols::attribute(&outline, &changed),
            };
            answer.attribution = Some(attribution);
        }
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ranges_are_read_and_checked() {
        assert_eq!(
            LineRange::parse("3").unwrap(),
            LineRange { first: 3, last: 3 }
        );
        assert_eq!(
            LineRange::parse("3-7").unwrap(),
            LineRange { first: 3, last: 7 }
        );
        assert!(LineRange::parse("0").is_err());
        assert!(LineRange::parse("7-3").is_err());
        assert!(LineRange::parse("a").is_err());
    }
}
