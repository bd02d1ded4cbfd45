//! The MCP surface as a client sees it: the rmcp client over a child process,
//! and raw JSON lines for framing, errors and stdout purity.

use crate::common;

use std::time::Duration;

use common::{Repo, Server, strings};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

fn repo() -> Repo {
    let repo = Repo::new();
    repo.spec("auth", &["src/**"]);
    repo.write("src/a.rs", "fn a() {}\n");
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.append("src/a.rs", "fn b() {}\n");
    repo
}

#[tokio::test]
async fn rmcp_client_runs_a_reconciliation_pass() {
    let repo = repo();
    let client = common::rmcp_client(&repo.root, &[]).await;
    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "notarai");
    let instructions = info.instructions.clone().unwrap();
    assert!(
        instructions.contains("list_affected_specs") && instructions.contains("Specs loaded: 1"),
        "{instructions}"
    );

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, crate::common::TOOL_NAMES);
    for tool in &tools {
        assert!(
            tool.output_schema.is_some(),
            "{} has an outputSchema",
            tool.name
        );
        let annotations = tool.annotations.as_ref().unwrap();
        assert_eq!(annotations.open_world_hint, Some(false));
        let read_only = !matches!(
            tool.name.as_ref(),
            "mark_reconciled" | "report_drift" | "snapshot_state" | "clear_cache"
        );
        assert_eq!(annotations.read_only_hint, Some(read_only), "{}", tool.name);
    }
    let diff_tool = tools.iter().find(|t| t.name == "get_spec_diff").unwrap();
    assert_eq!(diff_tool.input_schema["required"], json!(["spec_path"]));

    let call = |name: &'static str, args: Value| {
        CallToolRequestParams::new(name).with_arguments(args.as_object().unwrap().clone())
    };
    let structured = async |name: &'static str, args: Value| {
        client
            .call_tool(call(name, args))
            .await
            .unwrap()
            .structured_content
            .unwrap()
    };
    let affected = structured("list_affected_specs", json!({"base_branch": "main"})).await;
    assert_eq!(strings(&affected["changed_files"]), ["src/a.rs"]);
    let diff_args =
        json!({"spec_path": ".notarai/auth.spec.yaml", "base_branch": "main", "full_lists": true});
    let diff = structured("get_spec_diff", diff_args.clone()).await;
    assert_eq!(strings(&diff["files"]), ["src/a.rs"]);
    let marked = structured("mark_reconciled", json!({"files": diff["files"]})).await;
    assert_eq!(marked["updated"], 1);
    let again = structured("get_spec_diff", diff_args).await;
    assert_eq!(strings(&again["skipped"]), ["src/a.rs"]);
    // rmcp's client negotiates 2025-11-25, where a tool's invalid argument
    // is a result the model reads (SEP-1303), not a JSON-RPC error.
    let err = client
        .call_tool(call("get_spec_diff", json!({"spec_path": "nope"})))
        .await
        .unwrap();
    assert_eq!(err.is_error, Some(true), "{err:?}");
    assert!(format!("{:?}", err.content).contains("nope"), "{err:?}");
    client.cancel().await.unwrap();
}

#[test]
fn every_protocol_revision_completes_the_handshake() {
    let repo = repo();
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut server = Server::spawn(&repo.root);
        let init = server.request(
            1,
            "initialize",
            json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        );
        assert_eq!(init["result"]["protocolVersion"], version);
        assert_eq!(init["result"]["serverInfo"]["name"], "notarai");
        let capabilities = &init["result"]["capabilities"];
        for capability in ["tools", "resources", "prompts", "completions"] {
            assert!(capabilities[capability].is_object(), "{capability}: {init}");
        }
        assert!(
            capabilities["resources"].get("listChanged").is_none()
                && capabilities["resources"].get("subscribe").is_none(),
            "no resource notifications are sent: {init}"
        );
        server.send_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
        assert_eq!(server.request(2, "ping", json!({}))["result"], json!({}));
        let tools = server.request(3, "tools/list", json!({}));
        assert_eq!(tools["result"]["tools"].as_array().unwrap().len(), 9);
        // Exit 0 when stdin closes.
        server.finish();
    }
    // An unknown revision is answered with a supported one.
    let mut server = Server::spawn(&repo.root);
    let init = server.request(
        1,
        "initialize",
        json!({"protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    let answered = init["result"]["protocolVersion"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"].contains(&answered.as_str()),
        "{answered}"
    );
}

fn error_code(message: &Value) -> i64 {
    message["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {message}"))
}

