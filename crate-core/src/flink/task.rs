//! A subtask at run time: its state, its alignment, and how it takes items from its inputs.

use super::channel::Channel;
use super::graph::{OperatorKind, SinkKind};
use super::job::{Job, JobPhase};
use super::kafka_sink::SinkState;
use super::record::{FRecord, Item};
use super::snapshot::{ChannelState, CheckpointOutcome, TaskSnapshot};
use super::source::SourceState;
use super::{CheckpointMode, FlinkTimer};
use crate::ids::NodeId;
use crate::sim::{Ctx, FlinkNote, Note, Timer};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Barrier alignment for one checkpoint at one task.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Alignment {
    pub id: u64,
    pub triggered_at: SimTime,
    pub first_at: SimTime,
    /// Input channels whose barrier has been taken.
    pub received: BTreeSet<usize>,
    /// Unaligned from the start, or switched after the aligned timeout.
    pub unaligned: bool,
    /// Unaligned: the snapshot is taken at the first barrier and completed when the last
    /// arrives (channels still recording their in-flight records until then).
    pub snapshot: Option<TaskSnapshot>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TaskRt {
    pub index: u8,
    #[serde(with = "crate::serde_pairs")]
    pub counts: BTreeMap<u32, u64>,
    pub source: Option<SourceState>,
    pub sink: Option<SinkState>,
    /// A Process timer is pending.
    pub scheduled: bool,
    /// Idle, its pending Process timer set for an item's arrival on its inputs, at this
    /// time: an item arriving sooner on another input wakes it sooner (Flink's input
    /// processors take whichever input has data). `None` while busy with an item.
    #[serde(default)]
    pub idle_until: Option<SimTime>,
    /// The number of the task's latest Process timer; an older one is void.
    #[serde(default)]
    pub wakes: u32,
    /// Waiting for room downstream.
    pub backpressured: bool,
    pub next_input: usize,
    pub round_robin: u64,
    pub align: Option<Alignment>,
    /// The highest checkpoint this task has snapshotted (older barriers are stale).
    pub last_snapshot: u64,
    /// Checkpoints above `last_snapshot` the JobManager has aborted (expired): their barriers,
    /// when they come, start no alignment and no snapshot (Flink's
    /// `SubtaskCheckpointCoordinatorImpl` keeps the aborted ids it is told of).
    #[serde(default)]
    pub aborted: Vec<u64>,
    /// A two-phase-commit sink has sealed its checkpoint's transaction and waits for the next
    /// one's producer before its snapshot is done (`continue_flush`).
    #[serde(default)]
    pub sealed: bool,
    /// Snapshots whose asynchronous part is still uploading.
    pub uploading: BTreeMap<u64, TaskSnapshot>,
    /// A two-phase-commit sink flushing before it can pre-commit checkpoint `id`, or an
    /// unaligned snapshot waiting for that pre-commit (see `sealing`).
    pub flushing: Option<TaskSnapshot>,
    /// Unaligned: a two-phase-commit sink flushing at checkpoint `id`'s first barrier, to
    /// pre-commit before it takes another record (Flink's `prepareSnapshotPreBarrier`).
    #[serde(default)]
    pub sealing: Option<u64>,
    /// Records this attempt has processed (Flink's task metrics start again at a restart).
    pub processed: u64,
    /// Records processed in all attempts: what a failover made the job do again shows as the
    /// difference.
    #[serde(default)]
    pub processed_all: u64,
    /// A source after the final barrier.
    pub finished: bool,
}

impl TaskRt {
    pub(super) fn count_processed(&mut self) {
        self.processed += 1;
        self.processed_all += 1;
    }
}

impl Job {
    pub(super) fn node(t: usize) -> NodeId {
        NodeId::Task(t as u8)
    }

    /// Whether checkpoint `id` is a stop's savepoint (the current one or one that failed):
    /// a savepoint is always aligned, with no timeout (Flink's `CheckpointOptions.forConfig`).
    pub(super) fn is_savepoint(&self, id: u64) -> bool {
        self.final_checkpoint == Some(id)
            || self
                .coordinator
                .history
                .iter()
                .any(|s| s.id == id && s.last)
    }

    /// Schedules the task's next Process step `after` from now (once).
    pub(super) fn wake(&mut self, t: usize, after: SimTime, ctx: &mut Ctx) {
        self.schedule(t, after, false, ctx);
    }

    /// Wakes task `t` when an item arrives on one of its inputs, `after` from now: sooner
    /// than it would wake for a later item, never while it is busy with one.
    pub(super) fn wake_for_arrival(&mut self, t: usize, after: SimTime, ctx: &mut Ctx) {
        self.schedule(t, after, true, ctx);
    }

    fn schedule(&mut self, t: usize, after: SimTime, arrival: bool, ctx: &mut Ctx) {
        let attempt = self.attempt;
        let Some(task) = self.tasks.get_mut(t) else {
            return;
        };
        let at = ctx.now.saturating_add(after);
        let sooner = task.idle_until.is_some_and(|idle| at < idle);
        if task.scheduled && !sooner {
            return;
        }
        task.scheduled = true;
        task.idle_until = arrival.then_some(at);
        task.wakes = task.wakes.wrapping_add(1);
        ctx.set_timer_for(
            Self::node(t),
            after,
            Timer::Flink(FlinkTimer::Process {
                attempt,
                wake: task.wakes,
            }),
        );
    }

    /// Task `t`'s input channels that carry barriers: an iteration's loop edge is its
    /// `feedback`, never among its `inputs`.
    pub fn regular_inputs(&self, t: usize) -> Vec<usize> {
        self.topology
            .tasks
            .get(t)
            .map(|d| d.inputs.clone())
            .unwrap_or_default()
    }

    /// The subtask at the sending end of channel `c`.
    fn upstream_of(&self, c: usize) -> NodeId {
        Self::node(
            self.topology
                .channels
                .get(c)
                .map_or(0, |ch| usize::from(ch.from)),
        )
    }

    /// The task sends downstream (not a sink).
    fn has_outputs(&self, t: usize) -> bool {
        self.topology
            .tasks
            .get(t)
            .is_some_and(|d| d.outputs.iter().any(|g| !g.channels.is_empty()))
    }

    pub(super) fn outputs_have_room(&self, t: usize) -> bool {
        let Some(def) = self.topology.tasks.get(t) else {
            return false;
        };
        def.outputs.iter().all(|g| {
            g.channels
                .iter()
                .all(|&c| self.channels.get(c).is_some_and(Channel::has_room))
        }) && def
            .feedback
            .is_none_or(|c| self.channels.get(c).is_some_and(Channel::has_room))
    }

    /// Sends a record downstream (one channel per output group).
    pub(super) fn emit(&mut self, t: usize, r: FRecord, delay: SimTime, ctx: &mut Ctx) {
        let Some(def) = self.topology.tasks.get(t) else {
            return;
        };
        let at = ctx.now + delay + self.config.channel_latency;
        let mut targets = Vec::new();
        let mut rr = self.tasks.get(t).map_or(0, |x| x.round_robin);
        for g in &def.outputs {
            targets.push(super::graph::route(g, r.key, r.id.0, &mut rr));
        }
        if let Some(task) = self.tasks.get_mut(t) {
            task.round_robin = rr;
        }
        for c in targets {
            self.push_record(c, at, r, ctx);
        }
    }

    pub(super) fn push_record(&mut self, c: usize, at: SimTime, r: FRecord, ctx: &mut Ctx) {
        let Some(ch) = self.channels.get_mut(c) else {
            return;
        };
        ch.push_record(at, r);
        let to = usize::from(self.topology.channels[c].to);
        self.wake_for_arrival(to, at.saturating_sub(ctx.now), ctx);
    }

    /// One Process step of a non-source task.
    pub(super) fn process(&mut self, t: usize, ctx: &mut Ctx) -> bool {
        if let Some(task) = self.tasks.get_mut(t) {
            task.scheduled = false;
            task.idle_until = None;
        }
        if self.phase != JobPhase::Running {
            return false;
        }
        if self.tasks.get(t).is_some_and(|x| x.source.is_some()) {
            return self.source_step(t, ctx);
        }
        if self
            .tasks
            .get(t)
            .is_some_and(|x| x.flushing.is_some() || x.sealing.is_some())
        {
            return self.continue_flush(t, ctx);
        }
        // A two-phase-commit sink getting its transaction's producer (initTransactions) is
        // blocked in it, in the task thread: it takes no record and no barrier until the
        // coordinator answers (the answer wakes it).
        if self.sink_initializing(t) {
            return false;
        }
        if self.take_overtaking_barrier(t, ctx) {
            self.wake(t, 0, ctx);
            return true;
        }
        if !self.outputs_have_room(t) {
            if let Some(task) = self.tasks.get_mut(t) {
                task.backpressured = true;
            }
            return false;
        }
        let Some(def) = self.topology.tasks.get(t) else {
            return false;
        };
        let mut inputs = def.inputs.clone();
        if let Some(fb) = def.feedback {
            inputs.push(fb);
        }
        let n = inputs.len();
        let start = self.tasks[t].next_input;
        let mut chosen = None;
        let mut next_arrival: Option<SimTime> = None;
        for k in 0..n {
            let c = inputs[(start + k) % n];
            let ch = &self.channels[c];
            if ch.blocked {
                continue;
            }
            if ch.ready(ctx.now).is_some() {
                chosen = Some((c, (start + k + 1) % n));
                break;
            }
            if let Some(a) = ch.next_arrival(ctx.now) {
                next_arrival = Some(next_arrival.map_or(a, |x: SimTime| x.min(a)));
            }
        }
        let Some((c, next)) = chosen else {
            if let Some(a) = next_arrival {
                self.wake_for_arrival(t, a - ctx.now, ctx);
            }
            return false;
        };
        self.tasks[t].next_input = next;
        let Some(slot) = self.channels[c].pop() else {
            return false;
        };
        let from = usize::from(self.topology.channels[c].from);
        if self.tasks.get(from).is_some_and(|x| x.backpressured) {
            self.tasks[from].backpressured = false;
            self.wake(from, 0, ctx);
        }
        match slot.item {
            Item::Record(r) => {
                self.record_in_flight(t, c, r);
                let loop_edge = self.topology.channels[c].loop_edge;
                let delay = self.apply(t, r, loop_edge, ctx);
                self.wake(t, delay, ctx);
            }
            Item::Barrier { id, triggered_at } => {
                self.on_barrier(t, c, id, triggered_at, ctx);
                self.wake(t, 0, ctx);
            }
        }
        true
    }

    /// Unaligned: a record taken from a channel whose barrier has not arrived yet belongs to
    /// the checkpoint as channel state.
    fn record_in_flight(&mut self, t: usize, c: usize, r: FRecord) {
        if self.topology.channels[c].loop_edge {
            return;
        }
        let Some(a) = self.tasks[t].align.as_mut() else {
            return;
        };
        if a.received.contains(&c) {
            return;
        }
        if let Some(snap) = a.snapshot.as_mut() {
            push_channel_state(snap, c, true, vec![r]);
        }
    }

    /// Runs the operator on one record; returns the processing time.
    fn apply(&mut self, t: usize, mut r: FRecord, from_loop: bool, ctx: &mut Ctx) -> SimTime {
        let op = self.topology.tasks[t].operator;
        let processing = self.operators[op].processing;
        let kind = self.operators[op].kind.clone();
        self.tasks[t].count_processed();
        let node = Self::node(t);
        match kind {
            OperatorKind::Source { .. } => {}
            OperatorKind::Map => {
                ctx.note(Note::Flink(FlinkNote::Processed {
                    task: node,
                    record: r.id,
                    count: None,
                }));
                self.emit(t, r, processing, ctx);
            }
            OperatorKind::Count => {
                let key = r.key.unwrap_or(r.id.0);
                let c = self.tasks[t].counts.entry(key).or_insert(0);
                *c += 1;
                r.count = *c;
                ctx.note(Note::Flink(FlinkNote::Processed {
                    task: node,
                    record: r.id,
                    count: Some(r.count),
                }));
                self.ledger_count(r.id);
                self.emit(t, r, processing, ctx);
            }
            OperatorKind::Iterate { passes } => {
                if !from_loop {
                    r.passes = passes;
                }
                if r.passes > 0 {
                    r.passes -= 1;
                    ctx.note(Note::Flink(FlinkNote::Looped {
                        task: node,
                        record: r.id,
                        passes_left: r.passes,
                    }));
                    if let Some(fb) = self.topology.tasks[t].feedback {
                        let at = ctx.now + processing + self.config.channel_latency;
                        self.push_record(fb, at, r, ctx);
                    }
                } else {
                    ctx.note(Note::Flink(FlinkNote::Processed {
                        task: node,
                        record: r.id,
                        count: None,
                    }));
                    self.emit(t, r, processing, ctx);
                }
            }
            OperatorKind::Sink(SinkKind::Upsert) => {
                self.external.upsert(&r);
                ctx.note(Note::Flink(FlinkNote::SinkWrote {
                    task: node,
                    record: r.id,
                    how: "upsert".into(),
                    to: None,
                }));
            }
            OperatorKind::Sink(SinkKind::Append) => {
                self.external.append(&r);
                ctx.note(Note::Flink(FlinkNote::SinkWrote {
                    task: node,
                    record: r.id,
                    how: "append".into(),
                    to: None,
                }));
            }
            OperatorKind::Sink(SinkKind::KafkaTwoPhase { .. }) => {
                self.sink_invoke(t, r, ctx);
            }
        }
        processing
    }

    fn ledger_count(&mut self, id: crate::ids::RecordId) {
        *self.counted.entry(id).or_insert(0) += 1;
    }

    /// A barrier reached the head of channel `c` (aligned and at-least-once checkpoints).
    fn on_barrier(&mut self, t: usize, c: usize, id: u64, triggered_at: SimTime, ctx: &mut Ctx) {
        if id <= self.tasks[t].last_snapshot || self.tasks[t].aborted.contains(&id) {
            return;
        }
        self.start_alignment(t, id, triggered_at, ctx);
        let inputs = self.regular_inputs(t);
        let exactly_once = self.config.mode == CheckpointMode::ExactlyOnce;
        let Some(a) = self.tasks[t].align.as_mut() else {
            return;
        };
        if a.id != id {
            return;
        }
        a.received.insert(c);
        let all = inputs.iter().all(|i| a.received.contains(i));
        let node = Self::node(t);
        if all {
            self.snapshot_now(t, id, ctx);
            self.finish_alignment(t, ctx);
            return;
        }
        let arrived = a.received.len() as u32;
        if exactly_once {
            self.channels[c].blocked = true;
        }
        ctx.note(Note::Flink(FlinkNote::BarrierReceived {
            task: node,
            id,
            blocked: exactly_once,
            overtook: false,
            from: Some(self.upstream_of(c)),
            arrived,
            channels: inputs.len() as u32,
        }));
    }

    /// Starts aligning for checkpoint `id`, abandoning an older alignment.
    fn start_alignment(&mut self, t: usize, id: u64, triggered_at: SimTime, ctx: &mut Ctx) {
        match &self.tasks[t].align {
            Some(a) if a.id >= id => return,
            Some(_) => self.abandon_alignment(t),
            None => {}
        }
        let unaligned = self.config.unaligned && !self.is_savepoint(id);
        // Counted while the checkpoint runs: an expired one's late barriers tell nothing.
        if let Some(s) = self
            .coordinator
            .stat_mut(id)
            .filter(|s| s.outcome == CheckpointOutcome::Pending)
        {
            s.start_delay = s.start_delay.max(ctx.now.saturating_sub(s.triggered_at));
            s.barriers_awaited = s.barriers_awaited.saturating_sub(1);
        }
        self.tasks[t].align = Some(Alignment {
            id,
            triggered_at,
            first_at: ctx.now,
            received: BTreeSet::new(),
            unaligned,
            snapshot: None,
        });
        if let (Some(timeout), false) = (self.config.aligned_timeout, unaligned) {
            if self.regular_inputs(t).len() > 1 {
                let due = triggered_at.saturating_add(timeout);
                let attempt = self.attempt;
                ctx.set_timer_for(
                    Self::node(t),
                    due.saturating_sub(ctx.now),
                    Timer::Flink(FlinkTimer::AlignmentTimeout { attempt, id }),
                );
            }
        }
    }

    pub(super) fn abandon_alignment(&mut self, t: usize) {
        if self.tasks[t].align.take().is_some() {
            for c in self.regular_inputs(t) {
                if let Some(ch) = self.channels.get_mut(c) {
                    ch.blocked = false;
                }
            }
        }
    }

    /// Aligned checkpoint `id` took longer than the aligned-checkpoint timeout: switch to
    /// unaligned for it (the snapshot is taken now; the barriers still on their way will
    /// overtake the records ahead of them).
    pub(super) fn alignment_timeout(&mut self, t: usize, id: u64, ctx: &mut Ctx) -> bool {
        let Some(a) = self.tasks[t].align.as_mut() else {
            return false;
        };
        if a.id != id || a.unaligned {
            return false;
        }
        a.unaligned = true;
        ctx.note(Note::Flink(FlinkNote::SwitchedToUnaligned {
            task: Self::node(t),
            id,
        }));
        for c in self.regular_inputs(t) {
            self.channels[c].blocked = false;
        }
        self.take_unaligned_snapshot(t, id, ctx);
        self.wake(t, 0, ctx);
        true
    }

    /// Unaligned: takes the first arrived barrier out of the input buffers, overtaking the
    /// records ahead of it (they are stored as channel state and still processed).
    fn take_overtaking_barrier(&mut self, t: usize, ctx: &mut Ctx) -> bool {
        let unaligned_now = self.config.unaligned && self.config.unaligned_allowed()
            || self.tasks[t].align.as_ref().is_some_and(|a| a.unaligned);
        // Aligned with a timeout: a barrier that has waited in the buffers longer than the
        // timeout since its checkpoint started becomes a priority event and overtakes.
        let timeout = self
            .config
            .aligned_timeout
            .filter(|_| self.config.unaligned_allowed());
        if !unaligned_now && timeout.is_none() {
            return false;
        }
        let timed_out = |triggered_at: SimTime| {
            timeout.is_some_and(|to| triggered_at.saturating_add(to) <= ctx.now)
        };
        let last = self.tasks[t].last_snapshot;
        let current = self.tasks[t].align.as_ref().map(|a| a.id);
        for c in self.regular_inputs(t) {
            let ch = &self.channels[c];
            let found = ch
                .queue
                .iter()
                .enumerate()
                .find_map(|(pos, s)| match s.item {
                    Item::Barrier { id, triggered_at }
                        if s.at <= ctx.now
                            && (unaligned_now || timed_out(triggered_at))
                            && !self.is_savepoint(id)
                            && !self.tasks[t].aborted.contains(&id)
                            && (id > last || current == Some(id))
                            && !self.tasks[t]
                                .align
                                .as_ref()
                                .is_some_and(|a| a.id == id && a.received.contains(&c)) =>
                    {
                        Some((pos, id, triggered_at))
                    }
                    _ => None,
                });
            let Some((pos, id, triggered_at)) = found else {
                continue;
            };
            let ahead = self.channels[c].take_barrier_at(pos);
            if current.is_some_and(|cur| cur > id) {
                // A barrier of an abandoned checkpoint.
                return true;
            }
            self.start_alignment(t, id, triggered_at, ctx);
            if let Some(a) = self.tasks[t].align.as_mut() {
                if !a.unaligned {
                    ctx.note(Note::Flink(FlinkNote::SwitchedToUnaligned {
                        task: Self::node(t),
                        id,
                    }));
                }
                a.unaligned = true;
            }
            // Said after a switch to unaligned, before the snapshot it causes. It overtook
            // the records still queued in the channel (its sender put it ahead of them) or
            // ahead of it here; with none, there is no channel state to speak of.
            let overtook = !ahead.is_empty() || self.channels[c].holds_records();
            let arrived = self.tasks[t].align.as_ref().map_or(0, |a| {
                a.received.len() as u32 + u32::from(!a.received.contains(&c))
            });
            ctx.note(Note::Flink(FlinkNote::BarrierReceived {
                task: Self::node(t),
                id,
                blocked: false,
                overtook,
                from: Some(self.upstream_of(c)),
                arrived,
                channels: self.regular_inputs(t).len() as u32,
            }));
            if self.tasks[t]
                .align
                .as_ref()
                .is_some_and(|a| a.snapshot.is_none())
            {
                self.take_unaligned_snapshot(t, id, ctx);
            }
            let inputs = self.regular_inputs(t);
            let Some(a) = self.tasks[t].align.as_mut() else {
                return true;
            };
            a.received.insert(c);
            if let Some(snap) = a.snapshot.as_mut() {
                push_channel_state(snap, c, true, ahead);
            }
            if inputs.iter().all(|i| a.received.contains(i)) {
                let snap = a.snapshot.take();
                self.tasks[t].align = None;
                if let Some(snap) = snap {
                    if self.tasks[t].sink.is_some() {
                        // Pre-committed at the first barrier, or still flushing for it.
                        self.tasks[t].flushing = Some(snap);
                        self.continue_flush(t, ctx);
                    } else {
                        self.upload(t, snap, ctx);
                    }
                }
            }
            return true;
        }
        false
    }

    /// The synchronous part of an unaligned snapshot: state now, barrier forwarded ahead of
    /// everything in the output buffers.
    fn take_unaligned_snapshot(&mut self, t: usize, id: u64, ctx: &mut Ctx) {
        let mut snap = self.capture(t, id, ctx.now);
        snap.unaligned = true;
        let triggered_at = self.tasks[t]
            .align
            .as_ref()
            .map_or(ctx.now, |a| a.triggered_at);
        let overtake = !self.is_savepoint(id);
        self.forward_barrier(t, id, triggered_at, overtake, &mut snap, ctx);
        ctx.note(Note::Flink(FlinkNote::SnapshotTaken {
            task: Self::node(t),
            id,
            unaligned: true,
            alignment: snap.alignment,
            tracked: false,
            forwarded: self.has_outputs(t),
        }));
        self.tasks[t].last_snapshot = id;
        if let Some(a) = self.tasks[t].align.as_mut() {
            a.snapshot = Some(snap);
        }
        // A two-phase-commit sink pre-commits now, before it takes another record: those
        // belong to the next checkpoint (the ones still ahead of a barrier are in this one's
        // channel state, and a restore replays them).
        if self.tasks[t].sink.is_some() {
            self.tasks[t].sealing = Some(id);
            self.continue_flush(t, ctx);
        }
    }

    /// All barriers of an aligned (or at-least-once) checkpoint are in: snapshot, forward,
    /// acknowledge after the upload. A two-phase-commit sink flushes first (preCommit).
    fn snapshot_now(&mut self, t: usize, id: u64, ctx: &mut Ctx) {
        let snap = self.capture(t, id, ctx.now);
        self.tasks[t].last_snapshot = id;
        if self.tasks[t].sink.is_some() {
            self.tasks[t].flushing = Some(snap);
            self.continue_flush(t, ctx);
            return;
        }
        self.complete_snapshot(t, snap, ctx);
    }

    pub(super) fn complete_snapshot(&mut self, t: usize, mut snap: TaskSnapshot, ctx: &mut Ctx) {
        let id = snap.checkpoint;
        let triggered_at = self.tasks[t]
            .align
            .as_ref()
            .map_or(ctx.now, |a| a.triggered_at);
        self.forward_barrier(t, id, triggered_at, false, &mut snap, ctx);
        ctx.note(Note::Flink(FlinkNote::SnapshotTaken {
            task: Self::node(t),
            id,
            unaligned: false,
            alignment: snap.alignment,
            tracked: self.config.mode == CheckpointMode::AtLeastOnce,
            forwarded: self.has_outputs(t),
        }));
        self.upload(t, snap, ctx);
    }

    fn finish_alignment(&mut self, t: usize, _ctx: &mut Ctx) {
        self.tasks[t].align = None;
        for c in self.regular_inputs(t) {
            self.channels[c].blocked = false;
        }
    }

    /// The state a snapshot holds (the synchronous phase).
    pub(super) fn capture(&self, t: usize, id: u64, now: SimTime) -> TaskSnapshot {
        let task = &self.tasks[t];
        let def = &self.topology.tasks[t];
        TaskSnapshot {
            task: t as u8,
            counts: task.counts.clone(),
            positions: task
                .source
                .as_ref()
                .map(|s| s.positions.clone())
                .unwrap_or_default(),
            pending: Vec::new(),
            channel_state: Vec::new(),
            consumed: def
                .inputs
                .iter()
                .map(|&c| (c, self.channels[c].popped))
                .collect(),
            sent_before_barrier: Vec::new(),
            unaligned: false,
            alignment: task
                .align
                .as_ref()
                .map_or(0, |a| now.saturating_sub(a.first_at)),
            taken_at: now,
            checkpoint: id,
            loop_in_flight: def
                .feedback
                .and_then(|c| self.channels.get(c))
                .map(|c| c.record_ids())
                .unwrap_or_default(),
        }
    }

    /// Sends barrier `id` into every output channel (not the loop edge).
    pub(super) fn forward_barrier(
        &mut self,
        t: usize,
        id: u64,
        triggered_at: SimTime,
        overtake: bool,
        snap: &mut TaskSnapshot,
        ctx: &mut Ctx,
    ) {
        let Some(def) = self.topology.tasks.get(t) else {
            return;
        };
        let channels: Vec<usize> = def
            .outputs
            .iter()
            .flat_map(|g| g.channels.iter().copied())
            .collect();
        let at = ctx.now + self.config.channel_latency;
        for c in channels {
            let item = Item::Barrier { id, triggered_at };
            let sent = self.channels[c].pushed;
            let overtaken = self.channels[c].push_barrier(at, item, overtake);
            snap.sent_before_barrier.push((c, sent));
            if !overtaken.is_empty() {
                push_channel_state(snap, c, false, overtaken);
            }
            let to = usize::from(self.topology.channels[c].to);
            let arrive = if overtake { ctx.now } else { at };
            self.wake_for_arrival(to, arrive.saturating_sub(ctx.now), ctx);
        }
    }

    /// The asynchronous phase, then the acknowledgement.
    pub(super) fn upload(&mut self, t: usize, snap: TaskSnapshot, ctx: &mut Ctx) {
        let id = snap.checkpoint;
        let attempt = self.attempt;
        self.tasks[t].uploading.insert(id, snap);
        ctx.set_timer_for(
            Self::node(t),
            self.config.upload_time,
            Timer::Flink(FlinkTimer::Uploaded { attempt, id }),
        );
    }

    pub(super) fn uploaded(&mut self, t: usize, id: u64, ctx: &mut Ctx) -> bool {
        let Some(snap) = self.tasks[t].uploading.remove(&id) else {
            return false;
        };
        ctx.send_as(
            Self::node(t),
            NodeId::JobManager,
            crate::kafka::protocol::Message::Flink(super::rpc::Rpc::Ack {
                id,
                attempt: self.attempt,
                task: t as u8,
                snapshot: Box::new(snap),
            }),
        );
        true
    }
}

pub(super) fn push_channel_state(
    snap: &mut TaskSnapshot,
    channel: usize,
    input_side: bool,
    records: Vec<FRecord>,
) {
    if records.is_empty() {
        return;
    }
    if let Some(cs) = snap
        .channel_state
        .iter_mut()
        .find(|cs| cs.channel == channel && cs.input_side == input_side)
    {
        cs.records.extend(records);
    } else {
        snap.channel_state.push(ChannelState {
            channel,
            input_side,
            records,
        });
    }
}
