//! MCP 2026-07-28 on raw JSON lines: the stateless era beside the legacy
//! one, and every error of the new path (an unsupported revision, a missing
//! `_meta`, a legacy-only method, the other era's requests in one process).

use serde_json::{Value, json};

use crate::common::{Repo, Server};

/// The `_meta` a 2026-07-28 request carries, declaring `version`.
fn meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": {"name": "notarai-tests", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// `params` with the 2026-07-28 `_meta` added.
fn modern(mut params: Value) -> Value {
    params["_meta"] = meta("2026-07-28");
    params
}

fn discover(server: &mut Server, id: i64) -> Value {
    server.request(id, "server/discover", json!({"_meta": meta("2026-07-28")}))
}

#[test]
fn discover_names_every_revision_served_and_opens_the_stateless_era() {
    let repo = Repo::with_spec();
    let mut server = Server::spawn(&repo.root);
    let answer = discover(&mut server, 1);
    let result = &answer["result"];
    assert_eq!(result["resultType"], "complete", "{answer}");
    assert_eq!(
        result["supportedVersions"],
        json!([
            "2026-07-28",
            "2025-11-25",
            "2025-06-18",
            "2025-03-26",
            "2024-11-05"
        ])
    );
    for capability in ["tools", "resources", "prompts", "completions"] {
        assert!(result["capabilities"][capability].is_object(), "{answer}");
    }
    assert!(result["capabilities"].get("logging").is_none(), "{answer}");
    let instructions = result["instructions"].as_str().unwrap();
    assert!(instructions.contains("Specs loaded: 1"), "{instructions}");
    assert!(instructions.contains("2026-07-28"), "{instructions}");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "notarai"
    );
    // The instructions carry the specs' load status: stale at once, private.
    assert_eq!(
        (&result["ttlMs"], &result["cacheScope"]),
        (&json!(0), &json!("private"))
    );
    // No handshake: the next request is served on its own `_meta`.
    let list = server.request(2, "tools/list", modern(json!({})));
    assert_eq!(list["result"]["resultType"], "complete", "{list}");
    assert!(!list["result"]["tools"].as_array().unwrap().is_empty());
    server.finish();
}

#[test]
fn every_result_has_its_result_type_and_the_lists_their_cache_hints() {
    let repo = Repo::with_spec();
    repo.append("src/a.rs", "fn b() {}\n");
    let mut server = Server::spawn(&repo.root);
    let spec = ".notarai/a.spec.yaml";
    let uri = format!("notarai://spec/{spec}");
    let cases = [
        ("tools/list", json!({}), Some((3_600_000, "public"))),
        ("prompts/list", json!({}), Some((3_600_000, "public"))),
        (
            "resources/templates/list",
            json!({}),
            Some((3_600_000, "public")),
        ),
        ("resources/list", json!({}), Some((0, "private"))),
        ("resources/read", json!({"uri": uri}), Some((0, "private"))),
        (
            "prompts/get",
            json!({"name": "reconcile", "arguments": {"spec_path": spec}}),
            None,
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "reconcile"},
                "argument": {"name": "spec_path", "value": ""}}),
            None,
        ),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "notarai://governing/{path}"},
                "argument": {"name": "path", "value": "src/"}}),
            None,
        ),
        (
            "tools/call",
            json!({"name": "get_spec_diff", "arguments": {"spec_path": spec, "base_branch": "main"}}),
            None,
        ),
    ];
    for (i, (method, params, hints)) in cases.into_iter().enumerate() {
        let answer = server.request(i as i64, method, modern(params));
        let result = &answer["result"];
        assert_eq!(result["resultType"], "complete", "{method}: {answer}");
        match hints {
            Some((ttl, scope)) => {
                assert_eq!(
                    (&result["ttlMs"], &result["cacheScope"]),
                    (&json!(ttl), &json!(scope)),
                    "{method}"
                )
            }
            None => assert!(result.get("ttlMs").is_none(), "{method}: {answer}"),
        }
    }
    // Deterministic order: the same list, in the same order, every time.
    let first = server.request(100, "tools/list", modern(json!({})));
    let again = server.request(101, "tools/list", modern(json!({})));
    assert_eq!(first["result"], again["result"]);
    server.finish();
}

