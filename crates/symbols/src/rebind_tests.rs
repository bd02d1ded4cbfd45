//! Tests of `rebind.rs`.

use super::*;

#[test]
fn the_last_segment_of_each_languages_names() {
    assert_eq!(last_segment("check"), "check");
    assert_eq!(last_segment("Session.refresh"), "refresh");
    assert_eq!(last_segment("Session::refresh"), "refresh");
    assert_eq!(last_segment("<Session as Drop>::drop"), "drop");
    assert_eq!(last_segment("(*Server).Serve"), "Serve");
    assert_eq!(last_segment("tests::a.b"), "b");
}

#[test]
fn python_rebindings_count_and_uses_do_not() {
    let yes = [
        "check = lambda user: True",
        "check: Callable = allow",
        "a, check = 1, allow",
        "Session.refresh = lambda self: 2",
        "self.refresh = None",
        "globals()['check'] = allow",
        "setattr(Session, 'refresh', f)",
        "from auth.allow import check",
        "from os.path import *",
        "import allow as check",
        "def check(user): return True",
        "    check += 1",
        "del check",
        "for check in hooks:",
        "if (check := allow):",
        "Session.__dict__['refresh'] = f",
        "obj['check'] = 1",
    ];
    for line in yes {
        let name = if line.contains("refresh") {
            "refresh"
        } else {
            "check"
        };
        assert!(rebinds(Lang::Python, line, name), "{line}");
    }
    let no = [
        "result = check(user)",
        "if check(user) == True:",
        "run(check=True)",
        "# check = lambda user: True",
        "print('check = 1')",
        "x = {'check': 1}",
        "checked = 1",
        "return check",
    ];
    for line in no {
        assert!(!rebinds(Lang::Python, line, "check"), "{line}");
    }
}

#[test]
fn javascript_rebindings_count_and_uses_do_not() {
    let yes = [
        "var isAllowed = () => true;",
        "let isAllowed;",
        "export const isAllowed = () => true;",
        "isAllowed = function () { return true; };",
        "let x = 1, isAllowed;",
        "window.isAllowed = () => true;",
        "Session.prototype.refresh = function () {};",
        "Session.prototype['refresh'] = f;",
        "[a, isAllowed] = pair;",
        "({ isAllowed } = mod);",
        "isAllowed ||= allowAll;",
        "function isAllowed() { return true; }",
        "function* isAllowed() {}",
        "import { allow as isAllowed } from './allow';",
        "import isAllowed from './allow';",
        "Object.defineProperty(Session.prototype, 'refresh', { value: f });",
        "Object.assign(Session.prototype, { refresh });",
    ];
    for line in yes {
        let name = if line.contains("refresh") {
            "refresh"
        } else {
            "isAllowed"
        };
        assert!(rebinds(Lang::JavaScript, line, name), "{line}");
        assert!(rebinds(Lang::TypeScript, line, name), "{line}");
    }
    let no = [
        "const ok = isAllowed({}) === true;",
        "if (isAllowed(user) == false) return;",
        "// isAllowed = () => true;",
        "const s = 'isAllowed = 1';",
        "return isAllowed;",
        "const x = [1, isAllowed];",
        "/* isAllowed = 1 */ run();",
    ];
    for line in no {
        assert!(!rebinds(Lang::JavaScript, line, "isAllowed"), "{line}");
    }
}

#[test]
fn go_binds_a_name_only_by_linkname_and_rust_never() {
    assert!(rebinds(
        Lang::Go,
        "//go:linkname Check other.check",
        "Check"
    ));
    assert!(!rebinds(Lang::Go, "var allowed = Check(true)", "Check"));
    assert!(!rebinds(
        Lang::Go,
        "Check := func() bool { return true }",
        "Check"
    ));
    assert!(!rebinds(Lang::Rust, "let refresh = 1;", "refresh"));
    // A `static mut` written in `unsafe`.
    assert!(rebinds(Lang::Rust, "unsafe { LIMIT = 7; }", "LIMIT"));
    assert!(!rebinds(Lang::Rust, "let n = LIMIT + 1;", "LIMIT"));
}

#[test]
fn nested_targets_loops_captures_and_exports_rebind() {
    for line in [
        "export const z = (foo = () => 2);",
        "export const o = { init: (foo = () => 2) };",
        "  static init = (() => { foo = () => 2; })();",
        "for (foo of [() => 2]);",
        "for await (foo of gen()) {}",
        "for (const [k, foo] in o) {}",
        "module.exports = { foo: () => 2 };",
        "exports.foo = () => 2;",
    ] {
        assert!(rebinds(Lang::TypeScript, line, "foo"), "{line}");
        assert!(rebinds(Lang::JavaScript, line, "foo"), "{line}");
    }
    for line in ["    case [foo]:", "    case {'k': foo}:", "a = foo = bar"] {
        assert!(rebinds(Lang::Python, line, "foo"), "{line}");
    }
    assert!(!rebinds(Lang::Python, "x = foo(n=1)", "foo"));
    assert!(!rebinds(Lang::JavaScript, "const y = foo() === 1;", "foo"));
}

#[test]
fn code_from_strings_rebinds_any_name_and_aliases_are_found() {
    for line in [
        "exec(\"fo\" + \"o = bar\")",
        "globals()[name] = f",
        "setattr(mod, name, f)",
        "sys.modules[__name__].__dict__.update(x)",
        "from helpers import *",
    ] {
        assert!(rebinds_any(Lang::Python, line), "{line}");
    }
    assert!(rebinds_any(Lang::JavaScript, "eval(code);"));
    assert!(!rebinds_any(Lang::JavaScript, "model.eval();"));
    for line in [
        "x = compiled(1)",
        "print(name)",
        "# exec(x)",
        "pattern = re.compile(r'x')",
        "modules = []",
    ] {
        assert!(!rebinds_any(Lang::Python, line), "{line}");
    }
    assert_eq!(alias_of(Lang::Python, "f = foo"), Some(("f", "foo")));
    assert_eq!(
        alias_of(Lang::JavaScript, "const f = foo;"),
        Some(("f", "foo"))
    );
    assert_eq!(alias_of(Lang::Python, "f = foo(1)"), None);
}

#[test]
fn red_team_round_four_rebindings_count() {
    for line in [
        "inspect.currentframe().f_globals[\"fo\" + \"o\"] = bar",
        "bar.__globals__[\"fo\" + \"o\"] = bar",
        "sys._getframe(0).f_locals.update(x)",
    ] {
        assert!(rebinds_any(Lang::Python, line), "{line}");
    }
    for line in [
        "new Function(\"fo\" + \"o = () => 2\")();",
        "Function(code)();",
        "globalThis[\"fo\" + \"o\"] = () => 2;",
        "window[name] = f;",
    ] {
        assert!(rebinds_any(Lang::JavaScript, line), "{line}");
    }
    // Controls: a `Function` type, a plain global member, Python's own
    // `Function(...)` class.
    for line in [
        "let f: Function = g;",
        "globalThis.console.log(1);",
        "self.x = 1;",
    ] {
        assert!(!rebinds_any(Lang::TypeScript, line), "{line}");
    }
    assert!(!rebinds_any(Lang::Python, "f = Function(x)"));
    for line in ["foo++;", "foo--", "++foo;", "x = --foo;"] {
        assert!(rebinds(Lang::JavaScript, line, "foo"), "{line}");
    }
    for line in ["x = foo + +y;", "i++;", "foo - -1"] {
        assert!(!rebinds(Lang::JavaScript, line, "foo"), "{line}");
    }
}
