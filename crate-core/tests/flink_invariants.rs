//! The Flink scenarios against SEMANTICS §7 items 16–22: every flink-* scenario is stepped
//! one event at a time with the checkpoint invariants (16–18) checked after every step and
//! the restore rule (19) checked at every restore; then each scenario shows the outcome it
//! was written to show, compared with its failure-free twin (19–22), and the variant that
//! should not show it does not. Invalid `[flink]` tables are refused with field paths.

use eos_core::builtin;
use eos_core::flink::invariants::check_all;
use eos_core::flink::outcome::{diff, FlinkDiff, FlinkOutput};
use eos_core::flink::report::{failure_free_output, versus_failure_free};
use eos_core::flink::snapshot::CheckpointOutcome;
use eos_core::flink::Job;
use eos_core::ids::RecordId;
use eos_core::oracle::invariants::violations;
use eos_core::scenario::schema::FaultSpec;
use eos_core::scenario::FieldError;
use eos_core::sim::{FlinkNote, Note};
use eos_core::{Report, Scenario, ScenarioError, Simulation, StepOutcome};
use std::collections::{BTreeMap, BTreeSet};

/// The nine Flink scenarios of `scenarios/`.
const FLINK: &[&str] = &[
    "flink-barrier-walkthrough",
    "flink-alignment-two-inputs",
    "flink-at-least-once-overcount",
    "flink-2pc-crash-recovery",
    "flink-2pc-txn-timeout-loss",
    "flink-backpressure-aligned",
    "flink-backpressure-unaligned",
    "flink-backpressure-aligned-timeout",
    "flink-iterative-loop-loss",
    "flink-upsert-vs-append",
];

