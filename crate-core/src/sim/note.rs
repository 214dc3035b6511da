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
    /// The application has nothing left to send and closes the producer, which stops
    /// asking for a producer id.
    ProducerClosed {
        producer: NodeId,
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
    /// After a request timeout the client closes its connection to the broker: every other
    /// request in flight on it fails and is retried.
    ConnectionClosed {
        producer: NodeId,
        broker: NodeId,
        /// The records of the other requests that were in flight on the connection.
        records: Vec<RecordId>,
        /// The request that went unanswered for `request.timeout.ms` (ms), when it was not
        /// a Produce request (those have their own `RequestTimedOut`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timed_out: Option<(crate::kafka::protocol::MessageKind, u64)>,
    },
    RetryScheduled {
        producer: NodeId,
        tp: Tp,
        records: Vec<RecordId>,
        backoff: SimTime,
        reason: KafkaError,
        /// The backoff is `retry.backoff.max.ms`: the jitter can only shorten it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        capped: bool,
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
    /// A follower has caught up with the leader: the leader adds it to the ISR and tells the
    /// controller (AlterPartition), whose metadata every broker then has.
    IsrExpanded {
        broker: NodeId,
        tp: Tp,
        follower: NodeId,
        isr: Vec<u8>,
    },
    /// An `acks=all` write meets fewer in-sync replicas than `min.insync.replicas`: refused
    /// before the append (`appended_at: None`, NOT_ENOUGH_REPLICAS), or answered so after
    /// it was appended and copied (`Some(base offset)`, NOT_ENOUGH_REPLICAS_AFTER_APPEND).
    TooFewInSync {
        broker: NodeId,
        tp: Tp,
        isr: Vec<u8>,
        min_insync: u8,
        appended_at: Option<u64>,
        records: Vec<RecordId>,
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
        /// The topic allows unclean leader election: any replica back ends the outage.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        unclean: bool,
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
        /// The epoch before this write (protocol 2 bumps it at every EndTxn).
        from_epoch: i16,
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
        /// `transaction.abort.timed.out.transaction.cleanup.interval.ms`.
        scan_interval_ms: u64,
        /// How long past its timeout the scan found it.
        overdue: SimTime,
    },
    TxnRecovered {
        coordinator: NodeId,
        transactional_id: String,
        state: String,
    },
    /// The controller fenced `from`: `to`, another replica of its `__transaction_state`
    /// partition, leads it now and coordinates its transactional ids (`ids`: those it
    /// loaded from the log).
    TxnCoordinatorMoved {
        from: NodeId,
        to: NodeId,
        ids: Vec<String>,
    },
    /// A broker whose transaction coordination moved is asked as coordinator: it answers
    /// NOT_COORDINATOR.
    NotCoordinator {
        broker: NodeId,
        transactional_id: String,
        coordinator: NodeId,
        kind: crate::kafka::protocol::MessageKind,
    },
    /// A transactional client learns that its coordinator moved (FindCoordinator).
    TxnCoordinatorFound {
        client: NodeId,
        transactional_id: String,
        coordinator: NodeId,
        /// The request it sends again there at once, if one was waiting on the old one.
        resent: Option<crate::kafka::protocol::MessageKind>,
    },
    /// EndTxn found the transaction already ended the same way: answered as a retry,
    /// nothing written.
    TxnEndAnsweredAsRetry {
        coordinator: NodeId,
        transactional_id: String,
        request: String,
        state: String,
        producer_id: i64,
        epoch: i16,
        /// Protocol 1: a retry and a new EndTxn at one epoch look alike (KAFKA-17754).
        same_epoch_as_new: bool,
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
        /// `auto.offset.reset`, for the partitions with nothing committed.
        #[serde(default, skip_serializing_if = "is_earliest")]
        reset: crate::kafka::OffsetReset,
    },
    // --- network and faults ---
    MessageDropped {
        from: NodeId,
        to: NodeId,
        kind: MessageKind,
        label: String,
        why: DropReason,
        /// The message's id and when it was sent, for a view that names it.
        #[serde(default)]
        msg: u64,
        #[serde(default)]
        sent_at: SimTime,
    },
    AckLost {
        broker: NodeId,
        producer: NodeId,
        tp: Tp,
        base_offset: u64,
        /// The acknowledgement's message id and when it was sent.
        #[serde(default)]
        msg: u64,
        #[serde(default)]
        sent_at: SimTime,
        /// Stuck behind an earlier message lost on the same connection (TCP keeps order),
        /// rather than lost itself.
        #[serde(default)]
        behind: bool,
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
    // Added last: a variant's place is part of every trace hash.
    /// A starting client's first metadata answer moved some partitions' leaders from where
    /// it would have sent its requests (a broker went down before it started).
    MetadataLearned {
        client: NodeId,
        leaders: Vec<(Tp, u8)>,
    },
    /// A deposed leader's replication reached a broker that knows a newer leader epoch: its
    /// records are not taken (Kafka fences a request from an older leader epoch).
    StaleReplicationIgnored {
        broker: NodeId,
        from: NodeId,
        tp: Tp,
        leader_epoch: u32,
        current_epoch: u32,
    },
    /// The controller fences a crashed broker: its session expired (no heartbeat for
    /// `broker.session.timeout.ms`), or it registered again after a restart.
    BrokerFenced {
        broker: NodeId,
        session_timeout_ms: u64,
        restarted: bool,
    },
    /// A broker fenced while frozen thaws: it registers again and follows the current leaders.
    BrokerRejoined {
        broker: NodeId,
    },
    /// A thawed broker hears the controller again and takes the metadata it missed while
    /// frozen: it no longer leads `demoted`, and it answers the `answered` produce requests
    /// that waited for its followers NOT_LEADER_OR_FOLLOWER.
    MetadataCaughtUp {
        broker: NodeId,
        demoted: Vec<Tp>,
        answered: u32,
    },
    /// A client that lost its connection to a broker (a request timed out) asked a broker
    /// that answers for fresh metadata, as Kafka's NetworkClient does, and the Metadata
    /// response has arrived: these leaders moved.
    MetadataRefreshed {
        client: NodeId,
        leaders: Vec<(Tp, u8)>,
        /// Partitions the client writes or reads that have no leader at all (offline).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        offline: Vec<Tp>,
    },
    /// A client whose request timed out asks a broker for fresh metadata (a Metadata request
    /// on the wire; `metadata_refreshed` when the answer arrives).
    MetadataRequested {
        client: NodeId,
        broker: NodeId,
        /// Its earlier Metadata request went down with the connection it just closed.
        #[serde(default)]
        again: bool,
        /// It was told NOT_COORDINATOR: it looks its transaction coordinator up.
        #[serde(default)]
        find_coordinator: bool,
    },
    /// A broker restarted while the session of the instance that crashed was still valid:
    /// the controller refuses its registration (DUPLICATE_BROKER_REGISTRATION) until that
    /// session expires (`accepted: false`), then takes it as a new incarnation
    /// (`accepted: true`).
    BrokerRegistration {
        broker: NodeId,
        accepted: bool,
        session_timeout_ms: u64,
    },
    /// A partition leader holds a transactional write (a batch, or TxnOffsetCommit at the
    /// group coordinator) until the transaction coordinator confirms its partition is in the
    /// producer's transaction (KIP-890). `add`: protocol 2, the leader adds it (the client
    /// sends no AddPartitionsToTxn); otherwise protocol 1, the leader only verifies it.
    /// `again`: after CONCURRENT_TRANSACTIONS.
    TxnPartitionCheck {
        broker: NodeId,
        coordinator: NodeId,
        tp: Tp,
        producer_id: i64,
        epoch: i16,
        add: bool,
        again: bool,
        records: Vec<RecordId>,
    },
    /// The check failed, or had no answer in time (`error: None`), or `cause` says why else:
    /// the leader refuses the held write with `answered` and stores nothing.
    TxnPartitionCheckFailed {
        broker: NodeId,
        tp: Tp,
        producer_id: i64,
        epoch: i16,
        error: Option<KafkaError>,
        answered: KafkaError,
        records: Vec<RecordId>,
        #[serde(default)]
        cause: crate::kafka::txn_check::CheckFailure,
    },
    /// The second copy of a message the network duplicated arrives: its receiver takes it
    /// like any request.
    CopyArrived {
        from: NodeId,
        to: NodeId,
        kind: MessageKind,
        sent_at: SimTime,
    },
    /// `commitTransaction()` or `abortTransaction()` waited `max.block.ms` for the
    /// coordinator's answer to EndTxn: it threw a TimeoutException, and the application
    /// closed the producer.
    TxnEndGaveUp {
        producer: NodeId,
        commit: bool,
        waited: SimTime,
    },
    /// `initTransactions()` waited `max.block.ms` for InitProducerId's answer and threw.
    TxnInitGaveUp {
        producer: NodeId,
        waited: SimTime,
    },
    /// A producer holds batches for partitions the metadata says have no leader: it sends
    /// them nothing and asks `broker` for metadata again, every `backoff`.
    LeaderAwaited {
        client: NodeId,
        broker: NodeId,
        tps: Vec<Tp>,
        backoff: SimTime,
    },
    /// No in-sync replica of `tp` is alive and its topic enables unclean leader election:
    /// the controller elects `broker`, out of sync, alone in the ISR. `lost_records`: what
    /// the last leader had and it lacks.
    UncleanLeaderElected {
        tp: Tp,
        broker: NodeId,
        leader_epoch: u32,
        lost_records: Vec<RecordId>,
    },
    /// A reader's fetch position on `tp` moved `from` → `to` at the leader's word: its log
    /// ends the reader's leader epoch `diverged` below the position (KIP-320's truncation
    /// detection, after an unclean election), or, with `diverged` `None`, the position is
    /// past the log end (OFFSET_OUT_OF_RANGE, reset to the earliest offset).
    PositionReset {
        reader: NodeId,
        tp: Tp,
        from: u64,
        to: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        diverged: Option<u32>,
    },
    /// The leader of `tp` took `followers` out of the ISR (now `isr`): they have lacked some
    /// of its records since `behind_since`, longer than `replica.lag.time.max.ms`
    /// (`lag_max_ms`). It tells the controller (AlterPartition).
    IsrShrunk {
        broker: NodeId,
        tp: Tp,
        followers: Vec<u8>,
        behind_since: SimTime,
        lag_max_ms: u64,
        isr: Vec<u8>,
        /// The topic's `min.insync.replicas` (capped at its replica count).
        min_insync: u8,
    },
    /// `auto.offset.reset=latest`: a consumer with no committed offset for `tp` (or, with
    /// `past_end`, a position past the log end) asks `broker` where the log ends
    /// (ListOffsets).
    OffsetLookup {
        consumer: NodeId,
        broker: NodeId,
        tp: Tp,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        past_end: Option<u64>,
    },
    /// ... and starts `tp` at `offset`, the log end it may read at its `isolation` level:
    /// what lies below and it has not read, it never reads.
    StartsAtLatest {
        consumer: NodeId,
        tp: Tp,
        offset: u64,
        isolation: crate::kafka::Isolation,
    },
    /// `auto.offset.reset=none`: no committed offset for `tp` (or, with `past_end`, a
    /// position past the log end): `poll()` throws and the application stops.
    NoResetPolicy {
        consumer: NodeId,
        tp: Tp,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        past_end: Option<u64>,
    },
    /// A marker refused before the append: the ISR is below `min.insync.replicas` (markers
    /// are written with acks=-1). NOT_ENOUGH_REPLICAS to the coordinator.
    MarkerRefused {
        broker: NodeId,
        tp: Tp,
        producer_id: i64,
        control: crate::kafka::txn_index::ControlType,
        isr: Vec<u8>,
        min_insync: u8,
    },
    /// A marker appended at `offset`: the coordinator's answer waits for the ISR to have it.
    MarkerWaitsForReplicas {
        broker: NodeId,
        tp: Tp,
        offset: u64,
        control: crate::kafka::txn_index::ControlType,
    },
    /// The coordinator sends markers again after a retriable error, `backoff_ms` later.
    MarkersRetried {
        coordinator: NodeId,
        transactional_id: String,
        control: crate::kafka::txn_index::ControlType,
        partitions: Vec<Tp>,
        error: KafkaError,
        backoff_ms: u64,
        /// 0 for the first retry of these markers.
        attempt: u32,
    },
}

fn is_earliest(reset: &crate::kafka::OffsetReset) -> bool {
    *reset == crate::kafka::OffsetReset::Earliest
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
    /// Stuck behind an earlier message lost on the same producer connection.
    StalledConnection,
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
            Note::RequestTimedOut { .. }
            | Note::ConnectionClosed { .. }
            | Note::RetryScheduled { .. }
            | Note::TxnRetry { .. }
            | Note::MarkersRetried { .. } => Some(Notable::Retry),
            Note::DuplicateDetected { .. } => Some(Notable::DuplicateDetected),
            Note::AppendRejected {
                error: KafkaError::InvalidProducerEpoch,
                ..
            } => Some(Notable::Fencing),
            Note::AppendRejected { .. }
            | Note::TooFewInSync { .. }
            | Note::MarkerRefused { .. } => Some(Notable::Rejected),
            Note::TxnPartitionCheckFailed {
                answered: KafkaError::ProducerFenced | KafkaError::InvalidProducerEpoch,
                ..
            } => Some(Notable::Fencing),
            Note::TxnPartitionCheckFailed { .. } => Some(Notable::Rejected),
            Note::EpochBumped { .. } => Some(Notable::Fencing),
            Note::Crashed { .. }
            | Note::Restarted { .. }
            | Note::BrokerRegistration { accepted: true, .. } => Some(Notable::Crash),
            Note::Frozen { .. } | Note::Thawed { .. } => Some(Notable::Freeze),
            Note::AckLost { .. } | Note::MessageDropped { .. } | Note::DeliveryFailed { .. } => {
                Some(Notable::Loss)
            }
            Note::LeaderElected { lost_records, .. }
            | Note::UncleanLeaderElected { lost_records, .. }
                if !lost_records.is_empty() =>
            {
                Some(Notable::Loss)
            }
            // An outage: a partition with no leader the controller can elect, or a replica
            // the leader no longer waits for.
            Note::PartitionOffline { .. } | Note::IsrShrunk { .. } => Some(Notable::Crash),
            // A reader that skips what is there, or stops.
            Note::StartsAtLatest { offset, .. } if *offset > 0 => Some(Notable::Loss),
            Note::NoResetPolicy { .. } => Some(Notable::Crash),
            Note::PositionReset {
                diverged: Some(_), ..
            } => Some(Notable::Loss),
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

impl Note {
    /// Every note kind's stable name, in declaration order (what lessons and filters use).
    pub const KIND_NAMES: &'static [&'static str] = &[
        "producer_id_requested",
        "producer_closed",
        "producer_id_assigned",
        "producer_id_allocated",
        "record_accepted",
        "batch_sent",
        "request_timed_out",
        "connection_closed",
        "retry_scheduled",
        "delivered",
        "delivery_failed",
        "stale_response_ignored",
        "epoch_bumped",
        "leader_changed",
        "appended",
        "duplicate_detected",
        "append_rejected",
        "ack_waits_for_replicas",
        "isr_expanded",
        "isr_shrunk",
        "offset_lookup",
        "starts_at_latest",
        "no_reset_policy",
        "replicated",
        "high_watermark_advanced",
        "not_leader",
        "fetch_served",
        "position_reset",
        "leader_elected",
        "partition_offline",
        "unclean_leader_elected",
        "leader_awaited",
        "broker_fenced",
        "broker_rejoined",
        "broker_registration",
        "metadata_caught_up",
        "metadata_refreshed",
        "metadata_requested",
        "log_truncated",
        "txn_transition",
        "txn_request_refused",
        "txn_fenced_by_new_instance",
        "txn_timed_out",
        "txn_recovered",
        "txn_end_answered_as_retry",
        "marker_written",
        "marker_refused",
        "marker_waits_for_replicas",
        "markers_retried",
        "txn_offsets_pending",
        "txn_offsets_completed",
        "txn_begun",
        "txn_request_sent",
        "txn_retry",
        "txn_ended",
        "producer_fenced",
        "fetch_sent",
        "read",
        "polled_nothing",
        "offset_fetch_retry",
        "metadata_learned",
        "consumer_stopped",
        "processed",
        "offsets_committed",
        "resumed_from_committed",
        "message_dropped",
        "ack_lost",
        "message_delayed",
        "message_duplicated",
        "held_while_frozen",
        "lost_at_crashed_node",
        "frozen",
        "thawed",
        "crashed",
        "restarted",
        "fault_armed",
        "link_cut",
        "link_healed",
        "txn_partition_check",
        "txn_partition_check_failed",
        "copy_arrived",
    ];

    /// Every kind name, Flink's events included, each once (a Flink task's `processed`
    /// shares its name with a read-process-write processor's, and a point on it means
    /// either).
    pub fn all_kind_names() -> Vec<&'static str> {
        let mut v: Vec<&'static str> = Note::KIND_NAMES.to_vec();
        for name in super::flink_note::FlinkNote::KIND_NAMES {
            if !v.contains(&name) {
                v.push(name);
            }
        }
        v
    }

    pub fn is_kind_name(name: &str) -> bool {
        Note::all_kind_names().contains(&name)
    }

    /// The note's kind as a stable snake_case name (the serialized `note` tag), never a
    /// `Debug` rendering: lessons refer to points in a run by it.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Note::Flink(f) => f.kind_name(),
            Note::ProducerIdRequested { .. } => "producer_id_requested",
            Note::ProducerClosed { .. } => "producer_closed",
            Note::ProducerIdAssigned { .. } => "producer_id_assigned",
            Note::ProducerIdAllocated { .. } => "producer_id_allocated",
            Note::RecordAccepted { .. } => "record_accepted",
            Note::BatchSent { .. } => "batch_sent",
            Note::RequestTimedOut { .. } => "request_timed_out",
            Note::ConnectionClosed { .. } => "connection_closed",
            Note::RetryScheduled { .. } => "retry_scheduled",
            Note::Delivered { .. } => "delivered",
            Note::DeliveryFailed { .. } => "delivery_failed",
            Note::StaleResponseIgnored { .. } => "stale_response_ignored",
            Note::EpochBumped { .. } => "epoch_bumped",
            Note::LeaderChanged { .. } => "leader_changed",
            Note::Appended { .. } => "appended",
            Note::DuplicateDetected { .. } => "duplicate_detected",
            Note::AppendRejected { .. } => "append_rejected",
            Note::AckWaitsForReplicas { .. } => "ack_waits_for_replicas",
            Note::TooFewInSync { .. } => "too_few_in_sync",
            Note::IsrExpanded { .. } => "isr_expanded",
            Note::IsrShrunk { .. } => "isr_shrunk",
            Note::OffsetLookup { .. } => "offset_lookup",
            Note::StartsAtLatest { .. } => "starts_at_latest",
            Note::NoResetPolicy { .. } => "no_reset_policy",
            Note::Replicated { .. } => "replicated",
            Note::HighWatermarkAdvanced { .. } => "high_watermark_advanced",
            Note::NotLeader { .. } => "not_leader",
            Note::FetchServed { .. } => "fetch_served",
            Note::PositionReset { .. } => "position_reset",
            Note::LeaderElected { .. } => "leader_elected",
            Note::PartitionOffline { .. } => "partition_offline",
            Note::UncleanLeaderElected { .. } => "unclean_leader_elected",
            Note::LeaderAwaited { .. } => "leader_awaited",
            Note::BrokerFenced { .. } => "broker_fenced",
            Note::BrokerRejoined { .. } => "broker_rejoined",
            Note::BrokerRegistration { .. } => "broker_registration",
            Note::MetadataCaughtUp { .. } => "metadata_caught_up",
            Note::MetadataRefreshed { .. } => "metadata_refreshed",
            Note::MetadataRequested { .. } => "metadata_requested",
            Note::LogTruncated { .. } => "log_truncated",
            Note::TxnTransition { .. } => "txn_transition",
            Note::TxnRequestRefused { .. } => "txn_request_refused",
            Note::TxnFencedByNewInstance { .. } => "txn_fenced_by_new_instance",
            Note::TxnTimedOut { .. } => "txn_timed_out",
            Note::TxnRecovered { .. } => "txn_recovered",
            Note::TxnCoordinatorMoved { .. } => "txn_coordinator_moved",
            Note::TxnCoordinatorFound { .. } => "txn_coordinator_found",
            Note::NotCoordinator { .. } => "not_coordinator",
            Note::TxnEndAnsweredAsRetry { .. } => "txn_end_answered_as_retry",
            Note::MarkerWritten { .. } => "marker_written",
            Note::MarkerRefused { .. } => "marker_refused",
            Note::MarkerWaitsForReplicas { .. } => "marker_waits_for_replicas",
            Note::MarkersRetried { .. } => "markers_retried",
            Note::TxnOffsetsPending { .. } => "txn_offsets_pending",
            Note::TxnOffsetsCompleted { .. } => "txn_offsets_completed",
            Note::TxnBegun { .. } => "txn_begun",
            Note::TxnRequestSent { .. } => "txn_request_sent",
            Note::TxnRetry { .. } => "txn_retry",
            Note::TxnEnded { .. } => "txn_ended",
            Note::ProducerFenced { .. } => "producer_fenced",
            Note::FetchSent { .. } => "fetch_sent",
            Note::Read { .. } => "read",
            Note::PolledNothing { .. } => "polled_nothing",
            Note::OffsetFetchRetry { .. } => "offset_fetch_retry",
            Note::MetadataLearned { .. } => "metadata_learned",
            Note::StaleReplicationIgnored { .. } => "stale_replication_ignored",
            Note::ConsumerStopped { .. } => "consumer_stopped",
            Note::Processed { .. } => "processed",
            Note::OffsetsCommitted { .. } => "offsets_committed",
            Note::ResumedFromCommitted { .. } => "resumed_from_committed",
            Note::MessageDropped { .. } => "message_dropped",
            Note::AckLost { .. } => "ack_lost",
            Note::MessageDelayed { .. } => "message_delayed",
            Note::MessageDuplicated { .. } => "message_duplicated",
            Note::HeldWhileFrozen { .. } => "held_while_frozen",
            Note::LostAtCrashedNode { .. } => "lost_at_crashed_node",
            Note::Frozen { .. } => "frozen",
            Note::Thawed { .. } => "thawed",
            Note::Crashed { .. } => "crashed",
            Note::Restarted { .. } => "restarted",
            Note::FaultArmed { .. } => "fault_armed",
            Note::LinkCut { .. } => "link_cut",
            Note::LinkHealed { .. } => "link_healed",
            Note::TxnPartitionCheck { .. } => "txn_partition_check",
            Note::TxnPartitionCheckFailed { .. } => "txn_partition_check_failed",
            Note::CopyArrived { .. } => "copy_arrived",
            Note::TxnEndGaveUp { .. } => "txn_end_gave_up",
            Note::TxnInitGaveUp { .. } => "txn_init_gave_up",
        }
    }
}

