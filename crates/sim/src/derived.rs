//! A value derived from a node's state to save work (a counter, an index of recent changes, a
//! memo): not state. Every two are equal and it hashes to nothing, so whatever holds one compares
//! and hashes by its state alone — the exhaustive explorer's state hash and the render-on/off
//! equality checks see the same worlds with or without it.
use core::hash::{Hash, Hasher};
use core::ops::{Deref, DerefMut};

/// See the module docs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Derived<T>(pub T);

impl<T> PartialEq for Derived<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<T> Eq for Derived<T> {}

impl<T> Hash for Derived<T> {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

impl<T> Deref for Derived<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> DerefMut for Derived<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// FNV-1a of what `x` hashes: enough to compare two write sequences (also vec_map's tests).
    pub(crate) fn hash(x: &impl Hash) -> u64 {
        let mut h = crate::fnv::Fnv::default();
        x.hash(&mut h);
        h.finish()
    }

    #[test]
    fn a_derived_value_neither_compares_nor_hashes() {
        #[derive(PartialEq, Eq, Hash)]
        struct Node {
            state: u32,
            memo: Derived<u64>,
        }
        let (a, b) = (Node { state: 1, memo: Derived(5) }, Node { state: 1, memo: Derived(9) });
        assert!(a == b);
        assert_eq!(hash(&a), hash(&b));
        let c = Node { state: 2, memo: Derived(5) };
        assert!(a != c);
        assert_ne!(hash(&a), hash(&c));
    }
}
