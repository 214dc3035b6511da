//! The Flink stage's view model: pure functions over the core's job (tested natively).

use eos_core::flink::config::RestartStrategy;
use eos_core::flink::graph::{OperatorKind, SinkKind};
use eos_core::flink::job::JobPhase;
use eos_core::flink::record::Item;
use eos_core::flink::snapshot::CheckpointOutcome;
use eos_core::flink::CheckpointMode;
use eos_core::ids::{NodeId, Tp};
use eos_core::sim::flink_note::FlinkNote;
use eos_core::sim::note::Note;
use eos_core::sim::Simulation;

use crate::i18n::{duration, Lang, S};
use crate::view_model::inspector::Selection;

/// A finished job's output against its failure-free twin (the same job, input and seed, no
/// faults), as `eos-sim run` reports it: the loss or over-count a failover left, which no
/// checkpoint shows. `None` until the job has finished, or without a twin.
pub fn versus_failure_free(
    sim: &Simulation,
    twin: Option<&eos_core::flink::outcome::FlinkOutput>,
    lang: Lang,
) -> Option<(String, bool)> {
    let job = sim.flink.as_ref()?;
    // A cancelled job never processed all of its input: its output says nothing of the
    // faults (the phase badge says it was cancelled).
    if job.phase != JobPhase::Finished {
        return None;
    }
    let run = eos_core::flink::outcome::FlinkOutput::of(sim)?;
    let d = eos_core::flink::outcome::diff(twin?, &run);
    Some(describe_diff(&d, &sim.names, lang))
}

/// Keys whose state differs named one by one; more are counted.
const KEYS_NAMED: usize = 3;

/// A job's output against its failure-free run, in words: "the same output as a
/// failure-free run", or only what differs: "10 lost", "key alice: 50, not 40". The flag
/// says whether it is the same.
pub fn describe_diff(
    d: &eos_core::flink::outcome::FlinkDiff,
    names: &eos_core::sim::names::Names,
    lang: Lang,
) -> (String, bool) {
    if d.is_empty() {
        return (S::SameAsFailureFree.get(lang).to_string(), true);
    }
    // The keys are named when there are few ("key alice: 50, not 40"), counted otherwise.
    let keys = d.state_differs.len();
    let parts: Vec<String> = [
        (d.lost.len(), S::NLost),
        (d.duplicated.len(), S::DuplicatedN),
        (if keys > KEYS_NAMED { keys } else { 0 }, S::KeysDifferN),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, s)| s.f(lang, &[&n]))
    .chain(
        d.state_differs
            .iter()
            .take(KEYS_NAMED)
            .map(|(k, want, got)| {
                let key = names.key(Some(*k)).unwrap_or_else(|| k.to_string());
                S::KeyWasNot.f(lang, &[&key, got, want])
            }),
    )
    .collect();
    (S::VersusFailureFree.f(lang, &[&parts.join(" · ")]), false)
}

/// Items shown per channel; the rest is counted.
pub const ITEMS_SHOWN: usize = 16;
/// Checkpoints shown on the timeline (the latest ones).
pub const CHECKPOINTS_SHOWN: usize = 8;

