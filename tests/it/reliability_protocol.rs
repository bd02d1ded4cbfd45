//! Protocol abuse against the real `notarai mcp`: thousands of hostile lines,
//! a 100 MB line, NUL bytes, invalid UTF-8, requests before `initialize`,
//! unknown tools and wrong argument types, plus property tests on the
//! framing and on argument decoding. After each abuse the server must still
//! answer a normal `tools/call`, never panic, and keep its memory bounded.
//!
//! `NOTARAI_PROPTEST_CASES=5000 cargo test --test it reliability_protocol::`
//! runs the property tests longer.

use crate::common;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use common::{Repo, Server, proptest_cases};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Value, json};

/// Peak memory allowed to a server that was fed abuse, in KiB. The line
/// bound is 8 MiB; a debug build idles at ~10 MiB.
const MEMORY_BOUND_KIB: u64 = 64 * 1024;

/// What a line deserves.
#[derive(Debug, Clone, PartialEq)]
enum Expect {
    /// No answer at all (a notification, an empty line, a client response).
    Nothing,
    /// An error with `"id": null` and this code.
    Null(i64),
    /// An answer with this id: an error with the code, or a result (`None`).
    Id(Value, Option<i64>),
}

/// A normal call that must succeed after any abuse.
fn assert_serves(server: &mut Server, id: &str) {
    let result = server.call_ok(id, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(result["changed_files"], json!(["src/a.rs"]), "{result}");
}

/// A repository with one change on `feat` and a server past the handshake.
fn started() -> (Repo, Server) {
    let repo = Repo::with_spec();
    repo.write("src/a.rs", "fn a() { changed() }\n");
    let server = Server::start(&repo.root);
    (repo, server)
}

/// Build the deterministic table of hostile lines: `rounds` variations of
/// each kind, every id unique.
fn hostile_lines(rounds: usize) -> Vec<(Vec<u8>, Expect)> {
    let mut lines = Vec::new();
    let mut push = |bytes: Vec<u8>, expect: Expect| lines.push((bytes, expect));
    let big = "x".repeat(1 << 20);
    for i in 0..rounds {
        let s = |v: Value| v.to_string().into_bytes();
        let mut seq = 0;
        let mut id = |kind: &str| {
            seq += 1;
            json!(format!("{kind}-{i}-{seq}"))
        };
        // Not JSON at all.
        for text in [
            "hello",
            "{",
            "}{",
            "[1,",
            "\"open",
            "{\"jsonrpc\":\"2.0\",}",
            "nul",
        ] {
            push(format!("{text}{i}").into_bytes(), Expect::Null(-32700));
        }
        push(b"{\"a\":\0}".to_vec(), Expect::Null(-32700));
        push(vec![0u8; 1 + i % 64], Expect::Null(-32700));
        // Invalid UTF-8, alone and inside an otherwise valid request.
        push(
            vec![0xff, 0xfe, b'{', (i % 200) as u8 | 0x80],
            Expect::Null(-32700),
        );
        let mut bad = br#"{"jsonrpc":"2.0","id":1,"method":"ping","x":""#.to_vec();
        bad.extend_from_slice(&[0xc3, 0x28, b'"', b'}']);
        push(bad, Expect::Null(-32700));
        // JSON of the wrong shape.
        for v in [
            json!(i),
            json!("str"),
            json!(null),
            json!(true),
            json!([]),
            json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]),
        ] {
            push(s(v), Expect::Null(-32600));
        }
        push(s(json!({})), Expect::Null(-32600));
        push(s(json!({"foo": i})), Expect::Null(-32600));
        push(s(json!({"jsonrpc": "2.0"})), Expect::Null(-32600));
        // Wrong `jsonrpc`.
        for v in [json!("1.0"), json!(2), json!(null)] {
            let req = id("jv");
            push(
                s(json!({"jsonrpc": v, "id": req, "method": "ping"})),
                Expect::Id(req, Some(-32600)),
            );
        }
        push(s(json!({"method": "ping"})), Expect::Null(-32600));
        // Ids of odd types.
        for odd in [
            json!(1.5),
            json!(true),
            json!({"a": 1}),
            json!([1]),
            json!(null),
        ] {
            push(
                s(json!({"jsonrpc": "2.0", "id": odd, "method": "ping"})),
                Expect::Null(-32600),
            );
        }
        // Method of the wrong type, unknown methods, notifications with ids.
        let req = id("mt");
        push(
            s(json!({"jsonrpc": "2.0", "id": req, "method": 7})),
            Expect::Id(req, Some(-32600)),
        );
        let req = id("um");
        push(
            s(json!({"jsonrpc": "2.0", "id": req, "method": format!("nope/{i}")})),
            Expect::Id(req, Some(-32601)),
        );
        push(
            s(json!({"jsonrpc": "2.0", "method": format!("nope/{i}")})),
            Expect::Nothing,
        );
        let req = id("ni");
        push(
            s(json!({"jsonrpc": "2.0", "id": req, "method": "notifications/initialized"})),
            Expect::Id(req, Some(-32600)),
        );
        // Malformed params of known methods.
        for params in [
            json!(5),
            json!("x"),
            json!({"name": 5}),
            json!({"arguments": {}}),
        ] {
            let req = id("pp");
            push(
                s(json!({"jsonrpc": "2.0", "id": req, "method": "tools/call", "params": params})),
                Expect::Id(req, Some(-32602)),
            );
        }
        // Unknown tools and wrong argument types.
        let req = id("ut");
        push(
            s(
                json!({"jsonrpc": "2.0", "id": req, "method": "tools/call", "params": {"name": format!("tool{i}"), "arguments": {}}}),
            ),
            Expect::Id(req, Some(-32602)),
        );
        for (tool, args) in [
            ("get_reconciliation_status", json!({"max_tokens": "x"})),
            ("list_affected_specs", json!({"base_branch": i})),
            (
                "get_spec_diff",
                json!({"spec_path": [], "base_branch": "main"}),
            ),
            (
                "get_spec_diff",
                json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main", "bypass_cache": "yes"}),
            ),
            (
                "get_changed_artifacts",
                json!({"spec_path": ".notarai/a.spec.yaml", "artifact_type": 3}),
            ),
            ("mark_reconciled", json!({"files": "src/a.rs"})),
            ("mark_reconciled", json!({"files": [null]})),
        ] {
            let req = id("wa");
            push(
                s(
                    json!({"jsonrpc": "2.0", "id": req, "method": "tools/call", "params": {"name": tool, "arguments": args}}),
                ),
                Expect::Id(req, Some(-32602)),
            );
        }
        // A response from the client, empty and blank lines: no answer.
        push(
            s(json!({"jsonrpc": "2.0", "id": 9_000_000 + i, "result": {}})),
            Expect::Nothing,
        );
        push(Vec::new(), Expect::Nothing);
        push(b" \t ".to_vec(), Expect::Nothing);
        // Valid requests in between, one with CRLF, integer and string ids.
        let req = json!(1_000_000 + i);
        push(
            s(json!({"jsonrpc": "2.0", "id": req, "method": "ping"})),
            Expect::Id(req, None),
        );
        let req = id("crlf");
        let mut crlf = s(json!({"jsonrpc": "2.0", "id": req, "method": "tools/list"}));
        crlf.push(b'\r');
        push(crlf, Expect::Id(req, None));
        // Huge strings (a few of them: each answer echoes them).
        if i < 3 {
            let req = id("huge-method");
            push(
                s(json!({"jsonrpc": "2.0", "id": req, "method": big})),
                Expect::Id(req, Some(-32601)),
            );
            let req = json!(format!("{big}{i}"));
            push(
                s(json!({"jsonrpc": "2.0", "id": req, "method": "ping"})),
                Expect::Id(req, None),
            );
            push(
                s(
                    json!({"jsonrpc": "2.0", "method": "notifications/initialized", "params": {"pad": big}}),
                ),
                Expect::Nothing,
            );
        }
    }
    lines
}

