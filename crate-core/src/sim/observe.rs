//! Read-only views for the oracle and the UI: who leads what, what is readable, and compact
//! per-component snapshots to draw.

use super::simulation::Simulation;
use crate::ids::{NodeId, Tp};
use crate::kafka::replica::Replica;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Every partition in the cluster, in order.
pub fn partitions(sim: &Simulation) -> Vec<Tp> {
    let set: BTreeSet<Tp> =
        crate::order::set_of(sim.brokers.iter().flat_map(|b| b.replicas.keys().copied()));
    set.into_iter().collect()
}

pub fn is_alive(sim: &Simulation, node: NodeId) -> bool {
    sim.status.get(&node).is_some_and(|s| !s.crashed)
}

/// The live leader's replica of a partition, if it has one: the one the controller's metadata
/// names, not a frozen broker that missed its own deposition.
pub fn leader_replica(sim: &Simulation, tp: Tp) -> Option<(u8, &Replica)> {
    sim.brokers.iter().find_map(|b| {
        let r = b.replicas.get(&tp)?;
        (r.is_leader(b.id) && is_alive(sim, b.node()) && !deposed(b, tp)).then_some((b.id, r))
    })
}

/// Broker `b` believes it leads `tp`, but the controller moved the leadership while it was
/// frozen and could not hear (it wakes as a zombie leader).
pub fn deposed(b: &crate::kafka::broker::Broker, tp: Tp) -> bool {
    b.replicas.get(&tp).is_some_and(|r| r.is_leader(b.id))
        && b.missed_metadata
            .iter()
            .any(|m| m.tp == tp && m.leader != Some(b.id))
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
    /// For a transactional record: whether its transaction is still open, committed or
    /// aborted (as this replica's log says).
    pub txn: Option<TxnCellState>,
    /// A transaction marker (`COMMIT` or `ABORT`), not a record.
    pub marker: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxnCellState {
    Open,
    Committed,
    Aborted,
}

impl TxnCellState {
    pub fn name(self) -> &'static str {
        match self {
            TxnCellState::Open => "open",
            TxnCellState::Committed => "committed",
            TxnCellState::Aborted => "aborted",
        }
    }
}

/// The transaction state of one transactional offset of a replica's log (`None`: not a
/// transactional record).
pub fn txn_state_at(r: &Replica, offset: u64) -> Option<TxnCellState> {
    txn_states(r).get(&offset).copied()
}

