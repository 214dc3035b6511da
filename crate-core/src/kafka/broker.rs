//! A broker: leader or follower replicas of partitions, the append path with the
//! idempotence checks, replication, fetches, and producer id allocation.

use super::broker_timer::BrokerTimer;
use super::errors::KafkaError;
use super::group_coordinator::{coordinator_for, GroupOffsets};
use super::isr_expiry::IsrExpiry;
use super::marker_wait::{MarkerPart, MarkerWait};
use super::partition_log::{sequence_add, StoredBatch};
use super::producer_state::{check_append, AppendDecision};
use super::protocol::{DivergingEpoch, FetchBody, Message, ProduceResult, ProducerBatch};
use super::replica::{PendingAck, Replica};
use super::txn_check::{Held, Queued, TxnChecks};
use super::txn_coordinator::{CoordinatorTimer, Leaders, TxnCoordinator};
use super::txn_index::{ControlType, MarkerOrigin};
use super::txn_state::{is_offsets_partition, offsets_partition, TxnProtocolVersion};
use super::{Acks, Isolation};
use crate::ids::{NodeId, RecordId, Tp};
use crate::sim::{Ctx, Note};
use crate::time::SimTime;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};

/// Producer ids are handed out in blocks per broker, as Kafka's `ProducerIdManager` does.
pub const PRODUCER_ID_BLOCK: i64 = 1_000;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Broker {
    pub id: u8,
    #[serde(with = "crate::serde_pairs")]
    pub replicas: VecMap<Tp, Replica>,
    /// Committed consumer offsets, for the groups this broker coordinates.
    pub groups: GroupOffsets,
    /// The transaction coordinator for the transactional ids that hash to this broker.
    pub txn_coordinator: TxnCoordinator,
    /// Who leads each partition, as the controller last said (every broker knows).
    #[serde(with = "crate::serde_pairs")]
    pub leaders: VecMap<Tp, Option<u8>>,
    pub cluster_size: u8,
    next_producer_id: i64,
    /// Frozen: the controller's metadata does not reach it, so it still acts on what it last
    /// heard (a paused leader wakes as a zombie leader until it catches up).
    #[serde(default)]
    pub deaf: bool,
    /// What the controller changed while it was deaf, the latest per partition, applied when
    /// it catches up.
    #[serde(default)]
    pub missed_metadata: Vec<MetadataUpdate>,
    /// Transactional writes held while the transaction coordinator is asked (KIP-890).
    #[serde(default)]
    pub checks: TxnChecks,
    /// Where the controller moved the transaction coordination of a fenced broker: the
    /// ids that hash to the first broker are coordinated by the second (every broker knows).
    #[serde(default, with = "crate::serde_pairs")]
    pub coordinator_moves: VecMap<u8, u8>,
    /// The "isr-expiration" task (`replica.lag.time.max.ms`).
    #[serde(default)]
    pub isr_expiry: IsrExpiry,
    /// The brokers whose fetches cannot reach this one (cut off, frozen or down), and since
    /// when: their followers' last fetch, as this broker would have seen it lead.
    #[serde(default, with = "crate::serde_pairs")]
    pub unreachable_since: VecMap<u8, SimTime>,
    /// WriteTxnMarkers requests whose answer waits for the replicas (`marker_wait`).
    #[serde(default)]
    pub marker_waits: Vec<MarkerWait>,
}

/// One partition's metadata as the controller sets it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MetadataUpdate {
    pub tp: Tp,
    pub leader: Option<u8>,
    pub leader_epoch: u32,
    pub isr: Vec<u8>,
}

/// Leaders as a coordinator sees them: the offsets partition `p` is led by broker `p`, the
/// group coordinator (see `txn_state::offsets_partition`).
struct LeaderView<'a>(&'a VecMap<Tp, Option<u8>>);

impl Leaders for LeaderView<'_> {
    fn leader(&self, tp: Tp) -> Option<u8> {
        if is_offsets_partition(tp) {
            return u8::try_from(tp.partition).ok();
        }
        self.0.get(&tp).copied().flatten()
    }
}

impl Broker {
    pub fn new(
        id: u8,
        cluster_size: u8,
        protocol: TxnProtocolVersion,
        timeout_scan_interval_ms: u64,
    ) -> Self {
        Broker {
            id,
            replicas: VecMap::new(),
            groups: GroupOffsets::default(),
            txn_coordinator: TxnCoordinator::new(protocol, timeout_scan_interval_ms),
            leaders: VecMap::new(),
            cluster_size: cluster_size.max(1),
            next_producer_id: i64::from(id) * PRODUCER_ID_BLOCK,
            deaf: false,
            missed_metadata: Vec::new(),
            checks: TxnChecks::default(),
            coordinator_moves: VecMap::new(),
            isr_expiry: IsrExpiry::default(),
            unreachable_since: VecMap::new(),
            marker_waits: Vec::new(),
        }
    }

    /// `replica.lag.time.max.ms`.
    pub fn with_replica_lag_time_max_ms(mut self, lag_max_ms: u64) -> Self {
        self.isr_expiry.lag_max_ms = lag_max_ms;
        self
    }

