//! The cost of each delivery guarantee, measured by running a read-process-write scenario
//! headless under the three guarantees across a swept commit interval (Kafka Streams'
//! `commit.interval.ms`: how long exactly-once holds its outputs in one transaction, and how
//! often at-least-once commits its input offsets).
//!
//! Per point: the end-to-end latency (an input record handed to its producer → its output
//! readable by a read_committed consumer: below the high watermark and, for a transaction,
//! with its COMMIT marker below it too; so it does not depend on when a reader happens to
//! poll), the network messages per input record (the protocol's overhead:
//! exactly-once adds AddPartitionsToTxn (from the partition leaders under transaction
//! protocol 2, from the client under 1, with AddOffsetsToTxn), TxnOffsetCommit, EndTxn and
//! the markers to every transaction), and the duplicates and losses readers see.

use crate::compare::with_guarantee;
use crate::ids::RecordId;
use crate::kafka::processor::Guarantee;
use crate::kafka::protocol::MessageKind;
use crate::report::Report;
use crate::scenario::{Scenario, ScenarioError};
use crate::sim::simulation::StepKind;
use crate::time::SimTime;
use crate::RunLimit;
use serde::{Deserialize, Serialize};

/// The most values one sweep may take.
pub const MAX_POINTS: usize = 12;
/// The range a swept commit interval may take, in ms.
pub const INTERVAL_RANGE_MS: (u64, u64) = (1, 60_000);

/// One guarantee at one value of the swept parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CostPoint {
    pub guarantee: String,
    /// The processors' commit interval, in ms.
    pub commit_interval_ms: u64,
    /// Inputs whose output some reader saw.
    pub measured: u64,
    /// Mean and 95th percentile of the end-to-end latency, in µs (integers: the same on
    /// every machine).
    pub mean_latency_us: u64,
    pub p95_latency_us: u64,
    /// Write-path messages (all but fetches and their answers) per input record, in
    /// thousandths.
    pub messages_per_record_milli: u64,
    pub duplicates: u64,
    pub lost: u64,
}

#[derive(Debug, PartialEq, Eq)]
pub enum CostError {
    NoProcessor { scenario: String },
    TooManyPoints { count: usize },
    NoPoints,
    OutOfRange { value: u64 },
    Scenario(ScenarioError),
}

