//! The invariants of SEMANTICS §7 that hold in every correct run, as named checks. Tests run
//! them after every step; reports list those that apply to the scenario's configuration.
//! (Items 3 and 7 compare two runs or say what *can* happen: they are scenario tests.)

use super::idempotence::{
    acked_offset_is_original, clients, idempotent_send_order, no_duplicate_per_pid, no_stale_epoch,
    sequences_contiguous,
};
use super::reads::{any_read_committed, read_committed_isolation, reads_stay_readable};
use crate::kafka::Acks;
use crate::sim::observe::{leader_replica, partitions};
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
pub const COORDINATOR_TRANSITIONS_VALID: &str = "coordinator-transitions-valid";
pub const PREPARE_COMMIT_COMMITS: &str = "prepare-commit-always-commits";
pub const ABORTED_NEVER_VISIBLE: &str = "aborted-transactions-invisible";
pub const COMMITTED_ALL_VISIBLE: &str = "committed-transactions-visible";
pub const READ_COMMITTED_ISOLATION: &str = "read-committed-reads-only-committed";
pub const NO_COMMIT_AFTER_FENCE: &str = "no-commit-from-a-fenced-epoch";
pub const EXPIRED_TRANSACTIONS_ABORTED: &str = "expired-transactions-aborted";
pub const ALIGNED_SNAPSHOT_EXACT: &str = "flink-aligned-snapshot-exact";
pub const CHECKPOINT_COMPLETION: &str = "flink-checkpoint-completes-after-all-acks";
pub const CHECKPOINT_CONCURRENCY: &str = "flink-checkpoint-concurrency-and-discard";

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
    // Processors' output clients count: their configuration follows their guarantee.
    let any_idempotent = clients(sim).any(|p| p.is_idempotent());
    let any_acks_all = clients(sim).any(|p| p.config.acks == Acks::All);
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
    // Exactly-once read-process-write processors run their own transactional producer.
    let transactional = sim.producers.iter().any(|p| p.is_transactional())
        || sim.processors.iter().any(|p| p.producer.is_transactional())
        || sim
            .flink
            .as_ref()
            .is_some_and(|j| j.tasks.iter().any(|t| t.sink.is_some()));
    if transactional {
        out.push(result(
            COORDINATOR_TRANSITIONS_VALID,
            coordinator_transitions_valid(sim),
        ));
        out.push(result(PREPARE_COMMIT_COMMITS, prepare_commit_commits(sim)));
        out.push(result(ABORTED_NEVER_VISIBLE, aborted_never_visible(sim)));
        out.push(result(NO_COMMIT_AFTER_FENCE, no_commit_after_fence(sim)));
        out.push(result(
            EXPIRED_TRANSACTIONS_ABORTED,
            expired_transactions_aborted(sim),
        ));
        // Under protocol 1 a stray EndTxn can leave committed records behind an orphan
        // transaction (KAFKA-17754): this one holds only under protocol 2.
        let v2 = sim.brokers.iter().all(|b| {
            b.txn_coordinator.protocol.0 == crate::kafka::txn_state::TxnProtocolVersion::V2
        });
        if v2 && sim.is_finished() {
            out.push(result(COMMITTED_ALL_VISIBLE, committed_all_visible(sim)));
        }
    }
    if let Some(job) = &sim.flink {
        let flink_result =
            |name, r: Result<(), String>| result(name, r.err().map(|detail| (detail, Vec::new())));
        out.push(flink_result(
            ALIGNED_SNAPSHOT_EXACT,
            crate::flink::invariants::aligned_snapshots_exact(job),
        ));
        out.push(flink_result(
            CHECKPOINT_COMPLETION,
            crate::flink::invariants::completion_rules(job),
        ));
        out.push(flink_result(
            CHECKPOINT_CONCURRENCY,
            crate::flink::invariants::concurrency_and_discard(job),
        ));
    }
    if any_read_committed(sim) {
        out.push(result(
            READ_COMMITTED_ISOLATION,
            read_committed_isolation(sim),
        ));
    }
    out
}

/// Item 8: every coordinator transition follows the table (replaying the log checks each
/// consecutive pair).
fn coordinator_transitions_valid(sim: &Simulation) -> Failure {
    for b in &sim.brokers {
        if let Err(e) = b.txn_coordinator.log.replay() {
            return Some((
                format!("broker {}'s __transaction_state: {e}", b.id),
                Vec::new(),
            ));
        }
    }
    None
}

/// Item 9: after a durable PrepareCommit, the transaction completes as a commit and no
/// partition gets an ABORT marker for it.
fn prepare_commit_commits(sim: &Simulation) -> Failure {
    use crate::kafka::txn_index::ControlType;
    use crate::kafka::txn_state::TxnState;
    let mut committed: std::collections::BTreeSet<(i64, i16)> = std::collections::BTreeSet::new();
    for b in &sim.brokers {
        let mut last: BTreeMap<&str, TxnState> = BTreeMap::new();
        for e in b.txn_coordinator.log.entries() {
            let t = &e.transit;
            if last.get(t.transactional_id.as_str()) == Some(&TxnState::PrepareCommit)
                && t.state != TxnState::CompleteCommit
            {
                return Some((
                    format!(
                        "\"{}\" went from PrepareCommit to {}",
                        t.transactional_id,
                        t.state.name()
                    ),
                    Vec::new(),
                ));
            }
            if t.state == TxnState::PrepareCommit {
                committed.insert((t.producer_id, t.producer_epoch));
            }
            last.insert(t.transactional_id.as_str(), t.state);
        }
    }
    // Markers are matched to the decision by (producer id, epoch), which names one
    // transaction only under protocol 2 (it bumps the epoch at every EndTxn).
    let v2 = sim
        .brokers
        .iter()
        .all(|b| b.txn_coordinator.protocol.0 == crate::kafka::txn_state::TxnProtocolVersion::V2);
    if !v2 {
        return None;
    }
    for b in &sim.brokers {
        for r in b.replicas.values() {
            for batch in r.log.batches() {
                if batch.control == Some(ControlType::Abort)
                    && committed.contains(&(batch.producer_id, batch.epoch))
                {
                    return Some((
                        format!(
                            "{} has an ABORT marker for producer {} epoch {}, whose PrepareCommit was durable",
                            sim.names.tp(r.tp),
                            batch.producer_id,
                            batch.epoch
                        ),
                        vec![batch.appended_step],
                    ));
                }
            }
        }
    }
    None
}

