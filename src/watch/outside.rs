//! Files outside the watched folders that change what git reports (the
//! global and system config and excludes, `core.excludesFile`, every file
//! the config includes), and the stamps compared on every question since no
//! folder event covers them.

use std::path::{Path, PathBuf};

/// Files outside the repository that change what git reports (global
/// config and excludes); their modification stamps are compared on every
/// question, since no watch covers them.
pub(super) fn global_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let (home, xdg) = home_and_xdg();
    if let Some(home) = &home {
        out.push(home.join(".gitconfig"));
    }
    if let Some(xdg) = xdg {
        for name in ["config", "ignore", "attributes"] {
            out.push(xdg.join("git").join(name));
        }
    }
    out.push(PathBuf::from("/etc/gitconfig"));
    out
}

/// `$HOME` and the XDG config folder (`$XDG_CONFIG_HOME`, else `~/.config`).
fn home_and_xdg() -> (Option<PathBuf>, Option<PathBuf>) {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    (home, xdg)
}

/// Files the configuration of `repo` names that change what git reports
/// and that no folder watch covers: `core.excludesFile` and every
/// `include.path` / `includeIf.<condition>.path` (whatever the condition:
/// a stamp of a file not included costs one `stat`).
pub(super) fn config_files(repo: &git2::Repository) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(mut config) = repo.config() else {
        return out;
    };
    if let Ok(path) = config
        .snapshot()
        .and_then(|c| c.get_path("core.excludesFile"))
    {
        out.push(path);
    }
    let (home, xdg) = home_and_xdg();
    let Ok(entries) = config.entries(Some(r"^include\.path$|^includeif\..*\.path$")) else {
        return out;
    };
    let _ = entries.for_each(|entry| {
        let Ok(value) = entry.value() else {
            return;
        };
        let path = if let Some(rest) = value.strip_prefix("~/") {
            match &home {
                Some(home) => home.join(rest),
                None => return,
            }
        } else if Path::new(value).is_absolute() {
            PathBuf::from(value)
        } else {
            // Relative to the folder of the file that names it.
            let base = match entry.level() {
                git2::ConfigLevel::Local => Some(repo.commondir().to_path_buf()),
                git2::ConfigLevel::Worktree => Some(repo.path().to_path_buf()),
                git2::ConfigLevel::Global => home.clone(),
                git2::ConfigLevel::XDG => xdg.as_ref().map(|x| x.join("git")),
                git2::ConfigLevel::System => Some(PathBuf::from("/etc")),
                _ => None,
            };
            match base {
                Some(base) => base.join(value),
                None => return,
            }
        };
        out.push(path);
    });
    out
}

/// `(modified ns, length, inode)` of a file.
pub type Stamp = (i128, u64, u64);

/// The [`Stamp`] of a file, `None` when absent.
pub fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128);
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let ino = 0;
    Some((modified, meta.len(), ino))
}
