//! The reference in `docs/` against the code's own tables: the MCP tools
//! of `docs/tools.md` are `TOOLS` (`src/mcp/tools.rs`) in its order, the
//! agents of `docs/agents.md` are the rows of `AGENTS`
//! (`src/init/agents/table.rs`), and the commands of `docs/commands.md`
//! are the subcommands clap knows (`notarai::cli::Cli`). Each fails, naming
//! what is missing or extra, when the doc and the code differ; and every
//! link from the README and the docs to a file of the repository leads to
//! one.

use std::path::Path;

use clap::CommandFactory;

/// A file of the repository, as text.
fn read(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// The lines of the section under the heading `## {heading}` (up to the
/// next heading of level 1 or 2).
fn section<'a>(text: &'a str, heading: &str) -> Vec<&'a str> {
    let mut lines = text
        .lines()
        .skip_while(|l| l.trim() != format!("## {heading}"));
    assert!(lines.next().is_some(), "no `## {heading}` section");
    lines
        .take_while(|l| !(l.starts_with("# ") || l.starts_with("## ")))
        .collect()
}

/// The first cell of each body row of the first table in `lines`.
fn first_cells<'a>(lines: &[&'a str]) -> Vec<&'a str> {
    lines
        .iter()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // the header and its `| --- |` line
        .map(|l| l[1..].split(" | ").next().unwrap_or("").trim())
        .collect()
}

/// The text between the first pair of backticks in `cell`.
fn code(cell: &str) -> Option<&str> {
    let start = cell.find('`')? + 1;
    let len = cell[start..].find('`')?;
    Some(&cell[start..start + len])
}

/// The tools the doc's table lists, in its order.
fn documented_tools(text: &str) -> Vec<String> {
    first_cells(&section(text, "The tools"))
        .iter()
        .map(|cell| code(cell).unwrap_or(cell).to_string())
        .collect()
}

/// The agent ids the doc's table names, as `(`id`)` in its first column.
fn documented_agents(text: &str) -> Vec<String> {
    first_cells(&section(text, "Every agent"))
        .iter()
        .map(|cell| {
            let open = cell.rfind("(`").map_or(cell.len(), |i| i + 2);
            cell[open..]
                .trim_end_matches(')')
                .trim_end_matches('`')
                .to_string()
        })
        .collect()
}

/// The command lines the doc's table lists, each as its words after
/// `notarai` (a `|` of alternatives, escaped in the table, splits words).
fn documented_commands(text: &str) -> Vec<Vec<String>> {
    first_cells(&section(text, "Every command"))
        .iter()
        .filter_map(|cell| code(cell))
        .map(|line| {
            line.replace("\\|", " ")
                .replace('|', " ")
                .split_whitespace()
                .skip(1)
                .take_while(|w| !w.starts_with(['[', '-']) && !w.starts_with(char::is_uppercase))
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// Every subcommand path clap knows (`["cache", "update"]`, ...), `help`
/// left out.
fn clap_commands() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let mut path = prefix.to_vec();
            path.push(sub.get_name().to_string());
            out.push(path.clone());
            walk(sub, &path, out);
        }
    }
    let mut out = Vec::new();
    walk(&notarai::cli::Cli::command(), &[], &mut out);
    out
}

/// Which of `commands` the documented lines miss: a top-level command
/// needs a line starting with it, a nested one a line starting with its
/// parent that names it.
fn undocumented(commands: &[Vec<String>], documented: &[Vec<String>]) -> Vec<String> {
    commands
        .iter()
        .filter(|path| {
            !documented.iter().any(|line| match path.as_slice() {
                [top] => line.first() == Some(top),
                [top, rest @ ..] => {
                    line.first() == Some(top) && rest.iter().all(|w| line[1..].contains(w))
                }
                [] => true,
            })
        })
        .map(|path| path.join(" "))
        .collect()
}

/// Which documented lines name a command clap does not know.
fn unknown(commands: &[Vec<String>], documented: &[Vec<String>]) -> Vec<String> {
    documented
        .iter()
        .filter(|line| {
            line.iter().enumerate().any(|(depth, _)| {
                let words = if depth == 0 {
                    vec![line[0].clone()]
                } else {
                    vec![line[0].clone(), line[depth].clone()]
                };
                !commands.contains(&words)
            })
        })
        .map(|line| line.join(" "))
        .collect()
}

#[test]
fn docs_tools_lists_every_tool_of_the_table_in_its_order() {
    let code: Vec<&str> = notarai::mcp::tools::TOOLS.iter().map(|t| t.name).collect();
    let doc = documented_tools(&read("docs/tools.md"));
    assert_eq!(
        doc, code,
        "docs/tools.md's `## The tools` table must list exactly the tools of TOOLS \
         (src/mcp/tools.rs), in its order"
    );
}

#[test]
fn docs_agents_names_every_agent_of_the_table() {
    let code: Vec<&str> = notarai::init::agents::AGENTS
        .iter()
        .map(|a| a.id.name())
        .collect();
    let doc = documented_agents(&read("docs/agents.md"));
    assert_eq!(
        doc, code,
        "docs/agents.md's `## Every agent` table must have a row per agent of AGENTS \
         (src/init/agents/table.rs), in its order, each naming its id as (`id`)"
    );
}

