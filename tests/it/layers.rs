//! The layers of ARCHITECTURE.md inside the top crate, checked on its
//! source: a module may name (`crate::x`) only modules of a lower layer, so
//! there is no import loop. The leaves (`agent`, `error`, `glob`, `layout`,
//! `parallel`, `progress`, `quote`, `rpc_client`, `workflow`) are the crate
//! `notarai-base` (`crates/base`) and the outline the crate
//! `notarai-symbols` (`crates/symbols`): Cargo keeps them from naming
//! anything above, and the top crate names them as before (`crate::error`,
//! `crate::symbols`).

use std::collections::BTreeSet;
use std::path::Path;

/// Each top-level module and its layer; lower layers never import higher
/// ones, and modules of the same layer do not import each other.
const LAYERS: &[(&str, u8)] = &[
    ("agent", 0),
    ("layout", 0),
    ("glob", 0),
    ("error", 0),
    ("parallel", 0),
    ("progress", 0),
    ("quote", 0),
    ("rules", 0),
    ("repo_path", 0),
    ("rpc_client", 0),
    ("record", 1),
    ("workflow", 0),
    ("symbols", 0),
    ("walk", 1),
    ("safe_fs", 1),
    ("hashing", 2),
    ("spec", 2),
    ("watch", 2),
    ("governance", 3),
    ("rule_files", 3),
    ("changes", 4),
    ("cache", 4),
    ("project", 5),
    ("answers", 4),
    ("page", 5),
    ("state", 5),
    ("review", 6),
    ("hook", 6),
    ("init", 6),
    ("check", 7),
    ("doctor", 7),
    ("mcp", 8),
    ("cli", 9),
];

fn layer(module: &str) -> u8 {
    LAYERS
        .iter()
        .find(|(name, _)| *name == module)
        .unwrap_or_else(|| {
            panic!("module `{module}` is not in LAYERS (tests/it/layers.rs) nor in ARCHITECTURE.md")
        })
        .1
}

/// The floor under the layers: every module may name it, it names nothing of
/// ours (its layer is 0). Errors of the leaves implement its `Diagnose`.
const FLOOR: &str = "error";

/// The top-level modules named as `crate::x` or `crate::{x, y::z}` in `code`.
fn named_modules(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut word = String::new();
            let mut expect_name = true;
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => expect_name = true,
                    c if expect_name && (c.is_alphanumeric() || c == '_') => word.push(c),
                    _ => {
                        if !word.is_empty() {
                            out.insert(std::mem::take(&mut word));
                        }
                        if !c.is_whitespace() {
                            expect_name = false;
                        }
                    }
                }
            }
            if !word.is_empty() {
                out.insert(word);
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

#[test]
fn modules_import_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut wrong = Vec::new();
    for entry in notarai::walk::files(&src, "") {
        let Some(module) = entry
            .rel
            .strip_suffix(".rs")
            .map(|m| m.split('/').next().unwrap())
        else {
            continue;
        };
        if matches!(module, "lib" | "main") {
            continue;
        }
        let text = std::fs::read_to_string(&entry.path).unwrap();
        // Unit tests may reach anywhere.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let own = layer(module);
        for named in named_modules(code) {
            if named == module || named == FLOOR {
                continue;
            }
            if layer(&named) >= own {
                wrong.push(format!(
                    "src/{} (layer {own}) names crate::{named} (layer {})",
                    entry.rel,
                    layer(&named)
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_scan_sees_grouped_imports() {
    let named =
        named_modules("use crate::{spec::{A, B}, governance};\nlet x = crate::changes::f();");
    assert_eq!(
        named.into_iter().collect::<Vec<_>>(),
        ["changes", "governance", "spec"]
    );
}
