//! SEMANTICS §7 items 16–18 over a job's checkpoint records (19–22 compare runs: see
//! `outcome` and the tests).

use super::job::Job;
use super::snapshot::CheckpointOutcome;
use super::CheckpointMode;

/// Item 16: an aligned snapshot reflects exactly the records before the barrier on each channel:
/// for every channel, the receiver took (or stored as channel state) exactly the records the
/// sender sent before the barrier.
pub fn aligned_snapshots_exact(job: &Job) -> Result<(), String> {
    if job.config.mode != CheckpointMode::ExactlyOnce {
        return Ok(());
    }
    for cp in &job.coordinator.completed {
        for (c, def) in job.topology.channels.iter().enumerate() {
            if def.loop_edge {
                continue;
            }
            let Some(sender) = cp.snapshots.get(&def.from) else {
                return Err(format!("checkpoint {} lacks task {}", cp.id, def.from));
            };
            let Some(receiver) = cp.snapshots.get(&def.to) else {
                return Err(format!("checkpoint {} lacks task {}", cp.id, def.to));
            };
            let Some(sent) = sender
                .sent_before_barrier
                .iter()
                .find(|(ch, _)| *ch == c)
                .map(|(_, n)| *n)
            else {
                return Err(format!("checkpoint {}: no barrier on channel {c}", cp.id));
            };
            let consumed = receiver
                .consumed
                .iter()
                .find(|(ch, _)| *ch == c)
                .map_or(0, |(_, n)| *n);
            let stored: u64 = sender
                .channel_state
                .iter()
                .chain(&receiver.channel_state)
                .filter(|cs| cs.channel == c)
                .map(|cs| cs.records.len() as u64)
                .sum();
            if consumed + stored != sent {
                return Err(format!(
                    "checkpoint {}: channel {c} ({} → {}): {sent} records before the barrier, but the snapshot holds {consumed} processed + {stored} in channel state",
                    cp.id, def.from, def.to
                ));
            }
        }
    }
    Ok(())
}

/// Item 17: a checkpoint completes only after every task acknowledged; completed ids increase.
pub fn completion_rules(job: &Job) -> Result<(), String> {
    let tasks = job.tasks.len();
    let mut last = 0;
    let mut completed: Vec<_> = job
        .coordinator
        .history
        .iter()
        .filter(|s| s.outcome == CheckpointOutcome::Completed)
        .collect();
    crate::order::sort_by_key(&mut completed, |s| (s.finished_at, s.id));
    for s in completed {
        let mut acked: Vec<u8> = s.acks.iter().map(|(t, _)| *t).collect();
        crate::order::sort(&mut acked);
        acked.dedup();
        if acked.len() != tasks {
            return Err(format!(
                "checkpoint {} completed with {} of {tasks} acknowledgements",
                s.id,
                acked.len()
            ));
        }
        if s.acks.iter().any(|(_, at)| Some(*at) > s.finished_at) {
            return Err(format!(
                "checkpoint {} completed before an acknowledgement",
                s.id
            ));
        }
        if s.id <= last {
            return Err(format!("checkpoint {} completed after {last}", s.id));
        }
        last = s.id;
    }
    Ok(())
}

/// Item 18: concurrent checkpoints never exceed the maximum; a restore never uses an expired or
/// aborted checkpoint.
pub fn concurrency_and_discard(job: &Job) -> Result<(), String> {
    let max = job.config.max_concurrent.max(1);
    if job.coordinator.max_pending_seen > max {
        return Err(format!(
            "{} checkpoints pending at once; the maximum is {max}",
            job.coordinator.max_pending_seen
        ));
    }
    for r in &job.restores {
        if let Some(id) = r.checkpoint {
            let ok = job
                .coordinator
                .history
                .iter()
                .any(|s| s.id == id && s.outcome == CheckpointOutcome::Completed);
            if !ok {
                return Err(format!(
                    "restored from checkpoint {id}, which did not complete"
                ));
            }
        }
    }
    Ok(())
}

pub fn check_all(job: &Job) -> Result<(), String> {
    aligned_snapshots_exact(job)?;
    completion_rules(job)?;
    concurrency_and_discard(job)
}
