//! The producer client: accumulator (linger, batching, partitioning), sequence numbers,
//! in-flight limit, request and delivery timeouts, exponential backoff, the idempotent epoch
//! bump on OUT_OF_ORDER_SEQUENCE_NUMBER, and what a crash and restart do.

use super::config::{ClientKind, ProducerConfig};
use super::errors::KafkaError;
use super::partition_log::{sequence_add, LogRecord};
use super::partitioner::partition_for_key;
use super::protocol::{Message, MessageKind, ProduceResult, ProducerBatch};
use super::txn_client::{TxnClient, TxnPhase, TxnRequest};
use super::{Acks, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, NO_SEQUENCE};
use crate::ids::{NodeId, RecordId, Tp};
use crate::sim::{Ctx, Note, Timer};
use crate::time::{ms, SimTime};
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Backoff jitter, as the Java client applies it (±20%).
pub const BACKOFF_JITTER_PERCENT: u8 = 20;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProducerTimer {
    Start,
    /// The application hands the next record of `sends[spec]` to the producer.
    Workload {
        spec: u16,
    },
    Linger {
        batch_id: u64,
    },
    RequestTimeout {
        request_id: u64,
    },
    BackoffOver {
        batch_id: u64,
    },
    DeliveryTimeout {
        batch_id: u64,
    },
    InitTimeout {
        request_id: u64,
    },
    /// The coordinator asked for patience (CONCURRENT_TRANSACTIONS): InitProducerId again.
    InitRetry,
    /// Transaction `index` of the workload may begin.
    TxnBegin {
        index: u32,
    },
    /// The next record of send `send` of the running transaction.
    TxnSend {
        send: u16,
    },
    TxnRequestTimeout {
        request_id: u64,
    },
    /// Send a coordinator request again after a retriable error.
    TxnRetry {
        request: TxnRequest,
    },
    /// Batches wait for a partition with no leader: ask for metadata again.
    LeaderWait,
}

/// How long a producer holding batches for a partition with no leader waits before it asks
/// for metadata again: the Java client's `retry.backoff.max.ms` (its metadata requests back
/// off from `retry.backoff.ms` up to this).
pub const LEADER_WAIT_MS: u64 = 1_000;

/// Where a workload's keys come from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum KeyPlan {
    Null,
    /// Every record has this key (index into the key table, and its text).
    Fixed {
        key: u32,
        text: String,
    },
    /// Record i has key `{prefix}{i}`, key index `first_key + i`.
    Distinct {
        first_key: u32,
        prefix: String,
    },
}

