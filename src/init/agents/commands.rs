//! Recognising notarai in an agent's configuration: its program however
//! spelled, its hook commands, and whether a hook group's matcher covers
//! the tools notarai's hook is for.

/// Whether `program` names a notarai binary, however it is spelled (a
/// bare name or a path, `.exe` on Windows).
pub fn is_notarai_program(program: &str) -> bool {
    let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
    name == "notarai" || name.eq_ignore_ascii_case("notarai.exe")
}

/// Split a command line into words: whitespace separates, single or double
/// quotes group.
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut any = false;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            (None, c) => word.push(c),
        }
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    out
}

/// Whether `command` runs `notarai hook <sub>`, however spelled: a path to
/// the binary, extra spaces, quotes, a wrapper such as `npx` in front.
fn runs_hook(command: &str, sub: &str) -> bool {
    words(command)
        .windows(3)
        .any(|w| is_notarai_program(&w[0]) && w[1] == "hook" && w[2] == sub)
}

/// Whether a hook command runs `notarai hook validate`, however spelled.
pub fn is_notarai_hook(command: &str) -> bool {
    runs_hook(command, "validate")
}

/// Whether `command` runs notarai's pre-edit hook (`notarai hook context`,
/// however the program is spelled).
pub fn is_notarai_context_hook(command: &str) -> bool {
    runs_hook(command, "context")
}

/// Whether `command` runs notarai's stop hook (`notarai hook stop`,
/// however the program is spelled).
pub fn is_notarai_stop_hook(command: &str) -> bool {
    runs_hook(command, "stop")
}

/// The test that recognises the same hook as `command` (`hook validate`,
/// `hook context` or `hook stop`), however spelled.
pub(super) fn same_hook(command: &str) -> fn(&str) -> bool {
    if is_notarai_context_hook(command) {
        is_notarai_context_hook
    } else if is_notarai_stop_hook(command) {
        is_notarai_stop_hook
    } else {
        is_notarai_hook
    }
}

/// Whether a hook group's matcher makes the hook run for every tool of
/// `wanted` (`A|B`): absent, empty or `*` match all tools; else each tool
/// must be one of its `|`-separated names.
pub(super) fn matcher_covers(matcher: Option<&str>, wanted: &str) -> bool {
    let Some(m) = matcher.map(str::trim) else {
        return true;
    };
    // An event about no tool (`Stop`): any group runs the hook.
    if wanted.is_empty() || m.is_empty() || m == "*" || m == ".*" {
        return true;
    }
    let names: Vec<&str> = m.split('|').map(str::trim).collect();
    wanted.split('|').all(|tool| names.contains(&tool))
}

/// The matcher that covers `wanted`'s tools, keeping the names a simple
/// `A|B` matcher already has.
pub(super) fn widened_matcher(matcher: Option<&str>, wanted: &str) -> String {
    let Some(m) = matcher.filter(|m| {
        m.split('|').all(|n| {
            !n.trim().is_empty()
                && n.trim()
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    }) else {
        return wanted.to_string();
    };
    let mut names: Vec<&str> = m.split('|').map(str::trim).collect();
    for tool in wanted.split('|') {
        if !names.contains(&tool) {
            names.push(tool);
        }
    }
    names.join("|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hook_is_recognised_however_spelled() {
        for command in [
            "notarai hook validate",
            "/home/u/.cargo/bin/notarai hook validate",
            "  notarai   hook  validate ",
            "\"/opt/my tools/notarai\" hook validate",
            "npx notarai hook validate",
            "C:\\tools\\notarai.exe hook validate",
        ] {
            assert!(is_notarai_hook(command), "{command}");
        }
        for command in [
            "notarai validate",
            "echo notarai hook validate-x",
            "notarai-hook validate",
        ] {
            assert!(!is_notarai_hook(command), "{command}");
        }
        assert!(is_notarai_context_hook(
            "notarai hook context --agent claude"
        ));
        assert!(!is_notarai_context_hook("notarai hook validate"));
    }

    #[test]
    fn a_matcher_covers_or_is_widened() {
        let wanted = "Write|Edit|MultiEdit";
        for covered in [
            None,
            Some(""),
            Some("*"),
            Some("MultiEdit|Edit|Write|NotebookEdit"),
        ] {
            assert!(matcher_covers(covered, wanted), "{covered:?}");
        }
        assert!(!matcher_covers(Some("Write|Edit"), wanted));
        assert_eq!(
            widened_matcher(Some("Write|Edit"), wanted),
            "Write|Edit|MultiEdit"
        );
        assert_eq!(widened_matcher(Some("(Write|Edit)"), wanted), wanted);
    }
}
