use super::diff::{HunkRange, LineTooLong, parse_patch};
use super::*;
use proptest::prelude::*;

/// The changed lines (`+`/`-` body lines) of a multi-file diff, in order.
fn changed_lines(diff: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_hunk = false;
    for line in diff.split_inclusive('\n') {
        if line.starts_with("diff --git") {
            in_hunk = false;
        } else if line.starts_with("@@ -") {
            in_hunk = true;
        } else if in_hunk && (line.starts_with('+') || line.starts_with('-')) {
            out.push(line.to_string());
        }
    }
    out
}

/// Check every hunk header against its body, as `git apply` would count.
fn check_headers(diff: &str) {
    let mut files: Vec<String> = Vec::new();
    for line in diff.split_inclusive('\n') {
        if line.starts_with("diff --git") || files.is_empty() {
            files.push(String::new());
        }
        files.last_mut().unwrap().push_str(line);
    }
    for file in &files {
        check_file_headers(file);
    }
}

fn check_file_headers(diff: &str) {
    let parsed = parse_patch(diff);
    for hunk in &parsed.hunks {
        let (mut olds, mut news) = (0, 0);
        for unit in &hunk.units {
            match unit.as_bytes()[0] {
                b'-' => olds += 1,
                b'+' => news += 1,
                b' ' => {
                    olds += 1;
                    news += 1;
                }
                other => panic!("unexpected line start {other} in {diff}"),
            }
        }
        assert_eq!(hunk.range.old_count, olds, "{diff}");
        assert_eq!(hunk.range.new_count, news, "{diff}");
    }
}

fn sample_patch(lines: usize) -> String {
    let mut p = String::from(
        "diff --git a/f.txt b/f.txt\nindex 1111111..2222222 100644\n--- a/f.txt\n+++ b/f.txt\n",
    );
    p.push_str(&format!("@@ -10,{lines} +10,{lines} @@ fn main\n"));
    for i in 0..lines {
        p.push_str(&format!("-old {i}\n+new {i}\n"));
    }
    p
}

#[test]
fn a_small_patch_stays_whole() {
    let p = sample_patch(3);
    let mut layout = Layout::new(10_000);
    let pieces = split_patch(&p, &mut layout).unwrap();
    assert_eq!(pieces, vec![(0, p)]);
}

#[test]
fn a_large_hunk_is_cut_at_lines_with_recomputed_headers() {
    let p = sample_patch(200);
    let mut layout = Layout::new(600);
    let pieces = split_patch(&p, &mut layout).unwrap();
    assert!(pieces.len() > 5);
    let mut joined = String::new();
    for (i, (page, text)) in pieces.iter().enumerate() {
        assert_eq!(*page, i, "one piece per page");
        assert!(escaped_len(text) <= 600, "{}", escaped_len(text));
        assert!(text.starts_with("diff --git a/f.txt b/f.txt\n"));
        check_headers(text);
        joined.push_str(text);
    }
    assert_eq!(changed_lines(&joined), changed_lines(&p));
    // The second part starts where the first ended, in both files.
    let second = parse_patch(&pieces[1].1).hunks[0].range;
    let first = parse_patch(&pieces[0].1).hunks[0].range;
    assert_eq!(second.old_start, first.old_start + first.old_count);
    assert_eq!(second.new_start, first.new_start + first.new_count);
}

