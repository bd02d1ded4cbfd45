//! Budgeted, paged answers through the binary: every page of
//! `get_spec_diff`, `list_affected_specs` and `get_changed_artifacts` within
//! the budget, pages joined equal to the unbounded answer line for line,
//! cursors refused when the changes moved or when forged, `max_tokens`
//! checked against its bounds.

use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use crate::common::{Repo, Server, strings};

/// Default budget of one page's text, in bytes (20,000 tokens × 3).
const DEFAULT_BUDGET: usize = 60_000;
/// Largest JSON-RPC message line allowed with default parameters.
const LINE_LIMIT: usize = 256 * 1024;
/// A `max_tokens` large enough for every answer here to fit one page.
const UNBOUNDED: u64 = 10_000_000;

/// Largest message line seen by these tests (printed with `--nocapture`).
static LARGEST_LINE: AtomicUsize = AtomicUsize::new(0);

/// Bytes of all text blocks of a `tools/call` answer.
fn text_bytes(answer: &Value) -> usize {
    answer["result"]["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|c| c["text"].as_str().unwrap_or_default().len())
        .sum()
}

/// Call `tool` with `args`, then follow `next_cursor` to the last page.
/// Checks each page against `budget` (text bytes) and, with the default
/// budget, the message line limit; returns the `structuredContent` of each.
fn all_pages(server: &mut Server, tool: &str, args: Value, budget: usize) -> Vec<Value> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut call = args.clone();
        if let Some(c) = &cursor {
            call["cursor"] = json!(c);
        }
        let answer = server.call(format!("{tool}-{}", pages.len()), tool, call);
        assert!(answer.get("error").is_none(), "{tool} failed: {answer}");
        let line = answer.to_string().len();
        let text = text_bytes(&answer);
        assert!(
            text <= budget,
            "{tool} page {} has {text} > {budget} bytes of text",
            pages.len() + 1
        );
        if budget <= DEFAULT_BUDGET {
            assert!(line <= LINE_LIMIT, "{tool}: a message line of {line} bytes");
            LARGEST_LINE.fetch_max(line, Ordering::Relaxed);
        }
        let structured = answer["result"]["structuredContent"].clone();
        let parsed: Value =
            serde_json::from_str(answer["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(
            parsed, structured,
            "the text block says what structuredContent says"
        );
        assert_eq!(structured["page"], json!(pages.len() + 1));
        cursor = structured["next_cursor"].as_str().map(str::to_string);
        let total = structured["pages"].as_u64().unwrap() as usize;
        pages.push(structured);
        if cursor.is_none() {
            assert_eq!(pages.len(), total, "the last page is the last of `pages`");
            break;
        }
        assert!(pages.len() < total, "next_cursor beyond `pages`");
    }
    eprintln!(
        "pages: {tool}: {} page(s) of at most {budget} bytes; largest message line at a default budget so far {} bytes",
        pages.len(),
        LARGEST_LINE.load(Ordering::Relaxed)
    );
    pages
}

/// Up to `count` pages following `page` (a `structuredContent`), each
/// checked against the default budget and the line limit.
fn all_pages_from(
    server: &mut Server,
    tool: &str,
    args: Value,
    page: &Value,
    count: usize,
) -> Vec<Value> {
    let mut out = Vec::new();
    let mut cursor = page["next_cursor"].as_str().map(str::to_string);
    while let Some(c) = cursor.take() {
        if out.len() == count {
            break;
        }
        let mut call = args.clone();
        call["cursor"] = json!(c);
        let answer = server.call(format!("from-{}", out.len()), tool, call);
        assert!(answer.get("error").is_none(), "{tool} failed: {answer}");
        assert!(text_bytes(&answer) <= DEFAULT_BUDGET);
        let line = answer.to_string().len();
        assert!(line <= LINE_LIMIT);
        LARGEST_LINE.fetch_max(line, Ordering::Relaxed);
        let structured = answer["result"]["structuredContent"].clone();
        cursor = structured["next_cursor"].as_str().map(str::to_string);
        out.push(structured);
    }
    out
}

/// The changed lines of a unified diff, in order (hunk bodies only).
fn changed_lines(diff: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut in_hunk = false;
    for line in diff.lines() {
        if line.starts_with("diff --git") {
            in_hunk = false;
        } else if line.starts_with("@@ -") {
            in_hunk = true;
        } else if in_hunk && (line.starts_with('+') || line.starts_with('-')) {
            out.push(line);
        }
    }
    out
}

