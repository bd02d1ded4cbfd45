//! One configuration per language: the grammar, notarai's own outline query
//! (`queries/<lang>.scm`, data beside the code), and the few facts the
//! outline needs about the grammar's node kinds. Each is compiled once, on
//! first use, and only when its cargo feature is on.

/// A language the outline knows, chosen from a file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    /// `.rs`
    Rust,
    /// `.ts`, `.mts`, `.cts`
    TypeScript,
    /// `.tsx`
    Tsx,
    /// `.js`, `.jsx`, `.mjs`, `.cjs`
    JavaScript,
    /// `.py`, `.pyi`
    Python,
    /// `.go`
    Go,
}

impl Lang {
    /// The language of `path` by its extension, `None` for any other file.
    pub fn of_path(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.')?.1;
        Some(match ext {
            "rs" => Lang::Rust,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "js" | "jsx" | "mjs" | "cjs" => Lang::JavaScript,
            "py" | "pyi" => Lang::Python,
            "go" => Lang::Go,
            _ => return None,
        })
    }

    /// The language's name as the answers print it.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::JavaScript => "javascript",
            Lang::Python => "python",
            Lang::Go => "go",
        }
    }

    /// Every language the outline knows, in a fixed order.
    pub const ALL: [Lang; 6] = [
        Lang::Rust,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::JavaScript,
        Lang::Python,
        Lang::Go,
    ];

    /// The language [`Lang::name`] names.
    pub fn of_name(name: &str) -> Option<Lang> {
        Lang::ALL.into_iter().find(|l| l.name() == name)
    }

    /// The cargo feature that builds this language in.
    pub fn feature(self) -> &'static str {
        match self {
            Lang::Rust => "lang-rust",
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript => "lang-typescript",
            Lang::Python => "lang-python",
            Lang::Go => "lang-go",
        }
    }

    /// What separates a qualified name's segments (`Type::method`, `Class.method`).
    pub fn separator(self) -> &'static str {
        match self {
            Lang::Rust => "::",
            _ => ".",
        }
    }
}

/// The compiled configuration of one language.
#[cfg(feature = "grammar")]
pub(super) struct Config {
    /// The language this configuration parses.
    pub(super) lang: Lang,
    pub(super) language: tree_sitter::Language,
    pub(super) query: tree_sitter::Query,
    /// Index of the `@name` capture.
    pub(super) name_capture: Option<u32>,
    /// Node kinds that wrap a symbol's node without being a symbol
    /// (`export_statement`, Python's `decorated_definition`, a one-spec
    /// Go `const` declaration): the extent grows to them.
    pub(super) wrappers: &'static [&'static str],
    /// Node kinds attached to the symbol that follows them wherever they
    /// stand (attributes, decorators).
    pub(super) attached: &'static [&'static str],
    /// Comment node kinds: attached when directly above (no blank line).
    pub(super) comments: &'static [&'static str],
}

/// The configuration of `lang`, or `None` when its feature is off.
#[cfg(feature = "grammar")]
pub(super) fn config(lang: Lang) -> Option<&'static Config> {
    macro_rules! cached {
        ($lang:expr, $feature:literal, $grammar:expr, $query:literal, $wrappers:expr, $attached:expr, $comments:expr) => {{
            #[cfg(feature = $feature)]
            {
                static CELL: std::sync::OnceLock<Config> = std::sync::OnceLock::new();
                Some(CELL.get_or_init(|| {
                    let language: tree_sitter::Language = $grammar.into();
                    let query = tree_sitter::Query::new(&language, include_str!($query))
                        .expect("notarai's own outline query compiles (tested)");
                    let name_capture = query.capture_index_for_name("name");
                    Config {
                        lang: $lang,
                        language,
                        query,
                        name_capture,
                        wrappers: $wrappers,
                        attached: $attached,
                        comments: $comments,
                    }
                }))
            }
            #[cfg(not(feature = $feature))]
            {
                None
            }
        }};
    }
    #[cfg(feature = "lang-typescript")]
    const JS_WRAPPERS: &[&str] = &[
        "export_statement",
        "lexical_declaration",
        "ambient_declaration",
    ];
    match lang {
        Lang::Rust => cached!(
            Lang::Rust,
            "lang-rust",
            tree_sitter_rust::LANGUAGE,
            "queries/rust.scm",
            &[],
            &["attribute_item"],
            &["line_comment", "block_comment"]
        ),
        Lang::TypeScript => cached!(
            Lang::TypeScript,
            "lang-typescript",
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
            "queries/typescript.scm",
            JS_WRAPPERS,
            &["decorator"],
            &["comment"]
        ),
        Lang::Tsx => cached!(
            Lang::Tsx,
            "lang-typescript",
            tree_sitter_typescript::LANGUAGE_TSX,
            "queries/typescript.scm",
            JS_WRAPPERS,
            &["decorator"],
            &["comment"]
        ),
        Lang::JavaScript => cached!(
            Lang::JavaScript,
            "lang-typescript",
            tree_sitter_javascript::LANGUAGE,
            "queries/javascript.scm",
            JS_WRAPPERS,
            &["decorator"],
            &["comment"]
        ),
        Lang::Python => cached!(
            Lang::Python,
            "lang-python",
            tree_sitter_python::LANGUAGE,
            "queries/python.scm",
            &["decorated_definition", "expression_statement"],
            &["decorator"],
            &["comment"]
        ),
        Lang::Go => cached!(
            Lang::Go,
            "lang-go",
            tree_sitter_go::LANGUAGE,
            "queries/go.scm",
            &["const_declaration", "type_declaration"],
            &[],
            &["comment"]
        ),
    }
}

