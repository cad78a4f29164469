//! Ordered maps and sets as sorted `Vec`s, searched by binary search: the core's maps keyed by
//! broker (at most 9), ZooKeeper server (at most 5), KRaft voter (3), consumer client, ZooKeeper
//! session (one or two live per client; the data tree keeps expired sessions listed, but session
//! ids only grow, so a new one is appended) and partition (at most 500, a replica state per
//! partition and replica). They are built in key order and then mostly read, iterated or updated
//! in place, which a `Vec` does at least as fast as a B-tree, and cloned (a world copied by the
//! explorer, a copy-on-write cache) faster.
//!
//! They iterate, compare, hash and print as `BTreeMap`/`BTreeSet` do (key order; `{k: v}` and
//! `{a, b}` in `Debug`; the length, then each entry, to a `Hasher`), so swapping one for the other
//! changes no trace, state hash or explorer result. What they save is code: every `BTreeMap` key and
//! value type instantiates the B-tree's insert, search, clone, drop, remove and rebalancing (about
//! 4.7 KB of wasm per type; the page linked some 40 map and set types, 205 KB), where one of these
//! is a few hundred bytes (issue 13, page weight). The embed widget's wasm went from 442.1 to
//! 418.2 KB gzip with the maps keyed by broker, node, voter or client, to 404.6 KB with those keyed
//! by session or zxid, and to 393.0 KB with those keyed by partition; the explorer runs 7% fewer
//! instructions (`probe explore-1.1`, callgrind: 1 092 M before, 1 016 M after). The data tree's
//! path-keyed znodes and watches stay `BTreeMap`s.
use crate::sorted::FromUnsorted;
use alloc::vec::Vec;
use core::fmt;
use core::hash::{Hash, Hasher};
use serde::ser::{Serialize, Serializer};

/// A map over a few ordered keys: a `BTreeMap` as a sorted `Vec` (see the module docs).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct VecMap<K, V> {
    items: Vec<(K, V)>,
}

/// A set of a few ordered values: a `BTreeSet` as a sorted `Vec` (see the module docs).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct VecSet<T> {
    items: Vec<T>,
}

/// `(&k, &v)` from a stored pair: the item type of [`VecMap::iter`].
pub type Iter<'a, K, V> = core::iter::Map<core::slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;
/// `(&k, &mut v)` from a stored pair: the item type of [`VecMap::iter_mut`].
pub type IterMut<'a, K, V> =
    core::iter::Map<core::slice::IterMut<'a, (K, V)>, fn(&'a mut (K, V)) -> (&'a K, &'a mut V)>;

fn pair_ref<K, V>(p: &(K, V)) -> (&K, &V) {
    (&p.0, &p.1)
}

fn pair_mut<K, V>(p: &mut (K, V)) -> (&K, &mut V) {
    (&p.0, &mut p.1)
}

impl<K, V> VecMap<K, V> {
    /// An empty map.
    pub const fn new() -> Self {
        VecMap { items: Vec::new() }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// No entries.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Entries in key order.
    pub fn iter(&self) -> Iter<'_, K, V> {
        self.items.iter().map(pair_ref as fn(&(K, V)) -> (&K, &V))
    }

    /// Entries in key order, values mutable.
    pub fn iter_mut(&mut self) -> IterMut<'_, K, V> {
        self.items.iter_mut().map(pair_mut as fn(&mut (K, V)) -> (&K, &mut V))
    }

    /// Keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator + Clone {
        self.items.iter().map(|p| &p.0)
    }

    /// Values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator + Clone {
        self.items.iter().map(|p| &p.1)
    }

    /// Values in key order, mutable.
    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> + ExactSizeIterator {
        self.items.iter_mut().map(|p| &mut p.1)
    }

    /// Values in key order, owned.
    pub fn into_values(self) -> impl DoubleEndedIterator<Item = V> + ExactSizeIterator {
        self.items.into_iter().map(|p| p.1)
    }

    /// Keys in order, owned.
    pub fn into_keys(self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator {
        self.items.into_iter().map(|p| p.0)
    }

    /// The entry with the smallest key.
    pub fn first_key_value(&self) -> Option<(&K, &V)> {
        self.items.first().map(pair_ref)
    }

    /// The entry with the largest key.
    pub fn last_key_value(&self) -> Option<(&K, &V)> {
        self.items.last().map(pair_ref)
    }

    /// Keeps the entries `keep` says yes to.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.items.retain_mut(|p| keep(&p.0, &mut p.1));
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.items.clear();
    }
}

impl<K: Ord, V> VecMap<K, V> {
    fn find(&self, k: &K) -> Result<usize, usize> {
        self.items.binary_search_by(|p| p.0.cmp(k))
    }

    /// The value at `k`.
    pub fn get(&self, k: &K) -> Option<&V> {
        self.find(k).ok().map(|i| &self.items[i].1)
    }

