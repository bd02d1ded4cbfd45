//! The workflows as MCP prompts and the completion of their arguments,
//! through the rmcp client over a child process and as raw JSON lines.

use crate::common;

use common::{Repo, Server, strings};
use rmcp::model::{GetPromptRequestParams, Role};
use serde_json::{Value, json};

fn repo() -> Repo {
    let repo = Repo::with_spec();
    repo.spec("auth", &["src/auth/**"]);
    repo.write("src/auth/login/mod.rs", "fn login() {}\n");
    repo.write("lib/util.rs", "fn u() {}\n");
    repo.commit("more");
    repo.git(&["branch", "release-1"]);
    repo.git(&["branch", "main-next"]);
    repo
}

fn text_of(result: &Value) -> String {
    let messages = result["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 1, "{result}");
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(messages[0]["content"]["type"], "text");
    messages[0]["content"]["text"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn rmcp_client_lists_and_gets_the_prompts() {
    let repo = repo();
    let client = common::rmcp_client(&repo.root, &[]).await;
    let capabilities = client.peer_info().unwrap().capabilities.clone();
    assert!(capabilities.prompts.is_some() && capabilities.completions.is_some());

    let prompts = client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["reconcile", "bootstrap"]);
    let args = |name: &str| -> Vec<(String, bool)> {
        prompts
            .iter()
            .find(|p| p.name == name)
            .unwrap()
            .arguments
            .clone()
            .unwrap()
            .into_iter()
            .map(|a| (a.name, a.required.unwrap()))
            .collect()
    };
    assert_eq!(
        args("reconcile"),
        [
            ("base_branch".to_string(), false),
            ("spec_path".to_string(), false)
        ]
    );
    assert_eq!(args("bootstrap"), [("path".to_string(), true)]);

    let plain = client
        .get_prompt(GetPromptRequestParams::new("reconcile"))
        .await
        .unwrap();
    assert_eq!(plain.messages.len(), 1);
    assert_eq!(plain.messages[0].role, Role::User);
    let text = &plain.messages[0]
        .content
        .as_text()
        .expect("a text message")
        .text;
    assert!(
        text.contains("## Steps") && !text.contains("## This pass"),
        "{text}"
    );

    let narrowed = client
        .get_prompt(
            GetPromptRequestParams::new("bootstrap")
                .with_arguments(json!({"path": "src/auth"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    let text = &narrowed.messages[0]
        .content
        .as_text()
        .expect("a text message")
        .text;
    assert!(text.contains("Only the folder `src/auth`"), "{text}");

    let err = client
        .get_prompt(GetPromptRequestParams::new("bootstrap"))
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("needs the argument `path`"),
        "{err}"
    );

    let values = client
        .complete_prompt_simple("reconcile", "spec_path", ".notarai/a")
        .await
        .unwrap();
    assert_eq!(values, [".notarai/a.spec.yaml", ".notarai/auth.spec.yaml"]);
    client.cancel().await.unwrap();
}

#[test]
fn arguments_narrow_the_text_and_bad_ones_are_refused() {
    let repo = repo();
    let mut server = Server::start(&repo.root);
    let plain = text_of(&server.request(1, "prompts/get", json!({"name": "reconcile"}))["result"]);
    let narrowed = text_of(
        &server.request(
            2,
            "prompts/get",
            json!({"name": "reconcile", "arguments":
                {"base_branch": "release-1", "spec_path": ".notarai/auth.spec.yaml"}}),
        )["result"],
    );
    assert!(
        narrowed.contains("`base_branch: \"release-1\"`"),
        "{narrowed}"
    );
    assert!(
        narrowed.contains("Only the spec `.notarai/auth.spec.yaml`"),
        "{narrowed}"
    );
    assert!(!plain.contains("release-1") && !plain.contains("## This pass"));
    // The same steps either way.
    let steps = |t: &str| t[t.find("## Steps").unwrap()..].to_string();
    assert_eq!(steps(&plain), steps(&narrowed));
    // An empty optional argument counts as not given.
    let empty = text_of(
        &server.request(
            3,
            "prompts/get",
            json!({"name": "reconcile", "arguments": {"base_branch": ""}}),
        )["result"],
    );
    assert_eq!(empty, plain);

    let refused = [
        (
            json!({"name": "nope"}),
            "unknown prompt",
            "reconcile, bootstrap",
        ),
        (
            json!({"name": "bootstrap"}),
            "needs the argument `path`",
            "pass `path`",
        ),
        (
            json!({"name": "bootstrap", "arguments": {"path": " "}}),
            "needs the argument",
            "pass `path`",
        ),
        (
            json!({"name": "bootstrap", "arguments": {"path": "../x"}}),
            "climbs out",
            "completion/complete",
        ),
        (
            json!({"name": "reconcile", "arguments": {"spec_path": "src/a.rs"}}),
            "not a spec file",
            "completion/complete",
        ),
        (
            json!({"name": "reconcile", "arguments": {"base": "main"}}),
            "no argument `base`",
            "base_branch, spec_path",
        ),
    ];
    for (i, (params, message, hint)) in refused.iter().enumerate() {
        let answer = server.request(10 + i as i64, "prompts/get", params.clone());
        let error = &answer["error"];
        assert_eq!(error["code"], -32602, "{params}: {answer}");
        assert!(
            error["message"].as_str().unwrap().contains(message),
            "{answer}"
        );
        assert!(
            error["data"]["hint"].as_str().unwrap().contains(hint),
            "{answer}"
        );
    }
    // Malformed params are answered by the framing, and it keeps serving.
    let answer = server.request(30, "prompts/get", json!({"arguments": {}}));
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let answer = server.request(31, "prompts/list", json!({}));
    assert_eq!(answer["result"]["prompts"].as_array().unwrap().len(), 2);
    server.finish();
}

fn complete(server: &mut Server, id: i64, reference: Value, name: &str, value: &str) -> Value {
    let answer = server.request(
        id,
        "completion/complete",
        json!({"ref": reference, "argument": {"name": name, "value": value}}),
    );
    answer["result"]["completion"].clone()
}

#[test]
fn completion_offers_specs_branches_and_folders() {
    let repo = repo();
    let mut server = Server::start(&repo.root);
    let reconcile = json!({"type": "ref/prompt", "name": "reconcile"});
    let bootstrap = json!({"type": "ref/prompt", "name": "bootstrap"});
    let template = json!({"type": "ref/resource", "uri": "notarai://spec/{path}"});

    let specs = complete(&mut server, 1, reconcile.clone(), "spec_path", "");
    assert_eq!(
        strings(&specs["values"]),
        [".notarai/a.spec.yaml", ".notarai/auth.spec.yaml"]
    );
    assert_eq!(
        (specs["total"].clone(), specs["hasMore"].clone()),
        (json!(2), json!(false))
    );
    let auth = complete(&mut server, 2, reconcile.clone(), "spec_path", "au");
    assert_eq!(strings(&auth["values"]), [".notarai/auth.spec.yaml"]);
    let via_template = complete(&mut server, 3, template.clone(), "path", ".notarai/au");
    assert_eq!(
        strings(&via_template["values"]),
        [".notarai/auth.spec.yaml"]
    );

    let branches = complete(&mut server, 4, reconcile.clone(), "base_branch", "ma");
    assert_eq!(strings(&branches["values"]), ["main", "main-next"]);
    let all = complete(&mut server, 5, reconcile.clone(), "base_branch", "");
    assert_eq!(
        strings(&all["values"]),
        ["feat", "main", "main-next", "release-1"]
    );

    let folders = complete(&mut server, 6, bootstrap.clone(), "path", "src");
    assert_eq!(
        strings(&folders["values"]),
        ["src", "src/auth", "src/auth/login"]
    );
    let none = complete(&mut server, 7, bootstrap.clone(), "path", "zzz");
    assert_eq!(
        (none["values"].clone(), none["total"].clone()),
        (json!([]), json!(0))
    );

    for (id, reference, name) in [
        (8, json!({"type": "ref/prompt", "name": "nope"}), "path"),
        (9, bootstrap.clone(), "spec_path"),
        (
            10,
            json!({"type": "ref/resource", "uri": "file:///{x}"}),
            "x",
        ),
        (11, template.clone(), "uri"),
    ] {
        let answer = server.request(
            id,
            "completion/complete",
            json!({"ref": reference, "argument": {"name": name, "value": ""}}),
        );
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        assert!(answer["error"]["data"]["hint"].is_string(), "{answer}");
    }
    server.finish();
}

/// The governing template's `{path}` is any path of the repository: the
/// files of git's file list and their folders, by prefix.
#[test]
fn completion_offers_repository_paths_for_the_governing_template() {
    let repo = repo();
    repo.write("src/auth/untracked.rs", "fn u() {}\n");
    repo.write(".gitignore", "ignored.log\n");
    repo.write("src/auth/ignored.log", "x\n");
    let mut server = Server::start(&repo.root);
    let governing = json!({"type": "ref/resource", "uri": "notarai://governing/{path}"});
    let src = complete(&mut server, 1, governing.clone(), "path", "src/a");
    assert_eq!(
        strings(&src["values"]),
        [
            "src/a.rs",
            "src/auth",
            "src/auth/login",
            "src/auth/login/mod.rs",
            "src/auth/untracked.rs"
        ]
    );
    assert_eq!(
        (src["total"].clone(), src["hasMore"].clone()),
        (json!(5), json!(false))
    );
    let all = complete(&mut server, 2, governing.clone(), "path", "");
    let values = strings(&all["values"]);
    for path in [".notarai/auth.spec.yaml", "lib", "lib/util.rs", "src"] {
        assert!(values.iter().any(|v| v == path), "{path}: {values:?}");
    }
    assert!(
        !values
            .iter()
            .any(|v| v.contains("ignored.log") || v.starts_with(".git/")),
        "{values:?}"
    );
    for (id, typed) in [(3, "nowhere/"), (5, "../"), (6, "/etc/"), (7, "src/../../")] {
        let none = complete(&mut server, id, governing.clone(), "path", typed);
        assert_eq!(
            (none["values"].clone(), none["total"].clone()),
            (json!([]), json!(0)),
            "{typed}"
        );
    }
    // Its only variable is `path`.
    let answer = server.request(
        4,
        "completion/complete",
        json!({"ref": governing, "argument": {"name": "file", "value": ""}}),
    );
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    server.finish();
}

#[test]
fn completion_offers_at_most_a_hundred_values() {
    let repo = Repo::new();
    for i in 0..130 {
        repo.spec(&format!("s{i:03}"), &["src/**"]);
        repo.write(&format!("dirs/d{i:03}/f.txt"), "x\n");
    }
    for i in 0..150 {
        repo.write(&format!("src/f{i:03}.rs"), "fn f() {}\n");
    }
    repo.commit("many");
    // 120 branches at HEAD, made by one git process.
    let head = repo.git(&["rev-parse", "HEAD"]);
    let creates: String = (0..120)
        .map(|i| format!("create refs/heads/topic-{i:03} {}\n", head.trim()))
        .collect();
    let out = crate::common::run_git_with_input(&repo.root, &["update-ref", "--stdin"], &creates);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut server = Server::start(&repo.root);
    let reconcile = json!({"type": "ref/prompt", "name": "reconcile"});
    for (id, reference, name, typed, total) in [
        (1, reconcile.clone(), "spec_path", ".notarai/s", 130),
        (2, reconcile.clone(), "base_branch", "topic-", 120),
        (
            3,
            json!({"type": "ref/prompt", "name": "bootstrap"}),
            "path",
            "dirs/",
            130,
        ),
        (
            4,
            json!({"type": "ref/resource", "uri": "notarai://governing/{path}"}),
            "path",
            "src/f",
            150,
        ),
    ] {
        let completion = complete(&mut server, id, reference, name, typed);
        assert_eq!(
            completion["values"].as_array().unwrap().len(),
            100,
            "{name}"
        );
        assert_eq!(completion["total"], total, "{name}");
        assert_eq!(completion["hasMore"], true, "{name}");
    }
    server.finish();
}

/// A `spec_path` must name a spec of this project (a typo is refused, not
/// turned into a pass over a spec that does not exist), and the folder of
/// `bootstrap` must not be a file; a folder not made yet is fine.
#[test]
fn a_spec_path_naming_no_spec_and_a_file_for_a_folder_are_refused() {
    let repo = repo();
    let mut server = Server::start(&repo.root);
    let refused = [
        (
            json!({"name": "reconcile", "arguments": {"spec_path": ".notarai/auht.spec.yaml"}}),
            "no spec file of this project",
        ),
        (
            json!({"name": "bootstrap", "arguments": {"path": "src/auth/login/mod.rs"}}),
            "a file, not a folder",
        ),
    ];
    for (i, (params, message)) in refused.iter().enumerate() {
        let answer = server.request(1 + i as i64, "prompts/get", params.clone());
        assert_eq!(answer["error"]["code"], -32602, "{params}: {answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains(message),
            "{answer}"
        );
        assert!(
            answer["error"]["data"]["hint"]
                .as_str()
                .unwrap()
                .contains("completion/complete"),
            "{answer}"
        );
    }
    for (id, params) in [
        (
            10,
            json!({"name": "reconcile", "arguments": {"spec_path": ".notarai/auth.spec.yaml"}}),
        ),
        (
            11,
            json!({"name": "bootstrap", "arguments": {"path": "src/auth"}}),
        ),
        (
            12,
            json!({"name": "bootstrap", "arguments": {"path": "src/billing"}}),
        ),
    ] {
        let answer = server.request(id, "prompts/get", params.clone());
        assert!(
            answer["result"]["messages"].is_array(),
            "{params}: {answer}"
        );
    }
    server.finish();
}