    /// The broker coordinating `transactional_id`'s transactions now: the one it hashes to,
    /// unless the controller moved that one's coordination.
    pub fn txn_coordinator_of(&self, transactional_id: &str) -> u8 {
        let home = coordinator_for(transactional_id, self.cluster_size);
        self.coordinator_moves.get(&home).copied().unwrap_or(home)
    }

    pub fn node(&self) -> NodeId {
        NodeId::Broker(self.id)
    }

    /// A crash loses what lives only in memory; logs, producer state, committed offsets
    /// and the transaction log are on disk.
    pub fn crash(&mut self) {
        for r in self.replicas.values_mut() {
            r.pending_acks.clear();
            r.follower_leo.clear();
        }
        self.checks.clear();
        self.txn_coordinator.crash();
        self.isr_expiry.armed = None;
        self.unreachable_since.clear();
        self.marker_waits.clear();
    }

    /// After a restart: the transaction coordinator reloads its log, and the
    /// "isr-expiration" task starts again (looking for the partitions it leads again).
    pub fn recover(&mut self, ctx: &mut Ctx) {
        let me = self.node();
        self.txn_coordinator
            .recover(me, &LeaderView(&self.leaders), ctx);
        self.isr_expiry.restart(ctx.now);
        self.arm_all_isr_expiry(ctx);
    }

    /// It now leads a fenced broker's `__transaction_state` partition: its coordinator
    /// loads that broker's transactions (`entries`, its log) and carries them on. Returns
    /// the transactional ids it loaded.
    pub fn adopt_coordination(
        &mut self,
        entries: Vec<super::txn_log::TxnLogEntry>,
        ctx: &mut Ctx,
    ) -> Vec<String> {
        let me = self.node();
        self.txn_coordinator
            .adopt(me, entries, &LeaderView(&self.leaders), ctx)
    }

    pub fn on_broker_timer(&mut self, timer: &BrokerTimer, ctx: &mut Ctx) -> bool {
        match timer {
            BrokerTimer::IsrExpiration { at } => self.on_isr_expiration(*at, ctx),
            BrokerTimer::MarkerAnswerDue {
                request_id,
                coordinator,
            } => self.marker_answer_due(*request_id, *coordinator, ctx),
        }
    }

    pub fn on_timer(&mut self, timer: &CoordinatorTimer, ctx: &mut Ctx) -> bool {
        if self.on_check_timer(timer, ctx) {
            return true;
        }
        let me = self.node();
        self.txn_coordinator
            .on_timer(me, timer, &LeaderView(&self.leaders), ctx)
    }

    /// A request for a transactional id whose coordination moved to another broker (its
    /// `__transaction_state` partition did): answered NOT_COORDINATOR. Kafka's coordinator
    /// would fail to write to a partition it no longer leads; a frozen one that wakes with
    /// requests waiting does the same.
    fn refuse_as_coordinator(&self, from: NodeId, msg: &Message, ctx: &mut Ctx) -> bool {
        let (request_id, id, producer_id, epoch) = match msg {
            Message::InitProducerId {
                request_id,
                transactional_id: Some(id),
                ..
            } => (*request_id, id, -1, -1),
            Message::AddPartitionsToTxn {
                request_id,
                transactional_id,
                producer_id,
                epoch,
                ..
            }
            | Message::AddOffsetsToTxn {
                request_id,
                transactional_id,
                producer_id,
                epoch,
                ..
            }
            | Message::EndTxn {
                request_id,
                transactional_id,
                producer_id,
                epoch,
                ..
            } => (*request_id, transactional_id, *producer_id, *epoch),
            _ => return false,
        };
        let coordinator = self.txn_coordinator_of(id);
        if coordinator == self.id {
            return false;
        }
        ctx.note(Note::NotCoordinator {
            broker: self.node(),
            transactional_id: id.clone(),
            coordinator: NodeId::Broker(coordinator),
            kind: msg.kind(),
        });
        let error = Some(KafkaError::NotCoordinator);
        ctx.send(
            from,
            match msg {
                Message::InitProducerId { .. } => Message::InitProducerIdResponse {
                    request_id,
                    producer_id,
                    epoch,
                    error,
                },
                _ => Message::TxnResponse {
                    request_id,
                    error,
                    producer_id,
                    epoch,
                },
            },
        );
        true
    }

    fn allocate_producer_id(next: &mut i64) -> i64 {
        let id = *next;
        *next += 1;
        id
    }