/// Every hunk header of `diff` agrees with the lines under it.
fn headers_count_their_lines(diff: &str) {
    let mut expect: Option<(u64, u64)> = None;
    let mut seen = (0u64, 0u64);
    let check = |expect: Option<(u64, u64)>, seen: (u64, u64)| {
        if let Some(e) = expect {
            assert_eq!(e, seen, "hunk header counts");
        }
    };
    for line in diff.lines() {
        if line.starts_with("diff --git") {
            check(expect.take(), seen);
        } else if let Some(rest) = line.strip_prefix("@@ -") {
            check(expect.take(), seen);
            let ranges: Vec<&str> = rest.split(" @@").next().unwrap().split(" +").collect();
            let count = |r: &str| r.split_once(',').map_or(1, |(_, c)| c.parse().unwrap());
            expect = Some((count(ranges[0]), count(ranges[1])));
            seen = (0, 0);
        } else if expect.is_some() {
            match line.as_bytes().first() {
                Some(b'-') => seen.0 += 1,
                Some(b'+') => seen.1 += 1,
                Some(b'\\') => {}
                _ => {
                    seen.0 += 1;
                    seen.1 += 1;
                }
            }
        }
    }
    check(expect, seen);
}

fn joined_diff(pages: &[Value]) -> String {
    pages.iter().map(|p| p["diff"].as_str().unwrap()).collect()
}

/// Files and lines of the paged diff below: several pages at a small
/// budget (the split itself at large sizes is a unit test of `page`).
const FILES: usize = 30;
const LINES: usize = 30;

#[test]
fn dozens_of_files_page_within_budget_and_join_to_the_unbounded_answer() {
    let repo = Repo::new();
    repo.spec("wide", &["**/*.rs"]);
    for i in 0..FILES {
        let body: String = (0..LINES)
            .map(|l| format!("fn f{l}() {{ \"{i}\" }}\n"))
            .collect();
        repo.write(&format!("src/m{i:03}/lib.rs"), body);
    }
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    for i in 0..FILES {
        let body: String = (0..LINES)
            .map(|l| format!("fn f{l}() {{ \"{i}\\\\changed\\t\" }}\n"))
            .collect();
        repo.write(&format!("src/m{i:03}/lib.rs"), body);
    }
    let mut server = repo.server();
    let args =
        json!({"spec_path": ".notarai/wide.spec.yaml", "base_branch": "main", "max_tokens": 3_000});
    let pages = all_pages(&mut server, "get_spec_diff", args.clone(), 9_000);
    assert!(pages.len() > 3, "{} pages", pages.len());

    let mut unbounded_args = args.clone();
    unbounded_args["max_tokens"] = json!(UNBOUNDED);
    let whole = all_pages(&mut server, "get_spec_diff", unbounded_args, usize::MAX);
    assert_eq!(whole.len(), 1);
    let whole_diff = whole[0]["diff"].as_str().unwrap();

    let joined = joined_diff(&pages);
    assert_eq!(changed_lines(&joined), changed_lines(whole_diff));
    let git_diff = repo.git(&["diff", "main", "--", "*.rs"]);
    assert_eq!(changed_lines(&joined), changed_lines(&git_diff));
    assert_eq!(changed_lines(&joined).len(), FILES * LINES * 2);

    // The scope on every page, the plan on the first.
    let files = strings(&whole[0]["files"]);
    assert_eq!(files.len(), FILES);
    for page in &pages {
        assert_eq!(strings(&page["files"]), files);
        headers_count_their_lines(page["diff"].as_str().unwrap());
    }
    let plan = pages[0]["plan"].as_array().unwrap();
    assert_eq!(plan.len(), FILES);
    for entry in plan {
        assert_eq!(entry["status"], "modified");
        assert_eq!(entry["added"], LINES);
        assert_eq!(entry["removed"], LINES);
        let first = entry["first_page"].as_u64().unwrap() as usize;
        let path = entry["path"].as_str().unwrap();
        let header = format!("diff --git a/{path} b/{path}\n");
        assert!(
            pages[first - 1]["diff"].as_str().unwrap().contains(&header),
            "{path} is on page {first}"
        );
    }
    assert!(pages[1]["plan"].as_array().unwrap().is_empty());
    server.finish();
}