#[derive(Clone, Debug, PartialEq)]
pub struct TaskVm {
    pub name: String,
    pub kind: &'static str,
    /// "running", "crashed", "restarting", "finished"
    pub status: &'static str,
    /// Records processed since the last restore (Flink's task metrics start again).
    pub processed: u64,
    /// Records processed in all attempts.
    pub processed_all: u64,
    pub state: String,
    pub detail: Option<String>,
    /// The last checkpoint this task snapshotted.
    pub snapshot: u64,
    /// A source's positions in that snapshot ("orders-0 @7"), where a restore resumes: its
    /// `detail` is where it reads now.
    pub saved: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ChannelItemVm {
    /// `record`, `barrier`, or `more` (records not drawn, counted in `label`: "+9").
    pub kind: &'static str,
    pub label: String,
    /// What a `more` count stands for, or what a click opens, said on hover.
    pub title: Option<String>,
    /// What a click on it opens: a record (followed through the job), a barrier's checkpoint.
    pub pick: Option<Selection>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ChannelVm {
    pub from: String,
    pub to: String,
    pub items: Vec<ChannelItemVm>,
    pub records: usize,
    pub capacity: u32,
    pub blocked: bool,
    pub loop_edge: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CheckpointVm {
    pub id: u64,
    /// The stop's savepoint, not a periodic checkpoint.
    pub savepoint: bool,
    /// "pending", "completed", "expired", "aborted"
    pub outcome: &'static str,
    pub acks: String,
    pub timing: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FlinkVm {
    pub mode: String,
    pub phase: &'static str,
    pub failovers: u32,
    pub tasks: Vec<TaskVm>,
    pub channels: Vec<ChannelVm>,
    pub checkpoints: Vec<CheckpointVm>,
    /// The restores among the checkpoints shown, in time order.
    pub restores: Vec<RestoreVm>,
    pub summary: String,
}

/// A restore on the checkpoint timeline: drawn before checkpoint chip `before` (the number
/// of chips triggered before it; the chips' count: after the last).
#[derive(Clone, Debug, PartialEq)]
pub struct RestoreVm {
    pub before: usize,
    pub label: String,
}

/// The job's phase (`FlinkVm::phase`) in the page's language.
pub fn phase_word(phase: &str, lang: Lang) -> &'static str {
    match phase {
        "restarting" => S::Restarting.get(lang),
        "finished" => S::Finished.get(lang),
        "cancelled" => S::Cancelled.get(lang),
        _ => S::Running.get(lang),
    }
}

/// A subtask's status (`TaskVm::status`) in the page's language.
pub fn status_word(status: &str, lang: Lang) -> &'static str {
    match status {
        "crashed" => S::TaskCrashed.get(lang),
        "restarting" => S::Restarting.get(lang),
        "finished" => S::TaskFinished.get(lang),
        "cancelled" => S::TaskCancelled.get(lang),
        _ => S::Running.get(lang),
    }
}

/// A checkpoint's outcome (`CheckpointVm::outcome`) in the page's language.
/// A checkpoint's outcome as the view models name it (`CheckpointVm::outcome`).
pub fn outcome_name(o: CheckpointOutcome) -> &'static str {
    match o {
        CheckpointOutcome::Pending => "pending",
        CheckpointOutcome::Completed => "completed",
        CheckpointOutcome::Expired => "expired",
        CheckpointOutcome::Aborted => "aborted",
    }
}

/// A savepoint's (`savepoint`) in the word's feminine form, as Russian needs for
/// «точка сохранения».
pub fn outcome_word(outcome: &str, savepoint: bool, lang: Lang) -> &'static str {
    match (outcome, savepoint) {
        ("completed", false) => S::CpCompleted.get(lang),
        ("completed", true) => S::SpCompleted.get(lang),
        ("expired", false) => S::CpExpired.get(lang),
        ("expired", true) => S::SpExpired.get(lang),
        ("aborted", false) => S::CpAborted.get(lang),
        ("aborted", true) => S::SpAborted.get(lang),
        _ => S::CpPending.get(lang),
    }
}

