//! The `Simulation`: it owns the clock, the single RNG, the event queue and every process,
//! and is the only thing that schedules. `step()` runs one event.

use super::command::{Command, Ctx};
use super::event::{Envelope, Event, Scheduled, Timer};
use super::fault::{Fault, ScheduledFault};
use super::names::Names;
use super::node_status::NodeStatus;
use super::note::{Notable, Note};
use crate::hash::{combine, stable_hash};
use crate::ids::NodeId;
use crate::kafka::broker::Broker;
use crate::kafka::consumer::{Consumer, ConsumerTimer};
use crate::kafka::controller;
use crate::kafka::processor::{Processor, ProcessorTimer};
use crate::kafka::producer::{Producer, ProducerTimer};
use crate::kafka::protocol::MessageKind;
use crate::net::{Network, NetworkConfig};
use crate::oracle::ledger::Ledger;
use crate::rng::Rng;
use crate::time::{ms, SimTime};
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};
use std::collections::BinaryHeap;

/// Everything a simulation starts from; built from a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Setup {
    pub seed: u64,
    pub names: Names,
    pub brokers: Vec<Broker>,
    pub producers: Vec<Producer>,
    pub consumers: Vec<Consumer>,
    #[serde(default)]
    pub processors: Vec<Processor>,
    #[serde(default)]
    pub flink: Option<crate::flink::Job>,
    pub network: NetworkConfig,
    /// KRaft's `broker.session.timeout.ms`: how long after a broker's crash the controller
    /// fences it and moves its leadership (0: at once).
    #[serde(default)]
    pub broker_session_timeout_ms: u64,
    pub faults: Vec<ScheduledFault>,
    pub max_steps: u64,
    pub records: u32,
    /// Keep every step's record (the UI and tests want it; the benchmark does not).
    pub keep_trace: bool,
}

/// What happened in one step.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StepRecord {
    pub step: u64,
    pub time: SimTime,
    pub node: Option<NodeId>,
    pub what: StepKind,
    pub notes: Vec<Note>,
}

