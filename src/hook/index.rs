//! The pre-edit hook's kept index of the specs, so that a fresh process
//! answers "which specs govern this file, and what do they say" without
//! parsing every spec.
//!
//! It is kept in [`SPEC_INDEX_FILE`] the way the load status is kept
//! ([`Project::keep_file`], [`read_kept`]): per spec file, its stamp (size,
//! modification time, status change time, inode: [`spec_stamps`]), what
//! governance reads of it ([`SpecGlobs`]) and the lines the hook tells
//! ([`SpecLines`]), or that it failed to load. A process lists the spec
//! folder and `stat`s each spec (no parsing), reuses the entry of every
//! spec whose stamp is the same, and parses only the others; an edit in
//! place that keeps the size and puts the modification time back still
//! moves the status change time. Nothing in the file is trusted as it is:
//! it is read through the bounded reader (at most [`INDEX_LIMIT`] bytes), an
//! entry is used only when its stamp equals the file's stamp now (which no
//! committed file can predict) and its lines are what [`SpecLines::new`]
//! could have made; a file that is too large, does not parse or is of
//! another version is ignored, and the index is built again from a full
//! load of the specs, then kept.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::context::SpecLines;
use crate::governance::{Governance, SpecGlobs};
use crate::layout::SPEC_INDEX_FILE;
use crate::project::{Project, SpecStamp, read_kept, spec_stamps};
use crate::spec::{Lineage, LoadedSpec, SpecLinks};

/// Largest index read or kept (a larger one is not ours, or the specs are
/// too many to index: every process then loads them all).
pub const INDEX_LIMIT: u64 = 8 << 20;

/// Version of the file's layout.
const FORMAT: u32 = 3;

/// The file as kept.
#[derive(Debug, Serialize, Deserialize)]
struct Stored {
    /// The notarai version that wrote it.
    version: String,
    /// [`FORMAT`].
    format: u32,
    /// One entry per spec file, in the loader's order.
    specs: Vec<Indexed>,
}

/// One spec file in the index.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Indexed {
    /// The file's stamp when it was read.
    stamp: SpecStamp,
    /// What the hook needs of it; `None` when it failed to load (it then
    /// governs nothing).
    loaded: Option<Entry>,
}

/// What the hook needs of one loaded spec.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    /// What governance reads of it.
    globs: SpecGlobs,
    /// The lines the hook tells of it.
    context: SpecLines,
    /// Its subsystems and the cross-cutting specs it applies, whose lines
    /// the hook tells with its own.
    links: SpecLinks,
}

impl Entry {
    fn of(loaded: &LoadedSpec) -> Entry {
        Entry {
            globs: SpecGlobs::of(loaded),
            context: SpecLines::new(
                &loaded.path,
                &loaded.spec.constraints,
                &loaded.spec.invariants,
            ),
            links: SpecLinks::of(loaded),
        }
    }

    /// Whether a kept entry for the spec at `path` may be used.
    fn is_plausible(&self, path: &str) -> bool {
        self.globs.path == path
            && self.context.path == path
            && self.links.path == path
            && self.context.is_plausible()
    }
}

/// Where an index came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The kept file, every stamp the same.
    Kept,
    /// The kept file, with this many specs parsed again (changed, added).
    Refreshed(usize),
    /// A full load of the specs (no usable kept file).
    Built,
}

/// The specs as the pre-edit hook needs them: each loaded spec's globs
/// and lines. Only the globs of the specs that may govern a path
/// ([`SpecGlobs::may_govern`]) are compiled for it.
#[derive(Debug)]
pub struct SpecIndex {
    /// Each loaded spec's globs and lines, in the loader's order.
    specs: Vec<Entry>,
    /// Where it came from.
    pub source: Source,
}

impl SpecIndex {
    /// The index of `project`'s specs now: the kept one, with the specs
    /// whose stamps moved parsed again, or one built from a full load;
    /// kept again when it changed (best effort, as [`Project::keep_file`]).
    pub fn open(project: &mut Project) -> SpecIndex {
        let root = project.root().to_path_buf();
        // Stamps before contents: a spec that changes while it is read is
        // kept with its older stamp, so it is read again next time.
        let stamps = spec_stamps(&root);
        let stored = read_kept::<Stored>(&root, SPEC_INDEX_FILE, INDEX_LIMIT)
            .filter(|s| s.version == env!("CARGO_PKG_VERSION") && s.format == FORMAT);
        let (specs, source) = match stored {
            Some(stored) => refresh(&root, stored.specs, &stamps),
            None => (build(project, &stamps), Source::Built),
        };
        if source != Source::Kept {
            // The hook makes the cache folder as its session memory does
            // (a server does not: starting one must not create folders).
            if !stamps.is_empty()
                && let Err(e) = crate::project::make_cache_folder(&root)
            {
                tracing::debug!("cannot make the cache folder: {e}");
            }
            let stored = Stored {
                version: env!("CARGO_PKG_VERSION").into(),
                format: FORMAT,
                specs,
            };
            project.keep_file(SPEC_INDEX_FILE, &stored, INDEX_LIMIT);
            return SpecIndex::new(stored.specs, source);
        }
        SpecIndex::new(specs, source)
    }