/// Collect answers until every id in `ids` answered and `nulls` null-id
/// errors arrived, then wait `settle` for anything extra. Returns the
/// answers by id and the null-id errors.
fn collect(
    server: &mut Server,
    ids: &HashSet<Value>,
    nulls: usize,
    settle: Duration,
) -> (HashMap<Value, Vec<Value>>, Vec<Value>) {
    let mut by_id: HashMap<Value, Vec<Value>> = HashMap::new();
    let mut null_answers = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let done = ids.iter().all(|id| by_id.contains_key(id)) && null_answers.len() >= nulls;
        let wait = if done {
            settle
        } else {
            deadline.saturating_duration_since(Instant::now())
        };
        match server.recv_timeout(wait) {
            Some(msg) => match msg.get("id") {
                Some(Value::Null) | None => null_answers.push(msg),
                Some(id) => by_id.entry(id.clone()).or_default().push(msg),
            },
            None if done => return (by_id, null_answers),
            None => {
                let missing: Vec<_> = ids
                    .iter()
                    .filter(|id| !by_id.contains_key(*id))
                    .take(5)
                    .collect();
                panic!(
                    "timed out: {} of {nulls} null answers, missing ids {missing:?}; stderr:\n{}",
                    null_answers.len(),
                    server.stderr()
                );
            }
        }
    }
}