#[test]
fn docs_commands_lists_every_subcommand_clap_knows() {
    let commands = clap_commands();
    let doc = documented_commands(&read("docs/commands.md"));
    assert!(!doc.is_empty(), "no command in docs/commands.md's table");
    let missing = undocumented(&commands, &doc);
    assert!(
        missing.is_empty(),
        "docs/commands.md's `## Every command` table lacks: {missing:?}"
    );
    let extra = unknown(&commands, &doc);
    assert!(
        extra.is_empty(),
        "docs/commands.md's `## Every command` table names commands clap does not know: {extra:?}"
    );
}

/// The checks above catch a difference: a table without a row fails each.
#[test]
fn the_checks_fail_when_a_name_is_left_out() {
    let drop_row = |text: &str, needle: &str| -> String {
        text.lines()
            .filter(|l| !(l.starts_with('|') && l.contains(needle)))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let tools = drop_row(&read("docs/tools.md"), "| `report_drift` |");
    assert!(!documented_tools(&tools).iter().any(|t| t == "report_drift"));
    let agents = drop_row(&read("docs/agents.md"), "(`zed`)");
    assert!(!documented_agents(&agents).iter().any(|a| a == "zed"));
    let commands = drop_row(&read("docs/commands.md"), "| `notarai symbols");
    let missing = undocumented(&clap_commands(), &documented_commands(&commands));
    assert_eq!(missing, ["symbols"]);
    let commands = drop_row(&read("docs/commands.md"), "| `notarai cache status");
    let missing = undocumented(&clap_commands(), &documented_commands(&commands));
    assert_eq!(missing, ["cache status"]);
    let extra = read("docs/commands.md").replacen(
        "| `notarai mcp",
        "| `notarai frobnicate` | x |\n| `notarai mcp",
        1,
    );
    assert_eq!(
        unknown(&clap_commands(), &documented_commands(&extra)),
        ["frobnicate"]
    );
}

/// Every relative link of the README and the docs (`[text](path)`, an
/// anchor after `#` left out) names a file or folder of the repository.
#[test]
fn every_link_to_a_repository_file_leads_to_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![
        "README.md".to_string(),
        "CONTRIBUTING.md".to_string(),
        "SECURITY.md".to_string(),
        "CHANGELOG.md".to_string(),
        "ARCHITECTURE.md".to_string(),
    ];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") {
            files.push(format!("docs/{name}"));
        }
    }
    let mut broken = Vec::new();
    for file in &files {
        let text = read(file);
        let dir = Path::new(file).parent().unwrap_or(Path::new(""));
        for part in text.split("](").skip(1) {
            let Some(end) = part.find(')') else { continue };
            let target = &part[..end];
            if target.contains("://") || target.starts_with('#') || target.contains(' ') {
                continue;
            }
            let path = target.split('#').next().unwrap_or("");
            if !root.join(dir).join(path).exists() {
                broken.push(format!("{file}: {target}"));
            }
        }
    }
    assert!(broken.is_empty(), "links to no file: {broken:?}");
}

/// The rule codes' table of `docs/check.md` is the code's table
/// (`notarai::rules::RULES`), row for row.
#[test]
fn docs_check_lists_every_rule_code_as_the_table_says() {
    let doc = read("docs/check.md");
    let expected = notarai::rules::markdown_table();
    let start = doc
        .find("| code | name |")
        .expect("docs/check.md has the rule codes' table");
    let table: String = doc[start..]
        .lines()
        .take_while(|l| l.starts_with('|'))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(
        table == expected,
        "docs/check.md's rule table differs from notarai::rules::RULES; it should read:\n{expected}"
    );
}

/// The rows of the table under `heading` in `text`: each row's cells,
/// trimmed, the header and its rule left out.
fn table_rows(text: &str, heading: &str) -> Vec<Vec<String>> {
    let section = text
        .split(heading)
        .nth(1)
        .unwrap_or_else(|| panic!("no `{heading}`"));
    section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn readme_agents_table_says_what_docs_agents_says() {
    let first_word = |cell: &str| cell.split([' ', ':', ',']).next().unwrap_or("").to_string();
    let name = |cell: &str| cell.split(" (").next().unwrap_or("").to_string();
    let docs = table_rows(
        &read("docs/agents.md"),
        "## What reaches each agent's model",
    );
    let readme = table_rows(&read("README.md"), "## Agents");
    assert_eq!(
        readme.len(),
        docs.len(),
        "README's agents table has a row per agent"
    );
    for row in &readme {
        let full = docs
            .iter()
            .find(|d| name(&d[0]) == name(&row[0]))
            .unwrap_or_else(|| panic!("README's agent {} is not in docs/agents.md", row[0]));
        assert_eq!(row.len(), full.len(), "{row:?}");
        for (short, long) in row.iter().zip(full).skip(1) {
            assert_eq!(
                first_word(short),
                first_word(long),
                "README and docs/agents.md disagree for {}: {short} vs {long}",
                row[0]
            );
        }
    }
}
