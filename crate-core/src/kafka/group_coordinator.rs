//! The group coordinator's committed offsets (Kafka's `__consumer_offsets`). One broker hosts
//! it (see `coordinator_for`); commits are durable: they survive that broker's restart.
//! Transactional (pending) offsets are added by the transactions model.

use crate::ids::Tp;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Offsets committed per group and partition.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GroupOffsets {
    #[serde(with = "crate::serde_pairs")]
    committed: BTreeMap<(String, Tp), u64>,
}

impl GroupOffsets {
    pub fn commit(&mut self, group: &str, tp: Tp, offset: u64) {
        self.committed.insert((group.to_string(), tp), offset);
    }

    pub fn committed(&self, group: &str, tp: Tp) -> Option<u64> {
        self.committed.get(&(group.to_string(), tp)).copied()
    }

    /// Every committed offset, for the UI.
    pub fn all(&self) -> impl Iterator<Item = (&str, Tp, u64)> {
        self.committed
            .iter()
            .map(|((g, tp), o)| (g.as_str(), *tp, *o))
    }
}

/// Which broker coordinates a group: Kafka hashes the group id onto a partition of
/// `__consumer_offsets` and uses its leader; here the hash picks the broker directly.
pub fn coordinator_for(group: &str, brokers: u8) -> u8 {
    let hash = crate::kafka::partitioner::to_positive(crate::kafka::partitioner::murmur2(
        group.as_bytes(),
    ));
    (hash % i32::from(brokers.max(1))) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commits_overwrite_and_are_per_group_and_partition() {
        let mut g = GroupOffsets::default();
        let tp = Tp {
            topic: 0,
            partition: 1,
        };
        assert_eq!(g.committed("a", tp), None);
        g.commit("a", tp, 3);
        g.commit("a", tp, 5);
        g.commit("b", tp, 1);
        assert_eq!(g.committed("a", tp), Some(5));
        assert_eq!(g.committed("b", tp), Some(1));
        assert_eq!(g.all().count(), 2);
    }

    #[test]
    fn the_coordinator_is_a_live_broker_index() {
        for n in 1..=3 {
            assert!(coordinator_for("readers", n) < n);
        }
        assert_eq!(coordinator_for("x", 0), 0);
    }
}