/// The text of notarai's outline query for `lang`, when its feature is on
/// (what a kept fact's stamp covers, [`super::facts::version`]).
pub(super) fn query_text(lang: Lang) -> Option<&'static str> {
    macro_rules! text {
        ($feature:literal, $query:literal) => {{
            #[cfg(feature = $feature)]
            {
                Some(include_str!($query))
            }
            #[cfg(not(feature = $feature))]
            {
                None
            }
        }};
    }
    match lang {
        Lang::Rust => text!("lang-rust", "queries/rust.scm"),
        Lang::TypeScript | Lang::Tsx => text!("lang-typescript", "queries/typescript.scm"),
        Lang::JavaScript => text!("lang-typescript", "queries/javascript.scm"),
        Lang::Python => text!("lang-python", "queries/python.scm"),
        Lang::Go => text!("lang-go", "queries/go.scm"),
    }
}

/// Feed `hasher` what identifies the grammar of `lang` built in: its ABI,
/// its version metadata when the grammar carries it, and its node kinds,
/// fields and parse-state count (a grammar crate of another version differs
/// in at least one). Nothing when its feature is off.
pub(super) fn grammar_stamp(lang: Lang, hasher: &mut blake3::Hasher) {
    macro_rules! grammar {
        ($feature:literal, $grammar:expr) => {{
            #[cfg(feature = $feature)]
            {
                let language: tree_sitter::Language = $grammar.into();
                stamp_language(&language, hasher);
            }
            #[cfg(not(feature = $feature))]
            {
                hasher.update(b"-");
            }
        }};
    }
    match lang {
        Lang::Rust => grammar!("lang-rust", tree_sitter_rust::LANGUAGE),
        Lang::TypeScript => grammar!(
            "lang-typescript",
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT
        ),
        Lang::Tsx => grammar!("lang-typescript", tree_sitter_typescript::LANGUAGE_TSX),
        Lang::JavaScript => grammar!("lang-typescript", tree_sitter_javascript::LANGUAGE),
        Lang::Python => grammar!("lang-python", tree_sitter_python::LANGUAGE),
        Lang::Go => grammar!("lang-go", tree_sitter_go::LANGUAGE),
    }
}

/// See [`grammar_stamp`].
#[cfg(feature = "grammar")]
fn stamp_language(language: &tree_sitter::Language, hasher: &mut blake3::Hasher) {
    let mut put = |n: usize| {
        hasher.update(&(n as u64).to_le_bytes());
    };
    put(language.abi_version());
    match language.metadata() {
        Some(m) => {
            put(m.major_version.into());
            put(m.minor_version.into());
            put(m.patch_version.into());
        }
        None => put(usize::MAX),
    }
    put(language.parse_state_count());
    put(language.node_kind_count());
    put(language.field_count());
    for id in 0..language.node_kind_count() {
        let Ok(id) = u16::try_from(id) else { break };
        let name = language.node_kind_for_id(id).unwrap_or("");
        hasher.update(name.as_bytes());
        hasher.update(&[
            u8::from(language.node_kind_is_named(id)),
            u8::from(language.node_kind_is_visible(id)),
            0,
        ]);
    }
    for id in 1..=language.field_count() {
        let Ok(id) = u16::try_from(id) else { break };
        hasher.update(language.field_name_for_id(id).unwrap_or("").as_bytes());
        hasher.update(&[0]);
    }
}