#[test]
fn thousands_of_hostile_lines_each_answered_once() {
    let (_repo, mut server) = started();
    let lines = hostile_lines(40);
    assert!(lines.len() > 2000, "{} lines", lines.len());
    let mut ids = HashSet::new();
    let mut expected: HashMap<Value, Option<i64>> = HashMap::new();
    let mut null_codes = Vec::new();
    let mut batch = Vec::new();
    for (bytes, expect) in &lines {
        batch.extend_from_slice(bytes);
        batch.push(b'\n');
        match expect {
            Expect::Nothing => {}
            Expect::Null(code) => null_codes.push(*code),
            Expect::Id(id, code) => {
                assert!(ids.insert(id.clone()), "duplicate id {id}");
                expected.insert(id.clone(), *code);
            }
        }
    }
    server.send_raw(&batch);
    let (by_id, nulls) = collect(
        &mut server,
        &ids,
        null_codes.len(),
        Duration::from_millis(500),
    );
    for (id, answers) in &by_id {
        assert_eq!(
            answers.len(),
            1,
            "id {id} answered {} times: {answers:?}",
            answers.len()
        );
        let want = expected
            .get(id)
            .unwrap_or_else(|| panic!("answer to an id never sent: {id}"));
        let answer = &answers[0];
        assert_eq!(answer["jsonrpc"], "2.0");
        match want {
            None => assert!(answer.get("result").is_some(), "{id}: {answer}"),
            Some(code) => {
                let (got, message) = Server::error_of(answer);
                assert_eq!(got, *code, "{id}: {answer}");
                assert!(!message.is_empty());
            }
        }
    }
    assert_eq!(nulls.len(), null_codes.len(), "null-id answers");
    let mut got: Vec<i64> = nulls.iter().map(|a| Server::error_of(a).0).collect();
    got.sort_unstable();
    null_codes.sort_unstable();
    assert_eq!(got, null_codes, "codes of the null-id answers");
    assert!(server.alive());
    assert_serves(&mut server, "after");
    let peak = server.peak_rss_kib();
    assert!(peak < MEMORY_BOUND_KIB, "peak memory {peak} KiB");
    server.finish();
}

/// Stream `total` bytes of `filler` to the server without a newline.
fn stream_without_newline(server: &mut Server, total: usize) {
    let chunk = vec![b'a'; 1 << 20];
    let mut head = br#"{"jsonrpc":"2.0","id":77,"method":"ping","params":{"pad":""#.to_vec();
    head.extend_from_slice(&chunk[..(1 << 20) - head.len()]);
    server.send_raw(&head);
    for _ in 1..total >> 20 {
        server.send_raw(&chunk);
    }
}

#[test]
fn hundred_mb_line_is_answered_in_bounded_memory() {
    let (_repo, mut server) = started();
    stream_without_newline(&mut server, 100 << 20);
    server.send_raw(b"\n");
    let answer = server.recv();
    assert_eq!(answer["id"], Value::Null, "{answer}");
    let (code, message) = Server::error_of(&answer);
    assert_eq!(code, -32600);
    assert!(message.contains("longer than"), "{message}");
    assert_serves(&mut server, "after-100mb");
    let peak = server.peak_rss_kib();
    assert!(
        peak < MEMORY_BOUND_KIB,
        "peak memory {peak} KiB after a 100 MB line"
    );
    server.finish();
}

