//! The transaction coordinator's state per transactional id (Kafka `TransactionState`,
//! `TransactionMetadata`, and the request checks of `TransactionCoordinator`).
//!
//! Pure and two-phase, as in Kafka: a request *prepares* a `TxnTransitMetadata` (and marks it
//! pending), the caller writes it to `__transaction_state` (`txn_log`), and only once that
//! write is durable does `complete_transition_to` apply it. If the write fails,
//! `cancel_pending` forgets it. Every transition is checked against the table of SEMANTICS §3.

use super::errors::KafkaError;
use super::txn_index::ControlType;
use super::{NO_PRODUCER_EPOCH, NO_PRODUCER_ID};
use crate::ids::Tp;
use crate::time::{ms, SimTime};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;

/// The broker's `transaction.max.timeout.ms` default (15 min).
pub const TRANSACTION_MAX_TIMEOUT_MS: u64 = 900_000;
/// The producer's `transaction.timeout.ms` default (60 s).
pub const DEFAULT_TRANSACTION_TIMEOUT_MS: u64 = 60_000;
/// Most partitions (offsets partitions included) one transaction may add.
pub const MAX_PARTITIONS_PER_TXN: u32 = 10_000;
/// The topic index that stands for `__consumer_offsets` in a `Tp`: AddOffsetsToTxn adds the
/// group coordinator's partition to the transaction like any other, and it gets markers too.
pub const CONSUMER_OFFSETS_TOPIC: u16 = u16::MAX;

/// The `__consumer_offsets` partition of a consumer group, as a transaction partition.
pub fn offsets_partition(partition: u16) -> Tp {
    Tp {
        topic: CONSUMER_OFFSETS_TOPIC,
        partition,
    }
}

pub fn is_offsets_partition(tp: Tp) -> bool {
    tp.topic == CONSUMER_OFFSETS_TOPIC
}

/// Kafka `TransactionMetadata.isEpochExhausted`: the last epochs stay free so that the
/// coordinator can always fence.
pub fn is_epoch_exhausted(epoch: i16) -> bool {
    epoch >= i16::MAX - 1
}

/// Kafka's `validateTransactionTimeoutMs`: 0 < timeout ≤ `TRANSACTION_MAX_TIMEOUT_MS`.
pub fn validate_txn_timeout(txn_timeout_ms: u64) -> Result<(), KafkaError> {
    if txn_timeout_ms == 0 || txn_timeout_ms > TRANSACTION_MAX_TIMEOUT_MS {
        Err(KafkaError::InvalidTransactionTimeout)
    } else {
        Ok(())
    }
}

/// Transaction protocol version. V2 (KIP-890, Kafka 4.0+ default) bumps the producer epoch at
/// every EndTxn, so nothing late from transaction k can enter transaction k+1; V1 does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum TxnProtocolVersion {
    V1,
    V2,
}

impl TxnProtocolVersion {
    /// Kafka `TransactionVersion.supportsEpochBump`.
    pub fn bumps_epoch_at_end_txn(self) -> bool {
        self == TxnProtocolVersion::V2
    }

    /// KIP-890 part 2: the client sends no AddPartitionsToTxn nor AddOffsetsToTxn; the
    /// partition leader (or the group coordinator, for TxnOffsetCommit) adds the partition
    /// to the transaction itself when the first write of the transaction reaches it. Under
    /// V1 the leader only verifies that the client added it (KIP-890 part 1).
    pub fn leader_adds_partitions(self) -> bool {
        self == TxnProtocolVersion::V2
    }

    pub fn name(self) -> &'static str {
        match self {
            TxnProtocolVersion::V1 => "TV_1",
            TxnProtocolVersion::V2 => "TV_2",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum TxnState {
    Empty,
    Ongoing,
    PrepareCommit,
    PrepareAbort,
    CompleteCommit,
    CompleteAbort,
    Dead,
    PrepareEpochFence,
}

impl TxnState {
    pub const ALL: [TxnState; 8] = [
        TxnState::Empty,
        TxnState::Ongoing,
        TxnState::PrepareCommit,
        TxnState::PrepareAbort,
        TxnState::CompleteCommit,
        TxnState::CompleteAbort,
        TxnState::Dead,
        TxnState::PrepareEpochFence,
    ];

    /// Kafka's state name (`DescribeTransactions`).
    pub fn name(self) -> &'static str {
        match self {
            TxnState::Empty => "Empty",
            TxnState::Ongoing => "Ongoing",
            TxnState::PrepareCommit => "PrepareCommit",
            TxnState::PrepareAbort => "PrepareAbort",
            TxnState::CompleteCommit => "CompleteCommit",
            TxnState::CompleteAbort => "CompleteAbort",
            TxnState::Dead => "Dead",
            TxnState::PrepareEpochFence => "PrepareEpochFence",
        }
    }

    /// The states this one may be entered from: the table of SEMANTICS §3.
    pub fn valid_previous_states(self) -> &'static [TxnState] {
        use TxnState::*;
        match self {
            Empty => &[Empty, CompleteCommit, CompleteAbort],
            Ongoing => &[Ongoing, Empty, CompleteCommit, CompleteAbort],
            PrepareCommit => &[Ongoing],
            PrepareAbort => &[Ongoing, PrepareEpochFence],
            CompleteCommit => &[PrepareCommit],
            CompleteAbort => &[PrepareAbort],
            Dead => &[Empty, CompleteCommit, CompleteAbort],
            PrepareEpochFence => &[Ongoing],
        }
    }

    pub fn can_transition_to(self, to: TxnState) -> bool {
        to.valid_previous_states().contains(&self)
    }

    /// Whether an idle transactional id in this state may be expired (→ Dead).
    pub fn is_expiration_allowed(self) -> bool {
        matches!(
            self,
            TxnState::Empty | TxnState::CompleteCommit | TxnState::CompleteAbort
        )
    }

    /// The decision a state stands for, once there is one.
    pub fn decision(self) -> Option<ControlType> {
        match self {
            TxnState::PrepareCommit | TxnState::CompleteCommit => Some(ControlType::Commit),
            TxnState::PrepareAbort | TxnState::CompleteAbort => Some(ControlType::Abort),
            _ => None,
        }
    }
}

impl fmt::Display for TxnState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A transition as written to `__transaction_state` before it takes effect: the whole new
/// metadata (Kafka `TxnTransitMetadata`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TxnTransitMetadata {
    pub transactional_id: String,
    pub producer_id: i64,
    pub last_producer_id: i64,
    /// The epoch after the transition; markers of a Prepare* transit carry it.
    pub producer_epoch: i16,
    pub last_producer_epoch: i16,
    pub txn_timeout_ms: u64,
    pub state: TxnState,
    pub topic_partitions: BTreeSet<Tp>,
    pub txn_start: Option<SimTime>,
    pub txn_last_update: SimTime,
    pub protocol: TxnProtocolVersion,
}

/// Why `complete_transition_to` refused a transit that fits the pending state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TransitRejection {
    WrongTransactionalId,
    ProducerIdChanged,
    EpochNotAllowed,
    PartitionsNotEmpty,
    PartitionsShrank,
    PartitionsChanged,
    TimeoutChanged,
    StartChanged,
    StartMissing,
    TimeWentBack,
    /// PrepareEpochFence is never written: it is passed through on the way to PrepareAbort.
    NeverWritten,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TxnStateError {
    /// The coordinator answers the request with this error; nothing changed.
    Refused(KafkaError),
    /// The table forbids entering `to` from `from`.
    IllegalTransition {
        transactional_id: String,
        from: TxnState,
        to: TxnState,
    },
    /// A transition is prepared and not yet completed (its log write is in flight).
    PendingTransition {
        transactional_id: String,
        pending: TxnState,
    },
    /// EndTxn with a result the state cannot take (`INVALID_TXN_STATE`).
    EndTxnNotAllowed {
        transactional_id: String,
        state: TxnState,
        result: ControlType,
    },
    /// `complete_transition_to` without a prepared transition.
    NoPendingTransition {
        transactional_id: String,
        transit_state: TxnState,
    },
    /// `complete_transition_to` with a transit that is not the prepared one.
    PendingMismatch {
        transactional_id: String,
        pending: TxnState,
        transit_state: TxnState,
    },
    InvalidTransit {
        transactional_id: String,
        from: TxnState,
        to: TxnState,
        rejection: TransitRejection,
    },
    /// The producer id has no epochs left; Kafka would rotate to a new producer id, which the
    /// simulator does not model.
    EpochExhausted {
        transactional_id: String,
        producer_id: i64,
        producer_epoch: i16,
    },
    TooManyPartitions {
        transactional_id: String,
        max: u32,
    },
    /// Partition markers are only acknowledged while a decision is being written out.
    NotAwaitingMarkers {
        transactional_id: String,
        state: TxnState,
    },
}

