//! A checkpoint in the inspector: when it was triggered and finished, which subtasks
//! acknowledged it and when, how long they aligned, and what each one's snapshot holds (a
//! source's offsets, keyed state, a two-phase-commit sink's pre-committed transactions, the
//! in-flight records an unaligned checkpoint stores). Pure, tested natively.

use crate::i18n::{duration, Lang, S};
use crate::view_model::inspector::InspectorVm;
use eos_core::flink::snapshot::{CheckpointOutcome, TaskSnapshot};
use eos_core::ids::NodeId;
use eos_core::sim::Simulation;

/// Checkpoint `id`'s latest attempt, as the job has it now.
pub fn inspect(sim: &Simulation, id: u64, lang: Lang) -> InspectorVm {
    let title = S::Checkpoint.f(lang, &[&id]);
    let missing = |why: S| InspectorVm {
        kind: "cp",
        title: title.clone(),
        rows: Vec::new(),
        notes: vec![why.get(lang).to_string()],
        message: None,
        picks: Vec::new(),
        steps: Vec::new(),
    };
    let Some(job) = sim.flink.as_ref() else {
        return missing(S::NoFlinkJob);
    };
    let Some(stat) = job.coordinator.history.iter().rev().find(|s| s.id == id) else {
        return missing(S::NoCheckpointYet);
    };
    let dur = |t| duration(t, lang);
    let task = |i: u8| sim.names.node(NodeId::Task(i));
    // The stop's savepoint is named as one, as Flink's web UI types it.
    let title = if stat.last {
        S::Savepoint.f(lang, &[&id])
    } else {
        title
    };
    // Aborted: subsumed by a later checkpoint completing at that moment, or abandoned by a
    // failover.
    let subsumed = || {
        job.coordinator.history.iter().any(|s| {
            s.id > id
                && s.outcome == CheckpointOutcome::Completed
                && s.finished_at == stat.finished_at
        })
    };
    let why = match stat.outcome {
        CheckpointOutcome::Pending => S::CpPendingWhy,
        CheckpointOutcome::Completed if stat.last => S::SpCompletedWhy,
        CheckpointOutcome::Completed => S::CpCompletedWhy,
        CheckpointOutcome::Expired if stat.last => S::SpExpiredWhy,
        CheckpointOutcome::Expired => S::CpExpiredWhy,
        CheckpointOutcome::Aborted if subsumed() => S::CpSubsumedWhy,
        CheckpointOutcome::Aborted => S::CpAbortedWhy,
    };
    // Russian agrees the words with «точка сохранения», feminine.
    let outcome = crate::flink_view::outcome_word(
        crate::flink_view::outcome_name(stat.outcome),
        stat.last,
        lang,
    );
    let (triggered, finished, discarded) = if stat.last {
        (S::SpTriggeredAt, S::SpFinishedAt, S::SpSnapshotsDiscarded)
    } else {
        (S::TriggeredAt, S::FinishedAt, S::SnapshotsDiscarded)
    };
    let mut rows = vec![
        (S::Outcome.get(lang).to_string(), outcome.to_string()),
        (triggered.get(lang).to_string(), dur(stat.triggered_at)),
    ];
    if let Some(done) = stat.finished_at {
        rows.push((finished.get(lang).to_string(), dur(done)));
        rows.push((
            S::Duration.get(lang).to_string(),
            dur(done.saturating_sub(stat.triggered_at)),
        ));
    }
    let acked: Vec<String> = stat
        .acks
        .iter()
        // Each "clicks-0 257 ms" kept on one line (a no-break space, a non-breaking hyphen):
        // the list breaks after its commas.
        .map(|(i, at)| {
            format!(
                "{}\u{a0}{}",
                task(*i).replace('-', "\u{2011}"),
                dur(*at).replace(' ', "\u{a0}")
            )
        })
        .collect();
    rows.push((
        S::AckedBy.f(lang, &[&stat.acks.len(), &job.tasks.len()]),
        if acked.is_empty() {
            S::NoneAtAll.get(lang).to_string()
        } else {
            acked.join(", ")
        },
    ));
    if stat.outcome != CheckpointOutcome::Completed {
        let waiting: Vec<String> = (0..job.tasks.len())
            .filter_map(|i| u8::try_from(i).ok())
            .filter(|i| !stat.acks.iter().any(|(t, _)| t == i))
            .map(task)
            .collect();
        if !waiting.is_empty() {
            rows.push((S::NotAckedBy.get(lang).to_string(), waiting.join(", ")));
        }
    }
    // AT_LEAST_ONCE checkpoints do not block a channel: the time is the barriers' spread.
    let tracked = job.config.mode == eos_core::flink::CheckpointMode::AtLeastOnce;
    let spread = if tracked {
        S::BarrierSpread
    } else {
        S::LongestAlignment
    };
    // A pending checkpoint's alignments still under way count up to now.
    let now = sim.last_step_at();
    let ongoing = job
        .tasks
        .iter()
        .filter_map(|t| t.align.as_ref())
        .filter(|a| a.id == id && stat.outcome == CheckpointOutcome::Pending)
        .map(|a| now.saturating_sub(a.first_at))
        .max()
        .filter(|t| *t > stat.alignment);
    rows.push((
        spread.get(lang).to_string(),
        match ongoing {
            Some(t) => S::AligningSoFar.f(lang, &[&dur(t)]),
            None => dur(stat.alignment),
        },
    ));
    if stat.unaligned_tasks > 0 {
        rows.push((
            S::UnalignedTasks.get(lang).to_string(),
            stat.unaligned_tasks.to_string(),
        ));
        rows.push((
            S::ChannelStateRecords.get(lang).to_string(),
            stat.channel_state_records.to_string(),
        ));
    }
    // The snapshots themselves, while the coordinator holds them: a completed checkpoint
    // it keeps for a restore, or a pending one's acknowledgements so far.
    let snapshots: Vec<&TaskSnapshot> = match job.coordinator.completed.iter().find(|c| c.id == id)
    {
        Some(c) => c.snapshots.values().collect(),
        None => job
            .coordinator
            .pending
            .get(&id)
            .map(|p| p.acks.values().collect())
            .unwrap_or_default(),
    };
    for s in &snapshots {
        rows.push((
            S::SnapshotOf.f(lang, &[&task(s.task)]),
            holds(sim, s, lang, tracked),
        ));
    }
    let mut notes = vec![why.get(lang).to_string()];
    match stat.outcome {
        CheckpointOutcome::Completed if eos_core::flink::outcome::has_2pc(job) => {
            notes.push(S::CpCommits.get(lang).to_string());
        }
        CheckpointOutcome::Expired | CheckpointOutcome::Aborted => {
            notes.push(discarded.get(lang).to_string());
        }
        _ => {}
    }
    if snapshots.is_empty() && stat.outcome == CheckpointOutcome::Completed {
        notes.push(S::SnapshotsDropped.get(lang).to_string());
    }
    InspectorVm {
        kind: "cp",
        title: format!("{title} · {outcome}"),
        rows,
        notes,
        message: None,
        picks: Vec::new(),
        steps: Vec::new(),
    }
}

