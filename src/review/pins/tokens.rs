//! The tokens and values pin lines are made of: versions, hashes,
//! requirements, the mark a ref is set aside by, YAML values.

/// Whether `word` is a version: `1.2`, `v6`, `1.2.3-rc.1`, `3.0.0rc1`,
/// `0.14.*`: a digit first (after an optional `v`) and then only version
/// characters, with a dot or the `v`.
pub(super) fn is_version(word: &str) -> bool {
    let body = word.strip_prefix('v').unwrap_or(word);
    body.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+' | b'_' | b'*'))
        && (body.contains('.') || word.starts_with('v'))
}

/// Whether `word` is a commit or content hash: 7 to 64 lowercase
/// hexadecimal digits, with a digit and a letter (a word such as
/// `effaced` or `20240101` is none).
pub(super) fn is_hash(word: &str) -> bool {
    (7..=64).contains(&word.len())
        && word
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        && word.bytes().any(|b| b.is_ascii_digit())
        && word.bytes().any(|b| b.is_ascii_alphabetic())
}

/// Whether `word` is a ref a pin may name: a version or a commit hash.
pub(super) fn is_ref(word: &str) -> bool {
    is_version(word) || is_hash(word)
}

/// A version requirement (`^1.2`, `~=1.4`, `>=2.0.0`, `=1.0`, `1.2.3`):
/// comparison operators, then a version (a whole number is a version
/// here: the name owns it).
pub(super) fn is_requirement(req: &str) -> bool {
    let version = req.trim_start_matches(['^', '~', '=', '>', '<', '!', ' ']);
    !version.is_empty()
        && version.as_bytes()[0].is_ascii_digit()
        && (is_version(version) || version.bytes().all(|b| b.is_ascii_digit()))
}

/// `line` with the ref in `[start, end)` set aside: its comparison
/// operators kept (`=0.17.8` to `>=0.16` is no version move, an exact pin
/// became a range), the ref itself replaced by a mark of its kind (a
/// version, or a hash of its length), so a commit hash that becomes a tag,
/// or a full hash a short one, is no version move either.
pub(super) fn masked(line: &str, start: usize, end: usize) -> String {
    let text = &line[start..end];
    let body = text.trim_start_matches(['^', '~', '=', '>', '<', '!', ' ']);
    let ops = &text[..text.len() - body.len()];
    format!("{}{ops}{}{}", &line[..start], ref_mark(body), &line[end..])
}

/// The mark a ref is set aside by: `\0` and its kind: a hash's length, or
/// a version's shape ([`version_shape`]), so only a version that moved
/// within its kind is a version move.
pub(super) fn ref_mark(word: &str) -> String {
    if is_hash(word) {
        format!("\0h{}", word.len())
    } else {
        format!("\0v{}", version_shape(word))
    }
}

/// What kind of ref a version is, as a mark: per dot-separated part of its
/// core `n` (a number), `*` (a wildcard: `*`, `x`, `X`) or `a` (anything
/// else, `0rc1`); then `-` for a pre-release or build suffix, `p` for a Go
/// pseudo-version (a commit, not a tag). An exact version that becomes a
/// range (`4.17.21` to `4.x` or `4`, `==2.31.0` to `==2.*`, `=1.0.100` to
/// `=1`, `@v4.1.1` to `@v4`), a tag that becomes a commit, or a
/// pre-release that becomes a release changes the shape: never a version
/// move.
pub(super) fn version_shape(word: &str) -> String {
    let body = word.strip_prefix('v').unwrap_or(word);
    let (core, suffix) = match body.find(['-', '+']) {
        Some(at) => (&body[..at], &body[at..]),
        None => (body, ""),
    };
    let mut shape: String = core
        .split('.')
        .map(|part| match part {
            "*" | "x" | "X" => '*',
            _ if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) => 'n',
            _ => 'a',
        })
        .collect();
    if is_pseudo_version(body) {
        shape.push('p');
    } else if !suffix.is_empty() {
        shape.push('-');
    }
    shape
}

/// Whether `body` (a version without its `v`) is a Go pseudo-version: it
/// ends in a 14-digit UTC time and a 12-digit commit prefix
/// (`0.0.0-20240101000000-abcdef123456`, `1.2.4-0.20240101000000-abcdef123456`).
fn is_pseudo_version(body: &str) -> bool {
    let mut parts = body.rsplitn(2, '-');
    let (Some(commit), Some(rest)) = (parts.next(), parts.next()) else {
        return false;
    };
    let time = rest.rsplit(['-', '.']).next().unwrap_or_default();
    commit.len() == 12
        && commit.bytes().all(|b| b.is_ascii_hexdigit())
        && time.len() == 14
        && time.bytes().all(|b| b.is_ascii_digit())
}

/// A trailing comment's versions and hashes set aside (`# v4.2.4`,
/// `# frozen: v0.15.0`); its other words must stay.
pub(super) fn mask_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if is_ref(word) {
            out.push_str(&ref_mark(word));
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_') {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// `value` without one pair of surrounding quotes, and the quotes' width.
pub(super) fn unquote(value: &str) -> (&str, usize) {
    for q in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            return (inner, 1);
        }
    }
    (value, 0)
}

/// A YAML `key: value  # comment` line's value (quotes included) and its
/// offset in `line`, the comment's versions set aside in the returned
/// shape's tail; `None` when `line` is not `key:` (after an optional
/// `- `).
pub(super) fn yaml_value<'l>(line: &'l str, key: &str) -> Option<(&'l str, usize, String)> {
    let trimmed = line.trim_start();
    let item = trimmed.strip_prefix("- ").unwrap_or(trimmed).trim_start();
    let rest = item.strip_prefix(key)?.strip_prefix(':')?;
    let value_start = line.len() - rest.len() + (rest.len() - rest.trim_start().len());
    let rest = rest.trim_start();
    let (value, comment) = match rest.find(" #") {
        Some(at) => (&rest[..at], mask_words(&rest[at..])),
        None => (rest, String::new()),
    };
    let value = value.trim_end();
    Some((value, value_start, comment))
}
