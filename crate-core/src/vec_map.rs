//! A map kept as one vector sorted by key: `BTreeMap`'s ordered, deterministic iteration
//! and its API, for the simulation's small maps (a partition's followers, a producer's
//! sequences per partition, a network's links).
//!
//! Why not `BTreeMap`: every key and value type gets its own copy of the B-tree's code
//! (insert, remove with its node merging and stealing, clone, drop), about 6 KB of wasm
//! each, and the page holds dozens of them. A sorted vector's code is a binary search and
//! a `memmove`; copying it for stepping back is one allocation. Lookups are O(log n) and
//! inserts and removals O(n), so maps that grow with the run (the ledger, the logs) stay
//! `BTreeMap`s.

use std::borrow::Borrow;
use std::fmt;
use std::ops::{Bound, RangeBounds};

#[derive(Clone, PartialEq, Eq, Hash)]
pub struct VecMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap {
            entries: Vec::new(),
        }
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for VecMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.entries.iter().map(|(k, v)| (k, v)))
            .finish()
    }
}

impl<K, V> VecMap<K, V> {
    pub const fn new() -> Self {
        VecMap {
            entries: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }

    pub fn iter(&self) -> Iter<'_, K, V> {
        Iter(self.entries.iter())
    }

    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (&K, &mut V)> + '_ {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator + '_ {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator + '_ {
        self.entries.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> + '_ {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    pub fn into_values(self) -> impl DoubleEndedIterator<Item = V> {
        self.entries.into_iter().map(|(_, v)| v)
    }

    pub fn first_key_value(&self) -> Option<(&K, &V)> {
        self.entries.first().map(|(k, v)| (k, v))
    }

    pub fn last_key_value(&self) -> Option<(&K, &V)> {
        self.entries.last().map(|(k, v)| (k, v))
    }

    pub fn pop_first(&mut self) -> Option<(K, V)> {
        (!self.entries.is_empty()).then(|| self.entries.remove(0))
    }

    pub fn pop_last(&mut self) -> Option<(K, V)> {
        self.entries.pop()
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }
}

impl<K: Ord, V> VecMap<K, V> {
    fn find<Q>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| &self.entries[i].1)
    }

    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        match self.find(key) {
            Ok(i) => Some(&mut self.entries[i].1),
            Err(_) => None,
        }
    }

    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).is_ok()
    }

    /// Inserts, returning the value the key had.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }

    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.find(key).ok().map(|i| self.entries.remove(i).1)
    }

    pub fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        match self.find(&key) {
            Ok(index) => Entry {
                map: self,
                key: None,
                index,
            },
            Err(index) => Entry {
                map: self,
                key: Some(key),
                index,
            },
        }
    }

    /// The entries whose keys fall in `range`, in key order.
    pub fn range<Q, R>(&self, range: R) -> Iter<'_, K, V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
        R: RangeBounds<Q>,
    {
        let start = match range.start_bound() {
            Bound::Included(q) => self.find(q).unwrap_or_else(|i| i),
            Bound::Excluded(q) => self.find(q).map_or_else(|i| i, |i| i + 1),
            Bound::Unbounded => 0,
        };
        let end = match range.end_bound() {
            Bound::Included(q) => self.find(q).map_or_else(|i| i, |i| i + 1),
            Bound::Excluded(q) => self.find(q).unwrap_or_else(|i| i),
            Bound::Unbounded => self.entries.len(),
        };
        Iter(self.entries[start..end.max(start)].iter())
    }
}

/// A place in the map, found or to be filled (`BTreeMap`'s `entry`).
pub struct Entry<'a, K, V> {
    map: &'a mut VecMap<K, V>,
    /// The key to insert, when the map does not have it.
    key: Option<K>,
    index: usize,
}

impl<'a, K, V> Entry<'a, K, V> {
    pub fn or_insert_with(self, make: impl FnOnce() -> V) -> &'a mut V {
        if let Some(key) = self.key {
            self.map.entries.insert(self.index, (key, make()));
        }
        &mut self.map.entries[self.index].1
    }

    pub fn or_insert(self, value: V) -> &'a mut V {
        self.or_insert_with(|| value)
    }

    pub fn or_default(self) -> &'a mut V
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }

    pub fn and_modify(self, change: impl FnOnce(&mut V)) -> Self {
        if self.key.is_none() {
            change(&mut self.map.entries[self.index].1);
        }
        self
    }
}

/// The entries in key order, as `(&key, &value)`.
#[derive(Clone)]
pub struct Iter<'a, K, V>(std::slice::Iter<'a, (K, V)>);