impl TxnStateError {
    /// The error the requesting client is answered with, where there is one; `None` means a
    /// bug in the caller (a transit applied twice, a marker for a transaction not decided).
    pub fn kafka_error(&self) -> Option<KafkaError> {
        match self {
            TxnStateError::Refused(error) => Some(*error),
            TxnStateError::IllegalTransition { .. } | TxnStateError::EndTxnNotAllowed { .. } => {
                Some(KafkaError::InvalidTxnState)
            }
            TxnStateError::PendingTransition { .. } => Some(KafkaError::ConcurrentTransactions),
            _ => None,
        }
    }
}

impl fmt::Display for TxnStateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TxnStateError::Refused(error) => write!(f, "refused with {error}"),
            TxnStateError::IllegalTransition {
                transactional_id,
                from,
                to,
            } => {
                let allowed: Vec<&str> = to
                    .valid_previous_states()
                    .iter()
                    .map(|s| s.name())
                    .collect();
                write!(
                    f,
                    "transactional id {transactional_id:?}: illegal transition {from} -> {to} \
                     ({to} may only be entered from [{}])",
                    allowed.join(", ")
                )
            }
            TxnStateError::PendingTransition {
                transactional_id,
                pending,
            } => write!(
                f,
                "transactional id {transactional_id:?}: a transition to {pending} is still \
                 being written"
            ),
            TxnStateError::EndTxnNotAllowed {
                transactional_id,
                state,
                result,
            } => write!(
                f,
                "transactional id {transactional_id:?}: EndTxn({result}) in state {state}"
            ),
            TxnStateError::NoPendingTransition {
                transactional_id,
                transit_state,
            } => write!(
                f,
                "transactional id {transactional_id:?}: completing a transition to \
                 {transit_state} that was never prepared"
            ),
            TxnStateError::PendingMismatch {
                transactional_id,
                pending,
                transit_state,
            } => write!(
                f,
                "transactional id {transactional_id:?}: completing a transition to \
                 {transit_state} while {pending} is pending"
            ),
            TxnStateError::InvalidTransit {
                transactional_id,
                from,
                to,
                rejection,
            } => write!(
                f,
                "transactional id {transactional_id:?}: transit {from} -> {to} rejected: \
                 {rejection:?}"
            ),
            TxnStateError::EpochExhausted {
                transactional_id,
                producer_id,
                producer_epoch,
            } => write!(
                f,
                "transactional id {transactional_id:?}: producer {producer_id} has no epoch \
                 left after {producer_epoch}"
            ),
            TxnStateError::TooManyPartitions {
                transactional_id,
                max,
            } => write!(
                f,
                "transactional id {transactional_id:?}: more than {max} partitions in one \
                 transaction"
            ),
            TxnStateError::NotAwaitingMarkers {
                transactional_id,
                state,
            } => write!(
                f,
                "transactional id {transactional_id:?}: marker acknowledged in state {state}"
            ),
        }
    }
}

impl std::error::Error for TxnStateError {}

/// What InitProducerId asks of the coordinator.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum InitProducerIdPlan {
    /// Write this Empty transit; once durable, answer with its producer id and epoch.
    Write(TxnTransitMetadata),
    /// The previous instance left a transaction open. Write this PrepareAbort (epoch fenced),
    /// send ABORT markers, and answer `CONCURRENT_TRANSACTIONS`: the client retries
    /// InitProducerId, which then bumps the epoch once more.
    AbortOngoingFirst(TxnTransitMetadata),
}

/// What AddPartitionsToTxn (or AddOffsetsToTxn) asks of the coordinator.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AddPartitionsPlan {
    /// Write this Ongoing transit; answer success once it is durable.
    Write(TxnTransitMetadata),
    /// Every partition is already in the transaction: answer success now.
    AlreadyIncluded,
}

/// What EndTxn asks of the coordinator.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EndTxnPlan {
    /// Write this PrepareCommit/PrepareAbort: once durable it is the decision. Answer success
    /// (under V2 with the transit's producer id and epoch), then send WriteTxnMarkers with the
    /// transit's epoch to every partition of the transit.
    Write(TxnTransitMetadata),
    /// A retry of an EndTxn already completed the same way: answer success now.
    AlreadyDone {
        producer_id: i64,
        producer_epoch: i16,
    },
}

/// One transactional id at the coordinator.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TransactionMetadata {
    transactional_id: String,
    producer_id: i64,
    last_producer_id: i64,
    producer_epoch: i16,
    last_producer_epoch: i16,
    txn_timeout_ms: u64,
    state: TxnState,
    topic_partitions: BTreeSet<Tp>,
    txn_start: Option<SimTime>,
    txn_last_update: SimTime,
    protocol: TxnProtocolVersion,
    pending_state: Option<TxnState>,
}

impl TransactionMetadata {
    /// A transactional id seen for the first time: Empty, with a fresh producer id and no
    /// epoch yet. The InitProducerId that created it then prepares epoch 0.
    pub fn new(
        transactional_id: String,
        producer_id: i64,
        txn_timeout_ms: u64,
        protocol: TxnProtocolVersion,
        now: SimTime,
    ) -> Self {
        TransactionMetadata {
            transactional_id,
            producer_id,
            last_producer_id: NO_PRODUCER_ID,
            producer_epoch: NO_PRODUCER_EPOCH,
            last_producer_epoch: NO_PRODUCER_EPOCH,
            txn_timeout_ms,
            state: TxnState::Empty,
            topic_partitions: BTreeSet::new(),
            txn_start: None,
            txn_last_update: now,
            protocol,
            pending_state: None,
        }
    }

    /// The metadata a transit describes, as loaded from the log (nothing pending).
    pub fn from_transit(transit: &TxnTransitMetadata) -> Self {
        TransactionMetadata {
            transactional_id: transit.transactional_id.clone(),
            producer_id: transit.producer_id,
            last_producer_id: transit.last_producer_id,
            producer_epoch: transit.producer_epoch,
            last_producer_epoch: transit.last_producer_epoch,
            txn_timeout_ms: transit.txn_timeout_ms,
            state: transit.state,
            topic_partitions: transit.topic_partitions.clone(),
            txn_start: transit.txn_start,
            txn_last_update: transit.txn_last_update,
            protocol: transit.protocol,
            pending_state: None,
        }
    }

    pub fn transactional_id(&self) -> &str {
        &self.transactional_id
    }
    pub fn producer_id(&self) -> i64 {
        self.producer_id
    }
    pub fn last_producer_id(&self) -> i64 {
        self.last_producer_id
    }
    pub fn producer_epoch(&self) -> i16 {
        self.producer_epoch
    }
    pub fn last_producer_epoch(&self) -> i16 {
        self.last_producer_epoch
    }
    pub fn txn_timeout_ms(&self) -> u64 {
        self.txn_timeout_ms
    }
    pub fn state(&self) -> TxnState {
        self.state
    }
    pub fn topic_partitions(&self) -> &BTreeSet<Tp> {
        &self.topic_partitions
    }
    pub fn txn_start(&self) -> Option<SimTime> {
        self.txn_start
    }
    pub fn txn_last_update(&self) -> SimTime {
        self.txn_last_update
    }
    pub fn protocol(&self) -> TxnProtocolVersion {
        self.protocol
    }
    pub fn pending_state(&self) -> Option<TxnState> {
        self.pending_state
    }

