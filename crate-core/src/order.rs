//! Sorting through one shared routine. The standard library's sorts are copied into the
//! binary once per element type and key (a few kilobytes each, and the page sorts some
//! twenty types); these helpers sort a list of positions with one comparison callback, so
//! the sort itself exists once, and only the small step that moves the elements is per type.
//! The results are those of the standard library's stable sorts. Collecting into a
//! `BTreeMap` or `BTreeSet` sorts the same way, so `map_of` and `set_of` insert instead.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// The positions `0..n` in sorted order, stably: the one place that sorts.
fn sorted_positions(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut positions: Vec<usize> = (0..n).collect();
    positions.sort_by(|&a, &b| cmp(a, b));
    positions
}

/// Puts `v[order[i]]` at `i` for every `i`, following each cycle of the permutation.
fn permute<T>(v: &mut [T], order: &[usize]) {
    let mut done = vec![false; v.len()];
    for start in 0..v.len() {
        let mut at = start;
        while !done[at] {
            done[at] = true;
            let from = order[at];
            if from == start {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

/// Like `slice::sort_by`: stable.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = {
        let items = &*v;
        sorted_positions(items.len(), &mut |a, b| cmp(&items[a], &items[b]))
    };
    permute(v, &order);
}

/// Like `slice::sort_by_key`: stable.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)))
}

/// Like `slice::sort` (and `sort_unstable`, whose result is the same for a total order).
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp)
}

/// Like `collect::<BTreeMap<_, _>>()`: a later value for the same key wins.
pub fn map_of<K: Ord, V>(items: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut map = BTreeMap::new();
    map.extend(items);
    map
}

/// Like `collect::<BTreeSet<_>>()`.
pub fn set_of<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    let mut set = BTreeSet::new();
    set.extend(items);
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn sorts_like_the_standard_library(v in proptest::collection::vec((0u8..6, any::<u16>()), 0..200)) {
            let mut ours = v.clone();
            sort_by_key(&mut ours, |p| p.0);
            let mut std_sorted = v.clone();
            std_sorted.sort_by_key(|p| p.0);
            prop_assert_eq!(&ours, &std_sorted);
            let mut ours = v.clone();
            sort(&mut ours);
            let mut std_sorted = v;
            std_sorted.sort();
            prop_assert_eq!(ours, std_sorted);
        }

        #[test]
        fn collects_like_the_standard_library(v in proptest::collection::vec((0u8..6, any::<u16>()), 0..50)) {
            prop_assert_eq!(map_of(v.iter().copied()), v.iter().copied().collect::<BTreeMap<_, _>>());
            prop_assert_eq!(set_of(v.iter().copied()), v.iter().copied().collect::<BTreeSet<_>>());
        }
    }
}
