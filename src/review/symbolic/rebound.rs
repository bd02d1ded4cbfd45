//! Which changed lines may rebind a name an anchored spec governs, and
//! whether the file holds such a rebinding anywhere, which a change around
//! it may make live (a guard: `ENABLE = True` above `if ENABLE: check =
//! allow`). The line rules are `symbols::rebinds` and
//! `symbols::rebinds_any`; this module applies them to a file.

use std::collections::HashSet;

use super::{Anchor, Lang, Outline, Sides, symbols};

/// The rebindable names of one spec's anchors on one file, and whether
/// the file rebinds one of them outside the anchored symbols.
pub(super) struct Rebound {
    lang: Lang,
    /// The last segment of each anchored symbol (and of its members).
    anchored: HashSet<String>,
    /// Those, with every name made an alias of one (`f = check`).
    names: HashSet<String>,
    /// Names that are not one word (a quoted or computed key), tried on
    /// every line.
    odd: Vec<String>,
    /// Whether either side rebinds a name outside the anchored symbols.
    live: bool,
}

/// How many rounds of aliases of aliases are followed (`g = f`, `f = check`).
const ALIAS_ROUNDS: usize = 4;

impl Rebound {
    /// The names `anchors` govern in both sides of the file, their aliases
    /// in either side's text, and whether either side rebinds one outside
    /// the anchored symbols' extents.
    pub(super) fn of(lang: Lang, sides: &Sides, anchors: &[&Anchor]) -> Rebound {
        let mut all: Vec<String> = Vec::new();
        rebindable(&sides.old, anchors, &mut all);
        rebindable(&sides.new, anchors, &mut all);
        let (plain, mut odd): (Vec<String>, Vec<String>) = all
            .into_iter()
            .partition(|n| words(n).next() == Some(n.as_str()));
        odd.sort();
        odd.dedup();
        let anchored: HashSet<String> = plain.into_iter().collect();
        let texts = sides.texts.each_ref().map(|t| String::from_utf8_lossy(t));
        let mut names = anchored.clone();
        for _ in 0..ALIAS_ROUNDS {
            let before = names.len();
            for line in texts.iter().flat_map(|t| t.lines()) {
                if line.contains('=')
                    && mentions(line, &names)
                    && let Some((alias, value)) = symbols::alias_of(lang, line)
                    && names.contains(value)
                {
                    names.insert(alias.to_string());
                }
            }
            if names.len() == before {
                break;
            }
        }
        let members = member_names(sides, anchors, &names);
        let mut rebound = Rebound {
            lang,
            anchored,
            names,
            odd,
            live: false,
        };
        rebound.live = texts
            .iter()
            .zip([&sides.old, &sides.new])
            .any(|(text, outline)| rebound.live_in(text, outline, anchors, &members));
        rebound
    }

    /// Whether a line of `text` (one side, outlined as `outline`) outside
    /// the anchored symbols rebinds a name. A member's name (`refresh` of
    /// `Session.refresh`) counts outside its owner's body only in a form
    /// that reaches a member (`X.refresh =`, `"refresh"`, reflection): a
    /// local `refresh = 1` elsewhere rebinds no member.
    fn live_in(
        &self,
        text: &str,
        outline: &Outline,
        anchors: &[&Anchor],
        members: &HashSet<String>,
    ) -> bool {
        let (skip, owners) = extents(outline, anchors, &self.names);
        let (mut at_skip, mut at_owner) = (0, 0);
        text.lines().enumerate().any(|(i, line)| {
            let n = i as u32 + 1;
            if within(&skip, &mut at_skip, n) || !self.rebinds(line) {
                return false;
            }
            if within(&owners, &mut at_owner, n) {
                return true;
            }
            symbols::rebinds_any(self.lang, line)
                || words(line)
                    .filter(|w| self.names.contains(*w))
                    .chain(self.odd.iter().map(String::as_str))
                    .any(|w| {
                        symbols::rebinds(self.lang, line, w)
                            && (!members.contains(w) || member_form(line, w))
                    })
        })
    }

    /// Whether the file rebinds an anchored name (or an alias of one)
    /// outside the anchored symbols, on either side: which binding is live
    /// then depends on the code around it, so every hunk is shown.
    pub(super) fn live_elsewhere(&self) -> bool {
        self.live
    }

    /// Whether `line` may rebind one of the names: code that may rebind
    /// any name, or a form of `symbols::rebinds` for a name it spells. A
    /// line that only makes an alias (`f = check`) rebinds nothing
    /// anchored.
    pub(super) fn rebinds(&self, line: &str) -> bool {
        if symbols::rebinds_any(self.lang, line) {
            return true;
        }
        if self.odd.is_empty() && !mentions(line, &self.names) {
            return false;
        }
        if let Some((alias, value)) = symbols::alias_of(self.lang, line)
            && self.names.contains(value)
            && !self.anchored.contains(alias)
        {
            return false;
        }
        words(line)
            .filter(|w| self.names.contains(*w))
            .chain(self.odd.iter().map(String::as_str))
            .any(|n| symbols::rebinds(self.lang, line, n))
    }
}