#[test]
fn framing_errors_are_answered_and_the_server_keeps_serving() {
    let repo = repo();
    let mut server = Server::spawn(&repo.root);
    // Before initialize: garbage, a request, a ping.
    server.send_raw(b"this is not json\n");
    let reply = server.recv();
    assert_eq!(error_code(&reply), -32700);
    assert_eq!(
        reply["id"],
        Value::Null,
        "known gap 9: a parse error carries id null"
    );
    assert!(reply.as_object().unwrap().contains_key("id"));
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}\n");
    let reply = server.recv();
    assert_eq!(
        (reply["id"].clone(), error_code(&reply)),
        (json!(7), -32600)
    );
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}\n");
    assert_eq!(server.recv()["result"], json!({}));
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    let init = server.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert!(init["result"].is_object(), "{init}");
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");

    let cases: &[(&[u8], i64, Value)] = &[
        (b"{\"jsonrpc\":\"2.0\",\"id\":1,", -32700, Value::Null),
        (b"\xff\xfe{}", -32700, Value::Null),
        (b"[]", -32600, Value::Null),
        (b"42", -32600, Value::Null),
        (b"\"a string\"", -32600, Value::Null),
        (b"{}", -32600, Value::Null),
        (b"{\"jsonrpc\":\"1.0\",\"id\":11,\"method\":\"ping\"}", -32600, json!(11)),
        (b"{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}", -32600, Value::Null),
        (b"{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":5}", -32600, json!(12)),
        (b"{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"no/such\"}", -32601, json!(13)),
        (b"{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"notarai://spec/x\"}}", -32601, json!("s")),
        (b"{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"resources/read\",\"params\":{\"uri\":5}}", -32602, json!(17)),
        (b"{\"jsonrpc\":\"2.0\",\"id\":18,\"method\":\"completion/complete\",\"params\":{\"ref\":{\"type\":\"ref/nothing\"}}}", -32602, json!(18)),
        (b"{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"tools/call\",\"params\":5}", -32602, json!(14)),
        (b"{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"tools/call\",\"params\":{\"name\":\"get_spec_diff\",\"arguments\":[]}}", -32602, json!(15)),
        (b"\0\0\0", -32700, Value::Null),
    ];
    for (line, code, id) in cases {
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        server.send_raw(&bytes);
        let reply = server.recv();
        assert_eq!(
            error_code(&reply),
            *code,
            "{}: {reply}",
            String::from_utf8_lossy(line)
        );
        assert_eq!(
            &reply["id"],
            id,
            "{}: {reply}",
            String::from_utf8_lossy(line)
        );
    }
    // A tool's invalid argument, on 2025-11-25: a result marked isError
    // carrying the message (SEP-1303; tests/it/modern.rs has the older ones).
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"tools/call\",\"params\":{\"name\":\"mark_reconciled\",\"arguments\":{\"files\":\"x\"}}}\n");
    let reply = server.recv();
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    assert!(
        reply["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("`files`"),
        "{reply}"
    );
    // Blank lines and unknown notifications get no answer.
    server.send_raw(b"\n");
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}\n");
    assert!(server.recv_timeout(Duration::from_millis(300)).is_none());
    // An over-long line is answered without holding it in memory.
    let mut long = vec![b'x'; 9 * 1024 * 1024];
    long.push(b'\n');
    server.send_raw(&long);
    let reply = server.recv();
    assert_eq!(error_code(&reply), -32600);
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("longer than")
    );
    // And a normal call still works.
    let affected = server.call_ok(2, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(strings(&affected["changed_files"]), ["src/a.rs"]);
    server.finish();
}

#[test]
fn stdout_carries_only_protocol_even_with_verbose_logs() {
    let repo = repo();
    let mut server = Server::spawn_with(&repo.root, |cmd| {
        cmd.env("NOTARAI_LOG", "trace");
    });
    server.initialize();
    server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": ".notarai/auth.spec.yaml", "base_branch": "main"}),
    );
    let _ = server.call(
        3,
        "get_spec_diff",
        json!({"spec_path": "../x", "base_branch": "main"}),
    );
    // finish() fails on any stdout line that is not JSON.
    let stderr = server.finish();
    assert!(!stderr.is_empty(), "logs went to stderr");
}

