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

mod ci;
mod lock;
mod manifests;
#[cfg(test)]
mod tests;
mod tokens;

use ci::{pre_commit, workflow};
use lock::lock;
pub use lock::moves_a_version;
use manifests::{cargo_toml, go_mod, package_json, pyproject, requirements};