    /// The value at `k`, mutable.
    pub fn get_mut(&mut self, k: &K) -> Option<&mut V> {
        self.find(k).ok().map(|i| &mut self.items[i].1)
    }

    /// Whether `k` has a value.
    pub fn contains_key(&self, k: &K) -> bool {
        self.find(k).is_ok()
    }

    /// Sets `k`'s value; returns the one it replaced.
    pub fn insert(&mut self, k: K, v: V) -> Option<V> {
        match self.find(&k) {
            Ok(i) => Some(core::mem::replace(&mut self.items[i].1, v)),
            Err(i) => {
                self.items.insert(i, (k, v));
                None
            }
        }
    }

    /// The smallest key after `k` (`range((Excluded(k), Unbounded)).next()`).
    pub fn key_after(&self, k: &K) -> Option<&K> {
        let i = match self.find(k) {
            Ok(i) => i + 1,
            Err(i) => i,
        };
        self.items.get(i).map(|p| &p.0)
    }

    /// Removes `k`; returns its value.
    pub fn remove(&mut self, k: &K) -> Option<V> {
        self.find(k).ok().map(|i| self.items.remove(i).1)
    }

    /// The value at `k`, made with `make` if there is none.
    pub fn or_insert_with(&mut self, k: K, make: impl FnOnce() -> V) -> &mut V {
        let i = match self.find(&k) {
            Ok(i) => i,
            Err(i) => {
                self.items.insert(i, (k, make()));
                i
            }
        };
        &mut self.items[i].1
    }

    /// The value at `k`, the default if there is none (`entry(k).or_default()`).
    pub fn or_default(&mut self, k: K) -> &mut V
    where
        V: Default,
    {
        self.or_insert_with(k, V::default)
    }
}

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap::new()
    }
}

impl<K: Ord, V> core::ops::Index<&K> for VecMap<K, V> {
    type Output = V;
    fn index(&self, k: &K) -> &V {
        self.get(k).expect("VecMap: no entry for the key")
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for VecMap<K, V> {
    /// A later pair's value replaces an earlier one's (as `BTreeMap::from_iter`).
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut m = VecMap::new();
        m.extend(iter);
        m
    }
}

impl<K: Ord, V> FromUnsorted<(K, V)> for VecMap<K, V> {
    fn from_unsorted(items: impl Iterator<Item = (K, V)>) -> Self {
        items.collect()
    }
}

impl<K: Ord, V> Extend<(K, V)> for VecMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<K, V> IntoIterator for VecMap<K, V> {
    type Item = (K, V);
    type IntoIter = alloc::vec::IntoIter<(K, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, K, V> IntoIterator for &'a VecMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, K, V> IntoIterator for &'a mut VecMap<K, V> {
    type Item = (&'a K, &'a mut V);
    type IntoIter = IterMut<'a, K, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for VecMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Hash, V: Hash> Hash for VecMap<K, V> {
    /// As `BTreeMap`'s: the length, then each `(k, v)`.
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.items.len());
        for (k, v) in self.iter() {
            (k, v).hash(state);
        }
    }
}

impl<K: Serialize, V: Serialize> Serialize for VecMap<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<T> VecSet<T> {
    /// An empty set.
    pub const fn new() -> Self {
        VecSet { items: Vec::new() }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// No values.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Values in order.
    pub fn iter(&self) -> core::slice::Iter<'_, T> {
        self.items.iter()
    }

    /// The smallest value.
    pub fn first(&self) -> Option<&T> {
        self.items.first()
    }

    /// The largest value.
    pub fn last(&self) -> Option<&T> {
        self.items.last()
    }

    /// Keeps the values `keep` says yes to.
    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        self.items.retain(keep);
    }

    /// Removes every value.
    pub fn clear(&mut self) {
        self.items.clear();
    }
}

impl<T: Ord> VecSet<T> {
    /// Whether `t` is in the set.
    pub fn contains(&self, t: &T) -> bool {
        self.items.binary_search(t).is_ok()
    }

    /// Adds `t`; false if it was there.
    pub fn insert(&mut self, t: T) -> bool {
        match self.items.binary_search(&t) {
            Ok(_) => false,
            Err(i) => {
                self.items.insert(i, t);
                true
            }
        }
    }

    /// Removes `t`; false if it was not there.
    pub fn remove(&mut self, t: &T) -> bool {
        match self.items.binary_search(t) {
            Ok(i) => {
                self.items.remove(i);
                true
            }
            Err(_) => false,
        }
    }

    /// The values of `self` not in `other`, in order.
    pub fn difference<'a>(&'a self, other: &'a VecSet<T>) -> impl Iterator<Item = &'a T> + Clone {
        self.items.iter().filter(move |t| !other.contains(t))
    }

    /// The values in both, in order.
    pub fn intersection<'a>(&'a self, other: &'a VecSet<T>) -> impl Iterator<Item = &'a T> + Clone {
        self.items.iter().filter(move |t| other.contains(t))
    }