    pub fn handle(&mut self, from: NodeId, msg: &Message, ctx: &mut Ctx) {
        if self.refuse_as_coordinator(from, msg, ctx) {
            return;
        }
        match msg {
            Message::InitProducerId {
                request_id,
                transactional_id: None,
                ..
            } => {
                let producer_id = Broker::allocate_producer_id(&mut self.next_producer_id);
                ctx.note(Note::ProducerIdAllocated {
                    broker: self.node(),
                    producer_id,
                });
                ctx.send(
                    from,
                    Message::InitProducerIdResponse {
                        request_id: *request_id,
                        producer_id,
                        epoch: 0,
                        error: None,
                    },
                );
            }
            Message::InitProducerId {
                request_id,
                transactional_id: Some(txn_id),
                transaction_timeout_ms,
            } => {
                let me = self.node();
                let next = &mut self.next_producer_id;
                let mut allocate = || Broker::allocate_producer_id(next);
                self.txn_coordinator.on_init_producer_id(
                    me,
                    from,
                    *request_id,
                    txn_id,
                    *transaction_timeout_ms,
                    &mut allocate,
                    &LeaderView(&self.leaders),
                    ctx,
                );
            }
            Message::AddPartitionsToTxn {
                request_id,
                transactional_id,
                producer_id,
                epoch,
                partitions,
                verify_only,
            } => {
                let me = self.node();
                self.txn_coordinator.on_add_partitions(
                    me,
                    from,
                    *request_id,
                    transactional_id,
                    *producer_id,
                    *epoch,
                    partitions.iter().copied().collect(),
                    *verify_only,
                    ctx,
                );
            }
            Message::AddOffsetsToTxn {
                request_id,
                transactional_id,
                producer_id,
                epoch,
                group,
            } => {
                let me = self.node();
                let coordinator = coordinator_for(group, self.cluster_size);
                self.txn_coordinator.on_add_offsets(
                    me,
                    from,
                    *request_id,
                    transactional_id,
                    *producer_id,
                    *epoch,
                    coordinator,
                    ctx,
                );
            }
            Message::EndTxn {
                request_id,
                transactional_id,
                producer_id,
                epoch,
                commit,
            } => {
                let me = self.node();
                self.txn_coordinator.on_end_txn(
                    me,
                    from,
                    *request_id,
                    transactional_id,
                    *producer_id,
                    *epoch,
                    *commit,
                    &LeaderView(&self.leaders),
                    ctx,
                );
            }
            Message::WriteTxnMarkersResponse {
                request_id,
                results,
            } => {
                let me = self.node();
                self.txn_coordinator
                    .on_markers_written(me, *request_id, results, ctx);
            }
            Message::WriteTxnMarkers {
                request_id,
                producer_id,
                epoch,
                control,
                protocol,
                partitions,
            } => {
                let parts: Vec<(Tp, MarkerPart)> = partitions
                    .iter()
                    .map(|tp| {
                        let r =
                            self.write_marker(*tp, *producer_id, *epoch, *control, *protocol, ctx);
                        let part = match r {
                            Ok(Some(end_offset)) => MarkerPart::Waiting { end_offset },
                            Ok(None) => MarkerPart::Done(None),
                            Err(e) => MarkerPart::Done(Some(e)),
                        };
                        (*tp, part)
                    })
                    .collect();
                let wait = MarkerWait {
                    request_id: *request_id,
                    coordinator: from,
                    parts,
                };
                for (tp, offset) in self.hold_marker_answer(wait, ctx) {
                    ctx.note(Note::MarkerWaitsForReplicas {
                        broker: self.node(),
                        tp,
                        offset,
                        control: *control,
                    });
                }
            }
            Message::TxnOffsetCommit {
                request_id,
                transactional_id,
                group,
                producer_id,
                epoch,
                offsets,
                leader_epochs,
            } => {
                // The offsets partition joins the transaction through the same check as a
                // data partition, unless the transaction holds offsets here already.
                if self.groups.has_pending_from(*producer_id) {
                    self.store_txn_offsets(
                        from,
                        *request_id,
                        group,
                        *producer_id,
                        *epoch,
                        offsets,
                        leader_epochs,
                        ctx,
                    );
                } else {
                    let write = Held::Offsets {
                        from,
                        request_id: *request_id,
                        group: group.clone(),
                        offsets: offsets.clone(),
                        leader_epochs: leader_epochs.clone(),
                    };
                    let tp = offsets_partition(u16::from(self.id));
                    // Our clients speak the cluster's protocol: TxnOffsetCommit v5 under 2.
                    let add = self.txn_coordinator.protocol.0.leader_adds_partitions();
                    let (pid, epoch) = (*producer_id, *epoch);
                    self.hold_for_check(transactional_id, add, pid, epoch, tp, write, ctx);
                }
            }
            Message::Produce {
                request_id,
                tp,
                acks,
                batch,
                transactional_id,
                leader_adds,
            } => self.on_produce(
                from,
                *request_id,
                *tp,
                *acks,
                batch,
                transactional_id.as_deref().map(|id| (id, *leader_adds)),
                ctx,
            ),
            Message::Replicate {
                tp,
                leader_epoch,
                from_offset,
                batches,
                leader_high_watermark,
            } => self.on_replicate(
                from,
                *tp,
                *leader_epoch,
                *from_offset,
                batches,
                *leader_high_watermark,
                ctx,
            ),
            Message::ReplicateResponse {
                tp,
                leader_epoch,
                log_end_offset,
            } => self.on_replicate_response(from, *tp, *leader_epoch, *log_end_offset, ctx),
            Message::Fetch {
                request_id,
                tp,
                offset,
                isolation,
                max_records,
                last_epoch,
            } => self.on_fetch(
                from,
                *request_id,
                *tp,
                (*offset, *last_epoch),
                *isolation,
                *max_records,
                ctx,
            ),
            Message::OffsetCommit {
                request_id,
                group,
                offsets,
                leader_epochs,
            } => {
                for (tp, offset) in offsets {
                    self.groups
                        .commit(group, *tp, *offset, epoch_of(leader_epochs, *tp));
                }
                ctx.note(Note::OffsetsCommitted {
                    broker: self.node(),
                    consumer: from,
                    group: group.clone(),
                    offsets: offsets.clone(),
                });
                ctx.send(
                    from,
                    Message::OffsetCommitResponse {
                        request_id: *request_id,
                    },
                );
            }
            Message::OffsetFetch {
                request_id,
                group,
                partitions,
            } => {
                // KIP-447: while a transaction holds offsets for these partitions, the answer
                // is UNSTABLE_OFFSET_COMMIT and the consumer asks again.
                let unstable = partitions
                    .iter()
                    .any(|tp| self.groups.has_pending(group, *tp));
                let (offsets, error) = if unstable {
                    (Vec::new(), Some(KafkaError::UnstableOffsetCommit))
                } else {
                    let offsets = partitions
                        .iter()
                        .map(|tp| (*tp, self.groups.committed(group, *tp)))
                        .collect();
                    (offsets, None)
                };
                let leader_epochs = partitions
                    .iter()
                    .filter(|_| error.is_none())
                    .filter_map(|tp| Some((*tp, self.groups.committed_epoch(group, *tp)?)))
                    .collect();
                ctx.send(
                    from,
                    Message::OffsetFetchResponse {
                        request_id: *request_id,
                        offsets,
                        error,
                        leader_epochs,
                    },
                );
            }
            // Any broker answers, from what it knows: a frozen one that missed the
            // controller's news would answer with its stale view.
            Message::Metadata { request_id } => ctx.send(
                from,
                Message::MetadataResponse {
                    request_id: *request_id,
                    leaders: self.leaders.iter().map(|(tp, l)| (*tp, *l)).collect(),
                    coordinator_moves: self
                        .coordinator_moves
                        .iter()
                        .map(|(from, to)| (*from, *to))
                        .collect(),
                },
            ),
            Message::ListOffsets {
                request_id,
                tp,
                isolation,
            } => {
                let result = match self.replicas.get(tp) {
                    Some(r) if r.is_leader(self.id) => Ok(r.fetch_upper_bound(*isolation)),
                    other => Err((
                        KafkaError::NotLeaderOrFollower,
                        other.and_then(|r| r.leader),
                    )),
                };
                ctx.send(
                    from,
                    Message::ListOffsetsResponse {
                        request_id: *request_id,
                        tp: *tp,
                        result,
                    },
                );
            }
            Message::InitProducerIdResponse { .. }
            | Message::ListOffsetsResponse { .. }
            | Message::MetadataResponse { .. }
            | Message::ProduceResponse { .. }
            | Message::FetchResponse { .. }
            | Message::OffsetCommitResponse { .. }
            | Message::OffsetFetchResponse { .. }
            | Message::Flink(_) => {}
            Message::TxnResponse {
                request_id, error, ..
            } => self.on_check_answer(*request_id, *error, ctx),
        }
    }