fn scenario_file_text(name: &str) -> String {
    let path = format!("{}/../scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The scenario's text: the built-in one when it is registered (it must then be the file's
/// text), else the file in `scenarios/`.
fn text_of(name: &str) -> String {
    let file = scenario_file_text(name);
    if let Some(t) = builtin::text(name) {
        assert_eq!(
            t, file,
            "built-in {name} differs from scenarios/{name}.toml"
        );
    }
    file
}

fn load(name: &str) -> Scenario {
    Scenario::parse(&text_of(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn job(sim: &Simulation) -> &Job {
    sim.flink.as_ref().expect("a flink job")
}

/// What one checked run saw along the way.
#[derive(Default, Debug)]
struct Seen {
    /// Restores from a checkpoint (`Some(k)`) whose state and positions were compared.
    restores_from_checkpoint: usize,
    /// Restores from scratch.
    restores_from_scratch: usize,
}

/// Item 19, first half: right after a restore from checkpoint k every task holds k's state
/// and every source k's positions (from scratch: empty state, offset 0).
fn check_restore(what: &str, sim: &Simulation, checkpoint: Option<u64>) -> Result<(), String> {
    let job = job(sim);
    let names = job.task_names();
    match checkpoint {
        Some(k) => {
            let cp = job
                .coordinator
                .completed
                .iter()
                .find(|c| c.id == k)
                .ok_or_else(|| {
                    format!("{what}: restored {k}, which is not a completed checkpoint")
                })?;
            let expired: BTreeSet<u64> = job
                .coordinator
                .history
                .iter()
                .filter(|s| s.outcome == CheckpointOutcome::Expired)
                .map(|s| s.id)
                .collect();
            if expired.contains(&k) {
                return Err(format!("{what}: restored expired checkpoint {k}"));
            }
            if job.coordinator.latest().map(|c| c.id) != Some(k) {
                return Err(format!(
                    "{what}: restored {k}, but the latest completed checkpoint is {:?}",
                    job.coordinator.latest().map(|c| c.id)
                ));
            }
            for (t, task) in job.tasks.iter().enumerate() {
                let snap = cp
                    .snapshots
                    .get(&(t as u8))
                    .ok_or_else(|| format!("{what}: checkpoint {k} lacks task {}", names[t]))?;
                if task.counts != snap.counts {
                    return Err(format!(
                        "{what}: after restoring {k}, {} counts {:?} but the snapshot holds {:?}",
                        names[t], task.counts, snap.counts
                    ));
                }
                if let Some(src) = &task.source {
                    if src.positions != snap.positions {
                        return Err(format!(
                            "{what}: after restoring {k}, {} is at {:?} but the snapshot says {:?}",
                            names[t], src.positions, snap.positions
                        ));
                    }
                }
            }
        }
        None => {
            for (t, task) in job.tasks.iter().enumerate() {
                if !task.counts.is_empty() {
                    return Err(format!(
                        "{what}: restored from scratch, but {} counts {:?}",
                        names[t], task.counts
                    ));
                }
                if let Some(src) = &task.source {
                    if src.positions.values().any(|o| *o != 0) {
                        return Err(format!(
                            "{what}: restored from scratch, but {} is at {:?}",
                            names[t], src.positions
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Items 17 and 18, read directly off the coordinator.
fn check_coordinator(what: &str, job: &Job) -> Result<(), String> {
    let cc = &job.coordinator;
    let max = job.config.max_concurrent.max(1);
    if cc.max_pending_seen > max {
        return Err(format!(
            "{what}: {} checkpoints pending at once (max {max})",
            cc.max_pending_seen
        ));
    }
    // The stop's savepoint is not held back by the limit (a forced request): only the
    // periodic checkpoints count.
    let periodic = cc.pending.values().filter(|p| !p.last).count();
    if periodic as u32 > max {
        return Err(format!("{what}: {periodic} pending now (max {max})"));
    }
    if cc.pending.values().filter(|p| p.last).count() > 1 {
        return Err(format!("{what}: two stop savepoints pending at once"));
    }
    // Completion order is the order of `completed`: ids strictly increase.
    for w in cc.completed.windows(2) {
        if w[0].id >= w[1].id {
            return Err(format!(
                "{what}: checkpoint {} completed after {}",
                w[1].id, w[0].id
            ));
        }
        if w[0].completed_at > w[1].completed_at {
            return Err(format!("{what}: completion times go back at {}", w[1].id));
        }
    }
    let all: BTreeSet<u8> = (0..job.tasks.len() as u8).collect();
    for c in &cc.completed {
        let acked: BTreeSet<u8> = c.snapshots.keys().copied().collect();
        if acked != all {
            return Err(format!(
                "{what}: completed checkpoint {} has snapshots of {acked:?}, not of every task",
                c.id
            ));
        }
        let stat = cc
            .history
            .iter()
            .find(|s| s.id == c.id)
            .ok_or_else(|| format!("{what}: no history for {}", c.id))?;
        if stat.outcome != CheckpointOutcome::Completed {
            return Err(format!(
                "{what}: {} is completed but its history says {:?}",
                c.id, stat.outcome
            ));
        }
        let stat_acks: BTreeSet<u8> = stat.acks.iter().map(|(t, _)| *t).collect();
        if stat_acks != all {
            return Err(format!(
                "{what}: checkpoint {} completed with acks of {stat_acks:?}",
                c.id
            ));
        }
        if stat.acks.iter().any(|(_, at)| *at > c.completed_at) {
            return Err(format!(
                "{what}: checkpoint {} completed before an ack",
                c.id
            ));
        }
    }
    // Pending checkpoints are never in the completed list, and non-completed history entries
    // never are either (expired/aborted are discarded).
    for s in &cc.history {
        let in_completed = cc.completed.iter().any(|c| c.id == s.id);
        if in_completed != (s.outcome == CheckpointOutcome::Completed)
            && !(s.outcome == CheckpointOutcome::Completed && cc.completed.len() >= 32)
        {
            return Err(format!(
                "{what}: checkpoint {} is {:?} but in_completed = {in_completed}",
                s.id, s.outcome
            ));
        }
    }
    for r in &job.restores {
        if let Some(id) = r.checkpoint {
            let ok = cc
                .history
                .iter()
                .any(|s| s.id == id && s.outcome == CheckpointOutcome::Completed);
            if !ok {
                return Err(format!("{what}: restored {id}, which did not complete"));
            }
        }
    }
    Ok(())
}

/// Steps one event at a time; after every step items 16–18 hold (the job's own check, the
/// engine's invariant list and the direct checks above), and at every restore item 19.
fn run_checked(what: &str, scenario: &Scenario, seed: Option<u64>) -> (Simulation, Seen) {
    let mut sim = scenario.simulation(seed);
    let mut seen = Seen::default();
    loop {
        match sim.step() {
            StepOutcome::Stepped => {}
            StepOutcome::Finished => break,
            StepOutcome::LimitReached => {
                panic!("{what}: hit the step limit after {} steps", sim.steps())
            }
        }
        let step = sim.steps();
        let j = job(&sim);
        if let Err(e) = check_all(j) {
            panic!(
                "{what}, step {step}: {e}\nthe step: {:#?}",
                sim.trace().last()
            );
        }
        if let Err(e) = check_coordinator(&format!("{what}, step {step}"), j) {
            panic!("{e}\nthe step: {:#?}", sim.trace().last());
        }
        let broken = violations(&sim);
        assert!(
            broken.is_empty(),
            "{what}, step {step}: invariants broken: {broken:#?}\nthe step: {:#?}",
            sim.trace().last()
        );
        let restored: Vec<Option<u64>> = sim
            .trace()
            .last()
            .map(|r| {
                r.notes
                    .iter()
                    .filter_map(|n| match n {
                        Note::Flink(FlinkNote::JobRestored { checkpoint, .. }) => Some(*checkpoint),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        for checkpoint in restored {
            if let Err(e) = check_restore(&format!("{what}, step {step}"), &sim, checkpoint) {
                panic!("{e}");
            }
            match checkpoint {
                Some(_) => seen.restores_from_checkpoint += 1,
                None => seen.restores_from_scratch += 1,
            }
        }
    }
    assert!(sim.is_finished(), "{what}: not finished");
    (sim, seen)
}

fn run_report(name: &str, scenario: &Scenario) -> (Simulation, Report, Seen) {
    let (sim, seen) = run_checked(name, scenario, None);
    let mut report = Report::of(name, &sim);
    if let Some(f) = report.flink.as_mut() {
        f.versus_failure_free = versus_failure_free(scenario, None, &sim);
    }
    (sim, report, seen)
}

fn flink_notes(sim: &Simulation) -> impl Iterator<Item = &FlinkNote> {
    sim.trace()
        .iter()
        .flat_map(|s| s.notes.iter())
        .filter_map(|n| match n {
            Note::Flink(f) => Some(f),
            _ => None,
        })
}

/// How many periodic checkpoints (not the stop's savepoints) expired.
fn periodic_expired(sim: &Simulation) -> usize {
    job(sim)
        .coordinator
        .history
        .iter()
        .filter(|c| !c.last && c.outcome == CheckpointOutcome::Expired)
        .count()
}

/// The outcomes of the stop's savepoints, in order.
fn stop_outcomes(sim: &Simulation) -> Vec<CheckpointOutcome> {
    job(sim)
        .coordinator
        .history
        .iter()
        .filter(|c| c.last)
        .map(|c| c.outcome)
        .collect()
}

fn versus_ff(scenario: &Scenario, sim: &Simulation) -> (FlinkOutput, FlinkOutput, FlinkDiff) {
    let run = FlinkOutput::of(sim).expect("flink output");
    let ff = failure_free_output(scenario, None).expect("failure-free output");
    let d = diff(&ff, &run);
    assert_eq!(
        Some(&d),
        versus_failure_free(scenario, None, sim).as_ref(),
        "versus_failure_free disagrees with diff(failure_free_output, FlinkOutput::of)"
    );
    (ff, run, d)
}

fn edit(scenario: &Scenario, f: impl FnOnce(&mut eos_core::scenario::ScenarioFile)) -> Scenario {
    let mut file = scenario.file.clone();
    f(&mut file);
    Scenario::from_file(file).unwrap_or_else(|e| panic!("edited scenario invalid: {e}"))
}

fn crash(at_ms: u64, target: &str) -> FaultSpec {
    FaultSpec {
        at_ms,
        action: "crash".into(),
        target: Some(target.into()),
        count: 1,
        ..Default::default()
    }
}

// ---------------------------------------------------------------------------------------
// Every scenario, every step.

#[test]
fn every_flink_scenario_file_is_a_registered_builtin() {
    let dir = format!("{}/../scenarios", env!("CARGO_MANIFEST_DIR"));
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .expect("scenarios/")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("flink-") && n.ends_with(".toml"))
        .map(|n| n.trim_end_matches(".toml").to_string())
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = FLINK.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(
        on_disk, listed,
        "the flink-* scenarios changed: update FLINK"
    );
}

#[test]
fn every_flink_scenario_file_is_a_builtin() {
    let missing: Vec<&str> = FLINK
        .iter()
        .copied()
        .filter(|n| builtin::text(n).is_none())
        .collect();
    assert!(
        missing.is_empty(),
        "scenarios/*.toml not registered in builtin::BUILTIN: {missing:?}"
    );
}

#[test]
fn every_flink_scenario_holds_items_16_to_19_after_every_step() {
    let mut restores = 0;
    for name in FLINK {
        let scenario = load(name);
        let (sim, report, seen) = run_report(name, &scenario);
        assert!(report.completed, "{name}: did not complete");
        assert!(
            report.invariants.iter().all(|i| i.holds),
            "{name}: {:#?}",
            report
                .invariants
                .iter()
                .filter(|i| !i.holds)
                .collect::<Vec<_>>()
        );
        let names: Vec<&str> = report.invariants.iter().map(|i| i.name.as_str()).collect();
        for inv in [
            "flink-aligned-snapshot-exact",
            "flink-checkpoint-completes-after-all-acks",
            "flink-checkpoint-concurrency-and-discard",
        ] {
            assert!(
                names.contains(&inv),
                "{name}: the report lacks {inv}: {names:?}"
            );
        }
        let f = report.flink.as_ref().expect("flink report");
        let j = job(&sim);
        assert!(f.completed > 0, "{name}: no checkpoint completed");
        assert_eq!(f.failovers as usize, j.restores.len(), "{name}");
        assert_eq!(
            f.restored_from.len(),
            seen.restores_from_checkpoint + seen.restores_from_scratch,
            "{name}: every restore was checked"
        );
        // A finished bounded run ends with its final checkpoint completed.
        let last = j.coordinator.latest().expect("a completed checkpoint");
        assert_eq!(
            j.final_checkpoint,
            Some(last.id),
            "{name}: final checkpoint"
        );
        assert!(check_all(j).is_ok(), "{name}");
        restores += seen.restores_from_checkpoint;
    }
    // The crash scenarios do restore from checkpoints: item 19 was not checked vacuously.
    assert!(restores >= 4, "only {restores} restores from a checkpoint");
}

// ---------------------------------------------------------------------------------------
// Items 17 and 18 directly.

#[test]
fn completed_checkpoints_increase_and_carry_every_ack() {
    for name in FLINK {
        let scenario = load(name);
        let (sim, _) = run_checked(name, &scenario, None);
        let j = job(&sim);
        let mut completed: Vec<_> = j
            .coordinator
            .history
            .iter()
            .filter(|s| s.outcome == CheckpointOutcome::Completed)
            .collect();
        assert!(!completed.is_empty(), "{name}");
        completed.sort_by_key(|s| s.finished_at);
        let ids: Vec<u64> = completed.iter().map(|s| s.id).collect();
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "{name}: completion order {ids:?}"
        );
        for s in &completed {
            let acked: BTreeSet<u8> = s.acks.iter().map(|(t, _)| *t).collect();
            assert_eq!(acked.len(), j.tasks.len(), "{name}: checkpoint {}", s.id);
            assert_eq!(
                s.acks.len(),
                j.tasks.len(),
                "{name}: one ack per task ({})",
                s.id
            );
            let fin = s.finished_at.expect("finished");
            assert!(s.acks.iter().all(|(_, at)| *at <= fin), "{name}: {}", s.id);
        }
        // The CheckpointCompleted notes come in the same increasing order.
        let noted: Vec<u64> = flink_notes(&sim)
            .filter_map(|n| match n {
                FlinkNote::CheckpointCompleted { id, .. } => Some(*id),
                _ => None,
            })
            .collect();
        assert_eq!(noted, ids, "{name}: notes vs history");
        assert!(
            j.coordinator.max_pending_seen >= 1
                && j.coordinator.max_pending_seen <= j.config.max_concurrent.max(1),
            "{name}: max pending {} of {}",
            j.coordinator.max_pending_seen,
            j.config.max_concurrent
        );
        // Expired or aborted checkpoints are never restored.
        let not_completed: BTreeSet<u64> = j
            .coordinator
            .history
            .iter()
            .filter(|s| s.outcome != CheckpointOutcome::Completed)
            .map(|s| s.id)
            .collect();
        for r in &j.restores {
            if let Some(k) = r.checkpoint {
                assert!(!not_completed.contains(&k), "{name}: restored {k}");
                assert!(ids.contains(&k), "{name}: restored {k} not in {ids:?}");
            }
        }
    }
}

#[test]
fn expired_checkpoints_are_discarded_and_never_restored() {
    // The aligned backpressure job, with a crash after checkpoints have expired.
    let base = load("flink-backpressure-aligned");
    let s = edit(&base, |f| f.faults.push(crash(2_200, "map-0")));
    let (sim, seen) = run_checked("backpressure-aligned + crash", &s, None);
    let j = job(&sim);
    let expired: Vec<u64> = j
        .coordinator
        .history
        .iter()
        .filter(|h| h.outcome == CheckpointOutcome::Expired)
        .map(|h| h.id)
        .collect();
    assert!(!expired.is_empty(), "no checkpoint expired");
    assert_eq!(j.restores.len(), 1, "one failover: {:?}", j.restores);
    assert_eq!(
        seen.restores_from_checkpoint + seen.restores_from_scratch,
        1
    );
    for id in &expired {
        assert!(
            j.coordinator.completed.iter().all(|c| c.id != *id),
            "expired {id} kept as completed"
        );
        assert!(
            j.restores.iter().all(|r| r.checkpoint != Some(*id)),
            "expired {id} restored"
        );
    }
    // The restore used the newest checkpoint completed before the failure.
    let r = j.restores[0];
    let newest_before = j
        .coordinator
        .history
        .iter()
        .filter(|h| h.outcome == CheckpointOutcome::Completed)
        .filter(|h| h.finished_at.is_some_and(|f| f <= r.at))
        .map(|h| h.id)
        .max();
    assert_eq!(r.checkpoint, newest_before);
    assert!(j.coordinator.max_pending_seen <= j.config.max_concurrent);
}

#[test]
fn concurrent_checkpoints_stay_within_the_maximum_when_it_is_raised() {
    // Slow uploads keep checkpoints pending across triggers; with max 2 there may be two
    // at once but never three; with max 1 never two.
    let base = load("flink-backpressure-aligned");
    for max in [1u32, 2] {
        let s = edit(&base, |f| {
            let fl = f.flink.as_mut().expect("flink");
            fl.max_concurrent_checkpoints = max;
            fl.checkpoint_interval_ms = 200;
            fl.upload_ms = 450;
        });
        let (sim, _) = run_checked(&format!("max_concurrent = {max}"), &s, None);
        let j = job(&sim);
        assert!(
            j.coordinator.max_pending_seen <= max,
            "{} pending with max {max}",
            j.coordinator.max_pending_seen
        );
        if max == 2 {
            assert_eq!(
                j.coordinator.max_pending_seen, 2,
                "with slow uploads two checkpoints should overlap"
            );
        }
    }
}

#[test]
fn the_stops_savepoint_does_not_wait_for_a_pending_checkpoint() {
    // Under backpressure checkpoint 3 is still pending when the run stops: the savepoint is
    // a forced request (Flink's CheckpointRequestDecider), triggered at once past the limit
    // of one concurrent checkpoint, not when checkpoint 3 ends. Its barrier follows 3's
    // through the same full buffers, so it expires too; the stop tried again completes.
    let s = load("flink-backpressure-aligned");
    let (sim, _) = run_checked("backpressure-aligned", &s, None);
    let j = job(&sim);
    let stop = j.config.stop_at;
    let h = &j.coordinator.history;
    let savepoint = h.iter().find(|c| c.last).expect("a savepoint");
    assert_eq!(savepoint.triggered_at, stop, "{h:#?}");
    let overlapped: Vec<u64> = h
        .iter()
        .filter(|c| !c.last && c.triggered_at < stop && c.finished_at.is_none_or(|f| f > stop))
        .map(|c| c.id)
        .collect();
    assert_eq!(overlapped, vec![savepoint.id - 1], "{h:#?}");
    let said: Vec<&Vec<u64>> = flink_notes(&sim)
        .filter_map(|n| match n {
            FlinkNote::CheckpointTriggered {
                last: true,
                pending,
                ..
            } => Some(pending),
            _ => None,
        })
        .collect();
    assert_eq!(said.first(), Some(&&overlapped), "the narration names it");
    assert_eq!(
        (periodic_expired(&sim), stop_outcomes(&sim)),
        (
            3,
            vec![CheckpointOutcome::Expired, CheckpointOutcome::Completed]
        )
    );
    // The savepoint is not a concurrent checkpoint: the limit still holds for the others.
    assert!(j.coordinator.max_pending_seen <= j.config.max_concurrent);
}

// ---------------------------------------------------------------------------------------
// Item 19: restore.

#[test]
fn a_restore_resets_state_and_positions_to_the_checkpoint() {
    for name in [
        "flink-2pc-crash-recovery",
        "flink-at-least-once-overcount",
        "flink-upsert-vs-append",
        "flink-iterative-loop-loss",
        "flink-2pc-txn-timeout-loss",
    ] {
        let scenario = load(name);
        let (sim, seen) = run_checked(name, &scenario, None);
        assert!(
            seen.restores_from_checkpoint >= 1,
            "{name}: no restore from a checkpoint ({seen:?})"
        );
        let restored = flink_notes(&sim)
            .filter(|n| {
                matches!(
                    n,
                    FlinkNote::JobRestored {
                        checkpoint: Some(_),
                        ..
                    }
                )
            })
            .count();
        assert_eq!(restored, seen.restores_from_checkpoint, "{name}");
        // The restored checkpoint had state to restore: the job did not restart empty.
        let j = job(&sim);
        let k = j.restores[0].checkpoint.expect("a checkpoint");
        let cp = j
            .coordinator
            .completed
            .iter()
            .find(|c| c.id == k)
            .expect("kept");
        assert!(
            cp.snapshots
                .values()
                .any(|s| s.positions.values().any(|o| *o > 0)),
            "{name}: checkpoint {k} has no source progress"
        );
    }
}

#[test]
fn a_crash_before_the_first_checkpoint_restores_from_scratch() {
    let base = load("flink-2pc-crash-recovery");
    let s = edit(&base, |f| {
        f.faults.clear();
        f.faults.push(crash(100, "count-0"));
    });
    let (sim, seen) = run_checked("crash at 100 ms", &s, None);
    assert_eq!(seen.restores_from_scratch, 1, "{seen:?}");
    assert_eq!(job(&sim).restores[0].checkpoint, None);
    let (_, _, d) = versus_ff(&s, &sim);
    assert!(d.is_empty(), "{d:?}");
}

#[test]
fn at_least_once_over_counts_and_exactly_once_does_not() {
    let alo = load("flink-at-least-once-overcount");
    let (sim, report, seen) = run_report("alo", &alo);
    assert_eq!(
        report.flink.as_ref().unwrap().checkpointing,
        "at-least-once"
    );
    assert!(seen.restores_from_checkpoint >= 1);
    let (ff, run, d) = versus_ff(&alo, &sim);
    assert!(
        !d.state_differs.is_empty(),
        "at-least-once did not over-count: {d:?}"
    );
    let over: Vec<(u32, u64, u64)> = ff
        .state
        .iter()
        .map(|(k, v)| (*k, *v, run.state.get(k).copied().unwrap_or(0)))
        .filter(|(_, v, got)| got > v)
        .collect();
    assert!(
        !over.is_empty(),
        "no key counted higher than failure-free: {d:?}"
    );
    // At-least-once never loses: no key below the failure-free count.
    for (k, v) in &ff.state {
        assert!(
            run.state.get(k).copied().unwrap_or(0) >= *v,
            "key {k} lost counts"
        );
    }
    // Some input was counted twice.
    assert!(
        job(&sim).counted.values().any(|n| *n >= 2),
        "no record counted twice"
    );

    let eo = edit(&alo, |f| {
        f.flink.as_mut().unwrap().checkpointing = "exactly-once".into();
    });
    let (sim_eo, report_eo, seen_eo) = run_report("eo", &eo);
    assert_eq!(
        report_eo.flink.as_ref().unwrap().checkpointing,
        "exactly-once"
    );
    assert!(
        seen_eo.restores_from_checkpoint >= 1,
        "the crash still restores"
    );
    let (ff_eo, run_eo, d_eo) = versus_ff(&eo, &sim_eo);
    assert!(
        d_eo.is_empty(),
        "exactly-once differs from failure-free: {d_eo:?}"
    );
    assert_eq!(ff_eo.state, run_eo.state);
    // Both modes agree on the failure-free totals.
    assert_eq!(ff.state, ff_eo.state);
}

// ---------------------------------------------------------------------------------------
// Item 20: 2PC.

/// The input records: ledger entries below the job's output base that were written.
fn inputs(sim: &Simulation) -> BTreeSet<RecordId> {
    let base = job(sim).config.output_base;
    sim.ledger
        .records
        .iter()
        .enumerate()
        .filter(|(i, e)| (*i as u32) < base && e.acknowledged())
        .map(|(i, _)| RecordId(i as u32))
        .collect()
}

#[test]
fn two_phase_commit_output_equals_the_failure_free_run() {
    let s = load("flink-2pc-crash-recovery");
    let (sim, report, seen) = run_report("2pc", &s);
    assert!(
        seen.restores_from_checkpoint >= 1,
        "the crash restored: {seen:?}"
    );
    let f = report.flink.as_ref().unwrap();
    assert!(f.failovers >= 1);
    assert_eq!(f.versus_failure_free.as_ref(), Some(&FlinkDiff::default()));
    let (ff, run, d) = versus_ff(&s, &sim);
    assert!(d.is_empty(), "{d:?}");
    assert_eq!(ff.committed, run.committed);
    let ins = inputs(&sim);
    assert_eq!(ins.len(), 24, "two keys x 12 records");
    let expected: BTreeMap<RecordId, u32> = ins.iter().map(|id| (*id, 1)).collect();
    assert_eq!(run.committed, expected, "every input exactly once");
    // Replays did happen inside the job: the committed output is exact only thanks to 2PC.
    assert!(
        job(&sim).read.values().any(|n| *n >= 2),
        "the crash caused no replay"
    );
    assert_eq!(report.outcome.duplicates, 0);
    assert!(flink_notes(&sim).any(|n| matches!(n, FlinkNote::SinkCommitted { .. })));
    assert!(!flink_notes(&sim).any(|n| matches!(n, FlinkNote::SinkCommitRejected { .. })));
}

/// A checkpoint with nothing to commit, then records, then a crash: the records are written
/// under the transactional id of the idle checkpoint + 1, which the restore aborts.
const IDLE_CHECKPOINT_THEN_CRASH: &str = r#"
version = 1
name = "idle-checkpoint-then-crash"
title = "t"
summary = "s"

[[topics]]
name = "payments"

[[topics]]
name = "ledger"

[[producers]]
name = "bank"
client = "java"
linger_ms = 0

[[producers.sends]]
topic = "payments"
key_prefix = "pay-"
count = 3
interval_us = 50000

[[producers]]
name = "late"
client = "java"
linger_ms = 0

[[producers.sends]]
at_ms = 1200
topic = "payments"
key_prefix = "late-"
count = 3
interval_us = 20000

[flink]
checkpoint_interval_ms = 500
restart_delay_ms = 300
stop_ms = 4000

[[flink.operators]]
name = "source"
kind = "source"
topic = "payments"

[[flink.operators]]
name = "sink"
kind = "kafka-2pc"
topic = "ledger"
inputs = ["source"]

[[faults]]
at_ms = 1350
action = "crash"
target = "sink-0"

[[consumers]]
name = "auditor"
topic = "ledger"
isolation = "read_committed"
start_ms = 2000
stop_ms = 8000
poll_interval_ms = 1000
"#;

#[test]
fn an_idle_checkpoint_moves_the_sink_to_the_next_id_so_a_restore_aborts_what_follows() {
    let s = Scenario::parse(IDLE_CHECKPOINT_THEN_CRASH).expect("valid");
    let (sim, report, _) = run_report("idle", &s);
    // Checkpoint 2 found the sink's transaction empty: it was committed as is and the sink
    // went on under checkpoint 2 + 1, as Flink's writer does at every snapshot.
    let begun: Vec<(String, Option<String>)> = flink_notes(&sim)
        .filter_map(|n| match n {
            FlinkNote::SinkTxnBegun {
                transactional_id,
                empty_before,
                ..
            } => Some((transactional_id.clone(), empty_before.clone())),
            _ => None,
        })
        .collect();
    assert!(
        begun.contains(&(
            "flink-sink-0-3".to_string(),
            Some("flink-sink-0-2".to_string())
        )),
        "{begun:?}"
    );
    // The late records, written under flink-sink-0-3 before the crash, are aborted by the
    // restore from checkpoint 2 (InitProducerId on flink-sink-0-3), so nothing holds the
    // last stable offset: the auditor reads every record once, and the run equals its
    // failure-free twin.
    assert_eq!(report.outcome.duplicates, 0);
    assert!(
        report.anomalies.is_empty(),
        "nothing lingers: {:?}",
        report.anomalies
    );
    assert_eq!(report.reads.get("auditor").map(|r| r.records), Some(6));
    let (_, _, d) = versus_ff(&s, &sim);
    assert!(d.is_empty(), "{d:?}");
}

// ---------------------------------------------------------------------------------------
// Item 21: transaction timeout.

#[test]
fn a_commit_after_the_transaction_timeout_loses_that_checkpoint() {
    let s = load("flink-2pc-txn-timeout-loss");
    let (sim, _, seen) = run_report("txn-timeout", &s);
    assert!(seen.restores_from_checkpoint >= 1);
    let (ff, run, d) = versus_ff(&s, &sim);
    assert!(!d.lost.is_empty(), "nothing lost: {d:?}");
    assert!(d.duplicated.is_empty(), "{d:?}");
    assert_eq!(
        ff.committed.len(),
        inputs(&sim).len(),
        "failure-free outputs all"
    );
    let rejected: Vec<RecordId> = flink_notes(&sim)
        .filter_map(|n| match n {
            FlinkNote::SinkCommitRejected { records, .. } => Some(records.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    assert!(!rejected.is_empty(), "no SinkCommitRejected note");
    let base = sim.flink.as_ref().unwrap().config.output_base;
    let rejected_inputs: BTreeSet<RecordId> =
        rejected.iter().map(|r| RecordId(r.0 - base)).collect();
    assert_eq!(
        rejected_inputs,
        d.lost.iter().copied().collect::<BTreeSet<_>>(),
        "the lost records are exactly the rejected commits'"
    );
    for id in &d.lost {
        assert_eq!(run.committed.get(id).copied().unwrap_or(0), 0);
    }
    // The oracle names each of them: acknowledged (the checkpoint completed), not readable.
    let report = Report::counts("txn-timeout", &sim);
    assert_eq!(report.outcome.lost as usize, rejected.len());
    let named: BTreeSet<String> = report
        .anomalies
        .iter()
        .filter(|a| a.kind == "lost-write")
        .map(|a| a.detail.split(' ').nth(1).unwrap_or_default().to_string())
        .collect();
    // Named as the logs name an output: v9′ for input v9's.
    let expected: BTreeSet<String> = rejected.iter().map(|r| sim.names.record(*r)).collect();
    assert_eq!(named, expected);

    let long = edit(&s, |f| {
        let op = f
            .flink
            .as_mut()
            .unwrap()
            .operators
            .iter_mut()
            .find(|o| o.kind == "kafka-2pc")
            .expect("a 2pc sink");
        op.transaction_timeout_ms = 600_000;
    });
    let (sim2, _, _) = run_report("txn-timeout long", &long);
    let (_, run2, d2) = versus_ff(&long, &sim2);
    assert!(d2.is_empty(), "a long timeout still differs: {d2:?}");
    assert!(!flink_notes(&sim2).any(|n| matches!(n, FlinkNote::SinkCommitRejected { .. })));
    assert!(flink_notes(&sim2).any(|n| matches!(n, FlinkNote::RecoverAndCommit { .. })));
    assert_eq!(run2.committed.len(), inputs(&sim2).len());
    assert!(run2.committed.values().all(|n| *n == 1));
}

/// A timeout shorter than the checkpoint interval loses output with no fault at all: the
/// failure-free twin keeps its transactions open as long as the broker allows, so the run is
/// not called faithful for losing what the twin would lose too.
#[test]
fn a_transaction_timeout_too_short_for_the_checkpoints_is_a_loss_with_no_fault() {
    let s = load("flink-2pc-txn-timeout-loss");
    let short = edit(&s, |f| {
        f.faults.clear();
        let job = f.flink.as_mut().expect("a job");
        let interval = job.checkpoint_interval_ms;
        let op = job
            .operators
            .iter_mut()
            .find(|o| o.kind == "kafka-2pc")
            .expect("a 2pc sink");
        op.transaction_timeout_ms = (interval / 2).max(1);
    });
    let (sim, _, _) = run_report("txn-timeout, no fault", &short);
    assert!(flink_notes(&sim).any(|n| matches!(n, FlinkNote::SinkCommitRejected { .. })));
    let (ff, _, d) = versus_ff(&short, &sim);
    assert_eq!(
        ff.committed.len(),
        inputs(&sim).len(),
        "the twin outputs all"
    );
    assert!(!d.lost.is_empty(), "the loss is reported: {d:?}");
    let report = Report::counts("txn-timeout, no fault", &sim);
    assert_eq!(report.outcome.lost as usize, d.lost.len());
}

// ---------------------------------------------------------------------------------------
// Item 22: iterations.

#[test]
fn forced_checkpoints_of_an_iterative_job_lose_the_loop() {
    let s = load("flink-iterative-loop-loss");
    let (sim, _, seen) = run_report("iterate", &s);
    assert!(seen.restores_from_checkpoint + seen.restores_from_scratch >= 1);
    let (ff, run, d) = versus_ff(&s, &sim);
    let missing: Vec<u32> = ff
        .upserts
        .keys()
        .filter(|k| !run.upserts.contains_key(k))
        .copied()
        .collect();
    assert!(!missing.is_empty(), "no key lost: {d:?}");
    assert!(!d.state_differs.is_empty());
    let lost_notes: u32 = flink_notes(&sim)
        .filter_map(|n| match n {
            FlinkNote::LoopRecordsLost { records, .. } => Some(*records),
            _ => None,
        })
        .sum();
    assert!(lost_notes > 0, "no LoopRecordsLost note");
    // The note counts exactly the keys whose result never leaves the job: the records on
    // the loop edge at the restored checkpoint that had not reached the sink by the failure
    // (not every record on the loop at the failure: what entered after the checkpoint is
    // read again).
    assert_eq!(
        missing.len(),
        lost_notes as usize,
        "{} keys missing, {lost_notes} records said lost",
        missing.len()
    );
    // Without the crash nothing is lost.
    let calm = edit(&s, |f| f.faults.clear());
    let (sim_calm, _) = run_checked("iterate calm", &calm, None);
    assert!(!flink_notes(&sim_calm).any(|n| matches!(n, FlinkNote::LoopRecordsLost { .. })));
    assert_eq!(FlinkOutput::of(&sim_calm).unwrap().upserts.len(), 20);
}

// ---------------------------------------------------------------------------------------
// Sinks, backpressure, alignment.

#[test]
fn upsert_store_matches_failure_free_and_append_log_duplicates() {
    let s = load("flink-upsert-vs-append");
    let (sim, _, seen) = run_report("upsert-vs-append", &s);
    assert!(seen.restores_from_checkpoint >= 1);
    let (ff, run, d) = versus_ff(&s, &sim);
    assert_eq!(run.upserts, ff.upserts, "upsert store differs");
    assert_eq!(ff.upserts.len(), 20);
    assert!(d.lost.is_empty(), "append lost records: {d:?}");
    assert!(!d.duplicated.is_empty(), "append log has no duplicates");
    assert!(run.appended.values().any(|n| *n >= 2));
    assert!(ff.appended.values().all(|n| *n == 1));
    assert!(d.state_differs.is_empty(), "{d:?}");
}

#[test]
fn aligned_checkpoints_expire_under_backpressure_and_unaligned_ones_complete() {
    let aligned = load("flink-backpressure-aligned");
    let (_, ra, _) = run_report("aligned", &aligned);
    let fa = ra.flink.as_ref().unwrap();
    assert!(!fa.unaligned);
    assert!(fa.expired >= 1, "no aligned checkpoint expired: {fa:#?}");
    assert!(fa
        .checkpoints
        .iter()
        .filter(|c| c.outcome == "completed")
        .all(|c| c.channel_state_records == 0));

    let unaligned = load("flink-backpressure-unaligned");
    let (sim_u, ru, _) = run_report("unaligned", &unaligned);
    let fu = ru.flink.as_ref().unwrap();
    assert!(fu.unaligned);
    // No periodic checkpoint expires; the savepoint that stops the job is aligned, as every
    // savepoint is, so it waits behind the full buffers and expires once, and the stop tried
    // again after they drained completes.
    assert_eq!(
        (periodic_expired(&sim_u), stop_outcomes(&sim_u)),
        (
            0,
            vec![CheckpointOutcome::Expired, CheckpointOutcome::Completed]
        ),
        "{fu:#?}"
    );
    assert_eq!(fu.expired, 1);
    assert!(fu.completed >= 2);
    assert!(
        fu.checkpoints.iter().any(|c| c.outcome == "completed"
            && c.channel_state_records > 0
            && c.unaligned_tasks > 0),
        "no completed checkpoint stored channel state: {fu:#?}"
    );
    // Why: each task has one input, so neither aligns; the aligned barriers wait behind the
    // queued records (Flink's start delay) and the unaligned ones overtake them.
    assert!(fa.checkpoints.iter().all(|c| c.alignment_ms == 0));
    let periodic = |f: &eos_core::flink::report::FlinkReport, last: Option<u64>| -> Vec<u64> {
        f.checkpoints
            .iter()
            .filter(|c| c.outcome == "completed" && Some(c.id) != last)
            .filter_map(|c| c.start_delay_ms)
            .collect()
    };
    let unaligned_delays = periodic(fu, job(&sim_u).final_checkpoint);
    assert!(!unaligned_delays.is_empty());
    let slowest_unaligned = unaligned_delays.iter().max().copied().unwrap_or(0);
    // The aligned run's one completed checkpoint, and its expired ones: a barrier never
    // reached the sink before the timeout, so their start delay is unknown (and longer).
    for c in &fa.checkpoints {
        match c.outcome.as_str() {
            "completed" => assert!(
                c.start_delay_ms.is_some_and(|d| d > 4 * slowest_unaligned),
                "{c:?} vs {slowest_unaligned}"
            ),
            "expired" => assert_eq!(c.start_delay_ms, None, "{c:?}"),
            _ => {}
        }
    }
    // Same load, same output: both are exactly-once and failure-free.
    assert_eq!(ra.flink.unwrap().output.upserts, fu.output.upserts);
}

#[test]
fn two_input_alignment_blocks_the_fast_input() {
    let s = load("flink-alignment-two-inputs");
    let (sim, _) = run_checked("alignment", &s, None);
    let j = job(&sim);
    let names = j.task_names();
    let count = names.iter().position(|n| n == "count-0").expect("count-0") as u8;
    let aligned: Vec<u64> = flink_notes(&sim)
        .filter_map(|n| match n {
            FlinkNote::SnapshotTaken {
                task,
                alignment,
                unaligned: false,
                ..
            } if *task == eos_core::ids::NodeId::Task(count) && *alignment > 0 => Some(*alignment),
            _ => None,
        })
        .collect();
    assert!(!aligned.is_empty(), "the two-input counter never waited");
    let blocked = flink_notes(&sim).any(|n| {
        matches!(n, FlinkNote::BarrierReceived { task, blocked: true, .. }
            if *task == eos_core::ids::NodeId::Task(count))
    });
    assert!(
        blocked,
        "no BarrierReceived {{ blocked: true }} at the counter"
    );
    // Single-input tasks never block.
    assert!(!flink_notes(&sim).any(|n| {
        matches!(n, FlinkNote::BarrierReceived { task, blocked: true, .. }
            if *task != eos_core::ids::NodeId::Task(count))
    }));
    // The checkpoint timeline shows the alignment; both it and the start delay (maxima over
    // the tasks, not always the same task's) fall within the checkpoint's duration.
    assert!(j
        .coordinator
        .history
        .iter()
        .any(|h| h.outcome == CheckpointOutcome::Completed && h.alignment > 0));
    for h in &j.coordinator.history {
        if let (CheckpointOutcome::Completed, Some(d)) = (h.outcome, h.duration()) {
            assert_eq!(h.barriers_awaited, 0, "{h:?}");
            assert!(
                h.start_delay <= d && h.alignment <= d && h.start_delay > 0,
                "{h:?}"
            );
        }
    }
    // At-least-once never blocks.
    let alo = edit(&s, |f| {
        f.flink.as_mut().unwrap().checkpointing = "at-least-once".into()
    });
    let (sim_alo, _) = run_checked("alignment alo", &alo, None);
    assert!(!flink_notes(&sim_alo)
        .any(|n| matches!(n, FlinkNote::BarrierReceived { blocked: true, .. })));
}

// ---------------------------------------------------------------------------------------
// Validation.

const VALID: &str = r#"
version = 1
name = "v"

[[topics]]
name = "in"

[[topics]]
name = "out"

[[producers]]
name = "p"

[[producers.sends]]
topic = "in"
count = 3

[flink]
checkpointing = "exactly-once"

[[flink.operators]]
name = "source"
kind = "source"
topic = "in"

[[flink.operators]]
name = "loop"
kind = "map"
inputs = ["source"]

[[flink.operators]]
name = "sink"
kind = "kafka-2pc"
topic = "out"
inputs = ["loop"]
"#;

fn field_errors(text: &str) -> Vec<FieldError> {
    match Scenario::parse(text) {
        Ok(_) => panic!("expected an error, it parsed:\n{text}"),
        Err(ScenarioError::Invalid(errors)) => errors,
        Err(other) => panic!("expected field errors, got {other}"),
    }
}

fn error_for<'a>(errors: &'a [FieldError], field: &str) -> &'a FieldError {
    errors
        .iter()
        .find(|e| e.field == field)
        .unwrap_or_else(|| panic!("no error for {field}: {errors:#?}"))
}

#[test]
fn the_validation_base_is_valid_and_runs() {
    let s = Scenario::parse(VALID).unwrap_or_else(|e| panic!("{e}"));
    let (sim, _) = run_checked("valid", &s, None);
    let out = FlinkOutput::of(&sim).unwrap();
    assert_eq!(out.committed.len(), 3);
    let forced = VALID
        .replace("kind = \"map\"", "kind = \"iterate\"\npasses = 2")
        .replace(
            "checkpointing = \"exactly-once\"",
            "checkpointing = \"exactly-once\"\nforce = true",
        );
    Scenario::parse(&forced).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn an_iterative_job_needs_force() {
    let text = VALID.replace("kind = \"map\"", "kind = \"iterate\"\npasses = 2");
    let errors = field_errors(&text);
    let e = error_for(&errors, "flink.force");
    assert!(e.message.contains("force = true"), "{e}");
    let rendered = ScenarioError::Invalid(errors.clone()).to_string();
    assert!(rendered.contains("flink.force"), "{rendered}");
}

#[test]
fn unaligned_needs_exactly_once_and_one_concurrent_checkpoint() {
    let text = VALID.replace(
        "checkpointing = \"exactly-once\"",
        "checkpointing = \"at-least-once\"\nunaligned = true",
    );
    let errors = field_errors(&text);
    let e = error_for(&errors, "flink.unaligned");
    assert!(e.message.contains("exactly-once"), "{e}");
    let text = VALID.replace(
        "checkpointing = \"exactly-once\"",
        "checkpointing = \"exactly-once\"\nunaligned = true\nmax_concurrent_checkpoints = 2",
    );
    error_for(&field_errors(&text), "flink.unaligned");
    let ok = VALID.replace(
        "checkpointing = \"exactly-once\"",
        "checkpointing = \"exactly-once\"\nunaligned = true",
    );
    Scenario::parse(&ok).unwrap_or_else(|e| panic!("{e}"));
}

/// Flink's aligned-checkpoint-timeout has effect only with unaligned checkpoints on: alone
/// it is refused, naming what it needs.
#[test]
fn an_aligned_checkpoint_timeout_needs_unaligned_checkpoints() {
    let text = VALID.replace(
        "checkpointing = \"exactly-once\"",
        "checkpointing = \"exactly-once\"\naligned_checkpoint_timeout_ms = 100",
    );
    let errors = field_errors(&text);
    let e = error_for(&errors, "flink.aligned_checkpoint_timeout_ms");
    assert!(e.message.contains("unaligned = true"), "{e}");
    let ok = VALID.replace(
        "checkpointing = \"exactly-once\"",
        "checkpointing = \"exactly-once\"\nunaligned = true\naligned_checkpoint_timeout_ms = 100",
    );
    let s = Scenario::parse(&ok).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = s.simulation(None);
    sim.run(eos_core::RunLimit::Steps(1));
    let config = &job(&sim).config;
    assert!(!config.unaligned, "starts aligned");
    assert!(config.aligned_timeout.is_some());
}

/// A savepoint is always aligned, with no timeout, even after it failed and a new one
/// replaced it; and a task told that a checkpoint was aborted snapshots nothing for it when
/// its barrier comes late.
#[test]
fn a_failed_savepoints_barriers_neither_overtake_nor_snapshot() {
    for name in [
        "flink-backpressure-aligned-timeout",
        "flink-backpressure-unaligned",
    ] {
        let s = load(name);
        let (sim, _, _) = run_report(name, &s);
        let history = &job(&sim).coordinator.history;
        let savepoints: Vec<u64> = history.iter().filter(|c| c.last).map(|c| c.id).collect();
        assert!(
            savepoints.len() >= 2,
            "{name}: the first stop failed: {savepoints:?}"
        );
        for rec in sim.trace() {
            for n in &rec.notes {
                let Note::Flink(f) = n else { continue };
                match f {
                    FlinkNote::SwitchedToUnaligned { id, .. }
                    | FlinkNote::SnapshotTaken {
                        id,
                        unaligned: true,
                        ..
                    } => {
                        assert!(!savepoints.contains(id), "{name} #{}: {f:?}", rec.step);
                    }
                    _ => {}
                }
                if let FlinkNote::SnapshotTaken { id, .. } = f {
                    let expired_before = history.iter().any(|c| {
                        c.id == *id
                            && c.outcome == CheckpointOutcome::Expired
                            && c.finished_at.is_some_and(|t| t < rec.time)
                    });
                    assert!(!expired_before, "{name} #{}: {f:?}", rec.step);
                }
            }
        }
    }
}

#[test]
fn an_unknown_operator_kind_is_refused_with_its_path() {
    let text = VALID.replace("kind = \"map\"", "kind = \"flatmap\"");
    let errors = field_errors(&text);
    let e = error_for(&errors, "flink.operators[1].kind");
    assert!(e.message.contains("\"flatmap\""), "{e}");
    assert!(
        e.message.contains("\"count\""),
        "lists the allowed kinds: {e}"
    );
}

#[test]
fn an_input_declared_after_its_consumer_is_refused_with_its_path() {
    // The map reads from the sink declared after it.
    let text = VALID.replace("inputs = [\"source\"]", "inputs = [\"sink\"]");
    let errors = field_errors(&text);
    let e = error_for(&errors, "flink.operators[1].inputs[0]");
    assert!(e.message.contains("declared before"), "{e}");
    let text = VALID.replace("inputs = [\"source\"]", "inputs = [\"nobody\"]");
    let errors = field_errors(&text);
    let e = error_for(&errors, "flink.operators[1].inputs[0]");
    assert!(e.message.contains("\"nobody\""), "{e}");
}

#[test]
fn a_crash_of_an_unknown_task_is_refused() {
    let s = load("flink-2pc-crash-recovery");
    let err = s.with_fault(crash(10, "count-1")).unwrap_err().to_string();
    assert!(err.contains("count-1"), "{err}");
    s.with_fault(crash(10, "source-1"))
        .unwrap_or_else(|e| panic!("{e}"));
}

// ---------------------------------------------------------------------------------------
// Determinism.

#[test]
fn the_same_flink_scenario_and_seed_give_the_same_run() {
    for name in [
        "flink-2pc-crash-recovery",
        "flink-backpressure-unaligned",
        "flink-at-least-once-overcount",
    ] {
        let s = load(name);
        let mut a = s.simulation(None);
        a.run(eos_core::RunLimit::Completion);
        let mut b = s.simulation(None);
        b.run(eos_core::RunLimit::Completion);
        assert_eq!(a.trace_hash(), b.trace_hash(), "{name}");
        assert_eq!(a.state_hash(), b.state_hash(), "{name}");
        assert_eq!(a.steps(), b.steps(), "{name}");
        assert_eq!(FlinkOutput::of(&a), FlinkOutput::of(&b), "{name}");
        let ra = Report::of(name, &a);
        let rb = Report::of(name, &b);
        assert_eq!(ra.trace_hash, rb.trace_hash);
        // Without the trace, the same hashes.
        let mut c = s.simulation_without_trace(None);
        c.run(eos_core::RunLimit::Completion);
        assert_eq!(a.trace_hash(), c.trace_hash(), "{name}: trace kept or not");
    }
}

#[test]
fn the_aligned_checkpoint_timeout_switches_stuck_barriers_to_unaligned() {
    let s = load("flink-backpressure-aligned-timeout");
    let (sim, r, _) = run_report("aligned-timeout", &s);
    let f = r.flink.as_ref().unwrap();
    // Unaligned checkpoints enabled, each starting aligned: the report says both.
    assert!(
        f.unaligned && f.aligned_checkpoint_timeout_ms == Some(100),
        "{f:?}"
    );
    // No periodic checkpoint expires (the stop's savepoint, always aligned, does once).
    assert_eq!(
        (periodic_expired(&sim), stop_outcomes(&sim)),
        (
            0,
            vec![CheckpointOutcome::Expired, CheckpointOutcome::Completed]
        ),
        "{f:#?}"
    );
    assert!(
        f.checkpoints.iter().any(|c| c.outcome == "completed"
            && c.unaligned_tasks > 0
            && c.channel_state_records > 0),
        "some checkpoint switched to unaligned and stored channel state: {f:#?}"
    );
    assert!(
        flink_notes(&sim).any(|n| matches!(n, FlinkNote::SwitchedToUnaligned { .. })),
        "the switch is narrated"
    );
    // Aligned without the timeout (and without unaligned checkpoints, which it needs), the
    // same job's checkpoints expire.
    let mut file = s.file.clone();
    if let Some(fl) = file.flink.as_mut() {
        fl.aligned_checkpoint_timeout_ms = None;
        fl.unaligned = false;
        fl.tolerable_failed_checkpoints = 100;
    }
    let plain = Scenario::from_file(file).unwrap();
    let (_, rp, _) = run_report("aligned", &plain);
    assert!(rp.flink.unwrap().expired >= 1);
}

#[test]
fn a_taskmanager_crash_takes_its_subtasks_down_and_the_job_recovers() {
    let s = load("flink-2pc-crash-recovery");
    let mut file = s.file.clone();
    file.faults.clear();
    if let Some(f) = file.flink.as_mut() {
        f.taskmanagers = 2;
    }
    file.faults.push(FaultSpec {
        at_ms: 450,
        action: "crash".into(),
        target: Some("taskmanager-1".into()),
        ..Default::default()
    });
    let s = Scenario::from_file(file).expect("taskmanager-1 is a valid target");
    assert!(s.process_names().contains(&"taskmanager-1".to_string()));
    let (sim, r, _) = run_report("taskmanager crash", &s);
    let f = r.flink.as_ref().unwrap();
    let diff = f.versus_failure_free.clone();
    assert_eq!(f.failovers, 1, "one failover for the whole worker");
    // Subtasks 1 and 3 (source-1 and sink-0) lived on taskmanager-1.
    let crashed: Vec<String> = sim
        .trace()
        .iter()
        .flat_map(|s| s.notes.iter())
        .filter_map(|n| match n {
            eos_core::sim::Note::Crashed { node } => Some(sim.names.node(*node)),
            _ => None,
        })
        .collect();
    assert_eq!(crashed, vec!["source-1".to_string(), "sink-0".to_string()]);
    // sink-0's process died with its worker: it closes no writer.
    assert!(!flink_notes(&sim).any(|n| matches!(n, FlinkNote::WriterClosedAborting { .. })));
    assert!(
        diff.as_ref().is_some_and(FlinkDiff::is_empty),
        "exactly-once after a worker crash: {diff:?}"
    );
    // A TaskManager beyond the configured ones is refused.
    let mut bad = s.file.clone();
    bad.faults[0].target = Some("taskmanager-2".into());
    assert!(Scenario::from_file(bad).is_err());
}

/// At a failover a 2PC sink whose process lives closes its writer, which aborts the
/// transaction it has open (KafkaWriter's `close()`), before the restore; a sink whose own
/// process died (it crashed, or its TaskManager did) aborts nothing.
#[test]
fn a_cancelled_sink_aborts_its_open_transaction_and_a_dead_one_cannot() {
    let closed = |sim: &Simulation| -> Vec<(eos_core::time::SimTime, String)> {
        sim.trace()
            .iter()
            .flat_map(|r| r.notes.iter().map(move |n| (r.time, n)))
            .filter_map(|(t, n)| match n {
                Note::Flink(FlinkNote::WriterClosedAborting {
                    transactional_id, ..
                }) => Some((t, transactional_id.clone())),
                _ => None,
            })
            .collect()
    };
    let s = load("flink-2pc-crash-recovery");
    let (sim, r, _) = run_report("2pc crash", &s);
    let failed_at = sim
        .trace()
        .iter()
        .find(|rec| {
            rec.notes
                .iter()
                .any(|n| matches!(n, Note::Flink(FlinkNote::JobFailing { .. })))
        })
        .map(|rec| rec.time)
        .expect("a failover");
    assert_eq!(
        closed(&sim),
        vec![(
            failed_at + eos_core::time::ms(1),
            "flink-sink-0-2".to_string()
        )]
    );
    let aborted_before_restore = sim.trace().iter().any(|rec| {
        rec.notes.iter().any(|n| {
            matches!(n, Note::TxnTransition { transactional_id, to, .. }
                if transactional_id == "flink-sink-0-2" && to == "PrepareAbort")
        }) && !sim
            .trace()
            .iter()
            .take_while(|r| r.step < rec.step)
            .any(|r| {
                r.notes
                    .iter()
                    .any(|n| matches!(n, Note::Flink(FlinkNote::JobRestored { .. })))
            })
    });
    assert!(aborted_before_restore);
    assert!(r
        .flink
        .as_ref()
        .and_then(|f| f.versus_failure_free.as_ref())
        .is_some_and(|d| d.is_empty()));
    // The sink itself crashes: nothing closes its writer.
    let s = load("flink-2pc-txn-timeout-loss");
    let (sim, _, _) = run_report("sink crash", &s);
    assert!(closed(&sim).is_empty());
}

/// A periodic trigger that comes while the one checkpoint allowed is still pending waits in
/// the queue (Flink's `CheckpointRequestDecider`) and runs the moment that checkpoint ends,
/// not at the next interval: checkpoint 2 expires 700 ms after its trigger at 1.5 s, and
/// checkpoint 3 is triggered then, at 2.2 s, between two ticks of the 500 ms interval.
#[test]
fn a_trigger_queued_behind_a_pending_checkpoint_runs_when_it_ends() {
    let base = load("flink-backpressure-aligned");
    let mut file = base.file.clone();
    file.flink.as_mut().expect("flink").checkpoint_timeout_ms = 700;
    let s = Scenario::from_file(file).expect("valid");
    let mut sim = s.simulation(None);
    sim.run(eos_core::RunLimit::Completion);
    let history = &sim.flink.as_ref().expect("a job").coordinator.history;
    let interval = eos_core::time::ms(500);
    let early = history
        .windows(2)
        .find(|w| w[0].finished_at == Some(w[1].triggered_at) && w[1].triggered_at % interval != 0);
    let w = early.expect("a trigger run off the interval");
    let (before, queued) = (&w[0], &w[1]);
    assert_eq!(before.outcome, CheckpointOutcome::Expired);
    assert!(
        !queued.last,
        "a periodic checkpoint, not the stop's savepoint"
    );
    // Never two pending at once.
    assert!(
        sim.flink
            .as_ref()
            .expect("a job")
            .coordinator
            .max_pending_seen
            <= 1
    );
}

/// The restart strategy (Flink ≥ 1.19's default, exponential-delay, and fixed-delay): three
/// crashes close together wait 500 ms, then × 1.5 and × 1.5 again, each within ± 10 %; fixed
/// delay waits 500 ms every time. The narration gives the wait.
#[test]
fn exponential_delay_grows_between_close_failures_and_fixed_delay_does_not() {
    let restarts = |strategy: &str| -> Vec<u64> {
        let text = text_of("flink-2pc-crash-recovery")
            .replace(
                "restart_delay_ms = 500",
                &format!("restart_delay_ms = 500\nrestart_strategy = \"{strategy}\""),
            )
            .replace(
                "[[consumers]]",
                "[[faults]]\nat_ms = 1300\naction = \"crash\"\ntarget = \"count-0\"\n\n\
                 [[faults]]\nat_ms = 2400\naction = \"crash\"\ntarget = \"count-0\"\n\n\
                 [[consumers]]",
            );
        let s = Scenario::parse(&text).unwrap_or_else(|e| panic!("{strategy}: {e}"));
        let mut sim = s.simulation(None);
        sim.run(eos_core::sim::RunLimit::Completion);
        let mut failed = None;
        let mut waits = Vec::new();
        for rec in sim.trace() {
            for n in &rec.notes {
                match n {
                    Note::Flink(FlinkNote::JobFailing { backoff, .. }) => {
                        failed = Some((rec.time, *backoff));
                    }
                    Note::Flink(FlinkNote::JobRestored { after, .. }) => {
                        let (at, _) = failed.take().expect("a failure before the restore");
                        assert_eq!(rec.time - at, *after, "{strategy}");
                        waits.push(*after / eos_core::time::ms(1));
                    }
                    _ => {}
                }
            }
        }
        waits
    };
    let fixed = restarts("fixed-delay");
    assert_eq!(fixed, [500, 500, 500]);
    let grown = restarts("exponential-delay");
    assert_eq!(grown.len(), 3, "{grown:?}");
    for (wait, base) in grown.iter().zip([500u64, 750, 1125]) {
        assert!(
            wait * 10 >= base * 9 && wait * 10 <= base * 11,
            "{grown:?}: {wait} is not {base} ± 10 %"
        );
    }
    // A misspelt strategy, or an initial backoff above the maximum, is refused by name.
    for (bad, field) in [
        ("restart_strategy = \"fixed\"", "flink.restart_strategy"),
        ("restart_max_backoff_ms = 100", "flink.restart_delay_ms"),
    ] {
        let text = text_of("flink-2pc-crash-recovery").replace(
            "restart_delay_ms = 500",
            &format!("restart_delay_ms = 500\n{bad}"),
        );
        match Scenario::parse(&text) {
            Err(ScenarioError::Invalid(errors)) => assert!(
                errors.iter().any(|e: &FieldError| e.field == field),
                "{bad}: {errors:?}"
            ),
            other => panic!("{bad}: {other:?}"),
        }
    }
}

/// A failed savepoint does not count against the tolerable checkpoint failures: with the
/// threshold at 0, a periodic checkpoint's expiry fails the job over, but the stop's
/// savepoints that expire after it do not. After the third failed stop the run cancels the
/// job (an operator's `flink cancel`), so the run ends instead of running into its limit.
#[test]
fn failed_savepoints_do_not_fail_the_job_over_and_the_third_cancels_it() {
    let s = edit(&load("flink-backpressure-unaligned"), |f| {
        if let Some(fl) = f.flink.as_mut() {
            fl.unaligned = false;
            fl.tolerable_failed_checkpoints = 0;
        }
    });
    let (sim, r, _) = run_report("aligned, no tolerance", &s);
    let f = r.flink.as_ref().expect("a job");
    let failovers = flink_notes(&sim)
        .filter(|n| matches!(n, FlinkNote::JobFailing { .. }))
        .count();
    assert_eq!(
        (periodic_expired(&sim), failovers),
        (1, 1),
        "one periodic expiry, one failover: {f:#?}"
    );
    assert_eq!(stop_outcomes(&sim), vec![CheckpointOutcome::Expired; 3]);
    assert!(f.checkpoints.iter().filter(|c| c.savepoint).count() == 3);
    assert_eq!(f.end, "cancelled");
    assert_eq!(job(&sim).phase, eos_core::flink::job::JobPhase::Cancelled);
    assert!(
        flink_notes(&sim).any(|n| matches!(n, FlinkNote::JobCancelled { attempts: 3 })),
        "the cancel is narrated"
    );
    // Nothing runs after the cancel: no checkpoint is triggered, no record processed.
    let cancelled_at = sim
        .trace()
        .iter()
        .position(|s| {
            s.notes
                .iter()
                .any(|n| matches!(n, Note::Flink(FlinkNote::JobCancelled { .. })))
        })
        .expect("a cancel step");
    assert!(
        !sim.trace()[cancelled_at + 1..]
            .iter()
            .any(|s| s.notes.iter().any(|n| matches!(
                n,
                Note::Flink(FlinkNote::CheckpointTriggered { .. } | FlinkNote::Processed { .. })
            ))),
        "the job is gone after the cancel"
    );
}

/// The JobManager's own failure is not modelled: a scenario that crashes it is refused with
/// a message saying what to do instead, not run into its step limit.
#[test]
fn a_jobmanager_crash_is_refused() {
    let text = text_of("flink-barrier-walkthrough")
        + "\n[[faults]]\nat_ms = 300\naction = \"crash\"\ntarget = \"jobmanager\"\n";
    let e = Scenario::parse(&text).expect_err("refused");
    assert!(e.to_string().contains("the JobManager cannot crash"), "{e}");
}
