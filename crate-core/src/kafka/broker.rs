//! A broker: leader or follower replicas of partitions, the append path with the
//! idempotence checks, replication, fetches, and producer id allocation.

use super::errors::KafkaError;
use super::group_coordinator::GroupOffsets;
use super::partition_log::{sequence_add, StoredBatch};
use super::producer_state::{check_append, AppendDecision};
use super::protocol::{FetchBody, Message, ProduceResult, ProducerBatch};
use super::replica::{PendingAck, Replica};
use super::{Acks, Isolation};
use crate::ids::{NodeId, RecordId, Tp};
use crate::sim::{Ctx, Note};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Producer ids are handed out in blocks per broker, as Kafka's `ProducerIdManager` does.
pub const PRODUCER_ID_BLOCK: i64 = 1_000;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Broker {
    pub id: u8,
    #[serde(with = "crate::serde_pairs")]
    pub replicas: BTreeMap<Tp, Replica>,
    /// Committed consumer offsets, for the groups this broker coordinates.
    pub groups: GroupOffsets,
    next_producer_id: i64,
}

impl Broker {
    pub fn new(id: u8) -> Self {
        Broker {
            id,
            replicas: BTreeMap::new(),
            groups: GroupOffsets::default(),
            next_producer_id: i64::from(id) * PRODUCER_ID_BLOCK,
        }
    }

    pub fn node(&self) -> NodeId {
        NodeId::Broker(self.id)
    }

    /// A crash loses what lives only in memory; the log and producer state are on disk.
    pub fn crash(&mut self) {
        for r in self.replicas.values_mut() {
            r.pending_acks.clear();
            r.follower_leo.clear();
        }
    }

    pub fn handle(&mut self, from: NodeId, msg: &Message, ctx: &mut Ctx) {
        match msg {
            Message::InitProducerId { request_id } => {
                let producer_id = self.next_producer_id;
                self.next_producer_id += 1;
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
                    },
                );
            }
            Message::Produce {
                request_id,
                tp,
                acks,
                batch,
            } => self.on_produce(from, *request_id, *tp, *acks, batch, ctx),
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
            } => self.on_fetch(
                from,
                *request_id,
                *tp,
                *offset,
                *isolation,
                *max_records,
                ctx,
            ),
            Message::OffsetCommit {
                request_id,
                group,
                offsets,
            } => {
                for (tp, offset) in offsets {
                    self.groups.commit(group, *tp, *offset);
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
                let offsets = partitions
                    .iter()
                    .map(|tp| (*tp, self.groups.committed(group, *tp)))
                    .collect();
                ctx.send(
                    from,
                    Message::OffsetFetchResponse {
                        request_id: *request_id,
                        offsets,
                    },
                );
            }
            Message::InitProducerIdResponse { .. }
            | Message::ProduceResponse { .. }
            | Message::FetchResponse { .. }
            | Message::OffsetCommitResponse { .. }
            | Message::OffsetFetchResponse { .. } => {}
        }
    }

    fn on_produce(
        &mut self,
        from: NodeId,
        request_id: u64,
        tp: Tp,
        acks: Acks,
        batch: &ProducerBatch,
        ctx: &mut Ctx,
    ) {
        let me = self.id;
        let node = self.node();
        let respond = |ctx: &mut Ctx, result: ProduceResult| {
            if acks != Acks::None {
                ctx.send(
                    from,
                    Message::ProduceResponse {
                        request_id,
                        tp,
                        result,
                    },
                );
            }
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
        let records: Vec<RecordId> = batch.records.iter().map(|r| r.value).collect();
        let last_sequence = sequence_add(batch.base_sequence, batch.records.len() as i32 - 1);
        let decision = if batch.producer_id >= 0 {
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
                respond(ctx, ProduceResult::Duplicate { base_offset });
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
                respond(
                    ctx,
                    ProduceResult::Error {
                        error,
                        leader_hint: None,
                    },
                );
            }
            AppendDecision::Append => {
                let base_offset = replica.log.append(
                    batch.producer_id,
                    batch.epoch,
                    batch.base_sequence,
                    batch.records.clone(),
                    ctx.now,
                    ctx.step,
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
                });
                push_to_followers(me, replica, ctx);
                let moved = replica.recompute_high_watermark(me);
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
            return; // a deposed leader's push: ignore it
        }
        let before = replica.log.log_end_offset();
        if from_offset <= before {
            for batch in batches {
                if batch.base_offset == replica.log.log_end_offset() {
                    replica.log.append_replica(batch.clone());
                    replica.producers.record(batch);
                }
            }
        }
        let leo = replica.log.log_end_offset();
        replica.high_watermark = replica.high_watermark.max(leader_high_watermark.min(leo));
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
        if log_end_offset >= leader_leo && !replica.isr.contains(&follower) {
            replica.isr.push(follower);
            replica.isr.sort_unstable();
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
        offset: u64,
        isolation: Isolation,
        max_records: u32,
        ctx: &mut Ctx,
    ) {
        let me = self.id;
        let node = self.node();
        let result = match self.replicas.get(&tp) {
            Some(replica) if replica.is_leader(me) => {
                let until = match isolation {
                    Isolation::ReadUncommitted => replica.high_watermark,
                    Isolation::ReadCommitted => replica.last_stable_offset(),
                };
                let records = replica.log.read(offset, until, max_records);
                let next_offset = records.last().map_or(offset, |r| r.offset + 1);
                ctx.note(Note::FetchServed {
                    broker: node,
                    consumer: from,
                    tp,
                    from: offset,
                    count: records.len() as u32,
                    high_watermark: replica.high_watermark,
                });
                Ok(FetchBody {
                    records,
                    high_watermark: replica.high_watermark,
                    last_stable_offset: replica.last_stable_offset(),
                    next_offset,
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

/// The leader pushes what each in-sync follower lacks (our stand-in for follower fetches).
/// Followers outside the ISR catch up through their own responses.
pub fn push_to_followers(me: u8, replica: &Replica, ctx: &mut Ctx) {
    for follower in replica.isr.iter().copied().filter(|b| *b != me) {
        let from_offset = replica.follower_leo.get(&follower).copied().unwrap_or(0);
        ctx.send_as(
            NodeId::Broker(me),
            NodeId::Broker(follower),
            Message::Replicate {
                tp: replica.tp,
                leader_epoch: replica.leader_epoch,
                from_offset,
                batches: replica.log.batches_from(from_offset),
                leader_high_watermark: replica.high_watermark,
            },
        );
    }
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
        ctx.send_as(
            node,
            ack.producer,
            Message::ProduceResponse {
                request_id: ack.request_id,
                tp: replica.tp,
                result: ProduceResult::Appended {
                    base_offset: ack.base_offset,
                },
            },
        );
    }
}
