//! Checkpoint duration, alignment time and the channel state stored per checkpoint, aligned
//! vs unaligned: the same Flink scenario run headless both ways (the `unaligned` setting
//! flipped), as three charts. Unaligned checkpoints do not wait for alignment; what they pay
//! instead is the in-flight records they store.

use crate::charts::{LineChart, Series};
use crate::i18n::{Lang, S};
use eos_core::flink::report::CheckpointLine;
use eos_core::report::Report;
use eos_core::{RunLimit, Scenario};

/// One run: whether it checkpoints unaligned, and its checkpoints.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub unaligned: bool,
    /// Each checkpoint starts aligned and goes unaligned after this long
    /// (`aligned-checkpoint-timeout`).
    pub aligned_timeout_ms: Option<u64>,
    /// Failovers in the run, and whether its job was cancelled (its stop's savepoints kept
    /// expiring): what the checkpoints alone do not show.
    pub failovers: u32,
    pub cancelled: bool,
    /// AT_LEAST_ONCE checkpointing: barriers are tracked, no channel is blocked, and there is
    /// no unaligned variant (it needs EXACTLY_ONCE).
    pub at_least_once: bool,
    /// The final checkpoint of a stop-with-drain: it waits for the sources to drain, so its
    /// duration is not a periodic checkpoint's (the label says which it is). Under
    /// backpressure it can be the aligned run's only completed one.
    pub final_checkpoint: Option<u64>,
    pub checkpoints: Vec<CheckpointLine>,
    /// `execution.checkpointing.timeout`: how long an expired checkpoint ran.
    pub timeout_ms: u64,
}

/// The scenario as it is and with `unaligned` flipped (only under exactly-once
/// checkpointing, where unaligned checkpoints exist); aligned first. A job that starts
/// aligned and goes unaligned at a timeout is set against the plain aligned one.
pub fn runs(scenario: &Scenario) -> Vec<Run> {
    let Some(spec) = scenario.file.flink.as_ref() else {
        return Vec::new();
    };
    let mut variants = vec![scenario.clone()];
    if spec.checkpointing == "exactly-once" {
        let mut file = scenario.file.clone();
        if let Some(f) = file.flink.as_mut() {
            if f.aligned_checkpoint_timeout_ms.is_some_and(|t| t > 0) {
                f.aligned_checkpoint_timeout_ms = None;
                f.unaligned = false;
            } else {
                f.unaligned = !f.unaligned;
            }
        }
        if let Ok(flipped) = Scenario::from_file(file) {
            variants.push(flipped);
        }
    }
    let mut out: Vec<Run> = variants
        .iter()
        .filter_map(|s| {
            let mut sim = s.simulation_without_trace(None);
            sim.run(RunLimit::Completion);
            let flink = Report::counts(s.name(), &sim).flink?;
            Some(Run {
                final_checkpoint: sim.flink.as_ref().and_then(|j| j.final_checkpoint),
                unaligned: flink.unaligned,
                aligned_timeout_ms: flink.aligned_checkpoint_timeout_ms,
                failovers: flink.failovers,
                cancelled: flink.end == "cancelled",
                at_least_once: spec.checkpointing == "at-least-once",
                checkpoints: flink.checkpoints,
                timeout_ms: spec.checkpoint_timeout_ms,
            })
        })
        .collect();
    eos_core::order::sort_by_key(&mut out, |r| r.unaligned);
    out
}

/// The charts of completed checkpoints by id.
pub struct Charts {
    pub duration: LineChart,
    /// Flink's start delay: from the trigger until the slowest task's first barrier arrived.
    /// Under backpressure an aligned barrier waits behind the queued records; an unaligned one
    /// overtakes them.
    pub start_delay: LineChart,
    pub alignment: LineChart,
    /// In-flight records stored with the snapshot: an unaligned checkpoint's cost.
    pub channel_state: LineChart,
    /// Which checkpoint of each run is a stop's final one (its duration spikes: it waits for
    /// the sources to drain), said under the charts: in a legend it ran past a phone's chart.
    pub final_note: Option<String>,
    /// Each run's failovers, and whether its job was cancelled.
    pub runs_note: Option<String>,
}