/// What one subtask's snapshot holds, in one line.
fn holds(sim: &Simulation, s: &TaskSnapshot, lang: Lang, tracked: bool) -> String {
    let mut parts: Vec<String> = Vec::new();
    if !s.positions.is_empty() {
        let at: Vec<String> = s
            .positions
            .iter()
            .map(|(tp, o)| format!("{} @{o}", sim.names.tp(*tp)))
            .collect();
        parts.push(S::SnapOffsets.f(lang, &[&at.join(", ")]));
    }
    if !s.counts.is_empty() {
        let counts: Vec<String> = s
            .counts
            .iter()
            .map(|(k, n)| {
                let key = sim.names.key(Some(*k)).unwrap_or_else(|| k.to_string());
                format!("{key}={n}")
            })
            .collect();
        parts.push(S::SnapState.f(lang, &[&counts.join(", ")]));
    }
    for c in &s.pending {
        parts.push(S::SnapTxn.f(
            lang,
            &[
                &c.transactional_id,
                &c.producer_id,
                &c.epoch,
                &c.records.len(),
            ],
        ));
    }
    let in_flight = s.channel_records();
    if in_flight > 0 {
        parts.push(S::SnapChannelState.f(lang, &[&in_flight]));
    }
    if s.alignment > 0 {
        let spread = if tracked {
            S::SnapSpread
        } else {
            S::SnapAligned
        };
        parts.push(spread.f(lang, &[&duration(s.alignment, lang)]));
    }
    if parts.is_empty() {
        S::SnapEmpty.get(lang).to_string()
    } else {
        parts.join(" · ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view_model::inspector::tests::value;
    use crate::view_model::tests::finished as run;

    #[test]
    fn a_completed_checkpoint_shows_its_acks_and_what_each_snapshot_holds() {
        let sim = run("flink-2pc-crash-recovery");
        let job = sim.flink.as_ref().expect("a job");
        let last = job
            .coordinator
            .completed
            .last()
            .expect("a completed checkpoint");
        let vm = inspect(&sim, last.id, Lang::En);
        // The job stopped with it: the stop's savepoint, named as one.
        assert_eq!(vm.title, format!("savepoint {} · completed", last.id));
        assert!(
            vm.notes[0].contains("the job stopped with it"),
            "{:?}",
            vm.notes
        );
        assert_eq!(inspect(&sim, 1, Lang::En).title, "checkpoint 1 · completed");
        let total = job.tasks.len();
        let acked = format!("acknowledged by {total} of {total}");
        assert!(!value(&vm, &acked).is_empty(), "{:?}", vm.rows);
        // Each subtask's snapshot is a row: the source's offsets, the sink's transaction.
        let snaps: Vec<&str> = vm
            .rows
            .iter()
            .filter(|(k, _)| k.starts_with("snapshot of "))
            .map(|(_, v)| v.as_str())
            .collect();
        assert_eq!(snaps.len(), total, "{:?}", vm.rows);
        assert!(snaps.iter().any(|s| s.contains("offsets ")), "{snaps:?}");
        assert!(
            snaps.iter().any(|s| s.contains("state alice=")),
            "{snaps:?}"
        );
        // A checkpoint whose barrier found records in the sink's transaction holds it.
        let with_txn = job.coordinator.completed.iter().any(|c| {
            inspect(&sim, c.id, Lang::En)
                .rows
                .iter()
                .any(|(k, v)| k.starts_with("snapshot of ") && v.contains("pre-committed"))
        });
        assert!(with_txn, "some checkpoint pre-committed a sink transaction");
    }

    #[test]
    fn an_expired_checkpoint_names_who_did_not_acknowledge_it() {
        let sim = run("flink-backpressure-aligned");
        let job = sim.flink.as_ref().expect("a job");
        let expired = job
            .coordinator
            .history
            .iter()
            .find(|s| s.outcome == CheckpointOutcome::Expired)
            .expect("an expired checkpoint");
        let vm = inspect(&sim, expired.id, Lang::Ru);
        assert!(vm.title.ends_with("истёк"), "{}", vm.title);
        assert!(
            vm.rows.iter().any(|(k, _)| k == "не подтвердили"),
            "{:?}",
            vm.rows
        );
        assert!(
            vm.notes.iter().any(|n| n.contains("отброшены")),
            "{:?}",
            vm.notes
        );
        assert!(inspect(&sim, 9_999, Lang::En).rows.is_empty());
    }

    /// While a subtask still aligns for a pending checkpoint, its alignment counts up to
    /// now (it read "0 ms" until the checkpoint ended).
    #[test]
    fn a_pending_checkpoint_counts_an_alignment_still_under_way() {
        let mut sim = eos_core::scenario::builtin::get("flink-alignment-two-inputs")
            .expect("built-in")
            .simulation(None);
        let aligning = |sim: &Simulation| {
            sim.flink.as_ref().and_then(|j| {
                j.tasks
                    .iter()
                    .filter_map(|t| t.align.as_ref())
                    .find_map(|a| {
                        (sim.last_step_at() >= a.first_at + eos_core::time::ms(20)).then_some(a.id)
                    })
            })
        };
        let mut id = None;
        while id.is_none() && sim.step() == eos_core::sim::StepOutcome::Stepped {
            id = aligning(&sim);
        }
        let id = id.expect("a subtask aligning for 20 ms");
        let vm = inspect(&sim, id, Lang::En);
        let v = value(&vm, "longest alignment");
        assert!(v.ends_with(" so far (still aligning)"), "{v}");
        assert_ne!(v, "0 ms so far (still aligning)");
    }

    #[test]
    fn an_at_least_once_checkpoint_has_no_alignment_only_its_barriers_spread() {
        let sim = run("flink-at-least-once-overcount");
        let job = sim.flink.as_ref().expect("a job");
        let spread = job
            .coordinator
            .history
            .iter()
            .find(|s| s.alignment > 0)
            .expect("barriers that arrived apart");
        let vm = inspect(&sim, spread.id, Lang::En);
        let label = "first to last barrier (no blocking)";
        assert!(vm.rows.iter().any(|(k, _)| k == label), "{:?}", vm.rows);
        assert!(!vm
            .rows
            .iter()
            .any(|(k, v)| k == "longest alignment" || v.contains("aligned ")));
        // No two-phase-commit sink in this job: no word of one.
        assert!(
            !vm.notes.iter().any(|n| n.contains("two-phase")),
            "{:?}",
            vm.notes
        );
    }
}
