//! Structured facts that handlers report. They feed the oracle's ledger and the narration;
//! each step's notes are what a student reads about it.

use crate::ids::{NodeId, RecordId, Tp};
use crate::kafka::errors::KafkaError;
use crate::kafka::protocol::MessageKind;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "note")]
pub enum Note {
    /// Flink's jobs.
    Flink(super::flink_note::FlinkNote),
    // --- producer ---
    ProducerIdRequested {
        producer: NodeId,
        broker: NodeId,
    },
    ProducerIdAssigned {
        producer: NodeId,
        producer_id: i64,
        epoch: i16,
    },
    ProducerIdAllocated {
        broker: NodeId,
        producer_id: i64,
    },
    RecordAccepted {
        producer: NodeId,
        record: RecordId,
        key: Option<u32>,
        tp: Tp,
    },
    BatchSent {
        producer: NodeId,
        broker: NodeId,
        tp: Tp,
        request_id: u64,
        records: Vec<RecordId>,
        producer_id: i64,
        epoch: i16,
        base_sequence: i32,
        attempt: u32,
    },
    RequestTimedOut {
        producer: NodeId,
        tp: Tp,
        request_id: u64,
        records: Vec<RecordId>,
        attempt: u32,
        timeout_ms: u64,
    },
    RetryScheduled {
        producer: NodeId,
        tp: Tp,
        records: Vec<RecordId>,
        backoff: SimTime,
        reason: KafkaError,
    },
    Delivered {
        producer: NodeId,
        tp: Tp,
        records: Vec<RecordId>,
        base_offset: Option<u64>,
        duplicate_answer: bool,
    },
    DeliveryFailed {
        producer: NodeId,
        tp: Tp,
        records: Vec<RecordId>,
        error: KafkaError,
        /// The batch may be in the log: it was transmitted and never answered.
        indeterminate: bool,
    },
    StaleResponseIgnored {
        producer: NodeId,
        request_id: u64,
        kind: MessageKind,
    },
    EpochBumped {
        producer: NodeId,
        producer_id: i64,
        new_epoch: i16,
    },
    LeaderChanged {
        producer: NodeId,
        tp: Tp,
        leader: u8,
    },
    // --- broker ---
    Appended {
        broker: NodeId,
        tp: Tp,
        base_offset: u64,
        records: Vec<RecordId>,
        producer_id: i64,
        epoch: i16,
        base_sequence: i32,
        transactional: bool,
    },
    DuplicateDetected {
        broker: NodeId,
        tp: Tp,
        producer_id: i64,
        epoch: i16,
        base_sequence: i32,
        last_sequence: i32,
        original_offset: u64,
        records: Vec<RecordId>,
    },
    AppendRejected {
        broker: NodeId,
        tp: Tp,
        producer_id: i64,
        epoch: i16,
        base_sequence: i32,
        error: KafkaError,
        expected_sequence: Option<i32>,
        records: Vec<RecordId>,
    },
    AckWaitsForReplicas {
        broker: NodeId,
        tp: Tp,
        base_offset: u64,
    },
    Replicated {
        broker: NodeId,
        tp: Tp,
        records: u64,
        log_end_offset: u64,
    },
    HighWatermarkAdvanced {
        broker: NodeId,
        tp: Tp,
        high_watermark: u64,
    },
    NotLeader {
        broker: NodeId,
        tp: Tp,
        leader: Option<u8>,
    },
    FetchServed {
        broker: NodeId,
        consumer: NodeId,
        tp: Tp,
        from: u64,
        count: u32,
        high_watermark: u64,
        last_stable_offset: u64,
        isolation: crate::kafka::Isolation,
    },
    LeaderElected {
        tp: Tp,
        broker: NodeId,
        leader_epoch: u32,
        lost_records: Vec<RecordId>,
    },
    PartitionOffline {
        tp: Tp,
    },
    LogTruncated {
        broker: NodeId,
        tp: Tp,
        to_offset: u64,
        dropped: Vec<RecordId>,
    },
    // --- transactions ---
    TxnTransition {
        coordinator: NodeId,
        transactional_id: String,
        from: String,
        to: String,
        producer_id: i64,
        epoch: i16,
    },
    TxnRequestRefused {
        coordinator: NodeId,
        transactional_id: String,
        request: String,
        producer_id: i64,
        epoch: i16,
        error: KafkaError,
    },
    TxnFencedByNewInstance {
        coordinator: NodeId,
        transactional_id: String,
    },
    TxnTimedOut {
        coordinator: NodeId,
        transactional_id: String,
        timeout_ms: u64,
    },
    TxnRecovered {
        coordinator: NodeId,
        transactional_id: String,
        state: String,
    },
    MarkerWritten {
        broker: NodeId,
        tp: Tp,
        producer_id: i64,
        control: crate::kafka::txn_index::ControlType,
        offset: u64,
        closed_transaction: bool,
    },
    TxnOffsetsPending {
        broker: NodeId,
        group: String,
        producer_id: i64,
        offsets: Vec<(Tp, u64)>,
    },
    TxnOffsetsCompleted {
        broker: NodeId,
        producer_id: i64,
        control: crate::kafka::txn_index::ControlType,
        offsets: Vec<(String, Tp, u64)>,
    },
    TxnBegun {
        producer: NodeId,
        transactional_id: String,
        number: u32,
    },
    TxnRequestSent {
        producer: NodeId,
        what: String,
    },
    TxnRetry {
        producer: NodeId,
        error: KafkaError,
        backoff: SimTime,
    },
    TxnEnded {
        producer: NodeId,
        transactional_id: String,
        commit: bool,
        records: Vec<RecordId>,
        new_epoch: i16,
    },
    ProducerFenced {
        producer: NodeId,
        error: KafkaError,
        records: Vec<RecordId>,
    },
    // --- consumer ---
    FetchSent {
        consumer: NodeId,
        broker: NodeId,
        tp: Tp,
        offset: u64,
    },
    Read {
        consumer: NodeId,
        tp: Tp,
        records: Vec<(u64, RecordId)>,
        /// Markers and aborted records the client dropped from the fetch.
        skipped: u32,
        isolation: crate::kafka::Isolation,
    },
    PolledNothing {
        consumer: NodeId,
        tp: Tp,
        offset: u64,
        skipped: u32,
        last_stable_offset: u64,
        high_watermark: u64,
        isolation: crate::kafka::Isolation,
    },
    OffsetFetchRetry {
        consumer: NodeId,
        error: KafkaError,
    },
    ConsumerStopped {
        consumer: NodeId,
    },
    Processed {
        processor: NodeId,
        guarantee: String,
        inputs: Vec<RecordId>,
    },
    OffsetsCommitted {
        broker: NodeId,
        consumer: NodeId,
        group: String,
        offsets: Vec<(Tp, u64)>,
    },
    ResumedFromCommitted {
        consumer: NodeId,
        group: String,
        offsets: Vec<(Tp, Option<u64>)>,
    },
    // --- network and faults ---
    MessageDropped {
        from: NodeId,
        to: NodeId,
        kind: MessageKind,
        label: String,
        why: DropReason,
    },
    AckLost {
        broker: NodeId,
        producer: NodeId,
        tp: Tp,
        base_offset: u64,
    },
    MessageDelayed {
        from: NodeId,
        to: NodeId,
        kind: MessageKind,
        extra: SimTime,
    },
    MessageDuplicated {
        from: NodeId,
        to: NodeId,
        kind: MessageKind,
        extra: SimTime,
    },
    HeldWhileFrozen {
        node: NodeId,
        kind: MessageKind,
    },
    LostAtCrashedNode {
        node: NodeId,
        kind: MessageKind,
    },
    Frozen {
        node: NodeId,
        duration: SimTime,
    },
    Thawed {
        node: NodeId,
        held: u32,
    },
    Crashed {
        node: NodeId,
    },
    Restarted {
        node: NodeId,
    },
    FaultArmed {
        description: String,
    },
    LinkCut {
        a: NodeId,
        b: NodeId,
    },
    LinkHealed {
        a: NodeId,
        b: NodeId,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// A scheduled or injected drop fault.
    Fault,
    /// The link is cut.
    Partitioned,
    /// The link's random loss rate.
    RandomLoss,
}

/// Kinds of step a viewer may want to jump to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Notable {
    Retry,
    DuplicateDetected,
    DuplicateAppended,
    Rejected,
    Fencing,
    Crash,
    Freeze,
    Loss,
    Delivered,
    Commit,
    Abort,
    /// A Flink checkpoint completed.
    Checkpoint,
}