    /// Stores a transaction's offsets as pending, inside it (TxnOffsetCommit).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn store_txn_offsets(
        &mut self,
        from: NodeId,
        request_id: u64,
        group: &str,
        producer_id: i64,
        epoch: i16,
        offsets: &[(Tp, u64)],
        leader_epochs: &[(Tp, u32)],
        ctx: &mut Ctx,
    ) {
        for (tp, offset) in offsets {
            let e = epoch_of(leader_epochs, *tp);
            self.groups.add_pending(producer_id, group, *tp, *offset, e);
        }
        ctx.note(Note::TxnOffsetsPending {
            broker: self.node(),
            group: group.to_string(),
            producer_id,
            offsets: offsets.to_vec(),
        });
        ctx.send(
            from,
            Message::TxnResponse {
                request_id,
                error: None,
                producer_id,
                epoch,
            },
        );
    }

    /// A Produce request. `check`: the transactional id to check a transactional batch's
    /// partition with, and whether the leader adds the partition or only verifies it (KIP-890,
    /// see `txn_check`); None once checked.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_produce(
        &mut self,
        from: NodeId,
        request_id: u64,
        tp: Tp,
        acks: Acks,
        batch: &ProducerBatch,
        check: Option<(&str, bool)>,
        ctx: &mut Ctx,
    ) {
        if let Some((transactional_id, add)) = check.filter(|_| self.checks.holds_from(from, tp)) {
            // Behind a held request on the same connection: read after it.
            self.checks.queued.push(Queued {
                from,
                request_id,
                tp,
                acks,
                batch: batch.clone(),
                transactional_id: transactional_id.to_string(),
                add,
            });
            return;
        }
        let me = self.id;
        let node = self.node();
        let respond = |ctx: &mut Ctx, result: ProduceResult| {
            answer_produce(ctx, from, request_id, tp, acks, result)
        };
        let refuse = |ctx: &mut Ctx, error: KafkaError| {
            let result = ProduceResult::Error {
                error,
                leader_hint: None,
            };
            answer_produce(ctx, from, request_id, tp, acks, result)
        };
        let Some(replica) = self.replicas.get_mut(&tp).filter(|r| r.is_leader(me)) else {
            let leader = self.replicas.get(&tp).and_then(|r| r.leader);
            ctx.note(Note::NotLeader {
                broker: node,
                tp,
                leader,
            });
            respond(
                ctx,
                ProduceResult::Error {
                    error: KafkaError::NotLeaderOrFollower,
                    leader_hint: leader,
                },
            );
            return;
        };
        // No check for a batch of an open transaction here, nor for one older than the epoch
        // the partition knows (Kafka 4.1, KAFKA-18042: refused at once, below).
        let known_epoch = replica.txn.producer_epoch(batch.producer_id);
        let ongoing = replica
            .txn
            .ongoing_first_offset(batch.producer_id)
            .is_some()
            && known_epoch == Some(batch.epoch);
        let stale = known_epoch.is_some_and(|e| batch.epoch < e);
        let previous_open = replica
            .txn
            .ongoing_first_offset(batch.producer_id)
            .is_some()
            && known_epoch.is_some_and(|e| e < batch.epoch);
        if let Some((transactional_id, add)) = check.filter(|_| {
            batch.transactional && !batch.corrupt && batch.producer_id >= 0 && !ongoing && !stale
        }) {
            let write = Held::Produce {
                from,
                request_id,
                acks,
                batch: batch.clone(),
            };
            if add && previous_open {
                self.refuse_previous_open(from, request_id, tp, acks, batch, ctx);
                return;
            }
            let (pid, epoch) = (batch.producer_id, batch.epoch);
            self.hold_for_check(transactional_id, add, pid, epoch, tp, write, ctx);
            return;
        }
        let records: Vec<RecordId> = batch.records.iter().map(|r| r.value).collect();
        if acks == Acks::All && replica.too_few_in_sync() && !batch.corrupt {
            // Kafka's `Partition.appendRecordsToLeader` checks the ISR before the log sees the
            // batch (a retry of a stored batch is refused too).
            ctx.note(Note::TooFewInSync {
                broker: node,
                tp,
                isr: replica.isr.clone(),
                min_insync: replica.min_insync,
                appended_at: None,
                records,
            });
            refuse(ctx, KafkaError::NotEnoughReplicas);
            return;
        }
        let last_sequence = sequence_add(batch.base_sequence, batch.records.len() as i32 - 1);
        let decision = if batch.corrupt {
            // The CRC check comes before anything else: nothing is stored, no state changes.
            AppendDecision::Reject {
                error: KafkaError::CorruptMessage,
                expected_seq: None,
            }
        } else if batch.producer_id >= 0 {
            check_append(
                replica.producers.get(batch.producer_id),
                batch.epoch,
                batch.base_sequence,
                last_sequence,
            )
        } else {
            AppendDecision::Append
        };
        match decision {
            AppendDecision::Duplicate { base_offset } => {
                ctx.note(Note::DuplicateDetected {
                    broker: node,
                    tp,
                    producer_id: batch.producer_id,
                    epoch: batch.epoch,
                    base_sequence: batch.base_sequence,
                    last_sequence,
                    original_offset: base_offset,
                    records,
                });
                // Kafka answers a duplicate as it does an append (`DelayedProduce` waits for
                // the high watermark to pass the original batch under acks=all).
                let end_offset = base_offset + batch.records.len() as u64;
                if acks == Acks::All && replica.high_watermark < end_offset {
                    replica.pending_acks.push(PendingAck {
                        request_id,
                        producer: from,
                        base_offset,
                        end_offset,
                        duplicate: true,
                    });
                    ctx.note(Note::AckWaitsForReplicas {
                        broker: node,
                        tp,
                        base_offset,
                    });
                } else {
                    respond(ctx, ProduceResult::Duplicate { base_offset });
                }
            }
            AppendDecision::Reject {
                error,
                expected_seq,
            } => {
                ctx.note(Note::AppendRejected {
                    broker: node,
                    tp,
                    producer_id: batch.producer_id,
                    epoch: batch.epoch,
                    base_sequence: batch.base_sequence,
                    error,
                    expected_sequence: expected_seq,
                    records,
                });
                refuse(ctx, error);
            }
            AppendDecision::Append => {
                if batch.transactional {
                    let offset = replica.log.log_end_offset();
                    if let Err(e) =
                        replica
                            .txn
                            .begin_if_needed(batch.producer_id, batch.epoch, offset)
                    {
                        let error = e.kafka_error().unwrap_or(KafkaError::InvalidProducerEpoch);
                        ctx.note(Note::AppendRejected {
                            broker: node,
                            tp,
                            producer_id: batch.producer_id,
                            epoch: batch.epoch,
                            base_sequence: batch.base_sequence,
                            error,
                            expected_sequence: None,
                            records,
                        });
                        refuse(ctx, error);
                        return;
                    }
                }
                let base_offset = replica.log.append(
                    batch.producer_id,
                    batch.epoch,
                    batch.base_sequence,
                    batch.records.clone(),
                    batch.transactional,
                    ctx.now,
                    ctx.step,
                    replica.leader_epoch,
                );
                if let Some(stored) = replica.log.batches().last() {
                    replica.producers.record(stored);
                }
                let end_offset = replica.log.log_end_offset();
                ctx.note(Note::Appended {
                    broker: node,
                    tp,
                    base_offset,
                    records,
                    producer_id: batch.producer_id,
                    epoch: batch.epoch,
                    base_sequence: batch.base_sequence,
                    transactional: batch.transactional,
                });
                push_to_followers(me, replica, &self.unreachable_since, ctx);
                let moved = replica.recompute_high_watermark(me);
                self.arm_isr_expiry(tp, ctx);
                let Some(replica) = self.replicas.get_mut(&tp) else {
                    return;
                };
                if moved {
                    ctx.note(Note::HighWatermarkAdvanced {
                        broker: node,
                        tp,
                        high_watermark: replica.high_watermark,
                    });
                }
                match acks {
                    Acks::None => {}
                    Acks::Leader => respond(ctx, ProduceResult::Appended { base_offset }),
                    Acks::All if replica.high_watermark >= end_offset => {
                        respond(ctx, ProduceResult::Appended { base_offset })
                    }
                    Acks::All => {
                        replica.pending_acks.push(PendingAck {
                            request_id,
                            producer: from,
                            base_offset,
                            end_offset,
                            duplicate: false,
                        });
                        ctx.note(Note::AckWaitsForReplicas {
                            broker: node,
                            tp,
                            base_offset,
                        });
                    }
                }
            }
        }
    }

    /// Appends one transaction marker as the partition's leader (or, for the offsets
    /// partition, completes the transaction's pending offsets as the group coordinator).
    /// Returns the log end after the marker, for the answer to wait on, if it is appended.
    fn write_marker(
        &mut self,
        tp: Tp,
        producer_id: i64,
        epoch: i16,
        control: ControlType,
        protocol: TxnProtocolVersion,
        ctx: &mut Ctx,
    ) -> Result<Option<u64>, KafkaError> {
        let me = self.id;
        let node = self.node();
        if is_offsets_partition(tp) {
            self.checks.marker_written(tp, producer_id);
            let changed = self
                .groups
                .complete_pending(producer_id, control == ControlType::Commit);
            ctx.note(Note::TxnOffsetsCompleted {
                broker: node,
                producer_id,
                control,
                offsets: changed,
            });
            return Ok(None);
        }
        let Some(replica) = self.replicas.get_mut(&tp).filter(|r| r.is_leader(me)) else {
            return Err(KafkaError::NotLeaderOrFollower);
        };
        // Written with acks=-1: Kafka's `appendRecordsToLeader` checks the ISR first.
        if replica.too_few_in_sync() {
            ctx.note(Note::MarkerRefused {
                broker: node,
                tp,
                producer_id,
                control,
                isr: replica.isr.clone(),
                min_insync: replica.effective_min_insync(),
            });
            return Err(KafkaError::NotEnoughReplicas);
        }
        let offset = replica.log.log_end_offset();
        let completed = replica
            .txn
            .complete(
                producer_id,
                epoch,
                control,
                offset,
                MarkerOrigin::Coordinator(protocol),
            )
            .map_err(|e| e.kafka_error().unwrap_or(KafkaError::InvalidProducerEpoch))?;
        // A write held for the coordinator no longer belongs to what it was checked for (a
        // refused marker leaves it held, as Kafka's append that throws changes nothing).
        self.checks.marker_written(tp, producer_id);
        let leader_epoch = replica.leader_epoch;
        replica
            .log
            .append_marker(producer_id, epoch, control, ctx.now, ctx.step, leader_epoch);
        if let Some(stored) = replica.log.batches().last() {
            replica.producers.record(stored);
        }
        ctx.note(Note::MarkerWritten {
            broker: node,
            tp,
            producer_id,
            control,
            offset,
            closed_transaction: completed.is_some(),
        });
        push_to_followers(me, replica, &self.unreachable_since, ctx);
        release_acks(me, replica, node, ctx);
        let end = replica.log.log_end_offset();
        self.arm_isr_expiry(tp, ctx);
        Ok(Some(end))
    }

    #[allow(clippy::too_many_arguments)]
    fn on_replicate(
        &mut self,
        from: NodeId,
        tp: Tp,
        leader_epoch: u32,
        from_offset: u64,
        batches: &[StoredBatch],
        leader_high_watermark: u64,
        ctx: &mut Ctx,
    ) {
        let node = self.node();
        let Some(replica) = self.replicas.get_mut(&tp) else {
            return;
        };
        if leader_epoch < replica.leader_epoch {
            // A deposed leader's push: fenced by its older leader epoch.
            ctx.note(Note::StaleReplicationIgnored {
                broker: node,
                from,
                tp,
                leader_epoch,
                current_epoch: replica.leader_epoch,
            });
            return;
        }
        let before = replica.log.log_end_offset();
        if from_offset <= before {
            for batch in batches {
                if batch.base_offset == replica.log.log_end_offset() {
                    replica.log.append_replica(batch.clone());
                    replica.producers.record(batch);
                    replica.index_batch(batch, MarkerOrigin::Replication);
                }
            }
        }
        let leo = replica.log.log_end_offset();
        replica.set_high_watermark(leader_high_watermark);
        if leo > before {
            ctx.note(Note::Replicated {
                broker: node,
                tp,
                records: leo - before,
                log_end_offset: leo,
            });
        }
        ctx.send(
            from,
            Message::ReplicateResponse {
                tp,
                leader_epoch,
                log_end_offset: leo,
            },
        );
    }

    fn on_replicate_response(
        &mut self,
        from: NodeId,
        tp: Tp,
        leader_epoch: u32,
        log_end_offset: u64,
        ctx: &mut Ctx,
    ) {
        let me = self.id;
        let node = self.node();
        let NodeId::Broker(follower) = from else {
            return;
        };
        let Some(replica) = self.replicas.get_mut(&tp).filter(|r| r.is_leader(me)) else {
            return;
        };
        if leader_epoch != replica.leader_epoch {
            return;
        }
        let known = replica.follower_leo.entry(follower).or_insert(0);
        *known = (*known).max(log_end_offset);
        let leader_leo = replica.log.log_end_offset();
        // Kafka's `isFollowerInSync`: the follower has reached the high watermark and the
        // start of the leader's epoch (not necessarily the leader's log end).
        let epoch_start = match replica.leader_epoch.checked_sub(1) {
            Some(previous) => replica.log.end_offset_for_epoch(previous),
            None => 0,
        };
        let in_sync = log_end_offset >= replica.high_watermark.max(epoch_start);
        if in_sync && !replica.isr.contains(&follower) {
            replica.isr.push(follower);
            crate::order::sort(&mut replica.isr);
            ctx.note(Note::IsrExpanded {
                broker: node,
                tp,
                follower: NodeId::Broker(follower),
                isr: replica.isr.clone(),
            });
            // AlterPartition: the controller takes the new ISR into the metadata.
            ctx.alter_partition(me, tp, replica.isr.clone());
        }
        if log_end_offset < leader_leo {
            ctx.send(
                from,
                Message::Replicate {
                    tp,
                    leader_epoch: replica.leader_epoch,
                    from_offset: log_end_offset,
                    batches: replica.log.batches_from(log_end_offset),
                    leader_high_watermark: replica.high_watermark,
                },
            );
        }
        release_acks(me, replica, node, ctx);
    }

    #[allow(clippy::too_many_arguments)]
    fn on_fetch(
        &mut self,
        from: NodeId,
        request_id: u64,
        tp: Tp,
        (offset, last_epoch): (u64, Option<u32>),
        isolation: Isolation,
        max_records: u32,
        ctx: &mut Ctx,
    ) {
        let me = self.id;
        let node = self.node();
        // KIP-320: a reader whose position's epoch ends below it here read a log that parted
        // from this one (an unclean election): it goes back to where the epoch ends.
        // The answer names the epoch that ends there (Kafka's floor entry of its epoch cache).
        let diverging = self
            .replicas
            .get(&tp)
            .filter(|r| r.is_leader(me))
            .zip(last_epoch)
            .map(|(r, epoch)| {
                let end_offset = r.log.end_offset_for_epoch(epoch);
                DivergingEpoch {
                    epoch: end_offset
                        .checked_sub(1)
                        .and_then(|o| r.log.epoch_at(o))
                        .unwrap_or(epoch),
                    end_offset,
                }
            })
            .filter(|d| d.end_offset < offset);
        // A reader that knows a newer epoch than this leader's talks to a deposed leader not
        // yet told (Kafka: FENCED_LEADER_EPOCH): it looks the leader up again.
        let stale = self
            .replicas
            .get(&tp)
            .zip(last_epoch)
            .is_some_and(|(r, epoch)| epoch > r.leader_epoch);
        let result = match self.replicas.get(&tp) {
            Some(_) if stale => {
                ctx.note(Note::NotLeader {
                    broker: node,
                    tp,
                    leader: None,
                });
                Err((KafkaError::NotLeaderOrFollower, None))
            }
            Some(replica) if replica.is_leader(me) && diverging.is_some() => Ok(FetchBody {
                entries: Vec::new(),
                aborted: Vec::new(),
                high_watermark: replica.high_watermark,
                last_stable_offset: replica.last_stable_offset(),
                next_offset: offset,
                last_epoch: None,
                diverging,
            }),
            Some(replica) if replica.is_leader(me) && offset > replica.log.log_end_offset() => {
                Err((KafkaError::OffsetOutOfRange, Some(me)))
            }
            Some(replica) if replica.is_leader(me) => {
                let until = replica.fetch_upper_bound(isolation);
                let entries = replica.log.read_entries(offset, until, max_records);
                let aborted = match isolation {
                    Isolation::ReadCommitted => replica.txn.aborted_in_range(offset, until),
                    Isolation::ReadUncommitted => Vec::new(),
                };
                let next_offset = entries.last().map_or(offset, |e| e.offset() + 1);
                let served_epoch = entries
                    .last()
                    .and_then(|e| replica.log.epoch_at(e.offset()));
                ctx.note(Note::FetchServed {
                    broker: node,
                    consumer: from,
                    tp,
                    from: offset,
                    count: entries.len() as u32,
                    high_watermark: replica.high_watermark,
                    last_stable_offset: replica.last_stable_offset(),
                    isolation,
                });
                Ok(FetchBody {
                    entries,
                    aborted,
                    high_watermark: replica.high_watermark,
                    last_stable_offset: replica.last_stable_offset(),
                    next_offset,
                    last_epoch: served_epoch,
                    diverging: None,
                })
            }
            other => {
                let leader = other.and_then(|r| r.leader);
                ctx.note(Note::NotLeader {
                    broker: node,
                    tp,
                    leader,
                });
                Err((KafkaError::NotLeaderOrFollower, leader))
            }
        };
        ctx.send(
            from,
            Message::FetchResponse {
                request_id,
                tp,
                result,
            },
        );
    }
}