#[test]
fn hundred_mb_line_then_end_of_input_is_answered() {
    let (_repo, mut server) = started();
    stream_without_newline(&mut server, 100 << 20);
    // The 100 MB have been read: the peak so far is the streaming's.
    let streamed = server.peak_rss_kib();
    assert!(streamed < MEMORY_BOUND_KIB, "peak memory {streamed} KiB");
    // Closing stdin ends the line: the server answers it, then exits 0.
    server.close_stdin();
    let answer = server.recv();
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(Server::error_of(&answer).0, -32600, "{answer}");
    // After the answer the server may already have exited (its status then
    // has no memory lines): check the final peak only while it can be read.
    if let Some(peak) = crate::common::try_peak_rss_kib(server.pid()) {
        assert!(peak < MEMORY_BOUND_KIB, "peak memory {peak} KiB");
    }
    server.finish();
}

#[test]
fn nul_bytes_and_invalid_utf8_get_parse_errors() {
    let (_repo, mut server) = started();
    let cases: Vec<Vec<u8>> = vec![
        b"\0".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\0".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":\"a\0b\",\"method\":\"ping\"}".to_vec(),
        vec![0xff; 32],
        vec![0xc0, 0x80],
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\xed\xa0\x80\"}".to_vec(),
    ];
    for case in &cases {
        let mut line = case.clone();
        line.push(b'\n');
        server.send_raw(&line);
        let answer = server.recv();
        assert_eq!(
            answer["id"],
            Value::Null,
            "{:?}: {answer}",
            String::from_utf8_lossy(case)
        );
        assert_eq!(Server::error_of(&answer).0, -32700, "{answer}");
    }
    // An escaped NUL inside a JSON string is valid JSON: a path with it is refused.
    let answer = server.call(
        "nul-path",
        "mark_reconciled",
        json!({"files": ["src/a\u{0}.rs"]}),
    );
    let (code, message) = Server::error_of(&answer);
    assert_eq!(code, -32602);
    assert!(message.contains("NUL"), "{message}");
    assert_serves(&mut server, "after");
    server.finish();
}

#[test]
fn requests_before_initialize_are_refused_then_served() {
    let repo = Repo::with_spec();
    repo.write("src/a.rs", "fn a() { changed() }\n");
    let mut server = Server::spawn(&repo.root);
    // A notification before the session exists is dropped silently.
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    for (id, method) in [(1, "tools/list"), (2, "tools/call")] {
        server.send(&json!({"jsonrpc": "2.0", "id": id, "method": method,
            "params": {"name": "clear_cache", "arguments": {}}}));
        let (answer, nulls) = server.answer(&json!(id));
        assert!(nulls.is_empty(), "{nulls:?}");
        let (code, message) = Server::error_of(&answer);
        assert_eq!(code, -32600, "{answer}");
        assert!(message.contains("initialize"), "{message}");
    }
    server.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
    assert!(server.answer(&json!(3)).0.get("result").is_some());
    assert!(!repo.db().exists(), "nothing ran before initialize");
    server.initialize();
    assert_serves(&mut server, "after-init");
    server.finish();
}

#[test]
fn unknown_tools_and_wrong_argument_types_name_the_problem() {
    let (repo, mut server) = started();
    let table = [
        ("nope", json!({}), "unknown tool"),
        ("", json!({}), "unknown tool"),
        (
            "get_reconciliation_status",
            json!({"base_branch": 1}),
            "base_branch",
        ),
        (
            "list_affected_specs",
            json!({"base_branch": 1}),
            "base_branch",
        ),
        (
            "list_affected_specs",
            json!({"base_branch": "no-such-branch"}),
            "no-such-branch",
        ),
        (
            "list_affected_specs",
            json!({"base_branch": "--upload-pack=x"}),
            "not a revision",
        ),
        ("list_affected_specs", json!({"base_branch": ""}), "empty"),
        ("get_spec_diff", json!({"base_branch": "main"}), "spec_path"),
        (
            "get_spec_diff",
            json!({"spec_path": {}, "base_branch": "main"}),
            "spec_path",
        ),
        (
            "get_spec_diff",
            json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main", "exclude_patterns": "x"}),
            "exclude_patterns",
        ),
        (
            "get_spec_diff",
            json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main", "exclude_patterns": ["[z-a]"]}),
            "exclude_patterns",
        ),
        (
            "get_spec_diff",
            json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main", "bypass_cache": 1}),
            "bypass_cache",
        ),
        (
            "get_spec_diff",
            json!({"spec_path": "src/a.rs", "base_branch": "main"}),
            "known specs",
        ),
        (
            "get_changed_artifacts",
            json!({"spec_path": ".notarai/a.spec.yaml", "artifact_type": false}),
            "artifact_type",
        ),
        ("mark_reconciled", json!({}), "files"),
        ("mark_reconciled", json!({"files": {"a": 1}}), "files"),
        (
            "mark_reconciled",
            json!({"files": ["src/a.rs", 3]}),
            "files[1]",
        ),
    ];
    for (i, (tool, args, needle)) in table.iter().enumerate() {
        let answer = server.call(i as u64, tool, args.clone());
        let (code, message) = Server::error_of(&answer);
        assert_eq!(code, -32602, "{tool} {args}: {answer}");
        assert!(
            message.contains(needle),
            "{tool} {args}: {message:?} lacks {needle:?}"
        );
    }
    assert!(!repo.db().exists(), "no refused call wrote the cache");
    assert_serves(&mut server, "after");
    server.finish();
}

