//! The pin forms of dependency manifests: go.mod, package.json,
//! Cargo.toml, pyproject.toml, requirements files.

use super::Pin;
use super::tokens::*;

/// `module/path vX.Y.Z [// indirect]` in a `require` block, or a
/// `require module/path vX.Y.Z` line.
pub(super) fn go_mod(line: &str, above: &[&str]) -> Option<Pin> {
    let trimmed = line.trim_start();
    let (body, single) = match trimmed.strip_prefix("require ") {
        Some(rest) if !rest.trim_start().starts_with('(') => (rest.trim_start(), true),
        Some(_) => return None,
        None => (trimmed, false),
    };
    if !single {
        let block = above.iter().rev().find_map(|l| {
            let t = l.trim();
            if t == ")" {
                Some(false)
            } else if t.ends_with('(') {
                Some(t.starts_with("require"))
            } else {
                None
            }
        });
        if block != Some(true) {
            return None;
        }
    }
    let (code, comment) = match body.find("//") {
        Some(at) => (&body[..at], mask_words(&body[at..])),
        None => (body, String::new()),
    };
    let mut words = code.split_whitespace();
    let (module, version) = (words.next()?, words.next()?);
    let go_version = version.starts_with('v') && version[1..].split('.').count() >= 3;
    if words.next().is_some()
        || !(module.contains('/') || module.contains('.'))
        || !go_version
        || !is_version(version)
    {
        return None;
    }
    let start = line.len() - body.len() + code.find(version).filter(|&v| v > module.len())?;
    let shape = masked(
        &line[..line.len() - body.len() + code.len()],
        start,
        start + version.len(),
    ) + &comment;
    Some(Pin {
        name: module.to_string(),
        shape,
    })
}

/// The dependency objects of a `package.json`.
pub(super) const NPM_DEPENDENCIES: &[&str] = &[
    "dependencies",
    "devDependencies",
    "peerDependencies",
    "optionalDependencies",
];

/// `"name": "range",` directly inside one of [`NPM_DEPENDENCIES`] at the
/// top level.
pub(super) fn package_json(line: &str, above: &[&str]) -> Option<Pin> {
    let mut stack: Vec<String> = Vec::new();
    for l in above {
        match braces(l) {
            (0, 0) => {}
            (1, 0) => stack.push(json_key(l).unwrap_or_default()),
            (0, 1) => {
                stack.pop()?;
            }
            // A line that closes and opens (`}, "config": {`), or opens and
            // closes an object of its own: the object it leaves the reader
            // in is not told line by line, so nothing below is a pin.
            _ => return None,
        }
    }
    if stack.len() != 2 || !NPM_DEPENDENCIES.contains(&stack[1].as_str()) {
        return None;
    }
    let name = json_key(line)?;
    let trimmed = line.trim();
    let value = trimmed
        .split_once(':')?
        .1
        .trim()
        .trim_end_matches(',')
        .trim_end();
    let range = value.strip_prefix('"')?.strip_suffix('"')?;
    if !is_requirement(range) || braces(line) != (0, 0) {
        return None;
    }
    let start = line.len() - line.trim_start().len() + trimmed.find(value)? + 1;
    Some(Pin {
        name,
        shape: masked(line, start, start + range.len()),
    })
}

/// The `{` and `}` of a JSON line outside its strings.
pub(super) fn braces(line: &str) -> (usize, usize) {
    let (mut opens, mut closes, mut in_string, mut escaped) = (0, 0, false, false);
    for c in line.chars() {
        match (in_string, escaped, c) {
            (true, true, _) => escaped = false,
            (true, false, '\\') => escaped = true,
            (true, false, '"') => in_string = false,
            (false, _, '"') => in_string = true,
            (false, _, '{') => opens += 1,
            (false, _, '}') => closes += 1,
            _ => {}
        }
    }
    (opens, closes)
}

