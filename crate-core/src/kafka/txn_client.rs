//! The transactional producer's client-side state (Kafka `TransactionManager`): which
//! transaction of the workload runs, which partitions it added, which coordinator request is
//! outstanding. The producer drives it; this file holds the state and its rules.

use super::producer::SendSpec;
use super::txn_state::TxnProtocolVersion;
use crate::ids::{RecordId, Tp};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// One transaction of the workload: its records, and how the application ends it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TxnWork {
    pub at: SimTime,
    pub sends: Vec<SendSpec>,
    pub commit: bool,
    /// Records placed by the caller (a read-process-write loop), sent at begin.
    #[serde(default)]
    pub explicit: Vec<super::producer::Unconfirmed>,
    /// `sendOffsetsToTransaction`: the input offsets committed with the transaction.
    #[serde(default)]
    pub offsets: Option<TxnOffsets>,
}

/// Consumed offsets to commit inside a transaction, for a group and its coordinator.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TxnOffsets {
    pub group: String,
    pub group_coordinator: u8,
    pub offsets: Vec<(Tp, u64)>,
    /// The leader epochs of the offsets, where known.
    #[serde(default)]
    pub leader_epochs: Vec<(Tp, u32)>,
}

impl TxnWork {
    pub fn records(&self) -> u32 {
        self.sends.iter().map(|s| s.count).sum::<u32>() + self.explicit.len() as u32
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxnPhase {
    /// No producer id yet (or crashed).
    Uninitialized,
    Initializing,
    Ready,
    InTransaction,
    /// EndTxn sent, waiting for the coordinator's answer.
    Ending,
    /// Fenced or broken: the producer is closed.
    Fatal,
}

/// The coordinator request the client is waiting on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxnRequest {
    AddPartitions {
        partitions: Vec<Tp>,
    },
    /// AddOffsetsToTxn: the group's offsets partition joins the transaction.
    AddOffsets,
    /// TxnOffsetCommit, sent to the group coordinator.
    CommitOffsets,
    End {
        commit: bool,
    },
}

impl TxnRequest {
    /// The request's message kind on the wire.
    pub fn kind(&self) -> super::protocol::MessageKind {
        use super::protocol::MessageKind;
        match self {
            TxnRequest::AddPartitions { .. } => MessageKind::AddPartitionsToTxn,
            TxnRequest::AddOffsets => MessageKind::AddOffsetsToTxn,
            TxnRequest::CommitOffsets => MessageKind::TxnOffsetCommit,
            TxnRequest::End { .. } => MessageKind::EndTxn,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TxnClient {
    pub transactional_id: String,
    pub timeout_ms: u64,
    pub coordinator: u8,
    pub protocol: TxnProtocolVersion,
    pub work: Vec<TxnWork>,
    /// The transaction to run next (the application's durable progress).
    pub next: u32,
    pub phase: TxnPhase,
    /// Partitions added to the running transaction.
    pub partitions: BTreeSet<Tp>,
    pub outstanding: Option<(u64, TxnRequest)>,
    /// Records of the running transaction, and how many of each send were handed over.
    pub records: Vec<RecordId>,
    pub handed: Vec<u32>,
    /// A send failed: the transaction can only abort.
    pub must_abort: bool,
    /// The transaction's offsets were added (AddOffsetsToTxn) and sent (TxnOffsetCommit).
    pub offsets_added: bool,
    pub offsets_sent: bool,
    /// After a crash the application runs its unfinished transaction again.
    pub rerun_on_restart: bool,
    /// A retriable coordinator error: the request goes again when the backoff ends.
    #[serde(default)]
    pub retry_scheduled: bool,
    /// How the last transaction ended (true: committed).
    #[serde(default)]
    pub last_committed: Option<bool>,
    /// When the application called `commitTransaction()` or `abortTransaction()` (the first
    /// EndTxn of the transaction): it waits at most `MAX_BLOCK_MS` for the answer.
    #[serde(default)]
    pub ending_since: Option<SimTime>,
    /// Closed because EndTxn or InitProducerId went unanswered for `MAX_BLOCK_MS`, not
    /// because it was fenced.
    #[serde(default)]
    pub gave_up: bool,
    /// When the application called `initTransactions()`: it too waits at most `MAX_BLOCK_MS`.
    #[serde(default)]
    pub init_since: Option<SimTime>,
    /// It was `initTransactions()` that gave up (with `gave_up`).
    #[serde(default)]
    pub gave_up_init: bool,
}

/// The Java producer's `max.block.ms` default: how long `initTransactions()`,
/// `commitTransaction()` and `abortTransaction()` wait before they throw a TimeoutException.
pub const MAX_BLOCK_MS: u64 = 60_000;

impl TxnClient {
    pub fn new(
        transactional_id: String,
        timeout_ms: u64,
        coordinator: u8,
        protocol: TxnProtocolVersion,
        work: Vec<TxnWork>,
        rerun_on_restart: bool,
    ) -> Self {
        TxnClient {
            transactional_id,
            timeout_ms,
            coordinator,
            protocol,
            work,
            next: 0,
            phase: TxnPhase::Uninitialized,
            partitions: BTreeSet::new(),
            outstanding: None,
            records: Vec::new(),
            handed: Vec::new(),
            must_abort: false,
            offsets_added: false,
            offsets_sent: false,
            rerun_on_restart,
            retry_scheduled: false,
            last_committed: None,
            ending_since: None,
            gave_up: false,
            init_since: None,
            gave_up_init: false,
        }
    }

    pub fn current(&self) -> Option<&TxnWork> {
        self.work.get(self.next as usize)
    }

    /// Every record of the running transaction has been handed to the accumulator.
    pub fn all_handed(&self) -> bool {
        self.current()
            .is_some_and(|w| w.sends.iter().zip(&self.handed).all(|(s, h)| *h >= s.count))
    }

    /// Whether batches for `tp` may be sent now.
    pub fn may_send(&self, tp: Tp) -> bool {
        self.phase == TxnPhase::InTransaction && self.partitions.contains(&tp)
    }

    /// Under transaction protocol 2 a partition is only tracked by the client (Kafka's
    /// `maybeAddPartition`): no AddPartitionsToTxn, its leader adds it.
    pub fn track_partition(&mut self, tp: Tp) {
        if self.protocol.leader_adds_partitions() && self.phase == TxnPhase::InTransaction {
            self.partitions.insert(tp);
        }
    }

    pub fn begin(&mut self) {
        self.phase = TxnPhase::InTransaction;
        self.partitions.clear();
        self.records.clear();
        self.must_abort = false;
        self.offsets_added = false;
        self.offsets_sent = false;
        self.handed = vec![0; self.current().map_or(0, |w| w.sends.len())];
    }

    /// The offsets still to send before EndTxn, if the transaction carries any.
    pub fn offsets_step(&self) -> Option<TxnRequest> {
        let offsets = self.current().and_then(|w| w.offsets.as_ref())?;
        if offsets.offsets.is_empty() || self.must_abort {
            None
        } else if !self.offsets_added && !self.protocol.leader_adds_partitions() {
            // Under protocol 2 TxnOffsetCommit goes alone: the group coordinator adds the
            // offsets partition.
            Some(TxnRequest::AddOffsets)
        } else if !self.offsets_sent {
            Some(TxnRequest::CommitOffsets)
        } else {
            None
        }
    }

    /// The process died: everything but the workload and its progress is gone.
    pub fn crash(&mut self) {
        let was_running = matches!(
            self.phase,
            TxnPhase::InTransaction | TxnPhase::Ending | TxnPhase::Fatal
        );
        if was_running && !self.rerun_on_restart {
            self.next += 1;
        }
        self.phase = TxnPhase::Uninitialized;
        self.partitions.clear();
        self.outstanding = None;
        self.retry_scheduled = false;
        self.records.clear();
        self.handed.clear();
        self.must_abort = false;
        self.offsets_added = false;
        self.offsets_sent = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kafka::producer::KeyPlan;

    fn work(counts: &[u32]) -> TxnWork {
        TxnWork {
            at: 0,
            commit: true,
            explicit: Vec::new(),
            offsets: None,
            sends: counts
                .iter()
                .map(|c| SendSpec {
                    at: 0,
                    topic: 0,
                    partitions: 1,
                    partition: Some(0),
                    keys: KeyPlan::Null,
                    count: *c,
                    interval: 0,
                    first_record: 0,
                })
                .collect(),
        }
    }

    #[test]
    fn all_handed_tracks_every_send() {
        let mut c = TxnClient::new(
            "t".into(),
            60_000,
            0,
            TxnProtocolVersion::V2,
            vec![work(&[2, 1])],
            false,
        );
        c.begin();
        assert!(!c.all_handed());
        c.handed = vec![2, 0];
        assert!(!c.all_handed());
        c.handed = vec![2, 1];
        assert!(c.all_handed());
        assert_eq!(c.current().map(TxnWork::records), Some(3));
    }

    #[test]
    fn only_added_partitions_may_be_written() {
        let mut c = TxnClient::new(
            "t".into(),
            60_000,
            0,
            TxnProtocolVersion::V2,
            vec![work(&[1])],
            false,
        );
        let tp = Tp {
            topic: 0,
            partition: 0,
        };
        assert!(!c.may_send(tp));
        c.begin();
        assert!(!c.may_send(tp), "not added yet");
        c.partitions.insert(tp);
        assert!(c.may_send(tp));
    }

    #[test]
    fn a_crash_skips_or_reruns_the_unfinished_transaction() {
        let mut skip = TxnClient::new(
            "t".into(),
            60_000,
            0,
            TxnProtocolVersion::V2,
            vec![work(&[1]), work(&[1])],
            false,
        );
        skip.begin();
        skip.crash();
        assert_eq!((skip.next, skip.phase), (1, TxnPhase::Uninitialized));
        let mut rerun = TxnClient::new(
            "t".into(),
            60_000,
            0,
            TxnProtocolVersion::V2,
            vec![work(&[1])],
            true,
        );
        rerun.begin();
        rerun.crash();
        assert_eq!(rerun.next, 0);
    }
}
