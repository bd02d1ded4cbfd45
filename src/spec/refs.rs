//! `$ref`s between specs: resolution, existence, `subsystems` cycles, the
//! system spec and which specs it reaches.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::yaml::{Node, Pos};
use super::{Finding, LoadedSpec, SYSTEM_SPEC, Spec, SpecSet, schema_check::closest};

/// The kind of link a `$ref` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Link {
    Subsystem,
    Applies,
    Dependency,
    StyleGuide,
}

/// A `$ref` of a spec: its JSON pointer in the file, the text written and the link.
pub(crate) struct RefAt<'a> {
    pub pointer: String,
    pub reference: &'a str,
    pub link: Link,
}

/// Every `$ref` a spec holds, in file order per block.
pub(crate) fn refs_of(spec: &Spec) -> Vec<RefAt<'_>> {
    let mut out = Vec::new();
    for (i, r) in spec.subsystems.iter().flatten().enumerate() {
        out.push(RefAt {
            pointer: format!("/subsystems/{i}/$ref"),
            reference: &r.reference,
            link: Link::Subsystem,
        });
    }
    for (i, r) in spec.applies.iter().enumerate() {
        out.push(RefAt {
            pointer: format!("/applies/{i}/$ref"),
            reference: &r.reference,
            link: Link::Applies,
        });
    }
    for (i, r) in spec.dependencies.iter().enumerate() {
        out.push(RefAt {
            pointer: format!("/dependencies/{i}/$ref"),
            reference: &r.reference,
            link: Link::Dependency,
        });
    }
    if let Some(design) = &spec.design {
        for (i, r) in design.style_guide.iter().enumerate() {
            out.push(RefAt {
                pointer: format!("/design/style_guide/{i}/$ref"),
                reference: &r.reference,
                link: Link::StyleGuide,
            });
        }
    }
    out
}

/// Resolve a `$ref` written in the spec at `from` (repository-relative) to
/// a repository-relative path with forward slashes, `.` and `..` folded.
/// `None` when the reference is empty, absolute, a URL, or leaves the
/// repository.
pub fn resolve_ref(from: &str, reference: &str) -> Option<String> {
    if reference.is_empty()
        || reference.starts_with('/')
        || reference.starts_with('\\')
        || reference.contains("://")
        || reference.contains('\0')
        || reference.as_bytes().get(1) == Some(&b':')
    {
        return None;
    }
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for part in reference.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

fn pos_of(tree: &Node, pointer: &str) -> Pos {
    tree.pointer(pointer)
        .map(|n| n.pos)
        .unwrap_or(Pos { line: 1, column: 1 })
}

/// The path to write in a `$ref` from the spec at `from` to `to`.
fn relative(from: &str, to: &str) -> String {
    let from_dir: Vec<&str> = {
        let mut p: Vec<&str> = from.split('/').collect();
        p.pop();
        p
    };
    let to_parts: Vec<&str> = to.split('/').collect();
    let common = from_dir
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out: Vec<&str> = vec![".."; from_dir.len() - common];
    if out.is_empty() {
        out.push(".");
    }
    out.extend(&to_parts[common..]);
    out.join("/")
}

/// Each `$ref` must name an existing file inside the repository.
pub(crate) fn check_refs_exist(root: &Path, rel: &str, spec: &Spec, tree: &Node) -> Vec<Finding> {
    let mut out = Vec::new();
    for r in refs_of(spec) {
        let pos = pos_of(tree, &r.pointer);
        match resolve_ref(rel, r.reference) {
            None => out.push(
                Finding::error(
                    rel,
                    pos.line,
                    pos.column,
                    format!(
                        "`$ref: {}` is not a path inside the repository",
                        r.reference
                    ),
                )
                .with_hint("write a path relative to this file, e.g. `./auth.spec.yaml`"),
            ),
            Some(target) if !root.join(&target).is_file() => {
                let mut f = Finding::error(
                    rel,
                    pos.line,
                    pos.column,
                    format!(
                        "`$ref: {}` points to `{target}`, which does not exist",
                        r.reference
                    ),
                );
                let specs = super::load::discover(root);
                let name = target.rsplit('/').next().unwrap_or_default();
                let same_name = specs.iter().find(|s| s.rsplit('/').next() == Some(name));
                // Guess by file name only: whole paths share too much
                // (`.notarai/`, `.spec.yaml`) for an edit distance to mean anything.
                let file_name = |s: &str| {
                    s.rsplit('/')
                        .next()
                        .unwrap_or(s)
                        .trim_end_matches(".spec.yaml")
                        .to_string()
                };
                let stem = file_name(&target);
                let guess = same_name.map(String::as_str).or_else(|| {
                    let stems: Vec<String> = specs.iter().map(|s| file_name(s)).collect();
                    let close = closest(&stem, stems.iter().map(String::as_str))?;
                    specs
                        .iter()
                        .zip(&stems)
                        .find(|(_, st)| st.as_str() == close)
                        .map(|(s, _)| s.as_str())
                });
                if let Some(close) = guess {
                    f = f.with_hint(format!("did you mean `{}`?", relative(rel, close)));
                } else {
                    f = f.with_hint("refs are relative to the file that holds them");
                }
                out.push(f);
            }
            Some(_) => {}
        }
    }
    out
}

/// Each behavior's `tested_by` paths (relative to the repository root) should
/// name something that exists inside the repository: a warning at the path
/// otherwise. Only the existence of the entry is looked at (a link is not
/// followed). A path with glob characters is not checked.
pub(crate) fn check_tested_by(root: &Path, rel: &str, spec: &Spec, tree: &Node) -> Vec<Finding> {
    let mut out = Vec::new();
    for (b, behavior) in spec.behaviors.iter().enumerate() {
        for (t, test) in behavior.tested_by.iter().enumerate() {
            let written = test.path.trim();
            if written.contains(['*', '?', '[', '{']) {
                continue;
            }
            let pos = pos_of(tree, &format!("/behaviors/{b}/tested_by/{t}/path"));
            let inside = crate::repo_path::RepoPath::resolve(root, written);
            let missing = match &inside {
                Ok(path) => std::fs::symlink_metadata(root.join(path.as_str())).is_err(),
                Err(_) => true,
            };
            if !missing {
                continue;
            }
            let message = match inside {
                Ok(path) => format!(
                    "behavior `{}`: test file `{path}` (`tested_by`) does not exist",
                    behavior.name
                ),
                Err(e) => format!(
                    "behavior `{}`: test file `{written}` (`tested_by`) is not a path inside the repository: {e}",
                    behavior.name
                ),
            };
            out.push(
                Finding::warning(crate::rules::Code::TestedByMissing, rel, pos.line, pos.column, message).with_hint(
                    "`tested_by` paths are relative to the repository root; fix the path, or remove the entry if the test is gone",
                ),
            );
        }
    }
    out
}

/// The system spec: the spec with a `subsystems` key, `.notarai/system.spec.yaml` first.
pub(crate) fn choose_system(specs: &[LoadedSpec]) -> Option<usize> {
    specs
        .iter()
        .position(|s| s.path == SYSTEM_SPEC && s.spec.subsystems.is_some())
        .or_else(|| specs.iter().position(|s| s.spec.subsystems.is_some()))
}

/// Checks across the set: more than one system spec, `subsystems` cycles,
/// specs the system spec does not reach. `trees[i]` is the tree of `set.specs[i]`.
pub(crate) fn check_set(set: &SpecSet, trees: &[Node]) -> Vec<Finding> {
    let graph = Graph::new(set);
    let mut out = Vec::new();
    if let Some(system) = set.system {
        out.extend(other_system_specs(set, trees, system));
        out.extend(cross_cutting_subsystems(&graph, trees));
        out.extend(unreached(&graph, system));
    }
    out.extend(cycles(&graph, trees));
    out
}

/// The `$ref` links between the specs of a set.
struct Graph<'a> {
    set: &'a SpecSet,
    /// Spec path to index.
    index: BTreeMap<&'a str, usize>,
}

