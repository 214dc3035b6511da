//! A consumer with assigned partitions: it polls the leaders, reads what its isolation level
//! allows, and stops after a number of empty polls (or at a set time).

use super::errors::KafkaError;
use super::position_epochs::PositionEpochs;
use super::protocol::{FetchBody, Message};
use super::txn_index::deliverable;
use super::{Isolation, OffsetReset};
use crate::ids::{NodeId, RecordId, Tp};
use crate::sim::{Ctx, Note, Timer};
use crate::time::{ms, SimTime};
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};

const FETCH_MAX_RECORDS: u32 = 500;
const FETCH_TIMEOUT_MS: u64 = 30_000;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsumerTimer {
    Start,
    Poll,
    FetchTimeout { request_id: u64 },
    OffsetFetchTimeout { request_id: u64 },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ConsumerSettings {
    pub assignments: Vec<Tp>,
    pub isolation: Isolation,
    pub start_at: SimTime,
    pub poll_interval: SimTime,
    pub max_empty_polls: u32,
    pub stop_at: Option<SimTime>,
    /// The consumer group, if any: positions are committed to and resumed from it.
    pub group: Option<String>,
    /// `enable.auto.commit` with `auto.commit.interval.ms`; `None` commits nothing.
    pub auto_commit_interval: Option<SimTime>,
    /// The broker that coordinates the group.
    pub coordinator: u8,
    /// `auto.offset.reset`.
    #[serde(default)]
    pub offset_reset: OffsetReset,
}

/// One record as the application received it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ReadEntry {
    pub tp: Tp,
    pub offset: u64,
    pub key: Option<u32>,
    pub value: RecordId,
    pub at: SimTime,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Consumer {
    pub index: u8,
    pub settings: ConsumerSettings,
    pub brokers: u8,
    #[serde(with = "crate::serde_pairs")]
    pub positions: VecMap<Tp, u64>,
    #[serde(with = "crate::serde_pairs")]
    pub leader_hint: VecMap<Tp, u8>,
    /// request id → (partition, broker asked).
    pub in_flight: VecMap<u64, (Tp, u8)>,
    pub empty_polls: u32,
    pub round_read: u32,
    pub stopped: bool,
    pub started: bool,
    pub reads: Vec<ReadEntry>,
    /// Waiting for the group's committed offsets before the first poll.
    pub awaiting_offsets: Option<u64>,
    /// What this consumer last committed, and when.
    #[serde(with = "crate::serde_pairs")]
    pub committed: VecMap<Tp, u64>,
    pub last_commit_at: SimTime,
    /// The leader epochs of the positions (KIP-320).
    #[serde(default)]
    pub epochs: PositionEpochs,
    next_request_id: u64,
}

impl Consumer {
    pub fn new(
        index: u8,
        settings: ConsumerSettings,
        leaders: VecMap<Tp, u8>,
        brokers: u8,
    ) -> Self {
        Consumer {
            index,
            settings,
            brokers: brokers.max(1),
            positions: VecMap::new(),
            leader_hint: leaders,
            in_flight: VecMap::new(),
            empty_polls: 0,
            round_read: 0,
            stopped: false,
            started: false,
            reads: Vec::new(),
            awaiting_offsets: None,
            committed: VecMap::new(),
            last_commit_at: 0,
            epochs: PositionEpochs::default(),
            next_request_id: 0,
        }
    }

    pub fn node(&self) -> NodeId {
        NodeId::Consumer(self.index)
    }

    pub fn on_timer(&mut self, timer: &ConsumerTimer, ctx: &mut Ctx) -> bool {
        if self.stopped {
            return false;
        }
        match timer {
            ConsumerTimer::Start => {
                self.started = true;
                self.last_commit_at = ctx.now;
                self.begin(ctx);
                true
            }
            ConsumerTimer::OffsetFetchTimeout { request_id } => {
                if self.awaiting_offsets != Some(*request_id) {
                    return false;
                }
                self.begin(ctx);
                true
            }
            ConsumerTimer::Poll => {
                if !self.in_flight.is_empty() || self.awaiting_offsets.is_some() {
                    return false;
                }
                if self.settings.stop_at.is_some_and(|t| ctx.now >= t) {
                    self.stop(ctx);
                } else {
                    self.poll(ctx);
                }
                true
            }
            ConsumerTimer::FetchTimeout { request_id } => {
                if self.in_flight.remove(request_id).is_none() {
                    return false;
                }
                // Fresh metadata from a live broker says where to fetch next (until the
                // controller moves the leadership, the same silent broker).
                ctx.refresh_metadata();
                self.after_response(ctx);
                true
            }
        }
    }

    fn take_request_id(&mut self) -> u64 {
        let id = self.next_request_id;
        self.next_request_id += 1;
        id
    }

    /// Starts (or restarts) consuming: with a group, ask for its committed offsets first.
    fn begin(&mut self, ctx: &mut Ctx) {
        let Some(group) = self.settings.group.clone() else {
            self.poll(ctx);
            return;
        };
        let request_id = self.take_request_id();
        self.awaiting_offsets = Some(request_id);
        ctx.send(
            NodeId::Broker(self.settings.coordinator),
            Message::OffsetFetch {
                request_id,
                group,
                partitions: self.settings.assignments.clone(),
            },
        );
        ctx.set_timer(
            ms(FETCH_TIMEOUT_MS),
            Timer::Consumer(ConsumerTimer::OffsetFetchTimeout { request_id }),
        );
    }

    /// Commits the positions of what the application has received, if they moved.
    fn commit(&mut self, ctx: &mut Ctx) {
        let Some(group) = self.settings.group.clone() else {
            return;
        };
        let offsets: Vec<(Tp, u64)> = self
            .positions
            .iter()
            .filter(|(tp, o)| self.committed.get(tp) != Some(o))
            .map(|(tp, o)| (*tp, *o))
            .collect();
        self.last_commit_at = ctx.now;
        if offsets.is_empty() {
            return;
        }
        for (tp, o) in &offsets {
            self.committed.insert(*tp, *o);
        }
        let request_id = self.take_request_id();
        let leader_epochs = self.epochs.for_commit(&offsets);
        ctx.send(
            NodeId::Broker(self.settings.coordinator),
            Message::OffsetCommit {
                request_id,
                group,
                offsets,
                leader_epochs,
            },
        );
    }

    fn poll(&mut self, ctx: &mut Ctx) {
        // The Java consumer auto-commits inside poll(), the positions of what the previous
        // polls returned.
        if let Some(interval) = self.settings.auto_commit_interval {
            if ctx.now.saturating_sub(self.last_commit_at) >= interval {
                self.commit(ctx);
            }
        }
        self.round_read = 0;
        for tp in self.settings.assignments.clone() {
            let broker = self.leader_hint.get(&tp).copied().unwrap_or(0);
            let offset = match (self.positions.get(&tp).copied(), self.settings.offset_reset) {
                (Some(offset), _) => offset,
                (None, OffsetReset::Earliest) => 0,
                (None, OffsetReset::Latest) => {
                    self.look_up_latest(tp, broker, None, ctx);
                    continue;
                }
                (None, OffsetReset::Fail) => {
                    self.fail_without_offset(tp, None, ctx);
                    return;
                }
            };
            let request_id = self.take_request_id();
            self.in_flight.insert(request_id, (tp, broker));
            ctx.note(Note::FetchSent {
                consumer: NodeId::Consumer(self.index),
                broker: NodeId::Broker(broker),
                tp,
                offset,
            });
            ctx.send(
                NodeId::Broker(broker),
                Message::Fetch {
                    request_id,
                    tp,
                    offset,
                    isolation: self.settings.isolation,
                    max_records: FETCH_MAX_RECORDS,
                    last_epoch: self.epochs.of(tp),
                },
            );
            ctx.set_timer(
                ms(FETCH_TIMEOUT_MS),
                Timer::Consumer(ConsumerTimer::FetchTimeout { request_id }),
            );
        }
    }

    /// `auto.offset.reset=latest`: asks the leader where the log ends (ListOffsets).
    fn look_up_latest(&mut self, tp: Tp, broker: u8, past_end: Option<u64>, ctx: &mut Ctx) {
        let request_id = self.take_request_id();
        self.in_flight.insert(request_id, (tp, broker));
        ctx.note(Note::OffsetLookup {
            consumer: self.node(),
            broker: NodeId::Broker(broker),
            tp,
            past_end,
        });
        ctx.send(
            NodeId::Broker(broker),
            Message::ListOffsets {
                request_id,
                tp,
                isolation: self.settings.isolation,
            },
        );
        ctx.set_timer(
            ms(FETCH_TIMEOUT_MS),
            Timer::Consumer(ConsumerTimer::FetchTimeout { request_id }),
        );
    }

    /// `auto.offset.reset=none`: `poll()` throws, and the application stops (without the
    /// commit a clean close would make).
    fn fail_without_offset(&mut self, tp: Tp, past_end: Option<u64>, ctx: &mut Ctx) {
        ctx.note(Note::NoResetPolicy {
            consumer: self.node(),
            tp,
            past_end,
        });
        self.in_flight.clear();
        self.stopped = true;
        ctx.note(Note::ConsumerStopped {
            consumer: self.node(),
        });
    }

    /// Where `tp`'s log ends for this consumer, or why the broker would not say.
    fn on_list_offsets(
        &mut self,
        tp: Tp,
        result: &Result<u64, (KafkaError, Option<u8>)>,
        ctx: &mut Ctx,
    ) {
        match result {
            Ok(offset) => {
                self.positions.insert(tp, *offset);
                self.epochs.drop_position(tp);
                // Where to start is news, not an empty poll.
                self.empty_polls = 0;
                ctx.note(Note::StartsAtLatest {
                    consumer: self.node(),
                    tp,
                    offset: *offset,
                    isolation: self.settings.isolation,
                });
            }
            Err((KafkaError::NotLeaderOrFollower, Some(leader))) => {
                self.leader_hint.insert(tp, *leader);
            }
            Err(_) => ctx.refresh_metadata(),
        }
    }

    pub fn on_message(&mut self, msg: &Message, ctx: &mut Ctx) -> bool {
        if let Message::ListOffsetsResponse {
            request_id,
            tp,
            result,
        } = msg
        {
            if self.stopped || self.in_flight.remove(request_id).is_none() {
                return false;
            }
            self.on_list_offsets(*tp, result, ctx);
            self.after_response(ctx);
            return true;
        }
        if let Message::OffsetFetchResponse {
            request_id,
            offsets,
            error,
            leader_epochs,
        } = msg
        {
            if self.awaiting_offsets != Some(*request_id) || self.stopped {
                return false;
            }
            if let Some(e) = error {
                // UNSTABLE_OFFSET_COMMIT: a transaction holds offsets; ask again shortly.
                ctx.note(Note::OffsetFetchRetry {
                    consumer: self.node(),
                    error: *e,
                });
                ctx.set_timer(
                    self.settings.poll_interval,
                    Timer::Consumer(ConsumerTimer::OffsetFetchTimeout {
                        request_id: *request_id,
                    }),
                );
                return true;
            }
            self.awaiting_offsets = None;
            self.epochs.resume(leader_epochs);
            for (tp, offset) in offsets {
                match offset {
                    Some(o) => {
                        self.positions.insert(*tp, *o);
                        self.committed.insert(*tp, *o);
                    }
                    // No committed offset: auto.offset.reset decides at the poll.
                    None => {
                        self.positions.remove(tp);
                    }
                }
            }
            ctx.note(Note::ResumedFromCommitted {
                consumer: self.node(),
                group: self.settings.group.clone().unwrap_or_default(),
                offsets: offsets.clone(),
                reset: self.settings.offset_reset,
            });
            self.poll(ctx);
            return true;
        }
        if let Message::OffsetCommitResponse { .. } = msg {
            return false;
        }
        let Message::FetchResponse {
            request_id,
            tp,
            result,
        } = msg
        else {
            return false;
        };
        if self.in_flight.remove(request_id).is_none() {
            return false;
        }
        let at = self.positions.get(tp).copied().unwrap_or(0);
        if matches!(result, Err((KafkaError::OffsetOutOfRange, _))) {
            match self.settings.offset_reset {
                OffsetReset::Earliest => {}
                OffsetReset::Latest => {
                    // Past the log end: the next poll asks where it ends now.
                    self.positions.remove(tp);
                    self.epochs.drop_position(*tp);
                    let broker = self.leader_hint.get(tp).copied().unwrap_or(0);
                    self.look_up_latest(*tp, broker, Some(at), ctx);
                    return true;
                }
                OffsetReset::Fail => {
                    self.fail_without_offset(*tp, Some(at), ctx);
                    return true;
                }
            }
        }
        if let Some(to) = self.epochs.take(self.node(), *tp, at, result, ctx) {
            self.positions.insert(*tp, to);
            // A reset is news, not an empty poll: the count of empty rounds starts again.
            self.empty_polls = 0;
            self.after_response(ctx);
            return true;
        }
        match result {
            Ok(body) => self.take(*tp, body, ctx),
            Err((KafkaError::NotLeaderOrFollower, Some(leader))) => {
                self.leader_hint.insert(*tp, *leader);
            }
            // The broker does not know the leader either: ask for fresh metadata.
            Err((KafkaError::NotLeaderOrFollower, None)) => ctx.refresh_metadata(),
            Err(_) => {}
        }
        self.after_response(ctx);
        true
    }

    fn take(&mut self, tp: Tp, body: &FetchBody, ctx: &mut Ctx) {
        let position = self.positions.entry(tp).or_insert(0);
        let records = deliverable(self.settings.isolation, &body.entries, &body.aborted);
        let skipped = body.entries.len() - records.len();
        let from = *position;
        *position = (*position).max(body.next_offset);
        if records.is_empty() {
            ctx.note(Note::PolledNothing {
                consumer: NodeId::Consumer(self.index),
                tp,
                offset: from,
                skipped: skipped as u32,
                last_stable_offset: body.last_stable_offset,
                high_watermark: body.high_watermark,
                isolation: self.settings.isolation,
            });
            return;
        }
        self.round_read += records.len() as u32;
        let mut read = Vec::with_capacity(records.len());
        for r in &records {
            self.reads.push(ReadEntry {
                tp,
                offset: r.offset,
                key: r.key,
                value: r.value,
                at: ctx.now,
            });
            read.push((r.offset, r.value));
        }
        ctx.note(Note::Read {
            consumer: NodeId::Consumer(self.index),
            tp,
            records: read,
            skipped: skipped as u32,
            isolation: self.settings.isolation,
        });
    }

    fn after_response(&mut self, ctx: &mut Ctx) {
        if !self.in_flight.is_empty() {
            return;
        }
        if self.round_read == 0 {
            self.empty_polls += 1;
        } else {
            self.empty_polls = 0;
        }
        let done = match self.settings.stop_at {
            Some(t) => ctx.now >= t,
            None => self.empty_polls >= self.settings.max_empty_polls,
        };
        if done {
            self.stop(ctx);
        } else {
            ctx.set_timer(
                self.settings.poll_interval,
                Timer::Consumer(ConsumerTimer::Poll),
            );
        }
    }

    fn stop(&mut self, ctx: &mut Ctx) {
        // close() commits what was consumed when auto-commit is on.
        if self.settings.auto_commit_interval.is_some() {
            self.commit(ctx);
        }
        self.stopped = true;
        ctx.note(Note::ConsumerStopped {
            consumer: self.node(),
        });
    }

    /// Positions live in memory: a restarted consumer resumes from its group's committed
    /// offsets, or without them from the earliest offset (`auto.offset.reset=earliest`).
    pub fn crash(&mut self) {
        self.positions.clear();
        self.epochs.forget();
        self.committed.clear();
        self.in_flight.clear();
        self.awaiting_offsets = None;
        self.empty_polls = 0;
    }

    pub fn restart(&mut self, ctx: &mut Ctx) {
        // A new consumer starts its auto-commit clock when it is created (the Java
        // ConsumerCoordinator's `nextAutoCommitTimer`): its first commit is an interval away.
        self.last_commit_at = ctx.now;
        if !self.stopped && self.started {
            self.begin(ctx);
        } else if !self.started {
            let wait = self.settings.start_at.saturating_sub(ctx.now);
            ctx.set_timer(wait, Timer::Consumer(ConsumerTimer::Start));
        }
    }
}
