//! The run report: what `eos-sim run --json` prints and what `expect` is checked against.
//! Its keys are stable and documented in `docs/report-format.md`.

use crate::oracle::anomalies::{self, readable_copies};
use crate::oracle::invariants;
use crate::sim::Simulation;
use crate::time::to_ms;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub mod pipeline;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Extra copies: a record stored three times counts two.
    pub duplicates: u64,
    /// Acknowledged records that no reader can ever see (lost-write).
    pub lost: u64,
    /// Records of aborted transactions that a reader returned (G1a).
    pub aborted_reads: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delivery {
    pub record: String,
    pub producer: String,
    pub key: Option<String>,
    pub topic: Option<String>,
    pub partition: Option<u16>,
    /// The offset the producer was told (for acks=0: none).
    pub offset: Option<u64>,
    pub attempts: u32,
    pub delivered_at_ms: Option<u64>,
    /// `delivered`, `failed` or `indeterminate`.
    pub status: String,
    /// Where copies are readable now (`topic-partition@offset`).
    pub copies: Vec<String>,
    /// For a record written in a transaction: `committed` or `aborted` as its producer
    /// heard it, `undecided` if it never heard.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transaction: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reads {
    pub isolation: String,
    pub records: u64,
    pub keys: Vec<Option<String>>,
}

/// What the read-process-write stage did: per input record, how many copies of its output
/// read_committed readers see.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Processing {
    pub guarantee: String,
    pub inputs: u64,
    /// Inputs whose output was handed to the output client at least once.
    pub processed: u64,
    pub visible_outputs: u64,
    /// Extra output copies (an input with three visible outputs counts two).
    pub duplicates: u64,
    /// Inputs with no visible output that the first stage's group has committed past: no
    /// restart will read them again.
    pub lost: u64,
    /// Inputs with no visible output that the first stage's group has not committed past: the
    /// run ended before they were processed for good (the processor stopped polling, or
    /// crashed and never restarted), and a restarted processor would read them. Not lost.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<String>,
    /// Input record → visible output copies.
    pub ledger: BTreeMap<String, u32>,
    /// When processors chain: the stages a record passes through, first to last. The counts
    /// above then follow each input of the first to its output of the last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stages: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnomalyReport {
    pub kind: String,
    pub detail: String,
    pub events: Vec<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvariantReport {
    pub name: String,
    pub holds: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub scenario: String,
    pub seed: u64,
    pub steps: u64,
    pub end_time_ms: u64,
    /// False when the step limit stopped the run before it finished.
    pub completed: bool,
    pub outcome: Outcome,
    pub deliveries: Vec<Delivery>,
    pub reads: BTreeMap<String, Reads>,
    pub anomalies: Vec<AnomalyReport>,
    pub invariants: Vec<InvariantReport>,
    /// Present when the scenario has a read-process-write processor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub processing: Option<Processing>,
    /// Present when the scenario has a Flink job.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flink: Option<crate::flink::report::FlinkReport>,
    /// 16 hex digits: the same scenario and seed give the same hash everywhere.
    pub trace_hash: String,
}

/// Whether ledger entry `i` is a processor's output of a record that never reaches its input
/// topic: a record sent to another topic, or, when stages chain and each takes numbers for
/// every record before it (stages.rs), most of those (a second stage reads the first one's
/// outputs, not the producers' records). Such a number is no delivery.
fn unreachable_output(sim: &Simulation, i: usize) -> bool {
    let i = i as u32;
    sim.processors.iter().any(|p| {
        let base = p.settings.output_base;
        let size = sim
            .names
            .outputs
            .iter()
            .find(|(first, _)| *first == base)
            .map_or(0, |(_, count)| *count);
        i >= base
            && i - base < size
            && sim
                .ledger
                .records
                .get((i - base) as usize)
                .and_then(|input| input.tp)
                .is_none_or(|tp| !p.settings.inputs.iter().any(|t| t.topic == tp.topic))
    })
}