// ------------------------------------------------------------ property tests

/// The id a generated request carries; `Valid` ids are made unique at send time.
#[derive(Debug, Clone)]
enum IdKind {
    ValidString,
    ValidInt,
    Odd(Value),
    Absent,
}

/// One generated line.
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)] // test data, built a few thousand times
enum Gen {
    /// Raw bytes, newlines included (they split the line).
    Bytes(Vec<u8>),
    /// Any JSON value without a top-level `id`.
    Json(Value),
    /// A request-shaped object.
    Request {
        jsonrpc: Option<Value>,
        id: IdKind,
        method: Option<Value>,
        params: Option<Value>,
    },
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,40}".prop_map(Value::from),
        Just(json!("../../etc/passwd")),
        Just(json!("main")),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::btree_map("[a-z_]{0,12}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arb_method() -> impl Strategy<Value = Value> {
    prop_oneof![
        prop::sample::select(vec![
            "initialize",
            "ping",
            "tools/list",
            "tools/call",
            "notifications/initialized",
            "notifications/cancelled",
            "notifications/progress",
            "resources/list",
            "prompts/get",
            "completion/complete",
            "logging/setLevel",
        ])
        .prop_map(Value::from),
        ".{0,20}".prop_map(Value::from),
        arb_json(),
    ]
}

fn arb_tool_params() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(vec![
            "list_affected_specs",
            "get_spec_diff",
            "get_changed_artifacts",
            "mark_reconciled",
            "get_reconciliation_status",
            "clear_cache",
            "unknown",
        ]),
        arb_arguments(),
    )
        .prop_map(|(name, arguments)| json!({"name": name, "arguments": arguments}))
}

/// Arguments built from the tools' parameter names with values of any type.
fn arb_arguments() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "base_branch",
        "spec_path",
        "exclude_patterns",
        "bypass_cache",
        "artifact_type",
        "files",
        "snapshot",
        "force",
        "max_tokens",
        "cursor",
        "extra",
    ]);
    let value = prop_oneof![
        3 => arb_json(),
        1 => Just(json!("main")),
        1 => Just(json!(".notarai/a.spec.yaml")),
        1 => Just(json!(["src/a.rs", "../x", "/etc/passwd"])),
    ];
    prop::collection::btree_map(key, value, 0..5)
        .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()))
}

fn arb_gen() -> impl Strategy<Value = Gen> {
    let id = prop_oneof![
        3 => Just(IdKind::ValidString),
        3 => Just(IdKind::ValidInt),
        1 => arb_json()
            .prop_filter("odd ids only", |v| !(v.is_string() || v.is_i64() || v.is_u64()))
            .prop_map(IdKind::Odd),
        2 => Just(IdKind::Absent),
    ];
    let jsonrpc = prop_oneof![
        8 => Just(Some(json!("2.0"))),
        1 => Just(None),
        1 => arb_json().prop_map(Some),
    ];
    let params = prop_oneof![
        2 => Just(None),
        3 => arb_tool_params().prop_map(Some),
        2 => arb_json().prop_map(Some),
    ];
    prop_oneof![
        1 => prop::collection::vec(any::<u8>(), 0..200).prop_map(Gen::Bytes),
        1 => arb_json().prop_map(|mut v| {
            if let Value::Object(o) = &mut v {
                o.remove("id");
            }
            Gen::Json(v)
        }),
        4 => (jsonrpc, id, prop::option::of(arb_method()), params).prop_map(
            |(jsonrpc, id, method, params)| Gen::Request { jsonrpc, id, method, params }
        ),
    ]
}