pub(crate) fn visible_set(
    sim: &Simulation,
) -> std::collections::BTreeSet<(crate::ids::Tp, u64, crate::ids::RecordId)> {
    let mut out = std::collections::BTreeSet::new();
    for tp in partitions(sim) {
        if let Some((_, r)) = leader_replica(sim, tp) {
            for rec in crate::oracle::anomalies::committed_view(r) {
                out.insert((tp, rec.offset, rec.value));
            }
        }
    }
    out
}

/// Item 10 (second half): nothing of an aborted transaction is ever visible. Judged per
/// copy: a processor writes an input's output again in a new transaction after an abort,
/// and that copy is not the aborted one.
fn aborted_never_visible(sim: &Simulation) -> Failure {
    let visible = visible_set(sim);
    for (tp, offset, value) in &visible {
        let Some(e) = sim.ledger.get(*value) else {
            continue;
        };
        if e.appends.iter().any(|a| {
            a.tp == *tp
                && a.offset == *offset
                && a.txn_outcome == Some(crate::oracle::TxnOutcome::Aborted)
        }) {
            return Some((
                format!(
                    "{value} of an aborted transaction is visible at offset {offset} of {}",
                    sim.names.tp(*tp)
                ),
                e.evidence.clone(),
            ));
        }
    }
    None
}

/// Item 10 (first half), once the run is over: every record of a committed transaction is
/// visible to read_committed readers.
fn committed_all_visible(sim: &Simulation) -> Failure {
    let visible: std::collections::BTreeSet<crate::ids::RecordId> =
        crate::order::set_of(visible_set(sim).into_iter().map(|(_, _, v)| v));
    // A record whose partition has no live leader at the end is unavailable, not invisible:
    // its broker, down, holds it on disk (an offline partition shows nothing).
    let offline = crate::oracle::anomalies::held_offline(sim);
    for (i, e) in sim.ledger.records.iter().enumerate() {
        let id = crate::ids::RecordId(i as u32);
        if e.txn_outcome == Some(crate::oracle::TxnOutcome::Committed)
            && !visible.contains(&id)
            && !offline.contains(&id)
        {
            return Some((
                format!("{id} belongs to a committed transaction but is not visible"),
                e.evidence.clone(),
            ));
        }
    }
    None
}

/// Item 12: after InitProducerId returned epoch e, no transaction of an earlier epoch
/// commits.
fn no_commit_after_fence(sim: &Simulation) -> Failure {
    use crate::kafka::txn_state::TxnState;
    for b in &sim.brokers {
        let mut fenced_below: BTreeMap<&str, i16> = BTreeMap::new();
        for e in b.txn_coordinator.log.entries() {
            let t = &e.transit;
            let floor = fenced_below.get(t.transactional_id.as_str()).copied();
            if t.state == TxnState::PrepareCommit && floor.is_some_and(|f| t.producer_epoch < f) {
                return Some((
                    format!(
                        "\"{}\" committed at epoch {} after epoch {} was handed out",
                        t.transactional_id,
                        t.producer_epoch,
                        floor.unwrap_or_default()
                    ),
                    Vec::new(),
                ));
            }
            if t.state == TxnState::Empty {
                let f = fenced_below
                    .entry(t.transactional_id.as_str())
                    .or_insert(t.producer_epoch);
                *f = (*f).max(t.producer_epoch);
            }
        }
    }
    None
}

/// Item 13: an Ongoing transaction older than its timeout has been aborted (while its
/// coordinator runs).
fn expired_transactions_aborted(sim: &Simulation) -> Failure {
    use crate::kafka::txn_state::TxnState;
    for b in &sim.brokers {
        let running = sim
            .status
            .get(&b.node())
            .is_some_and(|s| !s.crashed && !s.frozen);
        if !running {
            continue;
        }
        for (id, meta) in &b.txn_coordinator.transactions {
            if let (TxnState::Ongoing, Some(start)) = (meta.state(), meta.txn_start()) {
                // A coordinator back from a crash or a freeze aborts at this very instant.
                let expiry_due = sim.timer_due(b.node(), |t| {
                    matches!(t, crate::sim::Timer::Coordinator(
                        crate::kafka::txn_coordinator::CoordinatorTimer::TxnExpiry { transactional_id, .. }
                    ) if transactional_id == id)
                });
                let scan = b.txn_coordinator.expiry_due(start, meta.txn_timeout_ms());
                if sim.now() > scan && !expiry_due {
                    return Some((
                        format!(
                            "\"{id}\" is still Ongoing past its {} ms timeout and the scan after it",
                            meta.txn_timeout_ms()
                        ),
                        Vec::new(),
                    ));
                }
            }
        }
    }
    None
}

/// The failures only, for tests that check after every step.
pub fn violations(sim: &Simulation) -> Vec<InvariantResult> {
    check_all(sim).into_iter().filter(|r| !r.holds).collect()
}

pub(crate) type Failure = Option<(String, Vec<u64>)>;

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
