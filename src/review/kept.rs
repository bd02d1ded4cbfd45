//! The page a paged tool answers, from the pages the long-lived server
//! keeps ([`crate::answers`]) or laid out afresh and kept: the one way
//! `get_spec_diff` and `list_affected_specs` serve their pages 2..N as a
//! copy of one page.

use serde::Serialize;

use super::pages::LaidOut;
use super::{Result, ReviewError};
use crate::project::Project;

/// The page `cursor` names of the answer kept under `key` (the tool and
/// every argument that shapes its pages); when none is kept for the work
/// tree as it is, `lay_out` computes every page, and they are kept (with
/// the token of the moment before, so a change meanwhile is never hidden).
pub(super) fn page<T>(
    project: &mut Project,
    key: String,
    cursor: Option<&str>,
    lay_out: impl FnOnce(&mut Project) -> Result<LaidOut<T>>,
) -> Result<T>
where
    T: Clone + Serialize + Send + Sync + 'static,
{
    let invalid = |e: crate::page::CursorError| ReviewError::invalid(e.to_string());
    let token = match project.kept::<LaidOut<T>>(&key) {
        (Some(kept), _) => {
            tracing::debug!("kept answer served: {key}");
            return kept.page(cursor).map_err(invalid);
        }
        (None, token) => token,
    };
    let laid_out = lay_out(project)?;
    let page = laid_out.page(cursor).map_err(invalid)?;
    if let Some(token) = token {
        let bytes = laid_out.bytes;
        project.keep(key, token, laid_out, bytes);
    }
    Ok(page)
}