#[test]
fn a_single_hunk_of_5000_lines_is_cut_at_lines_with_headers_repeated() {
    let repo = Repo::new();
    repo.spec("data", &["data/**"]);
    let old: String = (0..5_000).map(|i| format!("line {i}\n")).collect();
    repo.write("data/big.txt", &old);
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    let new: String = (0..5_000).map(|i| format!("LINE {i}\n")).collect();
    repo.write("data/big.txt", &new);
    let mut server = repo.server();
    let args =
        json!({"spec_path": ".notarai/data.spec.yaml", "base_branch": "main", "max_tokens": 1_000});
    let pages = all_pages(&mut server, "get_spec_diff", args, 3_000);
    assert!(pages.len() > 10, "{} pages", pages.len());
    for page in &pages[1..] {
        let diff = page["diff"].as_str().unwrap();
        assert!(
            diff.starts_with("diff --git a/data/big.txt b/data/big.txt\n"),
            "{}",
            &diff[..200]
        );
        headers_count_their_lines(diff);
    }
    let joined = joined_diff(&pages);
    let git_diff = repo.git(&["diff", "main", "--", "data"]);
    assert_eq!(changed_lines(&joined), changed_lines(&git_diff));
    assert_eq!(changed_lines(&joined).len(), 10_000);
    let plan = &pages[0]["plan"][0];
    assert_eq!(plan["added"], 5_000);
    assert_eq!(plan["last_page"].as_u64().unwrap() as usize, pages.len());
    server.finish();
}

#[test]
fn a_5mb_changed_file_stays_within_the_line_limit() {
    let repo = Repo::with_spec();
    // 5 MB of new text with quotes and backslashes (escaped twice on the wire).
    let big: String = (0..110_000)
        .map(|i| format!("{i:08} \"quoted\" \\ back\\slash {}\n", "x".repeat(14)))
        .collect();
    assert!(big.len() >= 5_000_000);
    repo.write("docs/big.md", &big);
    let mut server = repo.server();
    // With the default budget, the first pages stay under the limits (how
    // every piece is cut and joins back: `page`'s unit tests).
    let first = server.call(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"}),
    );
    assert!(text_bytes(&first) <= DEFAULT_BUDGET);
    assert!(first.to_string().len() <= LINE_LIMIT);
    LARGEST_LINE.fetch_max(first.to_string().len(), Ordering::Relaxed);
    let next = first["result"]["structuredContent"]["next_cursor"]
        .as_str()
        .unwrap()
        .to_string();
    let mut second_args = json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"});
    second_args["cursor"] = json!(next);
    let second = server.call(2, "get_spec_diff", second_args);
    assert!(
        text_bytes(&second) <= DEFAULT_BUDGET,
        "{}",
        text_bytes(&second)
    );
    assert!(second.to_string().len() <= LINE_LIMIT);
    LARGEST_LINE.fetch_max(second.to_string().len(), Ordering::Relaxed);
    let second_diff = second["result"]["structuredContent"]["diff"]
        .as_str()
        .unwrap();
    let first_diff = first["result"]["structuredContent"]["diff"]
        .as_str()
        .unwrap();
    let lines = changed_lines(first_diff);
    let more = changed_lines(second_diff);
    assert!(!lines.is_empty() && !more.is_empty());
    assert!(
        lines
            .iter()
            .chain(&more)
            .zip(big.lines())
            .all(|(d, o)| d.strip_prefix('+') == Some(o)),
        "the first two pages hold the file's first lines, in order"
    );
    eprintln!(
        "pages: largest message line {}",
        LARGEST_LINE.load(Ordering::Relaxed)
    );
    server.finish();
}