/// The charts: completed checkpoints by id; a run's label says how many expired or were
/// aborted (they have no duration to draw).
pub fn charts(runs: &[Run], lang: Lang) -> Charts {
    let name = |r: &Run| match (r.unaligned, r.aligned_timeout_ms) {
        _ if r.at_least_once => S::CkptAloRun.get(lang).to_string(),
        (true, Some(t)) => S::CkptAlignedThenUnaligned.f(lang, &[&t]),
        (false, _) => S::CkptAligned.get(lang).to_string(),
        (true, None) => S::CkptUnaligned.get(lang).to_string(),
    };
    let label = |r: &Run| {
        let failed = r
            .checkpoints
            .iter()
            .filter(|c| c.outcome != "completed")
            .count();
        match failed {
            0 => name(r),
            n => S::CkptFailed.f(lang, &[&name(r), &n]),
        }
    };
    // What the checkpoints alone do not show, said under the charts (a legend entry that
    // long runs past the plot): the failovers, and a job cancelled.
    let fates: Vec<String> = runs
        .iter()
        .filter(|r| r.failovers > 0 || r.cancelled)
        .map(|r| match (r.failovers, r.cancelled) {
            (0, _) => format!("{}.", S::CkptOnlyCancelled.f(lang, &[&name(r)])),
            (n, false) => format!("{}.", S::CkptFailovers.f(lang, &[&name(r), &n])),
            (n, true) => format!(
                "{}{}.",
                S::CkptFailovers.f(lang, &[&name(r), &n]),
                S::CkptCancelled.get(lang)
            ),
        })
        .collect();
    let runs_note = (!fates.is_empty()).then(|| fates.join(" "));
    // `expired`: the checkpoints that expired, ringed at the timeout they ran to (the
    // duration and start-delay charts); none elsewhere.
    let series = |y: &dyn Fn(&CheckpointLine) -> Option<u64>, expired: bool| -> Vec<Series> {
        runs.iter()
            .map(|r| Series {
                label: label(r),
                // One colour per guarantee, as everywhere on the page: at-least-once and
                // (aligned) exactly-once in theirs; unaligned in the accent, apart from both.
                colour: match (r.at_least_once, r.unaligned) {
                    (true, _) => "--g-alo",
                    (false, true) => "--accent",
                    (false, false) => "--g-eos",
                },
                points: r
                    .checkpoints
                    .iter()
                    .filter(|c| c.outcome == "completed")
                    .filter_map(|c| y(c).map(|v| (c.id as f64, v as f64)))
                    .collect(),
                marked: r
                    .checkpoints
                    .iter()
                    .filter(|c| expired && c.outcome == "expired")
                    .map(|c| (c.id as f64, r.timeout_ms as f64))
                    .collect(),
            })
            .filter(|s| !s.points.is_empty() || !s.marked.is_empty())
            .collect()
    };
    let [duration, start_delay, alignment, channel, x, ms, records] = [
        S::CkptDuration,
        S::CkptStartDelay,
        S::CkptAlignment,
        S::CkptChannelState,
        S::CkptX,
        S::Ms,
        S::CkptInFlight,
    ]
    .map(|s| s.get(lang));
    let chart =
        |title: &str, y_label: &str, y: &dyn Fn(&CheckpointLine) -> Option<u64>| LineChart {
            title: title.into(),
            x_label: x.into(),
            y_label: y_label.into(),
            series: series(y, false),
            mark_label: None,
        };
    let finals: Vec<String> = runs
        .iter()
        // A cancelled job was never stopped by one (the note after says so).
        .filter(|r| !r.cancelled)
        .filter_map(|r| {
            let id = r.final_checkpoint?;
            let run = if r.at_least_once {
                "AT_LEAST_ONCE".to_string()
            } else {
                name(r)
            };
            Some(S::CkptFinalRun.f(lang, &[&run, &id]))
        })
        .collect();
    let final_note = (!finals.is_empty()).then(|| {
        let lead = S::CkptFinalLead.get(lang);
        format!("{lead} {}.", finals.join(" · "))
    });
    Charts {
        final_note,
        runs_note,
        duration: LineChart {
            series: series(&|c| c.duration_ms, true),
            mark_label: Some(S::CkptRinged.get(lang).into()),
            ..chart(duration, ms, &|c| c.duration_ms)
        },
        start_delay: LineChart {
            series: series(&|c| c.start_delay_ms, true),
            mark_label: Some(S::CkptRinged.get(lang).into()),
            ..chart(start_delay, ms, &|c| c.start_delay_ms)
        },
        alignment: chart(alignment, ms, &|c| Some(c.alignment_ms)),
        channel_state: chart(channel, records, &|c| {
            Some(u64::from(c.channel_state_records))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job that starts aligned and goes unaligned at a timeout is set against the plain
    /// aligned job, each labelled as what it is; the channel state it stores is charted.
    #[test]
    fn an_aligned_timeout_job_is_set_against_the_plain_aligned_one() {
        let scenario =
            crate::builtins::get("flink-backpressure-aligned-timeout").expect("built-in");
        let runs = runs(&scenario);
        assert_eq!(runs.len(), 2, "{runs:?}");
        assert_eq!(
            (runs[0].unaligned, runs[1].aligned_timeout_ms),
            (false, Some(100))
        );
        let c = charts(&runs, Lang::En);
        let labels: Vec<&str> = c.duration.series.iter().map(|s| s.label.as_str()).collect();
        assert!(labels[0].starts_with("aligned"), "{labels:?}");
        assert!(
            labels[1].starts_with("unaligned after 100 ms"),
            "{labels:?}"
        );
        // The plain aligned job fails over at its first expired checkpoint and, its stop's
        // savepoints expiring behind the backlog, is cancelled: said under the charts.
        let note = c.runs_note.expect("the aligned run's fate");
        assert!(
            note == "The aligned run failed over (failovers: 1), and its job was cancelled: the stop's savepoints kept expiring.",
            "{note}"
        );
        let timeout_run = c.channel_state.series.last().expect("its line");
        assert!(timeout_run.label.starts_with("unaligned after"));
        let stored: f64 = timeout_run.points.iter().map(|p| p.1).sum();
        assert!(stored > 0.0, "{:?}", c.channel_state);
    }

    #[test]
    fn under_backpressure_unaligned_checkpoints_complete_and_do_not_align() {
        let scenario = crate::builtins::get("flink-backpressure-aligned").expect("built-in");
        let runs = runs(&scenario);
        assert_eq!(runs.len(), 2);
        assert!(!runs[0].unaligned && runs[1].unaligned);
        let completed = |r: &Run| {
            r.checkpoints
                .iter()
                .filter(|c| c.duration_ms.is_some())
                .count()
        };
        assert!(completed(&runs[1]) > completed(&runs[0]), "{runs:?}");
        assert!(
            runs[1].checkpoints.iter().all(|c| c.alignment_ms == 0),
            "{runs:?}"
        );
        let Charts {
            final_note,
            runs_note,
            duration,
            start_delay,
            alignment,
            channel_state,
        } = charts(&runs, Lang::En);
        // Neither run fails over.
        assert_eq!(runs_note, None);
        // The aligned run's barriers wait behind the backlog (start delay); the unaligned
        // run's overtake it. Neither aligns: each task has one input.
        // (The stop's final checkpoint waits for the drain in both: left out.)
        let periodic_max = |i: usize| -> f64 {
            let last = runs[i].final_checkpoint.map(|id| id as f64);
            start_delay.series[i]
                .points
                .iter()
                .filter(|p| Some(p.0) != last)
                .map(|p| p.1)
                .fold(0.0, f64::max)
        };
        assert_eq!(start_delay.series.len(), 2, "{start_delay:?}");
        let aligned_least = start_delay.series[0]
            .points
            .iter()
            .map(|p| p.1)
            .fold(f64::MAX, f64::min);
        assert!(periodic_max(1) > 0.0, "{start_delay:?}");
        assert!(aligned_least > 4.0 * periodic_max(1), "{start_delay:?}");
        assert!(alignment
            .series
            .iter()
            .all(|s| s.points.iter().all(|p| p.1 == 0.0)));
        // An expired checkpoint whose barrier never reached a task is ringed at the timeout.
        assert!(!start_delay.series[0].marked.is_empty());
        assert!(start_delay.series[0]
            .marked
            .iter()
            .all(|p| p.1 == runs[0].timeout_ms as f64));
        // What the unaligned run pays instead: in-flight records stored with its
        // snapshots; the aligned run stores none.
        let stored = |i: usize| -> f64 { channel_state.series[i].points.iter().map(|p| p.1).sum() };
        assert_eq!(stored(0), 0.0);
        assert!(stored(1) > 0.0, "{:?}", channel_state.series[1]);
        // The stop's final checkpoint waits for the drain (its duration spikes): the note
        // under the charts names it.
        let unaligned = duration.series.last().expect("an unaligned line");
        let last = runs[1]
            .final_checkpoint
            .expect("a stop with a final checkpoint");
        // Its one expired checkpoint is the first stop's savepoint (aligned, as every
        // savepoint is).
        assert_eq!(unaligned.label, "unaligned (1 expired or aborted)");
        let note = final_note.expect("a note on the final checkpoints");
        assert!(
            note.contains(&format!("unaligned: savepoint {last}")),
            "{note}"
        );
        assert!(unaligned.points.iter().any(|p| p.0 == last as f64));
        assert!(alignment
            .series
            .iter()
            .any(|s| s.label.starts_with("unaligned")));
        // The aligned run's expired checkpoints are ringed at the timeout they ran to.
        let timeout = runs[0].timeout_ms as f64;
        let expired = runs[0]
            .checkpoints
            .iter()
            .filter(|c| c.outcome == "expired")
            .count();
        assert!(expired > 0);
        assert_eq!(duration.series[0].marked.len(), expired);
        assert!(duration.series[0].marked.iter().all(|p| p.1 == timeout));
        assert!(crate::charts::svg(&duration)
            .expect("draws")
            .contains("ringed: expired at the timeout"));
        // The aligned run's checkpoints expire under backpressure, and its label says so.
        let aligned = &duration.series[0].label;
        assert!(
            aligned.starts_with("aligned (") && aligned.contains("expired"),
            "{aligned}"
        );
        assert!(crate::charts::svg(&duration).is_ok());
        // No Flink job, no runs.
        let kafka = crate::builtins::get(eos_core::builtin::DEFAULT).expect("built-in");
        assert!(super::runs(&kafka).is_empty());
    }
}
