//! The specs as MCP resources: `resources/list` (paged), the template and
//! `resources/read`, through the rmcp client over a child process and as
//! raw JSON lines; every URI that names no spec of the project is refused
//! (`-32602` with a hint) and nothing outside `.notarai/` is read.

use crate::common;

use std::collections::BTreeSet;

use common::{Repo, Server};
use rmcp::model::{PaginatedRequestParams, ReadResourceRequestParams, ResourceContents};
use serde_json::{Value, json};

fn repo() -> Repo {
    let repo = Repo::with_spec();
    repo.write(
        ".notarai/system.spec.yaml",
        "schema_version: '0.7'\nintent: |\n  The whole\n  system. It has parts.\nbehaviors:\n  - name: all\n    given: x\n    then: y\nartifacts:\n  docs:\n    - path: 'README.md'\nsubsystems:\n  - $ref: './a.spec.yaml'\n",
    );
    repo.write(".notarai/broken.spec.yaml", "schema_version: '0.7'\n");
    repo
}

async fn client(root: &std::path::Path) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    common::rmcp_client(root, &[]).await
}

#[tokio::test]
async fn rmcp_client_lists_reads_and_templates_the_specs() {
    let repo = repo();
    let client = client(&repo.root).await;
    let capabilities = client.peer_info().unwrap().capabilities.clone();
    let resources_cap = capabilities.resources.expect("resources capability");
    assert_eq!(
        resources_cap.list_changed, None,
        "no list_changed notifications"
    );
    assert_eq!(resources_cap.subscribe, None);

    let listed = client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = listed.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "notarai://spec/.notarai/a.spec.yaml",
            "notarai://spec/.notarai/broken.spec.yaml",
            "notarai://spec/.notarai/system.spec.yaml",
        ]
    );
    let system = &listed[2];
    assert_eq!(system.name, ".notarai/system.spec.yaml");
    assert_eq!(
        system.title.as_deref(),
        Some("The whole system."),
        "the first sentence, wrapped over two lines of the block scalar"
    );
    assert_eq!(system.mime_type.as_deref(), Some("application/yaml"));
    let on_disk = std::fs::read_to_string(repo.root.join(".notarai/system.spec.yaml")).unwrap();
    assert_eq!(system.size, Some(on_disk.len() as u64));
    assert_eq!(listed[0].title.as_deref(), Some("Module A"));
    assert_eq!(
        listed[1].title, None,
        "a spec that fails to load has no title"
    );

    // Every listed spec reads back byte for byte, the broken one included.
    for resource in &listed {
        let read = client
            .read_resource(ReadResourceRequestParams::new(resource.uri.clone()))
            .await
            .unwrap();
        assert_eq!(read.contents.len(), 1);
        let ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } = &read.contents[0]
        else {
            panic!("a text resource: {:?}", read.contents[0]);
        };
        assert_eq!(uri, &resource.uri);
        assert_eq!(mime_type.as_deref(), Some("application/yaml"));
        let path = resource.uri.strip_prefix("notarai://spec/").unwrap();
        assert_eq!(
            text,
            &std::fs::read_to_string(repo.root.join(path)).unwrap()
        );
    }

    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(templates.len(), 2);
    assert_eq!(templates[0].uri_template, "notarai://spec/{path}");
    assert_eq!(templates[0].mime_type.as_deref(), Some("application/yaml"));
    assert_eq!(templates[1].uri_template, "notarai://governing/{path}");
    let governing = client
        .read_resource(ReadResourceRequestParams::new(
            "notarai://governing/src/a.rs",
        ))
        .await
        .unwrap();
    let ResourceContents::TextResourceContents { text, .. } = &governing.contents[0] else {
        panic!("a text resource: {governing:?}");
    };
    let answer: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(answer["files"][0]["path"], "src/a.rs");
    assert_eq!(
        answer["files"][0]["governed_by"][0]["spec_path"], ".notarai/a.spec.yaml",
        "{answer}"
    );

    let err = client
        .read_resource(ReadResourceRequestParams::new("notarai://spec/src/a.rs"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("not a spec file"), "{err}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn three_hundred_specs_are_listed_in_bounded_pages() {
    let repo = Repo::new();
    for i in 0..300 {
        repo.spec(&format!("part{i:03}"), &[&format!("src/part{i:03}/**")]);
    }
    repo.commit("specs");
    let client = client(&repo.root).await;
    let first = client.list_resources(None).await.unwrap();
    assert_eq!(first.resources.len(), 100, "a page holds at most 100 specs");
    assert!(first.next_cursor.is_some());
    let all = client.list_all_resources().await.unwrap();
    assert_eq!(all.len(), 300);
    let unique: BTreeSet<&str> = all.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(unique.len(), 300, "no spec twice");
    let sorted: Vec<&str> = all.iter().map(|r| r.uri.as_str()).collect();
    assert!(sorted.is_sorted(), "in path order");
    assert_eq!(all[299].title.as_deref(), Some("The part299 part."));

    // A forged cursor is refused.
    let forged = client
        .list_resources(Some(
            PaginatedRequestParams::default().with_cursor(Some("00".repeat(38))),
        ))
        .await
        .unwrap_err();
    assert!(forged.to_string().contains("unknown cursor"), "{forged}");
    client.cancel().await.unwrap();
}

fn error_of(answer: &Value) -> (i64, String, String) {
    let error = &answer["error"];
    assert!(error.is_object(), "expected an error: {answer}");
    (
        error["code"].as_i64().unwrap(),
        error["message"].as_str().unwrap().to_string(),
        error["data"]["hint"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    )
}

#[test]
fn raw_lines_page_with_checked_cursors() {
    let repo = Repo::new();
    for i in 0..250 {
        repo.spec(&format!("p{i:03}"), &["src/**"]);
    }
    repo.commit("specs");
    let mut server = Server::start(&repo.root);
    let mut cursor: Option<String> = None;
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let answer = server.request(pages + 1, "resources/list", params);
        let result = &answer["result"];
        let page = result["resources"].as_array().unwrap();
        assert!(page.len() <= 100);
        seen.extend(page.iter().map(|r| r["uri"].as_str().unwrap().to_string()));
        pages += 1;
        match result["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    assert_eq!((pages, seen.len()), (3, 250));
    // A cursor of the listing before a spec was added no longer fits.
    let first = server.request(10, "resources/list", json!({}));
    let stale = first["result"]["nextCursor"].as_str().unwrap().to_string();
    repo.spec("p999", &["lib/**"]);
    let (code, message, hint) =
        error_of(&server.request(11, "resources/list", json!({"cursor": stale})));
    assert_eq!(code, -32602, "{message}");
    assert!(message.contains("changed"), "{message}");
    assert!(hint.contains("without a cursor"), "{hint}");
    // Garbage, and a cursor from another server process.
    let (code, ..) = error_of(&server.request(12, "resources/list", json!({"cursor": "x"})));
    assert_eq!(code, -32602);
    let fresh = server.request(13, "resources/list", json!({}));
    let cursor = fresh["result"]["nextCursor"].as_str().unwrap().to_string();
    server.finish();
    let mut other = Server::start(&repo.root);
    let (code, message, _) =
        error_of(&other.request(14, "resources/list", json!({"cursor": cursor})));
    assert_eq!(code, -32602, "{message}");
    // Lists that never page refuse any cursor.
    for method in ["resources/templates/list", "prompts/list", "tools/list"] {
        let (code, ..) = error_of(&other.request(15, method, json!({"cursor": "abc"})));
        assert_eq!(code, -32602, "{method}");
    }
    other.finish();
}

#[test]
fn nothing_but_a_spec_of_the_project_is_read() {
    let repo = repo();
    // A spec that is a link to a file outside, and a linked folder outside
    // holding a spec-named file.
    common::write(&repo.outside, "leak.spec.yaml", "intent: SECRET-OUTSIDE\n");
    std::os::unix::fs::symlink(
        repo.outside.join("secret.txt"),
        repo.root.join(".notarai/evil.spec.yaml"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&repo.outside, repo.root.join(".notarai/linked")).unwrap();
    let before = repo.outside_snapshot();
    let mut server = Server::start(&repo.root);
    let listed = server.request(1, "resources/list", json!({}));
    let uris: Vec<&str> = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert!(
        !uris
            .iter()
            .any(|u| u.contains("evil") || u.contains("linked")),
        "links are not listed: {uris:?}"
    );
    let refused = [
        ("notarai://spec/../../etc/passwd", "climbs out"),
        ("notarai://spec/%2E%2E/%2E%2E/etc/passwd", "climbs out"),
        ("notarai://spec//etc/passwd", "absolute"),
        ("notarai://spec/src/a.rs", "not a spec file"),
        (
            "notarai://spec/.notarai/.cache/x.spec.yaml",
            "not a spec file",
        ),
        ("notarai://spec/.notarai/nope.spec.yaml", "no spec file"),
        ("notarai://spec/.notarai/evil.spec.yaml", "symbolic link"),
        (
            "notarai://spec/.notarai/linked/leak.spec.yaml",
            "symbolic link",
        ),
        ("file:///etc/passwd", "not a notarai spec URI"),
        (
            "notarai://other/.notarai/a.spec.yaml",
            "not a notarai spec URI",
        ),
        ("notarai://spec/%ff", "not a notarai spec URI"),
    ];
    for (i, (uri, why)) in refused.iter().enumerate() {
        let answer = server.request(10 + i as i64, "resources/read", json!({"uri": uri}));
        let (code, message, hint) = error_of(&answer);
        // A spec that is not there is the revision's own "resource not
        // found" (`-32002` on the legacy revisions); anything else the
        // caller's invalid params.
        let expected = match *why {
            "no spec file" | "symbolic link" => -32002,
            _ => -32602,
        };
        assert_eq!(code, expected, "{uri}: {answer}");
        assert!(message.contains(why), "{uri}: {message}");
        assert_eq!(
            message.contains("link"),
            *why == "symbolic link",
            "a link is named only when there is one: {uri}: {message}"
        );
        assert!(
            hint.contains("notarai://spec/") || hint.contains("resources/list"),
            "{uri}: {hint}"
        );
        assert!(
            !answer.to_string().contains("SECRET")
                && !answer.to_string().contains("outside the root")
        );
    }
    // A FIFO named like a spec is refused without being opened (no hang),
    // an oversized spec is refused before it is read.
    let fifo = repo.root.join(".notarai/fifo.spec.yaml");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0);
    repo.write(".notarai/huge.spec.yaml", "#".repeat(2 * 1024 * 1024));
    for (id, name, why) in [(30, "fifo", "FIFO"), (31, "huge", "larger than")] {
        let uri = format!("notarai://spec/.notarai/{name}.spec.yaml");
        let answer = server.request(id, "resources/read", json!({"uri": uri}));
        let (code, message, _) = error_of(&answer);
        assert_eq!(code, -32602, "{answer}");
        assert!(message.contains(why), "{message}");
    }
    // A request without a uri is malformed params.
    let (code, ..) = error_of(&server.request(40, "resources/read", json!({})));
    assert_eq!(code, -32602);
    // And the server still serves.
    let ok = server.request(
        41,
        "resources/read",
        json!({"uri": "notarai://spec/.notarai/a.spec.yaml"}),
    );
    assert_eq!(ok["result"]["contents"][0]["text"], common::SPEC_A);
    server.finish();
    assert_eq!(repo.outside_snapshot(), before);
}