    /// An Ongoing transaction open longer than its timeout, with nothing pending (Kafka
    /// `timedOutTransactions`: start + timeout < now).
    pub fn is_expired(&self, now: SimTime) -> bool {
        self.state == TxnState::Ongoing
            && self.pending_state.is_none()
            && self
                .txn_start
                .is_some_and(|start| start.saturating_add(ms(self.txn_timeout_ms)) < now)
    }

    /// When `is_expired` becomes true, for setting a timer.
    pub fn expires_after(&self) -> Option<SimTime> {
        match (self.state, self.txn_start) {
            (TxnState::Ongoing, Some(start)) => Some(start.saturating_add(ms(self.txn_timeout_ms))),
            _ => None,
        }
    }

    fn illegal(&self, from: TxnState, to: TxnState) -> TxnStateError {
        TxnStateError::IllegalTransition {
            transactional_id: self.transactional_id.clone(),
            from,
            to,
        }
    }

    fn ensure_nothing_pending(&self) -> Result<(), TxnStateError> {
        match self.pending_state {
            Some(pending) => Err(TxnStateError::PendingTransition {
                transactional_id: self.transactional_id.clone(),
                pending,
            }),
            None => Ok(()),
        }
    }

    /// The check every prepared transition passes (Kafka `prepareTransitionTo`).
    fn check_transition(&self, to: TxnState) -> Result<(), TxnStateError> {
        self.ensure_nothing_pending()?;
        if self.state.can_transition_to(to) {
            Ok(())
        } else {
            Err(self.illegal(self.state, to))
        }
    }

    fn exhausted(&self) -> TxnStateError {
        TxnStateError::EpochExhausted {
            transactional_id: self.transactional_id.clone(),
            producer_id: self.producer_id,
            producer_epoch: self.producer_epoch,
        }
    }

    /// The current metadata as a transit to `to`; callers change what the transition changes.
    fn transit(&self, to: TxnState, now: SimTime) -> TxnTransitMetadata {
        TxnTransitMetadata {
            transactional_id: self.transactional_id.clone(),
            producer_id: self.producer_id,
            last_producer_id: self.producer_id,
            producer_epoch: self.producer_epoch,
            last_producer_epoch: self.last_producer_epoch,
            txn_timeout_ms: self.txn_timeout_ms,
            state: to,
            topic_partitions: self.topic_partitions.clone(),
            txn_start: self.txn_start,
            txn_last_update: now,
            protocol: self.protocol,
        }
    }

    fn set_pending(&mut self, transit: TxnTransitMetadata) -> TxnTransitMetadata {
        self.pending_state = Some(transit.state);
        transit
    }

    fn check_producer(&self, producer_id: i64, producer_epoch: i16) -> Result<(), TxnStateError> {
        if producer_id != self.producer_id {
            Err(TxnStateError::Refused(KafkaError::InvalidProducerIdMapping))
        } else if producer_epoch != self.producer_epoch {
            Err(TxnStateError::Refused(KafkaError::ProducerFenced))
        } else {
            Ok(())
        }
    }

    /// InitProducerId (Kafka `prepareInitProducerIdTransit` / `prepareIncrementProducerEpoch`).
    /// Bumps the epoch, which fences every older instance. `expected_epoch` is KIP-360's: a
    /// producer recovering from an error names the epoch it has; equal to the current one it
    /// is bumped, equal to the last one it is a retry (no bump), anything else is fenced.
    pub fn prepare_init_producer_id(
        &mut self,
        txn_timeout_ms: u64,
        expected_epoch: Option<i16>,
        now: SimTime,
    ) -> Result<InitProducerIdPlan, TxnStateError> {
        validate_txn_timeout(txn_timeout_ms).map_err(TxnStateError::Refused)?;
        self.ensure_nothing_pending()?;
        match self.state {
            TxnState::PrepareCommit | TxnState::PrepareAbort => {
                Err(TxnStateError::Refused(KafkaError::ConcurrentTransactions))
            }
            TxnState::Ongoing => {
                let protocol = self.protocol;
                self.prepare_fence_and_abort(protocol, now)
                    .map(InitProducerIdPlan::AbortOngoingFirst)
            }
            TxnState::Dead | TxnState::PrepareEpochFence => {
                Err(self.illegal(self.state, TxnState::Empty))
            }
            TxnState::Empty | TxnState::CompleteCommit | TxnState::CompleteAbort => {
                self.check_transition(TxnState::Empty)?;
                if is_epoch_exhausted(self.producer_epoch) {
                    return Err(self.exhausted());
                }
                let bumped = self.producer_epoch + 1;
                let (producer_epoch, last_producer_epoch) = match expected_epoch {
                    None => (bumped, NO_PRODUCER_EPOCH),
                    Some(expected)
                        if self.producer_epoch == NO_PRODUCER_EPOCH
                            || expected == self.producer_epoch =>
                    {
                        (bumped, self.producer_epoch)
                    }
                    Some(expected) if expected == self.last_producer_epoch => {
                        (self.producer_epoch, self.last_producer_epoch)
                    }
                    Some(_) => return Err(TxnStateError::Refused(KafkaError::ProducerFenced)),
                };
                let mut transit = self.transit(TxnState::Empty, now);
                transit.producer_epoch = producer_epoch;
                transit.last_producer_epoch = last_producer_epoch;
                transit.txn_timeout_ms = txn_timeout_ms;
                transit.topic_partitions = BTreeSet::new();
                transit.txn_start = None;
                Ok(InitProducerIdPlan::Write(self.set_pending(transit)))
            }
        }
    }

    /// AddPartitionsToTxn, and AddOffsetsToTxn with `offsets_partition(..)`. The first one of a
    /// transaction (from Empty or Complete*) starts the transaction clock.
    pub fn prepare_add_partitions(
        &mut self,
        producer_id: i64,
        producer_epoch: i16,
        partitions: &BTreeSet<Tp>,
        protocol: TxnProtocolVersion,
        now: SimTime,
    ) -> Result<AddPartitionsPlan, TxnStateError> {
        self.check_producer(producer_id, producer_epoch)?;
        self.ensure_nothing_pending()?;
        if matches!(self.state, TxnState::PrepareCommit | TxnState::PrepareAbort) {
            return Err(TxnStateError::Refused(KafkaError::ConcurrentTransactions));
        }
        if self.state == TxnState::Ongoing && partitions.is_subset(&self.topic_partitions) {
            return Ok(AddPartitionsPlan::AlreadyIncluded);
        }
        self.check_transition(TxnState::Ongoing)?;
        let mut all = self.topic_partitions.clone();
        all.extend(partitions.iter().copied());
        if all.len() as u64 > u64::from(MAX_PARTITIONS_PER_TXN) {
            return Err(TxnStateError::TooManyPartitions {
                transactional_id: self.transactional_id.clone(),
                max: MAX_PARTITIONS_PER_TXN,
            });
        }
        let mut transit = self.transit(TxnState::Ongoing, now);
        if self.state != TxnState::Ongoing {
            transit.txn_start = Some(now);
        }
        transit.topic_partitions = all;
        transit.protocol = protocol;
        Ok(AddPartitionsPlan::Write(self.set_pending(transit)))
    }

