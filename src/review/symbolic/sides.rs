//! Both sides of a changed file, read and outlined (on all cores, with
//! the facts earlier processes learned).

use super::*;

/// Both sides of one changed file, outlined.
pub struct Sides {
    /// The file at the merge base (empty when added).
    pub old: Arc<Outline>,
    /// The file in the work tree (empty when deleted).
    pub new: Arc<Outline>,
    /// Whether the file was modified in place (not added, deleted, renamed).
    modified: bool,
    /// Its language (of its path now).
    pub(super) lang: Option<Lang>,
    /// Both sides' text (base, work tree), read for the rebindings of an
    /// anchored name anywhere in the file (`rebound.rs`).
    pub(super) texts: [Arc<[u8]>; 2],
}

/// Both sides' content of one changed file, read but not parsed yet: the
/// reading needs the repository (one thread), the parsing does not.
pub struct Contents {
    old_path: String,
    path: String,
    old: Vec<u8>,
    new: Vec<u8>,
    modified: bool,
}

impl Contents {
    /// Read both sides of `file`: the base's content of its old path, the
    /// work tree's of its path. `None` for a file in a language the outline
    /// does not know (it is whole-file, with nothing to learn), too large,
    /// or unreadable.
    pub fn read(root: &Path, git: &GitRepo, base: &Base, file: &ChangedFile) -> Option<Contents> {
        Lang::of_path(&file.path)?;
        let old_path = file.old_path.as_deref().unwrap_or(&file.path);
        let (old, new) = git.both_sides(root, base, file)?;
        Some(Contents {
            old_path: old_path.to_string(),
            path: file.path.clone(),
            old,
            new,
            modified: file.status == ChangeKind::Modified,
        })
    }

    /// Both sides outlined.
    pub fn outline(&self, kept: &SymbolCache) -> Sides {
        Sides {
            old: kept.outline(&self.old_path, &self.old),
            new: kept.outline(&self.path, &self.new),
            modified: self.modified,
            lang: Lang::of_path(&self.path),
            texts: [Arc::from(&self.old[..]), Arc::from(&self.new[..])],
        }
    }

    /// [`Sides::formatting_only`], from the file hashes alone (no
    /// symbols found): what a file no spec anchors needs.
    pub fn formatting_only(&self, kept: &SymbolCache) -> bool {
        if !self.modified {
            return false;
        }
        let (old, new) = kept.semantic_hash_pair(&self.old_path, &self.old, &self.path, &self.new);
        same_program(self.modified, old, new)
    }
}

/// Outline both sides of each of `files` on all cores, ahead of a loop
/// that asks [`sides`] for them one by one (which then finds them kept):
/// the contents are read on this thread (the repository), parsed on all.
pub fn outline_ahead(root: &Path, git: &GitRepo, base: &Base, files: &[&ChangedFile]) {
    let read: Vec<Contents> = files
        .iter()
        .filter_map(|file| Contents::read(root, git, base, file))
        .collect();
    let kept = git.symbols();
    with_kept_facts(root, git, read.iter(), || {
        crate::parallel::map(&read, 8, |c| drop(c.outline(kept)), |_| ())
    });
}

/// Run `parse` over `contents` with what earlier processes learned of the
/// same contents (the cache's [`crate::cache::facts`]): a content this
/// process does not know yet is looked up first, so only the ones never
/// seen are parsed, and what `parse` learned is kept for the next process.
/// Not when git tracks the cache folder: a cloned repository's facts could
/// hide a change.
pub(super) fn with_kept_facts<'c, R>(
    root: &Path,
    git: &GitRepo,
    contents: impl Iterator<Item = &'c Contents>,
    parse: impl FnOnce() -> R,
) -> R {
    if !git.tracked_cache_files().is_empty() {
        return parse();
    }
    let unknown: Vec<symbols::ContentKey> = contents
        .flat_map(|c| [(&c.old_path, &c.old), (&c.path, &c.new)])
        .filter(|(_, bytes)| !bytes.is_empty())
        .map(|(path, bytes)| symbols::ContentKey::of(path, bytes))
        .filter(|key| !git.symbols().knows(key))
        .collect();
    if !unknown.is_empty() {
        git.symbols()
            .seed_kept(crate::cache::facts::recall(root, &unknown));
    }
    let out = parse();
    crate::cache::facts::keep(root, &git.symbols().take_learned());
    out
}

/// Outline both sides of `file` (the base's content of its old path, the
/// work tree's of its path). `None` for a file in a language the outline
/// does not know: it is whole-file, with nothing to learn.
pub fn sides(root: &Path, git: &GitRepo, base: &Base, file: &ChangedFile) -> Option<Sides> {
    Contents::read(root, git, base, file).map(|c| c.outline(git.symbols()))
}

/// Outline two contents of `path` modified in place (the content last
/// reconciled and the work tree's). `None` for a language the outline does
/// not know.
pub fn sides_of(kept: &SymbolCache, path: &str, old: &[u8], new: &[u8]) -> Option<Sides> {
    let lang = Lang::of_path(path)?;
    Some(Sides {
        old: kept.outline(path, old),
        new: kept.outline(path, new),
        modified: true,
        lang: Some(lang),
        texts: [Arc::from(old), Arc::from(new)],
    })
}

/// The one test of "formatting or comments only", from a file's two
/// semantic hashes: modified in place, both sides parsed (a token hash,
/// not a bytes hash) and equal. [`Sides::formatting_only`] and
/// [`Contents::formatting_only`] both ask it, so the status (which may
/// only hash tokens) and the diff (which outlines) cannot disagree.
pub(super) fn same_program(
    modified: bool,
    old: symbols::SemanticHash,
    new: symbols::SemanticHash,
) -> bool {
    modified && old.tokens && new.tokens && old == new
}

impl Sides {
    /// Whether the file changed in formatting or comments only: modified in
    /// place, both sides parse and their programs are the same (`symbols::program`).
    pub fn formatting_only(&self) -> bool {
        self.modified && self.old.same_program(&self.new)
    }

    /// Whether either side has no outline (the file is then whole-file).
    pub(super) fn whole_file(&self) -> bool {
        self.old.fallback.is_some() || self.new.fallback.is_some()
    }

    /// Why `anchors` govern this file whole rather than their symbols, when
    /// they do (`symbols::whole_file_because`, the work tree's side first,
    /// then the base's): a side has no outline, or is a partial outline
    /// where an anchor names a damaged symbol or none.
    pub fn whole_file_because(&self, anchors: &[&Anchor]) -> Option<String> {
        symbols::whole_file_because(anchors, &self.new).or_else(|| {
            symbols::whole_file_because(anchors, &self.old).map(|r| format!("at the base: {r}"))
        })
    }
}
