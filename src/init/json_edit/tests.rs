use super::edit::render;
use super::*;
use serde_json::json;

#[test]
fn duplicate_keys_are_refused_with_their_position() {
    let err = parse("{\n  \"a\": 1,\n  \"b\": {\"x\": 1, \"\\u0078\": 2}\n}").unwrap_err();
    let ReadError::Syntax {
        line,
        column,
        message,
    } = err;
    assert_eq!((line, column), (3, 17));
    assert!(message.contains("duplicate key `x`"), "{message}");
}

#[test]
fn inserts_keep_every_other_byte_and_follow_the_layout() {
    let text = "{\n    \"n\": 12345678901234567890123,\n    \"s\": {}\n}\n";
    let mut e = Editor::new(text).unwrap();
    e.insert_member(&["s"], "k", &json!({"a": [1]}));
    assert_eq!(
        e.text(),
        "{\n    \"n\": 12345678901234567890123,\n    \"s\": {\n        \"k\": {\n            \"a\": [\n                1\n            ]\n        }\n    }\n}\n"
    );
    e.insert_member(&[], "z", &json!(true));
    assert!(
        e.text().ends_with("    },\n    \"z\": true\n}\n"),
        "{}",
        e.text()
    );

    let mut e = Editor::new(r#"{"a": 1.50, "b": [1]}"#).unwrap();
    e.insert_member(&[], "c", &json!({"d": 2}));
    let arr = e.at(&["b"]).unwrap().clone();
    e.append_item(&arr, &json!("x"));
    assert_eq!(e.text(), r#"{"a": 1.50, "b": [1, "x"], "c": {"d":2}}"#);
}

#[test]
fn remove_and_replace() {
    let mut e = Editor::new("[1, 2, 3]").unwrap();
    let root = e.root().clone();
    e.remove_item(&root, 1);
    assert_eq!(e.text(), "[1, 3]");
    let root = e.root().clone();
    e.remove_item(&root, 1);
    assert_eq!(e.text(), "[1]");
    let mut e = Editor::new("{\"m\": \"Write\"}").unwrap();
    let m = e.at(&["m"]).unwrap().clone();
    e.replace(&m, &json!("Write|Edit"));
    assert_eq!(e.text(), "{\"m\": \"Write|Edit\"}");
}

#[test]
fn jsonc_comments_and_trailing_commas_survive_edits() {
    let text = "// top\n{\n  /* a */ \"a\": 1, // after a\n  \"s\": { // only a comment\n  },\n}\n";
    assert!(parse(text).is_err());
    let mut e = Editor::new_jsonc(text).unwrap();
    e.insert_member(&["s"], "n", &json!({"x": "//not a comment"}));
    e.insert_member(&[], "z", &json!([1]));
    let v: Value = serde_json::from_str(&blank_comments(e.text()).unwrap()).unwrap();
    assert_eq!(v["s"]["n"]["x"], "//not a comment");
    assert_eq!(v["z"], json!([1]));
    assert!(e.text().contains("// only a comment") && e.text().contains("/* a */"));
    assert!(e.remove_member(&[], "z"));
    assert!(e.remove_member(&["s"], "n"));
    assert_eq!(e.text(), text);
    let err = parse_jsonc("{\n  /* open\n}").unwrap_err();
    let ReadError::Syntax { line, column, .. } = err;
    assert_eq!((line, column), (2, 3));
}

#[test]
fn a_comment_after_the_last_entry_stays_with_it() {
    for (text, expected) in [
        (
            "{\n  \"b\": 1 // b's\n}\n",
            "{\n  \"b\": 1, // b's\n  \"k\": true\n}\n",
        ),
        (
            "{\r\n  \"b\": {\"c\": \"y\"} /* b's */\r\n}",
            "{\r\n  \"b\": {\"c\": \"y\"}, /* b's */\r\n  \"k\": true\r\n}",
        ),
        (
            "{\r\n  \"b\": 1 // b's\r\n}",
            "{\r\n  \"b\": 1, // b's\r\n  \"k\": true\r\n}",
        ),
        (
            "{\n\t\"b\": \"//\" /* x */ // y\n\t/* z */\n}",
            "{\n\t\"b\": \"//\", /* x */ // y\n\t\"k\": true\n\t/* z */\n}",
        ),
    ] {
        let mut e = Editor::new_jsonc(text).unwrap();
        e.insert_member(&[], "k", &json!(true));
        assert_eq!(e.text(), expected, "{text:?}");
        assert!(e.remove_member(&[], "k"));
        assert_eq!(e.text(), text);
    }
}

#[test]
fn a_comma_after_a_comment_on_the_next_line_is_the_last_entrys() {
    // `"b": 1 // c` then `,` on the next line: no second comma.
    let text = "{\n  \"b\": 1 // c\n  ,\n}";
    let mut e = Editor::new_jsonc(text).unwrap();
    e.insert_member(&[], "k", &json!(true));
    let v: Value = serde_json::from_str(&blank_comments(e.text()).unwrap()).unwrap();
    assert_eq!(v, json!({"b": 1, "k": true}));
    assert!(e.remove_member(&[], "k"));
    assert_eq!(e.text(), text);
}

#[test]
fn removing_the_only_entry_keeps_the_comments_before_it() {
    for (text, expected) in [
        (
            "{\n  // mine\n  \"m\": {\"x\": 1}\n}\n",
            "{\n  // mine\n}\n",
        ),
        ("{\r\n  /* a */\r\n  \"m\": 1\r\n}", "{\r\n  /* a */\r\n}"),
        ("{ /* a */ \"m\": 1 }", "{ /* a */ }"),
        ("{\n  \"m\": 1, // m\n}", "{ // m\n}"),
        ("{\"m\": [1,],}", "{}"),
        ("{\n  \"m\": 1\n}", "{}"),
    ] {
        let mut e = Editor::new_jsonc(text).unwrap();
        assert!(e.remove_member(&[], "m"));
        assert_eq!(e.text(), expected, "{text:?}");
    }
}

#[test]
fn removing_an_entry_before_another_keeps_the_others_comments() {
    for (text, key, expected) in [
        (
            "{\n\t\"s\": {},\n\t/* theme */\n\t\"theme\": \"x\"\n}",
            "s",
            "{\n\t/* theme */\n\t\"theme\": \"x\"\n}",
        ),
        (
            "{\r\n  \"n\": 1, // n's\r\n  // mine\r\n  \"m\": 2\r\n}",
            "n",
            "{\r\n  // mine\r\n  \"m\": 2\r\n}",
        ),
        (
            "{\"n\": 1 /* n */, /* m */ \"m\": 2}",
            "n",
            "{/* m */ \"m\": 2}",
        ),
        ("{\"n\": \",\", \"m\": 2}", "n", "{\"m\": 2}"),
        (
            "{\"n\": {} /* n */ , \"m\": 2}",
            "m",
            "{\"n\": {} /* n */ }",
        ),
    ] {
        let mut e = Editor::new_jsonc(text).unwrap();
        assert!(e.remove_member(&[], key));
        assert_eq!(e.text(), expected, "{text:?}");
    }
    let mut e = Editor::new("{\n  \"n\": 1,\n  \"m\": 2\n}").unwrap();
    assert!(e.remove_member(&[], "n"));
    assert_eq!(e.text(), "{\n  \"m\": 2\n}");
}

#[test]
fn an_entry_after_a_trailing_comma_and_comment_gets_its_own_line() {
    for text in [
        "{\n  \"a\": 1, // mine\n}\n",
        "{\r\n  \"a\": 1,\r\n}",
        "{\"a\": 1,}",
        "[\n  1, /* c */ 2, // two\n]",
    ] {
        let mut e = Editor::new_jsonc(text).unwrap();
        let root = e.root().clone();
        match root.kind {
            Kind::Object(_) => e.insert_member(&[], "k", &json!(true)),
            _ => e.append_item(&root, &json!(3)),
        }
        if text.contains("mine") {
            assert_eq!(e.text(), "{\n  \"a\": 1, // mine\n  \"k\": true,\n}\n");
        }
        let root = e.root().clone();
        match root.kind {
            Kind::Object(_) => assert!(e.remove_member(&[], "k")),
            _ => e.remove_item(&root, 2),
        }
        assert_eq!(e.text(), text);
    }
}

#[test]
fn remove_is_the_inverse_of_insert() {
    for text in [
        "{}",
        "{}\n",
        "{\"a\": 1}",
        "{\n    \"a\": 1\n}\n",
        "{\r\n\t\"a\": {\"b\": []}\r\n}",
    ] {
        let mut e = Editor::new(text).unwrap();
        e.insert_member(
            &[],
            "notarai",
            &json!({"command": "notarai", "args": ["mcp"]}),
        );
        assert!(e.remove_member(&[], "notarai"));
        assert_eq!(e.text(), text);
    }
    let mut e = Editor::new("[1]").unwrap();
    let root = e.root().clone();
    e.append_item(&root, &json!({"a": 1}));
    let root = e.root().clone();
    e.remove_item(&root, 1);
    assert_eq!(e.text(), "[1]");
    let mut e = Editor::new("[]").unwrap();
    let root = e.root().clone();
    e.append_item(&root, &json!(2));
    let root = e.root().clone();
    e.remove_item(&root, 0);
    assert_eq!(e.text(), "[]");
}

#[test]
fn crlf_and_tabs_are_followed() {
    let mut e = Editor::new("{\r\n\t\"a\": 1\r\n}").unwrap();
    e.insert_member(&[], "b", &json!([2]));
    assert_eq!(
        e.text(),
        "{\r\n\t\"a\": 1,\r\n\t\"b\": [\r\n\t\t2\r\n\t]\r\n}"
    );
}

/// Small JSON values: nested objects and arrays of scalars.
fn value() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "[a-z\"\\\\é]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            proptest::collection::btree_map("[a-z]{1,3}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// `text` and `new` differ by one inserted run of bytes.
fn one_insertion(text: &str, new: &str) -> bool {
    let prefix = text
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let suffix = text
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    prefix + suffix >= text.len()
}

proptest::proptest! {
    /// Inserting a member into any object or appending to any array, in
    /// any layout, gives the expected value and touches no other byte.
    #[test]
    fn edits_are_one_insertion_with_the_expected_value(
        doc in proptest::collection::btree_map("[a-z]{1,3}", value(), 0..4),
        layout in 0..4usize,
        added in value(),
    ) {
        let doc = Value::Object(doc.into_iter().collect());
        let text = match layout {
            0 => serde_json::to_string(&doc).unwrap(),
            1 => serde_json::to_string_pretty(&doc).unwrap(),
            2 => render(&doc, "    ", "", "\n"),
            _ => render(&doc, "\t", "", "\r\n"),
        };
        let mut editor = Editor::new(&text).unwrap();
        editor.insert_member(&[], "zz_new", &added);
        proptest::prop_assert!(one_insertion(&text, editor.text()), "{}", editor.text());
        let mut expected = doc.clone();
        expected.as_object_mut().unwrap().insert("zz_new".into(), added.clone());
        let got: Value = serde_json::from_str(editor.text()).unwrap();
        proptest::prop_assert_eq!(got, expected);

        if let Some((key, array)) = doc.as_object().unwrap().iter().find(|(_, v)| v.is_array()) {
            let mut editor = Editor::new(&text).unwrap();
            let node = editor.at(&[key]).unwrap().clone();
            editor.append_item(&node, &added);
            proptest::prop_assert!(one_insertion(&text, editor.text()));
            let got: Value = serde_json::from_str(editor.text()).unwrap();
            let mut items = array.as_array().unwrap().clone();
            items.push(added.clone());
            proptest::prop_assert_eq!(&got[key], &Value::Array(items));
        }
    }

    /// JSON with comments and trailing commas, in any layout: inserting a
    /// member into any object and removing it again gives back every
    /// byte, and the comments survive in between.
    #[test]
    fn jsonc_insert_then_remove_is_byte_identical(
        doc in proptest::collection::btree_map("[a-z]{1,3}", value(), 1..4),
        layout in 0..3usize,
        trailing in proptest::bool::ANY,
        comment in proptest::bool::ANY,
        added in value(),
    ) {
        let doc = Value::Object(doc.into_iter().collect());
        let mut text = match layout {
            0 => serde_json::to_string(&doc).unwrap(),
            1 => serde_json::to_string_pretty(&doc).unwrap(),
            _ => render(&doc, "\t", "", "\r\n"),
        };
        let eol = if layout == 2 { "\r\n" } else { "\n" };
        if trailing && layout > 0 {
            // A trailing comma (and a comment) after the last member.
            let close = text.rfind('}').unwrap();
            let before = text[..close].trim_end().len();
            let note = if comment { " // last" } else { "" };
            text = format!("{},{note}{eol}}}", &text[..before]);
        }
        if comment {
            text = format!("/* head */ {text}{eol}// tail{eol}");
        }
        let mut editor = Editor::new_jsonc(&text).unwrap();
        editor.insert_member(&[], "zz_new", &added);
        let got: Value =
            serde_json::from_str(&blank_comments(editor.text()).unwrap()).unwrap();
        proptest::prop_assert_eq!(&got["zz_new"], &added);
        proptest::prop_assert_eq!(editor.text().contains("// tail"), comment);
        proptest::prop_assert!(editor.remove_member(&[], "zz_new"));
        proptest::prop_assert_eq!(editor.text(), text.as_str());
    }
}
