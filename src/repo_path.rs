//! The one type for a path inside the repository.
//!
//! Every path that comes from outside (a CLI argument, a tool parameter, a
//! line on stdin) crosses the repository boundary here, once. A [`RepoPath`]
//! is relative to the root, normalized (`a/./b/../c` is `a/c`), UTF-8, uses
//! forward slashes, holds no NUL, and never names anything outside the root:
//! neither lexically (`../x`, `/etc/passwd`) nor through a symbolic link whose
//! target leaves the root. Code that holds a `RepoPath` may join it to the
//! root and read or write without further checks.
//!
//! A backslash: on Unix it is an ordinary character of a file name (git
//! stores `a\\b.rs` as one name, and such a file must be reconcilable like
//! any other), so it is accepted there; only `/` separates components, so
//! `..\\..\\x` names a file in the root and cannot climb out. On other
//! systems, where a backslash separates folders, it is refused.

use std::collections::HashSet;
use std::fmt;
use std::path::{Component, Path, PathBuf};

/// The longest path accepted, in bytes (Linux's `PATH_MAX`).
pub const MAX_PATH_LEN: usize = 4096;

/// A normalized path relative to the repository root that stays inside it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RepoPath(String);

/// Why a path was refused: the caller's input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// The path is empty or names the root itself.
    #[error("the path is empty; give a file path relative to the repository root")]
    Empty,
    /// The path holds a NUL byte.
    #[error("the path contains a NUL byte")]
    Nul,
    /// The path is longer than [`MAX_PATH_LEN`].
    #[error("the path is {0} bytes long, more than the {MAX_PATH_LEN} allowed")]
    TooLong(usize),
    /// The path holds a backslash, a folder separator on this system (never on Unix).
    #[error("the path contains a backslash; use forward slashes, relative to the repository root")]
    Backslash,
    /// The path is absolute and not inside the root.
    #[error(
        "the path is absolute and outside the repository; give a path relative to the repository root"
    )]
    AbsoluteOutside,
    /// `..` components climb above the root.
    #[error(
        "the path climbs out of the repository with `..`; give a path inside the repository root"
    )]
    Escapes,
    /// A symbolic link on the way resolves outside the root.
    #[error("the path goes through the symbolic link `{0}`, which points outside the repository")]
    SymlinkOutside(String),
    /// The path (or a symlink target) is not valid UTF-8.
    #[error("the path is not valid UTF-8")]
    NotUtf8,
}

impl crate::error::Diagnose for PathError {
    fn kind(&self) -> crate::error::ErrorKind {
        crate::error::ErrorKind::InvalidInput
    }
}

impl RepoPath {
    /// Normalize a relative path lexically, without touching the file system.
    ///
    /// Accepts what git prints (`src/a.rs`) and what people type (`./src//a.rs`).
    /// Refuses absolute paths and any `..` that would climb above the root.
    pub fn parse(input: &str) -> Result<RepoPath, PathError> {
        if input.len() > MAX_PATH_LEN {
            return Err(PathError::TooLong(input.len()));
        }
        if input.contains('\0') {
            return Err(PathError::Nul);
        }
        if cfg!(not(unix)) && input.contains('\\') {
            return Err(PathError::Backslash);
        }
        if input.starts_with('/') {
            return Err(PathError::AbsoluteOutside);
        }
        let mut parts: Vec<&str> = Vec::new();
        for part in input.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    if parts.pop().is_none() {
                        return Err(PathError::Escapes);
                    }
                }
                other => parts.push(other),
            }
        }
        if parts.is_empty() {
            return Err(PathError::Empty);
        }
        Ok(RepoPath(parts.join("/")))
    }

    /// Turn a user-given path into a `RepoPath`: relative paths are taken from
    /// the root, absolute ones must lie inside `root` (which must be canonical).
    /// Symbolic links on the way are checked against the root.
    pub fn resolve(root: &Path, input: &str) -> Result<RepoPath, PathError> {
        Guard::new(root).resolve(input)
    }

    /// The path as a string with forward slashes, e.g. `src/auth/mod.rs`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The file-system path of this file under `root`.
    pub fn to_fs(&self, root: &Path) -> PathBuf {
        root.join(&self.0)
    }

    /// Consume into the inner string.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for RepoPath {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// A path a caller gave for a parameter (`files`, `paths`, `spec_path`),
