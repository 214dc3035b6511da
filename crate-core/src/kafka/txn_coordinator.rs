//! The transaction coordinator (Kafka `TransactionCoordinator`), hosted by a broker. Every
//! transition is written to the simulated `__transaction_state` log before it takes effect;
//! a restarted coordinator replays the log and re-sends the markers of decided transactions.

use super::errors::KafkaError;
use super::protocol::Message;
use super::txn_index::ControlType;
use super::txn_log::{TxnLog, TxnLogEntry};
use super::txn_state::{
    offsets_partition, AddPartitionsPlan, EndTxnPlan, InitProducerIdPlan, TransactionMetadata,
    TxnProtocolVersion, TxnState, TxnStateError, TxnTransitMetadata,
};
use crate::ids::{NodeId, Tp};
use crate::sim::{Ctx, Note, Timer};
use crate::time::{ms, SimTime};
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// How long the coordinator waits for a partition leader to answer WriteTxnMarkers before it
/// sends the markers again: the broker's own `request.timeout.ms` (30 s). Kafka's
/// `TransactionMarkerChannelManager` sends markers as inter-broker requests; one unanswered
/// that long counts as disconnected, and `TransactionMarkerRequestCompletionHandler` queues
/// its markers again.
pub const MARKER_RETRY_MS: u64 = 30_000;