/// The sizes the binary tests used to send through the server (a hunk
/// of 60,000 changed lines; a 5 MB new file with quotes and
/// backslashes), laid out in process at the default budget.
#[test]
fn a_60000_line_hunk_and_a_5mb_file_are_cut_within_the_budget() {
    let cap = MaxTokens::budget(None);
    let hunk = sample_patch(60_000);
    let mut big = String::from(
        "diff --git a/big.md b/big.md\nnew file mode 100644\n--- /dev/null\n+++ b/big.md\n@@ -0,0 +1,110000 @@\n",
    );
    for i in 0..110_000 {
        big.push_str(&format!(
            "+{i:08} \"quoted\" \\ back\\slash {}\n",
            "x".repeat(14)
        ));
    }
    assert!(big.len() >= 5_000_000);
    for patch in [hunk, big] {
        let mut layout = Layout::new(cap);
        let pieces = split_patch(&patch, &mut layout).unwrap();
        assert!(pieces.len() > 10, "{} pieces", pieces.len());
        let header = patch.lines().next().unwrap();
        let mut joined = String::new();
        for (i, (page, text)) in pieces.iter().enumerate() {
            assert_eq!(*page, i, "one piece per page");
            assert!(escaped_len(text) <= cap, "{}", escaped_len(text));
            assert!(text.starts_with(header), "the file header on every page");
            check_headers(text);
            joined.push_str(text);
        }
        assert_eq!(changed_lines(&joined), changed_lines(&patch));
    }
}

#[test]
fn only_additions_keep_zero_count_starts() {
    let mut p = String::from(
        "diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1,50 @@\n",
    );
    for i in 0..50 {
        p.push_str(&format!("+line {i}\n"));
    }
    let mut layout = Layout::new(300);
    let pieces = split_patch(&p, &mut layout).unwrap();
    assert!(pieces.len() > 2);
    let ranges: Vec<HunkRange> = pieces
        .iter()
        .map(|(_, t)| parse_patch(t).hunks[0].range)
        .collect();
    assert_eq!(ranges[0].old_start, 0);
    assert_eq!(ranges[0].new_start, 1);
    assert_eq!(ranges[1].old_start, 0);
    assert_eq!(ranges[1].new_start, 1 + ranges[0].new_count);
}

#[test]
fn no_newline_marker_stays_with_its_line() {
    let p = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n";
    let parsed = parse_patch(p);
    assert_eq!(parsed.hunks[0].units.len(), 2);
    assert_eq!(line_counts(p), (1, 1));
    let mut layout = Layout::new(90);
    let pieces = split_patch(p, &mut layout).unwrap();
    assert_eq!(pieces.len(), 2);
    assert!(pieces[0].1.ends_with("-a\n\\ No newline at end of file\n"));
    assert!(pieces[1].1.contains("@@ -1,0 +1,1 @@"), "{}", pieces[1].1);
}

#[test]
fn a_line_longer_than_a_page_is_reported() {
    let p = format!(
        "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+{}\n",
        "x".repeat(1000)
    );
    assert_eq!(split_patch(&p, &mut Layout::new(500)), Err(LineTooLong));
}

#[test]
fn hunks_fill_the_page_before_moving_on() {
    let mut p = String::from("diff --git a/f b/f\n--- a/f\n+++ b/f\n");
    for h in 0..10 {
        p.push_str(&format!("@@ -{0},1 +{0},1 @@\n-a{h}\n+b{h}\n", h * 10 + 1));
    }
    let mut layout = Layout::new(120);
    layout.consume(30);
    let pieces = split_patch(&p, &mut layout).unwrap();
    let joined: String = pieces.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(changed_lines(&joined), changed_lines(&p));
    assert_eq!(pieces[0].0, 0, "the first hunk fits the rest of page 0");
    for (_, t) in &pieces {
        check_headers(t);
    }
}

#[test]
fn cursors_round_trip_and_refuse_forgeries() {
    let c = Cursor {
        tool: 2,
        page: 7,
        fingerprint: [9; 16],
    };
    let text = c.encode();
    assert_eq!(Cursor::decode(&text, 2), Ok(c));
    assert_eq!(Cursor::decode(&text, 1), Err(CursorError::Foreign));
    assert_eq!(Cursor::decode(&text[1..], 2), Err(CursorError::Foreign));
    let mut forged = text.clone().into_bytes();
    forged[5] = if forged[5] == b'0' { b'1' } else { b'0' };
    let forged = String::from_utf8(forged).unwrap();
    assert_eq!(Cursor::decode(&forged, 2), Err(CursorError::Foreign));
    assert_eq!(Cursor::decode("é", 2), Err(CursorError::Foreign));
    assert_eq!(
        requested_page(Some(&text), 2, [8; 16], 10),
        Err(CursorError::Moved)
    );
    assert_eq!(requested_page(Some(&text), 2, [9; 16], 10), Ok(7));
    assert_eq!(
        requested_page(Some(&text), 2, [9; 16], 7),
        Err(CursorError::Moved)
    );
}

