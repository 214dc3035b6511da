//! One broker's copy of one partition: its log, the producer-state table, and, on the
//! leader, the followers' log end offsets, the high watermark and the produce requests
//! waiting for `acks=all`.

use super::partition_log::PartitionLog;
use super::producer_state::ProducerStateTable;
use super::txn_index::{MarkerOrigin, TxnIndex};
use super::Isolation;
use crate::ids::{NodeId, Tp};
use crate::time::SimTime;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};

/// An `acks=all` answer held until the high watermark passes the batch.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PendingAck {
    pub request_id: u64,
    pub producer: NodeId,
    pub base_offset: u64,
    pub end_offset: u64,
    /// A retry of a stored batch: answered with the original offset (Kafka holds a
    /// duplicate's answer for the replicas as it does an append's).
    #[serde(default)]
    pub duplicate: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Replica {
    pub tp: Tp,
    pub log: PartitionLog,
    pub producers: ProducerStateTable,
    pub leader: Option<u8>,
    pub leader_epoch: u32,
    pub replicas: Vec<u8>,
    pub isr: Vec<u8>,
    /// `min.insync.replicas` of its topic.
    pub min_insync: u8,
    /// `unclean.leader.election.enable` of its topic.
    #[serde(default)]
    pub unclean_election: bool,
    pub high_watermark: u64,
    pub follower_leo: VecMap<u8, u64>,
    /// When this broker began to lead the partition (its election or restart): the
    /// followers' lag counts from no earlier (`isr_expiry`).
    #[serde(default)]
    pub leading_since: SimTime,
    pub pending_acks: Vec<PendingAck>,
    /// Open transactions and the aborted-transaction index.
    pub txn: TxnIndex,
}

impl Replica {
    pub fn new(tp: Tp, replicas: Vec<u8>) -> Self {
        Replica {
            tp,
            log: PartitionLog::default(),
            producers: ProducerStateTable::default(),
            leader: replicas.first().copied(),
            leader_epoch: 0,
            isr: replicas.clone(),
            replicas,
            min_insync: 1,
            unclean_election: false,
            high_watermark: 0,
            follower_leo: VecMap::new(),
            leading_since: 0,
            pending_acks: Vec::new(),
            txn: TxnIndex::default(),
        }
    }

    /// `min.insync.replicas`, capped at the replica count (Kafka 3.7+, KIP-966).
    pub fn effective_min_insync(&self) -> u8 {
        let replicas = u8::try_from(self.replicas.len()).unwrap_or(u8::MAX);
        self.min_insync.min(replicas)
    }

    /// Fewer replicas in sync than `min.insync.replicas`: `acks=all` cannot be met, and the
    /// high watermark stays where it is.
    pub fn too_few_in_sync(&self) -> bool {
        self.isr.len() < usize::from(self.effective_min_insync())
    }

    pub fn is_leader(&self, me: u8) -> bool {
        self.leader == Some(me)
    }

    /// Last stable offset: the high watermark, or the first offset of the earliest
    /// transaction not yet decided and marked, whichever is lower.
    pub fn last_stable_offset(&self) -> u64 {
        self.txn.last_stable_offset(self.high_watermark)
    }

    /// How far a reader at this isolation level may read.
    pub fn fetch_upper_bound(&self, isolation: Isolation) -> u64 {
        self.txn.fetch_upper_bound(isolation, self.high_watermark)
    }

    /// Keeps the transaction index in step with a batch just stored (leader or follower).
    pub fn index_batch(&mut self, batch: &super::partition_log::StoredBatch, origin: MarkerOrigin) {
        if let Some(control) = batch.control {
            let _ = self.txn.complete(
                batch.producer_id,
                batch.epoch,
                control,
                batch.base_offset,
                origin,
            );
        } else if batch.transactional {
            let _ = self
                .txn
                .begin_if_needed(batch.producer_id, batch.epoch, batch.base_offset);
        }
    }

    /// A follower learns a higher high watermark from its leader.
    pub fn set_high_watermark(&mut self, hw: u64) {
        let hw = hw.min(self.log.log_end_offset());
        if hw > self.high_watermark {
            self.high_watermark = hw;
            self.txn.on_high_watermark(hw);
        }
    }

    /// The leader's high watermark: the smallest log end offset among the in-sync replicas,
    /// held while they are fewer than `min.insync.replicas` (Kafka 3.7+, KIP-966's strict
    /// min ISR: what only they have is not yet readable). Returns true when it moved.
    pub fn recompute_high_watermark(&mut self, me: u8) -> bool {
        if self.too_few_in_sync() {
            return false;
        }
        let mut hw = self.log.log_end_offset();
        for follower in self.isr.iter().filter(|b| **b != me) {
            hw = hw.min(self.follower_leo.get(follower).copied().unwrap_or(0));
        }
        // The high watermark never moves backwards on a leader.
        if hw > self.high_watermark {
            self.high_watermark = hw;
            self.txn.on_high_watermark(hw);
            true
        } else {
            false
        }
    }

    /// Pending answers whose batch is now below the high watermark.
    pub fn take_releasable_acks(&mut self) -> Vec<PendingAck> {
        let hw = self.high_watermark;
        let (ready, waiting): (Vec<_>, Vec<_>) = self
            .pending_acks
            .drain(..)
            .partition(|p| p.end_offset <= hw);
        self.pending_acks = waiting;
        ready
    }

    /// Truncates to `offset` and rebuilds the producer state from what is left.
    pub fn truncate_to(&mut self, offset: u64) -> Vec<crate::ids::RecordId> {
        let dropped: Vec<_> = self
            .log
            .batches_from(0)
            .iter()
            .filter(|b| b.base_offset >= offset)
            .flat_map(|b| b.records.iter().map(|r| r.value))
            .collect();
        self.log.truncate_to(offset);
        self.producers = ProducerStateTable::rebuild(self.log.batches());
        self.high_watermark = self.high_watermark.min(self.log.log_end_offset());
        self.txn = TxnIndex::default();
        let batches = self.log.batches().to_vec();
        for b in &batches {
            self.index_batch(b, MarkerOrigin::Replication);
        }
        self.txn.on_high_watermark(self.high_watermark);
        dropped
    }
}
