//! What readers received: consumers and the consumer side of read-process-write processors
//! (SEMANTICS §7 item 11, and reads that stay readable).

use super::invariants::{visible_set, Failure};
use crate::ids::{NodeId, RecordId, Tp};
use crate::kafka::Isolation;
use crate::sim::observe::{is_alive, leader_replica};
use crate::sim::Simulation;

/// One read: who, how it reads, where, what.
struct Read {
    reader: NodeId,
    isolation: Isolation,
    tp: Tp,
    offset: u64,
    value: RecordId,
}

/// Every read of the run so far: consumers' from their own lists, processors' from the ledger.
fn all_reads(sim: &Simulation) -> Vec<Read> {
    let mut out: Vec<Read> = sim
        .consumers
        .iter()
        .flat_map(|c| {
            c.reads.iter().map(|r| Read {
                reader: c.node(),
                isolation: c.settings.isolation,
                tp: r.tp,
                offset: r.offset,
                value: r.value,
            })
        })
        .collect();
    for (i, e) in sim.ledger.records.iter().enumerate() {
        for r in &e.processor_reads {
            let Some(p) = sim.processors.get(usize::from(r.processor)) else {
                continue;
            };
            out.push(Read {
                reader: p.node(),
                isolation: p.isolation(),
                tp: r.tp,
                offset: r.offset,
                value: RecordId(i as u32),
            });
        }
    }
    out
}

/// True when some consumer or processor reads read_committed.
pub(crate) fn any_read_committed(sim: &Simulation) -> bool {
    sim.consumers
        .iter()
        .any(|c| c.settings.isolation == Isolation::ReadCommitted)
        || sim
            .processors
            .iter()
            .any(|p| p.isolation() == Isolation::ReadCommitted)
}

/// Item 11: read_committed readers (consumers, and processors under exactly-once) only ever
/// receive committed (or non-transactional) records.
pub(crate) fn read_committed_isolation(sim: &Simulation) -> Failure {
    let visible = visible_set(sim);
    // Judged against the live leader's committed view: while a partition has none (offline,
    // or its leader deposed and not yet told), there is nothing to judge a read by, and a
    // replica's lagging view would call a committed record uncommitted. After an unclean
    // election, a read the live leader no longer holds neither: it may be gone from every
    // log, committed or not (the reads it still holds are judged as ever).
    let still_held = |r: &&Read| {
        sim.ledger.unclean_elections_of(r.tp).is_empty()
            || leader_replica(sim, r.tp).is_some_and(|(_, l)| {
                l.log
                    .read(r.offset, r.offset + 1, 1)
                    .first()
                    .map(|x| x.value)
                    == Some(r.value)
            })
    };
    for r in all_reads(sim)
        .iter()
        .filter(|r| r.isolation == Isolation::ReadCommitted)
        .filter(|r| leader_replica(sim, r.tp).is_some())
        .filter(still_held)
    {
        if !visible.contains(&(r.tp, r.offset, r.value)) {
            return Some((
                format!(
                    "{} (read_committed) read {} at offset {} of {}, which is not committed",
                    sim.names.node(r.reader),
                    r.value,
                    r.offset,
                    sim.names.tp(r.tp)
                ),
                sim.ledger
                    .get(r.value)
                    .map(|e| e.evidence.clone())
                    .unwrap_or_default(),
            ));
        }
    }
    None
}

/// Readers only read below the high watermark, so what they read never disappears: every
/// read record is still at its offset on the live leader (clean elections only).
pub(crate) fn reads_stay_readable(sim: &Simulation) -> Failure {
    for read in all_reads(sim) {
        let Some((leader, r)) = leader_replica(sim, read.tp) else {
            continue;
        };
        // An unclean election may hand the offset to another record: Kafka's promise holds
        // only while leaders are elected clean.
        if !is_alive(sim, NodeId::Broker(leader))
            || !sim.ledger.unclean_elections_of(read.tp).is_empty()
        {
            continue;
        }
        let stored = r.log.read(read.offset, read.offset + 1, 1);
        if stored.first().map(|s| s.value) != Some(read.value) {
            return Some((
                format!(
                    "{} read {} at offset {} of {}, which the leader no longer holds",
                    sim.names.node(read.reader),
                    read.value,
                    read.offset,
                    sim.names.tp(read.tp)
                ),
                Vec::new(),
            ));
        }
    }
    None
}