impl StepRecord {
    pub fn notable(&self) -> Option<Notable> {
        self.notes.iter().filter_map(Note::notable).min()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    Deliver {
        msg_id: u64,
        from: NodeId,
        kind: MessageKind,
        sent_at: SimTime,
    },
    Timer {
        timer: Timer,
    },
    Fault {
        fault: Fault,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StepOutcome {
    Stepped,
    /// Nothing left to happen.
    Finished,
    /// The step limit was reached first.
    LimitReached,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunLimit {
    Steps(u64),
    Until(SimTime),
    Completion,
}

/// A message on the wire, for the UI to animate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InFlightMessage {
    pub id: u64,
    pub from: NodeId,
    pub to: NodeId,
    pub kind: MessageKind,
    pub label: String,
    /// The topic partition it concerns, if any (a produce's partition, for lose-ack).
    pub tp: Option<crate::ids::Tp>,
    pub sent_at: SimTime,
    pub arrive_at: SimTime,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Simulation {
    pub seed: u64,
    pub names: Names,
    now: SimTime,
    /// When the last step happened (the clock may pass stale timers after it).
    last_step_at: SimTime,
    steps: u64,
    next_seq: u64,
    next_msg_id: u64,
    rng: Rng,
    queue: BinaryHeap<Scheduled>,
    pub brokers: Vec<Broker>,
    pub producers: Vec<Producer>,
    pub consumers: Vec<Consumer>,
    pub processors: Vec<Processor>,
    pub flink: Option<crate::flink::Job>,
    #[serde(with = "crate::serde_pairs")]
    pub status: VecMap<NodeId, NodeStatus>,
    pub network: Network,
    pub ledger: Ledger,
    pub faults: Vec<ScheduledFault>,
    /// KRaft's `broker.session.timeout.ms` (0: the controller fences a crashed broker at once).
    #[serde(default)]
    pub broker_session_timeout_ms: u64,
    pub max_steps: u64,
    keep_trace: bool,
    trace: Vec<StepRecord>,
    trace_hash: u64,
    #[serde(skip)]
    commands: Vec<Command>,
}

/// How long a client waits for the answer to a Metadata request before it may ask again
/// (Kafka's default `request.timeout.ms`).
const METADATA_REQUEST_TIMEOUT_MS: u64 = 30_000;

enum Dispatch {
    /// A stale timer or similar: not a step.
    Ignored,
    Done(StepKind),
}

impl Simulation {
    pub fn new(setup: Setup) -> Self {
        let mut status = VecMap::new();
        for b in &setup.brokers {
            status.insert(b.node(), NodeStatus::default());
        }
        for p in &setup.producers {
            status.insert(p.node(), NodeStatus::default());
        }
        for c in &setup.consumers {
            status.insert(c.node(), NodeStatus::default());
        }
        for p in &setup.processors {
            status.insert(p.node(), NodeStatus::default());
        }
        if let Some(job) = &setup.flink {
            status.insert(NodeId::JobManager, NodeStatus::default());
            for t in 0..job.tasks.len() {
                status.insert(NodeId::Task(t as u8), NodeStatus::default());
            }
        }
        let mut sim = Simulation {
            seed: setup.seed,
            names: setup.names,
            now: 0,
            last_step_at: 0,
            steps: 0,
            next_seq: 0,
            next_msg_id: 0,
            rng: Rng::seeded(setup.seed),
            queue: BinaryHeap::new(),
            brokers: setup.brokers,
            producers: setup.producers,
            consumers: setup.consumers,
            processors: setup.processors,
            flink: setup.flink,
            status,
            network: Network::new(setup.network),
            ledger: Ledger::new(setup.records),
            faults: Vec::new(),
            broker_session_timeout_ms: setup.broker_session_timeout_ms,
            max_steps: setup.max_steps,
            keep_trace: setup.keep_trace,
            trace: Vec::new(),
            trace_hash: stable_hash(&setup.seed),
            commands: Vec::new(),
        };
        for p in 0..sim.producers.len() {
            let node = NodeId::Producer(p as u8);
            let at = sim.producers[p].start_at;
            sim.schedule_timer(node, at, Timer::Producer(ProducerTimer::Start));
        }
        for c in 0..sim.consumers.len() {
            let node = NodeId::Consumer(c as u8);
            let at = sim.consumers[c].settings.start_at;
            sim.schedule_timer(node, at, Timer::Consumer(ConsumerTimer::Start));
        }
        for p in 0..sim.processors.len() {
            let node = NodeId::Processor(p as u8);
            let at = sim.processors[p].settings.start_at;
            sim.schedule_timer(node, at, Timer::Processor(ProcessorTimer::Start));
        }
        if let Some(mut job) = sim.flink.take() {
            let mut first = Vec::new();
            job.start(&mut |node, at, timer| first.push((node, at, timer)));
            sim.flink = Some(job);
            for (node, at, timer) in first {
                sim.schedule_timer(node, at, timer);
            }
        }
        for f in setup.faults {
            sim.schedule_fault(f);
        }
        sim
    }

    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Timers still to fire, in no particular order: when, whose, which. Timers of a process's
    /// earlier life (before a crash) are left out: they will not fire.
    pub fn pending_timers(&self) -> impl Iterator<Item = (SimTime, NodeId, &super::event::Timer)> {
        self.queue.iter().filter_map(|s| match &s.event {
            Event::Timer {
                node,
                incarnation,
                timer,
            } if self.status.get(node).map_or(0, |st| st.incarnation) == *incarnation => {
                Some((s.time, *node, timer))
            }
            _ => None,
        })
    }

    /// The live timers of one process (its current incarnation's), in no particular order:
    /// `pending_timers` for a single node, without a status lookup per queued event.
    pub fn pending_timers_of(
        &self,
        node: NodeId,
    ) -> impl Iterator<Item = (SimTime, &super::event::Timer)> {
        let incarnation = self.status.get(&node).map_or(0, |st| st.incarnation);
        self.queue.iter().filter_map(move |s| match &s.event {
            Event::Timer {
                node: n,
                incarnation: i,
                timer,
            } if *n == node && *i == incarnation => Some((s.time, timer)),
            _ => None,
        })
    }

    /// The time of the last step that did something.
    pub fn last_step_at(&self) -> SimTime {
        self.last_step_at
    }

    pub fn steps(&self) -> u64 {
        self.steps
    }

    pub fn trace(&self) -> &[StepRecord] {
        &self.trace
    }

    /// A copy without the per-step trace (its hash is kept): a snapshot whose size does not
    /// grow with the run. `with_trace` gives it back the records of its steps.
    pub fn clone_without_trace(&mut self) -> Simulation {
        let trace = std::mem::take(&mut self.trace);
        let copy = self.clone();
        self.trace = trace;
        copy
    }

    /// About how many bytes a copy from `clone_without_trace` takes: the parts that grow
    /// with the scenario and the run (the ledger, the partition logs, the event queue).
    /// Bounds the memory the playground spends on copies of a run.
    pub fn approx_bytes(&self) -> usize {
        let logs: usize = self
            .brokers
            .iter()
            .flat_map(|b| b.replicas.values())
            .map(|r| r.log.approx_bytes())
            .sum();
        std::mem::size_of::<Self>()
            + self.ledger.approx_bytes()
            + logs
            + self.queue.len() * std::mem::size_of::<Scheduled>()
    }

    /// Takes the per-step trace out (to give a prefix of it to an earlier snapshot).
    pub fn take_trace(&mut self) -> Vec<StepRecord> {
        std::mem::take(&mut self.trace)
    }

    /// A snapshot from `clone_without_trace` with the records of its steps (a prefix of the
    /// same run's trace).
    pub fn with_trace(mut self, trace: Vec<StepRecord>) -> Simulation {
        self.trace = trace;
        self
    }

    /// A running hash over every step so far: same scenario and seed, same hash, everywhere.
    pub fn trace_hash(&self) -> u64 {
        self.trace_hash
    }

    /// A hash of the whole current state (processes, network, queue, RNG, ledger).
    pub fn state_hash(&self) -> u64 {
        let mut queue: Vec<&Scheduled> = self.queue.iter().collect();
        crate::order::sort_by_key(&mut queue, |s| (s.time, s.seq));
        stable_hash(&(
            self.now,
            self.steps,
            &self.rng,
            &queue,
            &self.brokers,
            &self.producers,
            &self.consumers,
            (&self.processors, &self.flink),
            &self.status,
            &self.network,
            &self.ledger,
            self.trace_hash,
        ))
    }

    pub fn is_finished(&self) -> bool {
        self.queue.is_empty()
    }

    /// The run has taken as many steps as its limit (`limits.max_steps`, or the page's cap)
    /// allows: it goes no further, though it has not ended.
    pub fn at_step_limit(&self) -> bool {
        self.steps >= self.max_steps
    }

    /// Whether the run has ended, though events may still be queued: `is_finished` holds
    /// only once a step has found the queue empty, and a run stopped at its last step may
    /// still hold events that do nothing (a timer no longer needed). Tried on a copy.
    pub fn nothing_left(&mut self) -> bool {
        self.is_finished() || matches!(self.clone_without_trace().step(), StepOutcome::Finished)
    }

    /// When the next event will happen, if any.
    pub fn next_event_time(&self) -> Option<SimTime> {
        self.queue.peek().map(|s| s.time)
    }

    /// Adds a fault to the schedule (it must not lie in the past).
    pub fn schedule_fault(&mut self, f: ScheduledFault) {
        let at = f.at.max(self.now);
        self.faults.push(ScheduledFault {
            at,
            fault: f.fault.clone(),
        });
        self.push(at, Event::Fault(f.fault));
    }

    /// Whether a timer of `node` matching `pred` is due now or earlier (it fires next, at
    /// this same instant), counting events a frozen node holds.
    pub fn timer_due(&self, node: NodeId, pred: impl Fn(&Timer) -> bool) -> bool {
        let due = |s: &Scheduled| {
            s.time <= self.now
                && matches!(&s.event, Event::Timer { node: n, timer, .. } if *n == node && pred(timer))
        };
        self.queue.iter().any(due)
            || self
                .status
                .get(&node)
                .is_some_and(|st| st.held.iter().any(due))
    }

    pub fn in_flight(&self) -> Vec<InFlightMessage> {
        self.in_flight_first(usize::MAX).0
    }

    /// The `limit` messages on the wire that arrive first (in arrival order), and how many
    /// are on the wire in all: only those shown are described (a busy wire holds thousands).
    pub fn in_flight_first(&self, limit: usize) -> (Vec<InFlightMessage>, usize) {
        let mut all: Vec<(SimTime, &Envelope)> = self
            .queue
            .iter()
            .filter_map(|s| match &s.event {
                Event::Deliver(env) => Some((s.time, env)),
                _ => None,
            })
            .collect();
        let total = all.len();
        crate::order::sort_by_key(&mut all, |(at, env)| (*at, env.id));
        let first = all
            .into_iter()
            .take(limit)
            .map(|(arrive_at, env)| InFlightMessage {
                id: env.id,
                from: env.from,
                to: env.to,
                kind: env.msg.kind(),
                label: env.msg.label(),
                tp: env.msg.tp(),
                sent_at: env.sent_at,
                arrive_at,
            })
            .collect();
        (first, total)
    }

    /// Runs until the limit, the end, or the scenario's step limit.
    pub fn run(&mut self, limit: RunLimit) -> StepOutcome {
        loop {
            match limit {
                RunLimit::Steps(n) if self.steps >= n => return StepOutcome::Stepped,
                RunLimit::Until(t) if self.next_event_time().is_none_or(|next| next > t) => {
                    self.now = self.now.max(t);
                    return if self.is_finished() {
                        StepOutcome::Finished
                    } else {
                        StepOutcome::Stepped
                    };
                }
                _ => {}
            }
            match self.step() {
                StepOutcome::Stepped => {}
                other => return other,
            }
        }
    }

    /// Runs exactly one event that does something.
    pub fn step(&mut self) -> StepOutcome {
        loop {
            if self.steps >= self.max_steps {
                return StepOutcome::LimitReached;
            }
            let Some(item) = self.queue.pop() else {
                return StepOutcome::Finished;
            };
            self.now = item.time;
            let node = item.event.node();
            let mut notes = Vec::new();
            match self.dispatch(item, &mut notes) {
                Dispatch::Ignored => continue,
                Dispatch::Done(what) => {
                    self.answer_marker_waits(&mut notes);
                    self.steps += 1;
                    self.last_step_at = self.now;
                    let record = StepRecord {
                        step: self.steps,
                        time: self.now,
                        node,
                        what,
                        notes,
                    };
                    self.trace_hash = combine(self.trace_hash, stable_hash(&record));
                    if self.keep_trace {
                        self.trace.push(record);
                    }
                    return StepOutcome::Stepped;
                }
            }
        }
    }

    fn push(&mut self, time: SimTime, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.queue.push(Scheduled { time, seq, event });
    }

    fn schedule_timer(&mut self, node: NodeId, at: SimTime, timer: Timer) {
        let incarnation = self.status.get(&node).map_or(0, |s| s.incarnation);
        self.push(
            at,
            Event::Timer {
                node,
                incarnation,
                timer,
            },
        );
    }

    fn dispatch(&mut self, item: Scheduled, notes: &mut Vec<Note>) -> Dispatch {
        let step = self.steps + 1;
        match item.event {
            Event::Fault(Fault::SessionExpired { broker, session })
                if !self.status.get(&NodeId::Broker(broker)).is_some_and(|st| {
                    (st.crashed || st.frozen) && st.unfenced && st.session == session
                }) =>
            {
                // The broker came back (or crashed again) first: nothing expires.
                Dispatch::Ignored
            }
            Event::Fault(Fault::MetadataCatchUp { broker })
                if self
                    .status
                    .get(&NodeId::Broker(broker))
                    .is_none_or(|st| st.crashed || st.frozen) =>
            {
                // Crashed (it caught up then) or frozen again (it will at its next thaw).
                Dispatch::Ignored
            }
            Event::Fault(fault) => {
                self.apply_fault(&fault, notes);
                Dispatch::Done(StepKind::Fault { fault })
            }
            Event::Timer {
                node,
                incarnation,
                timer,
            } => {
                let Some(st) = self.status.get_mut(&node) else {
                    return Dispatch::Ignored;
                };
                if st.crashed || st.incarnation != incarnation {
                    return Dispatch::Ignored;
                }
                if st.frozen {
                    // A paused process's timers fire when it resumes.
                    st.held.push(Scheduled {
                        time: item.time,
                        seq: item.seq,
                        event: Event::Timer {
                            node,
                            incarnation,
                            timer,
                        },
                    });
                    return Dispatch::Ignored;
                }
                if matches!(
                    timer,
                    Timer::Producer(ProducerTimer::Start)
                        | Timer::Consumer(ConsumerTimer::Start)
                        | Timer::Processor(ProcessorTimer::Start)
                ) {
                    self.learn_metadata(node, notes);
                }
                let mut ctx = Ctx::new(self.now, step, node, &mut self.commands);
                let acted = match (&timer, node) {
                    (Timer::Producer(t), NodeId::Producer(i)) => self
                        .producers
                        .get_mut(usize::from(i))
                        .is_some_and(|p| p.on_timer(t, &mut ctx)),
                    (Timer::Consumer(t), NodeId::Consumer(i)) => self
                        .consumers
                        .get_mut(usize::from(i))
                        .is_some_and(|c| c.on_timer(t, &mut ctx)),
                    (Timer::Coordinator(t), NodeId::Broker(i)) => self
                        .brokers
                        .get_mut(usize::from(i))
                        .is_some_and(|b| b.on_timer(t, &mut ctx)),
                    (Timer::Broker(t), NodeId::Broker(i)) => self
                        .brokers
                        .get_mut(usize::from(i))
                        .is_some_and(|b| b.on_broker_timer(t, &mut ctx)),
                    (Timer::Flink(t), NodeId::JobManager | NodeId::Task(_)) => {
                        let acted = self
                            .flink
                            .as_mut()
                            .is_some_and(|j| j.on_timer(node, t, &mut ctx));
                        if acted && matches!(t, crate::flink::FlinkTimer::Restart { .. }) {
                            // The restarted job runs on fresh task slots.
                            for (n, st) in self
                                .status
                                .iter_mut()
                                .filter(|(n, _)| matches!(n, NodeId::Task(_)))
                            {
                                st.crashed = false;
                                self.network.forget_node(*n);
                            }
                        }
                        acted
                    }
                    (t, NodeId::Processor(i)) => self
                        .processors
                        .get_mut(usize::from(i))
                        .is_some_and(|p| p.on_timer(t, &mut ctx)),
                    _ => false,
                };
                self.apply_commands(notes);
                if acted || !notes.is_empty() {
                    Dispatch::Done(StepKind::Timer { timer })
                } else {
                    Dispatch::Ignored
                }
            }
            Event::Deliver(env) => {
                let what = StepKind::Deliver {
                    msg_id: env.id,
                    from: env.from,
                    kind: env.msg.kind(),
                    sent_at: env.sent_at,
                };
                if self.network.is_stalled(&env) {
                    // Sent after a message lost on the same connection: never arrives.
                    let note = crate::net::network::Network::stalled_note(&env);
                    self.ledger.observe(&note, step, self.now);
                    notes.push(note);
                    return Dispatch::Done(what);
                }
                let to = env.to;
                let Some(st) = self.status.get_mut(&to) else {
                    return Dispatch::Ignored;
                };
                if st.crashed {
                    notes.push(Note::LostAtCrashedNode {
                        node: to,
                        kind: env.msg.kind(),
                    });
                    return Dispatch::Done(what);
                }
                if env.copy && !st.frozen {
                    notes.push(Note::CopyArrived {
                        from: env.from,
                        to,
                        kind: env.msg.kind(),
                        sent_at: env.sent_at,
                    });
                }
                if st.frozen {
                    notes.push(Note::HeldWhileFrozen {
                        node: to,
                        kind: env.msg.kind(),
                    });
                    st.held.push(Scheduled {
                        time: item.time,
                        seq: item.seq,
                        event: Event::Deliver(env),
                    });
                    return Dispatch::Done(what);
                }
                // A client takes in a Metadata response itself, whatever kind of client it is:
                // the answer to the request it has out, not one whose connection it closed.
                if let crate::kafka::protocol::Message::MetadataResponse {
                    request_id,
                    leaders,
                    coordinator_moves,
                } = &env.msg
                {
                    if let Some(st) = self.status.get_mut(&to) {
                        if st
                            .metadata_asked
                            .is_some_and(|(id, _, _)| id == *request_id)
                        {
                            st.metadata_asked = None;
                            self.apply_metadata(to, leaders, coordinator_moves, true, notes);
                        } else {
                            // The answer to a request that failed with the connection it went
                            // on: the client takes no notice of it.
                            notes.push(Note::StaleResponseIgnored {
                                producer: to,
                                request_id: *request_id,
                                kind: env.msg.kind(),
                            });
                        }
                    }
                    return Dispatch::Done(what);
                }
                self.deliver(&env, step);
                self.apply_commands(notes);
                Dispatch::Done(what)
            }
        }
    }

    fn deliver(&mut self, env: &Envelope, step: u64) {
        let mut ctx = Ctx::new(self.now, step, env.to, &mut self.commands);
        match env.to {
            NodeId::Broker(i) => {
                if let Some(b) = self.brokers.get_mut(usize::from(i)) {
                    b.handle(env.from, &env.msg, &mut ctx);
                }
            }
            NodeId::Producer(i) => {
                if let Some(p) = self.producers.get_mut(usize::from(i)) {
                    p.on_message(&env.msg, &mut ctx);
                }
            }
            NodeId::Consumer(i) => {
                if let Some(c) = self.consumers.get_mut(usize::from(i)) {
                    c.on_message(&env.msg, &mut ctx);
                }
            }
            NodeId::Processor(i) => {
                if let Some(p) = self.processors.get_mut(usize::from(i)) {
                    p.on_message(&env.msg, &mut ctx);
                }
            }
            NodeId::JobManager | NodeId::Task(_) => {
                if let Some(j) = self.flink.as_mut() {
                    j.on_message(env.to, &env.msg, &mut ctx);
                }
            }
        }
    }

    /// The broker a client asks for metadata: a live one (one that is down refuses the
    /// connection, and the client tries the next), not a frozen one if it can help it (it
    /// answers nothing, and what it knows may be stale; Kafka's least-loaded node is not the
    /// one holding the client's stuck requests).
    fn metadata_broker(&self) -> Option<&crate::kafka::broker::Broker> {
        let alive = self.alive_brokers();
        self.brokers
            .iter()
            .filter(|b| alive.get(usize::from(b.id)).copied().unwrap_or(false))
            .min_by_key(|b| b.deaf)
    }

    /// A client that starts learns the cluster's metadata from a live broker, as a real one
    /// asks its bootstrap servers (at once: the run begins with clients that know the
    /// cluster). Said only when that is news: a leader moved since the client last knew.
    fn learn_metadata(&mut self, node: NodeId, notes: &mut Vec<Note>) {
        let Some(broker) = self.metadata_broker() else {
            return;
        };
        let metadata: Vec<(crate::ids::Tp, Option<u8>)> =
            broker.leaders.iter().map(|(tp, l)| (*tp, *l)).collect();
        let moves: Vec<(u8, u8)> = broker
            .coordinator_moves
            .iter()
            .map(|(from, to)| (*from, *to))
            .collect();
        self.apply_metadata(node, &metadata, &moves, false, notes);
    }

    /// A client takes in the leaders a broker told it (at its start, or in a Metadata
    /// response after it asked for fresh metadata: `refresh`), and says so when a leader moved
    /// since it last knew.
    fn apply_metadata(
        &mut self,
        node: NodeId,
        metadata: &[(crate::ids::Tp, Option<u8>)],
        moves: &[(u8, u8)],
        refresh: bool,
        notes: &mut Vec<Note>,
    ) {
        let hints: Vec<&mut crate::vec_map::VecMap<crate::ids::Tp, u8>> = match node {
            NodeId::Producer(i) => self
                .producers
                .get_mut(usize::from(i))
                .map(|p| vec![&mut p.leader_hint])
                .unwrap_or_default(),
            NodeId::Consumer(i) => self
                .consumers
                .get_mut(usize::from(i))
                .map(|c| vec![&mut c.leader_hint])
                .unwrap_or_default(),
            NodeId::Processor(i) => self
                .processors
                .get_mut(usize::from(i))
                .map(|p| vec![&mut p.leader_hint, &mut p.producer.leader_hint])
                .unwrap_or_default(),
            // A Flink source subtask's Kafka consumer.
            NodeId::Task(i) => self
                .flink
                .as_mut()
                .and_then(|j| j.tasks.get_mut(usize::from(i)))
                .and_then(|t| t.source.as_mut())
                .map(|s| vec![&mut s.leader_hint])
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let mut moved: Vec<(crate::ids::Tp, u8)> = Vec::new();
        let mut offline: Vec<crate::ids::Tp> = Vec::new();
        for hint in hints {
            for (tp, leader) in metadata {
                if leader.is_none() && hint.contains_key(tp) && !offline.contains(tp) {
                    offline.push(*tp);
                }
                let (Some(leader), Some(was)) = (*leader, hint.get(tp).copied()) else {
                    continue;
                };
                if was != leader {
                    hint.insert(*tp, leader);
                    if !moved.contains(&(*tp, leader)) {
                        moved.push((*tp, leader));
                    }
                }
            }
        }
        // What the client's producer knew had no leader.
        let known_offline: Vec<crate::ids::Tp> =
            producer_of(&mut self.producers, &mut self.processors, node)
                .map(|p| p.no_leader.clone())
                .unwrap_or_default();
        // A partition that was offline and has a leader again is news, even the same one.
        for (tp, leader) in metadata {
            if let (Some(l), true) = (*leader, known_offline.contains(tp)) {
                if !moved.contains(&(*tp, l)) {
                    moved.push((*tp, l));
                }
            }
        }
        // An answer the client asked for is said even when nothing moved: its retries go
        // where they went. Not one that finds its producer's partitions still offline, as
        // it knew (its `LeaderAwaited` said it would ask until one is elected).
        let still_offline = moved.is_empty()
            && !offline.is_empty()
            && offline.iter().all(|tp| known_offline.contains(tp));
        if (!moved.is_empty() || refresh) && !still_offline {
            notes.push(if refresh {
                Note::MetadataRefreshed {
                    client: node,
                    leaders: moved,
                    offline,
                }
            } else {
                Note::MetadataLearned {
                    client: node,
                    leaders: moved,
                }
            });
        }
        // A producer holds the batches of a partition with no leader, and sends them once
        // one is elected.
        let step = self.steps + 1;
        if let Some(p) = producer_of(&mut self.producers, &mut self.processors, node) {
            let mut ctx = Ctx::new(self.now, step, node, &mut self.commands);
            p.leaders_learned(metadata, &mut ctx);
            // And where transaction coordination moved, for a transactional client.
            if !moves.is_empty() {
                p.coordinator_moved(moves, &mut ctx);
            }
            self.apply_commands(notes);
        }
    }

    /// The controller fenced broker `failed`: the `__transaction_state` partition it led
    /// moves to another of its replicas (`controller::txn_successor`), whose coordinator
    /// loads its transactions. Transactional clients learn it from their next metadata
    /// answer. With no live replica, or nothing transactional that it coordinates, nothing
    /// moves.
    fn move_txn_coordination(&mut self, failed: u8, alive: &[bool], notes: &mut Vec<Note>) {
        let Some(to) = controller::txn_successor(self.brokers.len(), alive, failed) else {
            return;
        };
        let coordinated_by = |p: &crate::kafka::producer::Producer| {
            p.txn.as_ref().is_some_and(|t| t.coordinator == failed)
        };
        // A Flink job's two-phase-commit sinks pick a new transactional id per checkpoint:
        // any coordinator may be the next one's.
        let clients = self.producers.iter().any(coordinated_by)
            || self.processors.iter().any(|p| coordinated_by(&p.producer))
            || self
                .flink
                .as_ref()
                .is_some_and(|j| j.tasks.iter().any(|t| t.sink.is_some()));
        let Some(entries) = self
            .brokers
            .get_mut(usize::from(failed))
            .filter(|b| clients || !b.txn_coordinator.log.is_empty())
            .map(|b| b.txn_coordinator.hand_over())
        else {
            return;
        };
        controller::coordination_moved(&mut self.brokers, failed, to);
        if let (Some(job), Some(b)) = (self.flink.as_mut(), self.brokers.first()) {
            job.coordinator_moves = b.coordinator_moves.clone();
        }
        let step = self.steps + 1;
        let node = NodeId::Broker(to);
        let at = notes.len();
        let mut ctx = Ctx::new(self.now, step, node, &mut self.commands);
        let ids = match self.brokers.get_mut(usize::from(to)) {
            Some(b) => b.adopt_coordination(entries, &mut ctx),
            None => Vec::new(),
        };
        self.apply_commands(notes);
        // Said before what the new coordinator does with them.
        notes.insert(
            at.min(notes.len()),
            Note::TxnCoordinatorMoved {
                from: NodeId::Broker(failed),
                to: node,
                ids,
            },
        );
    }

    /// A step may have moved a leader's high watermark or its leadership (a follower's
    /// answer, the controller's ISR change, a failover): the WriteTxnMarkers answers that
    /// waited for it go out in that step, from a broker that is up and not frozen.
    fn answer_marker_waits(&mut self, notes: &mut Vec<Note>) {
        let step = self.steps + 1;
        let mut any = false;
        for (i, b) in self.brokers.iter_mut().enumerate() {
            let Ok(id) = u8::try_from(i) else {
                break;
            };
            let node = NodeId::Broker(id);
            let running = self
                .status
                .get(&node)
                .is_some_and(|s| !s.crashed && !s.frozen);
            if running && !b.marker_waits.is_empty() {
                let mut ctx = Ctx::new(self.now, step, node, &mut self.commands);
                b.answer_markers(&mut ctx);
                any = true;
            }
        }
        if any {
            self.apply_commands(notes);
        }
    }

    fn alive_brokers(&self) -> Vec<bool> {
        (0..self.brokers.len())
            .map(|i| {
                self.status
                    .get(&NodeId::Broker(i as u8))
                    .is_some_and(|s| !s.crashed)
            })
            .collect()
    }

    /// A crashed process comes back: a broker registers as a new incarnation (its old
    /// session gone) and reads its log, a client starts again. `Restarted` is noted by the
    /// caller (a broker refused at first notes its registration instead).
    fn restart_process(&mut self, node: NodeId, notes: &mut Vec<Note>) {
        let step = self.steps + 1;
        match self.status.get_mut(&node) {
            Some(st) if st.crashed => {
                st.crashed = false;
                st.fenced = false;
                st.unfenced = false;
                st.registering = false;
            }
            _ => return,
        }
        self.network.forget_node(node);
        if matches!(node, NodeId::Producer(_) | NodeId::Processor(_)) {
            // They start again at once (a consumer's start is a timer, above).
            self.learn_metadata(node, notes);
        }
        let alive = self.alive_brokers();
        let mut ctx = Ctx::new(self.now, step, node, &mut self.commands);
        match node {
            NodeId::Broker(i) => {
                controller::broker_restarted(&mut self.brokers, &alive, i, &mut ctx);
                if let Some(b) = self.brokers.get_mut(usize::from(i)) {
                    b.recover(&mut ctx);
                }
            }
            NodeId::Producer(i) => {
                if let Some(p) = self.producers.get_mut(usize::from(i)) {
                    p.restart(&mut ctx);
                }
            }
            NodeId::Consumer(i) => {
                if let Some(c) = self.consumers.get_mut(usize::from(i)) {
                    c.restart(&mut ctx);
                }
            }
            NodeId::Processor(i) => {
                if let Some(p) = self.processors.get_mut(usize::from(i)) {
                    p.restart(&mut ctx);
                }
            }
            NodeId::JobManager | NodeId::Task(_) => {}
        }
        self.apply_commands(notes);
    }

    fn apply_fault(&mut self, fault: &Fault, notes: &mut Vec<Note>) {
        let step = self.steps + 1;
        match fault {
            Fault::Freeze { node, duration } => {
                if let Some(st) = self.status.get_mut(node) {
                    if st.crashed || st.frozen {
                        return;
                    }
                    st.frozen = true;
                    notes.push(Note::Frozen {
                        node: *node,
                        duration: *duration,
                    });
                    // A paused broker sends no heartbeats either: the controller fences it if
                    // the pause outlasts its session.
                    let expiry = match *node {
                        NodeId::Broker(broker)
                            if self.broker_session_timeout_ms > 0 && !st.unfenced && !st.fenced =>
                        {
                            st.session += 1;
                            st.unfenced = true;
                            Some(Fault::SessionExpired {
                                broker,
                                session: st.session,
                            })
                        }
                        _ => None,
                    };
                    if let NodeId::Broker(i) = *node {
                        if let Some(b) = self.brokers.get_mut(usize::from(i)) {
                            b.deaf = true;
                        }
                    }
                    let at = self.now.saturating_add(*duration);
                    self.push(at, Event::Fault(Fault::Thaw { node: *node }));
                    if let Some(expiry) = expiry {
                        let at = self.now.saturating_add(ms(self.broker_session_timeout_ms));
                        self.push(at, Event::Fault(expiry));
                    }
                }
            }
            Fault::Thaw { node } => {
                let (held, fenced) = match self.status.get_mut(node) {
                    Some(st) if st.frozen => {
                        st.frozen = false;
                        // Back before its session expired: it was never fenced.
                        st.unfenced = false;
                        (std::mem::take(&mut st.held), st.fenced)
                    }
                    _ => return,
                };
                notes.push(Note::Thawed {
                    node: *node,
                    held: held.len() as u32,
                });
                // Served in the order they arrived, right now.
                let now = self.now;
                for h in held {
                    self.push(now, h.event);
                }
                if let NodeId::Broker(i) = *node {
                    if let Some(b) = self.brokers.get_mut(usize::from(i)) {
                        if fenced || !b.missed_metadata.is_empty() {
                            // It serves what waited in its socket buffers on the metadata it
                            // had when it froze, then hears the controller.
                            self.push(now, Event::Fault(Fault::MetadataCatchUp { broker: i }));
                        } else {
                            b.deaf = false;
                            self.leader_awake(i, notes);
                        }
                    }
                }
            }
            Fault::MetadataCatchUp { broker } => {
                let node = NodeId::Broker(*broker);
                let alive = self.alive_brokers();
                let mut ctx = Ctx::new(self.now, step, node, &mut self.commands);
                let caught = controller::catch_up(&mut self.brokers, *broker, true, &mut ctx);
                notes.push(Note::MetadataCaughtUp {
                    broker: node,
                    demoted: caught.demoted,
                    answered: caught.answered,
                });
                let fenced = self
                    .status
                    .get_mut(&node)
                    .is_some_and(|st| std::mem::take(&mut st.fenced));
                if fenced {
                    notes.push(Note::BrokerRejoined { broker: node });
                    controller::broker_restarted(&mut self.brokers, &alive, *broker, &mut ctx);
                }
                self.apply_commands(notes);
                if !fenced {
                    // Not fenced, so not aligned: as a follower it fetches what it lacks.
                    let pairs = (0..self.brokers.len())
                        .filter(|x| *x != usize::from(*broker))
                        .map(|x| (x, *broker))
                        .collect();
                    self.resume(pairs, notes);
                }
                self.leader_awake(*broker, notes);
            }
            Fault::Crash {
                node,
                restart_after,
            } => {
                let Some(st) = self.status.get_mut(node) else {
                    return;
                };
                if st.crashed {
                    if st.registering {
                        // The new instance, still refused, dies too; it may come back again.
                        st.registering = false;
                        notes.push(Note::Crashed { node: *node });
                        if let Some(after) = restart_after {
                            let at = self.now.saturating_add(*after);
                            self.push(at, Event::Fault(Fault::Restart { node: *node }));
                        }
                    }
                    return;
                }
                st.crashed = true;
                st.frozen = false;
                st.held.clear();
                st.metadata_asked = None;
                st.incarnation += 1;
                // The ledger hears it too: what a processor held dies with it.
                self.ledger
                    .observe(&Note::Crashed { node: *node }, step, self.now);
                notes.push(Note::Crashed { node: *node });
                self.network.forget_node(*node);
                let mut ctx = Ctx::new(self.now, step, *node, &mut self.commands);
                let mut session_expires = None;
                match *node {
                    NodeId::Broker(i) => {
                        if let Some(b) = self.brokers.get_mut(usize::from(i)) {
                            b.crash();
                        }
                        if self.brokers.get(usize::from(i)).is_some_and(|b| b.deaf) {
                            // Crashed while frozen: it reads the metadata when it restarts.
                            controller::catch_up(&mut self.brokers, i, false, &mut ctx);
                        }
                        if self.broker_session_timeout_ms == 0 {
                            let up = |j: usize, fenced_too: bool| {
                                self.status
                                    .get(&NodeId::Broker(j as u8))
                                    .is_some_and(|s| !s.crashed && (fenced_too || !s.fenced))
                            };
                            let alive: Vec<bool> =
                                (0..self.brokers.len()).map(|j| up(j, true)).collect();
                            let electable: Vec<bool> =
                                (0..self.brokers.len()).map(|j| up(j, false)).collect();
                            controller::broker_failed(
                                &mut self.brokers,
                                (&alive, &electable),
                                i,
                                &mut ctx,
                            );
                        } else if let Some(st) = self
                            .status
                            .get_mut(node)
                            .filter(|st| !st.unfenced && !st.fenced)
                        {
                            // The controller learns of it when its session expires: until
                            // then the metadata still names it leader, and every ISR holds it.
                            // (A frozen broker's silence started at its freeze: that expiry
                            // stands.)
                            st.session += 1;
                            st.unfenced = true;
                            session_expires = Some(Fault::SessionExpired {
                                broker: i,
                                session: st.session,
                            });
                        }
                    }
                    NodeId::Producer(i) => {
                        if let Some(p) = self.producers.get_mut(usize::from(i)) {
                            self.ledger.producer_crashed(p, step);
                            p.crash();
                        }
                    }
                    NodeId::Consumer(i) => {
                        if let Some(c) = self.consumers.get_mut(usize::from(i)) {
                            c.crash();
                        }
                    }
                    NodeId::Processor(i) => {
                        if let Some(p) = self.processors.get_mut(usize::from(i)) {
                            self.ledger.producer_crashed(&p.producer, step);
                            p.crash();
                        }
                    }
                    NodeId::Task(_) => {
                        if let Some(j) = self.flink.as_mut() {
                            j.task_crashed(*node, &mut ctx);
                        }
                    }
                    // The JobManager's own failure (HA) is not modelled: a crash of it
                    // stops checkpoint coordination until it restarts.
                    NodeId::JobManager => {}
                }
                self.apply_commands(notes);
                if let (NodeId::Broker(i), 0) = (*node, self.broker_session_timeout_ms) {
                    // Fenced at once: its transaction coordination moves now.
                    let alive = self.alive_brokers();
                    self.move_txn_coordination(i, &alive, notes);
                }
                if let Some(expiry) = session_expires {
                    let at = self.now.saturating_add(ms(self.broker_session_timeout_ms));
                    self.push(at, Event::Fault(expiry));
                }
                if let Some(after) = restart_after {
                    let at = self.now.saturating_add(*after);
                    self.push(at, Event::Fault(Fault::Restart { node: *node }));
                }
            }
            Fault::SessionExpired { broker, .. } => {
                let node = NodeId::Broker(*broker);
                let registering = self.status.get(&node).is_some_and(|st| st.registering);
                if let Some(st) = self.status.get_mut(&node) {
                    st.unfenced = false;
                    // A frozen one registers again when it thaws.
                    st.fenced = st.frozen;
                }
                notes.push(Note::BrokerFenced {
                    broker: node,
                    session_timeout_ms: self.broker_session_timeout_ms,
                    restarted: false,
                });
                // Not a candidate for leadership, frozen or crashed.
                let mut alive = self.alive_brokers();
                if let Some(me) = alive.get_mut(usize::from(*broker)) {
                    *me = false;
                }
                let electable: Vec<bool> = (0..self.brokers.len())
                    .map(|j| {
                        alive.get(j).copied().unwrap_or(false)
                            && self
                                .status
                                .get(&NodeId::Broker(j as u8))
                                .is_some_and(|s| !s.fenced)
                    })
                    .collect();
                let mut ctx = Ctx::new(self.now, step, node, &mut self.commands);
                controller::broker_failed(
                    &mut self.brokers,
                    (&alive, &electable),
                    *broker,
                    &mut ctx,
                );
                self.apply_commands(notes);
                self.move_txn_coordination(*broker, &alive, notes);
                if registering {
                    // Its registration, tried again and again, is taken now.
                    notes.push(Note::BrokerRegistration {
                        broker: node,
                        accepted: true,
                        session_timeout_ms: self.broker_session_timeout_ms,
                    });
                    self.restart_process(node, notes);
                }
            }
            Fault::Restart { node } => {
                if matches!(node, NodeId::Task(_)) {
                    // Flink's JobManager restarts tasks itself (restart strategy).
                    return;
                }
                let session_timeout_ms = self.broker_session_timeout_ms;
                if let (NodeId::Broker(_), Some(st)) = (node, self.status.get_mut(node)) {
                    if st.crashed && st.unfenced {
                        // Back before the session of the instance that crashed expired: the
                        // controller refuses the new incarnation's registration
                        // (DUPLICATE_BROKER_REGISTRATION) until it does; the broker tries
                        // again meanwhile and opens no listener to clients.
                        if !st.registering {
                            st.registering = true;
                            notes.push(Note::BrokerRegistration {
                                broker: *node,
                                accepted: false,
                                session_timeout_ms,
                            });
                        }
                        return;
                    }
                }
                if self.status.get(node).is_some_and(|st| st.crashed) {
                    notes.push(Note::Restarted { node: *node });
                }
                self.restart_process(*node, notes);
            }
            Fault::Drop { count, .. }
            | Fault::Delay { count, .. }
            | Fault::Duplicate { count, .. }
            | Fault::LoseAck { count, .. }
            | Fault::Corrupt { count, .. } => {
                notes.push(Note::FaultArmed {
                    description: super::narration::describe_fault(&self.names, fault),
                });
                self.network.arm(fault.clone(), *count);
            }
            Fault::DropOnWire { matcher, count } => {
                self.hit_on_wire(fault, matcher, *count, None, notes);
            }
            Fault::DelayOnWire {
                matcher,
                extra,
                count,
            } => {
                self.hit_on_wire(fault, matcher, *count, Some(*extra), notes);
            }
            Fault::Partition { a, b } => {
                self.network.cut_link(*a, *b);
                notes.push(Note::LinkCut { a: *a, b: *b });
            }
            Fault::Heal { a, b } => {
                self.network.heal_link(*a, *b);
                notes.push(Note::LinkHealed { a: *a, b: *b });
            }
        }
        // A broker that restarts is aligned by the controller (it sends what it lacks).
        let restarted = match fault {
            Fault::Restart { node } => Some(*node),
            Fault::SessionExpired { broker, .. } => Some(NodeId::Broker(*broker)),
            _ => None,
        };
        self.refresh_fetch_paths(restarted, notes);
    }

    /// Which brokers' fetches can reach which (neither down, the fetching one not frozen,
    /// their link not cut): each leader's clocks for its followers stop when a follower's
    /// fetches stop reaching it (`Broker::unreachable_since`), and a follower whose fetches
    /// get through again fetches what it lacks, unless it has just restarted (the controller
    /// aligns it) or is still deaf (it does when it catches up). Called after every fault.
    fn refresh_fetch_paths(&mut self, restarted: Option<NodeId>, notes: &mut Vec<Note>) {
        let state = |i: usize| {
            self.status
                .get(&NodeId::Broker(i as u8))
                .map_or((false, false), |st| (!st.crashed, st.frozen))
        };
        let mut resumed = Vec::new();
        for x in 0..self.brokers.len() {
            let (x_up, x_frozen) = state(x);
            if !x_up {
                continue;
            }
            for y in (0..self.brokers.len()).filter(|y| *y != x) {
                let (y_up, y_frozen) = state(y);
                let reaches = y_up
                    && !y_frozen
                    && !self
                        .network
                        .is_cut(NodeId::Broker(x as u8), NodeId::Broker(y as u8));
                let Some(b) = self.brokers.get_mut(x) else {
                    continue;
                };
                let y = y as u8;
                match (reaches, b.unreachable_since.contains_key(&y)) {
                    (false, false) => {
                        b.unreachable_since.insert(y, self.now);
                    }
                    (true, true) => {
                        b.unreachable_since.remove(&y);
                        let y_deaf = self.brokers.get(usize::from(y)).is_some_and(|b| b.deaf);
                        if !x_frozen && !y_deaf && restarted != Some(NodeId::Broker(y)) {
                            resumed.push((x, y));
                        }
                    }
                    _ => {}
                }
            }
        }
        self.resume(resumed, notes);
    }

    /// Leader `x` sends follower `y` what it lacks, for each `(x, y)`.
    fn resume(&mut self, pairs: Vec<(usize, u8)>, notes: &mut Vec<Note>) {
        if pairs.is_empty() {
            return;
        }
        let step = self.steps + 1;
        for (x, y) in pairs {
            let node = NodeId::Broker(x as u8);
            let mut ctx = Ctx::new(self.now, step, node, &mut self.commands);
            if let Some(b) = self.brokers.get(x) {
                b.resume_follower(y, &mut ctx);
            }
        }
        self.apply_commands(notes);
    }

    /// Broker `x`, awake and hearing the controller again, sends its followers what they
    /// lack, and looks for followers out of sync again.
    fn leader_awake(&mut self, x: u8, notes: &mut Vec<Note>) {
        let pairs = (0..self.brokers.len() as u8)
            .filter(|y| *y != x)
            .map(|y| (usize::from(x), y))
            .collect();
        self.resume(pairs, notes);
        let step = self.steps + 1;
        let node = NodeId::Broker(x);
        let mut ctx = Ctx::new(self.now, step, node, &mut self.commands);
        if let Some(b) = self.brokers.get_mut(usize::from(x)) {
            b.arm_all_isr_expiry(&mut ctx);
        }
        self.apply_commands(notes);
    }

    /// Drops (or, with `delay`, delays) the first `count` messages on the wire that match,
    /// earliest arrival first. Messages a frozen process holds have arrived: they are not
    /// on the wire.
    fn hit_on_wire(
        &mut self,
        fault: &Fault,
        matcher: &super::fault::MessageMatch,
        count: u32,
        delay: Option<SimTime>,
        notes: &mut Vec<Note>,
    ) {
        let mut items = std::mem::take(&mut self.queue).into_vec();
        crate::order::sort_by_key(&mut items, |s| (s.time, s.seq));
        let mut left = count;
        let mut kept = Vec::with_capacity(items.len());
        for mut item in items {
            let hit = left > 0
                && matches!(&item.event, Event::Deliver(env) if crate::net::network::matches(matcher, env));
            if !hit {
                kept.push(item);
                continue;
            }
            left -= 1;
            let Event::Deliver(env) = &item.event else {
                continue;
            };
            match delay {
                None => {
                    notes.push(Note::MessageDropped {
                        from: env.from,
                        to: env.to,
                        kind: env.msg.kind(),
                        label: env.msg.label(),
                        why: super::note::DropReason::Fault,
                        msg: env.id,
                        sent_at: env.sent_at,
                    });
                    self.network.stall_behind(env);
                }
                Some(extra) => {
                    notes.push(Note::MessageDelayed {
                        from: env.from,
                        to: env.to,
                        kind: env.msg.kind(),
                        extra,
                    });
                    item.time = item.time.saturating_add(extra);
                    kept.push(item);
                }
            }
        }
        if left == count {
            notes.push(Note::FaultArmed {
                description: format!(
                    "{} (none is on the wire: nothing happens)",
                    super::narration::describe_fault(&self.names, fault)
                ),
            });
        }
        self.queue = kept.into_iter().collect();
    }

    /// Puts a message on the wire: the network decides when (and whether) it arrives.
    fn send(
        &mut self,
        from: NodeId,
        to: NodeId,
        mut msg: crate::kafka::protocol::Message,
        step: u64,
        notes: &mut Vec<Note>,
    ) {
        if let crate::kafka::protocol::Message::Produce { tp, batch, .. } = &mut msg {
            batch.corrupt = self.network.corrupts(*tp);
        }
        let env = Envelope {
            id: self.next_msg_id,
            from,
            to,
            sent_at: self.now,
            msg,
            copy: false,
        };
        self.next_msg_id += 1;
        let mut net_notes = Vec::new();
        let arrivals = self
            .network
            .route(&env, self.now, &mut self.rng, &mut net_notes);
        for n in net_notes {
            self.ledger.observe(&n, step, self.now);
            notes.push(n);
        }
        // A duplicated message arrives twice; the later arrival is the copy.
        if let Some((&last, rest)) = arrivals.split_last() {
            for at in rest {
                self.push(*at, Event::Deliver(env.clone()));
            }
            let copy = !rest.is_empty();
            self.push(last, Event::Deliver(Envelope { copy, ..env }));
        }
    }

    fn apply_commands(&mut self, notes: &mut Vec<Note>) {
        let step = self.steps + 1;
        let mut commands = std::mem::take(&mut self.commands);
        let mut refresh: Vec<NodeId> = Vec::new();
        let mut metadata_failed: Vec<NodeId> = Vec::new();
        let mut finding: Vec<NodeId> = Vec::new();
        let mut leader_wait: Vec<NodeId> = Vec::new();
        for cmd in commands.drain(..) {
            match cmd {
                Command::Note(note) => {
                    self.ledger.observe(&note, step, self.now);
                    notes.push(note);
                }
                Command::Disconnect { client, broker } => {
                    self.network.reconnect(client, broker);
                    // A Metadata request on that connection fails with it.
                    if let Some(st) = self.status.get_mut(&client) {
                        if st.metadata_asked.is_some_and(|(_, b, _)| b == broker) {
                            st.metadata_asked = None;
                            metadata_failed.push(client);
                        }
                    }
                    // Kafka's NetworkClient asks for a metadata update when it loses a
                    // connection: the client learns the leaders from a broker that answers
                    // (said after the step's other notes: the answer comes after the close).
                    if !refresh.contains(&client) {
                        refresh.push(client);
                    }
                }
                Command::AlterPartition { leader, tp, isr } => {
                    controller::isr_changed(&mut self.brokers, tp, leader, &isr, self.now);
                }
                Command::RefreshMetadata {
                    client,
                    find_coordinator,
                    for_leader,
                } => {
                    if find_coordinator {
                        finding.push(client);
                    }
                    if for_leader {
                        leader_wait.push(client);
                    }
                    if !refresh.contains(&client) {
                        refresh.push(client);
                    }
                }
                Command::SetTimer {
                    node,
                    after,
                    jitter_percent,
                    at_most,
                    timer,
                } => {
                    let spread = after.saturating_mul(u64::from(jitter_percent)) / 100;
                    let delay = if spread > 0 {
                        after - spread + self.rng.below_or_equal(spread.saturating_mul(2))
                    } else {
                        after
                    }
                    .min(at_most);
                    let at = self.now.saturating_add(delay);
                    self.schedule_timer(node, at, timer);
                }
                Command::Send { from, to, msg } => self.send(from, to, msg, step, notes),
            }
        }
        self.commands = commands;
        // Each asks a broker for fresh metadata: a Metadata request on the wire, whose answer
        // (`MetadataResponse`) updates what the client knows when it arrives. One at a time:
        // a client whose earlier request is still out waits for its answer, unless that has
        // taken longer than a request timeout (it was lost).
        for client in refresh {
            let now = self.now;
            let Some(st) = self.status.get(&client) else {
                continue;
            };
            if st.metadata_asked.is_some_and(|(_, _, at)| {
                now.saturating_sub(at) < crate::time::ms(METADATA_REQUEST_TIMEOUT_MS)
            }) {
                continue;
            }
            let Some(broker) = self.metadata_broker().map(|b| b.node()) else {
                continue;
            };
            let request_id = self.next_msg_id;
            if let Some(st) = self.status.get_mut(&client) {
                st.metadata_asked = Some((request_id, broker, now));
            }
            let waiting: Vec<crate::ids::Tp> =
                producer_of(&mut self.producers, &mut self.processors, client)
                    .map(|p| p.awaiting_leader())
                    .unwrap_or_default();
            let note = if leader_wait.contains(&client) && !waiting.is_empty() {
                Note::LeaderAwaited {
                    client,
                    broker,
                    tps: waiting,
                    backoff: crate::time::ms(crate::kafka::producer::LEADER_WAIT_MS),
                }
            } else {
                Note::MetadataRequested {
                    client,
                    broker,
                    again: metadata_failed.contains(&client),
                    find_coordinator: finding.contains(&client),
                }
            };
            self.ledger.observe(&note, step, now);
            notes.push(note);
            let msg = crate::kafka::protocol::Message::Metadata { request_id };
            self.send(client, broker, msg, step, notes);
        }
    }
}

/// The producer a client sends with: its own, or a read-process-write processor's output
/// client.
fn producer_of<'a>(
    producers: &'a mut [crate::kafka::producer::Producer],
    processors: &'a mut [crate::kafka::processor::Processor],
    node: NodeId,
) -> Option<&'a mut crate::kafka::producer::Producer> {
    match node {
        NodeId::Producer(i) => producers.get_mut(usize::from(i)),
        NodeId::Processor(i) => processors.get_mut(usize::from(i)).map(|p| &mut p.producer),
        _ => None,
    }
}
