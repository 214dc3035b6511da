//! A read-process-write processor: it consumes an input topic, transforms each record (one
//! output per input) and produces to an output topic, under one of the three delivery
//! guarantees (SEMANTICS §1):
//! - at-most-once: commit the input offsets, then produce (no retries);
//! - at-least-once: produce (retries, no idempotence), then commit;
//! - exactly-once: a transaction holding the outputs and the input offsets
//!   (`sendOffsetsToTransaction`), input read with read_committed.

use super::consumer::ReadEntry;
use super::errors::KafkaError;
use super::position_epochs::PositionEpochs;
use super::producer::{Producer, ProducerTimer, Unconfirmed};
use super::protocol::Message;
use super::txn_client::{TxnOffsets, TxnPhase};
use super::txn_index::deliverable;
use super::Isolation;
use crate::ids::{NodeId, RecordId, Tp};
use crate::sim::{Ctx, Note, Timer};
use crate::time::{ms, SimTime};
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};

const FETCH_MAX_RECORDS: u32 = 50;
const REQUEST_TIMEOUT_MS: u64 = 30_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Guarantee {
    AtMostOnce,
    AtLeastOnce,
    ExactlyOnce,
}

impl Guarantee {
    pub const ALL: [Guarantee; 3] = [
        Guarantee::AtMostOnce,
        Guarantee::AtLeastOnce,
        Guarantee::ExactlyOnce,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Guarantee::AtMostOnce => "at-most-once",
            Guarantee::AtLeastOnce => "at-least-once",
            Guarantee::ExactlyOnce => "exactly-once",
        }
    }

    pub fn parse(s: &str) -> Option<Guarantee> {
        Guarantee::ALL.into_iter().find(|g| g.name() == s)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProcessorTimer {
    Start,
    Poll,
    FetchTimeout {
        request_id: u64,
    },
    CommitTimeout {
        request_id: u64,
    },
    OffsetFetchAgain {
        request_id: u64,
    },
    /// No answer to OffsetFetch within the request timeout: the group coordinator is
    /// unreachable.
    OffsetFetchTimeout {
        request_id: u64,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProcessorSettings {
    pub guarantee: Guarantee,
    pub inputs: Vec<Tp>,
    pub output_topic: u16,
    pub output_partitions: u16,
    pub group: String,
    pub group_coordinator: u8,
    pub start_at: SimTime,
    pub poll_interval: SimTime,
    pub max_empty_polls: u32,
    /// Kafka Streams' `commit.interval.ms` (see `docs/scenario-format.md`).
    #[serde(default)]
    pub commit_interval: Option<SimTime>,
    /// Output record id = `output_base` + input record id.
    pub output_base: u32,
}

impl ProcessorSettings {
    /// The output record of input record `input` (`output_base` + its id).
    pub fn output_of(&self, input: RecordId) -> RecordId {
        RecordId(self.output_base.saturating_add(input.0))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Not started, or crashed.
    Idle,
    /// Exactly-once: `initTransactions` runs (InitProducerId, which fences an older
    /// instance and ends its open transaction) before the input is read, as Kafka Streams
    /// initialises its producer before it processes.
    Initialising,
    /// Waiting for the group's committed offsets.
    Resuming {
        request_id: u64,
    },
    Polling,
    /// At-most-once: offsets first.
    CommittingFirst {
        request_id: u64,
    },
    /// Outputs sent, waiting for them to settle (at-most-once and at-least-once).
    Producing,
    /// At-least-once: offsets after the outputs.
    CommittingAfter {
        request_id: u64,
    },
    /// Exactly-once: the transaction runs.
    Transacting,
    Stopped,
}

impl Phase {
    /// The phase's name, as a state machine's state is named (`CommittingFirst`).
    pub fn name(&self) -> &'static str {
        match self {
            Phase::Idle => "Idle",
            Phase::Initialising => "Initialising",
            Phase::Resuming { .. } => "Resuming",
            Phase::Polling => "Polling",
            Phase::CommittingFirst { .. } => "CommittingFirst",
            Phase::Producing => "Producing",
            Phase::CommittingAfter { .. } => "CommittingAfter",
            Phase::Transacting => "Transacting",
            Phase::Stopped => "Stopped",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Processor {
    pub index: u8,
    pub settings: ProcessorSettings,
    /// The output client (transactional for exactly-once).
    pub producer: Producer,
    pub phase: Phase,
    #[serde(with = "crate::serde_pairs")]
    pub positions: VecMap<Tp, u64>,
    /// Where the positions will be once the current batch is done.
    #[serde(with = "crate::serde_pairs")]
    pub next_positions: VecMap<Tp, u64>,
    /// The leader epochs of the positions (KIP-320).
    #[serde(default)]
    pub epochs: PositionEpochs,
    #[serde(with = "crate::serde_pairs")]
    pub leader_hint: VecMap<Tp, u8>,
    pub in_flight: VecMap<u64, (Tp, u8)>,
    pub batch: Vec<ReadEntry>,
    /// Exactly-once with a commit interval: read, not yet written in a transaction.
    #[serde(default)]
    pub held: Vec<ReadEntry>,
    /// When the first held record was read.
    #[serde(default)]
    pub holding_since: Option<SimTime>,
    /// At-least-once with a commit interval: when the input offsets were last committed.
    #[serde(default)]
    pub last_commit: SimTime,
    pub empty_polls: u32,
    /// Every input record it processed (handed its output to the client), in order.
    pub processed: Vec<RecordId>,
    pub brokers: u8,
    next_request_id: u64,
}

impl Processor {
    pub fn new(
        index: u8,
        settings: ProcessorSettings,
        mut producer: Producer,
        leaders: VecMap<Tp, u8>,
        brokers: u8,
    ) -> Self {
        producer.owner = Some(NodeId::Processor(index));
        Processor {
            index,
            settings,
            producer,
            phase: Phase::Idle,
            positions: VecMap::new(),
            next_positions: VecMap::new(),
            leader_hint: leaders,
            in_flight: VecMap::new(),
            batch: Vec::new(),
            held: Vec::new(),
            holding_since: None,
            last_commit: 0,
            empty_polls: 0,
            processed: Vec::new(),
            brokers: brokers.max(1),
            epochs: PositionEpochs::default(),
            next_request_id: 0,
        }
    }

    pub fn node(&self) -> NodeId {
        NodeId::Processor(self.index)
    }

    fn take_request_id(&mut self) -> u64 {
        let id = self.next_request_id;
        self.next_request_id += 1;
        id
    }

    /// How its consumer side reads: read_committed under exactly-once.
    pub fn isolation(&self) -> Isolation {
        match self.settings.guarantee {
            Guarantee::ExactlyOnce => Isolation::ReadCommitted,
            _ => Isolation::ReadUncommitted,
        }
    }

    pub fn on_timer(&mut self, timer: &Timer, ctx: &mut Ctx) -> bool {
        let acted = match timer {
            Timer::Producer(t) => self.producer.on_timer(t, ctx),
            Timer::Processor(t) => self.on_own_timer(t, ctx),
            _ => false,
        };
        self.advance(ctx);
        acted
    }

    fn on_own_timer(&mut self, timer: &ProcessorTimer, ctx: &mut Ctx) -> bool {
        match timer {
            ProcessorTimer::Start => {
                // The output client starts too (for exactly-once: InitProducerId, which fences
                // any older instance and aborts its open transaction).
                self.producer.on_timer(&ProducerTimer::Start, ctx);
                if self.settings.guarantee == Guarantee::ExactlyOnce {
                    // `advance` asks for the committed offsets once the client is ready.
                    self.phase = Phase::Initialising;
                } else {
                    self.resume(ctx);
                }
                true
            }
            ProcessorTimer::Poll => {
                if self.phase != Phase::Polling || !self.in_flight.is_empty() {
                    return false;
                }
                self.poll(ctx);
                true
            }
            ProcessorTimer::FetchTimeout { request_id } => {
                if self.in_flight.remove(request_id).is_none() {
                    return false;
                }
                ctx.refresh_metadata();
                self.round_done(ctx);
                true
            }
            ProcessorTimer::CommitTimeout { request_id } => match self.phase {
                Phase::CommittingFirst { request_id: r }
                | Phase::CommittingAfter { request_id: r }
                    if r == *request_id =>
                {
                    self.commit(ctx);
                    true
                }
                _ => false,
            },
            ProcessorTimer::OffsetFetchAgain { request_id } => {
                if self.phase
                    != (Phase::Resuming {
                        request_id: *request_id,
                    })
                {
                    return false;
                }
                self.resume(ctx);
                true
            }
            ProcessorTimer::OffsetFetchTimeout { request_id } => {
                if self.phase
                    != (Phase::Resuming {
                        request_id: *request_id,
                    })
                {
                    return false;
                }
                // The application's poll() returns nothing meanwhile (the Java consumer looks
                // for its coordinator inside poll and returns an empty batch when the poll's
                // timeout runs out), so the silence counts as an empty poll: with the broker
                // down for good the processor stops, as its loop would, rather than asking
                // every 30 s for ever.
                if !self.stops_after_empty_poll(ctx) {
                    self.resume(ctx);
                }
                true
            }
        }
    }

    /// Asks the group for the committed input offsets.
    fn resume(&mut self, ctx: &mut Ctx) {
        let request_id = self.take_request_id();
        self.phase = Phase::Resuming { request_id };
        ctx.send(
            NodeId::Broker(self.settings.group_coordinator),
            Message::OffsetFetch {
                request_id,
                group: self.settings.group.clone(),
                partitions: self.settings.inputs.clone(),
            },
        );
        ctx.set_timer(
            ms(REQUEST_TIMEOUT_MS),
            Timer::Processor(ProcessorTimer::OffsetFetchTimeout { request_id }),
        );
    }

    fn poll(&mut self, ctx: &mut Ctx) {
        self.batch.clear();
        self.next_positions = self.positions.clone();
        for tp in self.settings.inputs.clone() {
            let request_id = self.take_request_id();
            let broker = self.leader_hint.get(&tp).copied().unwrap_or(0);
            let offset = self.positions.get(&tp).copied().unwrap_or(0);
            self.in_flight.insert(request_id, (tp, broker));
            ctx.send(
                NodeId::Broker(broker),
                Message::Fetch {
                    request_id,
                    tp,
                    offset,
                    isolation: self.isolation(),
                    max_records: FETCH_MAX_RECORDS,
                    last_epoch: self.epochs.of(tp),
                },
            );
            ctx.set_timer(
                ms(REQUEST_TIMEOUT_MS),
                Timer::Processor(ProcessorTimer::FetchTimeout { request_id }),
            );
        }
    }

    pub fn on_message(&mut self, msg: &Message, ctx: &mut Ctx) -> bool {
        let acted = match msg {
            Message::FetchResponse {
                request_id,
                tp,
                result,
            } => {
                if self.in_flight.remove(request_id).is_none() {
                    return false;
                }
                let at = self.positions.get(tp).copied().unwrap_or(0);
                if let Some(to) = self.epochs.take(self.node(), *tp, at, result, ctx) {
                    // Where it reads from on: what it read past there is in no log now.
                    self.positions.insert(*tp, to);
                    self.next_positions.insert(*tp, to);
                    // A reset is news, not an empty poll.
                    self.empty_polls = 0;
                    self.round_done(ctx);
                    return true;
                }
                match result {
                    Ok(body) => {
                        let records = deliverable(self.isolation(), &body.entries, &body.aborted);
                        self.next_positions.insert(
                            *tp,
                            body.next_offset
                                .max(self.positions.get(tp).copied().unwrap_or(0)),
                        );
                        for r in records {
                            self.batch.push(ReadEntry {
                                tp: *tp,
                                offset: r.offset,
                                key: r.key,
                                value: r.value,
                                at: ctx.now,
                            });
                        }
                    }
                    Err((KafkaError::NotLeaderOrFollower, Some(leader))) => {
                        self.leader_hint.insert(*tp, *leader);
                    }
                    // The broker does not know the leader either: ask for fresh metadata.
                    Err((KafkaError::NotLeaderOrFollower, None)) => ctx.refresh_metadata(),
                    Err(_) => {}
                }
                self.round_done(ctx);
                true
            }
            Message::OffsetFetchResponse {
                request_id,
                offsets,
                error,
                leader_epochs,
            } => {
                if self.phase
                    != (Phase::Resuming {
                        request_id: *request_id,
                    })
                {
                    return false;
                }
                if let Some(e) = error {
                    ctx.note(Note::OffsetFetchRetry {
                        consumer: self.node(),
                        error: *e,
                    });
                    ctx.set_timer(
                        self.settings.poll_interval,
                        Timer::Processor(ProcessorTimer::OffsetFetchAgain {
                            request_id: *request_id,
                        }),
                    );
                    return true;
                }
                self.epochs.resume(leader_epochs);
                for (tp, o) in offsets {
                    self.positions.insert(*tp, o.unwrap_or(0));
                }
                ctx.note(Note::ResumedFromCommitted {
                    consumer: self.node(),
                    group: self.settings.group.clone(),
                    offsets: offsets.clone(),
                    reset: crate::kafka::OffsetReset::Earliest,
                });
                self.phase = Phase::Polling;
                self.poll(ctx);
                true
            }
            Message::OffsetCommitResponse { request_id } => match self.phase {
                Phase::CommittingFirst { request_id: r } if r == *request_id => {
                    // At-most-once: the offsets are committed; only now is the work done.
                    self.positions = self.next_positions.clone();
                    self.produce_batch(ctx);
                    true
                }
                Phase::CommittingAfter { request_id: r } if r == *request_id => {
                    self.positions = self.next_positions.clone();
                    self.phase = Phase::Polling;
                    self.poll(ctx);
                    true
                }
                _ => false,
            },
            _ => self.producer.on_message(msg, ctx),
        };
        self.advance(ctx);
        acted
    }

    /// Counts a poll that returned nothing; true when that was the last one allowed and the
    /// processor stopped (with nothing left for its output client to send).
    fn stops_after_empty_poll(&mut self, ctx: &mut Ctx) -> bool {
        self.empty_polls += 1;
        if self.empty_polls < self.settings.max_empty_polls || !self.producer.is_idle() {
            return false;
        }
        self.phase = Phase::Stopped;
        ctx.note(Note::ConsumerStopped {
            consumer: self.node(),
        });
        true
    }

    /// Every fetch of the round answered: process what came, or wait and poll again.
    fn round_done(&mut self, ctx: &mut Ctx) {
        if !self.in_flight.is_empty() || self.phase != Phase::Polling {
            return;
        }
        if self.hold(ctx) {
            return;
        }
        if self.batch.is_empty() {
            self.positions = self.next_positions.clone();
            if !self.stops_after_empty_poll(ctx) {
                ctx.set_timer(
                    self.settings.poll_interval,
                    Timer::Processor(ProcessorTimer::Poll),
                );
            }
            return;
        }
        self.empty_polls = 0;
        self.note_read(ctx);
        match self.settings.guarantee {
            Guarantee::AtMostOnce => self.commit(ctx),
            Guarantee::AtLeastOnce => self.produce_batch(ctx),
            Guarantee::ExactlyOnce => self.transact(ctx),
        }
    }

    /// Narrates what this round read, one note per input partition (nothing when it read
    /// nothing).
    fn note_read(&self, ctx: &mut Ctx) {
        let mut by_tp: VecMap<Tp, Vec<(u64, RecordId)>> = VecMap::new();
        for r in &self.batch {
            by_tp.entry(r.tp).or_default().push((r.offset, r.value));
        }
        for (tp, records) in by_tp {
            ctx.note(Note::Read {
                consumer: self.node(),
                tp,
                records,
                skipped: 0,
                isolation: self.isolation(),
            });
        }
    }

    /// Exactly-once with a commit interval: keeps what this round read and polls on until
    /// the interval has passed, then hands everything held to one transaction. True when it
    /// took care of the round.
    fn hold(&mut self, ctx: &mut Ctx) -> bool {
        let Some(interval) = self.settings.commit_interval else {
            return false;
        };
        if self.settings.guarantee != Guarantee::ExactlyOnce {
            return false;
        }
        if !self.batch.is_empty() {
            self.note_read(ctx);
            self.holding_since.get_or_insert(ctx.now);
            self.empty_polls = 0;
            self.held.append(&mut self.batch);
        }
        if self.held.is_empty() {
            // Nothing held: an empty poll like any other.
            return false;
        }
        // Read on past what is held; the transaction commits these positions.
        self.positions = self.next_positions.clone();
        let due = self
            .holding_since
            .is_some_and(|t| ctx.now >= t.saturating_add(interval));
        if due {
            self.batch = std::mem::take(&mut self.held);
            self.holding_since = None;
            self.transact(ctx);
        } else {
            ctx.set_timer(
                self.settings.poll_interval,
                Timer::Processor(ProcessorTimer::Poll),
            );
        }
        true
    }

    fn outputs(&self) -> Vec<Unconfirmed> {
        self.batch
            .iter()
            .map(|r| Unconfirmed {
                record: self.settings.output_of(r.value),
                key: r.key,
                tp: Tp {
                    topic: self.settings.output_topic,
                    partition: r.tp.partition % self.settings.output_partitions.max(1),
                },
            })
            .collect()
    }

    fn note_processed(&mut self, ctx: &mut Ctx) {
        let inputs: Vec<RecordId> = self.batch.iter().map(|r| r.value).collect();
        self.processed.extend(inputs.iter().copied());
        ctx.note(Note::Processed {
            processor: self.node(),
            guarantee: self.settings.guarantee.name().to_string(),
            inputs,
        });
    }

    fn produce_batch(&mut self, ctx: &mut Ctx) {
        let outputs = self.outputs();
        self.note_processed(ctx);
        self.phase = Phase::Producing;
        self.producer.send_now(&outputs, ctx);
    }

    fn commit(&mut self, ctx: &mut Ctx) {
        let request_id = self.take_request_id();
        self.phase = match self.settings.guarantee {
            Guarantee::AtMostOnce => Phase::CommittingFirst { request_id },
            _ => Phase::CommittingAfter { request_id },
        };
        let offsets: Vec<(Tp, u64)> = self.next_positions.iter().map(|(t, o)| (*t, *o)).collect();
        ctx.send(
            NodeId::Broker(self.settings.group_coordinator),
            Message::OffsetCommit {
                request_id,
                group: self.settings.group.clone(),
                leader_epochs: self.epochs.for_commit(&offsets),
                offsets,
            },
        );
        ctx.set_timer(
            ms(REQUEST_TIMEOUT_MS),
            Timer::Processor(ProcessorTimer::CommitTimeout { request_id }),
        );
    }

    fn transact(&mut self, ctx: &mut Ctx) {
        let ready = self
            .producer
            .txn
            .as_ref()
            .is_some_and(|t| t.phase == TxnPhase::Ready);
        if !ready {
            // The producer is still initialising: `advance` starts the transaction later.
            self.phase = Phase::Transacting;
            return;
        }
        let outputs = self.outputs();
        let positions: Vec<(Tp, u64)> = self.next_positions.iter().map(|(t, o)| (*t, *o)).collect();
        let offsets = TxnOffsets {
            group: self.settings.group.clone(),
            group_coordinator: self.settings.group_coordinator,
            leader_epochs: self.epochs.for_commit(&positions),
            offsets: positions,
        };
        self.note_processed(ctx);
        self.phase = Phase::Transacting;
        if let Some(t) = self.producer.txn.as_mut() {
            t.last_committed = None;
        }
        self.producer.transact_now(outputs, Some(offsets), ctx);
    }

    /// Moves the loop on once the output client has settled.
    fn advance(&mut self, ctx: &mut Ctx) {
        match self.phase {
            Phase::Initialising => match self.producer.txn.as_ref().map(|t| t.phase) {
                Some(TxnPhase::Ready) => self.resume(ctx),
                Some(TxnPhase::Fatal) | None => {
                    self.phase = Phase::Stopped;
                    ctx.note(Note::ConsumerStopped {
                        consumer: self.node(),
                    });
                }
                _ => {}
            },
            Phase::Producing if self.producer.is_idle() => match self.settings.guarantee {
                // With a commit interval the offsets wait for it; reading goes on.
                Guarantee::AtLeastOnce
                    if self
                        .settings
                        .commit_interval
                        .is_some_and(|i| ctx.now < self.last_commit.saturating_add(i)) =>
                {
                    self.positions = self.next_positions.clone();
                    self.phase = Phase::Polling;
                    self.poll(ctx);
                }
                Guarantee::AtLeastOnce => {
                    self.last_commit = ctx.now;
                    self.commit(ctx)
                }
                _ => {
                    self.phase = Phase::Polling;
                    self.poll(ctx);
                }
            },
            Phase::Transacting => {
                let Some(t) = self.producer.txn.as_ref() else {
                    return;
                };
                match (t.phase, t.last_committed) {
                    (TxnPhase::Fatal, _) => {
                        self.phase = Phase::Stopped;
                        ctx.note(Note::ConsumerStopped {
                            consumer: self.node(),
                        });
                    }
                    (TxnPhase::Ready, Some(true)) if self.producer.is_idle() => {
                        self.positions = self.next_positions.clone();
                        self.phase = Phase::Polling;
                        self.poll(ctx);
                    }
                    (TxnPhase::Ready, Some(false)) if self.producer.is_idle() => {
                        // Aborted: rewind the input to the committed offsets.
                        self.resume(ctx);
                    }
                    (TxnPhase::Ready, None)
                        if self.producer.is_idle() && !self.batch.is_empty() =>
                    {
                        // The client became ready after the batch arrived.
                        self.transact(ctx);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// The process dies: its position, its batch and its client's memory are gone.
    pub fn crash(&mut self) {
        self.producer.crash();
        self.phase = Phase::Idle;
        self.positions.clear();
        self.next_positions.clear();
        self.epochs.forget();
        self.in_flight.clear();
        self.batch.clear();
        self.held.clear();
        self.holding_since = None;
        self.empty_polls = 0;
    }

    pub fn restart(&mut self, ctx: &mut Ctx) {
        self.on_own_timer(&ProcessorTimer::Start, ctx);
    }
}