    /// KIP-890 part 1 (Kafka `handleVerifyPartitionsInTransaction`): a partition leader asks
    /// whether the partitions are in this producer's ongoing transaction. Nothing changes; a
    /// partition the transaction lacks is TRANSACTION_ABORTABLE (a late write of a finished
    /// transaction must not open a new one on the partition and hang it).
    pub fn verify_partitions(
        &self,
        producer_id: i64,
        producer_epoch: i16,
        partitions: &BTreeSet<Tp>,
    ) -> Result<(), TxnStateError> {
        self.check_producer(producer_id, producer_epoch)?;
        // No pending-write check: "there is a final validation on the append" (Kafka's
        // verification guard, see `txn_check`).
        if matches!(self.state, TxnState::PrepareCommit | TxnState::PrepareAbort) {
            return Err(TxnStateError::Refused(KafkaError::ConcurrentTransactions));
        }
        if self.state == TxnState::Ongoing && partitions.is_subset(&self.topic_partitions) {
            Ok(())
        } else {
            Err(TxnStateError::Refused(KafkaError::TransactionAbortable))
        }
    }

    /// EndTxn from the client (Kafka `endTransactionWithTV1` / `endTransaction` for V2).
    pub fn prepare_end_txn(
        &mut self,
        producer_id: i64,
        producer_epoch: i16,
        commit: bool,
        protocol: TxnProtocolVersion,
        now: SimTime,
    ) -> Result<EndTxnPlan, TxnStateError> {
        let result = ControlType::from_commit(commit);
        match protocol {
            TxnProtocolVersion::V1 => self.end_txn_v1(producer_id, producer_epoch, result, now),
            TxnProtocolVersion::V2 => self.end_txn_v2(producer_id, producer_epoch, result, now),
        }
    }

    fn not_allowed(&self, result: ControlType) -> TxnStateError {
        TxnStateError::EndTxnNotAllowed {
            transactional_id: self.transactional_id.clone(),
            state: self.state,
            result,
        }
    }

    fn end_txn_v1(
        &mut self,
        producer_id: i64,
        producer_epoch: i16,
        result: ControlType,
        now: SimTime,
    ) -> Result<EndTxnPlan, TxnStateError> {
        self.check_producer(producer_id, producer_epoch)?;
        self.ensure_nothing_pending()?;
        let same = |decided: ControlType| decided == result;
        match self.state {
            TxnState::Ongoing => {
                let (epoch, last) = (self.producer_epoch, self.last_producer_epoch);
                self.prepare_decision(
                    self.state,
                    result,
                    TxnProtocolVersion::V1,
                    (epoch, last),
                    false,
                    now,
                )
                .map(EndTxnPlan::Write)
            }
            TxnState::CompleteCommit | TxnState::CompleteAbort => {
                if self.state.decision().is_some_and(same) {
                    Ok(self.already_done())
                } else {
                    Err(self.not_allowed(result))
                }
            }
            TxnState::PrepareCommit | TxnState::PrepareAbort => {
                if self.state.decision().is_some_and(same) {
                    Err(TxnStateError::Refused(KafkaError::ConcurrentTransactions))
                } else {
                    Err(self.not_allowed(result))
                }
            }
            TxnState::Empty => Err(self.not_allowed(result)),
            TxnState::Dead | TxnState::PrepareEpochFence => {
                Err(self.illegal(self.state, prepare_state(result)))
            }
        }
    }

    /// V2 (Kafka `endTransaction`, see its table): the epoch in the request must be the
    /// current one, or the one just before it for a retry of an EndTxn that bumped it.
    fn end_txn_v2(
        &mut self,
        producer_id: i64,
        producer_epoch: i16,
        result: ControlType,
        now: SimTime,
    ) -> Result<EndTxnPlan, TxnStateError> {
        let current = i32::from(self.producer_epoch);
        let requested = i32::from(producer_epoch);
        let retry_on_epoch_bump = current == requested + 1;
        let valid_epoch = match self.state {
            TxnState::Ongoing | TxnState::Empty | TxnState::Dead | TxnState::PrepareEpochFence => {
                requested == current
            }
            TxnState::PrepareCommit | TxnState::PrepareAbort => retry_on_epoch_bump,
            TxnState::CompleteCommit | TxnState::CompleteAbort => {
                retry_on_epoch_bump || requested == current
            }
        };
        if producer_id != self.producer_id {
            return Err(TxnStateError::Refused(KafkaError::InvalidProducerIdMapping));
        }
        if !valid_epoch {
            return Err(TxnStateError::Refused(KafkaError::ProducerFenced));
        }
        self.ensure_nothing_pending()?;
        let decided_same = self.state.decision() == Some(result);
        let (epoch, last) = (self.producer_epoch, self.last_producer_epoch);
        let v2 = TxnProtocolVersion::V2;
        match self.state {
            TxnState::Ongoing => self
                .prepare_decision(self.state, result, v2, (epoch, last), false, now)
                .map(EndTxnPlan::Write),
            TxnState::CompleteCommit | TxnState::CompleteAbort => {
                if decided_same && retry_on_epoch_bump {
                    Ok(self.already_done())
                } else if result == ControlType::Abort && !retry_on_epoch_bump {
                    // Kafka 4.x lets V2 abort an empty transaction; SEMANTICS' table decides.
                    self.prepare_decision(self.state, result, v2, (epoch, last), true, now)
                        .map(EndTxnPlan::Write)
                } else {
                    Err(self.not_allowed(result))
                }
            }
            TxnState::PrepareCommit | TxnState::PrepareAbort => {
                if decided_same {
                    Err(TxnStateError::Refused(KafkaError::ConcurrentTransactions))
                } else {
                    Err(self.not_allowed(result))
                }
            }
            TxnState::Empty => {
                if result == ControlType::Abort {
                    self.prepare_decision(self.state, result, v2, (epoch, last), true, now)
                        .map(EndTxnPlan::Write)
                } else {
                    Err(self.not_allowed(result))
                }
            }
            TxnState::Dead | TxnState::PrepareEpochFence => {
                Err(self.illegal(self.state, prepare_state(result)))
            }
        }
    }

    fn already_done(&self) -> EndTxnPlan {
        EndTxnPlan::AlreadyDone {
            producer_id: self.producer_id,
            producer_epoch: self.producer_epoch,
        }
    }

    /// Kafka `prepareAbortOrCommit`, from a base epoch (the current one, or the fenced one).
    /// `base` is (epoch, last epoch) before the decision: the current ones, or the fenced ones.
    fn prepare_decision(
        &mut self,
        from: TxnState,
        result: ControlType,
        protocol: TxnProtocolVersion,
        base: (i16, i16),
        no_partition_added: bool,
        now: SimTime,
    ) -> Result<TxnTransitMetadata, TxnStateError> {
        let (base_epoch, base_last_epoch) = base;
        let to = prepare_state(result);
        self.ensure_nothing_pending()?;
        if !from.can_transition_to(to) {
            return Err(self.illegal(from, to));
        }
        let (producer_epoch, last_producer_epoch) = if protocol.bumps_epoch_at_end_txn() {
            if base_epoch == i16::MAX && to == TxnState::PrepareAbort {
                // Already at the end: let the abort through so that the id can recover.
                (base_epoch, base_epoch)
            } else if is_epoch_exhausted(base_epoch) && base_epoch == self.producer_epoch {
                return Err(self.exhausted());
            } else {
                match base_epoch.checked_add(1) {
                    Some(bumped) => (bumped, base_epoch),
                    None => return Err(self.exhausted()),
                }
            }
        } else {
            (base_epoch, base_last_epoch)
        };
        let mut transit = self.transit(to, now);
        transit.producer_epoch = producer_epoch;
        transit.last_producer_epoch = last_producer_epoch;
        transit.protocol = protocol;
        if no_partition_added {
            transit.txn_start = Some(now);
        }
        Ok(self.set_pending(transit))
    }

    /// The coordinator aborts an Ongoing transaction it must fence: its timeout expired, or a
    /// new instance called InitProducerId. Ongoing → PrepareEpochFence (epoch + 1, never
    /// written) → PrepareAbort, which is returned for writing; V2 bumps once more at the
    /// abort itself. A later request of the fenced producer gets `PRODUCER_FENCED`.
    pub fn prepare_fence_and_abort(
        &mut self,
        protocol: TxnProtocolVersion,
        now: SimTime,
    ) -> Result<TxnTransitMetadata, TxnStateError> {
        self.check_transition(TxnState::PrepareEpochFence)?;
        // Kafka `prepareFenceProducerEpoch`: no bump past the maximum. The fence lives only in
        // memory (a pending PrepareEpochFence, cleared to make way for PrepareAbort).
        let fenced_epoch = self
            .producer_epoch
            .checked_add(1)
            .unwrap_or(self.producer_epoch);
        self.prepare_decision(
            TxnState::PrepareEpochFence,
            ControlType::Abort,
            protocol,
            (fenced_epoch, NO_PRODUCER_EPOCH),
            false,
            now,
        )
    }