impl<'a> Graph<'a> {
    fn new(set: &'a SpecSet) -> Graph<'a> {
        let index = set
            .specs
            .iter()
            .enumerate()
            .map(|(i, s)| (s.path.as_str(), i))
            .collect();
        Graph { set, index }
    }

    /// The specs spec `i` links to by one of `links`, each with the JSON
    /// pointer of its `$ref`.
    fn edges(&self, i: usize, links: &[Link]) -> Vec<(usize, String)> {
        let spec = &self.set.specs[i];
        refs_of(&spec.spec)
            .into_iter()
            .filter(|r| links.contains(&r.link))
            .filter_map(|r| {
                let target = resolve_ref(&spec.path, r.reference)?;
                Some((*self.index.get(target.as_str())?, r.pointer))
            })
            .collect()
    }
}

/// A spec other than the system spec with `subsystems`: one system spec.
fn other_system_specs(set: &SpecSet, trees: &[Node], system: usize) -> Vec<Finding> {
    let system_path = &set.specs[system].path;
    let mut out = Vec::new();
    for (i, s) in set.specs.iter().enumerate() {
        if i != system && s.spec.subsystems.is_some() {
            let pos = trees[i]
                .key("subsystems")
                .map_or(Pos { line: 1, column: 1 }, |k| k.pos);
            out.push(
                Finding::warning(
                crate::rules::Code::SecondSystemSpec,
                    &s.path,
                    pos.line,
                    pos.column,
                    format!("more than one system spec: this spec has `subsystems`, and `{system_path}` is the system spec"),
                )
                .with_hint(format!("keep `subsystems` in `{system_path}` only and list the child specs there")),
            );
        }
    }
    out
}

/// A cross-cutting spec is pulled in with `applies`, never as a subsystem.
fn cross_cutting_subsystems(graph: &Graph, trees: &[Node]) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, s) in graph.set.specs.iter().enumerate() {
        for (j, pointer) in graph.edges(i, &[Link::Subsystem]) {
            let target = &graph.set.specs[j];
            if target.spec.cross_cutting {
                let pos = pos_of(&trees[i], &pointer);
                out.push(
                    Finding::warning(
                crate::rules::Code::CrossCuttingSubsystem,
                        &s.path,
                        pos.line,
                        pos.column,
                        format!("`{}` is a cross-cutting spec, listed under `subsystems`", target.path),
                    )
                    .with_hint(format!(
                        "move `- $ref: {}` under `applies:`: a cross-cutting spec governs no files and applies its rules to the specs that pull it in",
                        relative(&s.path, &target.path)
                    )),
                );
            }
        }
    }
    out
}