#[test]
fn the_errors_of_the_new_path_use_the_specification_codes() {
    let repo = Repo::with_spec();
    let mut server = Server::spawn(&repo.root);
    // `ping` declaring 2026-07-28, even first: method not found.
    let answer = server.request(0, "ping", json!({"_meta": meta("2026-07-28")}));
    assert_eq!(Server::error_of(&answer).0, -32601, "{answer}");
    // An unsupported revision: -32022 with the supported list.
    let answer = server.request(1, "tools/list", json!({"_meta": meta("1900-01-01")}));
    assert_eq!(Server::error_of(&answer).0, -32022, "{answer}");
    assert_eq!(answer["error"]["data"]["requested"], "1900-01-01");
    assert_eq!(answer["error"]["data"]["supported"][0], "2026-07-28");
    // A probe at an unsupported revision too; it opens no era.
    let answer = server.request(2, "server/discover", json!({"_meta": meta("2099-01-01")}));
    assert_eq!(Server::error_of(&answer).0, -32022, "{answer}");
    discover(&mut server, 3);
    // A missing `_meta` (or a key of it): -32602 naming the keys.
    let answer = server.request(4, "tools/list", json!({}));
    let (code, message) = Server::error_of(&answer);
    assert_eq!(code, -32602, "{answer}");
    assert!(
        message.contains("io.modelcontextprotocol/protocolVersion"),
        "{message}"
    );
    let mut partial = meta("2026-07-28");
    partial
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let answer = server.request(5, "tools/list", json!({"_meta": partial}));
    let (code, message) = Server::error_of(&answer);
    assert_eq!(code, -32602, "{answer}");
    assert!(message.contains("clientCapabilities"), "{message}");
    // Legacy-only methods: method not found.
    for (id, method) in [
        (6, "ping"),
        (7, "logging/setLevel"),
        (8, "resources/subscribe"),
    ] {
        let answer = server.request(id, method, modern(json!({"level": "info", "uri": "x"})));
        assert_eq!(Server::error_of(&answer).0, -32601, "{method}: {answer}");
    }
    // A resource not found: -32602 (it is -32002 on the legacy revisions).
    let answer = server.request(
        9,
        "resources/read",
        modern(json!({"uri": "notarai://spec/.notarai/gone.spec.yaml"})),
    );
    assert_eq!(Server::error_of(&answer).0, -32602, "{answer}");
    // Still serving.
    let list = server.request(10, "prompts/list", modern(json!({})));
    assert_eq!(list["result"]["resultType"], "complete");
    server.finish();
}

#[test]
fn a_tool_s_invalid_argument_is_a_result_the_model_reads() {
    let repo = Repo::with_spec();
    let mut server = Server::spawn(&repo.root);
    let answer = server.request(
        1,
        "tools/call",
        modern(json!({"name": "get_spec_diff", "arguments": {"spec_path": "nope"}})),
    );
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("`nope` is not a spec"), "{text}");
    let answer = server.request(
        2,
        "tools/call",
        modern(json!({"name": "get_spec_diff", "arguments": {"spec_path": ".notarai/a.spec.yaml", "max_tokens": "many"}})),
    );
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("max_tokens")
    );
    // An unknown tool stays a protocol error.
    let answer = server.request(3, "tools/call", modern(json!({"name": "no_such_tool"})));
    assert_eq!(Server::error_of(&answer).0, -32602, "{answer}");
    server.finish();
}

#[test]
fn on_2025_11_25_a_tool_s_invalid_argument_is_a_result_too_and_older_keep_the_error() {
    let repo = Repo::with_spec();
    for (version, as_result) in [
        ("2025-11-25", true),
        ("2025-06-18", false),
        ("2024-11-05", false),
    ] {
        let mut server = Server::spawn(&repo.root);
        server.request(
            0,
            "initialize",
            json!({"protocolVersion": version, "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}),
        );
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        let answer = server.call(1, "get_spec_diff", json!({"spec_path": "nope"}));
        match as_result {
            true => assert_eq!(answer["result"]["isError"], true, "{version}: {answer}"),
            false => assert_eq!(Server::error_of(&answer).0, -32602, "{version}: {answer}"),
        }
        server.finish();
    }
}

#[test]
fn after_a_stateless_request_the_legacy_methods_are_refused_naming_the_era() {
    let repo = Repo::with_spec();
    // Stateless first: `initialize` is refused, `ping` is gone.
    let mut server = Server::spawn(&repo.root);
    let list = server.request(1, "tools/list", modern(json!({})));
    assert!(list.get("result").is_some(), "{list}");
    let answer = server.request(
        2,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}),
    );
    let (code, message) = Server::error_of(&answer);
    assert_eq!(code, -32601, "{answer}");
    assert!(
        message.contains("2026-07-28") && message.contains("notarai mcp"),
        "{message}"
    );
    let answer = server.request(3, "ping", json!({}));
    assert_eq!(Server::error_of(&answer).0, -32601, "{answer}");
    // Whatever its params: the era is checked first.
    let answer = server.request(5, "initialize", json!({"_meta": meta("2026-07-28")}));
    assert_eq!(Server::error_of(&answer).0, -32601, "{answer}");
    assert!(
        server
            .request(4, "tools/list", modern(json!({})))
            .get("result")
            .is_some()
    );
    server.finish();
    // Legacy first: a 2026-07-28 request is still served on its own `_meta`,
    // and the legacy requests stay as they were.
    let mut server = Server::start(&repo.root);
    let answer = server.request(1, "tools/list", modern(json!({})));
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    assert_eq!(answer["result"]["ttlMs"], 3_600_000, "{answer}");
    let answer = discover(&mut server, 2);
    assert_eq!(
        answer["result"]["supportedVersions"][0], "2026-07-28",
        "{answer}"
    );
    let legacy = server.request(3, "tools/list", json!({}));
    assert!(legacy["result"].get("resultType").is_none(), "{legacy}");
    assert!(legacy["result"].get("ttlMs").is_none(), "{legacy}");
    assert_eq!(server.request(4, "ping", json!({}))["result"], json!({}));
    server.finish();
}