impl Note {
    /// What makes this note worth a jump, if anything.
    pub fn notable(&self) -> Option<Notable> {
        match self {
            Note::RequestTimedOut { .. } | Note::RetryScheduled { .. } | Note::TxnRetry { .. } => {
                Some(Notable::Retry)
            }
            Note::DuplicateDetected { .. } => Some(Notable::DuplicateDetected),
            Note::AppendRejected {
                error: KafkaError::InvalidProducerEpoch,
                ..
            } => Some(Notable::Fencing),
            Note::AppendRejected { .. } => Some(Notable::Rejected),
            Note::EpochBumped { .. } => Some(Notable::Fencing),
            Note::Crashed { .. } | Note::Restarted { .. } => Some(Notable::Crash),
            Note::Frozen { .. } | Note::Thawed { .. } => Some(Notable::Freeze),
            Note::AckLost { .. } | Note::MessageDropped { .. } | Note::DeliveryFailed { .. } => {
                Some(Notable::Loss)
            }
            Note::LeaderElected { lost_records, .. } if !lost_records.is_empty() => {
                Some(Notable::Loss)
            }
            Note::Delivered { .. } => Some(Notable::Delivered),
            Note::TxnEnded { commit: true, .. } => Some(Notable::Commit),
            Note::TxnEnded { commit: false, .. } | Note::TxnTimedOut { .. } => Some(Notable::Abort),
            Note::ProducerFenced { .. } | Note::TxnFencedByNewInstance { .. } => {
                Some(Notable::Fencing)
            }
            Note::MarkerWritten {
                control: crate::kafka::txn_index::ControlType::Commit,
                ..
            } => Some(Notable::Commit),
            Note::MarkerWritten { .. } => Some(Notable::Abort),
            Note::Flink(f) => f.notable(),
            _ => None,
        }
    }
}
