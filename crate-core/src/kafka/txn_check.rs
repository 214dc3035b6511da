//! A partition leader's check of a transactional write with the transaction coordinator
//! (KIP-890; Kafka `ReplicaManager.appendRecordsWithTransactionVerification` and
//! `AddPartitionsToTxnManager`). A transactional batch for a partition that holds no ongoing
//! transaction of its producer at its epoch waits at the leader while the leader asks the
//! coordinator (so does a TxnOffsetCommit at the group coordinator, for the offsets
//! partition):
//! - under transaction protocol 2 the leader **adds** the partition to the transaction (the
//!   client sent no AddPartitionsToTxn), and asks again every 20 ms for up to 100 ms while
//!   the coordinator answers CONCURRENT_TRANSACTIONS (it is still writing the previous
//!   transaction's markers);
//! - under protocol 1 it only **verifies** that the client added it (on by default since
//!   Kafka 3.6, `transaction.partition.verification.enable`): a late write of a finished
//!   transaction is refused instead of opening a transaction nothing will end.
//!
//! A marker for the producer written to the partition while the write waits voids the check
//! (Kafka's `VerificationGuard`): unless the transaction is open there again, the write is
//! refused with INVALID_TXN_STATE. The group coordinator checks a TxnOffsetCommit the same way
//! but asks only once (Kafka retries only produce writes).
//!
//! Kafka reads one request at a time from a connection (it mutes the connection until it
//! answers), so a client's later Produce requests wait behind a held one, in order. Kafka
//! puts every partition a broker leads in one Produce request, and checks them together;
//! here each partition has its own requests, so only those of the held one's partition wait.
//!
//! A failure refuses the write and stores nothing: PRODUCER_FENCED as INVALID_PRODUCER_EPOCH
//! (abortable), the coordinator's other errors as they are, a silent coordinator (and, under
//! protocol 1, a busy one) as NOT_ENOUGH_REPLICAS, which Kafka picks because every client
//! retries it; a TxnOffsetCommit's as COORDINATOR_NOT_AVAILABLE.

use super::broker::{answer_produce, Broker};
use super::errors::KafkaError;
use super::protocol::{Message, ProduceResult, ProducerBatch};
use super::txn_coordinator::CoordinatorTimer;
use super::Acks;
use crate::ids::{NodeId, Tp};
use crate::sim::{Ctx, Note, Timer};
use crate::time::{ms, SimTime};
use serde::{Deserialize, Serialize};

/// `add.partitions.to.txn.retry.backoff.ms`.
pub const RETRY_BACKOFF_MS: u64 = 20;
/// `add.partitions.to.txn.retry.backoff.max.ms`.
pub const RETRY_MAX_MS: u64 = 100;
/// The inter-broker request's `request.timeout.ms`.
pub const REQUEST_TIMEOUT_MS: u64 = 30_000;

/// Why a held write was refused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckFailure {
    /// The coordinator's answer, or none in time.
    #[default]
    Coordinator,
    /// A marker ended the producer's transaction on the partition while the write waited,
    /// and none is open there again (Kafka's `VerificationGuard`).
    MarkerMeanwhile,
    /// Protocol 2: the partition still holds the producer's previous transaction, whose
    /// marker is not written yet; refused before asking (KAFKA-18575).
    PreviousOpen,
}

/// What waits at the leader for the coordinator's answer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Held {
    Produce {
        from: NodeId,
        request_id: u64,
        acks: Acks,
        batch: ProducerBatch,
    },
    /// A TxnOffsetCommit at the group coordinator.
    Offsets {
        from: NodeId,
        request_id: u64,
        group: String,
        offsets: Vec<(Tp, u64)>,
        #[serde(default)]
        leader_epochs: Vec<(Tp, u32)>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct HeldWrite {
    /// The request id of the leader's AddPartitionsToTxn (the same on every attempt).
    pub id: u64,
    pub since: SimTime,
    pub coordinator: u8,
    pub transactional_id: String,
    pub producer_id: i64,
    pub epoch: i16,
    pub tp: Tp,
    /// Protocol 2: add the partition; protocol 1: verify it only.
    pub add: bool,
    pub write: Held,
    /// A marker for the producer was written to the partition meanwhile.
    #[serde(default)]
    pub ended: bool,
}

impl HeldWrite {
    fn records(&self) -> Vec<crate::ids::RecordId> {
        match &self.write {
            Held::Produce { batch, .. } => batch.records.iter().map(|r| r.value).collect(),
            Held::Offsets { .. } => Vec::new(),
        }
    }
}

/// A Produce request that arrived behind a held one on the same connection.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Queued {
    pub from: NodeId,
    pub request_id: u64,
    pub tp: Tp,
    pub acks: Acks,
    pub batch: ProducerBatch,
    pub transactional_id: String,
    pub add: bool,
}

/// The writes a broker holds; in memory only (a crash drops them, and their clients time
/// out and retry).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TxnChecks {
    pub held: Vec<HeldWrite>,
    pub queued: Vec<Queued>,
    next_id: u64,
}

