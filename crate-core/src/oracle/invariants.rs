//! The invariants of SEMANTICS §7 that hold in every correct run, as named checks. Tests run
//! them after every step; reports list those that apply to the scenario's configuration.
//! (Items 3 and 7 compare two runs or say what *can* happen: they are scenario tests.)

use crate::ids::Tp;
use crate::kafka::Acks;
use crate::sim::observe::{is_alive, leader_replica, partitions};
use crate::sim::Simulation;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvariantResult {
    pub name: &'static str,
    pub holds: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<u64>,
}

pub const SEQUENCES_CONTIGUOUS: &str = "sequences-contiguous";
pub const NO_DUPLICATE_PER_PRODUCER_ID: &str = "idempotent-no-duplicates";
pub const ACKED_OFFSET_IS_ORIGINAL: &str = "acked-offset-is-original";
pub const IDEMPOTENT_SEND_ORDER: &str = "idempotent-send-order";
pub const NO_STALE_EPOCH_APPEND: &str = "no-stale-epoch-append";
pub const HIGH_WATERMARK_BOUNDS: &str = "high-watermark-bounds";
pub const READS_STAY_READABLE: &str = "reads-stay-readable";

fn result(name: &'static str, failure: Option<(String, Vec<u64>)>) -> InvariantResult {
    match failure {
        None => InvariantResult {
            name,
            holds: true,
            detail: None,
            events: Vec::new(),
        },
        Some((detail, events)) => InvariantResult {
            name,
            holds: false,
            detail: Some(detail),
            events,
        },
    }
}

/// Every invariant that applies to this simulation's configuration, checked now.
pub fn check_all(sim: &Simulation) -> Vec<InvariantResult> {
    let any_idempotent = sim.producers.iter().any(|p| p.is_idempotent());
    let any_acks_all = sim.producers.iter().any(|p| p.config.acks == Acks::All);
    let mut out = Vec::new();
    if any_idempotent {
        out.push(result(SEQUENCES_CONTIGUOUS, sequences_contiguous(sim)));
        out.push(result(
            NO_DUPLICATE_PER_PRODUCER_ID,
            no_duplicate_per_pid(sim),
        ));
        out.push(result(IDEMPOTENT_SEND_ORDER, idempotent_send_order(sim)));
        out.push(result(NO_STALE_EPOCH_APPEND, no_stale_epoch(sim)));
    }
    if any_acks_all {
        out.push(result(
            ACKED_OFFSET_IS_ORIGINAL,
            acked_offset_is_original(sim),
        ));
    }
    out.push(result(HIGH_WATERMARK_BOUNDS, high_watermark_bounds(sim)));
    out.push(result(READS_STAY_READABLE, reads_stay_readable(sim)));
    out
}

/// The failures only, for tests that check after every step.
pub fn violations(sim: &Simulation) -> Vec<InvariantResult> {
    check_all(sim).into_iter().filter(|r| !r.holds).collect()
}

type Failure = Option<(String, Vec<u64>)>;

/// Batches of idempotent producers on every live leader, per (partition, producer id).
fn idempotent_batches(
    sim: &Simulation,
) -> BTreeMap<(Tp, i64), Vec<&crate::kafka::partition_log::StoredBatch>> {
    let mut out: BTreeMap<_, Vec<_>> = BTreeMap::new();
    for tp in partitions(sim) {
        if let Some((_, r)) = leader_replica(sim, tp) {
            for b in r.log.batches().iter().filter(|b| b.producer_id >= 0) {
                out.entry((tp, b.producer_id)).or_default().push(b);
            }
        }
    }
    out
}

/// Item 1: sequences per (partition, pid, epoch) are contiguous; a new epoch starts at 0.
fn sequences_contiguous(sim: &Simulation) -> Failure {
    for ((tp, pid), batches) in idempotent_batches(sim) {
        for pair in batches.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let ok = if a.epoch == b.epoch {
                crate::kafka::partition_log::sequence_add(a.last_sequence(), 1) == b.base_sequence
            } else {
                b.base_sequence == 0
            };
            if !ok {
                return Some((
                    format!(
                        "{}: producer {pid} epoch {} sequence {} follows epoch {} sequence {}",
                        sim.names.tp(tp),
                        b.epoch,
                        b.base_sequence,
                        a.epoch,
                        a.last_sequence()
                    ),
                    vec![a.appended_step, b.appended_step],
                ));
            }
        }
    }
    None
}

