//! The checkpoint coordinator in the JobManager: periodic triggers within the limits
//! (max concurrent, min pause, timeout, tolerable failures), acknowledgements, completion
//! and `notifyCheckpointComplete`, expiry. SEMANTICS §4, invariants 17–18.

use super::job::{Job, JobPhase};
use super::rpc::Rpc;
use super::snapshot::{CheckpointOutcome, CheckpointStat, CompletedCheckpoint, TaskSnapshot};
use super::FlinkTimer;
use crate::ids::NodeId;
use crate::kafka::protocol::Message;
use crate::sim::{Ctx, FlinkNote, Note, Timer};
use crate::time::SimTime;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};

/// How many completed checkpoints are kept for inspection (the latest is what restores).
pub const KEEP_COMPLETED: usize = 32;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PendingCheckpoint {
    pub triggered_at: SimTime,
    #[serde(with = "crate::serde_pairs")]
    pub acks: VecMap<u8, TaskSnapshot>,
    pub last: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CheckpointCoordinator {
    pub next_id: u64,
    pub pending: VecMap<u64, PendingCheckpoint>,
    /// Completed checkpoints, oldest first (the last is the one a restart restores).
    pub completed: Vec<CompletedCheckpoint>,
    pub history: Vec<CheckpointStat>,
    pub consecutive_failures: u32,
    pub last_completed_at: Option<SimTime>,
    pub stop_requested: bool,
    /// The most periodic checkpoints ever pending at once (a savepoint is not counted: it
    /// does not wait for the limit).
    pub max_pending_seen: u32,
    /// Stop savepoints that expired: the run tries the stop `STOP_ATTEMPTS` times at most.
    #[serde(default)]
    pub failed_stops: u32,
    /// A periodic trigger came while `max_concurrent` checkpoints were pending: it waits in
    /// the queue and runs as soon as one of them ends (Flink's `CheckpointRequestDecider`),
    /// not at the next interval.
    #[serde(default)]
    pub queued: bool,
}

/// How many times the run tries to stop the job with a savepoint (an operator retrying a
/// failed stop-with-savepoint) before it cancels the job.
pub const STOP_ATTEMPTS: u32 = 3;

impl CheckpointCoordinator {
    pub fn new() -> Self {
        CheckpointCoordinator {
            next_id: 1,
            ..Default::default()
        }
    }

    pub fn latest(&self) -> Option<&CompletedCheckpoint> {
        self.completed.last()
    }

    pub(super) fn stat_mut(&mut self, id: u64) -> Option<&mut CheckpointStat> {
        self.history.iter_mut().rev().find(|s| s.id == id)
    }

    pub fn has_final_pending(&self) -> bool {
        self.pending.values().any(|p| p.last)
    }
}

impl Job {
    fn jm_send_all(&self, rpc: Rpc, ctx: &mut Ctx) {
        for t in 0..self.tasks.len() {
            ctx.send_as(
                NodeId::JobManager,
                Self::node(t),
                Message::Flink(rpc.clone()),
            );
        }
    }

    pub(super) fn on_trigger_timer(&mut self, attempt: u32, ctx: &mut Ctx) -> bool {
        if attempt != self.attempt
            || self.phase != JobPhase::Running
            || self.coordinator.stop_requested
        {
            return false;
        }
        let cc = &self.coordinator;
        let too_many = cc.pending.len() as u32 >= self.config.max_concurrent.max(1);
        let pause_until = cc
            .last_completed_at
            .map_or(0, |t| t.saturating_add(self.config.min_pause));
        if too_many {
            self.coordinator.queued = true;
        }
        if too_many || ctx.now < pause_until {
            // Try again once the pause is over or at the next interval (a queued request
            // runs earlier, when a pending checkpoint ends: `run_queued`).
            let next = if ctx.now < pause_until {
                pause_until - ctx.now
            } else {
                self.config.interval
            };
            ctx.set_timer_for(
                NodeId::JobManager,
                next,
                Timer::Flink(FlinkTimer::Trigger { attempt }),
            );
            return false;
        }
        self.coordinator.queued = false;
        self.trigger(false, ctx);
        ctx.set_timer_for(
            NodeId::JobManager,
            self.config.interval,
            Timer::Flink(FlinkTimer::Trigger { attempt }),
        );
        true
    }

    /// A pending checkpoint ended: a periodic request queued behind it runs now, if the
    /// minimum pause allows (else the periodic trigger, moved to the pause's end, takes it).
    fn run_queued(&mut self, ctx: &mut Ctx) {
        let cc = &self.coordinator;
        let pause_until = cc
            .last_completed_at
            .map_or(0, |t| t.saturating_add(self.config.min_pause));
        if cc.queued
            && self.phase == JobPhase::Running
            && !cc.stop_requested
            && (cc.pending.len() as u32) < self.config.max_concurrent.max(1)
            && ctx.now >= pause_until
        {
            self.coordinator.queued = false;
            self.trigger(false, ctx);
        }
    }

    pub(super) fn trigger(&mut self, last: bool, ctx: &mut Ctx) {
        let id = self.coordinator.next_id;
        self.coordinator.next_id += 1;
        if last {
            self.final_checkpoint = Some(id);
        }
        self.coordinator.pending.insert(
            id,
            PendingCheckpoint {
                triggered_at: ctx.now,
                acks: VecMap::new(),
                last,
            },
        );
        let pending = self
            .coordinator
            .pending
            .values()
            .filter(|p| !p.last)
            .count() as u32;
        self.coordinator.max_pending_seen = self.coordinator.max_pending_seen.max(pending);
        self.coordinator.history.push(CheckpointStat {
            id,
            attempt: self.attempt,
            triggered_at: ctx.now,
            finished_at: None,
            outcome: CheckpointOutcome::Pending,
            acks: Vec::new(),
            alignment: 0,
            start_delay: 0,
            barriers_awaited: self.tasks.iter().filter(|t| t.source.is_none()).count() as u32,
            unaligned_tasks: 0,
            channel_state_records: 0,
            last,
        });
        let unaligned_job = self.config.unaligned_allowed()
            && (self.config.unaligned || self.config.aligned_timeout.is_some());
        let pending = if last {
            self.coordinator
                .pending
                .keys()
                .copied()
                .filter(|p| *p != id)
                .collect()
        } else {
            Vec::new()
        };
        ctx.note(Note::Flink(FlinkNote::CheckpointTriggered {
            id,
            last,
            unaligned_job,
            pending,
        }));
        for t in 0..self.tasks.len() {
            if self.tasks[t].source.is_some() {
                ctx.send_as(
                    NodeId::JobManager,
                    Self::node(t),
                    Message::Flink(Rpc::Trigger {
                        id,
                        attempt: self.attempt,
                        last,
                    }),
                );
            }
        }
        // The stop's savepoint too has the checkpoints' timeout (Flink's CheckpointCoordinator
        // cancels any pending checkpoint or savepoint past it).
        ctx.set_timer_for(
            NodeId::JobManager,
            self.config.timeout,
            Timer::Flink(FlinkTimer::Expire { id }),
        );
    }

    pub(super) fn on_ack(
        &mut self,
        id: u64,
        attempt: u32,
        task: u8,
        snapshot: &TaskSnapshot,
        ctx: &mut Ctx,
    ) -> bool {
        if attempt != self.attempt {
            return false;
        }
        let total = self.tasks.len();
        let Some(p) = self.coordinator.pending.get_mut(&id) else {
            // Late: the checkpoint expired or was aborted.
            return false;
        };
        p.acks.insert(task, snapshot.clone());
        let acks = p.acks.len();
        if let Some(s) = self.coordinator.stat_mut(id) {
            s.acks.push((task, ctx.now));
        }
        ctx.note(Note::Flink(FlinkNote::CheckpointAcked {
            id,
            task: NodeId::Task(task),
            acks: acks as u32,
            of: total as u32,
        }));
        if acks == total {
            self.complete(id, ctx);
        }
        true
    }

    fn complete(&mut self, id: u64, ctx: &mut Ctx) {
        let Some(p) = self.coordinator.pending.remove(&id) else {
            return;
        };
        let alignment = p.acks.values().map(|s| s.alignment).max().unwrap_or(0);
        let unaligned = p.acks.values().filter(|s| s.unaligned).count() as u32;
        let channel = p
            .acks
            .values()
            .map(TaskSnapshot::channel_records)
            .sum::<usize>() as u32;
        let duration = ctx.now.saturating_sub(p.triggered_at);
        if let Some(s) = self.coordinator.stat_mut(id) {
            s.finished_at = Some(ctx.now);
            s.outcome = CheckpointOutcome::Completed;
            s.alignment = alignment;
            s.unaligned_tasks = unaligned;
            s.channel_state_records = channel;
        }
        self.coordinator.completed.push(CompletedCheckpoint {
            id,
            completed_at: ctx.now,
            snapshots: p.acks,
        });
        if self.coordinator.completed.len() > KEEP_COMPLETED {
            self.coordinator.completed.remove(0);
        }
        self.coordinator.consecutive_failures = 0;
        self.coordinator.last_completed_at = Some(ctx.now);
        ctx.note(Note::Flink(FlinkNote::CheckpointCompleted {
            id,
            duration,
            alignment,
            last: p.last,
        }));
        // A completed checkpoint subsumes the older pending ones.
        let older: Vec<u64> = self
            .coordinator
            .pending
            .range(..id)
            .map(|(k, _)| *k)
            .collect();
        for o in older {
            self.coordinator.pending.remove(&o);
            if let Some(s) = self.coordinator.stat_mut(o) {
                s.outcome = CheckpointOutcome::Aborted;
                s.finished_at = Some(ctx.now);
            }
        }
        self.jm_send_all(
            Rpc::Notify {
                id,
                attempt: self.attempt,
            },
            ctx,
        );
        if p.last {
            self.phase = JobPhase::Finished;
            ctx.note(Note::Flink(FlinkNote::JobFinished { checkpoint: id }));
        } else {
            self.maybe_final(ctx);
            self.run_queued(ctx);
        }
    }

    pub(super) fn on_expire(&mut self, id: u64, ctx: &mut Ctx) -> bool {
        let Some(p) = self.coordinator.pending.remove(&id) else {
            return false;
        };
        if let Some(s) = self.coordinator.stat_mut(id) {
            s.finished_at = Some(ctx.now);
            s.outcome = CheckpointOutcome::Expired;
        }
        ctx.note(Note::Flink(FlinkNote::CheckpointExpired {
            id,
            acks: p.acks.len() as u32,
            of: self.tasks.len() as u32,
            last: p.last,
            gives_up: p.last && self.coordinator.failed_stops + 1 >= STOP_ATTEMPTS,
        }));
        self.jm_send_all(
            Rpc::Abort {
                id,
                attempt: self.attempt,
            },
            ctx,
        );
        // A failed savepoint does not count against the tolerable checkpoint failures
        // (Flink's CheckpointFailureManager counts checkpoints only); the stop is tried
        // again with a new savepoint.
        if p.last {
            self.coordinator.failed_stops += 1;
        } else {
            self.coordinator.consecutive_failures += 1;
        }
        if p.last && self.coordinator.failed_stops >= STOP_ATTEMPTS {
            self.cancel(self.coordinator.failed_stops, ctx);
        } else if !p.last && self.coordinator.consecutive_failures > self.config.tolerable_failures
        {
            // Flink's CheckpointFailureManager clears its count as it fails the job: the
            // restarted job tolerates as many failures again.
            self.coordinator.consecutive_failures = 0;
            self.fail(
                format!(
                    "exceeded the checkpoint tolerable failure threshold ({})",
                    self.config.tolerable_failures
                ),
                ctx,
            );
        } else {
            self.maybe_final(ctx);
            self.run_queued(ctx);
        }
        true
    }

    pub(super) fn on_stop(&mut self, ctx: &mut Ctx) -> bool {
        if self.coordinator.stop_requested || self.phase == JobPhase::Finished {
            return false;
        }
        self.coordinator.stop_requested = true;
        ctx.note(Note::Flink(FlinkNote::StopRequested));
        self.maybe_final(ctx);
        true
    }

    /// Once stopping, trigger the stop's savepoint unless one is pending. A savepoint is a
    /// forced request: Flink's `CheckpointRequestDecider` lets it past the concurrent
    /// checkpoints' limit and the minimum pause, so it does not wait for the checkpoints
    /// still pending (their barriers are ahead of its own; its completion subsumes them).
    pub(super) fn maybe_final(&mut self, ctx: &mut Ctx) {
        if self.coordinator.stop_requested
            && self.phase == JobPhase::Running
            && !self.coordinator.has_final_pending()
            && self.coordinator.failed_stops < STOP_ATTEMPTS
        {
            self.trigger(true, ctx);
        }
    }
}