/// The transaction state of every transactional offset of a replica's log: a record's
/// transaction is decided by the next marker of its producer after it.
fn txn_states(r: &Replica) -> std::collections::BTreeMap<u64, TxnCellState> {
    use crate::kafka::txn_index::ControlType;
    let mut out = std::collections::BTreeMap::new();
    let mut open: std::collections::BTreeMap<i64, Vec<u64>> = std::collections::BTreeMap::new();
    for b in r.log.batches() {
        match b.control {
            Some(c) => {
                let state = if c == ControlType::Commit {
                    TxnCellState::Committed
                } else {
                    TxnCellState::Aborted
                };
                for o in open.remove(&b.producer_id).unwrap_or_default() {
                    out.insert(o, state);
                }
            }
            None if b.transactional => {
                let offsets = open.entry(b.producer_id).or_default();
                offsets.extend(b.base_offset..b.base_offset + b.len());
            }
            None => {}
        }
    }
    for o in open.into_values().flatten() {
        out.insert(o, TxnCellState::Open);
    }
    out
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionView {
    pub tp: Tp,
    pub name: String,
    pub broker: u8,
    pub is_leader: bool,
    /// The partition's leader as this replica knows it (none: offline).
    pub leader: Option<u8>,
    /// A frozen broker that still believes it leads: the controller moved the leadership
    /// while it could not hear (it wakes as a zombie leader).
    #[serde(default)]
    pub deposed: bool,
    pub alive: bool,
    pub frozen: bool,
    pub cells: Vec<CellView>,
    /// Entries before `cells` left out (`partition_views_last`).
    pub earlier: usize,
    pub high_watermark: u64,
    pub last_stable_offset: u64,
    pub log_end_offset: u64,
    /// The in-sync replicas as this replica knows them, and how many replicas there are.
    #[serde(default)]
    pub isr: Vec<u8>,
    #[serde(default)]
    pub replicas: u8,
    /// `min.insync.replicas` of its topic (capped at the replica count): with fewer in sync,
    /// the leader holds its high watermark.
    #[serde(default)]
    pub min_insync: u8,
    /// A follower up and awake whose fetches cannot reach its leader (their link is cut).
    #[serde(default)]
    pub cut_off: bool,
}

/// Every replica of every partition, leaders first.
pub fn partition_views(sim: &Simulation) -> Vec<PartitionView> {
    partition_views_last(sim, usize::MAX, 1)
}

/// The same with at most the `last` entries of each log as cells (duplicates are still
/// judged against the whole log): what a page can draw at every step of a long run. The
/// first cell shown moves in strides of `stride` entries, so that as a log grows the cells
/// already drawn stay put and only new ones are added (at least `last - stride + 1` are
/// shown once the log is long enough).
pub fn partition_views_last(sim: &Simulation, last: usize, stride: usize) -> Vec<PartitionView> {
    replicas(sim)
        .into_iter()
        .filter_map(|(tp, broker)| partition_view_last(sim, tp, broker, last, stride))
        .collect()
}

/// Every replica of every partition as (partition, broker id), in the order
/// `partition_views` lists them: by partition, its leader first, then by broker.
pub fn replicas(sim: &Simulation) -> Vec<(Tp, u8)> {
    let mut out = Vec::new();
    for tp in partitions(sim) {
        for b in &sim.brokers {
            if let Some(r) = b.replicas.get(&tp) {
                out.push((tp, !r.is_leader(b.id) || deposed(b, tp), b.id));
            }
        }
    }
    crate::order::sort_by_key(&mut out, |x| *x);
    out.into_iter().map(|(tp, _, b)| (tp, b)).collect()
}

/// One replica's view (`partition_views_last` for a single log): none if that broker holds
/// no replica of the partition.
pub fn partition_view_last(
    sim: &Simulation,
    tp: Tp,
    broker: u8,
    last: usize,
    stride: usize,
) -> Option<PartitionView> {
    let b = sim.brokers.iter().find(|b| b.id == broker)?;
    let r = b.replicas.get(&tp)?;
    let status = sim.status.get(&b.node());
    let mut seen = BTreeSet::new();
    let states = txn_states(r);
    let entries = r.log.read_entries(0, u64::MAX, u32::MAX);
    let stride = stride.max(1);
    let earlier = entries.len().saturating_sub(last).div_ceil(stride) * stride;
    for entry in &entries[..earlier] {
        if let crate::kafka::txn_index::FetchedEntry::Data { record: rec, .. } = entry {
            if states.get(&rec.offset) != Some(&TxnCellState::Aborted) {
                seen.insert(rec.value);
            }
        }
    }
    let cells = entries
        .into_iter()
        .skip(earlier)
        .map(|entry| match entry {
            crate::kafka::txn_index::FetchedEntry::Data { record: rec, .. } => CellView {
                offset: rec.offset,
                key: sim.names.key(rec.key),
                value: sim.names.record(rec.value),
                producer_id: rec.producer_id,
                epoch: rec.epoch,
                sequence: rec.sequence,
                // A copy in an aborted transaction is not a duplicate anyone sees.
                duplicate: states.get(&rec.offset) != Some(&TxnCellState::Aborted)
                    && !seen.insert(rec.value),
                txn: states.get(&rec.offset).copied(),
                marker: None,
            },
            crate::kafka::txn_index::FetchedEntry::Control(c) => CellView {
                offset: c.offset,
                key: None,
                value: c.control.name().to_string(),
                producer_id: c.producer_id,
                epoch: c.epoch,
                sequence: -1,
                duplicate: false,
                txn: None,
                marker: Some(c.control.name().to_string()),
            },
        })
        .collect();
    let deposed = deposed(b, tp);
    Some(PartitionView {
        tp,
        name: sim.names.tp(tp),
        broker: b.id,
        is_leader: r.is_leader(b.id) && !deposed,
        leader: r.leader,
        deposed,
        alive: status.is_some_and(|s| !s.crashed),
        frozen: status.is_some_and(|s| s.frozen),
        cells,
        earlier,
        high_watermark: r.high_watermark,
        last_stable_offset: r.last_stable_offset(),
        log_end_offset: r.log.log_end_offset(),
        isr: r.isr.clone(),
        min_insync: r.effective_min_insync(),
        cut_off: r.leader.filter(|l| *l != broker).is_some_and(|l| {
            let (a, b) = (NodeId::Broker(l), NodeId::Broker(broker));
            status.is_some_and(|s| !s.crashed && !s.frozen) && sim.network.is_cut(a, b)
        }),
        replicas: sim
            .brokers
            .iter()
            .filter(|b| b.replicas.contains_key(&tp))
            .count()
            .try_into()
            .unwrap_or(u8::MAX),
    })
}