impl TxnChecks {
    /// A Produce request from this client for this partition waits for the coordinator.
    pub fn holds_from(&self, client: NodeId, tp: Tp) -> bool {
        self.held
            .iter()
            .any(|h| h.tp == tp && matches!(h.write, Held::Produce { from, .. } if from == client))
    }

    pub fn clear(&mut self) {
        self.held.clear();
        self.queued.clear();
    }

    /// A marker for `producer_id` was written to `tp`: the writes held for it lose their check.
    pub fn marker_written(&mut self, tp: Tp, producer_id: i64) {
        for h in self
            .held
            .iter_mut()
            .filter(|h| h.tp == tp && h.producer_id == producer_id)
        {
            h.ended = true;
        }
    }
}

/// What the leader answers the client when the check fails (Kafka's `AddPartitionsToTxnManager`,
/// `ReplicaManager` and, for TxnOffsetCommit, `CoordinatorOperationExceptionHelper`):
/// PRODUCER_FENCED becomes INVALID_PRODUCER_EPOCH, which "producers expect to handle"; a silent
/// coordinator NOT_ENOUGH_REPLICAS (COORDINATOR_NOT_AVAILABLE for offsets); CONCURRENT_TRANSACTIONS
/// reaches a client of protocol 2 as it is (KAFKA-18662), and one of protocol 1 as
/// NOT_ENOUGH_REPLICAS; the rest as it is.
fn answered(error: Option<KafkaError>, write: &Held, add: bool) -> KafkaError {
    let offsets = matches!(write, Held::Offsets { .. });
    match error {
        None
        | Some(
            KafkaError::NetworkException
            | KafkaError::RequestTimedOut
            | KafkaError::NotLeaderOrFollower
            | KafkaError::NotCoordinator,
        ) if offsets => KafkaError::CoordinatorNotAvailable,
        None
        | Some(
            KafkaError::NetworkException
            | KafkaError::RequestTimedOut
            | KafkaError::NotLeaderOrFollower
            | KafkaError::NotCoordinator,
        ) => KafkaError::NotEnoughReplicas,
        Some(KafkaError::ConcurrentTransactions) if !offsets && !add => {
            KafkaError::NotEnoughReplicas
        }
        Some(KafkaError::ProducerFenced) => KafkaError::InvalidProducerEpoch,
        Some(e) => e,
    }
}