/// Render generated lines; returns the bytes and the valid ids they carry.
fn render(gens: &[Gen], next_id: &mut u64) -> (Vec<u8>, HashSet<Value>) {
    let mut bytes = Vec::new();
    let mut ids = HashSet::new();
    for g in gens {
        match g {
            Gen::Bytes(b) => bytes.extend_from_slice(b),
            Gen::Json(v) => bytes.extend_from_slice(v.to_string().as_bytes()),
            Gen::Request {
                jsonrpc,
                id,
                method,
                params,
            } => {
                let mut o = serde_json::Map::new();
                if let Some(j) = jsonrpc {
                    o.insert("jsonrpc".into(), j.clone());
                }
                *next_id += 1;
                let id = match id {
                    IdKind::ValidString => Some(json!(format!("p{next_id}"))),
                    IdKind::ValidInt => Some(json!(10_000_000 + *next_id)),
                    IdKind::Odd(v) => Some(v.clone()),
                    IdKind::Absent => None,
                };
                if let Some(id) = &id {
                    o.insert("id".into(), id.clone());
                    if id.is_string() || id.is_u64() {
                        ids.insert(id.clone());
                    }
                }
                if let Some(m) = method {
                    o.insert("method".into(), m.clone());
                }
                if let Some(p) = params {
                    o.insert("params".into(), p.clone());
                }
                bytes.extend_from_slice(Value::Object(o).to_string().as_bytes());
            }
        }
        bytes.push(b'\n');
    }
    (bytes, ids)
}

/// Random lines into one server: every request with a valid id is answered
/// exactly once, no answer carries an id never sent, and a normal call
/// succeeds after every case.
#[test]
fn prop_framing_every_valid_request_answered_once() {
    let (_repo, server) = started();
    let mut runner = TestRunner::new(Config {
        cases: proptest_cases(128),
        failure_persistence: None,
        ..Config::default()
    });
    let state = RefCell::new((server, 0u64, HashSet::<Value>::new(), 0usize));
    let strategy = prop::collection::vec(arb_gen(), 1..24);
    let result = runner.run(&strategy, |gens| {
        let mut guard = state.borrow_mut();
        let (server, next_id, answered, inputs) = &mut *guard;
        *inputs += gens.len();
        let (bytes, mut ids) = render(&gens, next_id);
        server.send_raw(&bytes);
        // A raw byte line may have left an unterminated fragment: end it.
        server.send_raw(b"\n");
        *next_id += 1;
        let probe = json!(format!("probe{next_id}"));
        server.send(
            &json!({"jsonrpc": "2.0", "id": probe, "method": "tools/call",
            "params": {"name": "list_affected_specs", "arguments": {"base_branch": "main"}}}),
        );
        ids.insert(probe.clone());
        let (by_id, _) = collect(server, &ids, 0, Duration::from_millis(20));
        for (id, answers) in &by_id {
            prop_assert!(
                ids.contains(id),
                "answer to an id never sent: {id}: {answers:?}"
            );
            prop_assert_eq!(
                answers.len(),
                1,
                "id {} answered {} times",
                id,
                answers.len()
            );
            prop_assert!(
                answered.insert(id.clone()),
                "id {} answered again later",
                id
            );
            let a = &answers[0];
            prop_assert!(
                a.get("result").is_some() ^ a.get("error").is_some(),
                "{}",
                a
            );
        }
        let probe_answer = &by_id[&probe][0];
        prop_assert!(
            probe_answer["result"]["structuredContent"]["changed_files"] == json!(["src/a.rs"]),
            "normal call failed after abuse: {}",
            probe_answer
        );
        if !server.alive() {
            return Err(TestCaseError::fail(format!(
                "server died: {}",
                server.stderr()
            )));
        }
        Ok(())
    });
    let (server, _, answered, inputs) = state.into_inner();
    if let Err(e) = result {
        panic!("{e}\nstderr:\n{}", server.stderr());
    }
    eprintln!(
        "framing: {inputs} generated lines, {} answers checked",
        answered.len()
    );
    common::assert_no_panic(&server.stderr());
    let peak = server.peak_rss_kib();
    assert!(peak < MEMORY_BOUND_KIB, "peak memory {peak} KiB");
    server.finish();
}