/// The specs no chain of subsystems and applies reaches from the system
/// spec.
fn unreached(graph: &Graph, system: usize) -> Vec<Finding> {
    let set = graph.set;
    let system_path = &set.specs[system].path;
    let mut seen = BTreeSet::from([system]);
    let mut todo = vec![system];
    while let Some(i) = todo.pop() {
        for (j, _) in graph.edges(i, &[Link::Subsystem, Link::Applies]) {
            if seen.insert(j) {
                todo.push(j);
            }
        }
    }
    let mut out = Vec::new();
    for (i, s) in set.specs.iter().enumerate() {
        if !seen.contains(&i) {
            out.push(
                Finding::warning(
                crate::rules::Code::UnreachableSpec,
                    &s.path,
                    1,
                    1,
                    format!("no `subsystems` or `applies` chain from the system spec `{system_path}` reaches this spec"),
                )
                .with_hint(format!(
                    "add `- $ref: {}` under `subsystems:` in `{system_path}`",
                    relative(system_path, &s.path)
                )),
            );
        }
    }
    out
}

/// Cycles of subsystems: depth-first search, each back edge reported once.
fn cycles(graph: &Graph, trees: &[Node]) -> Vec<Finding> {
    let set = graph.set;
    let n = set.specs.len();
    let edges: Vec<Vec<(usize, String)>> =
        (0..n).map(|i| graph.edges(i, &[Link::Subsystem])).collect();
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut stack: Vec<usize> = Vec::new();
    let mut out = Vec::new();
    for start in 0..n {
        if state[start] == 0 {
            dfs(
                start,
                &edges,
                &mut state,
                &mut stack,
                &mut |from, to, pointer, path| {
                    let cycle: Vec<&str> = path
                        .iter()
                        .skip_while(|&&k| k != to)
                        .map(|&k| set.specs[k].path.as_str())
                        .chain(std::iter::once(set.specs[to].path.as_str()))
                        .collect();
                    let pos = pos_of(&trees[from], pointer);
                    out.push(
                        Finding::error(
                            &set.specs[from].path,
                            pos.line,
                            pos.column,
                            format!("`subsystems` cycle: {}", cycle.join(" -> ")),
                        )
                        .with_hint("a spec cannot contain itself; remove one `$ref` of the cycle")
                        .with_code(crate::rules::Code::RefCycle),
                    );
                },
            );
        }
    }
    out
}

/// Called for each back edge: (from, to, pointer of the ref, the DFS stack).
type CycleReport<'a> = dyn FnMut(usize, usize, &str, &[usize]) + 'a;

fn dfs(
    i: usize,
    graph: &[Vec<(usize, String)>],
    state: &mut [u8],
    stack: &mut Vec<usize>,
    report: &mut CycleReport<'_>,
) {
    state[i] = 1;
    stack.push(i);
    for (j, pointer) in &graph[i] {
        match state[*j] {
            0 => dfs(*j, graph, state, stack, report),
            1 => report(i, *j, pointer, stack),
            _ => {}
        }
    }
    stack.pop();
    state[i] = 2;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_to_the_holding_file() {
        let from = ".notarai/system.spec.yaml";
        assert_eq!(
            resolve_ref(from, "./cli.spec.yaml").as_deref(),
            Some(".notarai/cli.spec.yaml")
        );
        assert_eq!(
            resolve_ref(from, "sub/a.spec.yaml").as_deref(),
            Some(".notarai/sub/a.spec.yaml")
        );
        assert_eq!(
            resolve_ref(".notarai/sub/a.spec.yaml", "../_shared/s.spec.yaml").as_deref(),
            Some(".notarai/_shared/s.spec.yaml")
        );
        assert_eq!(resolve_ref(from, "../../x.spec.yaml"), None);
        assert_eq!(resolve_ref(from, "/etc/passwd"), None);
        assert_eq!(resolve_ref(from, "https://x/y.spec.yaml"), None);
        assert_eq!(resolve_ref(from, ""), None);
    }

    #[test]
    fn relative_paths_for_hints() {
        assert_eq!(
            relative(".notarai/system.spec.yaml", ".notarai/a.spec.yaml"),
            "./a.spec.yaml"
        );
        assert_eq!(
            relative(".notarai/system.spec.yaml", ".notarai/x/a.spec.yaml"),
            "./x/a.spec.yaml"
        );
        assert_eq!(
            relative(".notarai/x/s.spec.yaml", ".notarai/a.spec.yaml"),
            "../a.spec.yaml"
        );
    }
}
