//! `notarai lint` (issue 41): each rule fires on the smallest change that
//! breaks it and stays silent on a clean project; severities come from
//! `.notarai/check.yaml`; `check` runs the lint rules it makes errors.

use serde_json::Value;

use crate::common::{Repo, notarai, stdout};

const SYSTEM: &str = "schema_version: '0.8'
intent: The shop sells books to its readers online.
behaviors:
  - name: browse
    given: a reader on the home page
    then: the books in stock are listed
subsystems:
  - $ref: ./cart.spec.yaml
artifacts:
  docs:
    - path: README.md
";

const CART: &str = "schema_version: '0.8'
intent: The cart keeps what a reader is about to buy.
behaviors:
  - name: add
    given: a book in stock
    then: the cart holds one more copy
    tested_by:
      - path: tests/cart_test.py
constraints:
  - the cart never holds more than 99 copies
artifacts:
  code:
    - path: 'src/cart.py#Cart.add'
    - path: src/util.py
";

/// A project on which lint finds nothing.
fn clean() -> Repo {
    let repo = Repo::new();
    repo.write(".notarai/system.spec.yaml", SYSTEM);
    repo.write(".notarai/cart.spec.yaml", CART);
    repo.write("README.md", "# Shop\n");
    repo.write(
        "src/cart.py",
        "class Cart:\n    def add(self, book):\n        return book\n",
    );
    repo.write("src/util.py", "def helper():\n    return 1\n");
    repo.write("tests/cart_test.py", "def test_add():\n    assert True\n");
    repo.write("docs/notes.txt", "notes\n");
    repo.commit("init");
    repo
}

/// `notarai lint --format json`: exit code and the findings' codes.
fn lint(repo: &Repo) -> (i32, Vec<String>, Value) {
    let out = notarai(&repo.root, &["lint", "--format", "json"], b"");
    let report: Value =
        serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)));
    let codes = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect();
    (out.status.code().unwrap(), codes, report)
}

#[test]
fn a_clean_project_lints_clean() {
    let repo = clean();
    let (code, codes, report) = lint(&repo);
    assert_eq!(code, 0, "{report}");
    assert!(codes.is_empty(), "{report}");
    assert_eq!(report["summary"]["specs"], 2);
    let text = stdout(&notarai(&repo.root, &["lint"], b""));
    assert_eq!(text, "PASS: 2 specs; 0 errors, 0 warnings, 0 notices\n");
}