/// Items 2 and 4: one producer id never stores the same record twice.
fn no_duplicate_per_pid(sim: &Simulation) -> Failure {
    for ((tp, pid), batches) in idempotent_batches(sim) {
        let mut seen = BTreeMap::new();
        for b in batches {
            for (i, r) in b.records.iter().enumerate() {
                if let Some(first) =
                    seen.insert(r.value, (b.base_offset + i as u64, b.appended_step))
                {
                    return Some((
                        format!(
                            "{}: producer {pid} stored {} at offsets {} and {}",
                            sim.names.tp(tp),
                            r.value,
                            first.0,
                            b.base_offset + i as u64
                        ),
                        vec![first.1, b.appended_step],
                    ));
                }
            }
        }
    }
    None
}

/// Item 5: one idempotent producer's records are stored in the order it was given them.
fn idempotent_send_order(sim: &Simulation) -> Failure {
    for ((tp, pid), batches) in idempotent_batches(sim) {
        let mut last: Option<(crate::ids::RecordId, u64)> = None;
        for b in batches {
            for r in &b.records {
                if let Some((prev, step)) = last {
                    if sim.ledger.send_order(r.value) <= sim.ledger.send_order(prev) {
                        return Some((
                            format!(
                                "{}: producer {pid} stored {} after {}",
                                sim.names.tp(tp),
                                r.value,
                                prev
                            ),
                            vec![step, b.appended_step],
                        ));
                    }
                }
                last = Some((r.value, b.appended_step));
            }
        }
    }
    None
}

/// Item 6: no batch with an epoch below one already stored is appended.
fn no_stale_epoch(sim: &Simulation) -> Failure {
    for ((tp, pid), batches) in idempotent_batches(sim) {
        for pair in batches.windows(2) {
            if pair[1].epoch < pair[0].epoch {
                return Some((
                    format!(
                        "{}: producer {pid} epoch {} appended after epoch {}",
                        sim.names.tp(tp),
                        pair[1].epoch,
                        pair[0].epoch
                    ),
                    vec![pair[0].appended_step, pair[1].appended_step],
                ));
            }
        }
    }
    None
}

/// Item 2: with acks=all, an acknowledged offset holds the acknowledged record (a retry's
/// answer carries the original offset).
fn acked_offset_is_original(sim: &Simulation) -> Failure {
    for (i, e) in sim.ledger.records.iter().enumerate() {
        let (Some(offset), Some(tp), Some(p)) = (e.acked_offset, e.tp, e.producer) else {
            continue;
        };
        let acks_all = sim
            .producers
            .get(usize::from(p))
            .is_some_and(|p| p.config.acks == Acks::All);
        if !acks_all {
            continue;
        }
        let Some((_, r)) = leader_replica(sim, tp) else {
            continue;
        };
        if offset >= r.high_watermark {
            continue;
        }
        let stored = r.log.read(offset, offset + 1, 1);
        if stored.first().map(|s| s.value.0) != Some(i as u32) {
            return Some((
                format!(
                    "record v{i} was acknowledged at offset {offset} of {}, which holds {}",
                    sim.names.tp(tp),
                    stored
                        .first()
                        .map_or("nothing".to_string(), |s| s.value.to_string())
                ),
                e.evidence.clone(),
            ));
        }
    }
    None
}

/// Item 11 (first half): the high watermark never passes the log end, the LSO never passes the HW.
fn high_watermark_bounds(sim: &Simulation) -> Failure {
    for b in &sim.brokers {
        for r in b.replicas.values() {
            if r.high_watermark > r.log.log_end_offset()
                || r.last_stable_offset() > r.high_watermark
            {
                return Some((
                    format!(
                        "broker {}: {} has HW {} LSO {} but log end {}",
                        b.id,
                        sim.names.tp(r.tp),
                        r.high_watermark,
                        r.last_stable_offset(),
                        r.log.log_end_offset()
                    ),
                    Vec::new(),
                ));
            }
        }
    }
    None
}

/// Consumers only read below the high watermark, so what they read never disappears:
/// every read record is still at its offset on the live leader (clean elections only).
fn reads_stay_readable(sim: &Simulation) -> Failure {
    for c in &sim.consumers {
        for read in &c.reads {
            let Some((leader, r)) = leader_replica(sim, read.tp) else {
                continue;
            };
            if !is_alive(sim, crate::ids::NodeId::Broker(leader)) {
                continue;
            }
            let stored = r.log.read(read.offset, read.offset + 1, 1);
            if stored.first().map(|s| s.value) != Some(read.value) {
                return Some((
                    format!(
                        "{} read {} at offset {} of {}, which the leader no longer holds",
                        sim.names.node(c.node()),
                        read.value,
                        read.offset,
                        sim.names.tp(read.tp)
                    ),
                    Vec::new(),
                ));
            }
        }
    }
    None
}
