//! Pin lines: a version or commit hash attached to a name by the syntax of
//! a known pin form, by the kind of file. The versions rule
//! (`review::quiet`) quiets a change only when every changed line is a pin
//! line of its file's form whose name and shape stayed and whose version
//! moved; everything else is not a pin (a bare number, an address, a URL's
//! host or port, a hash no name owns, a duration, a rate, a size).
//!
//! The forms, by file:
//! - **CI workflows** (`.github/`, `.gitea/`, `.forgejo/` YAML, `action.yml`):
//!   `uses: owner/name[/path]@ref`, the ref a version or a commit hash.
//! - **pre-commit** (`.pre-commit-config.yaml`): `rev: ref` in an entry
//!   whose `repo:` is a URL.
//! - **go.mod**: `module/path vX.Y.Z` in a `require` block or line.
//! - **package.json**: `"name": "range"` directly in `dependencies`,
//!   `devDependencies`, `peerDependencies` or `optionalDependencies`.
//! - **Cargo.toml**: `name = "req"` or `name = { version = "req", ... }`
//!   in a dependencies table (`[dependencies]`, `[dev-dependencies]`,
//!   `[build-dependencies]`, `[workspace.dependencies]`,
//!   `[target.*.dependencies]`), or `version = "req"` in a
//!   `[dependencies.name]` table.
//! - **pyproject.toml**: `"name>=1.2",` in the `dependencies` array of
//!   `[project]`, an array of `[project.optional-dependencies]` or
//!   `[dependency-groups]`, or `requires` of `[build-system]`; and the
//!   Cargo-like lines of Poetry's dependency tables
//!   (`[tool.poetry.dependencies]`, `[tool.poetry.group.*.dependencies]`),
//!   the `python` requirement left out (a setting of the project).
//! - **requirements** (`requirements*.txt`, `constraints*.txt`, `*.txt`
//!   in a `requirements/` folder): `name[extras]==1.2` (any comparison) and
//!   the `--hash=` lines under it.
//! - **lock files** (`Cargo.lock`, `package-lock.json`, `yarn.lock`,
//!   `pnpm-lock.yaml`, `go.sum`, `poetry.lock`, `uv.lock`, ...): every
//!   entry is a name's resolution, so version numbers and hashes
//!   (hexadecimal, `sha512-`/`h1:` integrity) anywhere on a line are the
//!   entry's; a URL's host and port never are.
//!
//! Any other file has no pins. The form of each line is judged with the
//! lines above it in the new content (the table, block or object it sits
//! in): when every changed line is a pin line, the lines above are the
//! same on both sides, so the new content tells for the old line too.

/// The pin form of a kind of file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// A CI workflow or action: `uses: owner/name@ref`.
    Workflow,
    /// `.pre-commit-config.yaml`: `rev:` under a `repo:` URL.
    PreCommit,
    /// `go.mod`: `require` lines.
    GoMod,
    /// `package.json`: dependency objects.
    PackageJson,
    /// `Cargo.toml`: dependency tables.
    CargoToml,
    /// `pyproject.toml`: PEP 508 dependency arrays, Poetry dependency tables.
    PyProject,
    /// A pip requirements file.
    Requirements,
    /// A lock file: each entry a name's resolution.
    Lock,
}

/// Lock files by name.
const LOCK_FILES: &[&str] = &[
    "Cargo.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lock",
    "go.sum",
    "go.work.sum",
    "poetry.lock",
    "uv.lock",
    "Pipfile.lock",
    "pdm.lock",
    "Gemfile.lock",
    "composer.lock",
    "Package.resolved",
    "pubspec.lock",
    "mix.lock",
    "Podfile.lock",
    "gradle.lockfile",
    "packages.lock.json",
];