/// Kafka's default `transaction.abort.timed.out.transaction.cleanup.interval.ms`: the
/// coordinator looks for transactions past their timeout this often, so one is aborted up to
/// this long after its timeout runs out.
pub const DEFAULT_TIMEOUT_SCAN_INTERVAL_MS: u64 = 10_000;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoordinatorTimer {
    /// The transaction that started at `start` may have outlived its timeout.
    TxnExpiry {
        transactional_id: String,
        start: SimTime,
    },
    /// Markers still unacknowledged: send them again.
    ResendMarkers { transactional_id: String },
    /// Markers refused with a retriable error (`MARKER_RETRY_ERRORS`), or for partitions
    /// that had no leader: send these again, unless a later round (`ResendMarkers`) has
    /// sent them since.
    RetryMarkers {
        transactional_id: String,
        partitions: Vec<Tp>,
        attempt: u32,
        #[serde(default)]
        round: u32,
    },
    /// A partition leader's AddPartitionsToTxn for a held write (KIP-890): ask again after
    /// CONCURRENT_TRANSACTIONS (`add.partitions.to.txn.retry.backoff.ms`).
    RetryTxnCheck { id: u64 },
    /// ... or give up on it: no answer within `request.timeout.ms`.
    TxnCheckTimeout { id: u64 },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MarkerRequest {
    pub transactional_id: String,
    pub partitions: Vec<Tp>,
    /// How many retries after a retriable error led to it (0: the first send).
    #[serde(default)]
    pub attempt: u32,
    /// The round of sends it belongs to (`TxnCoordinator::marker_rounds`).
    #[serde(default)]
    pub round: u32,
}

/// The errors Kafka's `TransactionMarkerRequestCompletionHandler` retries a marker after
/// (of those the simulator has).
const MARKER_RETRY_ERRORS: [KafkaError; 4] = [
    KafkaError::NotLeaderOrFollower,
    KafkaError::NotEnoughReplicas,
    KafkaError::NotEnoughReplicasAfterAppend,
    KafkaError::RequestTimedOut,
];

/// The marker a decided transaction's partitions get: none before the decision or after
/// the markers are all in.
fn marker_for(state: TxnState) -> Option<ControlType> {
    match state {
        TxnState::PrepareCommit => Some(ControlType::Commit),
        TxnState::PrepareAbort => Some(ControlType::Abort),
        _ => None,
    }
}

/// Looks for a leader of a partition that has none, at `marker_backoff_ms` intervals: 33
/// of them add up to about the resend timer's 30 s (`MARKER_RETRY_MS`), which then takes
/// over (a look that finds no leader is silent: not a step).
const LEADERLESS_LOOKS: u32 = 33;

/// Kafka queues a refused marker again at once; the simulator waits 100 ms, doubling up to
/// 1 s, so a long outage is not an endless storm of steps.
pub fn marker_backoff_ms(attempt: u32) -> u64 {
    100u64.saturating_mul(1 << attempt.min(4)).min(1_000)
}

/// Where the markers of a transaction go: the live leader of each data partition, the group
/// coordinator for the offsets partition.
pub trait Leaders {
    fn leader(&self, tp: Tp) -> Option<u8>;
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TxnCoordinator {
    pub protocol: TxnProtocol,
    pub transactions: VecMap<String, TransactionMetadata>,
    pub log: TxnLog,
    markers: VecMap<u64, MarkerRequest>,
    /// Each decided transaction's latest round of marker sends (its decision, a resend, a
    /// reload): retries of an older round stop, so one chain of retries runs at a time.
    #[serde(default)]
    marker_rounds: VecMap<String, u32>,
    /// How many more times each decided transaction looks for a leader of a partition that
    /// has none (`LEADERLESS_LOOKS` from its decision or reload; a resend adds none).
    #[serde(default)]
    leader_looks: VecMap<String, u32>,
    next_request_id: u64,
    /// `transaction.abort.timed.out.transaction.cleanup.interval.ms`.
    pub timeout_scan_interval_ms: u64,
    /// When the coordinator's scheduler started (its broker's start or restart): its scans
    /// for timed-out transactions fall at this time plus each multiple of the interval.
    scans_since: SimTime,
}

/// The cluster's transaction protocol version (a serde-friendly wrapper with a default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TxnProtocol(pub TxnProtocolVersion);

impl Default for TxnProtocol {
    fn default() -> Self {
        TxnProtocol(TxnProtocolVersion::V2)
    }
}

/// The request's name as Kafka's documentation writes it.
fn end_txn_name(commit: bool) -> &'static str {
    if commit {
        "EndTxn(commit)"
    } else {
        "EndTxn(abort)"
    }
}

fn kafka_error(e: &TxnStateError) -> KafkaError {
    e.kafka_error().unwrap_or(KafkaError::InvalidTxnState)
}

impl TxnCoordinator {
    pub fn new(protocol: TxnProtocolVersion, timeout_scan_interval_ms: u64) -> Self {
        TxnCoordinator {
            protocol: TxnProtocol(protocol),
            timeout_scan_interval_ms,
            ..TxnCoordinator::default()
        }
    }

    /// When the coordinator aborts a transaction that started at `start` and is still open:
    /// at its first scan after the timeout has run out (Kafka's `abortTimedOutTransactions`
    /// takes one whose start plus timeout is before the scan's time).
    pub fn expiry_due(&self, start: SimTime, timeout_ms: u64) -> SimTime {
        let interval = ms(self.timeout_scan_interval_ms.max(1));
        let deadline = start.saturating_add(ms(timeout_ms));
        let scans = deadline.saturating_sub(self.scans_since) / interval + 1;
        self.scans_since
            .saturating_add(scans.saturating_mul(interval))
    }

    fn version(&self) -> TxnProtocolVersion {
        self.protocol.0
    }

    /// Writes a prepared transition to the log, then applies it. Narrates the transition.
    fn write(
        &mut self,
        me: NodeId,
        transit: TxnTransitMetadata,
        ctx: &mut Ctx,
    ) -> Result<(), KafkaError> {
        let Some(meta) = self.transactions.get_mut(&transit.transactional_id) else {
            return Err(KafkaError::InvalidTxnState);
        };
        let (from, from_epoch) = (meta.state(), meta.producer_epoch());
        if self.log.append(transit.clone(), ctx.now).is_err() {
            meta.cancel_pending();
            return Err(KafkaError::ConcurrentTransactions);
        }
        meta.complete_transition_to(&transit)
            .map_err(|e| kafka_error(&e))?;
        ctx.note(Note::TxnTransition {
            coordinator: me,
            transactional_id: transit.transactional_id.clone(),
            from: from.name().to_string(),
            to: transit.state.name().to_string(),
            producer_id: transit.producer_id,
            epoch: transit.producer_epoch,
            from_epoch,
        });
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub fn on_init_producer_id(
        &mut self,
        me: NodeId,
        from: NodeId,
        request_id: u64,
        transactional_id: &str,
        timeout_ms: u64,
        new_producer_id: &mut dyn FnMut() -> i64,
        leaders: &dyn Leaders,
        ctx: &mut Ctx,
    ) {
        let version = self.version();
        let meta = self
            .transactions
            .entry(transactional_id.to_string())
            .or_insert_with(|| {
                TransactionMetadata::new(
                    transactional_id.to_string(),
                    new_producer_id(),
                    timeout_ms,
                    version,
                    ctx.now,
                )
            });
        let answer = |ctx: &mut Ctx, producer_id: i64, epoch: i16, error: Option<KafkaError>| {
            ctx.send(
                from,
                Message::InitProducerIdResponse {
                    request_id,
                    producer_id,
                    epoch,
                    error,
                },
            );
        };
        match meta.prepare_init_producer_id(timeout_ms, None, ctx.now) {
            Ok(InitProducerIdPlan::Write(t)) => {
                let (pid, epoch) = (t.producer_id, t.producer_epoch);
                match self.write(me, t, ctx) {
                    Ok(()) => answer(ctx, pid, epoch, None),
                    Err(e) => answer(ctx, -1, -1, Some(e)),
                }
            }
            Ok(InitProducerIdPlan::AbortOngoingFirst(t)) => {
                // The previous instance's transaction is aborted first; the client retries.
                ctx.note(Note::TxnFencedByNewInstance {
                    coordinator: me,
                    transactional_id: transactional_id.to_string(),
                });
                let _ = self.decide(me, t, leaders, ctx);
                answer(ctx, -1, -1, Some(KafkaError::ConcurrentTransactions));
            }
            Err(e) => answer(ctx, -1, -1, Some(kafka_error(&e))),
        }
    }

    /// AddPartitionsToTxn: from a client (protocol 1), or from a partition leader, which adds
    /// (protocol 2) or, `verify_only`, only asks (protocol 1, KIP-890 part 1).
    #[allow(clippy::too_many_arguments)]
    pub fn on_add_partitions(
        &mut self,
        me: NodeId,
        from: NodeId,
        request_id: u64,
        transactional_id: &str,
        producer_id: i64,
        epoch: i16,
        partitions: BTreeSet<Tp>,
        verify_only: bool,
        ctx: &mut Ctx,
    ) {
        let result = if verify_only {
            self.verify_partitions(me, transactional_id, producer_id, epoch, &partitions, ctx)
        } else {
            self.add_partitions(me, transactional_id, producer_id, epoch, &partitions, ctx)
        };
        ctx.send(
            from,
            Message::TxnResponse {
                request_id,
                error: result.err(),
                producer_id,
                epoch,
            },
        );
    }

    fn add_partitions(
        &mut self,
        me: NodeId,
        transactional_id: &str,
        producer_id: i64,
        epoch: i16,
        partitions: &BTreeSet<Tp>,
        ctx: &mut Ctx,
    ) -> Result<(), KafkaError> {
        let version = self.version();
        match self.transactions.get_mut(transactional_id) {
            None => Err(KafkaError::InvalidProducerIdMapping),
            Some(meta) => {
                let was_ongoing = meta.state() == TxnState::Ongoing;
                match meta.prepare_add_partitions(producer_id, epoch, partitions, version, ctx.now)
                {
                    Ok(AddPartitionsPlan::AlreadyIncluded) => Ok(()),
                    Ok(AddPartitionsPlan::Write(t)) => {
                        let start = t.txn_start;
                        let timeout = t.txn_timeout_ms;
                        let written = self.write(me, t, ctx);
                        if let (Ok(()), false, Some(start)) = (&written, was_ongoing, start) {
                            // The transaction clock starts now: the first scan after it runs
                            // out aborts the transaction if it is still open.
                            let due = self.expiry_due(start, timeout);
                            ctx.set_timer(
                                due.saturating_sub(ctx.now),
                                Timer::Coordinator(CoordinatorTimer::TxnExpiry {
                                    transactional_id: transactional_id.to_string(),
                                    start,
                                }),
                            );
                        }
                        written
                    }
                    Err(e) => Err(TxnCoordinator::refused(
                        me,
                        transactional_id,
                        "AddPartitionsToTxn",
                        producer_id,
                        epoch,
                        kafka_error(&e),
                        ctx,
                    )),
                }
            }
        }
    }

    /// A partition leader's question under protocol 1 (KIP-890 part 1): are these
    /// partitions in the producer's ongoing transaction? Read-only.
    fn verify_partitions(
        &self,
        me: NodeId,
        transactional_id: &str,
        producer_id: i64,
        epoch: i16,
        partitions: &BTreeSet<Tp>,
        ctx: &mut Ctx,
    ) -> Result<(), KafkaError> {
        let result = match self.transactions.get(transactional_id) {
            None => Err(KafkaError::InvalidProducerIdMapping),
            Some(meta) => meta
                .verify_partitions(producer_id, epoch, partitions)
                .map_err(|e| kafka_error(&e)),
        };
        result.map_err(|e| {
            let request = "AddPartitionsToTxn (verify)";
            TxnCoordinator::refused(me, transactional_id, request, producer_id, epoch, e, ctx)
        })
    }

    /// AddOffsetsToTxn adds the group's offsets partition to the transaction.
    #[allow(clippy::too_many_arguments)]
    pub fn on_add_offsets(
        &mut self,
        me: NodeId,
        from: NodeId,
        request_id: u64,
        transactional_id: &str,
        producer_id: i64,
        epoch: i16,
        group_coordinator: u8,
        ctx: &mut Ctx,
    ) {
        let partitions = BTreeSet::from([offsets_partition(u16::from(group_coordinator))]);
        self.on_add_partitions(
            me,
            from,
            request_id,
            transactional_id,
            producer_id,
            epoch,
            partitions,
            false,
            ctx,
        );
    }

    #[allow(clippy::too_many_arguments)]
    pub fn on_end_txn(
        &mut self,
        me: NodeId,
        from: NodeId,
        request_id: u64,
        transactional_id: &str,
        producer_id: i64,
        epoch: i16,
        commit: bool,
        leaders: &dyn Leaders,
        ctx: &mut Ctx,
    ) {
        let version = self.version();
        let answer = |ctx: &mut Ctx, error: Option<KafkaError>, producer_id: i64, epoch: i16| {
            ctx.send(
                from,
                Message::TxnResponse {
                    request_id,
                    error,
                    producer_id,
                    epoch,
                },
            );
        };
        let Some(meta) = self.transactions.get_mut(transactional_id) else {
            answer(
                ctx,
                Some(KafkaError::InvalidProducerIdMapping),
                producer_id,
                epoch,
            );
            return;
        };
        match meta.prepare_end_txn(producer_id, epoch, commit, version, ctx.now) {
            Ok(EndTxnPlan::Write(t)) => {
                let (pid, new_epoch) = (t.producer_id, t.producer_epoch);
                // The Prepare* record is the decision: the client hears once it is written,
                // before any marker exists (`decide` answers through the callback first).
                match self.decide_then(me, t, leaders, ctx, |ctx| answer(ctx, None, pid, new_epoch))
                {
                    Ok(()) => {}
                    Err(e) => answer(ctx, Some(e), producer_id, epoch),
                }
            }
            Ok(EndTxnPlan::AlreadyDone {
                producer_id,
                producer_epoch,
            }) => {
                ctx.note(Note::TxnEndAnsweredAsRetry {
                    coordinator: me,
                    transactional_id: transactional_id.to_string(),
                    request: end_txn_name(commit).to_string(),
                    state: meta.state().name().to_string(),
                    producer_id,
                    epoch: producer_epoch,
                    same_epoch_as_new: !version.bumps_epoch_at_end_txn(),
                });
                answer(ctx, None, producer_id, producer_epoch)
            }
            Err(e) => {
                let error = TxnCoordinator::refused(
                    me,
                    transactional_id,
                    end_txn_name(commit),
                    producer_id,
                    epoch,
                    kafka_error(&e),
                    ctx,
                );
                answer(ctx, Some(error), producer_id, epoch)
            }
        }
    }

    /// Narrates a refusal: what was asked, by whom, and Kafka's error.
    #[allow(clippy::too_many_arguments)]
    fn refused(
        me: NodeId,
        transactional_id: &str,
        request: &str,
        producer_id: i64,
        epoch: i16,
        error: KafkaError,
        ctx: &mut Ctx,
    ) -> KafkaError {
        ctx.note(Note::TxnRequestRefused {
            coordinator: me,
            transactional_id: transactional_id.to_string(),
            request: request.to_string(),
            producer_id,
            epoch,
            error,
        });
        error
    }

    /// Writes a decision (a PrepareCommit or PrepareAbort transit) to the log, then sends
    /// its markers.
    fn decide(
        &mut self,
        me: NodeId,
        t: TxnTransitMetadata,
        leaders: &dyn Leaders,
        ctx: &mut Ctx,
    ) -> Result<(), KafkaError> {
        self.decide_then(me, t, leaders, ctx, |_| {})
    }

    /// As `decide`, running `after_write` between the durable write and the markers.
    fn decide_then(
        &mut self,
        me: NodeId,
        t: TxnTransitMetadata,
        leaders: &dyn Leaders,
        ctx: &mut Ctx,
        after_write: impl FnOnce(&mut Ctx),
    ) -> Result<(), KafkaError> {
        let control = marker_for(t.state).unwrap_or(ControlType::Abort);
        let id = t.transactional_id.clone();
        let partitions = t.topic_partitions.clone();
        let (pid, epoch) = (t.producer_id, t.producer_epoch);
        self.write(me, t, ctx)?;
        after_write(ctx);
        self.leader_looks.insert(id.clone(), LEADERLESS_LOOKS);
        self.send_markers(me, &id, pid, epoch, control, &partitions, leaders, ctx);
        Ok(())
    }

    /// Sends WriteTxnMarkers for `partitions`, one request per leader. An empty transaction
    /// completes at once.
    #[allow(clippy::too_many_arguments)]
    fn send_markers(
        &mut self,
        me: NodeId,
        transactional_id: &str,
        producer_id: i64,
        epoch: i16,
        control: ControlType,
        partitions: &BTreeSet<Tp>,
        leaders: &dyn Leaders,
        ctx: &mut Ctx,
    ) {
        if partitions.is_empty() {
            self.complete(me, transactional_id, ctx);
            return;
        }
        let markers = (producer_id, epoch, control);
        let round = self
            .marker_rounds
            .entry(transactional_id.to_string())
            .or_default();
        *round = round.wrapping_add(1);
        let tries = (0, *round);
        self.send_marker_requests(transactional_id, markers, partitions, leaders, tries, ctx);
        ctx.set_timer(
            ms(MARKER_RETRY_MS),
            Timer::Coordinator(CoordinatorTimer::ResendMarkers {
                transactional_id: transactional_id.to_string(),
            }),
        );
    }

    /// One WriteTxnMarkers request per leader of `partitions`. A partition without a leader
    /// is looked at again after the same backoff as a retry (Kafka keeps its markers queued
    /// for an unknown leader and sends them once metadata names one), `LEADERLESS_LOOKS`
    /// times per decision, about as long as the resend timer takes to fire; then only the
    /// resend timer sends. True if a request was sent.
    fn send_marker_requests<'a>(
        &mut self,
        transactional_id: &str,
        (producer_id, epoch, control): (i64, i16, ControlType),
        partitions: impl IntoIterator<Item = &'a Tp>,
        leaders: &dyn Leaders,
        (attempt, round): (u32, u32),
        ctx: &mut Ctx,
    ) -> bool {
        let mut by_leader: VecMap<u8, Vec<Tp>> = VecMap::new();
        let mut leaderless: Vec<Tp> = Vec::new();
        for tp in partitions {
            match leaders.leader(*tp) {
                Some(l) => by_leader.entry(l).or_default().push(*tp),
                None => leaderless.push(*tp),
            }
        }
        let looks = self.leader_looks.get_mut(transactional_id);
        if let (false, Some(left @ 1..)) = (leaderless.is_empty(), looks) {
            *left -= 1;
            ctx.set_timer(
                ms(marker_backoff_ms(attempt)),
                Timer::Coordinator(CoordinatorTimer::RetryMarkers {
                    transactional_id: transactional_id.to_string(),
                    partitions: leaderless,
                    attempt: attempt.saturating_add(1),
                    round,
                }),
            );
        }
        let sent = !by_leader.is_empty();
        for (leader, tps) in by_leader {
            let request_id = self.next_request_id;
            self.next_request_id += 1;
            self.markers.insert(
                request_id,
                MarkerRequest {
                    transactional_id: transactional_id.to_string(),
                    partitions: tps.clone(),
                    attempt,
                    round,
                },
            );
            ctx.send(
                NodeId::Broker(leader),
                Message::WriteTxnMarkers {
                    request_id,
                    producer_id,
                    epoch,
                    control,
                    protocol: self.version(),
                    partitions: tps,
                },
            );
        }
        sent
    }

    /// Every marker is in: Prepare* → Complete*.
    fn complete(&mut self, me: NodeId, transactional_id: &str, ctx: &mut Ctx) {
        let Some(meta) = self.transactions.get_mut(transactional_id) else {
            return;
        };
        if let Ok(t) = meta.prepare_complete(ctx.now) {
            let _ = self.write(me, t, ctx);
        }
        self.leader_looks.remove(transactional_id);
    }

    pub fn on_markers_written(
        &mut self,
        me: NodeId,
        request_id: u64,
        results: &[(Tp, Option<KafkaError>)],
        ctx: &mut Ctx,
    ) {
        let Some(request) = self.markers.remove(&request_id) else {
            return;
        };
        let Some(meta) = self.transactions.get_mut(&request.transactional_id) else {
            return;
        };
        let Some(control) = marker_for(meta.state()) else {
            return;
        };
        let mut done = false;
        let mut retry: Vec<Tp> = Vec::new();
        let mut why = None;
        for (tp, error) in results {
            match error {
                None => {
                    if let Ok(all) = meta.marker_acknowledged(*tp) {
                        done |= all;
                    }
                }
                // Only a partition still without its marker (a duplicate request's late
                // refusal is not news).
                Some(e)
                    if MARKER_RETRY_ERRORS.contains(e) && meta.topic_partitions().contains(tp) =>
                {
                    retry.push(*tp);
                    why.get_or_insert(*e);
                }
                // Others wait for the resend timer.
                Some(_) => {}
            }
        }
        if done {
            self.complete(me, &request.transactional_id, ctx);
        }
        let current = self.marker_rounds.get(&request.transactional_id).copied();
        if let (Some(error), false, true) = (why, retry.is_empty(), current == Some(request.round))
        {
            let backoff_ms = marker_backoff_ms(request.attempt);
            ctx.note(Note::MarkersRetried {
                coordinator: me,
                transactional_id: request.transactional_id.clone(),
                control,
                partitions: retry.clone(),
                error,
                backoff_ms,
                attempt: request.attempt,
            });
            ctx.set_timer(
                ms(backoff_ms),
                Timer::Coordinator(CoordinatorTimer::RetryMarkers {
                    transactional_id: request.transactional_id,
                    partitions: retry,
                    attempt: request.attempt.saturating_add(1),
                    round: request.round,
                }),
            );
        }
    }

    pub fn on_timer(
        &mut self,
        me: NodeId,
        timer: &CoordinatorTimer,
        leaders: &dyn Leaders,
        ctx: &mut Ctx,
    ) -> bool {
        let version = self.version();
        match timer {
            CoordinatorTimer::TxnExpiry {
                transactional_id,
                start,
            } => {
                let Some(meta) = self.transactions.get_mut(transactional_id) else {
                    return false;
                };
                if meta.state() != TxnState::Ongoing || meta.txn_start() != Some(*start) {
                    return false;
                }
                let Ok(t) = meta.prepare_fence_and_abort(version, ctx.now) else {
                    return false;
                };
                ctx.note(Note::TxnTimedOut {
                    coordinator: me,
                    transactional_id: transactional_id.clone(),
                    timeout_ms: t.txn_timeout_ms,
                    scan_interval_ms: self.timeout_scan_interval_ms,
                    overdue: ctx
                        .now
                        .saturating_sub(start.saturating_add(ms(t.txn_timeout_ms))),
                });
                let _ = self.decide(me, t, leaders, ctx);
                true
            }
            CoordinatorTimer::ResendMarkers { transactional_id } => {
                let Some(meta) = self.transactions.get(transactional_id) else {
                    return false;
                };
                let Some(control) = marker_for(meta.state()) else {
                    return false;
                };
                let (pid, epoch) = (meta.producer_id(), meta.producer_epoch());
                let partitions = meta.topic_partitions().clone();
                self.markers
                    .retain(|_, r| &r.transactional_id != transactional_id);
                self.send_markers(
                    me,
                    transactional_id,
                    pid,
                    epoch,
                    control,
                    &partitions,
                    leaders,
                    ctx,
                );
                true
            }
            CoordinatorTimer::RetryMarkers {
                transactional_id,
                partitions,
                attempt,
                round,
            } => {
                let Some(meta) = self.transactions.get(transactional_id) else {
                    return false;
                };
                if self.marker_rounds.get(transactional_id) != Some(round) {
                    return false;
                }
                let Some(control) = marker_for(meta.state()) else {
                    return false;
                };
                // Only those still without their marker (the resend timer may have done it).
                let pending: Vec<Tp> = partitions
                    .iter()
                    .filter(|tp| meta.topic_partitions().contains(tp))
                    .copied()
                    .collect();
                if pending.is_empty() {
                    return false;
                }
                let markers = (meta.producer_id(), meta.producer_epoch(), control);
                // Still no leader to send to: a silent look, not a step.
                self.send_marker_requests(
                    transactional_id,
                    markers,
                    &pending,
                    leaders,
                    (*attempt, *round),
                    ctx,
                )
            }
            // The partition leader's timers, which the broker handles before this.
            CoordinatorTimer::RetryTxnCheck { .. } | CoordinatorTimer::TxnCheckTimeout { .. } => {
                false
            }
        }
    }

    /// The hosting broker crashed: only the log survives.
    pub fn crash(&mut self) {
        self.transactions.clear();
        self.markers.clear();
        self.marker_rounds.clear();
        self.leader_looks.clear();
    }

    /// The hosting broker restarted: reload from the log, re-send the markers of decided
    /// transactions, and watch the open ones' timeouts again.
    pub fn recover(&mut self, me: NodeId, leaders: &dyn Leaders, ctx: &mut Ctx) {
        let Ok(replayed) = self.log.replay() else {
            return;
        };
        self.transactions = replayed;
        // Its scheduler starts again with the broker.
        self.scans_since = ctx.now;
        let ids: Vec<String> = self.transactions.keys().cloned().collect();
        self.resume(me, ids, leaders, ctx);
    }

    /// Its broker was fenced and another replica of its `__transaction_state` partition
    /// leads it now: it gives up its log (written with acks=all, the new leader has it) and
    /// forgets its transactions (Kafka's `onResignation`).
    pub fn hand_over(&mut self) -> Vec<TxnLogEntry> {
        self.transactions.clear();
        self.markers.clear();
        self.marker_rounds.clear();
        self.leader_looks.clear();
        self.log.take_entries()
    }

    /// Takes over another coordinator's transactions (`hand_over`): their log entries join
    /// its own, and it loads them as after a restart (Kafka's `onElection`, then
    /// `loadTransactionsForTxnTopicPartition`): decided ones get their markers again, open
    /// ones their timeouts. Returns the transactional ids it took over.
    pub fn adopt(
        &mut self,
        me: NodeId,
        entries: Vec<TxnLogEntry>,
        leaders: &dyn Leaders,
        ctx: &mut Ctx,
    ) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        for e in entries {
            if !ids.contains(&e.transit.transactional_id) {
                ids.push(e.transit.transactional_id.clone());
            }
            // A full log keeps what it has (its limit is an error of the scenario's size).
            let _ = self.log.append(e.transit, e.written_at);
        }
        let Ok(mut replayed) = self.log.replay() else {
            return Vec::new();
        };
        for id in &ids {
            if let Some(meta) = replayed.remove(id) {
                self.transactions.insert(id.clone(), meta);
            }
        }
        self.resume(me, ids.clone(), leaders, ctx);
        ids
    }

    /// After loading `ids` from the log: the decided ones' markers go out again, and the
    /// open ones' timeouts are watched again.
    fn resume(&mut self, me: NodeId, ids: Vec<String>, leaders: &dyn Leaders, ctx: &mut Ctx) {
        for id in ids {
            let Some(meta) = self.transactions.get(&id) else {
                continue;
            };
            match (meta.state(), marker_for(meta.state())) {
                (_, Some(control)) => {
                    let (pid, epoch) = (meta.producer_id(), meta.producer_epoch());
                    let partitions = meta.topic_partitions().clone();
                    ctx.note(Note::TxnRecovered {
                        coordinator: me,
                        transactional_id: id.clone(),
                        state: meta.state().name().to_string(),
                    });
                    self.leader_looks.insert(id.clone(), LEADERLESS_LOOKS);
                    self.send_markers(me, &id, pid, epoch, control, &partitions, leaders, ctx);
                }
                (TxnState::Ongoing, None) => {
                    if let Some(start) = meta.txn_start() {
                        let due = self.expiry_due(start, meta.txn_timeout_ms());
                        ctx.set_timer(
                            due.saturating_sub(ctx.now),
                            Timer::Coordinator(CoordinatorTimer::TxnExpiry {
                                transactional_id: id.clone(),
                                start,
                            }),
                        );
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transaction_expires_at_the_first_look_after_its_timeout() {
        let mut c = TxnCoordinator::new(TxnProtocolVersion::V2, 500);
        // Started at 3 ms with a 2 s timeout: past it from 2.003 s, found at the 2.5 s look.
        assert_eq!(c.expiry_due(ms(3), 2_000), ms(2_500));
        // Kafka takes one whose start plus timeout is before the look: not at 2 s itself.
        assert_eq!(c.expiry_due(0, 2_000), ms(2_500));
        assert_eq!(c.expiry_due(ms(1), 1), ms(500));
        // A restarted coordinator looks at multiples of the interval from its restart, and
        // a transaction already past its timeout then goes at its first look.
        c.scans_since = ms(1_234);
        assert_eq!(c.expiry_due(0, 1_000), ms(1_734));
        assert_eq!(c.expiry_due(ms(3), 2_000), ms(2_234));
        // Absurd numbers saturate, never overflow.
        assert_eq!(c.expiry_due(u64::MAX, u64::MAX), u64::MAX);
        c.timeout_scan_interval_ms = 0;
        assert_eq!(c.expiry_due(0, 0), ms(1_234) + ms(1));
    }
}
