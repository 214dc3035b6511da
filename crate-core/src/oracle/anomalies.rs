//! Anomalies with Jepsen's names, found in the final state and the ledger, each tied to the
//! steps that prove it.

use crate::ids::{RecordId, Tp};
use crate::oracle::DeliveryStatus;
use crate::sim::observe::{is_alive, leader_replica, partitions};
use crate::sim::Simulation;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AnomalyKind {
    /// One value at two offsets.
    Duplicate,
    /// Acknowledged, never readable.
    LostWrite,
    /// G1a: a value from an aborted transaction was read.
    AbortedRead,
    /// Acknowledged and readable, but no consumer of its partition read it.
    Unseen,
    /// A producer's records appear in the log in another order than it sent them.
    NonmonotonicSend,
    /// A consumer read offsets out of order.
    NonmonotonicPoll,
    /// A consumer jumped over readable records.
    PollSkip,
    /// One offset, two values on two replicas.
    InconsistentOffsets,
}

impl AnomalyKind {
    pub fn name(self) -> &'static str {
        match self {
            AnomalyKind::Duplicate => "duplicate",
            AnomalyKind::LostWrite => "lost-write",
            AnomalyKind::AbortedRead => "aborted-read",
            AnomalyKind::Unseen => "unseen",
            AnomalyKind::NonmonotonicSend => "nonmonotonic-send",
            AnomalyKind::NonmonotonicPoll => "nonmonotonic-poll",
            AnomalyKind::PollSkip => "poll-skip",
            AnomalyKind::InconsistentOffsets => "inconsistent-offsets",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Anomaly {
    pub kind: AnomalyKind,
    pub record: Option<RecordId>,
    pub detail: String,
    /// Steps of the trace that prove it.
    pub events: Vec<u64>,
}

/// What a read_committed reader of the live leader can ever see of a partition: records
/// below the last stable offset, without aborted transactions and markers.
pub fn committed_view(
    r: &crate::kafka::replica::Replica,
) -> Vec<crate::kafka::partition_log::FetchedRecord> {
    let lso = r.last_stable_offset();
    let entries = r.log.read_entries(0, lso, u32::MAX);
    let aborted = r.txn.aborted_in_range(0, lso);
    crate::kafka::txn_index::read_committed_filter(&entries, &aborted)
}

/// Visible copies of each record: in the committed view of each partition's live leader.
/// (Without transactions that is everything below the high watermark.)
pub fn readable_copies(sim: &Simulation) -> BTreeMap<RecordId, Vec<(Tp, u64)>> {
    let mut copies: BTreeMap<RecordId, Vec<(Tp, u64)>> = BTreeMap::new();
    for tp in partitions(sim) {
        if let Some((_, r)) = leader_replica(sim, tp) {
            for rec in committed_view(r) {
                copies.entry(rec.value).or_default().push((tp, rec.offset));
            }
        }
    }
    copies
}

/// Offsets of records of aborted transactions (decided: below the last stable offset).
pub fn aborted_offsets(sim: &Simulation) -> BTreeSet<(Tp, u64)> {
    let mut out = BTreeSet::new();
    for tp in partitions(sim) {
        if let Some((_, r)) = leader_replica(sim, tp) {
            let visible: BTreeSet<u64> =
                crate::order::set_of(committed_view(r).iter().map(|x| x.offset));
            for e in r.log.read_entries(0, r.last_stable_offset(), u32::MAX) {
                if let crate::kafka::txn_index::FetchedEntry::Data {
                    record,
                    transactional: true,
                } = e
                {
                    if !visible.contains(&record.offset) {
                        out.insert((tp, record.offset));
                    }
                }
            }
        }
    }
    out
}

/// Records a down broker holds on disk in a partition with no live leader: a broker's log
/// survives its crash, so they are unavailable rather than gone (with a live leader that
/// lacks one, a restart would truncate it away: that is a loss). One pass over those logs.
pub fn held_offline(sim: &Simulation) -> BTreeSet<RecordId> {
    let mut out = BTreeSet::new();
    for tp in partitions(sim) {
        if leader_replica(sim, tp).is_some() {
            continue;
        }
        for b in sim.brokers.iter().filter(|b| !is_alive(sim, b.node())) {
            if let Some(r) = b.replicas.get(&tp) {
                out.extend(
                    r.log
                        .records_below(r.log.log_end_offset())
                        .map(|rec| rec.value),
                );
            }
        }
    }
    out
}

/// The down broker that holds record `id` of `tp` (one of `held_offline`), for its anomaly.
fn down_holder(sim: &Simulation, tp: Tp, id: RecordId) -> Option<u8> {
    sim.brokers
        .iter()
        .filter(|b| !is_alive(sim, b.node()))
        .find_map(|b| {
            let r = b.replicas.get(&tp)?;
            r.log
                .records_below(r.log.log_end_offset())
                .any(|rec| rec.value == id)
                .then_some(b.id)
        })
}

const MAX_PER_KIND: usize = 50;

pub fn find(sim: &Simulation) -> Vec<Anomaly> {
    let copies = readable_copies(sim);
    let mut out = Vec::new();
    let room = |out: &[Anomaly], kind: AnomalyKind| {
        out.iter().filter(|x| x.kind == kind).count() < MAX_PER_KIND
    };
    let push = |out: &mut Vec<Anomaly>, a: Anomaly| {
        if room(out, a.kind) {
            out.push(a);
        }
    };
    let describe = |id: RecordId| -> String {
        let key = sim
            .ledger
            .get(id)
            .and_then(|e| sim.names.key(e.key))
            .map(|k| format!(" (key \"{k}\")"))
            .unwrap_or_default();
        format!("record {}{key}", sim.names.record(id))
    };
    let evidence = |id: RecordId| {
        sim.ledger
            .get(id)
            .map(|e| e.evidence.clone())
            .unwrap_or_default()
    };

    for (id, at) in &copies {
        if at.len() > 1 {
            let places: Vec<String> = at
                .iter()
                .map(|(tp, o)| format!("{} offset {o}", sim.names.tp(*tp)))
                .collect();
            push(
                &mut out,
                Anomaly {
                    kind: AnomalyKind::Duplicate,
                    record: Some(*id),
                    detail: format!(
                        "{} is stored {} times: {}",
                        describe(*id),
                        at.len(),
                        places.join(", ")
                    ),
                    events: evidence(*id),
                },
            );
        }
    }
    let consumed: BTreeSet<Tp> = sim
        .consumers
        .iter()
        .flat_map(|c| c.settings.assignments.iter().copied())
        .collect();
    let aborted = aborted_offsets(sim);
    for c in &sim.consumers {
        for r in c
            .reads
            .iter()
            .filter(|r| aborted.contains(&(r.tp, r.offset)))
        {
            let events = sim
                .ledger
                .get(r.value)
                .map(|e| e.evidence.clone())
                .unwrap_or_default();
            push(
                &mut out,
                Anomaly {
                    kind: AnomalyKind::AbortedRead,
                    record: Some(r.value),
                    detail: format!(
                        "{} ({}) read {} at offset {} of {}, from a transaction that aborted",
                        sim.names.node(c.node()),
                        c.settings.isolation.as_config(),
                        sim.names.record(r.value),
                        r.offset,
                        sim.names.tp(r.tp)
                    ),
                    events,
                },
            );
        }
    }
    let offline = held_offline(sim);
    for (i, e) in sim.ledger.records.iter().enumerate() {
        let id = RecordId(i as u32);
        if !e.acknowledged() {
            continue;
        }
        let readable = copies.get(&id);
        if readable.is_none() {
            // Its down broker looked up only for the anomalies listed (one scan of its log).
            let holder =
                e.tp.filter(|_| offline.contains(&id) && room(&out, AnomalyKind::LostWrite))
                    .and_then(|tp| down_holder(sim, tp, id));
            push(
                &mut out,
                Anomaly {
                    kind: AnomalyKind::LostWrite,
                    record: Some(id),
                    detail: match e.sink.filter(|_| e.status != DeliveryStatus::Delivered) {
                        Some(t) => format!(
                            "{} was committed as far as {} knows (a checkpoint that covers it completed), but Kafka had aborted its transaction: it is in no readable log",
                            describe(id),
                            sim.names.node(crate::ids::NodeId::Task(t))
                        ),
                        None => format!(
                            "{} was acknowledged{} but is in no readable log{}",
                            describe(id),
                            e.acked_offset
                                .map(|o| format!(" at offset {o}"))
                                .unwrap_or_default(),
                            holder
                                .map(|b| format!(": broker {b}, down at the end, holds it on disk (unavailable until it restarts)"))
                                .unwrap_or_default()
                        ),
                    },
                    events: e.evidence.clone(),
                },
            );
        } else if e.tp.is_some_and(|tp| consumed.contains(&tp)) && e.reads.is_empty() {
            push(
                &mut out,
                Anomaly {
                    kind: AnomalyKind::Unseen,
                    record: Some(id),
                    detail: format!(
                        "{} was acknowledged and is readable, but no consumer read it",
                        describe(id)
                    ),
                    events: e.evidence.clone(),
                },
            );
        }
    }
    // Send order: per producer and partition, first copies must follow record order.
    let mut by_producer: BTreeMap<(u8, Tp), Vec<(RecordId, u64)>> = BTreeMap::new();
    for (id, at) in &copies {
        let Some(e) = sim.ledger.get(*id) else {
            continue;
        };
        let (Some(p), Some(&(tp, offset))) = (e.producer, at.first()) else {
            continue;
        };
        by_producer.entry((p, tp)).or_default().push((*id, offset));
    }
    for ((p, tp), mut recs) in by_producer {
        crate::order::sort_by_key(&mut recs, |(_, offset)| *offset);
        for pair in recs.windows(2) {
            let ((a, oa), (b, ob)) = (pair[0], pair[1]);
            if sim.ledger.send_order(b) < sim.ledger.send_order(a) {
                let mut events = evidence(a);
                events.extend(evidence(b));
                crate::order::sort(&mut events);
                events.dedup();
                push(
                    &mut out,
                    Anomaly {
                        kind: AnomalyKind::NonmonotonicSend,
                        record: Some(b),
                        detail: format!(
                            "{} sent {} before {}, but {} holds {} at offset {ob} after {} at offset {oa}",
                            sim.names.node(crate::ids::NodeId::Producer(p)),
                            sim.names.record(b),
                            sim.names.record(a),
                            sim.names.tp(tp),
                            sim.names.record(b),
                            sim.names.record(a)
                        ),
                        events,
                    },
                );
            }
        }
    }
    // Consumers: offsets must rise, and must not jump over readable records. The evidence
    // is the steps at which this consumer read the two records.
    let read_steps = |consumer: u8, ids: &[RecordId]| -> Vec<u64> {
        let mut steps: Vec<u64> = ids
            .iter()
            .filter_map(|id| sim.ledger.get(*id))
            .flat_map(|e| {
                e.reads
                    .iter()
                    .filter(|r| r.consumer == consumer)
                    .map(|r| r.step)
            })
            .collect();
        crate::order::sort(&mut steps);
        steps.dedup();
        steps
    };
    // What each isolation level could have delivered, per partition: stepping over markers
    // or aborted records is not a skip.
    let mut deliverable: BTreeMap<(bool, Tp), BTreeSet<u64>> = BTreeMap::new();
    for tp in partitions(sim) {
        if let Some((_, r)) = leader_replica(sim, tp) {
            let all: BTreeSet<u64> = crate::order::set_of(
                r.log
                    .records_below(r.log.log_end_offset())
                    .map(|x| x.offset),
            );
            let committed: BTreeSet<u64> =
                crate::order::set_of(committed_view(r).iter().map(|x| x.offset));
            deliverable.insert((false, tp), all);
            deliverable.insert((true, tp), committed);
        }
    }
    for c in &sim.consumers {
        let read_committed = c.settings.isolation == crate::kafka::Isolation::ReadCommitted;
        let mut previous: BTreeMap<Tp, RecordId> = BTreeMap::new();
        let mut last: BTreeMap<Tp, u64> = BTreeMap::new();
        for r in &c.reads {
            if let Some(prev) = last.get(&r.tp) {
                if r.offset <= *prev {
                    push(
                        &mut out,
                        Anomaly {
                            kind: AnomalyKind::NonmonotonicPoll,
                            record: Some(r.value),
                            detail: format!(
                                "{} read offset {} of {} after offset {prev}",
                                sim.names.node(c.node()),
                                r.offset,
                                sim.names.tp(r.tp)
                            ),
                            events: read_steps(
                                c.index,
                                &[previous.get(&r.tp).copied().unwrap_or(r.value), r.value],
                            ),
                        },
                    );
                } else if deliverable
                    .get(&(read_committed, r.tp))
                    .is_some_and(|d| d.range(prev + 1..r.offset).next().is_some())
                {
                    push(
                        &mut out,
                        Anomaly {
                            kind: AnomalyKind::PollSkip,
                            record: Some(r.value),
                            detail: format!(
                                "{} jumped from offset {prev} to {} of {}",
                                sim.names.node(c.node()),
                                r.offset,
                                sim.names.tp(r.tp)
                            ),
                            events: read_steps(
                                c.index,
                                &[previous.get(&r.tp).copied().unwrap_or(r.value), r.value],
                            ),
                        },
                    );
                }
            }
            last.insert(r.tp, r.offset);
            previous.insert(r.tp, r.value);
        }
    }
    // Replicas: below both high watermarks, one offset holds one value.
    for tp in partitions(sim) {
        let Some((leader, lr)) = leader_replica(sim, tp) else {
            continue;
        };
        for b in sim.brokers.iter().filter(|b| b.id != leader) {
            let Some(r) = b.replicas.get(&tp) else {
                continue;
            };
            let upto = r.high_watermark.min(lr.high_watermark);
            for (x, y) in lr.log.records_below(upto).zip(r.log.records_below(upto)) {
                if x.offset == y.offset && x.value != y.value {
                    push(
                        &mut out,
                        Anomaly {
                            kind: AnomalyKind::InconsistentOffsets,
                            record: Some(x.value),
                            detail: format!(
                                "offset {} of {} holds {} on broker {leader} and {} on broker {}",
                                x.offset,
                                sim.names.tp(tp),
                                sim.names.record(x.value),
                                sim.names.record(y.value),
                                b.id
                            ),
                            // An unclean election is how it came about.
                            events: sim.ledger.unclean_elections_of(tp),
                        },
                    );
                }
            }
        }
    }
    out
}
