//! A Kafka source subtask: fetches its partitions (read_committed) and emits one record per
//! step; its position (the next offset to emit) is what a checkpoint stores.

use super::job::Job;
use super::record::{FRecord, Item};
use super::snapshot::TaskSnapshot;
use super::FlinkTimer;
use crate::ids::NodeId;
use crate::ids::{RecordId, Tp};
use crate::kafka::errors::KafkaError;
use crate::kafka::position_epochs::PositionEpochs;
use crate::kafka::protocol::{FetchBody, Message};
use crate::kafka::txn_index::deliverable;
use crate::kafka::Isolation;
use crate::sim::{Ctx, FlinkNote, Note, Timer};
use crate::time::{ms, SimTime};
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

const FETCH_MAX_RECORDS: u32 = 50;
const FETCH_TIMEOUT_MS: u64 = 5_000;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fetched {
    pub tp: Tp,
    pub offset: u64,
    pub key: Option<u32>,
    pub value: RecordId,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SourceState {
    pub partitions: Vec<Tp>,
    /// The next offset to emit, per partition: the checkpointed position.
    #[serde(with = "crate::serde_pairs")]
    pub positions: VecMap<Tp, u64>,
    /// The next offset to fetch.
    #[serde(with = "crate::serde_pairs")]
    pub fetch_at: VecMap<Tp, u64>,
    pub buffer: VecDeque<Fetched>,
    /// request id → (partition, broker, sent at)
    pub in_flight: VecMap<u64, (Tp, u8, SimTime)>,
    #[serde(with = "crate::serde_pairs")]
    pub leader_hint: VecMap<Tp, u8>,
    /// The last fetch round found nothing new.
    pub caught_up: bool,
    /// A final (stop-with-savepoint) barrier waiting for the source to drain its input.
    pub final_barrier: Option<(u64, SimTime)>,
    /// The leader epochs of the fetch positions (KIP-320).
    #[serde(default)]
    pub epochs: PositionEpochs,
}

impl SourceState {
    pub fn new(partitions: Vec<Tp>, leaders: &VecMap<Tp, u8>) -> Self {
        SourceState {
            positions: partitions.iter().map(|&tp| (tp, 0)).collect(),
            fetch_at: partitions.iter().map(|&tp| (tp, 0)).collect(),
            leader_hint: partitions
                .iter()
                .map(|&tp| (tp, leaders.get(&tp).copied().unwrap_or(0)))
                .collect(),
            partitions,
            ..Default::default()
        }
    }

    /// Back to a checkpoint's positions: everything fetched after them is read again.
    pub fn rewind(&mut self, positions: &VecMap<Tp, u64>) {
        for tp in &self.partitions {
            let at = positions.get(tp).copied().unwrap_or(0);
            self.positions.insert(*tp, at);
            self.fetch_at.insert(*tp, at);
        }
        self.buffer.clear();
        self.in_flight.clear();
        self.caught_up = false;
        self.final_barrier = None;
        self.epochs.forget();
    }
}

impl Job {
    pub(super) fn source_poll(&mut self, t: usize, ctx: &mut Ctx) -> bool {
        let attempt = self.attempt;
        if self
            .tasks
            .get(t)
            .is_none_or(|x| x.finished || x.source.is_none())
        {
            return false;
        }
        let sent = self.source_fetch(t, ctx);
        ctx.set_timer_for(
            Self::node(t),
            self.config.poll_interval,
            Timer::Flink(FlinkTimer::Poll { attempt }),
        );
        sent
    }

    /// Fetches every partition once the buffer is empty (a fetch that never came back is
    /// given up after a while).
    fn source_fetch(&mut self, t: usize, ctx: &mut Ctx) -> bool {
        let mut sent = false;
        let next_request = &mut self.next_request_id;
        let Some(src) = self.tasks.get_mut(t).and_then(|x| x.source.as_mut()) else {
            return false;
        };
        let stale: Vec<u64> = src
            .in_flight
            .iter()
            .filter(|(_, (_, _, at))| ctx.now.saturating_sub(*at) >= ms(FETCH_TIMEOUT_MS))
            .map(|(id, _)| *id)
            .collect();
        if !stale.is_empty() {
            for id in stale {
                src.in_flight.remove(&id);
            }
            // Like any Kafka consumer, it asks a live broker where the leaders are now (until
            // the controller moves the leadership, the same silent broker), and fetches at its
            // next poll, with the answer.
            ctx.refresh_metadata_for(Self::node(t));
            return false;
        }
        if src.buffer.is_empty() && src.in_flight.is_empty() {
            for tp in src.partitions.clone() {
                let request_id = *next_request;
                *next_request += 1;
                let broker = src.leader_hint.get(&tp).copied().unwrap_or(0);
                src.in_flight.insert(request_id, (tp, broker, ctx.now));
                ctx.send_as(
                    Self::node(t),
                    NodeId::Broker(broker),
                    Message::Fetch {
                        request_id,
                        tp,
                        offset: src.fetch_at.get(&tp).copied().unwrap_or(0),
                        isolation: Isolation::ReadCommitted,
                        max_records: FETCH_MAX_RECORDS,
                        last_epoch: src.epochs.of(tp),
                    },
                );
                sent = true;
            }
        }
        sent
    }

    pub(super) fn source_fetched(
        &mut self,
        t: usize,
        request_id: u64,
        tp: Tp,
        result: &Result<FetchBody, (KafkaError, Option<u8>)>,
        ctx: &mut Ctx,
    ) -> bool {
        let Some(src) = self.tasks.get_mut(t).and_then(|x| x.source.as_mut()) else {
            return false;
        };
        if src.in_flight.remove(&request_id).is_none() {
            return false;
        }
        let at = src.fetch_at.get(&tp).copied().unwrap_or(0);
        if let Some(to) = src.epochs.take(Self::node(t), tp, at, result, ctx) {
            src.fetch_at.insert(tp, to);
            src.caught_up = false;
            self.wake(t, 0, ctx);
            return true;
        }
        match result {
            Ok(body) => {
                let records = deliverable(Isolation::ReadCommitted, &body.entries, &body.aborted);
                let before = src.buffer.len();
                for r in records {
                    src.buffer.push_back(Fetched {
                        tp,
                        offset: r.offset,
                        key: r.key,
                        value: r.value,
                    });
                }
                let from = src.fetch_at.get(&tp).copied().unwrap_or(0);
                src.fetch_at.insert(tp, body.next_offset.max(from));
                if src.in_flight.is_empty() {
                    src.caught_up = src.buffer.len() == before && body.next_offset <= from;
                }
            }
            Err((KafkaError::NotLeaderOrFollower, Some(leader))) => {
                src.leader_hint.insert(tp, *leader);
            }
            Err((KafkaError::NotLeaderOrFollower, None)) => {
                ctx.refresh_metadata_for(Self::node(t));
            }
            Err(_) => {}
        }
        self.wake(t, 0, ctx);
        true
    }

    /// Emits the next fetched record, or a final barrier once drained.
    pub(super) fn source_step(&mut self, t: usize, ctx: &mut Ctx) -> bool {
        if self.tasks[t].finished {
            return false;
        }
        let drained = self.tasks[t]
            .source
            .as_ref()
            .is_some_and(|s| s.buffer.is_empty() && s.in_flight.is_empty() && s.caught_up);
        if drained {
            if let Some((id, _)) = self.tasks[t].source.as_ref().and_then(|s| s.final_barrier) {
                self.source_barrier(t, id, true, ctx);
                return true;
            }
        }
        if !self.outputs_have_room(t) {
            self.tasks[t].backpressured = true;
            return false;
        }
        let Some(src) = self.tasks[t].source.as_mut() else {
            return false;
        };
        let Some(f) = src.buffer.pop_front() else {
            if src.in_flight.is_empty() {
                // Nothing buffered: the poll timer will fetch.
            }
            return false;
        };
        src.positions.insert(f.tp, f.offset + 1);
        // Like a consumer's next poll: fetch again as soon as the buffer runs dry, unless
        // the last round found nothing (then the poll interval paces it).
        let refetch = src.buffer.is_empty() && src.in_flight.is_empty() && !src.caught_up;
        let op = self.topology.tasks[t].operator;
        let processing = self.operators[op].processing;
        let r = FRecord {
            id: f.value,
            key: f.key,
            count: 0,
            passes: 0,
        };
        *self.read.entry(r.id).or_insert(0) += 1;
        ctx.note(Note::Flink(FlinkNote::SourceEmitted {
            task: Self::node(t),
            record: r.id,
            tp: f.tp,
            offset: f.offset,
        }));
        self.tasks[t].count_processed();
        self.emit(t, r, processing, ctx);
        self.wake(t, processing, ctx);
        if refetch {
            self.source_fetch(t, ctx);
        }
        true
    }

    /// A trigger from the JobManager: record the position, emit the barrier, acknowledge.
    pub(super) fn source_trigger(&mut self, t: usize, id: u64, last: bool, ctx: &mut Ctx) -> bool {
        if id <= self.tasks[t].last_snapshot {
            return false;
        }
        if self.tasks[t].finished {
            // Drained already (an earlier final checkpoint expired): barrier right away.
            self.source_barrier(t, id, last, ctx);
            return true;
        }
        if last {
            // Stop with a final checkpoint once the input is drained (bounded run).
            if let Some(src) = self.tasks[t].source.as_mut() {
                src.final_barrier = Some((id, ctx.now));
            }
            self.wake(t, 0, ctx);
            return true;
        }
        self.source_barrier(t, id, false, ctx);
        true
    }

    fn source_barrier(&mut self, t: usize, id: u64, last: bool, ctx: &mut Ctx) {
        let mut snap: TaskSnapshot = self.capture(t, id, ctx.now);
        let overtake = self.config.unaligned && self.config.unaligned_allowed() && !last;
        snap.unaligned = overtake;
        let triggered_at = ctx.now;
        self.forward_barrier(t, id, triggered_at, overtake, &mut snap, ctx);
        self.tasks[t].last_snapshot = id;
        ctx.note(Note::Flink(FlinkNote::BarrierEmitted {
            task: Self::node(t),
            id,
            positions: snap.positions.iter().map(|(tp, o)| (*tp, *o)).collect(),
        }));
        if last {
            self.tasks[t].finished = true;
            if let Some(src) = self.tasks[t].source.as_mut() {
                src.final_barrier = None;
            }
        }
        self.upload(t, snap, ctx);
        let _ = Item::Barrier { id, triggered_at };
    }
}