/// refused: the parameter, the input as given and why. The caller's input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: `{}`: {reason}", input.escape_debug())]
pub struct GivenPathError {
    /// The parameter that carried it.
    pub field: &'static str,
    /// The path as given.
    pub input: String,
    /// Why it was refused.
    pub reason: PathError,
}

impl crate::error::Diagnose for GivenPathError {
    fn kind(&self) -> crate::error::ErrorKind {
        crate::error::ErrorKind::InvalidInput
    }
}

/// Resolves many paths against one root, remembering which folders were
/// already checked for symbolic links so a batch of 10,000 files in a few
/// folders costs a few `lstat` calls per folder, not per file.
pub struct Guard<'a> {
    root: &'a Path,
    safe_dirs: HashSet<String>,
}

impl<'a> Guard<'a> {
    /// A guard for `root`, which must be canonical (absolute, links resolved).
    pub fn new(root: &'a Path) -> Guard<'a> {
        Guard {
            root,
            safe_dirs: HashSet::new(),
        }
    }

    /// See [`RepoPath::resolve`]: safe to read and write through, links included.
    pub fn resolve(&mut self, input: &str) -> Result<RepoPath, PathError> {
        let path = self.lexical(input)?;
        self.check_links(&path, true)?;
        Ok(path)
    }

    /// Like [`Guard::resolve`], except that the last component may be a
    /// symbolic link pointing anywhere: for callers that never follow it
    /// (hashing reads a link's target text, as git stores it). Folders on
    /// the way are still checked.
    pub fn resolve_unfollowed(&mut self, input: &str) -> Result<RepoPath, PathError> {
        let path = self.lexical(input)?;
        self.check_links(&path, false)?;
        Ok(path)
    }

    /// A path a caller gave for `field` (a tool's parameter), as
    /// [`Guard::resolve_unfollowed`] takes it; refused, the error names the
    /// parameter and the input.
    pub fn given(&mut self, field: &'static str, input: &str) -> Result<RepoPath, GivenPathError> {
        self.resolve_unfollowed(input)
            .map_err(|reason| GivenPathError {
                field,
                input: input.to_string(),
                reason,
            })
    }

    fn lexical(&self, input: &str) -> Result<RepoPath, PathError> {
        if input.starts_with('/') {
            self.relativize(input)
        } else {
            RepoPath::parse(input)
        }
    }

    /// Strip the root from an absolute path, lexically first, then through
    /// the canonical form of its parent (for roots reached via a link).
    fn relativize(&self, input: &str) -> Result<RepoPath, PathError> {
        if input.contains('\0') {
            return Err(PathError::Nul);
        }
        let abs = Path::new(input);
        let mut normal = PathBuf::new();
        for c in abs.components() {
            match c {
                Component::RootDir => normal.push("/"),
                Component::CurDir => {}
                Component::ParentDir => {
                    normal.pop();
                }
                Component::Normal(p) => normal.push(p),
                Component::Prefix(_) => return Err(PathError::AbsoluteOutside),
            }
        }
        let rel = match normal.strip_prefix(self.root) {
            Ok(rel) => rel.to_path_buf(),
            Err(_) => {
                let parent = normal.parent().and_then(|p| p.canonicalize().ok());
                let name = normal.file_name();
                match (parent, name) {
                    (Some(parent), Some(name)) => parent
                        .join(name)
                        .strip_prefix(self.root)
                        .map(Path::to_path_buf)
                        .map_err(|_| PathError::AbsoluteOutside)?,
                    _ => return Err(PathError::AbsoluteOutside),
                }
            }
        };
        let rel = rel.to_str().ok_or(PathError::NotUtf8)?;
        RepoPath::parse(rel)
    }

    /// Refuse the path when any existing component is a symbolic link whose
    /// target resolves outside the root (the last one only when `follow_last`).
    fn check_links(&mut self, path: &RepoPath, follow_last: bool) -> Result<(), PathError> {
        let s = path.as_str();
        let mut end = 0;
        loop {
            let next = s[end..].find('/').map(|i| end + i);
            let prefix = match next {
                Some(i) => &s[..i],
                None => s,
            };
            let is_last = next.is_none();
            if is_last && !follow_last {
                return Ok(());
            }
            if is_last || !self.safe_dirs.contains(prefix) {
                let full = self.root.join(prefix);
                match std::fs::symlink_metadata(&full) {
                    Ok(meta) if meta.file_type().is_symlink() => match full.canonicalize() {
                        Ok(target) if target.starts_with(self.root) => {}
                        // A dangling link cannot be read through; it is hashed as a link.
                        Err(_) if is_last => {}
                        _ => return Err(PathError::SymlinkOutside(prefix.to_string())),
                    },
                    Ok(_) => {}
                    // Nothing below a missing component can be a link.
                    Err(_) => return Ok(()),
                }
                if !is_last {
                    self.safe_dirs.insert(prefix.to_string());
                }
            }
            match next {
                Some(i) => end = i + 1,
                None => return Ok(()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes() {
        assert_eq!(
            RepoPath::parse("./src//a/../b.rs").unwrap().as_str(),
            "src/b.rs"
        );
        assert_eq!(RepoPath::parse("a/").unwrap().as_str(), "a");
    }

    #[test]
    fn refuses_hostile() {
        for (input, err) in [
            ("", PathError::Empty),
            (".", PathError::Empty),
            ("a/..", PathError::Empty),
            ("../x", PathError::Escapes),
            ("a/../../b", PathError::Escapes),
            ("/etc/passwd", PathError::AbsoluteOutside),
            ("a\0b", PathError::Nul),
        ] {
            assert_eq!(RepoPath::parse(input), Err(err), "{input:?}");
        }
        assert!(matches!(
            RepoPath::parse(&"a/".repeat(3000)),
            Err(PathError::TooLong(_))
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_backslash_is_part_of_a_name_on_unix() {
        assert_eq!(RepoPath::parse("a\\b.rs").unwrap().as_str(), "a\\b.rs");
        // Only `/` separates: this is one name in the root, not an escape.
        assert_eq!(RepoPath::parse("..\\..\\x").unwrap().as_str(), "..\\..\\x");
        assert_eq!(RepoPath::parse("..\\../x").unwrap().as_str(), "..\\../x");
        assert_eq!(RepoPath::parse("a\\/../../x"), Err(PathError::Escapes));
    }

    #[test]
    fn resolves_absolute_inside_and_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
        std::os::unix::fs::symlink(root.join("src"), root.join("in")).unwrap();
        let abs = format!("{}/src/a.rs", root.display());
        assert_eq!(RepoPath::resolve(&root, &abs).unwrap().as_str(), "src/a.rs");
        assert_eq!(
            RepoPath::resolve(&root, "out/secret"),
            Err(PathError::SymlinkOutside("out".into()))
        );
        assert_eq!(
            RepoPath::resolve(&root, "out"),
            Err(PathError::SymlinkOutside("out".into()))
        );
        // A last component that is never followed may point anywhere.
        let mut guard = Guard::new(&root);
        assert_eq!(guard.resolve_unfollowed("out").unwrap().as_str(), "out");
        assert!(guard.resolve_unfollowed("out/secret").is_err());
        assert_eq!(
            RepoPath::resolve(&root, "in/a.rs").unwrap().as_str(),
            "in/a.rs"
        );
        assert_eq!(
            RepoPath::resolve(&root, "missing/x").unwrap().as_str(),
            "missing/x"
        );
    }
}
