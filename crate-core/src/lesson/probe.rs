//! Named probes: numbers read from the simulation's real state at a point of the run. A
//! question's right answer is what its probe reads there, never what the author hoped.

use super::schema::QuestionSpec;
use crate::ids::Tp;
use crate::report::Report;
use crate::scenario::FieldError;
use crate::sim::observe;
use crate::sim::Note;
use crate::sim::Simulation;
use serde::{Deserialize, Serialize};

/// Which argument a probe takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arg {
    None,
    Consumer,
    Producer,
    Partition,
    Record,
    Note,
}

/// (name, argument, what it reads), in the order `docs/lesson-format.md` lists them.
pub const PROBES: &[(&str, &str)] = &[
    (
        "records_read",
        "records a consumer has returned so far (re-reads count)",
    ),
    (
        "keys_read",
        "distinct keys among them: what an idempotent consumer (an upsert by key) keeps",
    ),
    (
        "partition_records",
        "data records in a partition's leader log (markers not counted)",
    ),
    (
        "markers",
        "transaction markers (COMMIT/ABORT) in a partition's leader log",
    ),
    ("high_watermark", "a partition's high watermark"),
    ("last_stable_offset", "a partition's last stable offset"),
    ("log_end_offset", "a partition's log end offset"),
    (
        "duplicates",
        "extra readable copies of records, as the report counts them",
    ),
    (
        "lost_writes",
        "acknowledged records no reader can see, as the report counts them",
    ),
    (
        "aborted_reads",
        "records of aborted transactions that readers returned",
    ),
    (
        "visible_outputs",
        "read-process-write: output records read_committed readers see",
    ),
    (
        "output_duplicates",
        "read-process-write: extra visible outputs",
    ),
    (
        "output_lost",
        "read-process-write: processed inputs with no visible output",
    ),
    ("producer_epoch", "a producer's current epoch"),
    ("producer_id", "a producer's current producer id"),
    ("delivery_attempts", "how many times a record has been sent"),
    (
        "acked_offset",
        "the offset a record was acknowledged at (-1: none yet)",
    ),
    ("copies", "readable copies of a record"),
    ("notes", "how many steps so far carried a note of this kind"),
    (
        "checkpoints_completed",
        "Flink: checkpoints completed so far",
    ),
    ("checkpoints_expired", "Flink: checkpoints expired so far"),
    ("failovers", "Flink: job failovers so far"),
    (
        "max_alignment_ms",
        "Flink: the longest alignment of a completed checkpoint, in ms",
    ),
    (
        "channel_state_records",
        "Flink: in-flight records stored by completed checkpoints (unaligned)",
    ),
    (
        "committed_outputs",
        "Flink: output records of 2PC sinks visible to read_committed readers",
    ),
    (
        "appended_records",
        "Flink: records in the append sink's log",
    ),
    (
        "state_total",
        "Flink: the sum of the keyed counts over every key and subtask",
    ),
];

fn arg_of(name: &str) -> Option<Arg> {
    Some(match name {
        "records_read" | "keys_read" => Arg::Consumer,
        "partition_records" | "markers" | "high_watermark" | "last_stable_offset"
        | "log_end_offset" => Arg::Partition,
        "duplicates" | "lost_writes" | "aborted_reads" | "visible_outputs"
        | "output_duplicates" | "output_lost" => Arg::None,
        "checkpoints_completed"
        | "checkpoints_expired"
        | "failovers"
        | "max_alignment_ms"
        | "channel_state_records"
        | "committed_outputs"
        | "appended_records"
        | "state_total" => Arg::None,
        "producer_epoch" | "producer_id" => Arg::Producer,
        "delivery_attempts" | "acked_offset" | "copies" => Arg::Record,
        "notes" => Arg::Note,
        _ => return None,
    })
}

/// A probe with its argument resolved against the simulation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probe {
    /// One of [`PROBES`].
    pub name: String,
    /// How the argument was written (`"reader"`, `"events-0"`, `"v0"`), for messages.
    pub subject: Option<String>,
    target: Target,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Target {
    None,
    Consumer(u8),
    Producer(u8),
    /// A processor's output client.
    ProcessorProducer(u8),
    Partition(Tp),
    Record(u32),
    Note(String),
}

fn index_of(list: &[String], name: &str) -> Option<u8> {
    list.iter()
        .position(|n| n == name)
        .and_then(|i| u8::try_from(i).ok())
}

/// The partition named as the scenario's names print it (`events-0`).
pub(crate) fn partition_named(sim: &Simulation, name: &str) -> Option<Tp> {
    observe::partitions(sim)
        .into_iter()
        .find(|tp| sim.names.tp(*tp) == name)
}