/// An operator kind (`TaskVm::kind`) in the page's language; Flink's own operator names
/// (`map`, `count`, `iterate`) stay as they are.
pub fn kind_word(kind: &'static str, lang: Lang) -> &'static str {
    match kind {
        "source" => S::OpSource.get(lang),
        "2pc sink" => S::Op2pcSink.get(lang),
        "upsert sink" => S::OpUpsertSink.get(lang),
        "append sink" => S::OpAppendSink.get(lang),
        other => other,
    }
}

/// Partition positions as the stage writes them: "orders-0 @7, orders-1 @5".
fn positions(sim: &Simulation, at: &[(Tp, u64)]) -> String {
    at.iter()
        .map(|(tp, o)| format!("{} @{o}", sim.names.tp(*tp)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What source task `task` saved in its snapshot for checkpoint `id`: the positions its
/// barrier note gave (the newest such note: a restore keeps the snapshot, not the note).
fn saved_positions(sim: &Simulation, task: u8, id: u64) -> Option<String> {
    if id == 0 {
        return None;
    }
    sim.trace().iter().rev().find_map(|rec| {
        rec.notes.iter().find_map(|n| match n {
            Note::Flink(FlinkNote::BarrierEmitted {
                task: NodeId::Task(t),
                id: i,
                positions: at,
            }) if *t == task && *i == id => Some(positions(sim, at)),
            _ => None,
        })
    })
}

pub fn flink(sim: &Simulation, lang: Lang) -> Option<FlinkVm> {
    let job = sim.flink.as_ref()?;
    let ms = |t: u64| duration(t, lang);
    let names = job.task_names();
    let name = |t: u8| names.get(usize::from(t)).cloned().unwrap_or_default();
    let phase = match job.phase {
        JobPhase::Running => "running",
        JobPhase::Restarting => "restarting",
        JobPhase::Finished => "finished",
        JobPhase::Cancelled => "cancelled",
    };
    let tasks = job
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let def = &job.topology.tasks[i];
            let op = &job.operators[def.operator];
            let crashed = sim
                .status
                .get(&NodeId::Task(i as u8))
                .is_some_and(|s| s.crashed);
            // A crashed task's memory is gone: its state and transactions are what the next
            // restore brings back, not what is left in the model until then.
            let state = if t.counts.is_empty() || crashed {
                String::new()
            } else {
                t.counts
                    .iter()
                    .take(6)
                    .map(|(k, v)| {
                        format!("{}={v}", sim.names.key(Some(*k)).unwrap_or(k.to_string()))
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let finished = job.phase == JobPhase::Finished;
            let detail = if crashed {
                None
            } else if let Some(src) = &t.source {
                let now: Vec<(Tp, u64)> = src.positions.iter().map(|(tp, o)| (*tp, *o)).collect();
                Some(S::SourcePosition.f(lang, &[&positions(sim, &now)]))
            } else if let Some(sink) = &t.sink {
                // A finished job's last, empty transaction is never used.
                let open = sink
                    .current
                    .as_ref()
                    .filter(|c| !(finished && c.written.is_empty()))
                    .map_or(S::NoneAtAll.get(lang).to_string(), |c| {
                        // Written as the event log says it: handed to the producer, whether
                        // or not Kafka has acknowledged it yet.
                        let waiting = c.unacked.len() + c.buffer.len();
                        let all = c.written.len() + waiting;
                        if waiting == 0 {
                            S::SinkWritten.f(lang, &[&c.transactional_id, &all])
                        } else {
                            S::SinkWrittenUnacked.f(lang, &[&c.transactional_id, &all, &waiting])
                        }
                    });
                let pending: Vec<String> = sink
                    .pending
                    .iter()
                    .map(|c| S::CpN.f(lang, &[&c.checkpoint]))
                    .collect();
                let mut line = if pending.is_empty() {
                    S::SinkOpen.f(lang, &[&open])
                } else {
                    S::SinkOpenPending.f(lang, &[&open, &pending.join(", ")])
                };
                // Commits under way (EndTxn sent, no answer yet), a restored one named so: a
                // restore commits the last checkpoint's transactions again (recoverAndCommit).
                let committing: Vec<String> = sink
                    .committing
                    .values()
                    .chain(&sink.retry_commits)
                    .map(|c| {
                        // An id kept whole at a line's end.
                        let id = c.transactional_id.replace('-', "\u{2011}");
                        if c.recovered {
                            S::SinkRecovered.f(lang, &[&id, &c.checkpoint])
                        } else {
                            id
                        }
                    })
                    .collect();
                if !committing.is_empty() {
                    line.push_str(" · ");
                    line.push_str(&S::SinkCommitting.f(lang, &[&committing.join(", ")]));
                }
                Some(line)
            } else if let (None, OperatorKind::Sink(kind @ (SinkKind::Upsert | SinkKind::Append))) =
                (&t.align, &op.kind)
            {
                // The external system it writes to, which no restart rolls back.
                let store = &job.external;
                Some(if *kind == SinkKind::Upsert {
                    S::StoreHolds.f(lang, &[&store.upserts.len(), &store.upsert_writes])
                } else {
                    let again = store.appended_copies().values().filter(|c| **c > 1).count();
                    S::LogHolds.f(lang, &[&store.appended.len(), &again])
                })
            } else {
                t.align.as_ref().map(|a| {
                    // AT_LEAST_ONCE tracks barriers and blocks nothing (Flink's
                    // CheckpointBarrierTracker): not an alignment.
                    let which = if a.unaligned {
                        S::Unaligned
                    } else if job.config.mode == CheckpointMode::AtLeastOnce {
                        S::TrackingBarriers
                    } else {
                        S::Aligning
                    };
                    which.f(lang, &[&a.id, &a.received.len(), &def.inputs.len()])
                })
            };
            let status = if crashed {
                "crashed"
            } else if job.phase == JobPhase::Restarting {
                "restarting"
            } else if job.phase == JobPhase::Cancelled {
                "cancelled"
            } else if t.finished || finished {
                "finished"
            } else {
                "running"
            };
            TaskVm {
                name: name(i as u8),
                kind: match &op.kind {
                    OperatorKind::Source { .. } => "source",
                    OperatorKind::Map => "map",
                    OperatorKind::Count => "count",
                    OperatorKind::Iterate { .. } => "iterate",
                    OperatorKind::Sink(SinkKind::KafkaTwoPhase { .. }) => "2pc sink",
                    OperatorKind::Sink(SinkKind::Upsert) => "upsert sink",
                    OperatorKind::Sink(SinkKind::Append) => "append sink",
                },
                status,
                processed: t.processed,
                processed_all: t.processed_all,
                state,
                detail,
                snapshot: t.last_snapshot,
                saved: t
                    .source
                    .as_ref()
                    .and_then(|_| saved_positions(sim, i as u8, t.last_snapshot)),
            }
        })
        .collect();
    let channels = job
        .topology
        .channels
        .iter()
        .zip(&job.channels)
        .map(|(d, c)| {
            // The first `ITEMS_SHOWN` items, then the records past them counted ("+9"); a
            // barrier is always drawn where it is, however far back it waits (behind a
            // full buffer, the picture the backpressure lessons are about).
            let mut items: Vec<ChannelItemVm> = Vec::new();
            let mut hidden = 0usize;
            let more = |items: &mut Vec<ChannelItemVm>, hidden: &mut usize| {
                if *hidden > 0 {
                    items.push(ChannelItemVm {
                        kind: "more",
                        label: format!("+{hidden}"),
                        title: Some(S::RecordsNotDrawn.f(lang, &[hidden])),
                        pick: None,
                    });
                    *hidden = 0;
                }
            };
            for (i, s) in c.queue.iter().enumerate() {
                let shown = match s.item {
                    Item::Record(r) => (i < ITEMS_SHOWN).then(|| {
                        let label = sim.names.record(r.id);
                        ChannelItemVm {
                            kind: "record",
                            title: Some(S::InspectRecordInJob.f(lang, &[&label])),
                            label,
                            pick: Some(Selection::FlinkRecord(r.id)),
                        }
                    }),
                    Item::Barrier { id, .. } => Some(ChannelItemVm {
                        kind: "barrier",
                        label: format!("B{id}"),
                        title: Some(S::InspectCheckpoint.f(lang, &[&id])),
                        pick: Some(Selection::Checkpoint(id)),
                    }),
                };
                match shown {
                    Some(item) => {
                        more(&mut items, &mut hidden);
                        items.push(item);
                    }
                    None => hidden += 1,
                }
            }
            more(&mut items, &mut hidden);
            ChannelVm {
                from: name(d.from),
                to: name(d.to),
                items,
                records: c.records(),
                capacity: c.capacity,
                blocked: c.blocked,
                loop_edge: d.loop_edge,
            }
        })
        .collect();
    let total = job.tasks.len();
    let h = &job.coordinator.history;
    let shown = &h[h.len().saturating_sub(CHECKPOINTS_SHOWN)..];
    let checkpoints = shown
        .iter()
        .map(|s| CheckpointVm {
            id: s.id,
            savepoint: s.last,
            outcome: outcome_name(s.outcome),
            acks: format!("{}/{total}", s.acks.len()),
            timing: match s.duration() {
                Some(d) if s.alignment > 0 => {
                    let words = if job.config.mode == CheckpointMode::AtLeastOnce {
                        S::BarriersN
                    } else {
                        S::AlignN
                    };
                    words.f(lang, &[&ms(d), &ms(s.alignment)])
                }
                Some(d) => ms(d),
                None => S::SinceN.f(lang, &[&ms(s.triggered_at)]),
            },
        })
        .collect();
    let mode = match (job.config.mode, job.config.unaligned) {
        (CheckpointMode::AtLeastOnce, _) => S::ModeAtLeastOnce.get(lang).to_string(),
        (CheckpointMode::ExactlyOnce, true) => S::ModeUnaligned.get(lang).to_string(),
        (CheckpointMode::ExactlyOnce, false) => match job.config.aligned_timeout {
            Some(t) => S::ModeAlignedTimeout.f(lang, &[&ms(t)]),
            None => S::ModeAligned.get(lang).to_string(),
        },
    };
    let completed = h
        .iter()
        .filter(|s| s.outcome == CheckpointOutcome::Completed)
        .count();
    // The restores since the first chip shown (a restore at the moment a checkpoint was
    // triggered came first: a trigger waits for the restored job).
    let since = shown.first().map_or(0, |s| s.triggered_at);
    let restores = job
        .restores
        .iter()
        .filter(|r| r.at >= since)
        .map(|r| RestoreVm {
            before: shown.iter().filter(|s| s.triggered_at < r.at).count(),
            label: match r.checkpoint {
                Some(id) => S::RestoredFromCp.f(lang, &[&id, &ms(r.at)]),
                None => S::RestartedFromScratch.f(lang, &[&ms(r.at)]),
            },
        })
        .collect();
    Some(FlinkVm {
        summary: S::FlinkSummary.f(
            lang,
            &[&ms(job.config.interval), &completed, &job.failovers],
        ),
        mode,
        phase,
        failovers: job.failovers,
        tasks,
        channels,
        checkpoints,
        restores,
    })
}

/// The inspector's view of a Flink task or of the JobManager.
pub fn inspect(
    sim: &Simulation,
    node: NodeId,
    lang: Lang,
) -> crate::view_model::inspector::InspectorVm {
    let title = sim.names.node(node);
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut notes = Vec::new();
    let row = |k: S, v: String| (k.get(lang).to_string(), v);
    match (node, flink(sim, lang)) {
        (NodeId::Task(i), Some(vm)) => {
            if let Some(t) = vm.tasks.get(usize::from(i)) {
                rows.push(row(S::Operator, kind_word(t.kind, lang).to_string()));
                rows.push(row(S::Status, status_word(t.status, lang).to_string()));
                rows.push(row(
                    S::Processed,
                    if t.processed_all == t.processed {
                        t.processed.to_string()
                    } else {
                        S::ProcessedSinceRestore.f(lang, &[&t.processed, &t.processed_all])
                    },
                ));
                rows.push(row(
                    S::LastSnapshot,
                    match &t.saved {
                        Some(at) => S::SnapshotSavedRow.f(lang, &[&t.snapshot, at]),
                        None if t.snapshot == 0 => S::NoSnapshotYet.get(lang).to_string(),
                        None => t.snapshot.to_string(),
                    },
                ));
                if !t.state.is_empty() {
                    rows.push(row(S::State, t.state.clone()));
                }
                if let Some(d) = &t.detail {
                    rows.push(row(S::Detail, d.clone()));
                }
                for c in vm.channels.iter().filter(|c| c.to == t.name) {
                    rows.push((
                        S::InputFrom.f(lang, &[&c.from]),
                        format!(
                            "{}{}",
                            S::ChannelFill.f(lang, &[&c.records, &c.capacity]),
                            if c.blocked {
                                S::CommaBlocked.get(lang)
                            } else {
                                ""
                            }
                        ),
                    ));
                }
            } else {
                notes.push(S::NoTask.get(lang).to_string());
            }
        }
        (NodeId::JobManager, Some(vm)) => {
            rows.push(row(S::Checkpointing, vm.mode.clone()));
            rows.push(row(S::Job, phase_word(vm.phase, lang).to_string()));
            rows.push(row(S::Summary, vm.summary.clone()));
            if let Some(job) = sim.flink.as_ref() {
                let c = &job.config;
                let d = |t| duration(t, lang);
                rows.push(row(
                    S::RestartStrategyRow,
                    match c.restart_strategy {
                        RestartStrategy::FixedDelay => {
                            S::FixedDelayN.f(lang, &[&d(c.restart_delay)])
                        }
                        RestartStrategy::ExponentialDelay => {
                            S::ExponentialDelayN.f(lang, &[&d(c.restart_delay), &d(c.max_backoff)])
                        }
                    },
                ));
            }
            for c in &vm.checkpoints {
                rows.push((
                    S::Checkpoint.f(lang, &[&c.id]),
                    S::CheckpointLine.f(
                        lang,
                        &[
                            &outcome_word(c.outcome, c.savepoint, lang),
                            &c.acks,
                            &c.timing,
                        ],
                    ),
                ));
            }
        }
        _ => notes.push(S::NoFlinkJob.get(lang).to_string()),
    }
    crate::view_model::inspector::InspectorVm {
        kind: "task",
        title,
        rows,
        notes,
        message: None,
        picks: Vec::new(),
        steps: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use eos_core::scenario::builtin;
    use eos_core::sim::RunLimit;

    fn sim(name: &str) -> Simulation {
        let s = builtin::get(name).expect("built-in");
        s.simulation(None)
    }

    /// After a restore the sink commits the last checkpoint's transaction again: its card
    /// names it as restored while the commit is under way.
    #[test]
    fn a_restored_transaction_being_committed_is_on_the_sink_card() {
        let mut s = sim("flink-2pc-crash-recovery");
        let mut seen = None;
        while seen.is_none() && s.step() == eos_core::sim::StepOutcome::Stepped {
            let vm = flink(&s, Lang::En).expect("a job");
            seen = vm
                .tasks
                .iter()
                .filter_map(|t| t.detail.clone())
                .find(|d| d.contains("committing:"));
        }
        // The first: checkpoint 1's own commit, before the crash.
        let detail = seen.expect("a commit under way on the sink card");
        assert!(
            detail.contains("committing: flink\u{2011}sink\u{2011}0\u{2011}1")
                && !detail.contains("restored"),
            "{detail}"
        );
        // Stepping on to the restore, the recovered commit is named as such.
        let mut restored = false;
        while !restored && s.step() == eos_core::sim::StepOutcome::Stepped {
            let vm = flink(&s, Lang::En).expect("a job");
            restored = vm
                .tasks
                .iter()
                .filter_map(|t| t.detail.as_deref())
                .any(|d| {
                    d.contains(
                        "committing: flink\u{2011}sink\u{2011}0\u{2011}1 (restored from cp 1)",
                    )
                });
        }
        assert!(restored, "the restored commit is named on the card");
    }

    #[test]
    fn a_finished_job_is_compared_with_its_failure_free_twin() {
        let twin_of = |name: &str| {
            let s = crate::builtins::get(name).expect("built-in");
            eos_core::flink::report::failure_free_output(&s, None)
        };
        let name = "flink-2pc-txn-timeout-loss";
        let mut s = sim(name);
        let twin = twin_of(name);
        s.step();
        assert_eq!(
            versus_failure_free(&s, twin.as_ref(), Lang::En),
            None,
            "not yet finished"
        );
        s.run(RunLimit::Completion);
        let (text, same) = versus_failure_free(&s, twin.as_ref(), Lang::En).expect("finished");
        // As `eos-sim run` says: "vs failure-free run: 10 lost".
        assert!(!same && text.ends_with(": 10 lost"), "{text}");
        let at_end = |name: &str| {
            let mut s = sim(name);
            s.run(RunLimit::Completion);
            versus_failure_free(&s, twin_of(name).as_ref(), Lang::En).expect("finished")
        };
        // An over-count names the key as the scenario does, as eos-sim does.
        let (text, same) = at_end("flink-at-least-once-overcount");
        assert!(!same && text.contains("key alice: 50, not 40"), "{text}");
        let (text, same) = at_end("flink-barrier-walkthrough");
        assert!(same, "{text}");
    }

    #[test]
    fn at_least_once_tracks_barriers_and_aligns_nothing() {
        let mut s = sim("flink-at-least-once-overcount");
        let (mut tracking, mut aligning) = (false, false);
        while s.step() == eos_core::sim::StepOutcome::Stepped {
            for t in flink(&s, Lang::En).expect("a job").tasks {
                let d = t.detail.unwrap_or_default();
                tracking |= d.starts_with("tracking cp");
                aligning |= d.starts_with("aligning");
            }
        }
        assert!(
            tracking && !aligning,
            "tracking {tracking}, aligning {aligning}"
        );
        // Its narration says the same: no input was blocked, no alignment.
        let said: Vec<String> = s
            .trace()
            .iter()
            .flat_map(|r| r.notes.iter())
            .map(|n| eos_core::sim::narration::narrate(&s.names, n))
            .filter(|t| t.contains("takes snapshot"))
            .collect();
        assert!(
            said.iter()
                .any(|t| t.contains("after its first barrier (no input was blocked)"))
                && said.iter().all(|t| !t.contains("alignment")),
            "{said:?}"
        );
        // Its checkpoint chips give the barriers' spread, not an alignment.
        let chips = flink(&s, Lang::En).expect("a job").checkpoints;
        assert!(
            chips.iter().any(|c| c.timing.contains(" · barriers "))
                && chips.iter().all(|c| !c.timing.contains("align")),
            "{chips:?}"
        );
        let runs = crate::view_model::checkpoints::runs(
            &crate::builtins::get("flink-at-least-once-overcount").expect("built-in"),
        );
        let duration = crate::view_model::checkpoints::charts(&runs, Lang::En).duration;
        let labels: Vec<&str> = duration.series.iter().map(|s| s.label.as_str()).collect();
        assert!(
            labels.len() == 1
                && labels[0].starts_with("AT_LEAST_ONCE (barrier spread, nothing blocked)"),
            "{labels:?}"
        );
    }

    /// After a failover a task counts what it processed since the restore (and in all), and
    /// the timeline marks the restore where it happened: after the checkpoint it restored,
    /// before the ones triggered later.
    #[test]
    fn a_restore_resets_the_processed_count_and_is_marked_on_the_timeline() {
        let mut s = sim("flink-2pc-crash-recovery");
        let mut restored = None;
        while s.step() == eos_core::sim::StepOutcome::Stepped {
            let Some(vm) = flink(&s, Lang::En) else {
                continue;
            };
            if !vm.restores.is_empty() && vm.phase == "running" {
                restored = Some(vm);
                break;
            }
        }
        let vm = restored.expect("the job restored");
        let job = s.flink.as_ref().expect("a job");
        let restore = job.restores[0];
        let id = restore.checkpoint.expect("from a checkpoint");
        assert_eq!(vm.restores.len(), 1);
        let marker = &vm.restores[0];
        assert!(
            marker.label.starts_with(&format!("↺ restored cp {id} at ")),
            "{marker:?}"
        );
        let before: Vec<u64> = vm.checkpoints[..marker.before]
            .iter()
            .map(|c| c.id)
            .collect();
        assert!(before.contains(&id), "{before:?} {marker:?}");
        // Every task starts counting again; at least one had done work since lost.
        assert!(vm.tasks.iter().all(|t| t.processed <= t.processed_all));
        assert!(
            vm.tasks.iter().any(|t| t.processed < t.processed_all),
            "{:?}",
            vm.tasks
        );
        let count = inspect(&s, NodeId::Task(1), Lang::En);
        assert!(
            count
                .rows
                .iter()
                .any(|(k, v)| k == "processed" && v.contains(" since the restore, ")),
            "{:?}",
            count.rows
        );
    }

    #[test]
    fn kafka_only_scenarios_have_no_flink_stage() {
        assert!(flink(&sim("seed-frozen-broker"), Lang::En).is_none());
    }

    /// Under backpressure a barrier waits behind a full buffer, past the items drawn: it is
    /// still drawn, where it is, between the counts of the records before and after it.
    #[test]
    fn a_barrier_behind_a_full_buffer_is_drawn_between_the_counts() {
        let mut s = sim("flink-backpressure-aligned");
        let mut seen = false;
        while !seen && s.step() == eos_core::sim::StepOutcome::Stepped {
            let vm = flink(&s, Lang::En).expect("a job");
            for c in &vm.channels {
                let kinds: Vec<&str> = c.items.iter().map(|i| i.kind).collect();
                let Some(b) = kinds.iter().position(|k| *k == "barrier") else {
                    continue;
                };
                if b > ITEMS_SHOWN {
                    assert_eq!(kinds[b - 1], "more", "{kinds:?}");
                    let counted: usize = c
                        .items
                        .iter()
                        .filter(|i| i.kind == "more")
                        .map(|i| i.label[1..].parse::<usize>().expect("+n"))
                        .sum();
                    let drawn = kinds.iter().filter(|k| **k == "record").count();
                    assert_eq!(drawn, ITEMS_SHOWN);
                    assert_eq!(drawn + counted, c.records, "{:?}", c.items);
                    seen = true;
                }
            }
        }
        assert!(seen, "no barrier ever waited past the items drawn");
    }

    #[test]
    fn barriers_show_in_channels_and_checkpoints_complete() {
        let mut s = sim("flink-barrier-walkthrough");
        let (mut saw_barrier, mut saw_txn, mut saw_unacked) = (false, false, false);
        while s.step() == eos_core::sim::StepOutcome::Stepped {
            let vm = flink(&s, Lang::En).expect("a job");
            saw_barrier |= vm
                .channels
                .iter()
                .any(|c| c.items.iter().any(|i| i.kind == "barrier"));
            // A click on a barrier opens its checkpoint, on a record the record; "+N" nothing.
            for (c, ch) in vm
                .channels
                .iter()
                .zip(&s.flink.as_ref().expect("a job").channels)
            {
                for (item, slot) in c.items.iter().zip(&ch.queue) {
                    match (item.kind, slot.item) {
                        ("barrier", Item::Barrier { id, .. }) => {
                            assert_eq!(item.pick, Some(Selection::Checkpoint(id)))
                        }
                        ("record", Item::Record(r)) => {
                            assert_eq!(item.pick, Some(Selection::FlinkRecord(r.id)))
                        }
                        (kind, _) => assert!(kind == "more" && item.pick.is_none(), "{item:?}"),
                    }
                }
            }
            saw_txn |= vm.tasks[2]
                .detail
                .as_deref()
                .is_some_and(|d| d.contains("open: flink-sink-0"));
            // Records the sink has written and Kafka not yet acknowledged are counted as
            // written (the event log says so), and said to await their acks.
            saw_unacked |= vm.tasks[2]
                .detail
                .as_deref()
                .is_some_and(|d| d.contains(" written, 1 not yet acknowledged)"));
        }
        assert!(saw_txn, "the sink never showed its open transaction");
        assert!(
            saw_unacked,
            "the sink never showed a write awaiting its ack"
        );
        assert!(saw_barrier, "a barrier never appeared in a channel");
        let vm = flink(&s, Lang::En).expect("a job");
        assert_eq!(vm.phase, "finished");
        assert_eq!(vm.tasks.len(), 3);
        assert!(vm.checkpoints.iter().all(|c| c.outcome == "completed"));
        assert_eq!(vm.tasks[2].detail.as_deref(), Some("open: none"));
    }

    /// A source's snapshot badge says what it saved, apart from where it reads now: in the
    /// upsert-vs-append run checkpoint 1 saved orders-0 @7 while the source read on to 17
    /// before the crash, and the restore resumes at 7.
    #[test]
    fn a_source_shows_what_its_snapshot_saved_apart_from_where_it_reads() {
        let mut s = sim("flink-upsert-vs-append");
        let mut seen = None;
        while s.step() == eos_core::sim::StepOutcome::Stepped {
            let vm = flink(&s, Lang::En).expect("a job");
            let src = &vm.tasks[0];
            if src.snapshot == 1 && src.status == "restarting" {
                seen = Some((src.saved.clone(), src.detail.clone()));
                break;
            }
            if src.snapshot == 0 {
                assert_eq!(src.saved, None);
            }
        }
        let (saved, detail) = seen.expect("the source restarts after snapshot 1");
        assert_eq!(saved.as_deref(), Some("orders-0 @7"));
        assert_eq!(detail.as_deref(), Some("reading at orders-0 @17"));
        // Restored, it reads from what it saved.
        while flink(&s, Lang::En).expect("a job").phase != "running" {
            assert_eq!(s.step(), eos_core::sim::StepOutcome::Stepped);
        }
        let vm = flink(&s, Lang::En).expect("a job");
        assert_eq!(
            vm.tasks[0].detail.as_deref(),
            Some("reading at orders-0 @7")
        );
        let row = inspect(&s, NodeId::Task(0), Lang::En);
        assert!(
            row.rows.iter().any(|(k, v)| k == "last snapshot"
                && v == "1, saved orders-0 @7 (where a restore resumes)"),
            "{:?}",
            row.rows
        );
    }

    /// The upsert and append sinks' cards say what their external systems hold, which the
    /// where-exactly-once-ends lesson asks about: twenty keys, thirty records, ten twice.
    #[test]
    fn the_external_sinks_say_what_their_systems_hold() {
        let mut s = sim("flink-upsert-vs-append");
        s.run(RunLimit::Completion);
        let vm = flink(&s, Lang::En).expect("a job");
        let detail = |name: &str| {
            vm.tasks
                .iter()
                .find(|t| t.name == name)
                .and_then(|t| t.detail.clone())
        };
        assert_eq!(
            detail("kv-store-0").as_deref(),
            Some("store: keys\u{a0}20 · writes\u{a0}30")
        );
        assert_eq!(
            detail("log-0").as_deref(),
            Some("log: records\u{a0}30 · written more than once\u{a0}10")
        );
    }

    #[test]
    fn a_crash_shows_as_restarting_then_running() {
        let mut s = sim("flink-2pc-crash-recovery");
        s.run(RunLimit::Until(eos_core::time::ms(460)));
        let vm = flink(&s, Lang::En).expect("a job");
        assert_eq!(vm.phase, "restarting");
        let crashed = vm
            .tasks
            .iter()
            .find(|t| t.status == "crashed")
            .expect("a crashed task");
        // What it had in memory is not shown as its state.
        assert_eq!((crashed.state.as_str(), &crashed.detail), ("", &None));
        s.run(RunLimit::Until(eos_core::time::ms(1_000)));
        let vm = flink(&s, Lang::En).expect("a job");
        assert_eq!(vm.phase, "running");
        assert_eq!(vm.failovers, 1);
        assert!(vm.tasks.iter().all(|t| t.status == "running"));
        // Finished, the sink's last transaction, empty and never used, is not shown open.
        s.run(RunLimit::Completion);
        let vm = flink(&s, Lang::En).expect("a job");
        let sink = vm
            .tasks
            .iter()
            .find(|t| t.kind == "2pc sink")
            .expect("a sink");
        assert!(
            !sink
                .detail
                .as_deref()
                .unwrap_or_default()
                .contains("(0 written)"),
            "{:?}",
            sink.detail
        );
    }

    #[test]
    fn the_russian_stage_has_the_same_shape_and_russian_words() {
        let mut s = sim("flink-barrier-walkthrough");
        s.run(RunLimit::Completion);
        let (en, ru) = (
            flink(&s, Lang::En).expect("a job"),
            flink(&s, Lang::Ru).expect("a job"),
        );
        assert_eq!((en.phase, en.tasks.len()), (ru.phase, ru.tasks.len()));
        assert_ne!(en.summary, ru.summary);
        assert!(ru.summary.starts_with("каждые "), "{}", ru.summary);
        assert_eq!(phase_word(ru.phase, Lang::Ru), "завершено");
        assert_eq!(
            outcome_word(ru.checkpoints[0].outcome, false, Lang::Ru),
            "завершён"
        );
        let jm = inspect(&s, NodeId::JobManager, Lang::Ru);
        assert!(
            jm.rows.iter().any(|(k, _)| k == "чекпоинты"),
            "{:?}",
            jm.rows
        );
    }
}
