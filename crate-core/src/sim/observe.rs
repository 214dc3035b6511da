//! Read-only views for the oracle and the UI: who leads what, what is readable, and compact
//! per-component snapshots to draw.

use super::simulation::Simulation;
use crate::ids::{NodeId, Tp};
use crate::kafka::replica::Replica;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Every partition in the cluster, in order.
pub fn partitions(sim: &Simulation) -> Vec<Tp> {
    let set: BTreeSet<Tp> = sim
        .brokers
        .iter()
        .flat_map(|b| b.replicas.keys().copied())
        .collect();
    set.into_iter().collect()
}

pub fn is_alive(sim: &Simulation, node: NodeId) -> bool {
    sim.status.get(&node).is_some_and(|s| !s.crashed)
}

/// The live leader's replica of a partition, if it has one.
pub fn leader_replica(sim: &Simulation, tp: Tp) -> Option<(u8, &Replica)> {
    sim.brokers.iter().find_map(|b| {
        let r = b.replicas.get(&tp)?;
        (r.is_leader(b.id) && is_alive(sim, b.node())).then_some((b.id, r))
    })
}

/// One cell of a partition log as drawn.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellView {
    pub offset: u64,
    pub key: Option<String>,
    pub value: String,
    pub producer_id: i64,
    pub epoch: i16,
    pub sequence: i32,
    /// A second (or later) copy of a record already stored at a lower offset.
    pub duplicate: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionView {
    pub tp: Tp,
    pub name: String,
    pub broker: u8,
    pub is_leader: bool,
    pub alive: bool,
    pub frozen: bool,
    pub cells: Vec<CellView>,
    pub high_watermark: u64,
    pub last_stable_offset: u64,
    pub log_end_offset: u64,
}

/// Every replica of every partition, leaders first.
pub fn partition_views(sim: &Simulation) -> Vec<PartitionView> {
    let mut out = Vec::new();
    for tp in partitions(sim) {
        for b in &sim.brokers {
            let Some(r) = b.replicas.get(&tp) else {
                continue;
            };
            let status = sim.status.get(&b.node());
            let mut seen = BTreeSet::new();
            let cells = r
                .log
                .records_below(u64::MAX)
                .map(|rec| CellView {
                    offset: rec.offset,
                    key: sim.names.key(rec.key),
                    value: rec.value.to_string(),
                    producer_id: rec.producer_id,
                    epoch: rec.epoch,
                    sequence: rec.sequence,
                    duplicate: !seen.insert(rec.value),
                })
                .collect();
            out.push(PartitionView {
                tp,
                name: sim.names.tp(tp),
                broker: b.id,
                is_leader: r.is_leader(b.id),
                alive: status.is_some_and(|s| !s.crashed),
                frozen: status.is_some_and(|s| s.frozen),
                cells,
                high_watermark: r.high_watermark,
                last_stable_offset: r.last_stable_offset(),
                log_end_offset: r.log.log_end_offset(),
            });
        }
    }
    out.sort_by_key(|p| (p.tp, !p.is_leader, p.broker));
    out
}