impl Form {
    /// The pin form of the file at `path`, `None` when it has none.
    pub fn of(path: &str) -> Option<Form> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let folder = &path[..path.len() - name.len()];
        let yaml = name.ends_with(".yml") || name.ends_with(".yaml");
        if LOCK_FILES.contains(&name) {
            return Some(Form::Lock);
        }
        Some(match name {
            "go.mod" => Form::GoMod,
            "package.json" => Form::PackageJson,
            "Cargo.toml" => Form::CargoToml,
            "pyproject.toml" => Form::PyProject,
            ".pre-commit-config.yaml" | ".pre-commit-config.yml" => Form::PreCommit,
            "action.yml" | "action.yaml" => Form::Workflow,
            _ if yaml
                && [".github/", ".gitea/", ".forgejo/"]
                    .iter()
                    .any(|ci| folder.starts_with(ci) || folder.contains(&format!("/{ci}"))) =>
            {
                Form::Workflow
            }
            _ if name.ends_with(".txt")
                && (name.starts_with("requirements")
                    || name.starts_with("constraints")
                    || folder == "requirements/"
                    || folder.ends_with("/requirements/")) =>
            {
                Form::Requirements
            }
            _ => return None,
        })
    }
}

/// A pin line: the name its version is attached to, and the line with
/// each version token replaced by `\0`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    /// What the version belongs to (a package, module, action or repository).
    pub name: String,
    /// The line with its versions set aside.
    pub shape: String,
}

/// The pin on `line` of a file of form `form`, whose lines before it are
/// `above`; `None` when the line is no pin of that form.
pub fn pin(form: Form, line: &str, above: &[&str]) -> Option<Pin> {
    match form {
        Form::Workflow => workflow(line, above),
        Form::PreCommit => pre_commit(line, above),
        Form::GoMod => go_mod(line, above),
        Form::PackageJson => package_json(line, above),
        Form::CargoToml => cargo_toml(line, above),
        Form::PyProject => pyproject(line, above),
        Form::Requirements => requirements(line, above),
        Form::Lock => lock(line),
    }
}

// ------------------------------------------------------------------ tokens

