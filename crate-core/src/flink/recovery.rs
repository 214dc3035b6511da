//! Failover: a task failure cancels the job; after the restart delay every task restores
//! from the latest completed checkpoint (state, source positions, channel state replayed
//! first), the two-phase-commit sinks recover-and-commit its committables and abort the
//! lingering transactions. SEMANTICS §4 "Failure", §5, invariants 19–22.

use super::job::{Job, JobPhase};
use super::snapshot::{CheckpointOutcome, TaskSnapshot};
use super::FlinkTimer;
use crate::ids::NodeId;
use crate::sim::{Ctx, FlinkNote, Note, Timer};
use std::collections::BTreeMap;

/// How long after a failover a cancelled task closes its operators (a stand-in for Flink's
/// task cancellation).
const CANCEL_MS: u64 = 1;

impl Job {
    /// The job fails over (a task crashed, a sink write failed, too many failed
    /// checkpoints). Everything in flight inside the job is gone.
    pub fn fail(&mut self, cause: String, ctx: &mut Ctx) {
        if self.phase != JobPhase::Running {
            return;
        }
        self.phase = JobPhase::Restarting;
        self.failovers += 1;
        let delay = self.backoff.on_failure(&self.config, ctx.now);
        ctx.note(Note::Flink(FlinkNote::JobFailing {
            cause,
            strategy: self.config.restart_strategy,
            backoff: delay.base,
            aborted: self.coordinator.pending.keys().copied().collect(),
        }));
        let attempt = self.cancel_tasks(ctx);
        ctx.set_timer_for_jittered(
            NodeId::JobManager,
            delay.base,
            delay.jitter_percent,
            delay.at_most,
            Timer::Flink(FlinkTimer::Restart { attempt }),
        );
    }

    /// The run gives up on stopping the job with a savepoint: it cancels the job (`flink
    /// cancel`), as an operator would. No restart follows.
    pub(super) fn cancel(&mut self, attempts: u32, ctx: &mut Ctx) {
        if self.phase != JobPhase::Running {
            return;
        }
        self.phase = JobPhase::Cancelled;
        ctx.note(Note::Flink(FlinkNote::JobCancelled { attempts }));
        self.cancel_tasks(ctx);
    }

    /// Every task is cancelled: pending checkpoints are aborted, the channels emptied, and
    /// each living 2PC sink closes its writer a moment later. Returns the new attempt, whose
    /// timers are the only ones that count from now on.
    fn cancel_tasks(&mut self, ctx: &mut Ctx) -> u32 {
        self.attempt += 1;
        let aborted: Vec<u64> = self.coordinator.pending.keys().copied().collect();
        self.coordinator.pending.clear();
        // The scheduler stops: a trigger queued behind them goes too.
        self.coordinator.queued = false;
        for id in aborted {
            // An alignment cut short still took its time: the longest so far is kept.
            let aligning = self
                .tasks
                .iter()
                .filter_map(|t| t.align.as_ref())
                .filter(|a| a.id == id)
                .map(|a| ctx.now.saturating_sub(a.first_at))
                .max()
                .unwrap_or(0);
            if let Some(s) = self
                .coordinator
                .history
                .iter_mut()
                .rev()
                .find(|s| s.id == id)
            {
                s.outcome = CheckpointOutcome::Aborted;
                s.finished_at = Some(ctx.now);
                s.alignment = s.alignment.max(aligning);
            }
        }
        for c in &mut self.channels {
            c.clear();
        }
        let attempt = self.attempt;
        // Every task is cancelled; a 2PC sink closes its writer a moment later, if its
        // process lives (a crashed task's timer is void).
        for t in 0..self.tasks.len() {
            if self.tasks[t].sink.is_some() {
                ctx.set_timer_for(
                    Self::node(t),
                    crate::time::ms(CANCEL_MS),
                    Timer::Flink(FlinkTimer::CloseWriter { attempt }),
                );
            }
        }
        attempt
    }

