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
        .chain([PossibleValue::new(ALL).help("Every agent above")]);
    PossibleValuesParser::new(values).map(|name| match AgentId::from_name(&name) {
        Some(id) => AgentChoice::One(id),
        None => AgentChoice::All,
    })
}

/// The agents a `--agents` list names, each once, in the order given.
pub fn selected(list: &[AgentChoice]) -> Vec<AgentId> {
    let mut out: Vec<AgentId> = Vec::new();
    for choice in list {
        let ids = match choice {
            AgentChoice::All => AgentId::ALL.to_vec(),
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
        let got = selected(&list);
        assert_eq!(got[0], AgentId::Zed);
        assert_eq!(got.len(), AgentId::ALL.len());
    }
}
