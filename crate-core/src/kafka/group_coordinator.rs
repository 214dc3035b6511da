//! The group coordinator's committed offsets (Kafka's `__consumer_offsets`). One broker hosts
//! it (see `coordinator_for`); commits are durable: they survive that broker's restart.
//! Transactional (pending) offsets are added by the transactions model.

use crate::ids::Tp;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};

/// Offsets committed per group and partition.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GroupOffsets {
    #[serde(with = "crate::serde_pairs")]
    committed: VecMap<(String, Tp), u64>,
    /// Offsets sent in a transaction (TxnOffsetCommit), per producer id, until its marker.
    pending: VecMap<i64, Vec<(String, Tp, u64)>>,
    /// The leader epoch of each committed offset, where the committer knew it (KIP-320: a
    /// reader that resumes from the offset checks it against the leader's log).
    #[serde(default, with = "crate::serde_pairs")]
    epochs: VecMap<(String, Tp), u32>,
    /// The same for pending offsets, per producer id.
    #[serde(default)]
    pending_epochs: VecMap<i64, Vec<(String, Tp, u32)>>,
}

impl GroupOffsets {
    /// Commits `offset`, with the leader epoch of the record before it if the committer
    /// knew it.
    pub fn commit(&mut self, group: &str, tp: Tp, offset: u64, epoch: Option<u32>) {
        let key = (group.to_string(), tp);
        match epoch {
            Some(e) => self.epochs.insert(key.clone(), e),
            None => self.epochs.remove(&key),
        };
        self.committed.insert(key, offset);
    }

    pub fn committed(&self, group: &str, tp: Tp) -> Option<u64> {
        self.committed.get(&(group.to_string(), tp)).copied()
    }

    /// The leader epoch committed with the offset, if any.
    pub fn committed_epoch(&self, group: &str, tp: Tp) -> Option<u32> {
        self.epochs.get(&(group.to_string(), tp)).copied()
    }

    /// Holds offsets of an open transaction (KIP-98 `TxnOffsetCommit`), with their leader
    /// epochs where known.
    pub fn add_pending(
        &mut self,
        producer_id: i64,
        group: &str,
        tp: Tp,
        offset: u64,
        epoch: Option<u32>,
    ) {
        let list = self.pending.entry(producer_id).or_default();
        list.retain(|(g, t, _)| !(g == group && *t == tp));
        list.push((group.to_string(), tp, offset));
        let epochs = self.pending_epochs.entry(producer_id).or_default();
        epochs.retain(|(g, t, _)| !(g == group && *t == tp));
        if let Some(e) = epoch {
            epochs.push((group.to_string(), tp, e));
        }
    }

    /// The transaction's marker arrived: COMMIT makes its offsets committed, ABORT drops
    /// them. Returns what changed.
    pub fn complete_pending(&mut self, producer_id: i64, commit: bool) -> Vec<(String, Tp, u64)> {
        let list = self.pending.remove(&producer_id).unwrap_or_default();
        let epochs = self.pending_epochs.remove(&producer_id).unwrap_or_default();
        if commit {
            for (g, tp, o) in &list {
                let epoch = epochs
                    .iter()
                    .find(|(eg, et, _)| eg == g && et == tp)
                    .map(|(_, _, e)| *e);
                self.commit(g, *tp, *o, epoch);
            }
        }
        list
    }

    /// The producer's open transaction holds offsets here already.
    pub fn has_pending_from(&self, producer_id: i64) -> bool {
        self.pending
            .get(&producer_id)
            .is_some_and(|l| !l.is_empty())
    }

    /// An undecided transaction holds offsets for this group and partition (KIP-447: a
    /// consumer must not start from the committed offset yet).
    pub fn has_pending(&self, group: &str, tp: Tp) -> bool {
        self.pending
            .values()
            .flatten()
            .any(|(g, t, _)| g == group && *t == tp)
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
        g.commit("a", tp, 3, Some(0));
        g.commit("a", tp, 5, None);
        g.commit("b", tp, 1, Some(2));
        assert_eq!(g.committed("a", tp), Some(5));
        assert_eq!(g.committed("b", tp), Some(1));
        assert_eq!(
            g.committed_epoch("a", tp),
            None,
            "the newer commit had none"
        );
        assert_eq!(g.committed_epoch("b", tp), Some(2));
        assert_eq!(g.all().count(), 2);
    }

    #[test]
    fn pending_offsets_count_only_after_a_commit_marker() {
        let mut g = GroupOffsets::default();
        let tp = Tp {
            topic: 0,
            partition: 0,
        };
        g.add_pending(7, "rpw", tp, 4, Some(1));
        assert!(g.has_pending("rpw", tp));
        assert_eq!(g.committed("rpw", tp), None);
        assert_eq!(g.complete_pending(7, false).len(), 1);
        assert_eq!(g.committed("rpw", tp), None, "an abort drops them");
        g.add_pending(8, "rpw", tp, 6, Some(3));
        g.complete_pending(8, true);
        assert_eq!(g.committed("rpw", tp), Some(6));
        assert_eq!(g.committed_epoch("rpw", tp), Some(3), "its epoch with it");
        assert!(!g.has_pending("rpw", tp));
    }

    #[test]
    fn the_coordinator_is_a_live_broker_index() {
        for n in 1..=3 {
            assert!(coordinator_for("readers", n) < n);
        }
        assert_eq!(coordinator_for("x", 0), 0);
    }
}