/// The key of a JSON line `"key": ...`.
pub(super) fn json_key(line: &str) -> Option<String> {
    let rest = line.trim_start().strip_prefix('"')?;
    let end = rest.find('"')?;
    let key = &rest[..end];
    rest[end + 1..]
        .trim_start()
        .starts_with(':')
        .then(|| key.to_string())
}

/// A dependency line of a Cargo.toml dependencies table, or `version =`
/// in a `[dependencies.name]` table.
pub(super) fn cargo_toml(line: &str, above: &[&str]) -> Option<Pin> {
    let header = above
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| l.starts_with('['))?;
    let table = header
        .strip_prefix('[')?
        .strip_suffix(']')?
        .trim()
        .to_string();
    let keys: Vec<&str> = table.split('.').map(str::trim).collect();
    let is_deps = |k: &str| {
        matches!(
            k,
            "dependencies" | "dev-dependencies" | "build-dependencies" | "dev_dependencies"
        )
    };
    let trimmed = line.trim_start();
    let indent = line.len() - trimmed.len();
    let (key, value) = trimmed.split_once('=')?;
    let key = key.trim();
    let key = unquote(key).0;
    let bare = |k: &str| {
        !k.is_empty()
            && k.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
    };
    if !bare(key) {
        return None;
    }
    let value_at = indent + trimmed.len() - value.len();
    let last = *keys.last()?;
    // `[dependencies.name]`: `version = "req"`.
    if keys.len() >= 2 && is_deps(keys[keys.len() - 2]) {
        if key != "version" {
            return None;
        }
        let (start, end) = toml_string(value)?;
        let req = &value[start..end];
        return is_requirement(req).then(|| Pin {
            name: last.to_string(),
            shape: masked(line, value_at + start, value_at + end),
        });
    }
    if !is_deps(last) {
        return None;
    }
    let body = value.trim();
    let (start, end) = if body.starts_with('{') {
        let at = value.find("version")?;
        let after = &value[at + "version".len()..];
        let after = after.trim_start().strip_prefix('=')?;
        let offset = value.len() - after.len();
        let (s, e) = toml_string(after)?;
        (offset + s, offset + e)
    } else {
        toml_string(value)?
    };
    let req = &value[start..end];
    is_requirement(req).then(|| Pin {
        name: key.to_string(),
        shape: masked(line, value_at + start, value_at + end),
    })
}

/// The table a TOML line sits in: the nearest header above, without its
/// brackets.
pub(super) fn toml_table<'l>(above: &[&'l str]) -> Option<&'l str> {
    let header = above
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| l.starts_with('['))?;
    Some(header.strip_prefix('[')?.strip_suffix(']')?.trim())
}

/// A dependency of a `pyproject.toml`: a PEP 508 string alone on its line
/// in a dependency array, or a Poetry dependency line.
pub(super) fn pyproject(line: &str, above: &[&str]) -> Option<Pin> {
    let table = toml_table(above)?;
    let keys: Vec<&str> = table.split('.').map(str::trim).collect();
    let poetry = keys.len() >= 3
        && keys[0] == "tool"
        && keys[1] == "poetry"
        && matches!(*keys.last()?, "dependencies" | "dev-dependencies");
    if poetry {
        // The project's `python` requirement is a setting, not a pin.
        let key = line.trim_start().split('=').next()?.trim();
        if key == "python" {
            return None;
        }
        return cargo_toml(line, &["[dependencies]"]);
    }
    // The array the line sits in: the nearest `key = [` above, with no
    // table header or closed array between.
    let mut array = None;
    for l in above.iter().rev() {
        let t = l.trim();
        if t.starts_with('[') || t.starts_with(']') || (t.ends_with(']') && t.contains('=')) {
            break;
        }
        if let Some((key, rest)) = t.split_once('=')
            && rest.trim() == "["
        {
            array = Some(key.trim());
            break;
        }
    }
    let array = array?;
    let owned = match table {
        "project" => array == "dependencies",
        "build-system" => array == "requires",
        "project.optional-dependencies" | "dependency-groups" => true,
        _ => false,
    };
    if !owned {
        return None;
    }
    let trimmed = line.trim();
    let item = trimmed.strip_suffix(',').unwrap_or(trimmed).trim_end();
    let (inner, q) = unquote(item);
    if q == 0 {
        return None;
    }
    let pin = requirements(inner, &[])?;
    let start = line.len() - line.trim_start().len() + q;
    Some(Pin {
        name: pin.name,
        shape: format!(
            "{}{}{}",
            &line[..start],
            pin.shape,
            &line[start + inner.len()..]
        ),
    })
}