/// The leader epoch a commit names for `tp`, if any.
fn epoch_of(leader_epochs: &[(Tp, u32)], tp: Tp) -> Option<u32> {
    leader_epochs
        .iter()
        .find(|(t, _)| *t == tp)
        .map(|(_, e)| *e)
}

/// The leader pushes what each in-sync follower lacks (our stand-in for follower fetches).
/// Followers outside the ISR catch up through their own responses.
/// Answers a Produce request (none under acks=0).
pub(super) fn answer_produce(
    ctx: &mut Ctx,
    to: NodeId,
    request_id: u64,
    tp: Tp,
    acks: Acks,
    result: ProduceResult,
) {
    if acks != Acks::None {
        ctx.send(
            to,
            Message::ProduceResponse {
                request_id,
                tp,
                result,
            },
        );
    }
}

/// The leader sends each follower what it lacks: those in sync, and those out of sync that
/// can be reached (Kafka's followers fetch in sync or not, and catch up to rejoin).
pub fn push_to_followers(
    me: u8,
    replica: &Replica,
    unreachable: &VecMap<u8, SimTime>,
    ctx: &mut Ctx,
) {
    for follower in replica.replicas.iter().copied().filter(|b| *b != me) {
        let lacks = replica.follower_leo.get(&follower).copied().unwrap_or(0)
            < replica.log.log_end_offset();
        if replica.isr.contains(&follower) || (lacks && !unreachable.contains_key(&follower)) {
            send_missing(me, replica, follower, ctx);
        }
    }
}

