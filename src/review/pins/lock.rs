//! The pin form of lock files: every entry a name's resolution.

use super::Pin;
use super::tokens::*;

/// Archive names a lock file puts after a version (`ky-1.7.2.tgz`).
pub(super) const ARCHIVES: &[&str] = &[".tgz", ".tar.gz", ".zip", ".whl", ".gem", ".crate", ".jar"];

/// A lock file line: its versions and hashes set aside, a URL's host and
/// port kept; a pin when it has one.
pub(super) fn lock(line: &str) -> Option<Pin> {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut any = false;
    let mut i = 0;
    let mut in_authority = false;
    while i < line.len() {
        let rest = &line[i..];
        // A URL's authority, its slashes JSON-escaped too (`https:\/\/`).
        if let Some(sep) = ["://", ":\\/\\/"].into_iter().find(|p| rest.starts_with(p)) {
            in_authority = true;
            out.push_str(sep);
            i += sep.len();
            continue;
        }
        let c = bytes[i];
        if in_authority {
            if c == b'/' || c == b'"' || c == b'\'' || c.is_ascii_whitespace() {
                in_authority = false;
            } else {
                out.push(c as char);
                i += 1;
                continue;
            }
        }
        // Integrity hashes: `sha512-<base64>`, `h1:<base64>`.
        if let Some(len) = integrity(rest).filter(|_| i == 0 || !is_word(bytes[i - 1])) {
            // The algorithm stays: `sha512-` to `sha1-` is no version move.
            let algorithm = rest.find(['-', ':']).map_or(0, |k| k + 1);
            out.push_str(&rest[..algorithm]);
            out.push('\0');
            any = true;
            i += len;
            continue;
        }
        if is_word(c) {
            let end = rest
                .find(|ch: char| !is_word(ch as u8))
                .unwrap_or(rest.len());
            let word = &rest[..end];
            let stem = ARCHIVES
                .iter()
                .find_map(|a| word.strip_suffix(a).map(|s| (s, &word[s.len()..])));
            match stem {
                Some((stem, ext)) if is_lock_ref(stem) => {
                    out.push('\0');
                    out.push_str(ext);
                    any = true;
                }
                _ if is_lock_ref(word) => {
                    out.push('\0');
                    any = true;
                }
                _ => out.push_str(word),
            }
            i += end;
            continue;
        }
        let ch = rest.chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    any.then(|| Pin {
        name: String::new(),
        shape: out,
    })
}

/// A version or hash in a lock file, where versions are dotted: `v8` (of
/// `v8-compile-cache`) is a name.
pub(super) fn is_lock_ref(word: &str) -> bool {
    is_hash(word) || (is_version(word) && word.contains('.') && !is_address(word))
}

/// Whether `word` reads as an IPv4 address (four numbers): a host, never a
/// version, wherever it stands (`git@10.0.0.5:org/repo.git`).
pub(super) fn is_address(word: &str) -> bool {
    let parts: Vec<&str> = word.split('.').collect();
    parts.len() == 4
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether the pin lines `old` and `new` differ in a version (a dotted
/// number or `v`-version, not a hash): what a lock entry's or a
/// requirement's hash may move with, never alone.
pub fn moves_a_version(old: &str, new: &str) -> bool {
    let versions = |line: &str| -> Vec<String> {
        line.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_')))
            .filter(|w| is_version(w) && !is_hash(w) && !is_address(w))
            .map(str::to_string)
            .collect()
    };
    versions(old) != versions(new)
}

/// A lock file's word character: a dash splits (`ky-1.7.2`, `flask-3.0.0-py3`).
pub(super) fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+')
}

/// The length of an integrity hash at the start of `text`
/// (`sha512-<base64>`, `sha256-`, `sha1-`, `h1:`), if one is there.
pub(super) fn integrity(text: &str) -> Option<usize> {
    let prefix = ["sha512-", "sha384-", "sha256-", "sha1-", "h1:"]
        .into_iter()
        .find(|p| text.starts_with(p))?;
    let body = &text[prefix.len()..];
    let end = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=')))
        .unwrap_or(body.len());
    (end >= 16).then_some(prefix.len() + end)
}