/// The span of the first quoted string of a TOML value (its contents).
pub(super) fn toml_string(value: &str) -> Option<(usize, usize)> {
    let start = value.find(['"', '\''])?;
    let q = value.as_bytes()[start] as char;
    let end = value[start + 1..].find(q)? + start + 1;
    Some((start + 1, end))
}

/// `name[extras] op version[, op version] [; marker] [\] [# comment]`, or
/// a `--hash=algo:hex` line under one.
pub(super) fn requirements(line: &str, above: &[&str]) -> Option<Pin> {
    let trimmed = line.trim_start();
    if let Some(hash) = trimmed.strip_prefix("--hash=") {
        let digest = hash.trim_end().trim_end_matches('\\').trim_end();
        let (_, hex) = digest.split_once(':')?;
        // A digest: sha256's 64 hexadecimal digits, sha512's 128.
        let digest_ok = (7..=128).contains(&hex.len())
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !digest_ok {
            return None;
        }
        let owner = above
            .iter()
            .rev()
            .find(|l| !l.trim_start().starts_with("--hash="))?;
        let owner = requirements(owner, &[])?;
        let start = line.len() - hash.len() + (digest.len() - hex.len());
        return Some(Pin {
            name: owner.name,
            shape: masked(line, start, start + hex.len()),
        });
    }
    let end = trimmed
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')))
        .unwrap_or(trimmed.len());
    let name = &trimmed[..end];
    if name.is_empty() || !name.as_bytes()[0].is_ascii_alphanumeric() {
        return None;
    }
    let mut rest = &trimmed[end..];
    if let Some(extras) = rest.strip_prefix('[') {
        rest = &extras[extras.find(']')? + 1..];
    }
    let spec_end = rest.find([';', '#', '\\']).unwrap_or(rest.len());
    let specifiers = &rest[..spec_end];
    let base = line.len() - rest.len();
    let mut shape = String::new();
    let mut at = 0;
    let mut any = false;
    for part in specifiers.split(',') {
        let op_len = part.len() - part.trim_start().len()
            + part
                .trim_start()
                .find(|c: char| !matches!(c, '=' | '<' | '>' | '~' | '!'))
                .unwrap_or(part.trim_start().len());
        let op = part[..op_len].trim();
        let version = part[op_len..].trim();
        // pip's operators only (`==`, `~=`, `>=`, ... never a lone `=`, a
        // setting's); a whole number stays a version here (`<3`: the
        // package owns it).
        let pip_op = matches!(op, "==" | "===" | "~=" | ">=" | "<=" | "!=" | "<" | ">");
        if !pip_op || !is_requirement(version) {
            return None;
        }
        let v_start = at + op_len + (part[op_len..].len() - part[op_len..].trim_start().len());
        shape.push_str(&specifiers[at..v_start]);
        shape.push_str(&ref_mark(version));
        shape.push_str(&specifiers[v_start + version.len()..at + part.len()]);
        at += part.len() + 1;
        if at <= specifiers.len() {
            shape.push(',');
        }
        any = true;
    }
    let tail = &rest[spec_end..];
    let tail = match tail.find('#') {
        Some(c) => format!("{}{}", &tail[..c], mask_words(&tail[c..])),
        None => tail.to_string(),
    };
    any.then(|| Pin {
        name: name.to_ascii_lowercase().replace(['_', '.'], "-"),
        shape: format!("{}{shape}{tail}", &line[..base]),
    })
}