    /// All markers acknowledged: PrepareCommit → CompleteCommit, PrepareAbort → CompleteAbort.
    pub fn prepare_complete(&mut self, now: SimTime) -> Result<TxnTransitMetadata, TxnStateError> {
        let to = match self.state {
            TxnState::PrepareCommit => TxnState::CompleteCommit,
            _ => TxnState::CompleteAbort,
        };
        self.check_transition(to)?;
        let mut transit = self.transit(to, now);
        transit.topic_partitions = BTreeSet::new();
        Ok(self.set_pending(transit))
    }

    /// The transactional id expired (idle longer than `transactional.id.expiration.ms`).
    pub fn prepare_dead(&mut self, now: SimTime) -> Result<TxnTransitMetadata, TxnStateError> {
        self.check_transition(TxnState::Dead)?;
        let mut transit = self.transit(TxnState::Dead, now);
        transit.topic_partitions = BTreeSet::new();
        Ok(self.set_pending(transit))
    }

    /// A partition acknowledged its marker (Kafka `removePartition`). Returns whether every
    /// partition has: then `prepare_complete`.
    pub fn marker_acknowledged(&mut self, tp: Tp) -> Result<bool, TxnStateError> {
        if !matches!(self.state, TxnState::PrepareCommit | TxnState::PrepareAbort) {
            return Err(TxnStateError::NotAwaitingMarkers {
                transactional_id: self.transactional_id.clone(),
                state: self.state,
            });
        }
        self.topic_partitions.remove(&tp);
        Ok(self.topic_partitions.is_empty())
    }

    /// The prepared transition's log write failed: forget it.
    pub fn cancel_pending(&mut self) -> Option<TxnState> {
        self.pending_state.take()
    }

    fn invalid(&self, to: TxnState, rejection: TransitRejection) -> TxnStateError {
        TxnStateError::InvalidTransit {
            transactional_id: self.transactional_id.clone(),
            from: self.state,
            to,
            rejection,
        }
    }

    /// Applies a prepared transit once its log write is durable (Kafka
    /// `completeTransitionTo`), after checking that it is the prepared one and that it
    /// changes only what its transition may change.
    pub fn complete_transition_to(
        &mut self,
        transit: &TxnTransitMetadata,
    ) -> Result<(), TxnStateError> {
        let to = transit.state;
        let Some(pending) = self.pending_state else {
            return Err(TxnStateError::NoPendingTransition {
                transactional_id: self.transactional_id.clone(),
                transit_state: to,
            });
        };
        if pending != to {
            return Err(TxnStateError::PendingMismatch {
                transactional_id: self.transactional_id.clone(),
                pending,
                transit_state: to,
            });
        }
        if transit.transactional_id != self.transactional_id {
            return Err(self.invalid(to, TransitRejection::WrongTransactionalId));
        }
        if !self.state.can_transition_to(to) {
            return Err(self.illegal(self.state, to));
        }
        if transit.txn_last_update < self.txn_last_update {
            return Err(self.invalid(to, TransitRejection::TimeWentBack));
        }
        if transit.producer_id != self.producer_id {
            return Err(self.invalid(to, TransitRejection::ProducerIdChanged));
        }
        let current = i32::from(self.producer_epoch);
        let epoch = i32::from(transit.producer_epoch);
        let rejection = match to {
            TxnState::Empty => {
                if !(epoch == current || epoch == current + 1) {
                    Some(TransitRejection::EpochNotAllowed)
                } else if !transit.topic_partitions.is_empty() {
                    Some(TransitRejection::PartitionsNotEmpty)
                } else if transit.txn_start.is_some() {
                    Some(TransitRejection::StartChanged)
                } else {
                    None
                }
            }
            TxnState::Ongoing => {
                if epoch != current {
                    Some(TransitRejection::EpochNotAllowed)
                } else if !self.topic_partitions.is_subset(&transit.topic_partitions) {
                    Some(TransitRejection::PartitionsShrank)
                } else if transit.txn_timeout_ms != self.txn_timeout_ms {
                    Some(TransitRejection::TimeoutChanged)
                } else {
                    None
                }
            }
            TxnState::PrepareCommit | TxnState::PrepareAbort => {
                // V1 keeps the epoch, V2 bumps it once, a fence bumps it once more.
                let empty_abort = to == TxnState::PrepareAbort
                    && matches!(
                        self.state,
                        TxnState::Empty | TxnState::CompleteCommit | TxnState::CompleteAbort
                    );
                if !(current..=current + 2).contains(&epoch) {
                    Some(TransitRejection::EpochNotAllowed)
                } else if transit.topic_partitions != self.topic_partitions {
                    Some(TransitRejection::PartitionsChanged)
                } else if transit.txn_timeout_ms != self.txn_timeout_ms {
                    Some(TransitRejection::TimeoutChanged)
                } else if transit.txn_start != self.txn_start && !empty_abort {
                    Some(TransitRejection::StartChanged)
                } else {
                    None
                }
            }
            TxnState::CompleteCommit | TxnState::CompleteAbort => {
                if epoch != current {
                    Some(TransitRejection::EpochNotAllowed)
                } else if transit.txn_timeout_ms != self.txn_timeout_ms {
                    Some(TransitRejection::TimeoutChanged)
                } else if transit.txn_start.is_none() {
                    Some(TransitRejection::StartMissing)
                } else {
                    None
                }
            }
            TxnState::Dead => None,
            TxnState::PrepareEpochFence => Some(TransitRejection::NeverWritten),
        };
        if let Some(rejection) = rejection {
            return Err(self.invalid(to, rejection));
        }
        *self = TransactionMetadata::from_transit(transit);
        Ok(())
    }
}