impl Notable {
    pub const ALL: [Notable; 12] = [
        Notable::Retry,
        Notable::DuplicateDetected,
        Notable::DuplicateAppended,
        Notable::Rejected,
        Notable::Fencing,
        Notable::Crash,
        Notable::Freeze,
        Notable::Loss,
        Notable::Delivered,
        Notable::Commit,
        Notable::Abort,
        Notable::Checkpoint,
    ];

    /// The stable snake_case name (as serialized).
    pub fn name(self) -> &'static str {
        match self {
            Notable::Retry => "retry",
            Notable::DuplicateDetected => "duplicate_detected",
            Notable::DuplicateAppended => "duplicate_appended",
            Notable::Rejected => "rejected",
            Notable::Fencing => "fencing",
            Notable::Crash => "crash",
            Notable::Freeze => "freeze",
            Notable::Loss => "loss",
            Notable::Delivered => "delivered",
            Notable::Commit => "commit",
            Notable::Abort => "abort",
            Notable::Checkpoint => "checkpoint",
        }
    }

    pub fn parse(name: &str) -> Option<Notable> {
        Notable::ALL.into_iter().find(|n| n.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_match_the_serialized_tag() {
        let note = Note::Crashed {
            node: NodeId::Broker(0),
        };
        let json = serde_json::to_value(&note).expect("serializes");
        assert_eq!(json["note"], note.kind_name());
        assert_eq!(note.kind_name(), "crashed");
        assert!(Note::KIND_NAMES.contains(&"txn_transition"));
        let unique: std::collections::BTreeSet<_> = Note::KIND_NAMES.iter().collect();
        assert_eq!(unique.len(), Note::KIND_NAMES.len());
        // The list an author is shown names each kind once, Flink's included.
        let all = Note::all_kind_names();
        let unique: std::collections::BTreeSet<_> = all.iter().collect();
        assert_eq!(unique.len(), all.len());
        assert!(all.contains(&"processed") && all.contains(&"checkpoint_completed"));
    }

    #[test]
    fn notable_names_round_trip_and_match_serde() {
        for n in Notable::ALL {
            assert_eq!(Notable::parse(n.name()), Some(n));
            let json = serde_json::to_value(n).expect("serializes");
            assert_eq!(json, n.name());
        }
    }
}
