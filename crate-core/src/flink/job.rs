//! The job: its graph, its subtasks and channels, the checkpoint coordinator, and the
//! dispatch of timers and messages to them. The engine calls in through `on_timer`,
//! `on_message` and `task_crashed`.

use super::channel::Channel;
use super::coordinator::CheckpointCoordinator;
use super::external::ExternalStore;
use super::graph::{expand, OperatorDef, OperatorKind, Topology};
use super::kafka_sink::SinkState;
use super::rpc::Rpc;
use super::source::SourceState;
use super::task::TaskRt;
use super::{FlinkConfig, FlinkTimer};
use crate::ids::{NodeId, RecordId, Tp};
use crate::kafka::protocol::Message;
use crate::sim::{Ctx, FlinkNote, Note, Timer};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobPhase {
    Running,
    /// Failed over; waiting for the restart delay.
    Restarting,
    /// Stopped with a final checkpoint.
    Finished,
    /// Cancelled without a savepoint, after the stop's savepoints kept failing.
    Cancelled,
}

/// A restore, for the invariants: when, and from which checkpoint (`None`: from scratch).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Restore {
    pub at: SimTime,
    pub checkpoint: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Job {
    pub name: String,
    pub config: FlinkConfig,
    pub operators: Vec<OperatorDef>,
    pub topology: Topology,
    pub channels: Vec<Channel>,
    pub tasks: Vec<TaskRt>,
    pub coordinator: CheckpointCoordinator,
    pub external: ExternalStore,
    pub phase: JobPhase,
    /// Bumped at every failover: timers and messages of an older attempt are void.
    pub attempt: u32,
    pub failovers: u32,
    pub restores: Vec<Restore>,
    /// The restart strategy's backoff between failures (and when the job failed over last).
    #[serde(default)]
    pub backoff: super::restart::Backoff,
    /// Input records read by a source, with repeats (replays).
    #[serde(with = "crate::serde_pairs")]
    pub read: BTreeMap<RecordId, u32>,
    /// Input records counted into keyed state, with repeats.
    #[serde(with = "crate::serde_pairs")]
    pub counted: BTreeMap<RecordId, u32>,
    #[serde(with = "crate::serde_pairs")]
    pub leaders: crate::vec_map::VecMap<Tp, u8>,
    pub brokers: u8,
    /// The stop-with-savepoint checkpoint: its barriers never overtake (every record is
    /// processed before the job finishes).
    pub final_checkpoint: Option<u64>,
    pub(super) next_request_id: u64,
    /// Transaction coordination moved from a fenced broker (from → to): a sink's request
    /// sent again after a timeout goes where its client would find the coordinator now
    /// (FindCoordinator).
    #[serde(default, with = "crate::serde_pairs")]
    pub coordinator_moves: crate::vec_map::VecMap<u8, u8>,
}