fn prepare_state(result: ControlType) -> TxnState {
    match result {
        ControlType::Commit => TxnState::PrepareCommit,
        ControlType::Abort => TxnState::PrepareAbort,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TxnState::*;

    const V1: TxnProtocolVersion = TxnProtocolVersion::V1;
    const V2: TxnProtocolVersion = TxnProtocolVersion::V2;
    const PID: i64 = 1000;

    fn tp(partition: u16) -> Tp {
        Tp {
            topic: 0,
            partition,
        }
    }

    fn tps(partitions: &[u16]) -> BTreeSet<Tp> {
        partitions.iter().map(|p| tp(*p)).collect()
    }

    /// The table of SEMANTICS §3, written out independently: ALLOWED[from][to].
    const ALLOWED: [[bool; 8]; 8] = {
        const T: bool = true;
        const F: bool = false;
        [
            // to: Empty Ongoing PCommit PAbort CCommit CAbort Dead PEFence
            [T, T, F, F, F, F, T, F], // from Empty
            [F, T, T, T, F, F, F, T], // from Ongoing
            [F, F, F, F, T, F, F, F], // from PrepareCommit
            [F, F, F, F, F, T, F, F], // from PrepareAbort
            [T, T, F, F, F, F, T, F], // from CompleteCommit
            [T, T, F, F, F, F, T, F], // from CompleteAbort
            [F, F, F, F, F, F, F, F], // from Dead
            [F, F, F, T, F, F, F, F], // from PrepareEpochFence
        ]
    };

    fn apply(m: &mut TransactionMetadata, transit: &TxnTransitMetadata) {
        assert_eq!(m.complete_transition_to(transit), Ok(()));
    }

    fn init(m: &mut TransactionMetadata, now: SimTime) -> TxnTransitMetadata {
        match m.prepare_init_producer_id(DEFAULT_TRANSACTION_TIMEOUT_MS, None, now) {
            Ok(InitProducerIdPlan::Write(t)) => {
                apply(m, &t);
                t
            }
            other => panic!("expected an Empty write, got {other:?}"),
        }
    }

    fn add(
        m: &mut TransactionMetadata,
        partitions: &[u16],
        protocol: TxnProtocolVersion,
        now: SimTime,
    ) {
        let (pid, epoch) = (m.producer_id(), m.producer_epoch());
        match m.prepare_add_partitions(pid, epoch, &tps(partitions), protocol, now) {
            Ok(AddPartitionsPlan::Write(t)) => apply(m, &t),
            other => panic!("expected an Ongoing write, got {other:?}"),
        }
    }

    fn end(
        m: &mut TransactionMetadata,
        commit: bool,
        protocol: TxnProtocolVersion,
        now: SimTime,
    ) -> TxnTransitMetadata {
        let (pid, epoch) = (m.producer_id(), m.producer_epoch());
        match m.prepare_end_txn(pid, epoch, commit, protocol, now) {
            Ok(EndTxnPlan::Write(t)) => {
                apply(m, &t);
                t
            }
            other => panic!("expected a Prepare* write, got {other:?}"),
        }
    }

    fn complete(m: &mut TransactionMetadata, now: SimTime) {
        let t = m.prepare_complete(now);
        assert!(t.is_ok(), "{t:?}");
        if let Ok(t) = t {
            apply(m, &t);
        }
    }

    /// A fresh id after InitProducerId: Empty, epoch 0.
    fn fresh(protocol: TxnProtocolVersion) -> TransactionMetadata {
        let mut m =
            TransactionMetadata::new("t".into(), PID, DEFAULT_TRANSACTION_TIMEOUT_MS, protocol, 0);
        init(&mut m, 0);
        m
    }

    /// Metadata in `state`, reached through the real transitions where possible.
    fn in_state(state: TxnState) -> TransactionMetadata {
        let mut m = fresh(V1);
        match state {
            Empty => {}
            Ongoing => add(&mut m, &[0], V1, 10),
            PrepareCommit | PrepareAbort | CompleteCommit | CompleteAbort => {
                add(&mut m, &[0], V1, 10);
                end(
                    &mut m,
                    state.decision() == Some(ControlType::Commit),
                    V1,
                    20,
                );
                if matches!(state, CompleteCommit | CompleteAbort) {
                    complete(&mut m, 30);
                }
            }
            Dead => {
                let t = m.prepare_dead(10);
                assert!(t.is_ok());
                if let Ok(t) = t {
                    apply(&mut m, &t);
                }
            }
            // Never stored; only ever passed through in memory.
            PrepareEpochFence => {
                add(&mut m, &[0], V1, 10);
                m.state = PrepareEpochFence;
            }
        }
        assert_eq!(m.state(), state);
        m
    }

    #[test]
    fn state_names_are_kafkas() {
        let names: Vec<&str> = TxnState::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(
            names,
            [
                "Empty",
                "Ongoing",
                "PrepareCommit",
                "PrepareAbort",
                "CompleteCommit",
                "CompleteAbort",
                "Dead",
                "PrepareEpochFence"
            ]
        );
    }

    #[test]
    fn the_transition_table_is_semantics_section_3_for_all_64_pairs() {
        let mut allowed = 0;
        for (i, from) in TxnState::ALL.iter().enumerate() {
            for (j, to) in TxnState::ALL.iter().enumerate() {
                assert_eq!(from.can_transition_to(*to), ALLOWED[i][j], "{from} -> {to}");
                // The same answer from the check every prepared transition goes through.
                let m = in_state(*from);
                let checked = m.check_transition(*to);
                if ALLOWED[i][j] {
                    assert_eq!(checked, Ok(()), "{from} -> {to}");
                    allowed += 1;
                } else {
                    assert_eq!(
                        checked,
                        Err(TxnStateError::IllegalTransition {
                            transactional_id: "t".into(),
                            from: *from,
                            to: *to
                        }),
                        "{from} -> {to}"
                    );
                }
            }
        }
        assert_eq!(allowed, 16);
    }

    #[test]
    fn an_illegal_transition_names_both_states() {
        let mut m = in_state(Empty);
        let err = m.prepare_complete(5);
        assert_eq!(
            err,
            Err(TxnStateError::IllegalTransition {
                transactional_id: "t".into(),
                from: Empty,
                to: CompleteAbort
            })
        );
        let text = err.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(text.contains("Empty -> CompleteAbort"), "{text}");
        assert!(text.contains("[PrepareAbort]"), "{text}");
        assert_eq!(m.pending_state(), None, "nothing was prepared");
    }

    #[test]
    fn every_allowed_transition_is_reachable_through_the_public_api() {
        // Empty -> Empty, Empty -> Ongoing, Ongoing -> Ongoing
        let mut m = fresh(V2);
        init(&mut m, 1);
        assert_eq!((m.state(), m.producer_epoch()), (Empty, 1));
        add(&mut m, &[0], V2, 2);
        add(&mut m, &[1], V2, 3);
        assert_eq!(m.topic_partitions(), &tps(&[0, 1]));
        // Ongoing -> PrepareCommit -> CompleteCommit -> Ongoing
        end(&mut m, true, V2, 4);
        complete(&mut m, 5);
        assert_eq!(m.state(), CompleteCommit);
        add(&mut m, &[2], V2, 6);
        // Ongoing -> PrepareAbort -> CompleteAbort -> Ongoing
        end(&mut m, false, V2, 7);
        assert_eq!(m.state(), PrepareAbort);
        complete(&mut m, 8);
        assert_eq!(m.state(), CompleteAbort);
        add(&mut m, &[2], V2, 9);
        // Ongoing -> PrepareEpochFence -> PrepareAbort
        let t = m.prepare_fence_and_abort(V2, 10);
        assert!(matches!(&t, Ok(t) if t.state == PrepareAbort));
        if let Ok(t) = t {
            apply(&mut m, &t);
        }
        complete(&mut m, 11);
        // CompleteAbort -> Empty, CompleteCommit -> Empty
        init(&mut m, 12);
        assert_eq!(m.state(), Empty);
        add(&mut m, &[0], V2, 13);
        end(&mut m, true, V2, 14);
        complete(&mut m, 15);
        init(&mut m, 16);
        assert_eq!(m.state(), Empty);
        // Empty, CompleteCommit, CompleteAbort -> Dead
        for state in [Empty, CompleteCommit, CompleteAbort] {
            let mut m = in_state(state);
            let t = m.prepare_dead(100);
            assert!(matches!(&t, Ok(t) if t.state == Dead), "{state}");
        }
    }

    #[test]
    fn forbidden_requests_in_each_state() {
        fn refused<T>(error: KafkaError) -> Result<T, TxnStateError> {
            Err(TxnStateError::Refused(error))
        }
        fn illegal<T>(from: TxnState, to: TxnState) -> Result<T, TxnStateError> {
            Err(TxnStateError::IllegalTransition {
                transactional_id: "t".to_string(),
                from,
                to,
            })
        }
        // Empty: no EndTxn under V1, no completion, no fence.
        let mut m = in_state(Empty);
        assert_eq!(
            m.prepare_end_txn(PID, 0, true, V1, 5),
            Err(TxnStateError::EndTxnNotAllowed {
                transactional_id: "t".into(),
                state: Empty,
                result: ControlType::Commit
            })
        );
        assert_eq!(
            m.prepare_fence_and_abort(V1, 5),
            illegal(Empty, PrepareEpochFence)
        );
        // Ongoing: no completion, no Dead.
        let mut m = in_state(Ongoing);
        assert_eq!(m.prepare_complete(50), illegal(Ongoing, CompleteAbort));
        assert_eq!(m.prepare_dead(50), illegal(Ongoing, Dead));
        // PrepareCommit: the decision stands.
        let mut m = in_state(PrepareCommit);
        assert_eq!(
            m.prepare_add_partitions(PID, 0, &tps(&[5]), V1, 50),
            refused(KafkaError::ConcurrentTransactions)
        );
        assert_eq!(
            m.prepare_end_txn(PID, 0, false, V1, 50),
            Err(TxnStateError::EndTxnNotAllowed {
                transactional_id: "t".into(),
                state: PrepareCommit,
                result: ControlType::Abort
            })
        );
        assert_eq!(m.prepare_dead(50), illegal(PrepareCommit, Dead));
        // PrepareAbort: no commit, no Empty through the table either.
        let mut m = in_state(PrepareAbort);
        assert!(matches!(
            m.prepare_end_txn(PID, 0, true, V1, 50),
            Err(TxnStateError::EndTxnNotAllowed { .. })
        ));
        assert_eq!(m.check_transition(Empty), illegal(PrepareAbort, Empty));
        // Complete*: no second completion, no fence.
        let mut m = in_state(CompleteCommit);
        assert_eq!(
            m.prepare_complete(50),
            illegal(CompleteCommit, CompleteAbort)
        );
        assert_eq!(
            m.prepare_fence_and_abort(V1, 50),
            illegal(CompleteCommit, PrepareEpochFence)
        );
        let mut m = in_state(CompleteAbort);
        assert_eq!(
            m.prepare_end_txn(PID, 0, true, V1, 50),
            Err(TxnStateError::EndTxnNotAllowed {
                transactional_id: "t".into(),
                state: CompleteAbort,
                result: ControlType::Commit
            })
        );
        // Dead: nothing.
        let mut m = in_state(Dead);
        assert_eq!(
            m.prepare_add_partitions(PID, 0, &tps(&[0]), V1, 50),
            illegal(Dead, Ongoing)
        );
        assert_eq!(
            m.prepare_init_producer_id(1_000, None, 50),
            illegal(Dead, Empty)
        );
        // PrepareEpochFence: nothing but PrepareAbort.
        let mut m = in_state(PrepareEpochFence);
        assert_eq!(
            m.prepare_complete(50),
            illegal(PrepareEpochFence, CompleteAbort)
        );
        assert_eq!(
            m.prepare_end_txn(PID, 0, true, V1, 50),
            illegal(PrepareEpochFence, PrepareCommit)
        );
    }

    #[test]
    fn v1_keeps_the_epoch_at_end_txn_v2_bumps_it_every_time() {
        let mut v1 = fresh(V1);
        let mut v2 = fresh(V2);
        for round in 0..3_i16 {
            let now = 100 * (round as u64 + 1);
            add(&mut v1, &[0], V1, now);
            add(&mut v2, &[0], V2, now);
            let t1 = end(&mut v1, true, V1, now + 1);
            let t2 = end(&mut v2, round % 2 == 0, V2, now + 1);
            assert_eq!(
                t1.producer_epoch, 0,
                "V1 markers carry the transaction's epoch"
            );
            assert_eq!(
                t2.producer_epoch,
                round + 1,
                "V2 markers carry the bumped epoch"
            );
            assert_eq!(t2.last_producer_epoch, round);
            complete(&mut v1, now + 2);
            complete(&mut v2, now + 2);
        }
        assert_eq!(v1.producer_epoch(), 0);
        assert_eq!(v2.producer_epoch(), 3);
    }

    #[test]
    fn v2_fences_a_late_end_txn_of_the_previous_transaction() {
        let mut m = fresh(V2);
        add(&mut m, &[0], V2, 1);
        end(&mut m, true, V2, 2); // transaction k decided at epoch 0 -> 1
        complete(&mut m, 3);
        add(&mut m, &[1], V2, 4); // transaction k+1, epoch 1
        let late = m.prepare_end_txn(PID, 0, true, V2, 5);
        assert_eq!(
            late,
            Err(TxnStateError::Refused(KafkaError::ProducerFenced))
        );
        assert_eq!(
            late.err().and_then(|e| e.kafka_error()),
            Some(KafkaError::ProducerFenced)
        );
        assert_eq!((m.state(), m.pending_state()), (Ongoing, None));
        // A late Produce (AddPartitions) from epoch 0 is fenced too.
        assert_eq!(
            m.prepare_add_partitions(PID, 0, &tps(&[2]), V2, 5),
            Err(TxnStateError::Refused(KafkaError::ProducerFenced))
        );
    }

    #[test]
    fn v1_lets_a_late_end_txn_commit_the_next_transaction() {
        // KAFKA-17754: the retry of transaction k's EndTxn has k's epoch, which is also k+1's.
        let mut m = fresh(V1);
        add(&mut m, &[0], V1, 1);
        end(&mut m, true, V1, 2);
        complete(&mut m, 3);
        add(&mut m, &[1], V1, 4);
        let late = m.prepare_end_txn(PID, 0, true, V1, 5);
        assert!(matches!(&late, Ok(EndTxnPlan::Write(t)) if t.state == PrepareCommit));
    }

    #[test]
    fn end_txn_retries_are_answered_without_a_second_decision() {
        let mut m = fresh(V2);
        add(&mut m, &[0], V2, 1);
        end(&mut m, true, V2, 2);
        // While the markers are out: same result is concurrent, the other is invalid.
        assert_eq!(
            m.prepare_end_txn(PID, 0, true, V2, 3),
            Err(TxnStateError::Refused(KafkaError::ConcurrentTransactions))
        );
        assert!(matches!(
            m.prepare_end_txn(PID, 0, false, V2, 3),
            Err(TxnStateError::EndTxnNotAllowed { .. })
        ));
        complete(&mut m, 4);
        // After completion the retry (old epoch) learns the new epoch.
        assert_eq!(
            m.prepare_end_txn(PID, 0, true, V2, 5),
            Ok(EndTxnPlan::AlreadyDone {
                producer_id: PID,
                producer_epoch: 1
            })
        );
        let mut m = fresh(V1);
        add(&mut m, &[0], V1, 1);
        end(&mut m, false, V1, 2);
        complete(&mut m, 3);
        assert_eq!(
            m.prepare_end_txn(PID, 0, false, V1, 4),
            Ok(EndTxnPlan::AlreadyDone {
                producer_id: PID,
                producer_epoch: 0
            })
        );
    }

    #[test]
    fn v2_abort_of_an_empty_transaction_follows_the_semantics_table() {
        // Kafka 4.x allows Empty/Complete* -> PrepareAbort under V2; SEMANTICS §3 does not.
        for state in [Empty, CompleteCommit, CompleteAbort] {
            let mut m = in_state(state);
            let epoch = m.producer_epoch();
            let err = m.prepare_end_txn(PID, epoch, false, V2, 100);
            assert_eq!(
                err,
                Err(TxnStateError::IllegalTransition {
                    transactional_id: "t".into(),
                    from: state,
                    to: PrepareAbort
                })
            );
            assert_eq!(
                err.err().and_then(|e| e.kafka_error()),
                Some(KafkaError::InvalidTxnState)
            );
        }
    }

    #[test]
    fn the_first_partition_starts_the_transaction_clock() {
        let mut m = fresh(V1);
        assert_eq!(m.txn_start(), None);
        add(&mut m, &[0], V1, 1_000);
        assert_eq!(m.txn_start(), Some(1_000));
        add(&mut m, &[1], V1, 2_000);
        assert_eq!(
            m.txn_start(),
            Some(1_000),
            "later partitions keep the start"
        );
        let (pid, epoch) = (m.producer_id(), m.producer_epoch());
        assert_eq!(
            m.prepare_add_partitions(pid, epoch, &tps(&[0]), V1, 3_000),
            Ok(AddPartitionsPlan::AlreadyIncluded)
        );
        end(&mut m, true, V1, 3_000);
        complete(&mut m, 4_000);
        add(&mut m, &[0], V1, 5_000);
        assert_eq!(m.txn_start(), Some(5_000), "a new transaction restarts it");
        let offsets = [offsets_partition(3)].into_iter().collect();
        let plan = m.prepare_add_partitions(pid, epoch, &offsets, V1, 6_000);
        assert!(
            matches!(&plan, Ok(AddPartitionsPlan::Write(t)) if t.topic_partitions.iter().any(|tp| is_offsets_partition(*tp)))
        );
    }

    #[test]
    fn an_expired_transaction_is_fenced_and_aborted_then_its_producer_is_fenced() {
        for (protocol, abort_epoch, last_epoch) in [(V1, 1, NO_PRODUCER_EPOCH), (V2, 2, 1)] {
            let mut m = fresh(protocol);
            let start = 1_000;
            add(&mut m, &[0, 1], protocol, start);
            let deadline = start + ms(DEFAULT_TRANSACTION_TIMEOUT_MS);
            assert_eq!(m.expires_after(), Some(deadline));
            assert!(!m.is_expired(deadline), "Kafka: start + timeout < now");
            assert!(m.is_expired(deadline + 1));
            let t = m.prepare_fence_and_abort(protocol, deadline + 1);
            assert!(
                matches!(&t, Ok(t) if t.state == PrepareAbort && t.producer_epoch == abort_epoch && t.last_producer_epoch == last_epoch && t.topic_partitions == tps(&[0, 1])),
                "{protocol:?}: {t:?}"
            );
            assert!(!m.is_expired(deadline + 2), "pending: not expired twice");
            if let Ok(t) = t {
                apply(&mut m, &t);
            }
            // The producer, unaware, tries to commit with its epoch 0.
            assert_eq!(
                m.prepare_end_txn(PID, 0, true, protocol, deadline + 3),
                Err(TxnStateError::Refused(KafkaError::ProducerFenced))
            );
            complete(&mut m, deadline + 4);
            assert_eq!(m.state(), CompleteAbort);
            assert_eq!(
                m.prepare_end_txn(PID, 0, true, protocol, deadline + 5),
                Err(TxnStateError::Refused(KafkaError::ProducerFenced))
            );
        }
    }

    #[test]
    fn init_producer_id_aborts_the_old_instances_transaction_first() {
        for protocol in [V1, V2] {
            let mut m = fresh(protocol);
            add(&mut m, &[0], protocol, 10);
            let plan = m.prepare_init_producer_id(DEFAULT_TRANSACTION_TIMEOUT_MS, None, 20);
            let Ok(InitProducerIdPlan::AbortOngoingFirst(abort)) = plan else {
                panic!("{protocol:?}: expected the abort first, got {plan:?}");
            };
            assert_eq!(abort.state, PrepareAbort);
            assert!(abort.producer_epoch >= 1);
            // The new instance's retry waits while the abort is out.
            assert!(matches!(
                m.prepare_init_producer_id(DEFAULT_TRANSACTION_TIMEOUT_MS, None, 21),
                Err(TxnStateError::PendingTransition { .. })
            ));
            apply(&mut m, &abort);
            assert_eq!(
                m.prepare_init_producer_id(DEFAULT_TRANSACTION_TIMEOUT_MS, None, 22),
                Err(TxnStateError::Refused(KafkaError::ConcurrentTransactions))
            );
            complete(&mut m, 23);
            let t = init(&mut m, 24);
            assert_eq!(t.producer_epoch, abort.producer_epoch + 1);
            // Invariant 12: nothing of epoch 0 commits any more.
            assert_eq!(
                m.prepare_end_txn(PID, 0, true, protocol, 25),
                Err(TxnStateError::Refused(KafkaError::ProducerFenced))
            );
            assert_eq!(
                m.prepare_add_partitions(PID, 0, &tps(&[0]), protocol, 25),
                Err(TxnStateError::Refused(KafkaError::ProducerFenced))
            );
        }
    }

    #[test]
    fn a_durable_prepare_commit_can_only_end_in_commit() {
        let mut m = in_state(PrepareCommit);
        assert!(m.prepare_end_txn(PID, 0, false, V1, 50).is_err());
        assert!(m.prepare_fence_and_abort(V1, 50).is_err());
        assert!(m.prepare_init_producer_id(1_000, None, 50).is_err());
        assert_eq!(m.marker_acknowledged(tp(0)), Ok(true));
        let t = m.prepare_complete(60);
        assert!(matches!(&t, Ok(t) if t.state == CompleteCommit));
    }

    #[test]
    fn kip_360_expected_epoch() {
        let mut m = fresh(V1); // epoch 0, last -1
        let plan = m.prepare_init_producer_id(1_000, Some(0), 1);
        let Ok(InitProducerIdPlan::Write(t)) = plan else {
            panic!("{plan:?}");
        };
        assert_eq!((t.producer_epoch, t.last_producer_epoch), (1, 0));
        apply(&mut m, &t);
        // The response was lost; the retry names epoch 0 again: same answer, no bump.
        let plan = m.prepare_init_producer_id(1_000, Some(0), 2);
        assert!(matches!(&plan, Ok(InitProducerIdPlan::Write(t)) if t.producer_epoch == 1));
        m.cancel_pending();
        assert_eq!(
            m.prepare_init_producer_id(1_000, Some(7), 3),
            Err(TxnStateError::Refused(KafkaError::ProducerFenced))
        );
    }

    #[test]
    fn complete_transition_to_applies_only_the_prepared_transit() {
        let mut m = fresh(V1);
        let (pid, epoch) = (m.producer_id(), m.producer_epoch());
        let Ok(AddPartitionsPlan::Write(t)) =
            m.prepare_add_partitions(pid, epoch, &tps(&[0]), V1, 5)
        else {
            panic!("expected a write");
        };
        assert_eq!(
            m.state(),
            Empty,
            "nothing changes before the write is durable"
        );
        assert_eq!(m.pending_state(), Some(Ongoing));
        let mut other = t.clone();
        other.state = PrepareCommit;
        assert!(matches!(
            m.complete_transition_to(&other),
            Err(TxnStateError::PendingMismatch { .. })
        ));
        let mut bad_epoch = t.clone();
        bad_epoch.producer_epoch = 5;
        assert!(matches!(
            m.complete_transition_to(&bad_epoch),
            Err(TxnStateError::InvalidTransit {
                rejection: TransitRejection::EpochNotAllowed,
                ..
            })
        ));
        apply(&mut m, &t);
        assert_eq!((m.state(), m.pending_state()), (Ongoing, None));
        assert!(matches!(
            m.complete_transition_to(&t),
            Err(TxnStateError::NoPendingTransition { .. })
        ));
        // A failed write is forgotten.
        let Ok(EndTxnPlan::Write(_)) = m.prepare_end_txn(pid, epoch, true, V1, 6) else {
            panic!("expected a write");
        };
        assert_eq!(m.cancel_pending(), Some(PrepareCommit));
        assert_eq!(m.state(), Ongoing);
    }

    #[test]
    fn limits_are_refused_with_clear_errors() {
        let mut m = TransactionMetadata::new("t".into(), PID, 1_000, V2, 0);
        for bad in [0, TRANSACTION_MAX_TIMEOUT_MS + 1] {
            assert_eq!(
                m.prepare_init_producer_id(bad, None, 0),
                Err(TxnStateError::Refused(
                    KafkaError::InvalidTransactionTimeout
                ))
            );
        }
        let mut m = in_state(Empty);
        m.producer_epoch = i16::MAX - 1;
        assert!(matches!(
            m.prepare_init_producer_id(1_000, None, 1),
            Err(TxnStateError::EpochExhausted { .. })
        ));
        let mut m = fresh(V1);
        let too_many: BTreeSet<Tp> = (0..=MAX_PARTITIONS_PER_TXN)
            .map(|i| Tp {
                topic: (i / 1_000) as u16,
                partition: (i % 1_000) as u16,
            })
            .collect();
        assert!(matches!(
            m.prepare_add_partitions(PID, 0, &too_many, V1, 1),
            Err(TxnStateError::TooManyPartitions { .. })
        ));
    }
}
