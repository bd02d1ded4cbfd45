//! The one safe way to write a file and the one bounded way to read a file
//! that came from the repository.
//!
//! A cloned repository is untrusted input: whoever committed it controls the
//! names, kinds and targets of every entry in it, including symbolic links
//! under any name notarai might write, FIFOs where notarai expects a file, and
//! files of any size. This module is where notarai's guarantees are kept, one
//! concern a file:
//!
//! - **Guards** (`guard.rs`): a path relative to the root (no `..`), the
//!   folder chain checked once from the root down (a linked folder must
//!   resolve inside the root), never into a git directory, a target that is
//!   a link never written through; [`crosses_link`] for the callers that
//!   refuse any linked folder.
//! - **Writes** (`write.rs`: [`write_file`], [`remove_file`],
//!   [`remove_empty_folders`], [`create_dir_all`], [`rename_aside`]) never
//!   follow a link out of the repository: the folder chain is checked (a
//!   missing folder is created with `create_dir`, which never follows a
//!   link), the target is refused when it is a link, and the bytes go to a
//!   temporary file with an unpredictable name created exclusively in the
//!   target's folder (`O_CREAT|O_EXCL`, which does not follow a planted
//!   link), synced, then renamed over the target. A crash leaves the old
//!   file or the new one, never half of one (plus, at worst, a stray
//!   `.name.*.notarai.tmp` file).
//! - **Reads** (`read.rs`: [`read`], [`read_prefix`], [`read_unfollowed`],
//!   [`read_bounded`]; [`read_own`] for notarai's own files, through no
//!   link at all) look before they open: `lstat` first; anything but a
//!   regular file (FIFO, socket, device, folder) is refused and never
//!   opened; a link (or linked folder) resolving outside the root is
//!   refused; the size is checked before reading and no more than the limit
//!   is read. The file is opened with `O_NONBLOCK|O_NOFOLLOW` and checked
//!   again with `fstat` ([`open_regular`]), so swapping it for a FIFO
//!   between the look and the open cannot hang the reader.
//! - **Read-only processes** ([`forbid_writes`]): `notarai mcp --read-only`
//!   turns every write of this module into an error for the rest of the
//!   process, and the SQLite cache and the load-status stamp
//!   ask [`writes_forbidden`] before touching a file.
//!
//! A leaf module: it imports nothing of notarai but `error`.

// This module is the one writer, remover and bounded reader the house's
// lints (clippy.toml) send every other module to.
#![allow(
    clippy::disallowed_methods,
    clippy::disallowed_types,
    reason = "the one safe writer and bounded reader"
)]

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

mod guard;
mod read;
mod write;

pub use guard::crosses_link;
pub use read::{
    check_readable, irregular_kind, open_regular, read, read_bounded, read_own, read_prefix,
    read_unfollowed,
};
pub use write::{
    check_write, create_dir_all, edit_git_config, remove_empty_folders, remove_file, rename_aside,
    write_cache_file, write_file,
};

/// Set once by a read-only process; never cleared.
static WRITES_FORBIDDEN: AtomicBool = AtomicBool::new(false);

/// Forbid every write of this process from now on (`notarai mcp
/// --read-only`): [`write_file`] and [`rename_aside`] fail, and the modules that
/// write their own files (the SQLite cache, the load-status stamp) check
/// [`writes_forbidden`] first. There is no way back.
pub fn forbid_writes() {
    WRITES_FORBIDDEN.store(true, Ordering::SeqCst);
}

/// Whether this process is read-only ([`forbid_writes`]).
pub fn writes_forbidden() -> bool {
    WRITES_FORBIDDEN.load(Ordering::SeqCst)
}

/// The error of a write refused because the process is read-only.
pub(super) fn read_only_error(path: &Path) -> FsError {
    FsError::Io {
        path: path.to_path_buf(),
        source: io::Error::new(
            io::ErrorKind::PermissionDenied,
            "this notarai process is read-only (`notarai mcp --read-only`) and writes no file",
        ),
    }
}

/// Why a file could not be read or written safely.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    /// The path is not inside the repository root.
    #[error("{} is outside the project; notarai only reads and writes files inside it", path.display())]
    OutsideRoot {
        /// The path as given.
        path: PathBuf,
    },
    /// The path, or a folder on the way to it, is a symbolic link that
    /// resolves outside the repository (or to nothing).
    #[error(
        "{} is a symbolic link that leads outside the project (or nowhere); notarai does not follow it (replace the link with the file itself)",
        path.display()
    )]
    LinkOutside {
        /// The link.
        path: PathBuf,
    },
    /// The target of a write or removal is a symbolic link: notarai never
    /// writes through a link, wherever it leads.
    #[error(
        "{} is a symbolic link (to {}); notarai never writes through a link (replace the link with a regular file, or make the change in {} yourself)",
        path.display(),
        target.display(),
        target.display()
    )]
    Link {
        /// The link.
        path: PathBuf,
        /// Where it leads, as written in the link.
        target: PathBuf,
    },
    /// The path lies in the repository's git directory (`.git/`, the common
    /// folder of linked worktrees, a nested repository's): notarai never
    /// writes or deletes there.
    #[error(
        "{} is inside the git directory; notarai never writes or deletes there (a link in the repository may lead there: remove it)",
        path.display()
    )]
    GitDir {
        /// The path.
        path: PathBuf,
    },
    /// The path is not a regular file (a folder, FIFO, socket or device).
    #[error(
        "{} is a {kind}, not a regular file; notarai does not open it (replace it with a file)",
        path.display()
    )]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is instead.
        kind: &'static str,
    },
    /// Something other than a folder is where a folder must be (or be
    /// created).
    #[error("cannot create folder {}: a {kind} is in the way (move or remove it)", path.display())]
    NotFolder {
        /// The path.
        path: PathBuf,
        /// What is there instead.
        kind: &'static str,
    },
    /// The file is larger than the reader's limit.
    #[error("{} is larger than {limit} bytes, the limit for this file", path.display())]
    TooLarge {
        /// The path.
        path: PathBuf,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The file does not exist.
    #[error("{} does not exist", path.display())]
    NotFound {
        /// The path.
        path: PathBuf,
    },
    /// Any other I/O error.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        #[source]
        source: io::Error,
    },
}

impl crate::error::Diagnose for FsError {}

pub(super) fn io_err(path: &Path) -> impl FnOnce(io::Error) -> FsError + '_ {
    move |source| {
        if source.kind() == io::ErrorKind::NotFound {
            FsError::NotFound {
                path: path.to_path_buf(),
            }
        } else {
            FsError::Io {
                path: path.to_path_buf(),
                source,
            }
        }
    }
}

/// What a file type is, in words, for messages.
pub(super) fn kind_name(file_type: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "FIFO";
        }
        if file_type.is_socket() {
            return "socket";
        }
        if file_type.is_block_device() || file_type.is_char_device() {
            return "device";
        }
    }
    if file_type.is_dir() {
        "folder"
    } else if file_type.is_symlink() {
        "symbolic link"
    } else if file_type.is_file() {
        "file"
    } else {
        "special file"
    }
}