/// The names a line may rebind to change what `anchors` govern in
/// `outline`: the last segment of each symbol they name and of each
/// member of one (`refresh` for `Session` and for `Session.refresh`).
fn rebindable(outline: &Outline, anchors: &[&Anchor], into: &mut Vec<String>) {
    let named = symbols::named_by(anchors, outline);
    for (i, s) in outline.symbols.iter().enumerate() {
        if named[i] || s.parent.is_some_and(|p| named.get(p) == Some(&true)) {
            into.push(symbols::last_segment(&s.name).to_string());
        }
    }
}

/// The extents a file-wide rebinding is not looked for in: the anchored
/// symbols' (a change there is shown already), and those of other
/// symbols of the same last name (`Other.refresh` beside an anchored
/// `Session.refresh` defines its own member, not the anchored one); and
/// the bodies of the anchored members' owners. Each sorted and merged.
fn extents(
    outline: &Outline,
    anchors: &[&Anchor],
    names: &HashSet<String>,
) -> (Vec<[u32; 2]>, Vec<[u32; 2]>) {
    let governed = symbols::governed_by(anchors, outline);
    let mut skip: Vec<[u32; 2]> = Vec::new();
    let mut owners: Vec<[u32; 2]> = Vec::new();
    for (i, s) in outline.symbols.iter().enumerate() {
        let anchored = governed.get(i) == Some(&true);
        if anchored || names.contains(symbols::last_segment(&s.name)) {
            skip.push([s.start_line, s.end_line]);
        }
        if let (true, Some(p)) = (anchored, s.parent) {
            let p = &outline.symbols[p];
            owners.push([p.start_line, p.end_line]);
        }
    }
    (merged(skip), merged(owners))
}

/// `ranges` sorted by start, overlapping ones merged.
fn merged(mut ranges: Vec<[u32; 2]>) -> Vec<[u32; 2]> {
    ranges.sort_unstable();
    let mut out: Vec<[u32; 2]> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r[0] <= last[1] => last[1] = last[1].max(r[1]),
            _ => out.push(r),
        }
    }
    out
}

/// Whether line `n` lies in one of `ranges` (sorted, merged), the lines
/// asked in order: `at` is where the last answer stopped.
fn within(ranges: &[[u32; 2]], at: &mut usize, n: u32) -> bool {
    while ranges.get(*at).is_some_and(|r| r[1] < n) {
        *at += 1;
    }
    ranges.get(*at).is_some_and(|r| r[0] <= n)
}

/// The names that are only members' (`refresh` of `Session.refresh`), not
/// a top-level anchored symbol's or an alias's.
fn member_names(sides: &Sides, anchors: &[&Anchor], names: &HashSet<String>) -> HashSet<String> {
    let mut members: HashSet<String> = HashSet::new();
    let mut top: HashSet<String> = HashSet::new();
    for outline in [&sides.old, &sides.new] {
        let named = symbols::named_by(anchors, outline);
        for (i, s) in outline.symbols.iter().enumerate() {
            let last = symbols::last_segment(&s.name).to_string();
            let member_of_named = s.parent.is_some_and(|p| named.get(p) == Some(&true));
            match (named[i] || member_of_named, s.parent) {
                (true, Some(_)) => members.insert(last),
                (true, None) => top.insert(last),
                _ => false,
            };
        }
    }
    members.retain(|m| !top.contains(m) && names.contains(m));
    members
}

/// Whether `line` reaches the member `name` as a member: after a `.`, as a
/// quoted key, or beside reflection (`setattr`, `defineProperty`,
/// `Object.assign(X.prototype, { name })`).
fn member_form(line: &str, name: &str) -> bool {
    line.contains(&format!(".{name}"))
        || line.contains(&format!("\"{name}\""))
        || line.contains(&format!("'{name}'"))
        || line.contains(&format!("`{name}`"))
        || [
            "setattr",
            "__dict__",
            "__setattr__",
            "defineProperty",
            "assign",
            "Reflect",
            "setPrototypeOf",
            "__proto__",
        ]
        .iter()
        .any(|w| line.contains(w))
}

/// Whether `line` spells one of `names` as a word (no allocation: most
/// lines of a file spell none).
fn mentions(line: &str, names: &HashSet<String>) -> bool {
    // A few names are looked for as text first (a fast substring search).
    if names.len() <= 16 && !names.iter().any(|n| line.contains(n.as_str())) {
        return false;
    }
    line.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '$' | '\u{200c}' | '\u{200d}')))
        .any(|w| !w.is_empty() && names.contains(w))
}

/// The distinct identifier-like words of `line`: the only names it may
/// rebind (a name is looked up among the anchored ones, not each anchored
/// name tried against the line).
pub(super) fn words(line: &str) -> impl Iterator<Item = &str> {
    let mut seen: HashSet<&str> = HashSet::new();
    line.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '$' | '\u{200c}' | '\u{200d}')))
        .filter(move |w| !w.is_empty() && seen.insert(w))
}