/// Each rule: the change that makes it fire, and the code and exit code
/// expected. The clean project (no finding at all) is each one's silence.
#[test]
fn each_rule_fires_on_its_own_fault() {
    type Change = fn(&Repo);
    let cases: [(&str, i32, Change); 14] = [
        ("N001", 1, |r| {
            r.write(
                ".notarai/cart.spec.yaml",
                CART.replace("intent:", "intnet:"),
            )
        }),
        ("N002", 1, |r| {
            r.write(
                ".notarai/cart.spec.yaml",
                format!("{CART}subsystems:\n  - $ref: ./system.spec.yaml\n"),
            )
        }),
        ("N003", 0, |r| {
            r.write(
                ".notarai/cart.spec.yaml",
                format!("{CART}  docs:\n    - path: 'gone/**'\n"),
            )
        }),
        ("N004", 0, |r| {
            r.write(
                ".notarai/cart.spec.yaml",
                CART.replace("#Cart.add", "#Cart.remove"),
            )
        }),
        ("N005", 0, |r| {
            r.write(
                ".notarai/cart.spec.yaml",
                CART.replace("tests/cart_test.py", "tests/gone_test.py"),
            )
        }),
        ("N006", 0, |r| {
            r.write(
                ".notarai/cart.spec.yaml",
                format!("{CART}subsystems:\n  - $ref: ./line.spec.yaml\n"),
            );
            r.write(
                ".notarai/line.spec.yaml",
                CART.replace("src/cart.py#Cart.add", "src/line.py")
                    .replace("    - path: src/util.py\n", ""),
            );
            r.write("src/line.py", "x = 1\n");
        }),
        ("N007", 0, |r| {
            r.write(
                ".notarai/system.spec.yaml",
                SYSTEM.replace(
                    "  - $ref: ./cart.spec.yaml\n",
                    "  - $ref: ./cart.spec.yaml\n  - $ref: ./style.spec.yaml\n",
                ),
            );
            r.write(".notarai/style.spec.yaml", "schema_version: '0.8'\ncross_cutting: true\nintent: Every module follows the house style.\nbehaviors:\n  - name: lint\n    given: any change\n    then: the linter passes\n");
        }),
        ("N008", 0, |r| {
            r.write(
                ".notarai/orphan.spec.yaml",
                CART.replace("src/cart.py#Cart.add", "src/other.py")
                    .replace("    - path: src/util.py\n", ""),
            );
            r.write("src/other.py", "x = 1\n");
        }),
        ("N401", 0, |r| {
            r.write(
                ".notarai/system.spec.yaml",
                SYSTEM.replace(
                    "    - path: README.md\n",
                    "    - path: README.md\n  code:\n    - path: src/util.py\n",
                ),
            )
        }),
        ("N402", 0, |r| {
            r.write(
                ".notarai/cart.spec.yaml",
                CART.replace("then: the cart holds one more copy", "then: ''"),
            )
        }),
        ("N403", 0, |r| {
            r.write(
                ".notarai/cart.spec.yaml",
                CART.replace("The cart keeps what a reader is about to buy.", "TODO"),
            )
        }),
        ("N403", 0, |r| {
            r.write(
                ".notarai/cart.spec.yaml",
                CART.replace("The cart keeps what a reader is about to buy.", "Cart."),
            )
        }),
        ("N404", 0, |r| {
            r.write(
                ".notarai/cart.spec.yaml",
                CART.replace("    tested_by:\n      - path: tests/cart_test.py\n", "")
                    .replace("  code:", "  docs:"),
            )
        }),
        ("N405", 0, |r| {
            r.write("docs/cart.txt", "the cart\n");
            r.write(
                ".notarai/cart.spec.yaml",
                CART.replace("src/util.py", "'docs/cart.txt#Cart'"),
            );
        }),
    ];
    for (expected, exit, change) in cases {
        let repo = clean();
        change(&repo);
        let (code, codes, report) = lint(&repo);
        assert!(
            codes.contains(&expected.to_string()),
            "{expected}: {report}"
        );
        assert_eq!(code, exit, "{expected}: {report}");
        let text = stdout(&notarai(&repo.root, &["lint"], b""));
        let name = notarai::rules::Code::parse(expected).unwrap().name();
        assert!(text.contains(&format!("[{expected} {name}]")), "{text}");
    }
}

#[test]
fn a_shared_role_accepts_an_overlap() {
    let repo = clean();
    repo.write(
        ".notarai/system.spec.yaml",
        SYSTEM.replace(
            "    - path: README.md\n",
            "    - path: README.md\n  code:\n    - path: src/util.py\n      role: shared\n",
        ),
    );
    let (_, codes, report) = lint(&repo);
    assert!(!codes.contains(&"N401".to_string()), "{report}");
}

#[test]
fn check_yaml_sets_lint_severities_and_check_runs_lint_errors() {
    let repo = clean();
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write(
        ".notarai/cart.spec.yaml",
        CART.replace("The cart keeps what a reader is about to buy.", "TODO"),
    );
    repo.commit("placeholder");
    // By default a warning: lint passes, check does not run it.
    let (code, codes, _) = lint(&repo);
    assert_eq!((code, codes.contains(&"N403".to_string())), (0, true));
    let check = |repo: &Repo| {
        let out = notarai(
            &repo.root,
            &["check", "--base", "main", "--format", "json"],
            b"",
        );
        let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["code"].as_str().unwrap().to_string(),
                    f["severity"].as_str().unwrap().to_string(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert!(!check(&repo).iter().any(|(c, _)| c == "N403"));
    // Made an error: lint fails, and check runs it.
    repo.write(
        ".notarai/check.yaml",
        "rules:\n  placeholder-intent: error\n",
    );
    let (code, _, report) = lint(&repo);
    assert_eq!(code, 1, "{report}");
    assert!(
        check(&repo).contains(&("N403".to_string(), "error".to_string())),
        "{:?}",
        check(&repo)
    );
    // Off: gone from both.
    repo.write(".notarai/check.yaml", "rules:\n  N403: off\n");
    let (code, codes, _) = lint(&repo);
    assert_eq!((code, codes.contains(&"N403".to_string())), (0, false));
}
