//! The `--agents LIST` value that `init` and `doctor` share: the names of
//! [`AgentId`] (one list, no second copy here), or `all`.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

use crate::agent::AgentId;

/// The word that names every agent.
const ALL: &str = "all";

/// A value of `--agents`: one agent, or `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentChoice {
    /// Every agent.
    All,
    /// One agent.
    One(AgentId),
}

/// clap's parser of one `--agents` item: the agents' names and `all`, listed
/// in `--help` and in the error for an unknown name.
pub fn parser() -> impl TypedValueParser<Value = AgentChoice> {
    let values = AgentId::ALL
        .iter()
        .map(|id| PossibleValue::new(id.name()).help(id.title()))
        .chain([PossibleValue::new(ALL).help(all_help())]);
    PossibleValuesParser::new(values).map(|name| match AgentId::from_name(&name) {
        Some(id) => AgentChoice::One(id),
        None => AgentChoice::All,
    })
}

/// What `all` takes: every agent, a retired one only where its folder is.
fn all_help() -> String {
    let retired: Vec<String> = crate::init::agents::AGENTS
        .iter()
        .filter(|a| a.successor.is_some())
        .filter_map(|a| Some(format!("{} only where {} exists", a.id, a.signs.first()?)))
        .collect();
    match retired.is_empty() {
        true => "Every agent above".to_string(),
        false => format!("Every agent above ({}: retired)", retired.join(", ")),
    }
}

/// The agents a `--agents` list names, each once, in the order given;
/// `all` leaves out a retired agent unless the repository at `root` has its
/// folder ([`crate::init::agents::in_all`]).
pub fn selected(list: &[AgentChoice], root: &std::path::Path) -> Vec<AgentId> {
    let mut out: Vec<AgentId> = Vec::new();
    for choice in list {
        let ids = match choice {
            AgentChoice::All => AgentId::ALL
                .into_iter()
                .filter(|id| crate::init::agents::in_all(*id, root))
                .collect(),
            AgentChoice::One(id) => vec![*id],
        };
        for id in ids {
            if !out.contains(&id) {
                out.push(id);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_expands_and_each_agent_comes_once() {
        let list = [AgentChoice::One(AgentId::Zed), AgentChoice::All];
        let dir = tempfile::tempdir().unwrap();
        let got = selected(&list, dir.path());
        assert_eq!(got[0], AgentId::Zed);
        // Gemini CLI, retired, only where .gemini/ exists.
        assert_eq!(got.len(), AgentId::ALL.len() - 1);
        assert!(!got.contains(&AgentId::Gemini));
        std::fs::create_dir(dir.path().join(".gemini")).unwrap();
        assert_eq!(selected(&list, dir.path()).len(), AgentId::ALL.len());
        let named = [AgentChoice::One(AgentId::Gemini)];
        assert_eq!(
            selected(&named, tempfile::tempdir().unwrap().path()),
            [AgentId::Gemini]
        );
    }
}