impl std::fmt::Display for CostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CostError::NoProcessor { scenario } => write!(
                f,
                "scenario \"{scenario}\" has no read-process-write stage ([[processors]]) to measure"
            ),
            CostError::TooManyPoints { count } => {
                write!(f, "{count} values to sweep; the limit is {MAX_POINTS}")
            }
            CostError::NoPoints => write!(f, "no values to sweep"),
            CostError::OutOfRange { value } => write!(
                f,
                "commit interval {value} ms is out of range ({} to {} ms)",
                INTERVAL_RANGE_MS.0, INTERVAL_RANGE_MS.1
            ),
            CostError::Scenario(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CostError {}

/// Checks the values a sweep would take.
pub fn check_values(values: &[u64]) -> Result<(), CostError> {
    if values.is_empty() {
        return Err(CostError::NoPoints);
    }
    if values.len() > MAX_POINTS {
        return Err(CostError::TooManyPoints {
            count: values.len(),
        });
    }
    match values
        .iter()
        .find(|v| !(INTERVAL_RANGE_MS.0..=INTERVAL_RANGE_MS.1).contains(*v))
    {
        Some(v) => Err(CostError::OutOfRange { value: *v }),
        None => Ok(()),
    }
}

/// Runs `scenario` under every guarantee at every commit interval in `values` (in that
/// order: guarantees outer, values inner).
pub fn sweep_commit_interval(
    scenario: &Scenario,
    values: &[u64],
    seed: Option<u64>,
) -> Result<Vec<CostPoint>, CostError> {
    if scenario.file.processors.is_empty() {
        return Err(CostError::NoProcessor {
            scenario: scenario.name().to_string(),
        });
    }
    check_values(values)?;
    let mut points = Vec::new();
    for g in Guarantee::ALL {
        for &interval in values {
            let mut file = with_guarantee(scenario, g)
                .map_err(CostError::Scenario)?
                .file;
            for p in &mut file.processors {
                p.commit_interval_ms = Some(interval);
            }
            let s = Scenario::from_file(file).map_err(CostError::Scenario)?;
            points.push(measure(&s, g, interval, seed));
        }
    }
    Ok(points)
}

/// When the copy at `offset` of `tp`, appended at step `appended`, became readable by a
/// read_committed consumer: the high watermark passed it or, for a transactional copy, the
/// marker after it (Kafka holds the last stable offset below a transaction until its marker
/// is replicated).
fn readable_at(
    trace: &[crate::sim::StepRecord],
    tp: crate::ids::Tp,
    offset: u64,
    transactional: bool,
    appended: u64,
) -> Option<SimTime> {
    let start = usize::try_from(appended.saturating_sub(1)).ok()?;
    let mut need = (!transactional).then_some(offset);
    for rec in trace.get(start..)? {
        for note in &rec.notes {
            match note {
                crate::sim::Note::MarkerWritten {
                    tp: t, offset: m, ..
                } if need.is_none() && *t == tp && *m > offset => need = Some(*m),
                crate::sim::Note::HighWatermarkAdvanced {
                    tp: t,
                    high_watermark,
                    ..
                } if *t == tp && need.is_some_and(|n| *high_watermark > n) => {
                    return Some(rec.time)
                }
                _ => {}
            }
        }
    }
    None
}

fn measure(s: &Scenario, g: Guarantee, interval: u64, seed: Option<u64>) -> CostPoint {
    let mut sim = s.simulation(seed);
    sim.run(RunLimit::Completion);
    let trace = sim.trace();
    let report = Report::counts(s.name(), &sim);
    let processing = report.processing.clone().unwrap_or_default();
    let mut latencies: Vec<u64> = Vec::new();
    let readable = crate::oracle::anomalies::readable_copies(&sim);
    let stages = crate::report::pipeline::pipeline(&sim);
    if !stages.is_empty() {
        for input in processing.ledger.keys() {
            let Some(id) = input.strip_prefix('v').and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            let accepted = sim.ledger.get(RecordId(id)).and_then(|e| e.accepted_at);
            // A chain's last stage's output: the latency end to end.
            let output = crate::report::pipeline::output_through(&stages, RecordId(id));
            let Some(entry) = sim.ledger.get(output) else {
                continue;
            };
            // The earliest moment one of the output's copies that readers can see became
            // readable.
            let first_readable = entry
                .appends
                .iter()
                .filter(|c| {
                    readable
                        .get(&output)
                        .is_some_and(|at| at.contains(&(c.tp, c.offset)))
                })
                .filter_map(|c| readable_at(trace, c.tp, c.offset, entry.transactional, c.step))
                .min();
            if let (Some(a), Some(r)) = (accepted, first_readable) {
                latencies.push(r.saturating_sub(a));
            }
        }
    }
    crate::order::sort(&mut latencies);
    let n = latencies.len() as u64;
    let mean = latencies.iter().sum::<u64>().checked_div(n).unwrap_or(0);
    let p95 = latencies
        .get((latencies.len() * 95).div_ceil(100).saturating_sub(1))
        .copied()
        .unwrap_or(0);
    // The write path's protocol: produces, offset commits, the transaction protocol and its
    // markers, and their answers; not the polling (fetches), which every guarantee shares,
    // nor the metadata a client asks for after a timeout.
    let messages = trace
        .iter()
        .filter(|r| match &r.what {
            StepKind::Deliver { kind, .. } => !matches!(
                kind,
                MessageKind::Fetch
                    | MessageKind::FetchResponse
                    | MessageKind::Metadata
                    | MessageKind::MetadataResponse
            ),
            _ => false,
        })
        .count() as u64;
    CostPoint {
        guarantee: g.name().to_string(),
        commit_interval_ms: interval,
        measured: n,
        mean_latency_us: mean,
        p95_latency_us: p95,
        messages_per_record_milli: (messages * 1000)
            .checked_div(processing.inputs)
            .unwrap_or(0),
        duplicates: processing.duplicates,
        lost: processing.lost,
    }
}
