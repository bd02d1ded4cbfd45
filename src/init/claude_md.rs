//! The `## NotarAI` section of `CLAUDE.md`: added when missing, replaced when
//! present, and every other byte of the file kept.

use super::fsio::{line_ending, with_line_ending};

/// The heading that opens notarai's section.
pub const HEADING: &str = "## NotarAI";

/// The section as `notarai init` writes it: heading, body, final newline.
pub fn section() -> &'static str {
    include_str!("templates/claude_section.md")
}

/// Byte ranges of each line of `text`, line ending included.
fn lines_with_offsets(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = 0;
    text.split_inclusive('\n').map(move |line| {
        let at = start;
        start += line.len();
        (at, line)
    })
}

/// Whether a line opens or closes a fenced code block.
fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// A heading of level 1 or 2 (`# ` or `## `), which ends the section.
fn ends_section(line: &str) -> bool {
    let t = line.trim_end();
    t == "#" || t == "##" || t.starts_with("# ") || t.starts_with("## ")
}

/// Byte range of the existing NotarAI section: from its heading to the next
/// heading of level 1 or 2 outside a code fence, or to the end of the file.
fn find_section(text: &str) -> Option<(usize, usize)> {
    let mut in_fence = false;
    let mut start = None;
    for (at, line) in lines_with_offsets(text) {
        if is_fence(line) {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        match start {
            None if line.trim_end() == HEADING => start = Some(at),
            Some(s) if ends_section(line) => return Some((s, at)),
            _ => {}
        }
    }
    start.map(|s| (s, text.len()))
}

/// `CLAUDE.md` text with the NotarAI section in place. The section is written
/// in the file's own line ending; when another heading follows it, one blank
/// line separates them. Applying it twice gives the same text.
pub fn upsert_section(existing: Option<&str>) -> String {
    let text = existing.unwrap_or("");
    let eol = line_ending(text);
    let new = with_line_ending(section(), eol);
    match find_section(text) {
        Some((start, end)) => {
            let mut out = String::with_capacity(text.len() + new.len());
            out.push_str(&text[..start]);
            out.push_str(&new);
            if end < text.len() {
                out.push_str(eol);
            }
            out.push_str(&text[end..]);
            out
        }
        None if text.is_empty() => new,
        None => {
            let mut out = text.to_string();
            if !out.ends_with('\n') {
                out.push_str(eol);
            }
            if !out.ends_with(&format!("{eol}{eol}")) {
                out.push_str(eol);
            }
            out.push_str(&new);
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_template_starts_with_heading() {
        assert!(section().starts_with("## NotarAI\n"));
        assert!(section().ends_with('\n') && !section().ends_with("\n\n"));
    }

    #[test]
    fn appended_to_a_file_without_it() {
        let before = "# Project\n\nBuild with make.";
        let after = upsert_section(Some(before));
        assert_eq!(after, format!("{before}\n\n{}", section()));
        assert_eq!(upsert_section(Some(&after)), after);
    }

    #[test]
    fn replaced_in_the_middle_rest_byte_for_byte() {
        let before = "# P\n\nintro\n\n## NotarAI\n\nold text\n```\n## not a heading\n```\n### sub\nmore\n## Next\n\nkeep  \n";
        let after = upsert_section(Some(before));
        assert_eq!(
            after,
            format!("# P\n\nintro\n\n{}\n## Next\n\nkeep  \n", section())
        );
        assert_eq!(upsert_section(Some(&after)), after);
    }

    #[test]
    fn replaced_at_the_end_and_crlf_kept() {
        let before = "# P\r\n\r\n## NotarAI\r\nold\r\n";
        let after = upsert_section(Some(before));
        assert_eq!(
            after,
            format!("# P\r\n\r\n{}", section().replace('\n', "\r\n"))
        );
        assert_eq!(upsert_section(Some(&after)), after);
    }

    #[test]
    fn created_when_missing() {
        assert_eq!(upsert_section(None), section());
    }
}
