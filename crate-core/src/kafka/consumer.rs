//! A consumer with assigned partitions: it polls the leaders, reads what its isolation level
//! allows, and stops after a number of empty polls (or at a set time).

use super::errors::KafkaError;
use super::protocol::{FetchBody, Message};
use super::Isolation;
use crate::ids::{NodeId, RecordId, Tp};
use crate::sim::{Ctx, Note, Timer};
use crate::time::{ms, SimTime};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const FETCH_MAX_RECORDS: u32 = 500;
const FETCH_TIMEOUT_MS: u64 = 30_000;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsumerTimer {
    Start,
    Poll,
    FetchTimeout { request_id: u64 },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ConsumerSettings {
    pub assignments: Vec<Tp>,
    pub isolation: Isolation,
    pub start_at: SimTime,
    pub poll_interval: SimTime,
    pub max_empty_polls: u32,
    pub stop_at: Option<SimTime>,
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
    pub positions: BTreeMap<Tp, u64>,
    #[serde(with = "crate::serde_pairs")]
    pub leader_hint: BTreeMap<Tp, u8>,
    /// request id → (partition, broker asked).
    pub in_flight: BTreeMap<u64, (Tp, u8)>,
    pub empty_polls: u32,
    pub round_read: u32,
    pub stopped: bool,
    pub started: bool,
    pub reads: Vec<ReadEntry>,
    next_request_id: u64,
}

impl Consumer {
    pub fn new(
        index: u8,
        settings: ConsumerSettings,
        leaders: BTreeMap<Tp, u8>,
        brokers: u8,
    ) -> Self {
        Consumer {
            index,
            settings,
            brokers: brokers.max(1),
            positions: BTreeMap::new(),
            leader_hint: leaders,
            in_flight: BTreeMap::new(),
            empty_polls: 0,
            round_read: 0,
            stopped: false,
            started: false,
            reads: Vec::new(),
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
                self.poll(ctx);
                true
            }
            ConsumerTimer::Poll => {
                if !self.in_flight.is_empty() {
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
                let Some((tp, broker)) = self.in_flight.remove(request_id) else {
                    return false;
                };
                self.leader_hint.insert(tp, (broker + 1) % self.brokers);
                self.after_response(ctx);
                true
            }
        }
    }

    fn poll(&mut self, ctx: &mut Ctx) {
        self.round_read = 0;
        for tp in self.settings.assignments.clone() {
            let request_id = self.next_request_id;
            self.next_request_id += 1;
            let broker = self.leader_hint.get(&tp).copied().unwrap_or(0);
            let offset = self.positions.get(&tp).copied().unwrap_or(0);
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
                },
            );
            ctx.set_timer(
                ms(FETCH_TIMEOUT_MS),
                Timer::Consumer(ConsumerTimer::FetchTimeout { request_id }),
            );
        }
    }

    pub fn on_message(&mut self, msg: &Message, ctx: &mut Ctx) -> bool {
        let Message::FetchResponse {
            request_id,
            tp,
            result,
        } = msg
        else {
            return false;
        };
        let Some((_, broker)) = self.in_flight.remove(request_id) else {
            return false;
        };
        match result {
            Ok(body) => self.take(*tp, body, ctx),
            Err((KafkaError::NotLeaderOrFollower, hint)) => {
                self.leader_hint
                    .insert(*tp, hint.unwrap_or((broker + 1) % self.brokers));
            }
            Err(_) => {}
        }
        self.after_response(ctx);
        true
    }

    fn take(&mut self, tp: Tp, body: &FetchBody, ctx: &mut Ctx) {
        let position = self.positions.entry(tp).or_insert(0);
        if body.records.is_empty() {
            ctx.note(Note::PolledNothing {
                consumer: NodeId::Consumer(self.index),
                tp,
                offset: *position,
            });
            return;
        }
        *position = body.next_offset;
        self.round_read += body.records.len() as u32;
        let mut read = Vec::with_capacity(body.records.len());
        for r in &body.records {
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
        self.stopped = true;
        ctx.note(Note::ConsumerStopped {
            consumer: self.node(),
        });
    }

    /// Positions live in memory: a restarted consumer without committed offsets starts over
    /// from the earliest offset (`auto.offset.reset=earliest`).
    pub fn crash(&mut self) {
        self.positions.clear();
        self.in_flight.clear();
        self.empty_polls = 0;
    }

    pub fn restart(&mut self, ctx: &mut Ctx) {
        if !self.stopped && self.started {
            self.poll(ctx);
        } else if !self.started {
            let wait = self.settings.start_at.saturating_sub(ctx.now);
            ctx.set_timer(wait, Timer::Consumer(ConsumerTimer::Start));
        }
    }
}
