//! The paths a Codex-style patch (`*** Begin Patch` ... `*** End Patch`)
//! writes: Codex's `apply_patch` tool gives its hook no `file_path`, only the
//! patch text, and opencode's `apply_patch` takes the same format.
//!
//! A patch names each file on a header line: `*** Add File: p`,
//! `*** Update File: p` (optionally followed by `*** Move to: q`, the new
//! name) and `*** Delete File: p`. A deleted file no longer exists, so it is
//! not returned; a moved file is returned under its new name only.

/// The files a patch leaves written, in the order of the patch, without
/// duplicates: added, updated and moved-to paths (deleted and moved-from
/// paths are gone). Lines are matched after trimming surrounding whitespace,
/// so a patch quoted inside a shell heredoc or indented still parses.
pub fn written_paths(patch: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    // The path of the last `*** Update File:` header, replaced by its
    // `*** Move to:` target when one follows.
    let mut last_update: Option<usize> = None;
    for line in patch.lines() {
        let line = line.trim();
        if let Some(path) = header(line, "*** Add File:") {
            push(&mut out, path);
            last_update = None;
        } else if let Some(path) = header(line, "*** Update File:") {
            last_update = push(&mut out, path);
        } else if let Some(path) = header(line, "*** Move to:") {
            if let Some(at) = last_update.take() {
                // Moved: the old name is gone.
                out.remove(at);
            }
            push(&mut out, path);
        } else if header(line, "*** Delete File:").is_some() {
            last_update = None;
        }
    }
    out
}

/// The path after `prefix` on a header line, trimmed; `None` when the line
/// is not that header or names no path.
fn header<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    let path = line.strip_prefix(prefix)?.trim();
    (!path.is_empty()).then_some(path)
}

/// Add `path` unless already there; the index it was added at.
fn push(out: &mut Vec<String>, path: &str) -> Option<usize> {
    if out.iter().any(|p| p == path) {
        return None;
    }
    out.push(path.to_string());
    Some(out.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::written_paths;

    #[test]
    fn add_update_and_delete_headers() {
        let patch = "*** Begin Patch\n\
                     *** Add File: .notarai/new.spec.yaml\n\
                     +schema_version: '0.7'\n\
                     *** Update File: src/lib.rs\n\
                     @@ fn a()\n\
                     -old\n\
                     +new\n\
                     *** Delete File: docs/old.md\n\
                     *** End Patch\n";
        assert_eq!(
            written_paths(patch),
            vec![".notarai/new.spec.yaml", "src/lib.rs"]
        );
    }

    #[test]
    fn a_move_keeps_only_the_new_name() {
        let patch = "*** Begin Patch\n\
                     *** Update File: .notarai/old.spec.yaml\n\
                     *** Move to: .notarai/auth/new.spec.yaml\n\
                     @@\n-a\n+b\n\
                     *** Update File: README.md\n\
                     @@\n-x\n+y\n\
                     *** End Patch";
        assert_eq!(
            written_paths(patch),
            vec![".notarai/auth/new.spec.yaml", "README.md"]
        );
    }

    #[test]
    fn absolute_paths_spaces_and_indentation() {
        let patch = "apply_patch <<'EOF'\n  *** Begin Patch\n  *** Update File:   /repo/.notarai/a b.spec.yaml  \n@@\n-a\n+b\n  *** End Patch\nEOF\n";
        assert_eq!(written_paths(patch), vec!["/repo/.notarai/a b.spec.yaml"]);
    }

    #[test]
    fn duplicates_empty_headers_and_body_lines_are_skipped() {
        let patch = "*** Begin Patch\n\
                     *** Update File: a.rs\n\
                     +*** Add File: not-a-header-because-of-the-plus.rs\n\
                     *** Update File: a.rs\n\
                     *** Add File:\n\
                     *** End Patch\n";
        assert_eq!(written_paths(patch), vec!["a.rs"]);
        assert!(written_paths("").is_empty());
        assert!(written_paths("just text, no patch").is_empty());
    }

    #[test]
    fn delete_then_move_does_not_remove_the_wrong_entry() {
        let patch = "*** Update File: a.rs\n\
                     *** Delete File: b.rs\n\
                     *** Move to: c.rs\n";
        // A `Move to` only follows its own `Update File`; after a delete it
        // still names a written file, and `a.rs` stays.
        assert_eq!(written_paths(patch), vec!["a.rs", "c.rs"]);
    }
}
