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
    let transactional = sim.producers.iter().any(|p| p.is_transactional())
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
    if sim
        .consumers
        .iter()
        .any(|c| c.settings.isolation == crate::kafka::Isolation::ReadCommitted)
    {
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

fn visible_set(
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

/// Item 10 (second half): nothing of an aborted transaction is ever visible.
fn aborted_never_visible(sim: &Simulation) -> Failure {
    let visible = visible_set(sim);
    for (tp, offset, value) in &visible {
        let Some(e) = sim.ledger.get(*value) else {
            continue;
        };
        if e.txn_outcome == Some(crate::oracle::TxnOutcome::Aborted)
            && e.appends.iter().any(|a| a.tp == *tp && a.offset == *offset)
        {
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
    for (i, e) in sim.ledger.records.iter().enumerate() {
        let id = crate::ids::RecordId(i as u32);
        if e.txn_outcome == Some(crate::oracle::TxnOutcome::Committed) && !visible.contains(&id) {
            return Some((
                format!("{id} belongs to a committed transaction but is not visible"),
                e.evidence.clone(),
            ));
        }
    }
    None
}

/// Item 11: read_committed consumers only ever receive committed (or non-transactional)
/// records.
fn read_committed_isolation(sim: &Simulation) -> Failure {
    let visible = visible_set(sim);
    for c in sim
        .consumers
        .iter()
        .filter(|c| c.settings.isolation == crate::kafka::Isolation::ReadCommitted)
    {
        for r in &c.reads {
            if !visible.contains(&(r.tp, r.offset, r.value)) {
                return Some((
                    format!(
                        "{} (read_committed) read {} at offset {} of {}, which is not committed",
                        sim.names.node(c.node()),
                        r.value,
                        r.offset,
                        sim.names.tp(r.tp)
                    ),
                    Vec::new(),
                ));
            }
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
                if sim.now() > start + crate::time::ms(meta.txn_timeout_ms()) + 1 && !expiry_due {
                    return Some((
                        format!(
                            "\"{id}\" is still Ongoing past its {} ms timeout",
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

type Failure = Option<(String, Vec<u64>)>;

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

/// Items 2 and 4: one producer session (producer id and epoch) never stores the same record
/// twice. A transactional producer keeps its id across restarts; its new instance (a new
/// epoch) may write again what the old one's aborted transaction held.
fn no_duplicate_per_pid(sim: &Simulation) -> Failure {
    for ((tp, pid), batches) in idempotent_batches(sim) {
        let mut seen = BTreeMap::new();
        for b in batches {
            for (i, r) in b.records.iter().enumerate() {
                if let Some(first) = seen.insert(
                    (b.epoch, r.value),
                    (b.base_offset + i as u64, b.appended_step),
                ) {
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
/// order the application handed them over.
fn idempotent_send_order(sim: &Simulation) -> Failure {
    for ((tp, pid), batches) in idempotent_batches(sim) {
        let mut last: Option<(crate::ids::RecordId, u64)> = None;
        let mut epoch = None;
        for b in batches {
            if epoch != Some(b.epoch) {
                epoch = Some(b.epoch);
                last = None;
            }
            for r in &b.records {
                if let Some((prev, step)) = last {
                    let (now, before) =
                        (sim.ledger.send_order(r.value), sim.ledger.send_order(prev));
                    // Records no producer client handed over (a Flink sink's writes) have no
                    // send order to keep.
                    if now != u64::MAX && before != u64::MAX && now <= before {
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
