//! File reading and writing for `notarai init`: both go through the one
//! bounded reader and the one safe writer ([`crate::safe_fs`]).

use std::path::Path;

use anyhow::Context;

use crate::safe_fs::{self, FsError};

/// The largest file `init` reads and edits (an agent's instructions or
/// settings file); larger ones are refused.
const MAX_EDITED_BYTES: u64 = 8 << 20;

/// Read the file `rel` below `root` as UTF-8 text, `None` when it does not
/// exist. A FIFO, folder or device, a link out of the project and a file over
/// 8 MiB are refused with a message.
pub fn read_text(root: &Path, rel: &str) -> anyhow::Result<Option<String>> {
    match safe_fs::read(root, Path::new(rel), MAX_EDITED_BYTES) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| anyhow::anyhow!("not UTF-8 text")),
        Err(FsError::NotFound { .. }) => Ok(None),
        Err(e) => Err(anyhow::Error::new(e).context("cannot read")),
    }
}

/// Write `contents` to the file `rel` below `root` atomically with the one
/// safe writer ([`safe_fs::write_file`]): a crash leaves the old file or the new
/// one; a link is written through only when it stays inside the project;
/// parent folders are created and the permissions of a replaced file kept.
pub fn write_atomic(root: &Path, rel: &str, contents: &[u8]) -> anyhow::Result<()> {
    safe_fs::write_file(root, Path::new(rel), contents)
        .with_context(|| format!("cannot write {rel}"))
}

/// Delete the file `rel` below `root` (a link is deleted, not what it
/// points to), then each parent folder up to the root that is left empty,
/// both through the one safe module ([`safe_fs::remove_file`],
/// [`safe_fs::remove_empty_folders`]): nothing outside the project or in
/// its git directory is touched.
pub fn remove(root: &Path, rel: &str) -> anyhow::Result<()> {
    safe_fs::remove_file(root, Path::new(rel)).with_context(|| format!("cannot remove {rel}"))?;
    if let Some(parent) = Path::new(rel)
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
    {
        safe_fs::remove_empty_folders(root, parent)
            .with_context(|| format!("cannot remove the empty folders of {rel}"))?;
    }
    Ok(())
}

/// The line ending a text already uses: `\r\n` when most of its lines end so,
/// else `\n`.
pub fn line_ending(text: &str) -> &'static str {
    let crlf = text.matches("\r\n").count();
    let lf = text.matches('\n').count();
    if crlf > 0 && crlf * 2 >= lf {
        "\r\n"
    } else {
        "\n"
    }
}

/// `text` with every `\n` written as `eol`.
pub fn with_line_ending(text: &str, eol: &str) -> String {
    if eol == "\n" {
        text.to_string()
    } else {
        text.replace('\n', eol)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_text(dir.path(), "a/b.md").unwrap(), None);
        write_atomic(dir.path(), "a/b.md", b"one").unwrap();
        assert_eq!(
            read_text(dir.path(), "a/b.md").unwrap().as_deref(),
            Some("one")
        );
    }

    #[test]
    fn detects_line_endings() {
        assert_eq!(line_ending("a\r\nb\r\n"), "\r\n");
        assert_eq!(line_ending("a\nb\n"), "\n");
        assert_eq!(line_ending(""), "\n");
        assert_eq!(with_line_ending("a\nb\n", "\r\n"), "a\r\nb\r\n");
    }
}