/// Random arguments for every tool: always exactly one answer, a result or
/// an error of -32602/-32603 with a message; a parameter of the wrong type
/// is always -32602 naming that parameter.
#[test]
fn prop_argument_decoding() {
    let (_repo, server) = started();
    let outside_before = _repo.outside_snapshot();
    let mut runner = TestRunner::new(Config {
        cases: proptest_cases(128),
        failure_persistence: None,
        ..Config::default()
    });
    let state = RefCell::new((server, 0u64));
    let tools = prop::sample::select(
        notarai::mcp::tools::TOOLS
            .iter()
            .map(|t| t.name)
            .collect::<Vec<_>>(),
    );
    let result = runner.run(&(tools.clone(), arb_arguments()), |(tool, args)| {
        let mut guard = state.borrow_mut();
        let (server, n) = &mut *guard;
        *n += 1;
        let answer = server.call(format!("a{n}"), tool, args.clone());
        match answer.get("error") {
            None => prop_assert!(
                answer["result"]["structuredContent"].is_object(),
                "{}",
                answer
            ),
            Some(e) => {
                let code = e["code"].as_i64().unwrap_or_default();
                prop_assert!(
                    code == -32602 || code == -32603,
                    "{} {}: {}",
                    tool,
                    args,
                    answer
                );
                prop_assert!(!e["message"].as_str().unwrap_or_default().is_empty());
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}\nstderr:\n{}", state.borrow().0.stderr());
    }
    // Wrong types for each declared parameter.
    let wrong_types = [
        json!(1),
        json!(true),
        json!({}),
        json!(null),
        json!([[]]),
        json!(1.5),
    ];
    let required: [(&str, &str, Value); 7] = [
        ("list_affected_specs", "base_branch", json!({})),
        ("get_spec_diff", "spec_path", json!({"base_branch": "main"})),
        (
            "get_spec_diff",
            "base_branch",
            json!({"spec_path": ".notarai/a.spec.yaml"}),
        ),
        (
            "get_spec_diff",
            "exclude_patterns",
            json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"}),
        ),
        (
            "get_spec_diff",
            "bypass_cache",
            json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"}),
        ),
        ("get_changed_artifacts", "spec_path", json!({})),
        ("mark_reconciled", "files", json!({})),
    ];
    let mut runner = TestRunner::new(Config {
        cases: proptest_cases(64),
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        prop::sample::select(required.to_vec()),
        prop::sample::select(wrong_types.to_vec()),
    );
    let result = runner.run(&strategy, |((tool, param, base), wrong)| {
        // `null` is a valid "absent" for optional parameters with defaults,
        // and a boolean is the right type for `bypass_cache`.
        let optional = matches!(param, "exclude_patterns" | "bypass_cache" | "base_branch");
        if (optional && wrong.is_null()) || (param == "bypass_cache" && wrong.is_boolean()) {
            return Ok(());
        }
        // `[[]]` is a wrong type everywhere but stays a list.
        let mut args = base.clone();
        args[param] = wrong.clone();
        let mut guard = state.borrow_mut();
        let (server, n) = &mut *guard;
        *n += 1;
        let answer = server.call(format!("w{n}"), tool, args.clone());
        let (code, message) = Server::error_of(&answer);
        prop_assert_eq!(code, -32602, "{} {}: {}", tool, args, answer);
        prop_assert!(
            message.contains(param),
            "{} {}: {:?} does not name {}",
            tool,
            args,
            message,
            param
        );
        Ok(())
    });
    let (mut server, n) = state.into_inner();
    if let Err(e) = result {
        panic!("{e}\nstderr:\n{}", server.stderr());
    }
    eprintln!("argument decoding: {n} calls");
    // `snapshot_state` and `mark_reconciled {snapshot: true}` may have
    // written the state file, a change of its own; the check below wants
    // the branch as it was.
    let _ = std::fs::remove_file(_repo.root.join(".notarai/reconciliation_state.json"));
    assert_eq!(
        _repo.outside_snapshot(),
        outside_before,
        "nothing outside the root written"
    );
    assert_serves(&mut server, "after");
    server.finish();
}
