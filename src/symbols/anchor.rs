//! Anchors: an artifact path may end in `#SYMBOL` (`src/auth.rs#Session::refresh`,
//! `src/api/**/*.ts#Router.*`). The spec then governs those symbols of the
//! matched files, not the whole files. A `*` matches within one segment of
//! a qualified name (never across `::` or `.`); an anchor also governs
//! everything nested in the symbols it names.

use std::fmt;

use super::outline::Outline;

/// An artifact path split into its glob and its anchor: the anchor is what
/// follows the last `#`, when that is not empty and holds no `/`.
pub fn split_anchor(path: &str) -> (&str, Option<&str>) {
    match path.rsplit_once('#') {
        Some((glob, anchor)) if !glob.is_empty() && !anchor.is_empty() && !anchor.contains('/') => {
            (glob, Some(anchor))
        }
        _ => (path, None),
    }
}

/// A symbol pattern written after `#`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Anchor {
    pattern: String,
}

/// Why an anchor cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AnchorError(pub String);

impl crate::error::Diagnose for AnchorError {
    fn kind(&self) -> crate::error::ErrorKind {
        crate::error::ErrorKind::InvalidInput
    }
}

impl Anchor {
    /// Read an anchor (the text after `#`).
    pub fn parse(pattern: &str) -> Result<Anchor, AnchorError> {
        let pattern = pattern.trim();
        if pattern.is_empty() {
            return Err(AnchorError("the anchor after `#` is empty".into()));
        }
        if pattern.contains("**") {
            return Err(AnchorError(format!(
                "anchor `{pattern}`: `**` is not allowed; `*` matches within one name segment"
            )));
        }
        Ok(Anchor {
            pattern: pattern.to_string(),
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// Whether the pattern names exactly `name`.
    pub fn matches(&self, name: &str) -> bool {
        wildcard(self.pattern.as_bytes(), name.as_bytes())
    }

    /// The symbols of `outline` this anchor governs: the ones it names and
    /// everything nested in them.
    pub fn governed(&self, outline: &Outline) -> Vec<usize> {
        let named: Vec<bool> = outline
            .symbols
            .iter()
            .map(|s| self.matches(&s.name))
            .collect();
        (0..outline.symbols.len())
            .filter(|&i| {
                let mut at = Some(i);
                while let Some(j) = at {
                    if named[j] {
                        return true;
                    }
                    at = outline.symbols[j].parent;
                }
                false
            })
            .collect()
    }

    /// The symbols of `outline` the pattern names exactly.
    pub fn named(&self, outline: &Outline) -> Vec<usize> {
        (0..outline.symbols.len())
            .filter(|&i| self.matches(&outline.symbols[i].name))
            .collect()
    }

    /// Whether the pattern names at least one symbol of `outline`.
    pub fn names_any(&self, outline: &Outline) -> bool {
        outline.symbols.iter().any(|s| self.matches(&s.name))
    }
}

impl fmt::Display for Anchor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.pattern)
    }
}

/// `*` matches any run of characters other than `.` and `:`.
fn wildcard(pattern: &[u8], name: &[u8]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some((b'*', rest)) => {
            let mut i = 0;
            loop {
                if wildcard(rest, &name[i..]) {
                    return true;
                }
                if i == name.len() || matches!(name[i], b'.' | b':') {
                    return false;
                }
                i += 1;
            }
        }
        Some((c, rest)) => name.first() == Some(c) && wildcard(rest, &name[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_anchor_is_what_follows_the_last_hash() {
        assert_eq!(
            split_anchor("src/auth.rs#Session::refresh"),
            ("src/auth.rs", Some("Session::refresh"))
        );
        assert_eq!(
            split_anchor("src/api/**/*.ts#Router.*"),
            ("src/api/**/*.ts", Some("Router.*"))
        );
        assert_eq!(split_anchor("src/a#b/c.rs"), ("src/a#b/c.rs", None));
        assert_eq!(split_anchor("src/a.rs#"), ("src/a.rs#", None));
        assert_eq!(split_anchor("src/a.rs"), ("src/a.rs", None));
    }

    #[test]
    fn a_star_stays_within_one_segment() {
        let a = Anchor::parse("Router.*").unwrap();
        assert!(a.matches("Router.get"));
        assert!(!a.matches("Router.get.inner"));
        assert!(!a.matches("Router"));
        let a = Anchor::parse("Session::re*").unwrap();
        assert!(a.matches("Session::refresh"));
        assert!(!a.matches("Session::x::refresh"));
        assert!(
            Anchor::parse("(*Server).Serve")
                .unwrap()
                .matches("(*Server).Serve")
        );
        assert!(Anchor::parse("**").is_err());
        assert!(Anchor::parse(" ").is_err());
    }
}
