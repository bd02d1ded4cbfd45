//! The pin forms of CI: a workflow's `uses:`, a pre-commit `rev:`.

use super::Pin;
use super::tokens::*;

/// Whether `line` lies inside a YAML block scalar (`run: |`, `key: >-`):
/// some line above with less indentation, each nearer than the last,
/// opens one. Its text is a script or a string, not a key.
pub(super) fn in_block_scalar(line: &str, above: &[&str]) -> bool {
    let mut indent = line.len() - line.trim_start().len();
    for l in above.iter().rev() {
        let t = l.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let l_indent = l.len() - t.len();
        if l_indent < indent {
            let end = t.split(" #").next().unwrap_or(t).trim_end();
            let indicator = end.rsplit([' ', ':']).next().unwrap_or("");
            if !indicator.is_empty()
                && (indicator.starts_with('|') || indicator.starts_with('>'))
                && indicator[1..]
                    .bytes()
                    .all(|b| matches!(b, b'-' | b'+' | b'0'..=b'9'))
            {
                return true;
            }
            indent = l_indent;
            if indent == 0 {
                return false;
            }
        }
    }
    false
}

/// `uses: owner/name[/path]@ref`.
pub(super) fn workflow(line: &str, above: &[&str]) -> Option<Pin> {
    if in_block_scalar(line, above) {
        return None;
    }
    let (value, at, comment) = yaml_value(line, "uses")?;
    let (inner, q) = unquote(value);
    let (name, reference) = inner.rsplit_once('@')?;
    let mut parts = name.split('/');
    let owner_and_repo = parts.next().is_some_and(|p| !p.is_empty())
        && parts.next().is_some_and(|p| !p.is_empty())
        && parts.all(|p| !p.is_empty());
    if !owner_and_repo
        || name.contains(':')
        || name.starts_with('.')
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'_' | b'.'))
        || !is_ref(reference)
    {
        return None;
    }
    let start = at + q + name.len() + 1;
    let shape = masked(&line[..at + value.len()], start, start + reference.len()) + &comment;
    Some(Pin {
        name: name.to_string(),
        shape,
    })
}

/// `rev: ref` in a pre-commit entry whose `repo:` (the nearest above) is
/// a URL.
pub(super) fn pre_commit(line: &str, above: &[&str]) -> Option<Pin> {
    if in_block_scalar(line, above) {
        return None;
    }
    let (value, at, comment) = yaml_value(line, "rev")?;
    let (reference, q) = unquote(value);
    if !is_ref(reference) {
        return None;
    }
    let indent = line.len() - line.trim_start().len();
    let repo = above.iter().rev().find_map(|l| {
        let (repo, _, _) = yaml_value(l, "repo")?;
        let l_indent = l.len() - l.trim_start().len();
        Some((unquote(repo).0, l_indent))
    });
    let (repo, repo_indent) = repo?;
    let url = ["https://", "http://", "ssh://", "git@", "git://"]
        .iter()
        .any(|s| repo.starts_with(s));
    if !url || repo_indent > indent {
        return None;
    }
    let start = at + q;
    let shape = masked(&line[..at + value.len()], start, start + reference.len()) + &comment;
    Some(Pin {
        name: repo.to_string(),
        shape,
    })
}