#[test]
fn a_cursor_is_refused_once_the_changes_moved_or_when_forged() {
    let repo = Repo::with_spec();
    for i in 0..40 {
        repo.write(&format!("src/f{i}.rs"), "x\n".repeat(200));
    }
    let mut server = repo.server();
    let args =
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main", "max_tokens": 1000});
    let first = server.call_ok(1, "get_spec_diff", args.clone());
    let cursor = first["next_cursor"]
        .as_str()
        .expect("several pages")
        .to_string();
    let with = |c: &str| {
        let mut a = args.clone();
        a["cursor"] = json!(c);
        a
    };
    // The same state: the cursor works, twice.
    server.call_ok(2, "get_spec_diff", with(&cursor));
    server.call_ok(3, "get_spec_diff", with(&cursor));

    // Forged, truncated, foreign: refused, and the server goes on.
    let mut flipped = cursor.clone().into_bytes();
    flipped[10] = if flipped[10] == b'a' { b'b' } else { b'a' };
    let flipped = String::from_utf8(flipped).unwrap();
    for bad in [flipped.as_str(), &cursor[..20], "", "not a cursor", "ZZ"] {
        let (code, message) = Server::error_of(&server.call(4, "get_spec_diff", with(bad)));
        assert_eq!(code, -32602);
        assert!(message.contains("without `cursor`"), "{message}");
    }
    let artifacts = json!({"spec_path": ".notarai/a.spec.yaml", "cursor": cursor});
    let (code, message) = Server::error_of(&server.call(5, "get_changed_artifacts", artifacts));
    assert_eq!(code, -32602);
    assert!(
        message.contains("not a cursor this server issued"),
        "{message}"
    );

    // Other arguments: moved.
    let mut other = with(&cursor);
    other["max_tokens"] = json!(2000);
    let (code, message) = Server::error_of(&server.call(6, "get_spec_diff", other));
    assert_eq!(code, -32602);
    assert!(message.contains("moved"), "{message}");

    // A work-tree change: moved, and starting again works.
    repo.append("src/f3.rs", "more\n");
    let (code, message) = Server::error_of(&server.call(7, "get_spec_diff", with(&cursor)));
    assert_eq!(code, -32602);
    assert!(message.contains("the changes moved"), "{message}");
    server.call_ok(8, "get_spec_diff", args.clone());

    // A cursor from another server process is foreign.
    let mut other_server = repo.server();
    let fresh = server.call_ok(9, "get_spec_diff", args.clone());
    let cursor = fresh["next_cursor"].as_str().unwrap();
    let (code, message) = Server::error_of(&other_server.call(10, "get_spec_diff", with(cursor)));
    assert_eq!(code, -32602);
    assert!(message.contains("another server process"), "{message}");
    other_server.finish();
    server.finish();
}

#[test]
fn max_tokens_out_of_range_names_the_bounds() {
    let repo = Repo::with_spec();
    let mut server = repo.server();
    for (tool, base) in [
        (
            "get_spec_diff",
            json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"}),
        ),
        ("list_affected_specs", json!({"base_branch": "main"})),
        (
            "get_changed_artifacts",
            json!({"spec_path": ".notarai/a.spec.yaml"}),
        ),
    ] {
        for bad in [
            json!(0),
            json!(999),
            json!(10_000_001),
            json!(1.5),
            json!("5000"),
            json!(-1),
        ] {
            let mut args = base.clone();
            args["max_tokens"] = bad.clone();
            let (code, message) = Server::error_of(&server.call(1, tool, args));
            assert_eq!(code, -32602, "{tool} {bad}");
            assert!(
                message.contains("max_tokens") && message.contains("from 1000 to 10000000"),
                "{message}"
            );
        }
        let mut args = base.clone();
        args["max_tokens"] = json!(1000);
        server.call_ok(2, tool, args);
    }
    // The schema documents the bounds.
    let tools = server.request(3, "tools/list", json!({}));
    for tool in tools["result"]["tools"].as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        if [
            "get_spec_diff",
            "list_affected_specs",
            "get_changed_artifacts",
        ]
        .contains(&name)
        {
            let schema = &tool["inputSchema"]["properties"];
            let text = schema["max_tokens"].to_string();
            assert!(
                text.contains("\"minimum\":1000") && text.contains("\"maximum\":10000000"),
                "{text}"
            );
            assert!(schema.get("cursor").is_some());
            assert!(
                tool["description"]
                    .as_str()
                    .unwrap()
                    .contains("next_cursor")
            );
        }
    }
    server.finish();
}

#[test]
fn the_default_budget_follows_max_mcp_output_tokens() {
    let repo = Repo::with_spec();
    for i in 0..30 {
        repo.write(&format!("src/f{i}.rs"), "y\n".repeat(300));
    }
    let mut server = Server::spawn_with(&repo.root, |cmd| {
        cmd.env("MAX_MCP_OUTPUT_TOKENS", "5000");
    });
    let init = server.initialize();
    assert!(
        init["instructions"]
            .as_str()
            .unwrap()
            .contains("next_cursor")
    );
    let args = json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"});
    // 4/5 of 5000 tokens, 3 bytes each.
    let pages = all_pages(&mut server, "get_spec_diff", args, 12_000);
    assert!(pages.len() > 1);
    server.finish();
}