/// Part of the application's workload: `count` records, one every `interval`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SendSpec {
    pub at: SimTime,
    pub topic: u16,
    pub partitions: u16,
    pub partition: Option<u16>,
    pub keys: KeyPlan,
    pub count: u32,
    pub interval: SimTime,
    pub first_record: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientState {
    /// Waiting to ask for a producer id (idempotent) or crashed.
    Idle,
    Initializing {
        request_id: u64,
        broker: u8,
    },
    Ready,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BatchState {
    pub id: u64,
    pub tp: Tp,
    pub records: Vec<LogRecord>,
    pub created_at: SimTime,
    pub base_sequence: i32,
    pub epoch: i16,
    pub attempts: u32,
    /// No more records may join: it was sent once, or is full, or lingered long enough.
    pub closed: bool,
    /// Waiting out a retry backoff.
    pub backing_off: bool,
    /// When the last backoff began (for the page's countdown; the timer says when it ends).
    #[serde(default)]
    pub backoff_from: SimTime,
    /// Some attempt went unanswered: the batch may be in the log.
    pub unanswered: bool,
    pub in_flight: Option<u64>,
    /// In its partition's queue (waiting to be sent or retried).
    pub queued: bool,
}

impl BatchState {
    fn record_ids(&self) -> Vec<RecordId> {
        self.records.iter().map(|r| r.value).collect()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct InFlight {
    pub batch_id: u64,
    pub broker: u8,
    pub sent_at: SimTime,
}

/// A record the application handed over and has not seen acknowledged. The application
/// remembers these across a crash so that it can send them again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Unconfirmed {
    pub record: RecordId,
    pub key: Option<u32>,
    pub tp: Tp,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Producer {
    pub index: u8,
    pub config: ProducerConfig,
    pub resend_unconfirmed_on_restart: bool,
    pub brokers: u8,
    pub specs: Vec<SendSpec>,
    /// How many records of each spec the application has handed over (survives crashes).
    pub spec_progress: Vec<u32>,
    #[serde(with = "crate::serde_pairs")]
    pub unconfirmed: std::collections::BTreeMap<RecordId, Unconfirmed>,
    pub state: ClientState,
    pub producer_id: i64,
    pub epoch: i16,
    #[serde(with = "crate::serde_pairs")]
    pub next_sequence: VecMap<Tp, i32>,
    #[serde(with = "crate::serde_pairs")]
    pub leader_hint: VecMap<Tp, u8>,
    /// Partitions the latest metadata says have no leader (offline): their batches wait in
    /// the accumulator (the Sender drains nothing for a partition with no known leader), and
    /// the client asks for metadata again every `LEADER_WAIT_MS` until one is elected.
    #[serde(default)]
    pub no_leader: Vec<Tp>,
    /// A `LeaderWait` timer is pending.
    #[serde(default)]
    pub leader_wait: bool,
    #[serde(with = "crate::serde_pairs")]
    pub queues: VecMap<Tp, VecDeque<u64>>,
    pub batches: std::collections::BTreeMap<u64, BatchState>,
    pub in_flight: VecMap<u64, InFlight>,
    sticky: VecMap<u16, u16>,
    next_request_id: u64,
    next_batch_id: u64,
    /// Set for a transactional producer (`transactional.id`).
    pub txn: Option<TxnClient>,
    /// The process this client lives in, when it is not a producer of its own (a
    /// read-process-write processor's output client).
    pub owner: Option<NodeId>,
    /// When the application starts it (a scenario's `start_ms`).
    #[serde(default)]
    pub start_at: SimTime,
}

impl Producer {
    pub fn new(
        index: u8,
        config: ProducerConfig,
        specs: Vec<SendSpec>,
        leaders: VecMap<Tp, u8>,
        brokers: u8,
        resend_unconfirmed_on_restart: bool,
    ) -> Self {
        Producer {
            index,
            config,
            resend_unconfirmed_on_restart,
            brokers: brokers.max(1),
            spec_progress: vec![0; specs.len()],
            specs,
            unconfirmed: std::collections::BTreeMap::new(),
            state: ClientState::Idle,
            producer_id: NO_PRODUCER_ID,
            epoch: NO_PRODUCER_EPOCH,
            next_sequence: VecMap::new(),
            leader_hint: leaders,
            no_leader: Vec::new(),
            leader_wait: false,
            queues: VecMap::new(),
            batches: std::collections::BTreeMap::new(),
            in_flight: VecMap::new(),
            sticky: VecMap::new(),
            next_request_id: 0,
            next_batch_id: 0,
            txn: None,
            owner: None,
            start_at: 0,
        }
    }

    /// Makes this a transactional producer running `txn`'s workload.
    pub fn with_transactions(mut self, txn: TxnClient) -> Self {
        self.config.enable_idempotence = true;
        self.txn = Some(txn);
        self
    }

    pub fn is_transactional(&self) -> bool {
        self.txn.is_some()
    }

    pub fn node(&self) -> NodeId {
        self.owner.unwrap_or(NodeId::Producer(self.index))
    }

    /// Fenced (a fatal error): the producer is closed for good.
    pub fn is_fenced(&self) -> bool {
        self.txn
            .as_ref()
            .is_some_and(|t| t.phase == TxnPhase::Fatal && !t.gave_up)
    }

    /// Closed by its application once EndTxn or InitProducerId went unanswered for
    /// `max.block.ms`.
    pub fn gave_up(&self) -> bool {
        self.txn.as_ref().is_some_and(|t| t.gave_up)
    }

    /// Closed because `initTransactions()` gave up (see `gave_up`).
    pub fn gave_up_init(&self) -> bool {
        self.txn
            .as_ref()
            .is_some_and(|t| t.gave_up && t.gave_up_init)
    }

    pub fn is_idempotent(&self) -> bool {
        self.config.enable_idempotence
    }

    /// Records handed over but not yet acknowledged or failed.
    pub fn pending_records(&self) -> usize {
        self.batches.values().map(|b| b.records.len()).sum()
    }

    /// True when the application has nothing left to send and nothing is outstanding.
    pub fn is_done(&self) -> bool {
        self.batches.is_empty()
            && self
                .specs
                .iter()
                .zip(&self.spec_progress)
                .all(|(s, done)| *done >= s.count)
    }

    /// Returns false when the timer is stale (nothing happened).
    pub fn on_timer(&mut self, timer: &ProducerTimer, ctx: &mut Ctx) -> bool {
        match timer {
            ProducerTimer::Start => {
                self.start(ctx);
                true
            }
            ProducerTimer::Workload { spec } => self.on_workload(*spec, ctx),
            ProducerTimer::Linger { batch_id } => {
                let Some(batch) = self.batches.get_mut(batch_id) else {
                    return false;
                };
                if batch.closed {
                    return false;
                }
                batch.closed = true;
                self.drain(ctx) > 0
            }
            ProducerTimer::RequestTimeout { request_id } => {
                self.on_request_timeout(*request_id, ctx)
            }
            ProducerTimer::LeaderWait => {
                self.leader_wait = false;
                if self.awaiting_leader().is_empty() {
                    return false;
                }
                ctx.refresh_metadata_for_leader();
                true
            }
            ProducerTimer::BackoffOver { batch_id } => {
                let Some(batch) = self.batches.get_mut(batch_id) else {
                    return false;
                };
                if !batch.backing_off {
                    return false;
                }
                batch.backing_off = false;
                self.drain(ctx);
                true
            }
            ProducerTimer::DeliveryTimeout { batch_id } => self.on_delivery_timeout(*batch_id, ctx),
            ProducerTimer::InitTimeout { request_id } => match self.state {
                ClientState::Initializing {
                    request_id: waiting,
                    broker,
                } if waiting == *request_id => {
                    // Given up first: a closed producer opens no new connection.
                    if self.init_blocked_too_long(ctx) {
                        return true;
                    }
                    let timeout = self.config.request_timeout_ms;
                    let timed_out = Some((MessageKind::InitProducerId, timeout));
                    self.close_connection(broker, timed_out, ctx);
                    // Every record has been delivered or has failed, and no more will come:
                    // the application closes the producer rather than retry for ever (the
                    // run would never end while a broker stays down). A transactional one
                    // is in `initTransactions()`, which waits up to max.block.ms (above).
                    if self.txn.is_none() && self.is_done() {
                        self.state = ClientState::Idle;
                        ctx.note(Note::ProducerClosed {
                            producer: self.owner.unwrap_or(NodeId::Producer(self.index)),
                        });
                        return true;
                    }
                    let next = match &self.txn {
                        Some(t) => t.coordinator,
                        None => (broker + 1) % self.brokers,
                    };
                    self.request_producer_id(next, ctx);
                    true
                }
                _ => false,
            },
            ProducerTimer::InitRetry => match (&self.txn, self.state) {
                (Some(t), ClientState::Idle) if t.phase == TxnPhase::Initializing => {
                    let coordinator = t.coordinator;
                    if self.init_blocked_too_long(ctx) {
                        return true;
                    }
                    self.request_producer_id(coordinator, ctx);
                    true
                }
                _ => false,
            },
            ProducerTimer::TxnBegin { .. } => self.try_begin(ctx),
            ProducerTimer::TxnSend { send } => self.on_txn_send(*send, ctx),
            ProducerTimer::TxnRequestTimeout { request_id } => {
                let pending = self
                    .txn
                    .as_ref()
                    .and_then(|t| t.outstanding.clone())
                    .filter(|(rid, _)| rid == request_id);
                match pending {
                    Some((_, request)) => {
                        // Given up first: a closed producer opens no new connection.
                        if let TxnRequest::End { commit } = request {
                            if self.end_blocked_too_long(commit, ctx) {
                                return true;
                            }
                        }
                        let broker = self.txn_destination(&request);
                        let timed_out = Some((request.kind(), self.config.request_timeout_ms));
                        self.close_connection(broker, timed_out, ctx);
                        self.send_txn_request(request, ctx);
                        true
                    }
                    None => false,
                }
            }
            ProducerTimer::TxnRetry { request } => {
                let Some(t) = self.txn.as_mut() else {
                    return false;
                };
                if !t.retry_scheduled {
                    return false;
                }
                t.retry_scheduled = false;
                let waiting = t.outstanding.is_none()
                    && matches!(t.phase, TxnPhase::InTransaction | TxnPhase::Ending);
                match request {
                    // Ask again for whatever is still missing now, not the old list.
                    TxnRequest::AddPartitions { .. } => {
                        self.drain(ctx);
                    }
                    _ if waiting => self.send_txn_request(request.clone(), ctx),
                    _ => {}
                }
                self.maybe_end(ctx);
                true
            }
        }
    }

    fn start(&mut self, ctx: &mut Ctx) {
        if let Some(t) = &mut self.txn {
            t.phase = TxnPhase::Initializing;
            t.init_since = Some(ctx.now);
            let coordinator = t.coordinator;
            let due: Vec<(u32, SimTime)> = t
                .work
                .iter()
                .enumerate()
                .skip(t.next as usize)
                .map(|(i, w)| (i as u32, w.at))
                .collect();
            self.request_producer_id(coordinator, ctx);
            for (index, at) in due {
                ctx.set_timer(
                    at.saturating_sub(ctx.now),
                    Timer::Producer(ProducerTimer::TxnBegin { index }),
                );
            }
            return;
        }
        if self.is_idempotent() {
            self.request_producer_id(0, ctx);
        } else {
            self.state = ClientState::Ready;
        }
        for (i, spec) in self.specs.iter().enumerate() {
            let done = self.spec_progress.get(i).copied().unwrap_or(0);
            if done < spec.count {
                let due = spec.at + spec.interval.saturating_mul(u64::from(done));
                ctx.set_timer(
                    due.saturating_sub(ctx.now),
                    Timer::Producer(ProducerTimer::Workload { spec: i as u16 }),
                );
            }
        }
        if self.resend_unconfirmed_on_restart {
            let again: Vec<Unconfirmed> = self.unconfirmed.values().copied().collect();
            for u in again {
                self.accumulate(u.record, u.key, u.tp, ctx);
            }
        }
        self.drain(ctx);
    }

    /// The cluster's metadata says where the controller moved transaction coordination
    /// (`moves`: from the broker ids hash to, to the one coordinating them now). A
    /// transactional producer whose coordinator moved learns it (the Java client's
    /// FindCoordinator after a disconnect), and sends there at once what waited on the old
    /// one: its InitProducerId, or its transactional request.
    /// Partitions with no leader for which batches wait.
    pub fn awaiting_leader(&self) -> Vec<Tp> {
        self.no_leader
            .iter()
            .copied()
            .filter(|tp| self.queues.get(tp).is_some_and(|q| !q.is_empty()))
            .collect()
    }

    /// A metadata answer: partitions it gives no leader hold their batches; those that have
    /// one again send what waited.
    pub fn leaders_learned(&mut self, metadata: &[(Tp, Option<u8>)], ctx: &mut Ctx) {
        let mut elected = false;
        for (tp, leader) in metadata {
            match leader {
                None if self.leader_hint.contains_key(tp) && !self.no_leader.contains(tp) => {
                    self.no_leader.push(*tp);
                }
                Some(_) if self.no_leader.contains(tp) => {
                    self.no_leader.retain(|t| t != tp);
                    elected = true;
                }
                _ => {}
            }
        }
        crate::order::sort(&mut self.no_leader);
        if elected {
            self.drain(ctx);
        }
        self.arm_leader_wait(ctx);
    }

    /// Batches wait for a leader: the client asks for metadata again after its backoff.
    fn arm_leader_wait(&mut self, ctx: &mut Ctx) {
        if self.leader_wait || self.awaiting_leader().is_empty() {
            return;
        }
        self.leader_wait = true;
        ctx.set_timer(
            crate::time::ms(LEADER_WAIT_MS),
            Timer::Producer(ProducerTimer::LeaderWait),
        );
    }

    pub fn coordinator_moved(&mut self, moves: &[(u8, u8)], ctx: &mut Ctx) {
        let client = self.node();
        let initializing = matches!(self.state, ClientState::Initializing { .. });
        let Some(t) = self.txn.as_mut() else {
            return;
        };
        let Some(to) = moves
            .iter()
            .find(|(from, to)| *from == t.coordinator && to != from)
            .map(|(_, to)| *to)
        else {
            return;
        };
        t.coordinator = to;
        // TxnOffsetCommit goes to the group coordinator, which does not move.
        let waiting = t
            .outstanding
            .clone()
            .filter(|(_, r)| !matches!(r, TxnRequest::CommitOffsets));
        let resent = if initializing {
            Some(MessageKind::InitProducerId)
        } else {
            waiting.as_ref().map(|(_, r)| r.kind())
        };
        ctx.note(Note::TxnCoordinatorFound {
            client,
            transactional_id: t.transactional_id.clone(),
            coordinator: NodeId::Broker(to),
            resent,
        });
        if initializing {
            self.request_producer_id(to, ctx);
        } else if let Some((_, request)) = waiting {
            self.send_txn_request(request, ctx);
        }
    }

    fn request_producer_id(&mut self, broker: u8, ctx: &mut Ctx) {
        let request_id = self.take_request_id();
        self.state = ClientState::Initializing { request_id, broker };
        ctx.note(Note::ProducerIdRequested {
            producer: self.owner.unwrap_or(NodeId::Producer(self.index)),
            broker: NodeId::Broker(broker),
        });
        let (transactional_id, transaction_timeout_ms) = match &self.txn {
            Some(t) => (Some(t.transactional_id.clone()), t.timeout_ms),
            None => (None, 0),
        };
        ctx.send(
            NodeId::Broker(broker),
            Message::InitProducerId {
                request_id,
                transactional_id,
                transaction_timeout_ms,
            },
        );
        ctx.set_timer(
            ms(self.config.request_timeout_ms),
            Timer::Producer(ProducerTimer::InitTimeout { request_id }),
        );
    }

    fn take_request_id(&mut self) -> u64 {
        let id = self.next_request_id;
        self.next_request_id += 1;
        id
    }

    fn on_workload(&mut self, spec_index: u16, ctx: &mut Ctx) -> bool {
        let i = usize::from(spec_index);
        let Some(spec) = self.specs.get(i).cloned() else {
            return false;
        };
        let done = self.spec_progress.get(i).copied().unwrap_or(0);
        if done >= spec.count {
            return false;
        }
        // With no interval, the whole spec is handed over at once.
        let upto = if spec.interval == 0 {
            spec.count
        } else {
            done + 1
        };
        self.hand_over(&spec, done, upto, ctx);
        if let Some(p) = self.spec_progress.get_mut(i) {
            *p = upto;
        } else {
            return false;
        }
        if upto < spec.count {
            ctx.set_timer(
                spec.interval,
                Timer::Producer(ProducerTimer::Workload { spec: spec_index }),
            );
        }
        self.drain(ctx);
        true
    }

    /// Hands records `from..upto` of a send to the accumulator: key, partition (explicit,
    /// murmur2 of the key, or sticky), and the batch they join.
    fn hand_over(&mut self, spec: &SendSpec, from: u32, upto: u32, ctx: &mut Ctx) -> Vec<RecordId> {
        let mut key_bytes = Vec::new();
        let mut handed = Vec::with_capacity((upto - from) as usize);
        for n in from..upto {
            let record = RecordId(spec.first_record + n);
            let key = match &spec.keys {
                KeyPlan::Null => None,
                KeyPlan::Fixed { key, text } => {
                    key_bytes.clear();
                    key_bytes.extend_from_slice(text.as_bytes());
                    Some(*key)
                }
                KeyPlan::Distinct { first_key, prefix } => {
                    key_bytes.clear();
                    key_bytes.extend_from_slice(prefix.as_bytes());
                    key_bytes.extend_from_slice(n.to_string().as_bytes());
                    Some(first_key + n)
                }
            };
            let partition = match (spec.partition, key) {
                (Some(p), _) => p,
                (None, Some(_)) => partition_for_key(&key_bytes, spec.partitions),
                (None, None) => *self.sticky.entry(spec.topic).or_insert(0),
            };
            let tp = Tp {
                topic: spec.topic,
                partition,
            };
            if self.txn.is_none() {
                self.unconfirmed
                    .insert(record, Unconfirmed { record, key, tp });
            }
            self.accumulate(record, key, tp, ctx);
            handed.push(record);
        }
        handed
    }

    /// Begins the next transaction of the workload if the client is ready and it is due.
    fn try_begin(&mut self, ctx: &mut Ctx) -> bool {
        let producer = self.node();
        let Some(t) = self.txn.as_mut() else {
            return false;
        };
        let due = t.current().is_some_and(|w| w.at <= ctx.now);
        if t.phase != TxnPhase::Ready || self.state != ClientState::Ready || !due {
            return false;
        }
        t.begin();
        ctx.note(Note::TxnBegun {
            producer,
            transactional_id: t.transactional_id.clone(),
            number: t.next,
        });
        let sends = t.current().map(|w| w.sends.clone()).unwrap_or_default();
        let explicit = t.current().map(|w| w.explicit.clone()).unwrap_or_default();
        for u in explicit {
            self.accumulate(u.record, u.key, u.tp, ctx);
            if let Some(t) = self.txn.as_mut() {
                t.records.push(u.record);
            }
        }
        for (i, spec) in sends.iter().enumerate() {
            let upto = if spec.interval == 0 {
                spec.count
            } else {
                spec.count.min(1)
            };
            let handed = self.hand_over(spec, 0, upto, ctx);
            if let Some(t) = self.txn.as_mut() {
                t.records.extend(handed);
                if let Some(h) = t.handed.get_mut(i) {
                    *h = upto;
                }
            }
            if upto < spec.count {
                ctx.set_timer(
                    spec.interval,
                    Timer::Producer(ProducerTimer::TxnSend { send: i as u16 }),
                );
            }
        }
        self.drain(ctx);
        self.maybe_end(ctx);
        true
    }

    fn on_txn_send(&mut self, send: u16, ctx: &mut Ctx) -> bool {
        let Some(t) = self.txn.as_ref() else {
            return false;
        };
        let i = usize::from(send);
        let (Some(spec), Some(&done)) = (
            t.current().and_then(|w| w.sends.get(i)).cloned(),
            t.handed.get(i),
        ) else {
            return false;
        };
        if t.phase != TxnPhase::InTransaction || done >= spec.count {
            return false;
        }
        let handed = self.hand_over(&spec, done, done + 1, ctx);
        if let Some(t) = self.txn.as_mut() {
            t.records.extend(handed);
            if let Some(h) = t.handed.get_mut(i) {
                *h = done + 1;
            }
        }
        if done + 1 < spec.count {
            ctx.set_timer(
                spec.interval,
                Timer::Producer(ProducerTimer::TxnSend { send }),
            );
        }
        self.drain(ctx);
        true
    }

    /// Sends a request to the transaction coordinator and waits for it.
    fn send_txn_request(&mut self, request: TxnRequest, ctx: &mut Ctx) {
        let request_id = self.take_request_id();
        let (pid, epoch) = (self.producer_id, self.epoch);
        let producer = self.node();
        let Some(t) = self.txn.as_mut() else {
            return;
        };
        let (msg, what) = match &request {
            TxnRequest::AddPartitions { partitions } => (
                Message::AddPartitionsToTxn {
                    request_id,
                    transactional_id: t.transactional_id.clone(),
                    producer_id: pid,
                    epoch,
                    partitions: partitions.clone(),
                    verify_only: false,
                },
                format!(
                    "AddPartitionsToTxn ({} partition{}) to the transaction coordinator",
                    partitions.len(),
                    if partitions.len() == 1 { "" } else { "s" }
                ),
            ),
            TxnRequest::AddOffsets => {
                let group = t
                    .current()
                    .and_then(|w| w.offsets.as_ref())
                    .map(|o| o.group.clone())
                    .unwrap_or_default();
                (
                    Message::AddOffsetsToTxn {
                        request_id,
                        transactional_id: t.transactional_id.clone(),
                        producer_id: pid,
                        epoch,
                        group: group.clone(),
                    },
                    format!("AddOffsetsToTxn (group \"{group}\") to the transaction coordinator"),
                )
            }
            TxnRequest::CommitOffsets => {
                let offsets = t.current().and_then(|w| w.offsets.clone());
                let (group, list, coordinator, leader_epochs) = offsets
                    .map(|o| (o.group, o.offsets, o.group_coordinator, o.leader_epochs))
                    .unwrap_or_default();
                let msg = Message::TxnOffsetCommit {
                    request_id,
                    transactional_id: t.transactional_id.clone(),
                    group: group.clone(),
                    producer_id: pid,
                    epoch,
                    offsets: list,
                    leader_epochs,
                };
                // TxnOffsetCommit goes to the group coordinator, not the transaction one.
                t.outstanding = Some((request_id, request));
                ctx.note(Note::TxnRequestSent {
                    producer,
                    what: format!("TxnOffsetCommit (group \"{group}\") to the group coordinator"),
                });
                ctx.send(NodeId::Broker(coordinator), msg);
                ctx.set_timer(
                    ms(self.config.request_timeout_ms),
                    Timer::Producer(ProducerTimer::TxnRequestTimeout { request_id }),
                );
                return;
            }
            TxnRequest::End { commit } => (
                Message::EndTxn {
                    request_id,
                    transactional_id: t.transactional_id.clone(),
                    producer_id: pid,
                    epoch,
                    commit: *commit,
                },
                format!(
                    "EndTxn({}) to the transaction coordinator",
                    if *commit { "commit" } else { "abort" }
                ),
            ),
        };
        t.outstanding = Some((request_id, request));
        let coordinator = t.coordinator;
        ctx.note(Note::TxnRequestSent { producer, what });
        ctx.send(NodeId::Broker(coordinator), msg);
        ctx.set_timer(
            ms(self.config.request_timeout_ms),
            Timer::Producer(ProducerTimer::TxnRequestTimeout { request_id }),
        );
    }

    /// Every record of the running transaction is handed over and settled: end it.
    fn maybe_end(&mut self, ctx: &mut Ctx) {
        let settled = self.batches.is_empty();
        let Some(t) = self.txn.as_mut() else {
            return;
        };
        if t.phase != TxnPhase::InTransaction
            || !t.all_handed()
            || !settled
            || t.outstanding.is_some()
            || t.retry_scheduled
        {
            return;
        }
        if let Some(step) = t.offsets_step() {
            self.send_txn_request(step, ctx);
            return;
        }
        let commit = t.current().is_some_and(|w| w.commit) && !t.must_abort;
        t.phase = TxnPhase::Ending;
        t.ending_since = Some(ctx.now);
        self.send_txn_request(TxnRequest::End { commit }, ctx);
    }

    fn on_txn_response(
        &mut self,
        request_id: u64,
        error: Option<KafkaError>,
        epoch: i16,
        ctx: &mut Ctx,
    ) {
        let producer = self.node();
        let Some(t) = self.txn.as_mut() else {
            return;
        };
        let request = match t.outstanding.take() {
            Some((rid, request)) if rid == request_id => request,
            other => {
                t.outstanding = other;
                ctx.note(Note::StaleResponseIgnored {
                    producer,
                    request_id,
                    kind: super::protocol::MessageKind::TxnResponse,
                });
                return;
            }
        };
        match (request, error) {
            (TxnRequest::AddPartitions { partitions }, None) => {
                t.partitions.extend(partitions);
                self.drain(ctx);
                self.maybe_end(ctx);
            }
            (TxnRequest::AddOffsets, None) => {
                t.offsets_added = true;
                self.maybe_end(ctx);
            }
            (TxnRequest::CommitOffsets, None) => {
                t.offsets_sent = true;
                self.maybe_end(ctx);
            }
            (TxnRequest::End { commit }, None) => {
                ctx.note(Note::TxnEnded {
                    producer,
                    transactional_id: t.transactional_id.clone(),
                    commit,
                    records: std::mem::take(&mut t.records),
                    new_epoch: epoch,
                });
                t.phase = TxnPhase::Ready;
                t.last_committed = Some(commit);
                t.next += 1;
                if epoch > self.epoch {
                    // Transactions v2: the coordinator bumped the epoch at EndTxn; sequences
                    // restart at 0 under it.
                    self.epoch = epoch;
                    self.next_sequence.clear();
                }
                self.try_begin(ctx);
            }
            (request, Some(e)) if e.is_retriable() => {
                if e == KafkaError::NotCoordinator {
                    // FindCoordinator: the metadata answer says where it moved.
                    ctx.find_coordinator();
                }
                // Kafka's client retries AddPartitionsToTxn quickly (20 ms) while the
                // coordinator finishes the previous transaction.
                let backoff = ms(self.config.retry_backoff_ms.min(20));
                t.retry_scheduled = true;
                ctx.note(Note::TxnRetry {
                    producer,
                    error: e,
                    backoff,
                });
                ctx.set_timer(
                    backoff,
                    Timer::Producer(ProducerTimer::TxnRetry { request }),
                );
            }
            (TxnRequest::AddPartitions { .. } | TxnRequest::CommitOffsets, Some(e))
                if !is_fatal(e) =>
            {
                // Abortable (TRANSACTION_ABORTABLE, ...): the transaction cannot commit; fail
                // what waits and abort.
                t.must_abort = true;
                let waiting: Vec<u64> = self.batches.keys().copied().collect();
                for id in waiting {
                    self.fail(id, e, false, ctx);
                }
                self.maybe_end(ctx);
            }
            (_, Some(e)) => self.fatal(e, ctx),
        }
    }

    /// Sends records now, outside any workload (a read-process-write loop's output).
    pub fn send_now(&mut self, records: &[Unconfirmed], ctx: &mut Ctx) {
        for u in records {
            self.accumulate(u.record, u.key, u.tp, ctx);
        }
        self.drain(ctx);
    }

    /// Runs one transaction now with these records and, inside it, these input offsets.
    pub fn transact_now(
        &mut self,
        records: Vec<Unconfirmed>,
        offsets: Option<super::txn_client::TxnOffsets>,
        ctx: &mut Ctx,
    ) -> bool {
        let Some(t) = self.txn.as_mut() else {
            return false;
        };
        if t.phase != TxnPhase::Ready || t.next as usize != t.work.len() {
            return false;
        }
        t.work.push(super::txn_client::TxnWork {
            at: ctx.now,
            sends: Vec::new(),
            commit: true,
            explicit: records,
            offsets,
        });
        self.try_begin(ctx)
    }

    /// Nothing sent is waiting for an answer, and no transaction is running.
    pub fn is_idle(&self) -> bool {
        self.batches.is_empty()
            && self
                .txn
                .as_ref()
                .is_none_or(|t| t.phase == TxnPhase::Ready && t.next as usize >= t.work.len())
    }

    /// The application's `commitTransaction()` / `abortTransaction()` has waited
    /// `max.block.ms` for EndTxn's answer (a coordinator down for good): it throws, and the
    /// application closes the producer instead of asking for ever. Whatever the
    /// coordinator decided stands (a restarted coordinator completes it); the producer sends
    /// nothing more.
    fn end_blocked_too_long(&mut self, commit: bool, ctx: &mut Ctx) -> bool {
        let producer = self.node();
        let since = self.txn.as_ref().and_then(|t| t.ending_since);
        let Some(waited) = self.give_up_after_max_block(since, ctx) else {
            return false;
        };
        ctx.note(Note::TxnEndGaveUp {
            producer,
            commit,
            waited,
        });
        true
    }

    /// `initTransactions()` has waited `max.block.ms` for a producer id (its coordinator down
    /// for good): it throws, and the application closes the producer.
    fn init_blocked_too_long(&mut self, ctx: &mut Ctx) -> bool {
        let producer = self.node();
        let since = self.txn.as_ref().and_then(|t| t.init_since);
        let Some(waited) = self.give_up_after_max_block(since, ctx) else {
            return false;
        };
        if let Some(t) = self.txn.as_mut() {
            t.gave_up_init = true;
        }
        ctx.note(Note::TxnInitGaveUp { producer, waited });
        true
    }

    /// A blocking call made at `since` that has waited `max.block.ms`: the producer closes
    /// (how long it waited), or `None` while it may still wait.
    fn give_up_after_max_block(
        &mut self,
        since: Option<SimTime>,
        ctx: &mut Ctx,
    ) -> Option<SimTime> {
        let waited = ctx.now.saturating_sub(since?);
        let t = self.txn.as_mut()?;
        if waited < ms(super::txn_client::MAX_BLOCK_MS) {
            return None;
        }
        t.phase = TxnPhase::Fatal;
        t.gave_up = true;
        t.outstanding = None;
        t.retry_scheduled = false;
        self.state = ClientState::Idle;
        Some(waited)
    }

    /// Fenced or broken beyond repair: close the producer (Kafka's fatal errors).
    fn fatal(&mut self, error: KafkaError, ctx: &mut Ctx) {
        let producer = self.node();
        let records = self
            .txn
            .as_mut()
            .map(|t| {
                t.phase = TxnPhase::Fatal;
                t.outstanding = None;
                std::mem::take(&mut t.records)
            })
            .unwrap_or_default();
        ctx.note(Note::ProducerFenced {
            producer,
            error,
            records,
        });
        let ids: Vec<u64> = self.batches.keys().copied().collect();
        for id in ids {
            self.fail(id, error, false, ctx);
        }
        self.in_flight.clear();
        self.state = ClientState::Idle;
    }

    fn accumulate(&mut self, record: RecordId, key: Option<u32>, tp: Tp, ctx: &mut Ctx) {
        ctx.note(Note::RecordAccepted {
            producer: self.owner.unwrap_or(NodeId::Producer(self.index)),
            record,
            key,
            tp,
        });
        let max = self.config.batch_max_records.max(1) as usize;
        let queue = self.queues.entry(tp).or_default();
        let open = queue
            .back()
            .and_then(|id| self.batches.get_mut(id))
            .filter(|b| !b.closed && b.records.len() < max);
        let batch = match open {
            Some(b) => b,
            None => {
                let id = self.next_batch_id;
                self.next_batch_id += 1;
                queue.push_back(id);
                ctx.set_timer(
                    ms(self.config.delivery_timeout_ms),
                    Timer::Producer(ProducerTimer::DeliveryTimeout { batch_id: id }),
                );
                if self.config.linger_ms > 0 {
                    ctx.set_timer(
                        ms(self.config.linger_ms),
                        Timer::Producer(ProducerTimer::Linger { batch_id: id }),
                    );
                }
                self.batches.entry(id).or_insert(BatchState {
                    id,
                    tp,
                    records: Vec::new(),
                    created_at: ctx.now,
                    base_sequence: NO_SEQUENCE,
                    epoch: NO_PRODUCER_EPOCH,
                    attempts: 0,
                    closed: self.config.linger_ms == 0,
                    backing_off: false,
                    backoff_from: 0,
                    unanswered: false,
                    in_flight: None,
                    queued: true,
                })
            }
        };
        batch.records.push(LogRecord { key, value: record });
        if batch.records.len() >= max {
            batch.closed = true;
            // The uniform sticky partitioner moves on when a batch fills.
            if key.is_none() {
                let partitions = self
                    .specs
                    .iter()
                    .find(|s| s.topic == tp.topic)
                    .map_or(1, |s| s.partitions.max(1));
                self.sticky
                    .insert(tp.topic, (tp.partition + 1) % partitions);
            }
        }
    }

    /// Sends every batch that may go now; returns how many went.
    fn drain(&mut self, ctx: &mut Ctx) -> u32 {
        if self.state != ClientState::Ready {
            return 0;
        }
        let mut sent = 0;
        let mut in_flight: VecMap<u8, u32> = VecMap::new();
        for f in self.in_flight.values() {
            *in_flight.entry(f.broker).or_insert(0) += 1;
        }
        let tps: Vec<Tp> = self
            .queues
            .iter()
            .filter(|(_, q)| !q.is_empty())
            .map(|(tp, _)| *tp)
            .collect();
        let mut to_add = Vec::new();
        for tp in tps {
            if let Some(t) = self.txn.as_mut() {
                t.track_partition(tp);
                if !t.may_send(tp) {
                    if t.phase == TxnPhase::InTransaction && !t.partitions.contains(&tp) {
                        to_add.push(tp);
                    }
                    continue;
                }
            }
            // No leader known: nothing goes; the client asks for metadata until one is.
            if self.no_leader.contains(&tp) {
                continue;
            }
            let leader = self.leader_hint.get(&tp).copied().unwrap_or(0);
            while let Some(&batch_id) = self.queues.get(&tp).and_then(|q| q.front()) {
                let ready = self
                    .batches
                    .get(&batch_id)
                    .is_some_and(|b| b.closed && !b.backing_off && b.in_flight.is_none());
                let busy = in_flight.entry(leader).or_insert(0);
                if !ready || *busy >= self.config.max_in_flight || self.retry_waits(batch_id) {
                    break;
                }
                if let Some(q) = self.queues.get_mut(&tp) {
                    q.pop_front();
                }
                if let Some(b) = self.batches.get_mut(&batch_id) {
                    b.queued = false;
                }
                if self.transmit(batch_id, leader, ctx) {
                    *busy += 1;
                }
                sent += 1;
            }
        }
        let idle = self
            .txn
            .as_ref()
            .is_some_and(|t| t.outstanding.is_none() && !t.retry_scheduled);
        if !to_add.is_empty() && idle {
            self.send_txn_request(TxnRequest::AddPartitions { partitions: to_add }, ctx);
        }
        self.arm_leader_wait(ctx);
        sent
    }

    /// The Java client sends a retried batch (one with a sequence already) only once every
    /// earlier batch of its partition is answered: `RecordAccumulator`'s
    /// `shouldStopDrainBatchesForPartition` waits for the first in-flight sequence, which
    /// "effectively reduces our in flight request count to 1". The batches behind it wait
    /// in the queue. librdkafka sends its retries back to back.
    fn retry_waits(&self, batch_id: u64) -> bool {
        if self.config.client != super::config::ClientKind::Java || !self.is_idempotent() {
            return false;
        }
        let Some(b) = self.batches.get(&batch_id) else {
            return false;
        };
        if b.base_sequence == NO_SEQUENCE {
            return false;
        }
        // The queue is in sequence order: an earlier batch not answered is on the wire.
        self.in_flight.values().any(|f| {
            self.batches.get(&f.batch_id).is_some_and(|e| {
                e.tp == b.tp && e.epoch == b.epoch && e.base_sequence < b.base_sequence
            })
        })
    }

    /// Sends a batch; returns true when it now waits for an answer (acks ≠ 0).
    fn transmit(&mut self, batch_id: u64, leader: u8, ctx: &mut Ctx) -> bool {
        let request_id = self.take_request_id();
        let idempotent = self.is_idempotent();
        let (producer_id, epoch) = (self.producer_id, self.epoch);
        let Some(batch) = self.batches.get_mut(&batch_id) else {
            return false;
        };
        if idempotent && batch.base_sequence == NO_SEQUENCE {
            let next = self.next_sequence.entry(batch.tp).or_insert(0);
            batch.base_sequence = *next;
            batch.epoch = epoch;
            *next = sequence_add(*next, batch.records.len() as i32);
        }
        batch.attempts += 1;
        batch.in_flight = Some(request_id);
        let tp = batch.tp;
        let wire = ProducerBatch {
            producer_id: if idempotent {
                producer_id
            } else {
                NO_PRODUCER_ID
            },
            epoch: if idempotent {
                batch.epoch
            } else {
                NO_PRODUCER_EPOCH
            },
            base_sequence: batch.base_sequence,
            records: batch.records.clone(),
            transactional: self.txn.is_some(),
            corrupt: false,
        };
        ctx.note(Note::BatchSent {
            producer: self.owner.unwrap_or(NodeId::Producer(self.index)),
            broker: NodeId::Broker(leader),
            tp,
            request_id,
            records: batch.record_ids(),
            producer_id: wire.producer_id,
            epoch: wire.epoch,
            base_sequence: wire.base_sequence,
            attempt: batch.attempts,
        });
        let transactional_id = self.txn.as_ref().map(|t| t.transactional_id.clone());
        let leader_adds = self
            .txn
            .as_ref()
            .is_some_and(|t| t.protocol.leader_adds_partitions());
        ctx.send(
            NodeId::Broker(leader),
            Message::Produce {
                request_id,
                tp,
                acks: self.config.acks,
                batch: wire,
                transactional_id,
                leader_adds,
            },
        );
        if self.config.acks == Acks::None {
            // Fire and forget: the client calls it a success with no offset.
            self.complete(batch_id, None, false, ctx);
            return false;
        }
        self.in_flight.insert(
            request_id,
            InFlight {
                batch_id,
                broker: leader,
                sent_at: ctx.now,
            },
        );
        ctx.set_timer(
            ms(self.config.request_timeout_ms),
            Timer::Producer(ProducerTimer::RequestTimeout { request_id }),
        );
        true
    }

    pub fn on_message(&mut self, msg: &Message, ctx: &mut Ctx) -> bool {
        match msg {
            Message::InitProducerIdResponse {
                request_id,
                producer_id,
                epoch,
                error: Some(e),
            } => {
                let waiting = matches!(self.state,
                    ClientState::Initializing { request_id: r, .. } if r == *request_id);
                if !waiting {
                    return false;
                }
                self.state = ClientState::Idle;
                let _ = (producer_id, epoch);
                if *e == KafkaError::NotCoordinator {
                    // FindCoordinator: the metadata answer says where it moved.
                    ctx.find_coordinator();
                }
                if e.is_retriable() {
                    // CONCURRENT_TRANSACTIONS: the coordinator is still ending the previous
                    // instance's transaction; the client asks again.
                    let backoff = ms(self.config.retry_backoff_ms);
                    ctx.note(Note::TxnRetry {
                        producer: self.owner.unwrap_or(NodeId::Producer(self.index)),
                        error: *e,
                        backoff,
                    });
                    ctx.set_timer(backoff, Timer::Producer(ProducerTimer::InitRetry));
                } else {
                    self.fatal(*e, ctx);
                }
                true
            }
            Message::TxnResponse {
                request_id,
                error,
                epoch,
                ..
            } => {
                self.on_txn_response(*request_id, *error, *epoch, ctx);
                true
            }
            Message::InitProducerIdResponse {
                request_id,
                producer_id,
                epoch,
                error: None,
            } => {
                let waiting = matches!(self.state,
                    ClientState::Initializing { request_id: r, .. } if r == *request_id);
                if !waiting {
                    ctx.note(Note::StaleResponseIgnored {
                        producer: self.owner.unwrap_or(NodeId::Producer(self.index)),
                        request_id: *request_id,
                        kind: msg.kind(),
                    });
                    return true;
                }
                self.producer_id = *producer_id;
                self.epoch = *epoch;
                self.next_sequence.clear();
                self.state = ClientState::Ready;
                ctx.note(Note::ProducerIdAssigned {
                    producer: self.owner.unwrap_or(NodeId::Producer(self.index)),
                    producer_id: *producer_id,
                    epoch: *epoch,
                });
                if let Some(t) = self.txn.as_mut() {
                    t.phase = TxnPhase::Ready;
                    self.try_begin(ctx);
                }
                self.drain(ctx);
                true
            }
            Message::ProduceResponse {
                request_id,
                tp,
                result,
            } => {
                self.on_produce_response(*request_id, *tp, *result, msg, ctx);
                true
            }
            _ => false,
        }
    }

    fn on_produce_response(
        &mut self,
        request_id: u64,
        tp: Tp,
        result: ProduceResult,
        msg: &Message,
        ctx: &mut Ctx,
    ) {
        let Some(flight) = self.in_flight.remove(&request_id) else {
            ctx.note(Note::StaleResponseIgnored {
                producer: self.owner.unwrap_or(NodeId::Producer(self.index)),
                request_id,
                kind: msg.kind(),
            });
            return;
        };
        let batch_id = flight.batch_id;
        if let Some(b) = self.batches.get_mut(&batch_id) {
            b.in_flight = None;
        }
        match result {
            ProduceResult::Appended { base_offset } => {
                self.complete(batch_id, Some(base_offset), false, ctx)
            }
            ProduceResult::Duplicate { base_offset } => {
                self.complete(batch_id, Some(base_offset), true, ctx)
            }
            ProduceResult::Error {
                error: KafkaError::NotLeaderOrFollower,
                leader_hint,
            } => {
                let next = leader_hint.unwrap_or((flight.broker + 1) % self.brokers);
                self.leader_hint.insert(tp, next);
                ctx.note(Note::LeaderChanged {
                    producer: self.owner.unwrap_or(NodeId::Producer(self.index)),
                    tp,
                    leader: next,
                });
                self.retry(batch_id, KafkaError::NotLeaderOrFollower, ctx);
            }
            ProduceResult::Error {
                error: KafkaError::OutOfOrderSequenceNumber,
                ..
            } => {
                let earlier_unresolved =
                    self.batches.values().any(|b| b.tp == tp && b.id < batch_id);
                let batch_epoch = self.batches.get(&batch_id).map(|b| b.epoch);
                if earlier_unresolved {
                    // An earlier batch has not landed yet: this one must wait its turn.
                    self.retry(batch_id, KafkaError::OutOfOrderSequenceNumber, ctx);
                } else if self.is_transactional() {
                    // A transactional producer may not bump its epoch itself: abort.
                    self.fail(batch_id, KafkaError::OutOfOrderSequenceNumber, false, ctx);
                    if let Some(t) = self.txn.as_mut() {
                        t.must_abort = true;
                    }
                } else {
                    // A real gap on the next expected batch: bump the epoch (once per epoch,
                    // however many answers report the same gap) and restart at 0.
                    self.fail(batch_id, KafkaError::OutOfOrderSequenceNumber, false, ctx);
                    if batch_epoch == Some(self.epoch) {
                        self.bump_epoch(ctx);
                    }
                }
            }
            ProduceResult::Error { error, .. } if error.is_retriable() => {
                // CORRUPT_MESSAGE and the like: nothing was stored, send the same batch again.
                self.retry(batch_id, error, ctx);
            }
            // A produce refused for an old epoch is abortable, not fatal (KIP-588: the broker
            // answers INVALID_PRODUCER_EPOCH rather than PRODUCER_FENCED so that the client
            // aborts); the abort's EndTxn then meets PRODUCER_FENCED, which is fatal.
            // INVALID_TXN_STATE (a write its leader's check voided) is abortable too: the Java
            // client's `maybeTransitionToErrorState` makes every other error of a batch so.
            ProduceResult::Error { error, .. }
                if self.is_transactional()
                    && is_fatal(error)
                    && !matches!(
                        error,
                        KafkaError::InvalidProducerEpoch | KafkaError::InvalidTxnState
                    ) =>
            {
                self.fatal(error, ctx);
            }
            ProduceResult::Error { error, .. } => {
                self.fail(batch_id, error, false, ctx);
                if let Some(t) = self.txn.as_mut() {
                    t.must_abort = true;
                }
            }
        }
        self.drain(ctx);
        self.maybe_end(ctx);
    }

    fn on_request_timeout(&mut self, request_id: u64, ctx: &mut Ctx) -> bool {
        let Some(flight) = self.in_flight.remove(&request_id) else {
            return false;
        };
        let Some(batch) = self.batches.get_mut(&flight.batch_id) else {
            return false;
        };
        batch.in_flight = None;
        batch.unanswered = true;
        ctx.note(Note::RequestTimedOut {
            producer: self.owner.unwrap_or(NodeId::Producer(self.index)),
            tp: batch.tp,
            request_id,
            records: batch.record_ids(),
            attempt: batch.attempts,
            timeout_ms: self.config.request_timeout_ms,
        });
        // The connection closes below, and the client asks for fresh metadata (see
        // `Command::Disconnect`): the retry goes where the metadata then says.
        self.retry(flight.batch_id, KafkaError::RequestTimedOut, ctx);
        self.close_connection(flight.broker, None, ctx);
        self.drain(ctx);
        true
    }

    /// After a request timeout the client closes its connection to that broker (the Java
    /// client's NetworkClient and librdkafka both do) and will open a new one. Every other
    /// produce request in flight on it fails as timed out too, unanswered (the Java
    /// Sender's REQUEST_TIMED_OUT, "Disconnected from node due to timeout"; librdkafka's
    /// "N request(s) timed out: disconnect", `_TIMED_OUT`), and goes back to its queue to be
    /// retried with the same pid, epoch and sequence.
    fn close_connection(
        &mut self,
        broker: u8,
        timed_out: Option<(MessageKind, u64)>,
        ctx: &mut Ctx,
    ) {
        ctx.disconnect(NodeId::Broker(broker));
        let failed: Vec<(u64, u64)> = self
            .in_flight
            .iter()
            .filter(|(_, f)| f.broker == broker)
            .map(|(request_id, f)| (*request_id, f.batch_id))
            .collect();
        let mut records = Vec::new();
        for (request_id, batch_id) in &failed {
            self.in_flight.remove(request_id);
            if let Some(b) = self.batches.get_mut(batch_id) {
                b.in_flight = None;
                b.unanswered = true;
                records.extend(b.record_ids());
            }
        }
        ctx.note(Note::ConnectionClosed {
            producer: self.owner.unwrap_or(NodeId::Producer(self.index)),
            broker: NodeId::Broker(broker),
            records,
            timed_out,
        });
        for (_, batch_id) in failed {
            self.retry(batch_id, KafkaError::RequestTimedOut, ctx);
        }
    }

    /// The broker a transactional request goes to: the group coordinator for
    /// TxnOffsetCommit, the transaction coordinator for the rest.
    fn txn_destination(&self, request: &TxnRequest) -> u8 {
        let Some(t) = &self.txn else {
            return 0;
        };
        match request {
            TxnRequest::CommitOffsets => t
                .current()
                .and_then(|w| w.offsets.as_ref())
                .map_or(t.coordinator, |o| o.group_coordinator),
            _ => t.coordinator,
        }
    }

    fn retry(&mut self, batch_id: u64, reason: KafkaError, ctx: &mut Ctx) {
        let config = &self.config;
        let Some(batch) = self.batches.get_mut(&batch_id) else {
            return;
        };
        let indeterminate = batch.unanswered;
        if batch.attempts > config.retries {
            self.fail(batch_id, reason, indeterminate, ctx);
            return;
        }
        if ctx.now.saturating_sub(batch.created_at) >= ms(config.delivery_timeout_ms) {
            self.fail(batch_id, KafkaError::DeliveryTimeout, indeterminate, ctx);
            return;
        }
        let backoff = ms(config.backoff_ms(batch.attempts));
        batch.backing_off = true;
        batch.backoff_from = ctx.now;
        let tp = batch.tp;
        ctx.note(Note::RetryScheduled {
            producer: self.owner.unwrap_or(NodeId::Producer(self.index)),
            tp,
            records: batch.record_ids(),
            backoff,
            reason,
            capped: backoff >= ms(config.retry_backoff_max_ms),
        });
        // Spread by the jitter, then capped at retry.backoff.max.ms, as both clients do
        // (Java's ExponentialBackoff, librdkafka's rd_kafka_retry_msgq).
        ctx.set_timer_jittered_at_most(
            backoff,
            BACKOFF_JITTER_PERCENT,
            ms(config.retry_backoff_max_ms),
            Timer::Producer(ProducerTimer::BackoffOver { batch_id }),
        );
        batch.queued = true;
        let queue = self.queues.entry(tp).or_default();
        if config.client == ClientKind::Java && !config.enable_idempotence {
            // The Java client without idempotence puts a retried batch back at the head of
            // its partition's queue (`RecordAccumulator.reenqueue`: `addFirst`): batches that
            // fail together (a closed connection fails them oldest first) go out again
            // newest first.
            queue.push_front(batch_id);
        } else {
            // Back in creation order, ahead of newer batches: by sequence number in the Java
            // client with idempotence (`insertInSequenceOrder`), by message id in librdkafka.
            let at = queue.partition_point(|id| *id < batch_id);
            queue.insert(at, batch_id);
        }
    }

    fn on_delivery_timeout(&mut self, batch_id: u64, ctx: &mut Ctx) -> bool {
        let Some(batch) = self.batches.get(&batch_id) else {
            return false;
        };
        let transmitted = batch.attempts > 0;
        let same_epoch = batch.epoch == self.epoch;
        let indeterminate = batch.unanswered || batch.in_flight.is_some();
        if let Some(request_id) = batch.in_flight {
            self.in_flight.remove(&request_id);
        }
        self.fail(batch_id, KafkaError::DeliveryTimeout, indeterminate, ctx);
        if let Some(t) = self.txn.as_mut() {
            t.must_abort = true;
        } else if self.is_idempotent() && transmitted && same_epoch {
            // The sequence space now has a hole the broker may or may not have filled.
            self.bump_epoch(ctx);
        }
        self.drain(ctx);
        self.maybe_end(ctx);
        true
    }

    /// KIP-360's local epoch bump. Only batches never sent are re-sequenced under the new
    /// epoch: a batch that went out keeps its epoch and sequence on every retry (re-numbering
    /// it would let the broker take a retry as new data, a duplicate). Such a retry either
    /// lands as a recognised duplicate or is fenced (INVALID_PRODUCER_EPOCH).
    fn bump_epoch(&mut self, ctx: &mut Ctx) {
        self.epoch = self.epoch.saturating_add(1);
        self.next_sequence.clear();
        for b in self.batches.values_mut() {
            if b.attempts == 0 {
                b.base_sequence = NO_SEQUENCE;
            }
        }
        ctx.note(Note::EpochBumped {
            producer: self.owner.unwrap_or(NodeId::Producer(self.index)),
            producer_id: self.producer_id,
            new_epoch: self.epoch,
        });
    }

    fn remove_batch(&mut self, batch_id: u64) -> Option<BatchState> {
        let batch = self.batches.remove(&batch_id)?;
        if batch.queued {
            if let Some(q) = self.queues.get_mut(&batch.tp) {
                q.retain(|id| *id != batch_id);
            }
        }
        for r in &batch.records {
            self.unconfirmed.remove(&r.value);
        }
        Some(batch)
    }

    fn complete(&mut self, batch_id: u64, base_offset: Option<u64>, dup: bool, ctx: &mut Ctx) {
        if let Some(batch) = self.remove_batch(batch_id) {
            ctx.note(Note::Delivered {
                producer: self.owner.unwrap_or(NodeId::Producer(self.index)),
                tp: batch.tp,
                records: batch.record_ids(),
                base_offset,
                duplicate_answer: dup,
            });
        }
    }

    /// Gives up on a batch. If any attempt went unanswered it may be in the log whatever the
    /// last answer said (a fenced or out-of-order retry of an appended batch): indeterminate.
    fn fail(&mut self, batch_id: u64, error: KafkaError, indeterminate: bool, ctx: &mut Ctx) {
        if let Some(batch) = self.remove_batch(batch_id) {
            ctx.note(Note::DeliveryFailed {
                producer: self.owner.unwrap_or(NodeId::Producer(self.index)),
                tp: batch.tp,
                records: batch.record_ids(),
                error,
                indeterminate: indeterminate || batch.unanswered,
            });
        }
    }

    /// The process dies: everything in memory is gone. What the application had handed
    /// over and not seen acknowledged stays in `unconfirmed`.
    pub fn crash(&mut self) {
        if let Some(t) = self.txn.as_mut() {
            t.crash();
        }
        self.state = ClientState::Idle;
        self.producer_id = NO_PRODUCER_ID;
        self.epoch = NO_PRODUCER_EPOCH;
        self.next_sequence.clear();
        self.queues.clear();
        self.batches.clear();
        self.in_flight.clear();
    }

    /// Restarts as a new process: without a transactional id that means a new producer id.
    /// Back from a crash: it starts again, or, crashed before the application started it,
    /// waits for that start.
    pub fn restart(&mut self, ctx: &mut Ctx) {
        if ctx.now < self.start_at {
            ctx.set_timer(
                self.start_at - ctx.now,
                Timer::Producer(ProducerTimer::Start),
            );
            return;
        }
        self.start(ctx);
    }
}

/// Errors that close a transactional producer: a newer instance owns its transactional id.
fn is_fatal(error: KafkaError) -> bool {
    matches!(
        error,
        KafkaError::ProducerFenced
            | KafkaError::InvalidProducerEpoch
            | KafkaError::InvalidProducerIdMapping
            | KafkaError::InvalidTxnState
    )
}
