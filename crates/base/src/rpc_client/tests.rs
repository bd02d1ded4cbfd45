//! The client against small servers written in `sh` (`cat` echoes a
//! request back as its own answer).

use super::*;

/// A client over `sh -c script`.
fn sh(script: &str, options: SpawnOptions) -> Client {
    let mut command = Command::new("sh");
    command.args(["-c", script]);
    Client::spawn(command, options).unwrap()
}

fn quick() -> SpawnOptions {
    SpawnOptions {
        timeout: Duration::from_secs(20),
        ..SpawnOptions::default()
    }
}

#[test]
fn a_request_is_one_json_line_and_its_answer_is_found_by_id() {
    // `cat` echoes each line: the request comes back as its own answer.
    let mut client = sh("cat", quick());
    client
        .send(&serde_json::json!({"jsonrpc": "2.0", "method": "note"}))
        .unwrap();
    let answer = client
        .ask("ping", Some(serde_json::json!({"a": 1})))
        .unwrap();
    assert_eq!(
        answer.message.value,
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"a": 1}})
    );
    assert_eq!(answer.others.len(), 1);
    assert!(answer.others[0].is_from_server());
    let answer = client.ask::<()>("next", None).unwrap();
    assert_eq!(answer.message.id(), Some(&Value::from(2)));
    assert_eq!(answer.message.value.get("params"), None);
    assert_eq!(answer.message.bytes, answer.message.value.to_string().len());
}

#[test]
fn silence_is_a_timeout_an_exit_is_closed_and_a_log_line_is_not_protocol() {
    let mut silent = sh(
        "sleep 30",
        SpawnOptions {
            timeout: Duration::from_millis(50),
            ..SpawnOptions::default()
        },
    );
    assert!(matches!(
        silent.ask::<()>("ping", None),
        Err(ClientError::Timeout { after }) if after == Duration::from_millis(50)
    ));
    // Gone before or after the request was written: the write fails, or
    // the read finds stdout closed.
    let mut gone = sh("echo bye >&2", quick());
    assert!(matches!(
        gone.ask::<()>("ping", None),
        Err(ClientError::Closed | ClientError::Write(_))
    ));
    assert_eq!(gone.stderr_at_end(Duration::from_secs(20)), "bye\n");
    assert!(gone.kill().is_some_and(|s| s.success()));
    let mut chatty = sh("echo starting up; cat", quick());
    match chatty.ask::<()>("ping", None) {
        Err(ClientError::NotProtocol { line }) => assert_eq!(line, "starting up"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_line_over_the_limit_is_not_protocol_and_reading_stops() {
    let mut client = sh(
        "printf '%s\\n' '{\"id\":1,\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}'; sleep 30",
        SpawnOptions {
            max_line: 16,
            ..quick()
        },
    );
    assert!(matches!(
        client.recv(Duration::from_secs(20)),
        Err(ClientError::NotProtocol { .. })
    ));
    assert!(matches!(
        client.recv(Duration::from_secs(20)),
        Err(ClientError::Closed)
    ));
}

#[test]
fn the_stderr_tail_keeps_the_end() {
    let client = sh(
        "printf 'abcdefgh' >&2",
        SpawnOptions {
            stderr: StderrTo::Keep { tail: 3 },
            ..quick()
        },
    );
    assert_eq!(client.stderr_at_end(Duration::from_secs(20)), "fgh");
}

#[cfg(unix)]
#[test]
fn kill_stops_the_whole_group_of_its_own() {
    // The script starts `sleep` in the background, which holds the stdout
    // pipe open as long as it lives.
    let mut client = sh(
        "sleep 60 & echo started; wait",
        SpawnOptions {
            own_group: true,
            ..quick()
        },
    );
    let line = client.recv_line(Duration::from_secs(20)).unwrap();
    assert_eq!(line.bytes, b"started");
    assert!(!client.exited());
    client.kill();
    // The group's `sleep` is dead too: nothing holds stdout open any more
    // (a `sleep` left running would hold it for a minute).
    assert!(matches!(
        client.recv_line(Duration::from_secs(20)),
        Err(ClientError::Closed)
    ));
}

#[test]
fn pages_follow_next_cursor_to_the_last_page() {
    // A server in sh: the page is the cursor it was sent ("2", "3"),
    // 1 without one; pages 1 and 2 name the next, page 3 none.
    let script = r#"
while read -r line; do
  case $line in
    *'"cursor":"2"'*) n=2; next=',"next_cursor":"3"' ;;
    *'"cursor":"3"'*) n=3; next='' ;;
    *) n=1; next=',"next_cursor":"2"' ;;
  esac
  id=${line#*'"id":'}; id=${id%%,*}
  printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"p"}],"structuredContent":{"page":%d%s}}}\n' "$id" "$n" "$next"
done"#;
    let mut client = sh(script, quick());
    let pages = client.pages("t", &Map::new(), 10).unwrap();
    let seen: Vec<Value> = pages
        .iter()
        .map(|p| p.result.payload().unwrap()["page"].clone())
        .collect();
    assert_eq!(seen, [1, 2, 3].map(Value::from));
    let mut client = sh(script, quick());
    assert!(matches!(
        client.pages("t", &Map::new(), 2),
        Err(ClientError::Tool { .. })
    ));
}

#[test]
fn a_blank_line_is_not_protocol_unless_skipped() {
    let mut strict = sh("echo; cat", quick());
    match strict.ask::<()>("ping", None) {
        Err(ClientError::NotProtocol { line }) => assert_eq!(line, ""),
        other => panic!("{other:?}"),
    }
    let mut lenient = sh(
        "echo; cat",
        SpawnOptions {
            skip_blank_lines: true,
            ..quick()
        },
    );
    let answer = lenient.ask::<()>("ping", None).unwrap();
    assert_eq!(answer.message.id(), Some(&Value::from(1)));
}