#[test]
fn every_answer_conforms_to_its_declared_output_schema() {
    let repo = repo();
    repo.write(
        ".notarai/system.spec.yaml",
        "schema_version: '0.7'\nintent: The system.\nbehaviors:\n  - name: all\n    given: x\n    then: y\nartifacts:\n  docs:\n    - path: 'README.md'\nsubsystems:\n  - $ref: './auth.spec.yaml'\n",
    );
    repo.write("src/logo.bin", [0u8, 1, 2, 0].repeat(50));
    repo.write(".notarai/broken.spec.yaml", "schema_version: '0.7'\n");
    // A file the branch deletes: marked reconciled while deleted.
    repo.write("src/gone.rs", "fn gone() {}\n");
    repo.commit("gone");
    repo.remove("src/gone.rs");
    let mut server = Server::start(&repo.root);
    let tools = server.request(1, "tools/list", json!({}));
    let schemas: Vec<(String, jsonschema::Validator)> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let validator =
                jsonschema::validator_for(&t["outputSchema"]).expect("outputSchema compiles");
            assert!(
                jsonschema::validator_for(&t["inputSchema"]).is_ok(),
                "inputSchema compiles"
            );
            (t["name"].as_str().unwrap().to_string(), validator)
        })
        .collect();
    // The schemas are strict enough to catch a wrong answer.
    let (_, list) = schemas
        .iter()
        .find(|(name, _)| name == "list_affected_specs")
        .unwrap();
    assert!(!list.is_valid(&json!({"changed_files": 5})));
    assert!(!list.is_valid(&json!({})));
    let spec = ".notarai/auth.spec.yaml";
    let calls = [
        ("get_reconciliation_status", json!({"base_branch": "main"})),
        ("list_affected_specs", json!({"base_branch": "main"})),
        ("list_affected_specs", json!({})),
        (
            "get_spec_diff",
            json!({"spec_path": spec, "base_branch": "main"}),
        ),
        (
            "get_spec_diff",
            json!({"spec_path": ".notarai/system.spec.yaml", "base_branch": "main"}),
        ),
        (
            "get_changed_artifacts",
            json!({"spec_path": spec, "artifact_type": "code"}),
        ),
        (
            "mark_reconciled",
            json!({"files": ["src/a.rs", "src/gone.rs"]}),
        ),
        (
            "get_spec_diff",
            json!({"spec_path": spec, "base_branch": "main"}),
        ),
        ("snapshot_state", json!({})),
        ("get_reconciliation_status", json!({"max_tokens": 1000})),
        ("clear_cache", json!({})),
    ];
    for (id, (tool, arguments)) in calls.into_iter().enumerate() {
        let result = server.call_ok(10 + id as i64, tool, arguments);
        let (_, validator) = schemas.iter().find(|(name, _)| name == tool).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&result)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{tool}: {errors:?}\n{result}");
    }
    server.finish();
}

#[test]
fn the_kept_load_status_follows_every_spec_edit_between_servers() {
    let repo = repo();
    std::fs::create_dir_all(repo.root.join(".notarai/.cache")).unwrap();
    let instructions = |repo: &Repo| {
        let mut server = Server::spawn(&repo.root);
        let info = server.initialize();
        server.finish();
        info["instructions"].as_str().unwrap().to_string()
    };
    assert!(instructions(&repo).contains("Specs loaded: 1."));
    assert!(
        repo.root.join(".notarai/.cache/load-status.json").exists(),
        "kept for the next server"
    );
    // The same size, another content and modification time: the stamp
    // tells (the time is set, not waited for: a coarse clock cannot hide it).
    let spec = repo.root.join(".notarai/auth.spec.yaml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let before = std::fs::metadata(&spec).unwrap().modified().unwrap();
    std::fs::write(&spec, text.replacen("schema_version", "schema_versiom", 1)).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&spec)
        .unwrap()
        .set_modified(before - Duration::from_secs(60))
        .unwrap();
    let broken = instructions(&repo);
    assert!(
        broken.contains("Specs loaded: 0.") && broken.contains("auth.spec.yaml"),
        "{broken}"
    );
    // A new spec file.
    std::fs::write(&spec, text).unwrap();
    repo.spec("more", &["lib/**"]);
    assert!(instructions(&repo).contains("Specs loaded: 2."));
}

/// A list's params of the wrong type (`cursor` a number or an object) are
/// `-32602` naming `cursor`, never read as "no cursor" (rmcp drops params
/// of an optional type that fail to decode, which served the first page
/// again to a client paging with a bad cursor).
#[test]
fn a_list_cursor_of_the_wrong_type_is_refused() {
    let repo = repo();
    let mut server = repo.server();
    let mut id = 100;
    for method in [
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
    ] {
        for params in [
            json!({"cursor": 5}),
            json!({"cursor": {}}),
            json!({"cursor": true}),
        ] {
            id += 1;
            let reply = server.request(id, method, params.clone());
            assert_eq!(error_code(&reply), -32602, "{method} {params}: {reply}");
            let message = reply["error"]["message"].as_str().unwrap();
            assert!(message.contains("cursor"), "{method} {params}: {message}");
        }
        // No params, empty params and a null cursor are the first page.
        for params in [json!({}), json!({"cursor": null}), Value::Null] {
            id += 1;
            let mut request = json!({"jsonrpc": "2.0", "id": id, "method": method});
            if !params.is_null() {
                request["params"] = params.clone();
            }
            server.send(&request);
            let (reply, _) = server.answer(&json!(id));
            assert!(reply["result"].is_object(), "{method} {params}: {reply}");
        }
    }
    server.finish();
}
