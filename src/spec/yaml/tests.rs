use super::*;

fn root(text: &str) -> Node {
    parse(text).unwrap().unwrap()
}

fn text(n: &Node) -> Option<&str> {
    match &n.kind {
        Kind::Scalar(Scalar::Str(s), _) => Some(s),
        _ => None,
    }
}

#[test]
fn positions_are_one_based() {
    let n = root("a: 1\nbb:\n  - x\n  - 'y'\n");
    assert_eq!(n.key("bb").unwrap().pos, Pos { line: 2, column: 1 });
    let item = n.pointer("/bb/1").unwrap();
    assert_eq!(item.pos, Pos { line: 4, column: 5 });
    assert_eq!(text(item), Some("y"));
    assert_eq!(text(n.pointer("/bb/0").unwrap()), Some("x"));
}

#[test]
fn core_schema_resolution() {
    let n =
        root("a: 0.7\nb: '0.7'\nc: ~\nd: true\ne: 12\nf: 1e3\ng: 2024-01-02\nh: yes\ni: !!str 5\n");
    let s = |k: &str| match &n.get(k).unwrap().kind {
        Kind::Scalar(s, _) => s.clone(),
        _ => panic!(),
    };
    assert_eq!(s("a"), Scalar::Float(0.7));
    assert_eq!(s("b"), Scalar::Str("0.7".into()));
    assert_eq!(s("c"), Scalar::Null);
    assert_eq!(s("d"), Scalar::Bool(true));
    assert_eq!(s("e"), Scalar::Int(12));
    assert_eq!(s("f"), Scalar::Float(1000.0));
    assert_eq!(s("g"), Scalar::Str("2024-01-02".into()));
    assert_eq!(s("h"), Scalar::Str("yes".into()));
    assert_eq!(s("i"), Scalar::Str("5".into()));
}

#[test]
fn aliases_expand_and_bombs_stop() {
    let n = root("a: &x [1, 2]\nb: *x\n");
    assert!(n.pointer("/b/1").is_some());
    let mut bomb = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for i in 1..10 {
        let prev = (b'a' + i - 1) as char;
        let cur = (b'a' + i) as char;
        bomb.push_str(&format!("{cur}: &{cur} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
    }
    let err = parse(&bomb).unwrap_err();
    assert!(err.message.contains("more than"), "{err:?}");
}

#[test]
fn limits_and_shapes() {
    assert!(parse(&"[".repeat(10_000)).is_err());
    assert!(parse("a:\n").unwrap().is_some());
    assert_eq!(parse("# only a comment\n").unwrap(), None);
    let e = parse("a: 1\na: 2\n").unwrap_err();
    assert_eq!((e.pos.line, e.pos.column), (2, 1));
    assert!(parse("a: 1\n---\nb: 2\n").is_err());
    assert!(parse("a: !custom x\n").is_err());
    assert!(parse(&"x".repeat(MAX_BYTES + 1)).is_err());
}