impl<'a, K, V> Iterator for Iter<'a, K, V> {
    type Item = (&'a K, &'a V);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<K, V> DoubleEndedIterator for Iter<'_, K, V> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl<K, V> ExactSizeIterator for Iter<'_, K, V> {}

impl<'a, K, V> IntoIterator for &'a VecMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<K, V> IntoIterator for VecMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<K: Ord, V> Extend<(K, V)> for VecMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, items: I) {
        for (k, v) in items {
            self.insert(k, v);
        }
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for VecMap<K, V> {
    /// Like `BTreeMap`: a key given twice keeps its last value.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(items: I) -> Self {
        let mut entries: Vec<(K, V)> = items.into_iter().collect();
        // Stable: equal keys keep their order, and the last of each run is kept.
        crate::order::sort_by(&mut entries, |a, b| a.0.cmp(&b.0));
        let mut deduped: Vec<(K, V)> = Vec::with_capacity(entries.len());
        for entry in entries {
            match deduped.last_mut() {
                Some(last) if last.0 == entry.0 => *last = entry,
                _ => deduped.push(entry),
            }
        }
        VecMap { entries: deduped }
    }
}

impl<K: Ord, V, const N: usize> From<[(K, V); N]> for VecMap<K, V> {
    fn from(items: [(K, V); N]) -> Self {
        items.into_iter().collect()
    }
}

/// As `BTreeMap`'s: a map in key order.
impl<K: serde::Serialize, V: serde::Serialize> serde::Serialize for VecMap<K, V> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de, K, V> serde::Deserialize<'de> for VecMap<K, V>
where
    K: serde::Deserialize<'de> + Ord,
    V: serde::Deserialize<'de>,
{
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let map: std::collections::BTreeMap<K, V> = serde::Deserialize::deserialize(d)?;
        Ok(VecMap {
            entries: map.into_iter().collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[derive(Clone, Debug)]
    enum Op {
        Insert(u8, u16),
        Remove(u8),
        Entry(u8, u16),
        Retain(u8),
        PopFirst,
        PopLast,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (any::<u8>(), any::<u16>()).prop_map(|(k, v)| Op::Insert(k % 40, v)),
            any::<u8>().prop_map(|k| Op::Remove(k % 40)),
            (any::<u8>(), any::<u16>()).prop_map(|(k, v)| Op::Entry(k % 40, v)),
            any::<u8>().prop_map(|k| Op::Retain(k % 7 + 1)),
            Just(Op::PopFirst),
            Just(Op::PopLast),
        ]
    }

    proptest! {
        /// Every operation gives what `BTreeMap`'s gives, and the same order after it.
        #[test]
        fn behaves_as_a_btree_map(ops in prop::collection::vec(op(), 0..200), lo in 0u8..40, hi in 0u8..40) {
            let (mut ours, mut theirs) = (VecMap::new(), BTreeMap::new());
            for op in ops {
                match op {
                    Op::Insert(k, v) => prop_assert_eq!(ours.insert(k, v), theirs.insert(k, v)),
                    Op::Remove(k) => prop_assert_eq!(ours.remove(&k), theirs.remove(&k)),
                    Op::Entry(k, v) => {
                        let a = *ours.entry(k).and_modify(|x| *x = x.wrapping_add(1)).or_insert(v);
                        let b = *theirs.entry(k).and_modify(|x: &mut u16| *x = x.wrapping_add(1)).or_insert(v);
                        prop_assert_eq!(a, b);
                    }
                    Op::Retain(m) => {
                        ours.retain(|k, _| k % m != 0);
                        theirs.retain(|k, _| k % m != 0);
                    }
                    Op::PopFirst => prop_assert_eq!(ours.pop_first(), theirs.pop_first()),
                    Op::PopLast => prop_assert_eq!(ours.pop_last(), theirs.pop_last()),
                }
                prop_assert!(ours.iter().eq(theirs.iter()));
                prop_assert_eq!(ours.len(), theirs.len());
                prop_assert_eq!(ours.first_key_value(), theirs.first_key_value());
                prop_assert_eq!(ours.last_key_value(), theirs.last_key_value());
            }
            for k in 0..40u8 {
                prop_assert_eq!(ours.get(&k), theirs.get(&k));
                prop_assert_eq!(ours.contains_key(&k), theirs.contains_key(&k));
            }
            if lo <= hi {
                prop_assert!(ours.range(lo..hi).eq(theirs.range(lo..hi)));
                prop_assert!(ours.range(lo..=hi).eq(theirs.range(lo..=hi)));
                prop_assert!(ours.range(..hi).eq(theirs.range(..hi)));
                prop_assert!(ours.range(lo..).eq(theirs.range(lo..)));
                prop_assert!(ours.range(lo..).rev().eq(theirs.range(lo..).rev()));
            }
            let pairs: Vec<(u8, u16)> = theirs.iter().map(|(k, v)| (*k, *v)).collect();
            let twice: Vec<(u8, u16)> = pairs.iter().chain(pairs.iter()).map(|&(k, v)| (k, v.wrapping_add(1))).collect();
            let collected: VecMap<u8, u16> = twice.iter().copied().collect();
            let expected: BTreeMap<u8, u16> = twice.into_iter().collect();
            prop_assert!(collected.iter().eq(expected.iter()));
        }
    }
}