    fn new(specs: Vec<Indexed>, source: Source) -> SpecIndex {
        SpecIndex {
            specs: specs.into_iter().filter_map(|s| s.loaded).collect(),
            source,
        }
    }

    /// The lines of every spec governing `path` (repository-relative,
    /// checked), sorted by spec path; empty for an ungoverned file. The
    /// specs that may govern it are compiled into a [`Governance`], which
    /// decides as it does for a full load.
    pub fn governing(&self, path: &str) -> Vec<&SpecLines> {
        let candidates: Vec<&Entry> = self
            .specs
            .iter()
            .filter(|e| e.globs.may_govern(path))
            .collect();
        let governance = Governance::from_globs(candidates.iter().map(|e| e.globs.clone()), None);
        let mut specs: Vec<&SpecLines> = governance
            .governors(path)
            .into_iter()
            .map(|i| &candidates[i].context)
            .collect();
        specs.sort_by(|a, b| a.path.cmp(&b.path));
        specs
    }

    /// The lines of the cross-cutting specs applied to `governing` (their
    /// own `applies` and their parents'), each once, headed by the specs
    /// applying it, sorted by path: what holds for the file as well.
    pub fn applied(&self, governing: &[&SpecLines]) -> Vec<SpecLines> {
        let lineage = Lineage::from_links(self.specs.iter().map(|e| e.links.clone()));
        let mut by: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
        for spec in governing {
            for applied in lineage.applied(&spec.path) {
                by.entry(applied).or_default().push(&spec.path);
            }
        }
        by.into_iter()
            .filter_map(|(path, by)| {
                let entry = self.specs.iter().find(|e| e.context.path == path)?;
                Some(entry.context.applied_by(&by))
            })
            .collect()
    }
}

/// The kept entries brought up to `stamps`: an entry whose stamp is the
/// same (and which is plausible) is reused, every other spec is parsed (on
/// all cores when there are many, as the loader does).
fn refresh(root: &Path, kept: Vec<Indexed>, stamps: &[SpecStamp]) -> (Vec<Indexed>, Source) {
    let mut kept: HashMap<String, Indexed> = kept
        .into_iter()
        .map(|s| (s.stamp.path.clone(), s))
        .collect();
    let reused: Vec<Option<Indexed>> = stamps
        .iter()
        .map(|stamp| {
            kept.remove(&stamp.path).filter(|entry| {
                entry.stamp == *stamp
                    && entry
                        .loaded
                        .as_ref()
                        .is_none_or(|e| e.is_plausible(&stamp.path))
            })
        })
        .collect();
    let moved: Vec<&SpecStamp> = stamps
        .iter()
        .zip(&reused)
        .filter(|(_, r)| r.is_none())
        .map(|(s, _)| s)
        .collect();
    let mut parsed = crate::parallel::map(
        &moved,
        16,
        |stamp| parse(root, stamp),
        |stamp| Indexed {
            stamp: (*stamp).clone(),
            loaded: None,
        },
    )
    .into_iter();
    let source = match (moved.len(), kept.is_empty()) {
        (0, true) => Source::Kept,
        (n, _) => Source::Refreshed(n),
    };
    let specs = reused
        .into_iter()
        .filter_map(|r| r.or_else(|| parsed.next()))
        .collect();
    (specs, source)
}

/// One spec read and parsed as the loader does.
fn parse(root: &Path, stamp: &SpecStamp) -> Indexed {
    let loaded = match crate::spec::load_one(root, &stamp.path) {
        Ok(spec) => Some(Entry::of(&spec)),
        Err(findings) => {
            tracing::debug!(path = %stamp.path, errors = findings.len(), "spec failed to load");
            None
        }
    };
    Indexed {
        stamp: stamp.clone(),
        loaded,
    }
}

/// Every spec of `stamps` from a full load of the project's specs.
fn build(project: &mut Project, stamps: &[SpecStamp]) -> Vec<Indexed> {
    let specs = project.specs();
    let loaded: HashMap<&str, &LoadedSpec> = specs
        .set
        .specs
        .iter()
        .map(|s| (s.path.as_str(), s))
        .collect();
    stamps
        .iter()
        .map(|stamp| Indexed {
            stamp: stamp.clone(),
            loaded: loaded.get(stamp.path.as_str()).map(|s| Entry::of(s)),
        })
        .collect()
}