impl Outcome {
    /// The outcome so far: the report's counts without the rest of it (what the page shows
    /// as the run goes).
    pub fn of(sim: &Simulation) -> Outcome {
        let copies = readable_copies(sim);
        Outcome::from_copies(sim, &copies, processing(sim, &copies).as_ref())
    }

    fn from_copies(
        sim: &Simulation,
        copies: &BTreeMap<crate::ids::RecordId, Vec<(crate::ids::Tp, u64)>>,
        processing: Option<&Processing>,
    ) -> Outcome {
        let duplicates = copies
            .values()
            .map(|c| c.len().saturating_sub(1) as u64)
            .sum();
        // Counted from the ledger and the logs: the anomaly list is capped per kind.
        let lost = sim
            .ledger
            .records
            .iter()
            .enumerate()
            .filter(|(i, e)| {
                e.acknowledged() && !copies.contains_key(&crate::ids::RecordId(*i as u32))
            })
            .count() as u64;
        let aborted = anomalies::aborted_offsets(sim);
        let aborted_reads = sim
            .consumers
            .iter()
            .flat_map(|c| c.reads.iter())
            .filter(|r| aborted.contains(&(r.tp, r.offset)))
            .count() as u64;
        Outcome {
            duplicates,
            // A processed input whose output nobody sees is lost too (at-most-once's
            // failure).
            lost: lost + processing.map_or(0, |p| p.lost),
            aborted_reads,
        }
    }
}

pub(crate) fn processing(
    sim: &Simulation,
    copies: &BTreeMap<crate::ids::RecordId, Vec<(crate::ids::Tp, u64)>>,
) -> Option<Processing> {
    let stages = pipeline::pipeline(sim);
    let (p, last) = (stages.first()?, stages.last()?);
    let before_last = &stages[..stages.len() - 1];
    let inputs = crate::order::set_of(
        copies
            .iter()
            .filter(|(_, at)| at.iter().any(|(tp, _)| p.settings.inputs.contains(tp)))
            .map(|(id, _)| *id),
    );
    // Handed to the last stage's output client: the last stage processed what the stages
    // before it made of the input.
    let processed = crate::order::set_of(last.processed.iter().copied());
    let passed =
        |id: &crate::ids::RecordId| copies.get(id).is_some_and(|at| committed_past(sim, p, at));
    let mut ledger = BTreeMap::new();
    let mut unread = Vec::new();
    let (mut visible, mut duplicates, mut lost, mut handed) = (0u64, 0u64, 0u64, 0u64);
    for id in &inputs {
        let out = pipeline::output_through(&stages, *id);
        let n = copies.get(&out).map_or(0, |c| c.len()) as u32;
        visible += u64::from(n);
        duplicates += u64::from(n.saturating_sub(1));
        if n == 0 && passed(id) {
            lost += 1;
        } else if n == 0 {
            unread.push(id.to_string());
        }
        if processed.contains(&pipeline::output_through(before_last, *id)) {
            handed += 1;
        }
        ledger.insert(id.to_string(), n);
    }
    Some(Processing {
        guarantee: p.settings.guarantee.name().to_string(),
        inputs: inputs.len() as u64,
        processed: handed,
        visible_outputs: visible,
        duplicates,
        lost,
        unread,
        ledger,
        stages: if stages.len() > 1 {
            stages.iter().map(|s| sim.names.node(s.node())).collect()
        } else {
            Vec::new()
        },
    })
}

/// Whether processor `p`'s group has committed past the input stored at `at` (its copies):
/// a restarted processor reads from the committed offsets, so an input behind them with no
/// output is lost, and one at or after them is only not read yet.
pub fn committed_past(
    sim: &Simulation,
    p: &crate::kafka::processor::Processor,
    at: &[(crate::ids::Tp, u64)],
) -> bool {
    let committed = |tp: crate::ids::Tp| {
        sim.brokers
            .get(usize::from(p.settings.group_coordinator))
            .and_then(|b| b.groups.committed(&p.settings.group, tp))
    };
    at.iter().any(|(tp, offset)| {
        p.settings.inputs.contains(tp) && committed(*tp).is_some_and(|c| *offset < c)
    })
}

