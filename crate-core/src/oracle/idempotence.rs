//! SEMANTICS §7 items 1, 2, 4, 5 and 6: what the broker stores for idempotent producers
//! (plain producers, read-process-write processors' output clients, Flink sinks), and where
//! acknowledged records stand.

use super::invariants::Failure;
use super::RecordEntry;
use crate::ids::{RecordId, Tp};
use crate::kafka::producer::Producer;
use crate::kafka::Acks;
use crate::sim::observe::{leader_replica, partitions};
use crate::sim::Simulation;
use std::collections::BTreeMap;

/// Every producer client of the run: the plain producers and the processors' output clients.
pub(crate) fn clients(sim: &Simulation) -> impl Iterator<Item = &Producer> {
    sim.producers
        .iter()
        .chain(sim.processors.iter().map(|p| &p.producer))
}

/// The client a record was handed to, if any.
fn sender<'a>(sim: &'a Simulation, e: &RecordEntry) -> Option<&'a Producer> {
    match (e.producer, e.processor) {
        (Some(p), _) => sim.producers.get(usize::from(p)),
        (None, Some(p)) => sim.processors.get(usize::from(p)).map(|p| &p.producer),
        (None, None) => None,
    }
}

/// Batches of idempotent producers on every live leader, per (partition, producer id).
fn idempotent_batches(
    sim: &Simulation,
) -> BTreeMap<(Tp, i64), Vec<&crate::kafka::partition_log::StoredBatch>> {
    let mut out: BTreeMap<_, Vec<_>> = BTreeMap::new();
    for tp in partitions(sim) {
        if let Some((_, r)) = leader_replica(sim, tp) {
            for b in r
                .log
                .batches()
                .iter()
                .filter(|b| b.producer_id >= 0 && b.control.is_none())
            {
                out.entry((tp, b.producer_id)).or_default().push(b);
            }
        }
    }
    out
}

/// Item 1: sequences per (partition, pid, epoch) are contiguous; a new epoch starts at 0.
pub(crate) fn sequences_contiguous(sim: &Simulation) -> Failure {
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

/// The hand-over a stored copy was sent under, and that hand-over's send order (none for
/// a copy no producer client handed over, such as a Flink sink's writes).
fn hand_over_of(sim: &Simulation, id: RecordId, tp: Tp, offset: u64) -> (u32, Option<u64>) {
    match sim.ledger.copy_at(id, tp, offset) {
        Some(c) => (c.hand_over, c.send_order),
        None => {
            let order = sim.ledger.send_order(id);
            (0, (order != u64::MAX).then_some(order))
        }
    }
}

/// Items 2 and 4: one send never becomes two stored copies in one producer session
/// (producer id and epoch). A transactional producer keeps its id across restarts; its new
/// instance (a new epoch) may write again what the old one's aborted transaction held. A
/// processor hands an aborted transaction's outputs over again, as new sends: under
/// protocol 1 (no epoch bump at EndTxn) they land in the same session, and are no duplicate.
pub(crate) fn no_duplicate_per_pid(sim: &Simulation) -> Failure {
    for ((tp, pid), batches) in idempotent_batches(sim) {
        let mut seen = BTreeMap::new();
        for b in batches {
            for (i, r) in b.records.iter().enumerate() {
                let offset = b.base_offset + i as u64;
                let (hand_over, _) = hand_over_of(sim, r.value, tp, offset);
                if let Some(first) =
                    seen.insert((b.epoch, r.value, hand_over), (offset, b.appended_step))
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

/// Item 5: within one producer session (producer id and epoch) records are stored in the
/// order the application handed them over (each copy by the hand-over it was sent under).
pub(crate) fn idempotent_send_order(sim: &Simulation) -> Failure {
    for ((tp, pid), batches) in idempotent_batches(sim) {
        let mut last: Option<(RecordId, u64, Option<u64>)> = None;
        let mut epoch = None;
        for b in batches {
            if epoch != Some(b.epoch) {
                epoch = Some(b.epoch);
                last = None;
            }
            for (i, r) in b.records.iter().enumerate() {
                let (_, now) = hand_over_of(sim, r.value, tp, b.base_offset + i as u64);
                if let Some((prev, step, before)) = last {
                    // Records no producer client handed over (a Flink sink's writes) have no
                    // send order to keep.
                    if now.zip(before).is_some_and(|(now, before)| now <= before) {
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
                last = Some((r.value, b.appended_step, now));
            }
        }
    }
    None
}

/// Item 6: no batch with an epoch below one already stored is appended.
pub(crate) fn no_stale_epoch(sim: &Simulation) -> Failure {
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
pub(crate) fn acked_offset_is_original(sim: &Simulation) -> Failure {
    for (i, e) in sim.ledger.records.iter().enumerate() {
        let (Some(offset), Some(tp)) = (e.acked_offset, e.tp) else {
            continue;
        };
        let acks_all = sender(sim, e).is_some_and(|p| p.config.acks == Acks::All);
        // acks=all holds an offset only while leaders are elected clean.
        if !acks_all || !sim.ledger.unclean_elections_of(tp).is_empty() {
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