/// The leader sends follower `f` what it lacks.
pub(super) fn send_missing(me: u8, r: &Replica, f: u8, ctx: &mut Ctx) {
    let from_offset = r.follower_leo.get(&f).copied().unwrap_or(0);
    ctx.send_as(
        NodeId::Broker(me),
        NodeId::Broker(f),
        Message::Replicate {
            tp: r.tp,
            leader_epoch: r.leader_epoch,
            from_offset,
            batches: r.log.batches_from(from_offset),
            leader_high_watermark: r.high_watermark,
        },
    );
}

/// Recomputes the high watermark and answers the produce requests it now covers.
pub fn release_acks(me: u8, replica: &mut Replica, node: NodeId, ctx: &mut Ctx) {
    if replica.recompute_high_watermark(me) {
        ctx.note(Note::HighWatermarkAdvanced {
            broker: node,
            tp: replica.tp,
            high_watermark: replica.high_watermark,
        });
    }
    for ack in replica.take_releasable_acks() {
        // Kafka's `DelayedProduce`: replicated to the ISR, but the ISR is too small.
        let result = if replica.too_few_in_sync() {
            ctx.note(Note::TooFewInSync {
                broker: node,
                tp: replica.tp,
                isr: replica.isr.clone(),
                min_insync: replica.min_insync,
                appended_at: Some(ack.base_offset),
                records: replica
                    .log
                    .records_below(ack.end_offset)
                    .filter(|r| r.offset >= ack.base_offset)
                    .map(|r| r.value)
                    .collect(),
            });
            ProduceResult::Error {
                error: KafkaError::NotEnoughReplicasAfterAppend,
                leader_hint: None,
            }
        } else if ack.duplicate {
            ProduceResult::Duplicate {
                base_offset: ack.base_offset,
            }
        } else {
            ProduceResult::Appended {
                base_offset: ack.base_offset,
            }
        };
        ctx.send_as(
            node,
            ack.producer,
            Message::ProduceResponse {
                request_id: ack.request_id,
                tp: replica.tp,
                result,
            },
        );
    }
}
