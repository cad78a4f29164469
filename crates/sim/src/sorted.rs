//! Sorting, and collecting into ordered maps and sets, with one copy of the sorting code for the
//! whole program.
//!
//! `slice::sort*` and `BTreeMap`/`BTreeSet`'s `FromIterator` (which sorts what it collects) put a
//! copy of the standard library's stable sort (driftsort with its quicksort, merges and small
//! sorts, about 4.8 KB of wasm each) in the binary for every element type and comparison. The
//! embed widget's wasm had 24 of them, 116 KB of its 1.26 MB (issue 13, page weight; with this
//! module and [`CollectOrdered`] it went from 478.8 to 442.1 KB gzip). Here a sort computes the
//! order of positions (`u32`) with one merge sort that is not generic, through a `&mut dyn FnMut`
//! comparison, then moves the elements into that order with a small generic loop.
//!
//! The result is what `slice::sort_by` gives: stable, so a run's trace does not depend on which
//! sort made it. The maps and sets are built by inserting in iteration order, so a later
//! duplicate key replaces an earlier one's value (as `BTreeMap::from_iter` does) and a set keeps
//! the first of equal elements (as `BTreeSet::from_iter` does).
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::vec::Vec;
use core::cmp::Ordering;

/// Sorts `v` stably in ascending order (`slice::sort`).
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// Sorts `v` stably by a key (`slice::sort_by_key`).
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` stably with a comparison (`slice::sort_by`).
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let n = v.len();
    // Most lists sorted here are short and already in order: nothing to move.
    if n < 2 || v.windows(2).all(|w| cmp(&w[0], &w[1]) != Ordering::Greater) {
        return;
    }
    assert!(n <= u32::MAX as usize, "sorted: more than u32::MAX elements");
    let mut order: Vec<u32> = (0..n as u32).collect();
    {
        let v: &[T] = v;
        merge_sort(&mut order, &mut |a, b| cmp(&v[a as usize], &v[b as usize]) == Ordering::Greater);
    }
    permute(v, &mut order);
}

/// A map or a set built by inserting what an iterator yields, in order: `collect()` without the
/// sort that `BTreeMap`/`BTreeSet`'s `FromIterator` instantiates for each element type.
pub trait FromUnsorted<T> {
    /// The collection of `items`.
    fn from_unsorted(items: impl Iterator<Item = T>) -> Self;
}

impl<K: Ord, V> FromUnsorted<(K, V)> for BTreeMap<K, V> {
    /// A later pair's value replaces an earlier one's (as `BTreeMap::from_iter`).
    fn from_unsorted(items: impl Iterator<Item = (K, V)>) -> Self {
        let mut m = BTreeMap::new();
        for (k, v) in items {
            m.insert(k, v);
        }
        m
    }
}

impl<T: Ord> FromUnsorted<T> for BTreeSet<T> {
    fn from_unsorted(items: impl Iterator<Item = T>) -> Self {
        let mut s = BTreeSet::new();
        for t in items {
            s.insert(t);
        }
        s
    }
}

/// `iter.collect_ordered()`: `collect()` into a `BTreeMap` or `BTreeSet` through [`FromUnsorted`].
pub trait CollectOrdered: Iterator + Sized {
    /// The map or set of what the iterator yields.
    fn collect_ordered<C: FromUnsorted<Self::Item>>(self) -> C {
        C::from_unsorted(self)
    }
}

impl<I: Iterator> CollectOrdered for I {}

/// Sorts positions stably: bottom-up merge sort, runs of up to 8 made by insertion first.
/// `greater(a, b)` says the element at `a` goes after the one at `b`.
fn merge_sort(order: &mut Vec<u32>, greater: &mut dyn FnMut(u32, u32) -> bool) {
    const RUN: usize = 8;
    let n = order.len();
    for chunk in order.chunks_mut(RUN) {
        for i in 1..chunk.len() {
            let x = chunk[i];
            let mut j = i;
            while j > 0 && greater(chunk[j - 1], x) {
                chunk[j] = chunk[j - 1];
                j -= 1;
            }
            chunk[j] = x;
        }
    }
    if n <= RUN {
        return;
    }
    let mut from = core::mem::take(order);
    let mut to = Vec::with_capacity(n);
    let mut width = RUN;
    while width < n {
        to.clear();
        for lo in (0..n).step_by(2 * width) {
            let mid = (lo + width).min(n);
            let hi = (lo + 2 * width).min(n);
            let (mut i, mut j) = (lo, mid);
            while i < mid && j < hi {
                // Equal elements keep their order: the left one is taken unless it is greater.
                if greater(from[i], from[j]) {
                    to.push(from[j]);
                    j += 1;
                } else {
                    to.push(from[i]);
                    i += 1;
                }
            }
            to.extend_from_slice(&from[i..mid]);
            to.extend_from_slice(&from[j..hi]);
        }
        core::mem::swap(&mut from, &mut to);
        width *= 2;
    }
    *order = from;
}

/// Moves the elements so that position `i` holds what was at `order[i]`, following each cycle of
/// the permutation with swaps. `order` is used up (its entries are marked as they are placed).
fn permute<T>(v: &mut [T], order: &mut [u32]) {
    const DONE: u32 = u32::MAX;
    for start in 0..order.len() {
        let mut at = start;
        while order[at] != DONE {
            let next = order[at] as usize;
            order[at] = DONE;
            if next == start {
                break;
            }
            v.swap(at, next);
            at = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn sorts_like_the_standard_stable_sort() {
        let mut rng = Rng::new(7);
        for n in [0usize, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 64, 100, 257, 1000] {
            for range in [2u64, 5, 1000] {
                let items: Vec<(u64, usize)> = (0..n).map(|i| (rng.up_to(range), i)).collect();
                let mut ours = items.clone();
                let mut std_sorted = items.clone();
                // Sort by the first field only: ties must keep their input order (the second field).
                sort_by_key(&mut ours, |p| p.0);
                std_sorted.sort_by_key(|p| p.0);
                assert_eq!(ours, std_sorted, "n {n} range {range}");
                let mut rev = items.clone();
                sort_by(&mut rev, |a, b| b.0.cmp(&a.0));
                let mut std_rev = items;
                std_rev.sort_by_key(|p| core::cmp::Reverse(p.0));
                assert_eq!(rev, std_rev, "descending, n {n} range {range}");
            }
        }
    }

    #[test]
    fn sorts_owned_values_without_losing_or_repeating_any() {
        let mut v: Vec<alloc::string::String> = ["d", "a", "c", "b", "a", "e", "c", "b", "f", "z", "y"]
            .iter()
            .map(|s| alloc::string::String::from(*s))
            .collect();
        let mut expected = v.clone();
        expected.sort();
        sort(&mut v);
        assert_eq!(v, expected);
    }

    #[test]
    fn maps_and_sets_keep_what_from_iter_keeps() {
        let pairs = [(3, "a"), (1, "b"), (3, "c"), (2, "d"), (1, "e")];
        let ours: BTreeMap<_, _> = pairs.into_iter().collect_ordered();
        assert_eq!(ours, pairs.into_iter().collect::<BTreeMap<_, _>>());
        let items = [5, 1, 5, 3, 1];
        let ours: BTreeSet<_> = items.into_iter().collect_ordered();
        assert_eq!(ours, items.into_iter().collect::<BTreeSet<_>>());
    }
}