impl Job {
    pub fn new(
        name: String,
        config: FlinkConfig,
        operators: Vec<OperatorDef>,
        leaders: crate::vec_map::VecMap<Tp, u8>,
        brokers: u8,
    ) -> Self {
        let topology = expand(&operators);
        let channels = topology
            .channels
            .iter()
            .map(|_| Channel::new(config.channel_capacity))
            .collect();
        let tasks = topology
            .tasks
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let op = &operators[d.operator];
                let source = match &op.kind {
                    OperatorKind::Source { partitions } => {
                        let par = u16::from(op.parallelism.max(1));
                        let mine: Vec<Tp> = partitions
                            .iter()
                            .copied()
                            .filter(|tp| tp.partition % par == u16::from(d.subtask))
                            .collect();
                        Some(SourceState::new(mine, &leaders))
                    }
                    _ => None,
                };
                let sink = match &op.kind {
                    OperatorKind::Sink(kind) => SinkState::new(kind, d.subtask),
                    _ => None,
                };
                TaskRt {
                    index: i as u8,
                    source,
                    sink,
                    ..Default::default()
                }
            })
            .collect();
        Job {
            name,
            config,
            operators,
            topology,
            channels,
            tasks,
            coordinator: CheckpointCoordinator::new(),
            external: ExternalStore::default(),
            phase: JobPhase::Running,
            attempt: 0,
            failovers: 0,
            restores: Vec::new(),
            backoff: Default::default(),
            read: BTreeMap::new(),
            counted: BTreeMap::new(),
            leaders,
            brokers,
            final_checkpoint: None,
            next_request_id: 0,
            coordinator_moves: crate::vec_map::VecMap::new(),
        }
    }

    /// Display names of the subtasks: `{operator}-{subtask}`.
    pub fn task_names(&self) -> Vec<String> {
        self.topology
            .tasks
            .iter()
            .map(|d| format!("{}-{}", self.operators[d.operator].name, d.subtask))
            .collect()
    }

    /// The first timers: the JobManager starts the job; sources start polling.
    pub fn start(&mut self, ctx_for: &mut dyn FnMut(NodeId, SimTime, Timer)) {
        ctx_for(
            NodeId::JobManager,
            self.config.interval,
            Timer::Flink(FlinkTimer::Trigger { attempt: 0 }),
        );
        ctx_for(
            NodeId::JobManager,
            self.config.stop_at,
            Timer::Flink(FlinkTimer::Stop),
        );
        for t in 0..self.tasks.len() {
            if self.tasks[t].source.is_some() {
                ctx_for(
                    Self::node(t),
                    0,
                    Timer::Flink(FlinkTimer::Poll { attempt: 0 }),
                );
            }
            if self.tasks[t].sink.is_some() {
                ctx_for(
                    Self::node(t),
                    0,
                    Timer::Flink(FlinkTimer::SinkRetry { attempt: 0 }),
                );
            }
        }
    }

    pub fn on_timer(&mut self, node: NodeId, timer: &FlinkTimer, ctx: &mut Ctx) -> bool {
        match (node, timer) {
            (NodeId::JobManager, FlinkTimer::Trigger { attempt }) => {
                self.on_trigger_timer(*attempt, ctx)
            }
            (NodeId::JobManager, FlinkTimer::Expire { id }) => self.on_expire(*id, ctx),
            (NodeId::JobManager, FlinkTimer::Restart { attempt }) => self.restart(*attempt, ctx),
            (NodeId::JobManager, FlinkTimer::Stop) => self.on_stop(ctx),
            (NodeId::Task(i), FlinkTimer::CloseWriter { attempt }) => {
                *attempt == self.attempt && self.close_writer(usize::from(i), ctx)
            }
            (NodeId::Task(i), t) => {
                let t_index = usize::from(i);
                if t_index >= self.tasks.len() || self.phase == JobPhase::Restarting {
                    return false;
                }
                match t {
                    FlinkTimer::Process { attempt, wake }
                        if *attempt == self.attempt && *wake == self.tasks[t_index].wakes =>
                    {
                        self.process(t_index, ctx)
                    }
                    FlinkTimer::Poll { attempt } if *attempt == self.attempt => {
                        self.source_poll(t_index, ctx)
                    }
                    FlinkTimer::Uploaded { attempt, id } if *attempt == self.attempt => {
                        self.uploaded(t_index, *id, ctx)
                    }
                    FlinkTimer::AlignmentTimeout { attempt, id } if *attempt == self.attempt => {
                        self.alignment_timeout(t_index, *id, ctx)
                    }
                    FlinkTimer::SinkInitTimeout { attempt, request }
                        if *attempt == self.attempt =>
                    {
                        self.sink_init_timeout(t_index, *request, ctx)
                    }
                    FlinkTimer::SinkRetry { attempt } if *attempt == self.attempt => {
                        if self.tasks[t_index]
                            .sink
                            .as_ref()
                            .is_some_and(|s| s.current.is_none() && s.next_number == 1)
                        {
                            // The sink's first transaction.
                            self.sink_begin(t_index, 1, ctx);
                            return true;
                        }
                        self.sink_retry(t_index, ctx)
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }

    pub fn on_message(&mut self, node: NodeId, msg: &Message, ctx: &mut Ctx) -> bool {
        match (node, msg) {
            (
                NodeId::JobManager,
                Message::Flink(Rpc::Ack {
                    id,
                    attempt,
                    task,
                    snapshot,
                }),
            ) => self.on_ack(*id, *attempt, *task, snapshot, ctx),
            (NodeId::Task(i), msg) => {
                let t = usize::from(i);
                if t >= self.tasks.len() || self.phase == JobPhase::Restarting {
                    return false;
                }
                match msg {
                    Message::Flink(Rpc::Trigger { id, attempt, last }) => {
                        *attempt == self.attempt
                            && self.phase == JobPhase::Running
                            && self.source_trigger(t, *id, *last, ctx)
                    }
                    Message::Flink(Rpc::Notify { id, attempt }) => {
                        if *attempt != self.attempt {
                            return false;
                        }
                        ctx.note(Note::Flink(FlinkNote::NotifyReceived {
                            task: NodeId::Task(i),
                            id: *id,
                        }));
                        self.sink_notify(t, *id, ctx);
                        true
                    }
                    Message::Flink(Rpc::Abort { id, attempt }) => {
                        if *attempt != self.attempt {
                            return false;
                        }
                        // Remembered, so that its barriers, if they are still on their way,
                        // start nothing.
                        let task = &mut self.tasks[t];
                        let last = task.last_snapshot;
                        task.aborted.retain(|a| *a > last);
                        let remembered = *id > last && !task.aborted.contains(id);
                        if remembered {
                            task.aborted.push(*id);
                        }
                        if self.tasks[t].align.as_ref().is_none_or(|a| a.id != *id) {
                            return remembered;
                        }
                        self.abandon_alignment(t);
                        self.wake(t, 0, ctx);
                        true
                    }
                    Message::FetchResponse {
                        request_id,
                        tp,
                        result,
                    } => self.source_fetched(t, *request_id, *tp, result, ctx),
                    other => self.sink_message(t, other, ctx),
                }
            }
            _ => false,
        }
    }

    /// A subtask's process died: the JobManager fails the job over.
    pub fn task_crashed(&mut self, node: NodeId, ctx: &mut Ctx) {
        let name = match node {
            NodeId::Task(i) => self
                .task_names()
                .get(usize::from(i))
                .cloned()
                .unwrap_or_else(|| node.to_string()),
            _ => node.to_string(),
        };
        self.fail(format!("{name} crashed"), ctx);
    }

    /// Keyed state summed over every subtask.
    pub fn state(&self) -> BTreeMap<u32, u64> {
        let mut m = BTreeMap::new();
        for t in &self.tasks {
            for (k, v) in &t.counts {
                *m.entry(*k).or_insert(0) += v;
            }
        }
        m
    }

    /// Records waiting in channels (the UI's "in flight" inside the job).
    pub fn in_channels(&self) -> usize {
        self.channels.iter().map(Channel::records).sum()
    }
}
