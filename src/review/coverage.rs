//! `notarai coverage`: the blind spots of the whole repository. Every file
//! git tracks (or would add: untracked and not ignored) that no spec
//! governs and the system spec's `exclude` does not cover, grouped per
//! folder; and every spec with the number of files it governs.
//!
//! The system spec's `coverage.policy` says how unspecced files count:
//! `off` reports none, `warn` (the default) reports them, `strict` reports
//! them and makes `notarai coverage` fail.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use super::{Result, ReviewError};
use crate::governance::{Scope, is_under};
use crate::layout::CACHE_DIR;
use crate::project::Project;
use crate::spec::model::CoveragePolicy;

/// The answer of `notarai coverage`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Coverage {
    /// The system spec's `coverage.policy` (`warn` when it says none).
    pub policy: CoveragePolicy,
    /// The system spec's `coverage.message`, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Files looked at.
    pub files: usize,
    /// Files governed by at least one spec.
    pub governed: usize,
    /// Files governed by none and covered by the system spec's `exclude`.
    pub excluded: usize,
    /// Files governed by none and not excluded (none under policy `off`).
    pub unspecced: usize,
    /// The unspecced files per folder (`.` for the root), sorted by folder.
    pub folders: Vec<FolderGap>,
    /// Every spec that loaded, with how many files it governs, sorted by path.
    pub specs: Vec<SpecCoverage>,
}

/// The unspecced files of one folder (not below it: each folder apart).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FolderGap {
    /// The folder, repository-relative (`.` for the root).
    pub folder: String,
    /// How many of its files are unspecced.
    pub count: usize,
    /// Those files, sorted; at most the limit asked (fewer than `count` when cut).
    pub files: Vec<String>,
}

/// How many files one spec governs.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SpecCoverage {
    /// Path of the spec file.
    pub spec_path: String,
    /// Files of the repository it governs (its own file included).
    pub files: usize,
}

impl Coverage {
    /// Whether the policy is `strict` and some file is unspecced.
    pub fn failed(&self) -> bool {
        self.policy == CoveragePolicy::Strict && self.unspecced > 0
    }
}

/// The coverage of the project: `per_folder` files listed per folder at
/// most (`None`: all of them).
pub fn coverage(project: &mut Project, per_folder: Option<usize>) -> Result<Coverage> {
    let specs = project.specs();
    let root = project.root().to_path_buf();
    let files = match project.git() {
        Ok(git) => git.files(&Scope::Everything).map_err(ReviewError::from)?,
        Err(_) => crate::project::repo_files(&root),
    };
    let files: Vec<String> = files
        .into_iter()
        .filter(|f| !is_under(f, CACHE_DIR))
        .collect();
    let system = specs.set.system_spec();
    let policy = system
        .and_then(|s| s.spec.coverage.as_ref())
        .and_then(|c| c.policy)
        .unwrap_or(CoveragePolicy::Warn);
    let message = system
        .and_then(|s| s.spec.coverage.as_ref())
        .and_then(|c| c.message.clone());
    let governance = specs.governance();
    let mut per_spec = vec![0usize; specs.set.specs.len()];
    let (mut governed, mut excluded) = (0, 0);
    let mut gaps: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in &files {
        let governors = governance.governors(file);
        if !governors.is_empty() {
            governed += 1;
            for g in governors {
                per_spec[g] += 1;
            }
        } else if governance.is_excluded(file) {
            excluded += 1;
        } else if policy != CoveragePolicy::Off {
            let folder = match file.rsplit_once('/') {
                Some((folder, _)) => folder.to_string(),
                None => ".".to_string(),
            };
            gaps.entry(folder).or_default().push(file.clone());
        }
    }
    let unspecced = gaps.values().map(Vec::len).sum();
    let folders = gaps
        .into_iter()
        .map(|(folder, mut files)| {
            let count = files.len();
            if let Some(limit) = per_folder {
                files.truncate(limit);
            }
            FolderGap {
                folder,
                count,
                files,
            }
        })
        .collect();
    let mut specs: Vec<SpecCoverage> = specs
        .set
        .specs
        .iter()
        .zip(per_spec)
        .map(|(s, files)| SpecCoverage {
            spec_path: s.path.clone(),
            files,
        })
        .collect();
    specs.sort_by(|a, b| a.spec_path.cmp(&b.spec_path));
    Ok(Coverage {
        policy,
        message,
        files: files.len(),
        governed,
        excluded,
        unspecced,
        folders,
        specs,
    })
}