#[test]
fn two_thousand_changed_files_are_listed_in_pages() {
    let repo = Repo::new();
    repo.spec("vendor", &["vendor/**"]);
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    let mut expected = Vec::new();
    for i in 0..2_000 {
        let path = format!("vendor/d{:03}/file{i:05}.txt", i / 100);
        crate::common::write(&repo.root, &path, "v\n");
        expected.push(path);
    }
    repo.commit("vendor");
    expected.sort();
    let mut server = repo.server();
    // A small budget: the first pages (each call lists all the files, so
    // the whole walk runs at a larger budget below).
    let small = json!({"base_branch": "main", "max_tokens": 1_000});
    let first = server.call_ok(1, "list_affected_specs", small.clone());
    assert!(first["pages"].as_u64().unwrap() > 10, "{first}");
    assert!(first.to_string().len() <= 3_000);
    let second = all_pages_from(&mut server, "list_affected_specs", small, &first, 1);
    assert_eq!(second.len(), 1);
    let pages = all_pages(
        &mut server,
        "list_affected_specs",
        json!({"base_branch": "main", "max_tokens": 4_000}),
        12_000,
    );
    assert!(pages.len() > 3, "{} pages", pages.len());
    let changed: Vec<String> = pages
        .iter()
        .flat_map(|p| strings(&p["changed_files"]))
        .collect();
    assert_eq!(changed, expected);
    let matched: Vec<String> = pages
        .iter()
        .flat_map(|p| p["affected_specs"].as_array().unwrap().clone())
        .flat_map(|s| strings(&s["matched_files"]))
        .collect();
    assert_eq!(matched, expected);
    assert_eq!(pages[0]["changed_count"], 2_000);
    assert_eq!(pages[0]["affected_specs"][0]["intent"], "The vendor part.");

    let artifacts = all_pages(
        &mut server,
        "get_changed_artifacts",
        json!({"spec_path": ".notarai/vendor.spec.yaml", "max_tokens": 4_000}),
        12_000,
    );
    let listed: Vec<String> = artifacts
        .iter()
        .flat_map(|p| strings(&p["changed_artifacts"]))
        .collect();
    let listed_vendor: Vec<String> = listed
        .into_iter()
        .filter(|p| p.starts_with("vendor/"))
        .collect();
    assert_eq!(listed_vendor, expected);
    server.finish();
}

#[test]
fn a_line_longer_than_a_page_is_listed_not_dropped() {
    let repo = Repo::with_spec();
    repo.write("src/min.js", format!("{}\n", "m".repeat(200_000)));
    repo.write("src/small.rs", "fn s() {}\n");
    let mut server = repo.server();
    let args = json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"});
    let pages = all_pages(&mut server, "get_spec_diff", args.clone(), DEFAULT_BUDGET);
    assert_eq!(pages.len(), 1);
    assert_eq!(strings(&pages[0]["large_changes"]), ["src/min.js"]);
    assert!(pages[0]["diff"].as_str().unwrap().contains("+fn s() {}"));
    // One page: no plan; `large_changes` says the file is not shown.
    assert!(pages[0].get("plan").is_none(), "{}", pages[0]);
    // A budget large enough shows it.
    let mut big = args;
    big["max_tokens"] = json!(100_000);
    let whole = server.call_ok(2, "get_spec_diff", big);
    assert!(strings(&whole["large_changes"]).is_empty());
    assert!(whole["diff"].as_str().unwrap().contains("+mmmm"));
    server.finish();
}

#[test]
fn per_file_facts_go_on_their_files_page_not_on_every_page() {
    // 600 files each governed by two specs: `shared` names the other spec
    // of each shown file. Repeated whole on every page it would outgrow the
    // budget (one file a page); on its file's page the pages stay few.
    let repo = Repo::new();
    repo.spec("one", &["lib/**"]);
    repo.spec("two", &["lib/**"]);
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    for i in 0..600 {
        crate::common::write(
            &repo.root,
            &format!("lib/d{:02}/f{i:04}.txt", i / 50),
            format!("line {i}\n"),
        );
    }
    repo.commit("many");
    let mut server = repo.server();
    let args =
        json!({"spec_path": ".notarai/one.spec.yaml", "base_branch": "main", "max_tokens": 2_000});
    let pages = all_pages(&mut server, "get_spec_diff", args, 6_000);
    assert!(
        pages.len() > 3 && pages.len() < 100,
        "{} pages",
        pages.len()
    );
    let mut shared = Vec::new();
    for page in &pages {
        let planned: Vec<String> = page["plan"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["path"].as_str().unwrap().to_string())
            .collect();
        for (path, others) in page["shared"].as_object().cloned().unwrap_or_default() {
            assert!(planned.contains(&path), "{path} is not on this page");
            assert_eq!(others, json!([".notarai/two.spec.yaml"]));
            shared.push(path);
        }
    }
    shared.sort();
    assert_eq!(shared.len(), 600);
    server.finish();
}