#[test]
fn max_tokens_bounds_and_env_default() {
    let ok: MaxTokens = serde_json::from_value(serde_json::json!(5000)).unwrap();
    assert_eq!(MaxTokens::budget(Some(ok)), 15_000);
    for bad in [
        serde_json::json!(10),
        serde_json::json!(1.5),
        serde_json::json!("5000"),
        serde_json::json!(MAX_MAX_TOKENS + 1),
    ] {
        let err = serde_json::from_value::<MaxTokens>(bad).unwrap_err();
        assert!(err.to_string().contains("from 1000 to 10000000"), "{err}");
    }
    assert_eq!(default_from_env(None), DEFAULT_MAX_TOKENS);
    assert_eq!(default_from_env(Some("25000")), 20_000);
    assert_eq!(default_from_env(Some("100000")), 80_000);
    assert_eq!(default_from_env(Some("10")), MIN_MAX_TOKENS);
    assert_eq!(default_from_env(Some("lots")), DEFAULT_MAX_TOKENS);
}

#[test]
fn escaped_len_matches_serde_json() {
    let s = "a\"b\\c\nd\te\u{1}f\u{7f}é\r\u{8}\u{c}";
    assert_eq!(escaped_len(s) + 2, serde_json::to_string(s).unwrap().len());
}

#[test]
fn split_text_joins_back() {
    let text = "line one\nline two is longer\n\"quoted\"\n".repeat(20);
    let parts = split_text(&text, 10, 50);
    assert!(parts.iter().skip(1).all(|p| escaped_len(p) <= 50));
    assert_eq!(parts.concat(), text);
}

fn arb_patch() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        "[ -~\"\\\\]{0,30}".prop_map(|s| format!(" {s}\n")),
        "[ -~\"\\\\]{0,30}".prop_map(|s| format!("-{s}\n")),
        "[ -~\"\\\\]{0,30}".prop_map(|s| format!("+{s}\n")),
    ];
    proptest::collection::vec(proptest::collection::vec(line, 1..40), 1..5).prop_map(|hunks| {
        let mut p = String::from("diff --git a/x b/x\n--- a/x\n+++ b/x\n");
        let (mut old, mut new) = (1u64, 1u64);
        for body in hunks {
            let olds = body.iter().filter(|l| !l.starts_with('+')).count() as u64;
            let news = body.iter().filter(|l| !l.starts_with('-')).count() as u64;
            let os = if olds == 0 { old - 1 } else { old };
            let ns = if news == 0 { new - 1 } else { new };
            p.push_str(&format!("@@ -{os},{olds} +{ns},{news} @@\n"));
            p.push_str(&body.concat());
            old += olds + 3;
            new += news + 3;
        }
        p
    })
}

proptest! {
    #[test]
    fn pages_joined_hold_exactly_the_changed_lines(
        patches in proptest::collection::vec(arb_patch(), 1..4),
        cap in 200usize..2000,
        used in 0usize..200,
    ) {
        let mut layout = Layout::new(cap);
        layout.consume(used.min(cap));
        let mut pages: Vec<String> = Vec::new();
        for p in &patches {
            for (page, text) in split_patch(p, &mut layout).unwrap() {
                if pages.len() <= page { pages.resize(page + 1, String::new()); }
                pages[page].push_str(&text);
            }
        }
        let original: String = patches.concat();
        let joined: String = pages.concat();
        prop_assert_eq!(changed_lines(&joined), changed_lines(&original));
        for (i, page) in pages.iter().enumerate() {
            let limit = if i == 0 { cap - used.min(cap) } else { cap };
            prop_assert!(escaped_len(page) <= limit, "page {} has {} > {}", i, escaped_len(page), limit);
            check_headers(page);
        }
    }
}
