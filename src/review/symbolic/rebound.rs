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
                if let Some((alias, value)) = symbols::alias_of(lang, line)
                    && names.contains(value)
                {
                    names.insert(alias.to_string());
                }
            }
            if names.len() == before {
                break;
            }
        }
        let mut rebound = Rebound {
            lang,
            anchored,
            names,
            odd,
            live: false,
        };
        let outlines = [&sides.old, &sides.new];
        rebound.live = texts.iter().zip(outlines).any(|(text, outline)| {
            let inside = extents(outline, anchors, &rebound.names);
            text.lines().enumerate().any(|(i, line)| {
                let n = i as u32 + 1;
                !inside.iter().any(|r| r[0] <= n && n <= r[1]) && rebound.rebinds(line)
            })
        });
        rebound
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
/// `Session.refresh` defines its own member, not the anchored one).
fn extents(outline: &Outline, anchors: &[&Anchor], names: &HashSet<String>) -> Vec<[u32; 2]> {
    let governed = symbols::governed_by(anchors, outline);
    outline
        .symbols
        .iter()
        .enumerate()
        .filter(|(i, s)| {
            governed.get(*i) == Some(&true) || names.contains(symbols::last_segment(&s.name))
        })
        .map(|(_, s)| [s.start_line, s.end_line])
        .collect()
}

/// The distinct identifier-like words of `line`: the only names it may
/// rebind (a name is looked up among the anchored ones, not each anchored
/// name tried against the line).
pub(super) fn words(line: &str) -> impl Iterator<Item = &str> {
    let mut seen: HashSet<&str> = HashSet::new();
    line.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '$' | '\u{200c}' | '\u{200d}')))
        .filter(move |w| !w.is_empty() && seen.insert(w))
}