#[test]
fn progress_and_cancellation_work_on_the_stateless_path() {
    let repo = Repo::new();
    repo.write("keep.txt", "kept\n");
    // Seconds of work for the server, a round trip for the cancel.
    let files: Vec<String> = (0..10_000)
        .map(|i| {
            let rel = format!("src/d{}/f{i}.rs", i % 64);
            repo.write(&rel, format!("fn f{i}() {{}}\n"));
            rel
        })
        .collect();
    let mut server = Server::spawn(&repo.root);
    let mut params = modern(json!({"name": "mark_reconciled", "arguments": {"files": files}}));
    params["_meta"]["progressToken"] = json!("tok");
    server.send(&json!({"jsonrpc": "2.0", "id": "long", "method": "tools/call", "params": params}));
    let first = server.recv();
    assert_eq!(first["method"], "notifications/progress", "{first}");
    assert_eq!(first["params"]["progressToken"], "tok", "{first}");
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": modern(json!({"requestId": "long"}))}),
    );
    // A later call is served; before its answer come only the reports of
    // the cancelled one (no notifications/message: no request asked for a
    // log level).
    server.send(&json!({"jsonrpc": "2.0", "id": "next", "method": "tools/call",
        "params": modern(json!({"name": "mark_reconciled", "arguments": {"files": ["keep.txt"]}}))}));
    let answer = loop {
        let line = server.recv();
        if line.get("id") == Some(&json!("next")) {
            break line;
        }
        assert_eq!(
            line["method"], "notifications/progress",
            "only reports: {line}"
        );
        assert_eq!(line["params"]["progressToken"], "tok", "{line}");
    };
    assert_eq!(
        answer["result"]["structuredContent"]["updated"], 1,
        "{answer}"
    );
    // The cancelled call is never answered.
    while let Some(line) = server.recv_timeout(std::time::Duration::from_millis(500)) {
        assert_ne!(
            line.get("id"),
            Some(&json!("long")),
            "a cancelled call was answered: {line}"
        );
    }
    server.finish();
}

#[tokio::test]
async fn the_rmcp_client_reaches_everything_on_2026_07_28() {
    use rmcp::model::{CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams};
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
    use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
    let repo = Repo::with_spec();
    repo.append("src/a.rs", "fn b() {}\n");
    let root = repo.root.clone();
    let transport = TokioChildProcess::new(
        tokio::process::Command::new(crate::common::BIN).configure(|cmd| {
            cmd.arg("mcp").arg("--root").arg(&root);
        }),
    )
    .unwrap();
    let lifecycle = ClientLifecycleMode::Auto {
        preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
        legacy_version: None,
    };
    let client = ().serve_with_lifecycle(transport, lifecycle).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), crate::common::TOOL_COUNT);
    let spec = ".notarai/a.spec.yaml";
    let diff = client
        .call_tool(
            CallToolRequestParams::new("get_spec_diff").with_arguments(
                json!({"spec_path": spec, "base_branch": "main"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        )
        .await
        .unwrap();
    let files = &diff.structured_content.unwrap()["files"];
    assert_eq!(files, &json!(["src/a.rs"]));
    let bad = client
        .call_tool(
            CallToolRequestParams::new("get_spec_diff")
                .with_arguments(json!({"spec_path": "nope"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(bad.is_error, Some(true));
    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources.len(), 1);
    let read = client
        .read_resource(ReadResourceRequestParams::new(resources[0].uri.clone()))
        .await
        .unwrap();
    assert_eq!(read.ttl_ms, Some(0));
    let prompts = client.list_all_prompts().await.unwrap();
    assert_eq!(prompts.len(), 2);
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("reconcile"))
        .await
        .unwrap();
    assert!(!prompt.messages.is_empty());
    client.cancel().await.unwrap();
}

#[test]
fn completion_offers_repository_paths_for_the_governing_template_in_the_stateless_era() {
    let repo = Repo::with_spec();
    repo.write("src/b/c.rs", "fn c() {}\n");
    let mut server = Server::spawn(&repo.root);
    let answer = server.request(
        1,
        "completion/complete",
        modern(json!({
            "ref": {"type": "ref/resource", "uri": "notarai://governing/{path}"},
            "argument": {"name": "path", "value": "src/"}
        })),
    );
    let result = &answer["result"];
    assert_eq!(result["resultType"], "complete", "{answer}");
    assert_eq!(
        result["completion"]["values"],
        json!(["src/a.rs", "src/b", "src/b/c.rs"]),
        "{answer}"
    );
    assert_eq!(result["completion"]["total"], 3, "{answer}");
    assert_eq!(result["completion"]["hasMore"], false, "{answer}");
    server.finish();
}