impl Probe {
    /// Resolves a question's probe; errors name `{field}.probe` or the argument's field.
    pub(crate) fn resolve(
        q: &QuestionSpec,
        sim: &Simulation,
        field: &str,
    ) -> Result<Probe, Vec<FieldError>> {
        let err = |f: &str, message: String| {
            vec![FieldError {
                field: format!("{field}.{f}"),
                message,
            }]
        };
        let Some(arg) = arg_of(&q.probe) else {
            let known: Vec<&str> = PROBES.iter().map(|(n, _)| *n).collect();
            return Err(err(
                "probe",
                format!(
                    "\"{}\" is not a probe (allowed: {})",
                    q.probe,
                    known.join(", ")
                ),
            ));
        };
        let given: [(&str, bool, Arg); 5] = [
            ("consumer", q.consumer.is_some(), Arg::Consumer),
            ("producer", q.producer.is_some(), Arg::Producer),
            ("partition", q.partition.is_some(), Arg::Partition),
            ("record", q.record.is_some(), Arg::Record),
            ("note", q.note.is_some(), Arg::Note),
        ];
        let mut errors = Vec::new();
        for (name, set, a) in given {
            if set && a != arg {
                errors.extend(err(name, format!("is not used by probe \"{}\"", q.probe)));
            }
            if !set && a == arg {
                errors.extend(err(name, format!("is required by probe \"{}\"", q.probe)));
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let (target, subject) = match arg {
            Arg::None => (Target::None, None),
            Arg::Consumer => {
                let name = q.consumer.clone().unwrap_or_default();
                match index_of(&sim.names.consumers, &name) {
                    Some(i) => (Target::Consumer(i), Some(name)),
                    None => {
                        return Err(err(
                            "consumer",
                            format!(
                                "\"{name}\" is not a consumer of the scenario (consumers: {})",
                                sim.names.consumers.join(", ")
                            ),
                        ))
                    }
                }
            }
            Arg::Producer => {
                let name = q.producer.clone().unwrap_or_default();
                // A read-process-write processor's output client counts as a producer.
                let processor = || index_of(&sim.names.processors, &name);
                match index_of(&sim.names.producers, &name) {
                    Some(i) => (Target::Producer(i), Some(name)),
                    None if processor().is_some() => (
                        Target::ProcessorProducer(processor().unwrap_or_default()),
                        Some(name),
                    ),
                    None => {
                        let processors = if sim.names.processors.is_empty() {
                            String::new()
                        } else {
                            format!("; processors: {}", sim.names.processors.join(", "))
                        };
                        return Err(err(
                            "producer",
                            format!(
                                "\"{name}\" is not a producer or processor of the scenario (producers: {}{processors})",
                                sim.names.producers.join(", ")
                            ),
                        ));
                    }
                }
            }
            Arg::Partition => {
                let name = q.partition.clone().unwrap_or_default();
                match partition_named(sim, &name) {
                    Some(tp) => (Target::Partition(tp), Some(name)),
                    None => {
                        let known: Vec<String> = observe::partitions(sim)
                            .into_iter()
                            .map(|tp| sim.names.tp(tp))
                            .collect();
                        return Err(err(
                            "partition",
                            format!(
                                "\"{name}\" is not a partition of the scenario (partitions: {})",
                                known.join(", ")
                            ),
                        ));
                    }
                }
            }
            Arg::Record => {
                let r = q.record.unwrap_or_default();
                let count = sim.ledger.records.len();
                if usize::try_from(r).map_or(true, |r| r >= count) {
                    return Err(err(
                        "record",
                        format!(
                            "{r} is out of range (the scenario has records 0 to {})",
                            count.saturating_sub(1)
                        ),
                    ));
                }
                (Target::Record(r), Some(format!("v{r}")))
            }
            Arg::Note => {
                let name = q.note.clone().unwrap_or_default();
                if !Note::is_kind_name(name.as_str()) {
                    return Err(err(
                        "note",
                        format!(
                            "\"{name}\" is not a note kind (allowed: {})",
                            Note::all_kind_names().join(", ")
                        ),
                    ));
                }
                (Target::Note(name.clone()), Some(name))
            }
        };
        if matches!(
            q.probe.as_str(),
            "visible_outputs" | "output_duplicates" | "output_lost"
        ) && sim.processors.is_empty()
        {
            return Err(err(
                "probe",
                format!(
                    "\"{}\" needs a read-process-write processor, and the scenario has none",
                    q.probe
                ),
            ));
        }
        if flink_probe(q.probe.as_str()) && sim.flink.is_none() {
            return Err(err(
                "probe",
                format!(
                    "\"{}\" reads a Flink job ([flink]), and the scenario has none",
                    q.probe
                ),
            ));
        }
        Ok(Probe {
            name: q.probe.clone(),
            subject,
            target,
        })
    }

    /// `records_read of "reader"`, for messages.
    pub fn describe(&self) -> String {
        match &self.subject {
            Some(s) => format!("{} of \"{s}\"", self.name),
            None => self.name.clone(),
        }
    }

    fn producer_value(&self, p: &crate::kafka::producer::Producer) -> i64 {
        if self.name == "producer_epoch" {
            i64::from(p.epoch)
        } else {
            p.producer_id
        }
    }

    /// What the probe reads from the simulation as it is now.
    pub fn read(&self, sim: &Simulation) -> i64 {
        let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        let big = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        match &self.target {
            Target::Consumer(i) => sim.consumers.get(usize::from(*i)).map_or(0, |c| {
                if self.name == "keys_read" {
                    let keys = crate::order::set_of(c.reads.iter().map(|r| r.key));
                    count(keys.len())
                } else {
                    count(c.reads.len())
                }
            }),
            Target::Producer(i) => sim
                .producers
                .get(usize::from(*i))
                .map_or(-1, |p| self.producer_value(p)),
            Target::ProcessorProducer(i) => sim
                .processors
                .get(usize::from(*i))
                .map_or(-1, |p| self.producer_value(&p.producer)),
            Target::Partition(tp) => {
                let views = observe::partition_views(sim);
                // Leaders sort first within a partition.
                let Some(v) = views.iter().find(|v| v.tp == *tp) else {
                    return 0;
                };
                match self.name.as_str() {
                    "partition_records" => {
                        count(v.cells.iter().filter(|c| c.marker.is_none()).count())
                    }
                    "markers" => count(v.cells.iter().filter(|c| c.marker.is_some()).count()),
                    "high_watermark" => big(v.high_watermark),
                    "last_stable_offset" => big(v.last_stable_offset),
                    _ => big(v.log_end_offset),
                }
            }
            Target::Record(r) => {
                let Some(entry) = usize::try_from(*r)
                    .ok()
                    .and_then(|i| sim.ledger.records.get(i))
                else {
                    return 0;
                };
                match self.name.as_str() {
                    "delivery_attempts" => i64::from(entry.attempts),
                    "acked_offset" => entry.acked_offset.map_or(-1, big),
                    _ => {
                        let copies = crate::oracle::anomalies::readable_copies(sim);
                        copies
                            .get(&crate::ids::RecordId(*r))
                            .map_or(0, |c| count(c.len()))
                    }
                }
            }
            Target::Note(kind) => count(
                sim.trace()
                    .iter()
                    .filter(|rec| rec.notes.iter().any(|n| n.kind_name() == kind))
                    .count(),
            ),
            Target::None if flink_probe(&self.name) => flink_value(&self.name, sim),
            Target::None => {
                let report = Report::counts("", sim);
                let processing = report.processing.unwrap_or_default();
                big(match self.name.as_str() {
                    "duplicates" => report.outcome.duplicates,
                    "lost_writes" => report.outcome.lost,
                    "aborted_reads" => report.outcome.aborted_reads,
                    "visible_outputs" => processing.visible_outputs,
                    "output_duplicates" => processing.duplicates,
                    _ => processing.lost,
                })
            }
        }
    }
}

fn flink_probe(name: &str) -> bool {
    matches!(
        name,
        "checkpoints_completed"
            | "checkpoints_expired"
            | "failovers"
            | "max_alignment_ms"
            | "channel_state_records"
            | "committed_outputs"
            | "appended_records"
            | "state_total"
    )
}

/// A Flink probe's value (-1 when the scenario has no Flink job).
fn flink_value(name: &str, sim: &Simulation) -> i64 {
    use crate::flink::snapshot::CheckpointOutcome;
    let Some(job) = &sim.flink else {
        return -1;
    };
    let h = &job.coordinator.history;
    let completed = || {
        h.iter()
            .filter(|s| s.outcome == CheckpointOutcome::Completed)
    };
    let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    match name {
        "checkpoints_completed" => n(completed().count() as u64),
        "checkpoints_expired" => n(h
            .iter()
            .filter(|s| s.outcome == CheckpointOutcome::Expired)
            .count() as u64),
        "failovers" => n(u64::from(job.failovers)),
        "max_alignment_ms" => n(completed()
            .map(|s| crate::time::to_ms(s.alignment))
            .max()
            .unwrap_or(0)),
        "channel_state_records" => n(completed()
            .map(|s| u64::from(s.channel_state_records))
            .sum()),
        "committed_outputs" => crate::flink::outcome::FlinkOutput::of(sim)
            .map_or(0, |o| n(o.committed.values().map(|c| u64::from(*c)).sum())),
        "appended_records" => n(job.external.appended.len() as u64),
        _ => n(job.state().values().sum()),
    }
}