    /// After the restart delay: restore from the latest completed checkpoint.
    pub(super) fn restart(&mut self, attempt: u32, ctx: &mut Ctx) -> bool {
        if attempt != self.attempt || self.phase != JobPhase::Restarting {
            return false;
        }
        self.phase = JobPhase::Running;
        let latest = self.coordinator.latest().cloned();
        let empty = TaskSnapshot::default();
        let mut replayed = 0u32;
        for t in 0..self.tasks.len() {
            let snap = latest
                .as_ref()
                .and_then(|c| c.snapshots.get(&(t as u8)))
                .unwrap_or(&empty);
            let task = &mut self.tasks[t];
            task.counts = snap.counts.clone();
            task.processed = 0;
            task.scheduled = false;
            task.idle_until = None;
            task.backpressured = false;
            task.align = None;
            task.uploading.clear();
            task.flushing = None;
            task.sealing = None;
            task.sealed = false;
            task.finished = false;
            task.last_snapshot = latest.as_ref().map_or(0, |c| c.id);
            task.aborted.clear();
            if let Some(src) = task.source.as_mut() {
                src.rewind(&snap.positions);
            }
            if let Some(sink) = task.sink.as_mut() {
                sink.current = None;
                sink.pending.clear();
                sink.committing.clear();
                sink.retry_commits.clear();
                sink.probing = None;
            }
        }
        // Channel state first: the input side (recorded by the receiver), then the output
        // side (overtaken in the sender's buffers).
        let at = ctx.now + self.config.channel_latency;
        let mut states: BTreeMap<(usize, bool), Vec<super::FRecord>> = BTreeMap::new();
        if let Some(c) = &latest {
            for snap in c.snapshots.values() {
                for cs in &snap.channel_state {
                    states
                        .entry((cs.channel, !cs.input_side))
                        .or_default()
                        .extend(cs.records.iter().copied());
                }
            }
        }
        for ((channel, _), records) in states {
            for r in records {
                replayed += 1;
                self.push_record(channel, at, r, ctx);
            }
        }
        let checkpoint = latest.as_ref().map(|c| c.id);
        ctx.note(Note::Flink(FlinkNote::JobRestored {
            checkpoint,
            replayed,
            after: self
                .backoff
                .last_failure
                .map_or(0, |at| ctx.now.saturating_sub(at)),
        }));
        // An iterative job's forced checkpoint holds no record that was on a loop edge when
        // it was taken, and the sources, rewound to it, do not read those again: they are
        // lost. (What reached the loop after the checkpoint is read again.) Restarted from
        // scratch, the sources read everything again and nothing is lost.
        // One whose result had already left the job (an upsert or an append to the external
        // store) before the failure keeps that result.
        if let Some(c) = &latest {
            let on_loop: Vec<crate::ids::RecordId> = c
                .snapshots
                .values()
                .flat_map(|s| s.loop_in_flight.iter().copied())
                .collect();
            let left = |id: &crate::ids::RecordId| {
                self.external.upserts.values().any(|(_, by)| by == id)
                    || self.external.appended.iter().any(|r| r.id == *id)
            };
            if !on_loop.is_empty() {
                ctx.note(Note::Flink(FlinkNote::LoopRecordsLost {
                    records: on_loop.iter().filter(|id| !left(id)).count() as u32,
                    checkpoint: c.id,
                    on_loop: on_loop.len() as u32,
                }));
            }
        }
        for t in 0..self.tasks.len() {
            if self.tasks[t].sink.is_some() {
                let snap = latest
                    .as_ref()
                    .and_then(|c| c.snapshots.get(&(t as u8)))
                    .unwrap_or(&empty);
                for mut c in snap.pending.clone() {
                    c.recovered = true;
                    ctx.note(Note::Flink(FlinkNote::RecoverAndCommit {
                        task: Self::node(t),
                        transactional_id: c.transactional_id.clone(),
                        checkpoint: c.checkpoint,
                    }));
                    self.send_commit(t, c, ctx);
                }
                let next = checkpoint.unwrap_or(0) + 1;
                // InitProducerId on the next id aborts its lingering transaction; the probe
                // goes on from the one after.
                self.sink_begin(t, next, ctx);
                self.sink_probe(t, next + 1, ctx);
            }
            self.wake(t, 0, ctx);
            if self.tasks[t].source.is_some() {
                ctx.set_timer_for(
                    Self::node(t),
                    0,
                    Timer::Flink(FlinkTimer::Poll {
                        attempt: self.attempt,
                    }),
                );
            }
        }
        ctx.set_timer_for(
            NodeId::JobManager,
            self.config.interval,
            Timer::Flink(FlinkTimer::Trigger {
                attempt: self.attempt,
            }),
        );
        self.restores.push(super::job::Restore {
            at: ctx.now,
            checkpoint,
        });
        self.maybe_final(ctx);
        true
    }
}