/// Whether `word` is a version: `1.2`, `v6`, `1.2.3-rc.1`, `3.0.0rc1`,
/// `0.14.*`: a digit first (after an optional `v`) and then only version
/// characters, with a dot or the `v`.
fn is_version(word: &str) -> bool {
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
fn is_hash(word: &str) -> bool {
    (7..=64).contains(&word.len())
        && word
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        && word.bytes().any(|b| b.is_ascii_digit())
        && word.bytes().any(|b| b.is_ascii_alphabetic())
}

/// Whether `word` is a ref a pin may name: a version or a commit hash.
fn is_ref(word: &str) -> bool {
    is_version(word) || is_hash(word)
}

/// A version requirement (`^1.2`, `~=1.4`, `>=2.0.0`, `=1.0`, `1.2.3`):
/// comparison operators, then a version (a whole number is a version
/// here: the name owns it).
fn is_requirement(req: &str) -> bool {
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
fn masked(line: &str, start: usize, end: usize) -> String {
    let text = &line[start..end];
    let body = text.trim_start_matches(['^', '~', '=', '>', '<', '!', ' ']);
    let ops = &text[..text.len() - body.len()];
    format!("{}{ops}{}{}", &line[..start], ref_mark(body), &line[end..])
}

/// The mark a ref is set aside by: `\0` and its kind (a hash's length
/// with it).
fn ref_mark(word: &str) -> String {
    if is_hash(word) {
        format!("\0h{}", word.len())
    } else {
        "\0v".to_string()
    }
}

/// A trailing comment's versions and hashes set aside (`# v4.2.4`,
/// `# frozen: v0.15.0`); its other words must stay.
fn mask_words(text: &str) -> String {
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
fn unquote(value: &str) -> (&str, usize) {
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
fn yaml_value<'l>(line: &'l str, key: &str) -> Option<(&'l str, usize, String)> {
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

// ------------------------------------------------------------------ forms

/// Whether `line` lies inside a YAML block scalar (`run: |`, `key: >-`):
/// some line above with less indentation, each nearer than the last,
/// opens one. Its text is a script or a string, not a key.
fn in_block_scalar(line: &str, above: &[&str]) -> bool {
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
fn workflow(line: &str, above: &[&str]) -> Option<Pin> {
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
fn pre_commit(line: &str, above: &[&str]) -> Option<Pin> {
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

/// `module/path vX.Y.Z [// indirect]` in a `require` block, or a
/// `require module/path vX.Y.Z` line.
fn go_mod(line: &str, above: &[&str]) -> Option<Pin> {
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
const NPM_DEPENDENCIES: &[&str] = &[
    "dependencies",
    "devDependencies",
    "peerDependencies",
    "optionalDependencies",
];

/// `"name": "range",` directly inside one of [`NPM_DEPENDENCIES`] at the
/// top level.
fn package_json(line: &str, above: &[&str]) -> Option<Pin> {
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
fn braces(line: &str) -> (usize, usize) {
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
fn json_key(line: &str) -> Option<String> {
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
fn cargo_toml(line: &str, above: &[&str]) -> Option<Pin> {
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
fn toml_table<'l>(above: &[&'l str]) -> Option<&'l str> {
    let header = above
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| l.starts_with('['))?;
    Some(header.strip_prefix('[')?.strip_suffix(']')?.trim())
}

/// A dependency of a `pyproject.toml`: a PEP 508 string alone on its line
/// in a dependency array, or a Poetry dependency line.
fn pyproject(line: &str, above: &[&str]) -> Option<Pin> {
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
fn toml_string(value: &str) -> Option<(usize, usize)> {
    let start = value.find(['"', '\''])?;
    let q = value.as_bytes()[start] as char;
    let end = value[start + 1..].find(q)? + start + 1;
    Some((start + 1, end))
}

/// `name[extras] op version[, op version] [; marker] [\] [# comment]`, or
/// a `--hash=algo:hex` line under one.
fn requirements(line: &str, above: &[&str]) -> Option<Pin> {
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

/// Archive names a lock file puts after a version (`ky-1.7.2.tgz`).
const ARCHIVES: &[&str] = &[".tgz", ".tar.gz", ".zip", ".whl", ".gem", ".crate", ".jar"];

/// A lock file line: its versions and hashes set aside, a URL's host and
/// port kept; a pin when it has one.
fn lock(line: &str) -> Option<Pin> {
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
fn is_lock_ref(word: &str) -> bool {
    is_hash(word) || (is_version(word) && word.contains('.') && !is_address(word))
}

/// Whether `word` reads as an IPv4 address (four numbers): a host, never a
/// version, wherever it stands (`git@10.0.0.5:org/repo.git`).
fn is_address(word: &str) -> bool {
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
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+')
}

/// The length of an integrity hash at the start of `text`
/// (`sha512-<base64>`, `sha256-`, `sha1-`, `h1:`), if one is there.
fn integrity(text: &str) -> Option<usize> {
    let prefix = ["sha512-", "sha384-", "sha256-", "sha1-", "h1:"]
        .into_iter()
        .find(|p| text.starts_with(p))?;
    let body = &text[prefix.len()..];
    let end = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=')))
        .unwrap_or(body.len());
    (end >= 16).then_some(prefix.len() + end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(form: Form, line: &str, above: &str) -> Option<Pin> {
        let above: Vec<&str> = above.lines().collect();
        pin(form, line, &above)
    }

    fn moved(form: Form, old: &str, new: &str, above: &str) -> bool {
        match (one(form, old, above), one(form, new, above)) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        }
    }

    #[test]
    fn forms_by_path() {
        assert_eq!(Form::of(".github/workflows/ci.yml"), Some(Form::Workflow));
        assert_eq!(
            Form::of("a/.github/actions/x/action.yaml"),
            Some(Form::Workflow)
        );
        assert_eq!(Form::of("config/app.yaml"), None);
        assert_eq!(Form::of("deploy/docker-compose.yml"), None);
        assert_eq!(Form::of("web/package.json"), Some(Form::PackageJson));
        assert_eq!(Form::of("requirements-dev.txt"), Some(Form::Requirements));
        assert_eq!(Form::of("requirements/base.txt"), Some(Form::Requirements));
        assert_eq!(Form::of("notes.txt"), None);
        assert_eq!(Form::of("Cargo.lock"), Some(Form::Lock));
        assert_eq!(Form::of(".env"), None);
        assert_eq!(Form::of("settings.toml"), None);
    }

    #[test]
    fn named_versions_move() {
        assert!(moved(
            Form::Workflow,
            "      - uses: actions/checkout@v6",
            "      - uses: actions/checkout@v7",
            ""
        ));
        assert!(moved(
            Form::Workflow,
            "      - uses: 'github/codeql-action/init@v3.1.0'",
            "      - uses: 'github/codeql-action/init@v3.2.0'",
            ""
        ));
        let pkg = "{\n  \"name\": \"x\",\n  \"dependencies\": {\n    \"a\": \"1\",";
        assert!(moved(
            Form::PackageJson,
            "    \"ky\": \"^1.2.3\",",
            "    \"ky\": \"^1.3.0\",",
            pkg
        ));
        let cargo = "[package]\nname = \"x\"\n\n[dependencies]\n";
        assert!(moved(
            Form::CargoToml,
            "serde = \"1.0\"",
            "serde = \"1.1\"",
            cargo
        ));
        assert!(moved(
            Form::CargoToml,
            "tokio = { version = \"1.37\", features = [\"full\"] }",
            "tokio = { version = \"1.38\", features = [\"full\"] }",
            "[target.'cfg(unix)'.dependencies]"
        ));
        assert!(moved(
            Form::CargoToml,
            "version = \"0.4\"",
            "version = \"0.5\"",
            "[dev-dependencies.insta]\nfeatures = [\"json\"]"
        ));
        assert!(moved(
            Form::Requirements,
            "flask==3.0.0",
            "flask==3.0.3",
            ""
        ));
        assert!(moved(
            Form::Requirements,
            "Django[argon2]>=4.2,<5.0  # LTS",
            "Django[argon2]>=4.2.1,<5.1  # LTS",
            ""
        ));
        assert!(moved(
            Form::Requirements,
            "    --hash=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef \\",
            "    --hash=sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210 \\",
            "flask==3.0.0 \\"
        ));
        assert!(moved(
            Form::Lock,
            "checksum = \"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"",
            "checksum = \"fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210\"",
            ""
        ));
        assert!(moved(
            Form::Lock,
            "      \"resolved\": \"https://registry.npmjs.org/ky/-/ky-1.7.2.tgz\",",
            "      \"resolved\": \"https://registry.npmjs.org/ky/-/ky-1.7.3.tgz\",",
            ""
        ));
        assert!(moved(
            Form::Lock,
            "      \"integrity\": \"sha512-Z8l5Yp6u1pUQq1+6vQk0Fzo2Bb9Y6L5Ggk8T1bXg+3yZ1aS9B/0a==\",",
            "      \"integrity\": \"sha512-Qd4Pj5Zg7M3ko8Qm0Xf9vR2c1Kx+Zqv9u1Rk2Q9Ty/0aZkq1Cs9vw==\",",
            ""
        ));
        assert!(moved(
            Form::Lock,
            "golang.org/x/net v0.55.0 h1:abcdefghijABCDEFGHIJ0123456789+/abcdefghij=",
            "golang.org/x/net v0.56.0 h1:ZYXWVUTSRQponmlkjihg9876543210+/zyxwvutsrq=",
            ""
        ));
    }

    #[test]
    fn pyproject_dependencies() {
        let project = "[project]\nname = \"x\"\ndependencies = [\n    \"a>=1\",";
        assert!(moved(
            Form::PyProject,
            "    \"flask>=3.0\",",
            "    \"flask>=3.1\",",
            project
        ));
        assert!(moved(
            Form::PyProject,
            "pytest = \"^8.0\"",
            "pytest = \"^8.3\"",
            "[tool.poetry.group.dev.dependencies]"
        ));
        // The project's own version, its Python, another array.
        assert!(!moved(
            Form::PyProject,
            "version = \"1.0\"",
            "version = \"1.1\"",
            "[project]"
        ));
        assert!(!moved(
            Form::PyProject,
            "python = \"^3.10\"",
            "python = \"^3.11\"",
            "[tool.poetry.dependencies]"
        ));
        assert!(!moved(
            Form::PyProject,
            "    \"E501>=1.0\",",
            "    \"E501>=2.0\",",
            "[tool.ruff]\nignore = ["
        ));
        assert_eq!(Form::of("pyproject.toml"), Some(Form::PyProject));
    }

    #[test]
    fn unnamed_numbers_are_no_pins() {
        // A URL's host, an address or a CIDR, a duration, a rate, a size,
        // a password hash: in no pin form, so never a pin.
        for line in [
            "upstream: http://10.0.0.5/api",
            "trusted_proxies: 10.0.0.1/32",
            "session_ttl_hours: 0.5 # see docs/auth.md",
            "rate_limit = \"100.0/minute\"",
            "admin_hash: 5f4dcc3b5aa765d61d8327deb882cf99 # @admin",
        ] {
            for form in [
                Form::Workflow,
                Form::PreCommit,
                Form::GoMod,
                Form::PackageJson,
                Form::CargoToml,
            ] {
                assert_eq!(
                    one(form, line, "[dependencies]\nrequire (\n"),
                    None,
                    "{line}"
                );
            }
        }
        // A lock file's URL host is kept, not set aside.
        assert!(!moved(
            Form::Lock,
            "source = \"registry+http://10.0.0.5/index\"",
            "source = \"registry+http://10.0.0.6/index\"",
            ""
        ));
        // The project's own version, a setting outside a dependency table.
        assert!(!moved(
            Form::CargoToml,
            "version = \"1.2.0\"",
            "version = \"1.3.0\"",
            "[package]\nname = \"x\""
        ));
        assert!(!moved(
            Form::PackageJson,
            "  \"version\": \"1.2.0\",",
            "  \"version\": \"1.3.0\",",
            "{\n  \"name\": \"x\","
        ));
        // A dependency's non-version value moved: a git branch, a path.
        assert!(!moved(
            Form::PackageJson,
            "    \"ky\": \"github:sindresorhus/ky#main\",",
            "    \"ky\": \"github:evil/ky#main\",",
            "{\n  \"dependencies\": {"
        ));
        // `rev:` with no repository URL above it.
        assert_eq!(
            one(Form::PreCommit, "    rev: v1.2.3", "- repo: local"),
            None
        );
        // Inside a script, `uses:` is text.
        assert_eq!(
            one(
                Form::Workflow,
                "          uses: a/b@v1",
                "jobs:\n  t:\n    steps:\n      - run: |\n          echo"
            ),
            None
        );
        assert!(
            one(
                Form::Workflow,
                "      - uses: a/b@v1",
                "jobs:\n  t:\n    steps:\n      - run: |\n          echo"
            )
            .is_some()
        );
        // In a lock file, a name that looks like a version or a word of
        // hexadecimal letters is a name.
        assert!(!moved(
            Form::Lock,
            "\"node_modules/v8-compile-cache\": {",
            "\"node_modules/v9-compile-cache\": {",
            ""
        ));
        assert!(!moved(
            Form::Lock,
            "name = \"effaced\"",
            "name = \"defaced\"",
            ""
        ));
        // A local action, a docker image.
        assert_eq!(one(Form::Workflow, "  uses: ./.github/actions/x", ""), None);
        assert_eq!(
            one(Form::Workflow, "  uses: docker://alpine:3.19", ""),
            None
        );
        // go.mod: the Go version, a replace block.
        assert_eq!(one(Form::GoMod, "go 1.24", ""), None);
        assert_eq!(one(Form::GoMod, "\ta.b/c v1.2.3", "replace ("), None);
        assert!(one(Form::GoMod, "\ta.b/c v1.2.3", "require (").is_some());
    }
}