/// Who handed a record to Kafka: its producer, the processor whose output it is, or the
/// Flink sink task that wrote it.
pub fn sender(e: &crate::oracle::RecordEntry) -> Option<crate::ids::NodeId> {
    use crate::ids::NodeId;
    e.producer
        .map(NodeId::Producer)
        .or(e.processor.map(NodeId::Processor))
        .or(e.sink.map(NodeId::Task))
}

impl Report {
    /// The whole report: counts, deliveries, reads, anomalies and the invariants checked.
    pub fn of(scenario: &str, sim: &Simulation) -> Report {
        let mut report = Report::counts(scenario, sim);
        report.invariants = invariants::check_all(sim)
            .into_iter()
            .map(|r| InvariantReport {
                name: r.name.to_string(),
                holds: r.holds,
                detail: r.detail,
            })
            .collect();
        report
    }

    /// The report without its invariants (an empty list): what the page's comparisons,
    /// fork, charts and lesson probes read. Checking every invariant costs time, and its code
    /// is a large part of the page's download.
    pub fn counts(scenario: &str, sim: &Simulation) -> Report {
        let copies = readable_copies(sim);
        let found = anomalies::find(sim);
        // A Flink job's outputs to an upsert or append store never go through Kafka: they
        // are no delivery (the `flink` section reports them).
        let external_from = sim
            .flink
            .as_ref()
            .filter(|job| !crate::flink::outcome::has_2pc(job))
            .map(|job| job.config.output_base as usize);
        let deliveries = sim
            .ledger
            .records
            .iter()
            .enumerate()
            .filter(|(i, e)| external_from.is_none_or(|base| *i < base || e.hand_overs > 0))
            .filter(|(i, e)| e.hand_overs > 0 || !unreachable_output(sim, *i))
            .map(|(i, e)| {
                let id = crate::ids::RecordId(i as u32);
                Delivery {
                    record: sim.names.record(id),
                    producer: sender(e).map(|n| sim.names.node(n)).unwrap_or_default(),
                    key: sim.names.key(e.key),
                    topic: e
                        .tp
                        .and_then(|tp| sim.names.topics.get(usize::from(tp.topic)).cloned()),
                    partition: e.tp.map(|tp| tp.partition),
                    offset: e.acked_offset,
                    attempts: e.attempts,
                    delivered_at_ms: e.delivered_at.map(to_ms),
                    status: e.final_status().name().to_string(),
                    transaction: e.transactional.then(|| {
                        match e.txn_outcome {
                            Some(crate::oracle::TxnOutcome::Committed) => "committed",
                            Some(crate::oracle::TxnOutcome::Aborted) => "aborted",
                            None => "undecided",
                        }
                        .to_string()
                    }),
                    copies: copies
                        .get(&id)
                        .map(|c| {
                            c.iter()
                                .map(|(tp, o)| format!("{}@{o}", sim.names.tp(*tp)))
                                .collect()
                        })
                        .unwrap_or_default(),
                }
            })
            .collect();
        let reads = crate::order::map_of(sim.consumers.iter().map(|c| {
            (
                sim.names.node(c.node()),
                Reads {
                    isolation: c.settings.isolation.as_config().to_string(),
                    records: c.reads.len() as u64,
                    keys: c.reads.iter().map(|r| sim.names.key(r.key)).collect(),
                },
            )
        }));
        let processing = processing(sim, &copies);
        let outcome = Outcome::from_copies(sim, &copies, processing.as_ref());
        Report {
            scenario: scenario.to_string(),
            seed: sim.seed,
            steps: sim.steps(),
            end_time_ms: to_ms(sim.last_step_at()),
            completed: sim.is_finished(),
            outcome,
            deliveries,
            reads,
            anomalies: found
                .into_iter()
                .map(|a| AnomalyReport {
                    kind: a.kind.name().to_string(),
                    detail: a.detail,
                    events: a.events,
                })
                .collect(),
            invariants: Vec::new(),
            processing,
            flink: crate::flink::report::FlinkReport::of(sim),
            trace_hash: format!("{:016x}", sim.trace_hash()),
        }
    }
}
