//! The family of a syntax tree's nodes, found once: each node's parent and
//! previous sibling, keyed by node id with a hash made for ids.

use std::collections::HashMap;

/// Every node's parent and previous sibling, found in one walk of the tree:
/// tree-sitter's own `parent()` and `prev_sibling()` search from the root
/// or the parent each time, quadratic on a file of many items.
pub(super) struct Family<'t> {
    parent: HashMap<usize, tree_sitter::Node<'t>, IdHash>,
    prev: HashMap<usize, tree_sitter::Node<'t>, IdHash>,
}

/// Hashing for node ids (addresses): one multiplication, no SipHash.
pub(super) type IdHash = std::hash::BuildHasherDefault<IdHasher>;

/// See [`IdHash`].
#[derive(Default)]
pub(super) struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl<'t> Family<'t> {
    pub(super) fn of(root: tree_sitter::Node<'t>) -> Family<'t> {
        let mut family = Family {
            parent: HashMap::default(),
            prev: HashMap::default(),
        };
        let mut cursor = root.walk();
        let mut todo = vec![root];
        while let Some(node) = todo.pop() {
            let mut last: Option<tree_sitter::Node<'t>> = None;
            for child in node.children(&mut cursor) {
                family.parent.insert(child.id(), node);
                if let Some(prev) = last {
                    family.prev.insert(child.id(), prev);
                }
                last = Some(child);
                if child.child_count() > 0 {
                    todo.push(child);
                }
            }
        }
        family
    }

    pub(super) fn parent(&self, node: tree_sitter::Node<'t>) -> Option<tree_sitter::Node<'t>> {
        self.parent.get(&node.id()).copied()
    }

    pub(super) fn prev(&self, node: tree_sitter::Node<'t>) -> Option<tree_sitter::Node<'t>> {
        self.prev.get(&node.id()).copied()
    }
}
