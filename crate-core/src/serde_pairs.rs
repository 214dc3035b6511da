//! Serializes a map whose keys are not strings (partitions, process ids) as a list of
//! `[key, value]` pairs, so that a whole simulation round-trips through JSON. Works for
//! `BTreeMap` and `VecMap` alike.

use crate::vec_map::VecMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// A map that can be listed as pairs in key order and built back from them.
pub trait Pairs<K, V>: FromIterator<(K, V)> {
    fn pairs<'a>(&'a self) -> impl Iterator<Item = (&'a K, &'a V)>
    where
        K: 'a,
        V: 'a;
}

impl<K: Ord, V> Pairs<K, V> for BTreeMap<K, V> {
    fn pairs<'a>(&'a self) -> impl Iterator<Item = (&'a K, &'a V)>
    where
        K: 'a,
        V: 'a,
    {
        self.iter()
    }
}

impl<K: Ord, V> Pairs<K, V> for VecMap<K, V> {
    fn pairs<'a>(&'a self) -> impl Iterator<Item = (&'a K, &'a V)>
    where
        K: 'a,
        V: 'a,
    {
        self.iter()
    }
}

pub fn serialize<M, K, V, S>(map: &M, s: S) -> Result<S::Ok, S::Error>
where
    M: Pairs<K, V>,
    K: Serialize,
    V: Serialize,
    S: Serializer,
{
    s.collect_seq(map.pairs())
}

pub fn deserialize<'de, M, K, V, D>(d: D) -> Result<M, D::Error>
where
    M: Pairs<K, V>,
    K: Deserialize<'de> + Ord,
    V: Deserialize<'de>,
    D: Deserializer<'de>,
{
    let pairs: Vec<(K, V)> = Vec::deserialize(d)?;
    Ok(pairs.into_iter().collect())
}