impl Broker {
    /// Holds `write` and asks the transaction coordinator of `transactional_id` to add `tp` to
    /// the transaction (`add`, a client of protocol 2) or to verify it is in it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn hold_for_check(
        &mut self,
        transactional_id: &str,
        add: bool,
        producer_id: i64,
        epoch: i16,
        tp: Tp,
        write: Held,
        ctx: &mut Ctx,
    ) {
        let id = self.checks.next_id;
        self.checks.next_id += 1;
        let held = HeldWrite {
            id,
            since: ctx.now,
            coordinator: self.txn_coordinator_of(transactional_id),
            transactional_id: transactional_id.to_string(),
            producer_id,
            epoch,
            tp,
            // Adding needs a coordinator of protocol 2; a client of 2 implies one.
            add: add && self.txn_coordinator.protocol.0.leader_adds_partitions(),
            write,
            ended: false,
        };
        self.send_check(&held, false, ctx);
        ctx.set_timer(
            ms(REQUEST_TIMEOUT_MS),
            Timer::Coordinator(CoordinatorTimer::TxnCheckTimeout { id }),
        );
        self.checks.held.push(held);
    }

    fn send_check(&self, h: &HeldWrite, again: bool, ctx: &mut Ctx) {
        ctx.note(Note::TxnPartitionCheck {
            broker: self.node(),
            coordinator: NodeId::Broker(h.coordinator),
            tp: h.tp,
            producer_id: h.producer_id,
            epoch: h.epoch,
            add: h.add,
            again,
            records: h.records(),
        });
        ctx.send(
            NodeId::Broker(h.coordinator),
            Message::AddPartitionsToTxn {
                request_id: h.id,
                transactional_id: h.transactional_id.clone(),
                producer_id: h.producer_id,
                epoch: h.epoch,
                partitions: vec![h.tp],
                verify_only: !h.add,
            },
        );
    }

    /// The coordinator's answer to a check (a TxnResponse to this broker).
    pub(super) fn on_check_answer(
        &mut self,
        request_id: u64,
        error: Option<KafkaError>,
        ctx: &mut Ctx,
    ) {
        let Some(i) = self.checks.held.iter().position(|h| h.id == request_id) else {
            return;
        };
        let h = &self.checks.held[i];
        let retry = error == Some(KafkaError::ConcurrentTransactions)
            && h.add
            && matches!(h.write, Held::Produce { .. })
            && ctx.now.saturating_sub(h.since) < ms(RETRY_MAX_MS);
        if retry {
            ctx.set_timer(
                ms(RETRY_BACKOFF_MS),
                Timer::Coordinator(CoordinatorTimer::RetryTxnCheck { id: request_id }),
            );
            return;
        }
        let held = self.checks.held.remove(i);
        match error {
            None => self.release(held, ctx),
            Some(e) => self.refuse(held, Some(e), ctx),
        }
    }

    /// A batch of a client of protocol 2 whose previous transaction is still open on the
    /// partition (its marker not written yet): CONCURRENT_TRANSACTIONS at once, which the
    /// client retries (KAFKA-18575).
    pub(super) fn refuse_previous_open(
        &self,
        from: NodeId,
        request_id: u64,
        tp: Tp,
        acks: Acks,
        batch: &ProducerBatch,
        ctx: &mut Ctx,
    ) {
        let error = KafkaError::ConcurrentTransactions;
        ctx.note(Note::TxnPartitionCheckFailed {
            broker: self.node(),
            tp,
            producer_id: batch.producer_id,
            epoch: batch.epoch,
            error: Some(error),
            answered: error,
            records: batch.records.iter().map(|r| r.value).collect(),
            cause: CheckFailure::PreviousOpen,
        });
        let result = ProduceResult::Error {
            error,
            leader_hint: None,
        };
        answer_produce(ctx, from, request_id, tp, acks, result);
    }

    /// The broker's own timers for its checks; false for any other timer.
    pub(super) fn on_check_timer(&mut self, timer: &CoordinatorTimer, ctx: &mut Ctx) -> bool {
        match timer {
            CoordinatorTimer::RetryTxnCheck { id } => {
                let Some(h) = self.checks.held.iter().find(|h| h.id == *id) else {
                    return false;
                };
                self.send_check(h, true, ctx);
                true
            }
            CoordinatorTimer::TxnCheckTimeout { id } => {
                let Some(i) = self.checks.held.iter().position(|h| h.id == *id) else {
                    return false;
                };
                let held = self.checks.held.remove(i);
                self.refuse(held, None, ctx);
                true
            }
            _ => false,
        }
    }

    /// The partition is in the transaction: the write goes on as if it had just arrived,
    /// unless a marker ended the producer's transaction there meanwhile and none is open again.
    fn release(&mut self, held: HeldWrite, ctx: &mut Ctx) {
        let open_again = match &held.write {
            Held::Produce { .. } => self.replicas.get(&held.tp).is_some_and(|r| {
                r.txn.ongoing_first_offset(held.producer_id).is_some()
                    && r.txn.producer_epoch(held.producer_id) == Some(held.epoch)
            }),
            Held::Offsets { .. } => self.groups.has_pending_from(held.producer_id),
        };
        if held.ended && !open_again {
            self.refuse(held, Some(KafkaError::InvalidTxnState), ctx);
            return;
        }
        match held.write {
            Held::Produce {
                from,
                request_id,
                acks,
                batch,
            } => {
                self.on_produce(from, request_id, held.tp, acks, &batch, None, ctx);
                self.read_queued(from, held.tp, ctx);
            }
            Held::Offsets {
                from,
                request_id,
                group,
                offsets,
                leader_epochs,
            } => self.store_txn_offsets(
                from,
                request_id,
                &group,
                held.producer_id,
                held.epoch,
                &offsets,
                &leader_epochs,
                ctx,
            ),
        }
    }

    /// The connection is read again: its queued requests go through in order, until one is
    /// held in turn.
    fn read_queued(&mut self, client: NodeId, tp: Tp, ctx: &mut Ctx) {
        while !self.checks.holds_from(client, tp) {
            let Some(i) = self
                .checks
                .queued
                .iter()
                .position(|q| q.from == client && q.tp == tp)
            else {
                return;
            };
            let q = self.checks.queued.remove(i);
            let check = Some((q.transactional_id.as_str(), q.add));
            self.on_produce(q.from, q.request_id, q.tp, q.acks, &q.batch, check, ctx);
        }
    }

    fn refuse(&mut self, held: HeldWrite, error: Option<KafkaError>, ctx: &mut Ctx) {
        let answer = answered(error, &held.write, held.add);
        ctx.note(Note::TxnPartitionCheckFailed {
            broker: self.node(),
            tp: held.tp,
            producer_id: held.producer_id,
            epoch: held.epoch,
            error,
            answered: answer,
            records: held.records(),
            cause: if held.ended {
                CheckFailure::MarkerMeanwhile
            } else {
                CheckFailure::Coordinator
            },
        });
        match held.write {
            Held::Produce {
                from,
                request_id,
                acks,
                ..
            } => {
                let result = ProduceResult::Error {
                    error: answer,
                    leader_hint: None,
                };
                answer_produce(ctx, from, request_id, held.tp, acks, result);
                self.read_queued(from, held.tp, ctx);
            }
            Held::Offsets {
                from, request_id, ..
            } => ctx.send(
                from,
                Message::TxnResponse {
                    request_id,
                    error: Some(answer),
                    producer_id: held.producer_id,
                    epoch: held.epoch,
                },
            ),
        }
    }
}