    /// Whether every value of `self` is in `other`.
    pub fn is_subset(&self, other: &VecSet<T>) -> bool {
        self.items.iter().all(|t| other.contains(t))
    }
}

impl<T> Default for VecSet<T> {
    fn default() -> Self {
        VecSet::new()
    }
}

impl<T: Ord> FromIterator<T> for VecSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut s = VecSet::new();
        s.extend(iter);
        s
    }
}

impl<T: Ord> FromUnsorted<T> for VecSet<T> {
    fn from_unsorted(items: impl Iterator<Item = T>) -> Self {
        items.collect()
    }
}

impl<T: Ord> Extend<T> for VecSet<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for t in iter {
            self.insert(t);
        }
    }
}

impl<T> IntoIterator for VecSet<T> {
    type Item = T;
    type IntoIter = alloc::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, T> IntoIterator for &'a VecSet<T> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl<T: fmt::Debug> fmt::Debug for VecSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.items.iter()).finish()
    }
}

impl<T: Hash> Hash for VecSet<T> {
    /// As `BTreeSet`'s: the length, then each value.
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.items.len());
        for t in &self.items {
            t.hash(state);
        }
    }
}

impl<T: Serialize> Serialize for VecSet<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.items.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use alloc::collections::{BTreeMap, BTreeSet};
    use alloc::format;

    use crate::derived::tests::hash as hash_of;

    #[test]
    fn a_vec_map_behaves_like_a_btreemap() {
        let mut rng = Rng::new(3);
        let mut ours: VecMap<i32, u64> = VecMap::new();
        let mut theirs: BTreeMap<i32, u64> = BTreeMap::new();
        for round in 0..3000u64 {
            let k = rng.up_to(11) as i32 - 2;
            match rng.up_to(3) {
                0 => assert_eq!(ours.insert(k, round), theirs.insert(k, round)),
                1 => assert_eq!(ours.remove(&k), theirs.remove(&k)),
                2 => {
                    *ours.or_default(k) += 1;
                    *theirs.entry(k).or_default() += 1;
                }
                3 => {
                    *ours.or_insert_with(k, || round) += 2;
                    *theirs.entry(k).or_insert_with(|| round) += 2;
                }
                _ => unreachable!(),
            }
            if rng.up_to(3) == 0 {
                ours.retain(|k, v| (i64::from(*k) + *v as i64) % 3 != 0);
                theirs.retain(|k, v| (i64::from(*k) + *v as i64) % 3 != 0);
            }
            assert!(ours.iter().eq(theirs.iter()), "round {round}");
            assert_eq!(ours.len(), theirs.len());
            assert_eq!(ours.get(&k), theirs.get(&k));
            let after = theirs.range((core::ops::Bound::Excluded(k), core::ops::Bound::Unbounded)).next();
            assert_eq!(ours.key_after(&k), after.map(|(k, _)| k));
            assert_eq!(ours.contains_key(&k), theirs.contains_key(&k));
            assert_eq!(ours.first_key_value(), theirs.first_key_value());
            assert_eq!(ours.last_key_value(), theirs.last_key_value());
            assert!(ours.keys().eq(theirs.keys()) && ours.values().rev().eq(theirs.values().rev()));
            assert_eq!(format!("{ours:?}"), format!("{theirs:?}"));
            assert_eq!(hash_of(&ours), hash_of(&theirs));
        }
        let collected: VecMap<i32, u64> = [(3, 1), (1, 2), (3, 4)].into_iter().collect();
        let expected: BTreeMap<i32, u64> = [(3, 1), (1, 2), (3, 4)].into_iter().collect();
        assert!(collected.iter().eq(expected.iter()));
    }

    #[test]
    fn a_small_set_behaves_like_a_btreeset() {
        let mut rng = Rng::new(5);
        let mut ours: VecSet<u32> = VecSet::new();
        let mut theirs: BTreeSet<u32> = BTreeSet::new();
        let other: VecSet<u32> = [1, 3, 5, 7].into_iter().collect();
        let other_b: BTreeSet<u32> = [1, 3, 5, 7].into_iter().collect();
        for _ in 0..2000 {
            let t = rng.up_to(9) as u32;
            if rng.up_to(1) == 0 {
                assert_eq!(ours.insert(t), theirs.insert(t));
            } else {
                assert_eq!(ours.remove(&t), theirs.remove(&t));
            }
            assert!(ours.iter().eq(theirs.iter()));
            assert_eq!(ours.contains(&t), theirs.contains(&t));
            assert_eq!((ours.first(), ours.last()), (theirs.first(), theirs.last()));
            assert!(ours.difference(&other).eq(theirs.difference(&other_b)));
            assert!(ours.intersection(&other).eq(theirs.intersection(&other_b)));
            assert_eq!(ours.is_subset(&other), theirs.is_subset(&other_b));
            assert_eq!(format!("{ours:?}"), format!("{theirs:?}"));
            assert_eq!(hash_of(&ours), hash_of(&theirs));
        }
    }
}
