//! SEMANTICS §7, items 8–13 (Kafka transactions), one named test each, over the built-in
//! transaction scenarios and a few variants written here. Every run is stepped one event at a
//! time; after every step the oracle's invariants must hold, and this file checks the logs
//! itself as well: it re-derives, from the batches and markers of each partition leader, which
//! offsets are committed, aborted or still open, what the last stable offset (LSO) must be, and
//! what a read_committed reader may see, and compares that with what the broker computes.

use eos_core::builtin;
use eos_core::ids::{NodeId, RecordId, Tp};
use eos_core::kafka::replica::Replica;
use eos_core::kafka::txn_index::ControlType;
use eos_core::kafka::txn_log::TxnLogEntry;
use eos_core::kafka::txn_state::TxnState;
use eos_core::kafka::{Isolation, KafkaError};
use eos_core::oracle::anomalies::committed_view;
use eos_core::oracle::invariants::violations;
use eos_core::oracle::TxnOutcome;
use eos_core::sim::observe::{leader_replica, partitions};
use eos_core::sim::{Note, StepRecord};
use eos_core::time::{ms, SimTime};
use eos_core::{Report, Scenario, Simulation, StepOutcome};
use std::collections::{BTreeMap, BTreeSet};

const P0: Tp = Tp {
    topic: 0,
    partition: 0,
};
const P1: Tp = Tp {
    topic: 0,
    partition: 1,
};

/// The built-in scenarios about transactions.
const TXN_BUILTINS: &[&str] = &[
    "seed-commit-abort",
    "zombie-fencing",
    "txn-timeout-abort",
    "txn-producer-crash-stalls-readers",
    "txn-producer-crash-restart",
    "txn-crash-after-prepare-commit",
    "txn-coordinator-crash-after-prepare-commit",
    "txn-v1-delayed-endtxn",
    "txn-v2-delayed-endtxn",
];

// ---------------------------------------------------------------------------------------
// An independent reading of a partition log.

/// What a partition leader's log says about its transactions, derived from its batches and
/// markers alone.
#[derive(Debug, Default)]
struct Derived {
    /// Offsets of non-transactional records.
    plain: BTreeSet<u64>,
    /// Offsets of records whose transaction got a COMMIT marker.
    committed: BTreeSet<u64>,
    /// Offsets of records whose transaction got an ABORT marker.
    aborted: BTreeSet<u64>,
    /// Offsets of records whose transaction has no marker yet.
    open: BTreeSet<u64>,
    /// What the LSO must be: the high watermark, or the first offset of the earliest
    /// transaction that is open or whose marker is not yet below the high watermark.
    lso: u64,
    /// (producer id, epoch, control, offset) of every marker.
    markers: Vec<(i64, i16, ControlType, u64)>,
}

impl Derived {
    /// What read_committed may return: plain and committed records below the LSO.
    fn visible(&self) -> BTreeSet<u64> {
        self.plain
            .iter()
            .chain(self.committed.iter())
            .copied()
            .filter(|o| *o < self.lso)
            .collect()
    }
}

fn derive(r: &Replica) -> Derived {
    let mut d = Derived::default();
    // producer id → offsets of its open transaction on this partition.
    let mut open: BTreeMap<i64, Vec<u64>> = BTreeMap::new();
    let mut holds_lso: Vec<u64> = Vec::new();
    for b in r.log.batches() {
        let offsets = b.base_offset..b.base_offset + b.len();
        match b.control {
            Some(control) => {
                d.markers
                    .push((b.producer_id, b.epoch, control, b.base_offset));
                if let Some(txn) = open.remove(&b.producer_id) {
                    if b.base_offset >= r.high_watermark {
                        holds_lso.extend(txn.first().copied());
                    }
                    match control {
                        ControlType::Commit => d.committed.extend(txn),
                        ControlType::Abort => d.aborted.extend(txn),
                    }
                }
            }
            None if b.transactional => open.entry(b.producer_id).or_default().extend(offsets),
            None => d.plain.extend(offsets),
        }
    }
    for txn in open.values() {
        holds_lso.extend(txn.first().copied());
        d.open.extend(txn.iter().copied());
    }
    d.lso = holds_lso
        .into_iter()
        .chain([r.high_watermark])
        .min()
        .unwrap_or(r.high_watermark);
    d
}

fn leader(sim: &Simulation, tp: Tp) -> &Replica {
    leader_replica(sim, tp)
        .unwrap_or_else(|| panic!("{tp:?} has no live leader"))
        .1
}

// ---------------------------------------------------------------------------------------
// Running scenarios.

/// What every transactional run must satisfy after every step, besides the oracle.
fn check_step(label: &str, sim: &Simulation) {
    let at = || format!("{label}, step {} ({} us)", sim.steps(), sim.now());
    let broken = violations(sim);
    assert!(
        broken.is_empty(),
        "{}: invariants broken: {broken:#?}\nthe step: {:#?}",
        at(),
        sim.trace().last()
    );
    // Item 11: LSO ≤ HW ≤ log end on every replica.
    for b in &sim.brokers {
        for r in b.replicas.values() {
            let (lso, hw, leo) = (
                r.last_stable_offset(),
                r.high_watermark,
                r.log.log_end_offset(),
            );
            assert!(
                lso <= hw && hw <= leo,
                "{}: broker {} {:?}: LSO {lso}, HW {hw}, log end {leo}",
                at(),
                b.id,
                r.tp
            );
        }
    }
    // The broker's LSO and read_committed view agree with the log's markers.
    let single_broker = sim.brokers.len() == 1;
    let mut derived = BTreeMap::new();
    for tp in partitions(sim) {
        let Some((_, r)) = leader_replica(sim, tp) else {
            continue;
        };
        let d = derive(r);
        if single_broker {
            assert_eq!(
                r.last_stable_offset(),
                d.lso,
                "{}: {tp:?} LSO differs from the log's open transactions: {d:?}",
                at()
            );
        }
        let view: BTreeSet<u64> = committed_view(r).iter().map(|x| x.offset).collect();
        assert_eq!(
            view,
            d.visible(),
            "{}: {tp:?} read_committed view differs from the log's markers: {d:?}",
            at()
        );
        derived.insert(tp, d);
    }
    // Item 11: read_committed readers never hold an aborted or undecided record, nor one at
    // or above the LSO.
    for c in sim
        .consumers
        .iter()
        .filter(|c| c.settings.isolation == Isolation::ReadCommitted)
    {
        for read in &c.reads {
            let Some(d) = derived.get(&read.tp) else {
                continue;
            };
            let ok = (d.plain.contains(&read.offset) || d.committed.contains(&read.offset))
                && read.offset < d.lso;
            assert!(
                ok,
                "{}: {} (read_committed) holds {} at offset {} of {:?}, which is not committed \
                 below the LSO {}: {d:?}",
                at(),
                sim.names.node(c.node()),
                read.value,
                read.offset,
                read.tp,
                d.lso
            );
        }
    }
}

fn parse(label: &str, text: &str) -> Scenario {
    Scenario::parse(text).unwrap_or_else(|e| panic!("{label}: {e}"))
}

/// Steps to the end, checking after every step.
fn run_checked(label: &str, text: &str) -> Simulation {
    run_checked_until(label, text, None)
}

/// Steps until `until` (or the end), checking after every step.
fn run_checked_until(label: &str, text: &str, until: Option<SimTime>) -> Simulation {
    let mut sim = parse(label, text).simulation(None);
    step_checked(label, &mut sim, until);
    sim
}

fn step_checked(label: &str, sim: &mut Simulation, until: Option<SimTime>) {
    loop {
        if let (Some(t), Some(next)) = (until, sim.next_event_time()) {
            if next > t {
                return;
            }
        }
        match sim.step() {
            StepOutcome::Stepped => {}
            StepOutcome::Finished => return,
            StepOutcome::LimitReached => panic!("{label}: step limit after {}", sim.steps()),
        }
        check_step(label, sim);
    }
}

fn builtin_text(name: &str) -> &'static str {
    builtin::text(name).unwrap_or_else(|| panic!("no built-in {name}"))
}

fn run_builtin(name: &str) -> Simulation {
    run_checked(name, builtin_text(name))
}

/// The same scenario under transaction protocol 1.
fn under_protocol_1(text: &str) -> String {
    if text.contains("transaction_protocol = 2") {
        text.replace("transaction_protocol = 2", "transaction_protocol = 1")
    } else {
        assert!(!text.contains("[cluster]"), "add the protocol by hand");
        text.replacen(
            "[[topics]]",
            "[cluster]\ntransaction_protocol = 1\n\n[[topics]]",
            1,
        )
    }
}

// ---------------------------------------------------------------------------------------
// Looking at a finished run.

fn notes(sim: &Simulation) -> impl Iterator<Item = (&StepRecord, &Note)> {
    sim.trace()
        .iter()
        .flat_map(|s| s.notes.iter().map(move |n| (s, n)))
}

fn producer(sim: &Simulation, name: &str) -> NodeId {
    sim.producers
        .iter()
        .map(|p| p.node())
        .find(|n| sim.names.node(*n) == name)
        .unwrap_or_else(|| panic!("no producer {name}"))
}

fn consumer_keys(sim: &Simulation, name: &str) -> Vec<String> {
    let c = sim
        .consumers
        .iter()
        .find(|c| sim.names.node(c.node()) == name)
        .unwrap_or_else(|| panic!("no consumer {name}"));
    c.reads
        .iter()
        .map(|r| sim.names.key(r.key).unwrap_or_default())
        .collect()
}

/// Every `__transaction_state` entry of `id`, from every broker (one coordinator here).
fn txn_log<'a>(sim: &'a Simulation, id: &str) -> Vec<&'a TxnLogEntry> {
    sim.brokers
        .iter()
        .flat_map(|b| b.txn_coordinator.log.entries())
        .filter(|e| e.transit.transactional_id == id)
        .collect()
}

fn states(entries: &[&TxnLogEntry]) -> Vec<TxnState> {
    entries.iter().map(|e| e.transit.state).collect()
}

fn epochs(entries: &[&TxnLogEntry]) -> Vec<i16> {
    entries.iter().map(|e| e.transit.producer_epoch).collect()
}

fn coordinator_state(sim: &Simulation, id: &str) -> Option<TxnState> {
    sim.brokers
        .iter()
        .find_map(|b| b.txn_coordinator.transactions.get(id))
        .map(|m| m.state())
}

fn key_of(sim: &Simulation, id: RecordId) -> String {
    sim.ledger
        .get(id)
        .and_then(|e| sim.names.key(e.key))
        .unwrap_or_default()
}

/// Records (by key) at the given offsets of a partition's leader.
fn keys_at(sim: &Simulation, tp: Tp, offsets: &BTreeSet<u64>) -> Vec<String> {
    leader(sim, tp)
        .log
        .records_below(u64::MAX)
        .filter(|r| offsets.contains(&r.offset))
        .map(|r| sim.names.key(r.key).unwrap_or_default())
        .collect()
}

fn step_of(sim: &Simulation, pred: impl Fn(&Note) -> bool) -> Option<u64> {
    notes(sim).find(|(_, n)| pred(n)).map(|(s, _)| s.step)
}

use eos_core::kafka::txn_state::TxnState::{
    CompleteAbort, CompleteCommit, Empty, Ongoing, PrepareAbort, PrepareCommit,
};

// ---------------------------------------------------------------------------------------
// Item 8.

/// Item 8: every coordinator transition follows SEMANTICS §3's table: checked on the
/// `__transaction_state` log and on the narrated transitions, for every transaction
/// scenario (and zombie fencing under protocol 1); each scenario's coordinator tells the
/// story it was written for.
#[test]
fn invariant_8_coordinator_transitions_follow_the_table() {
    let mut runs: Vec<(String, Simulation)> = TXN_BUILTINS
        .iter()
        .map(|n| (n.to_string(), run_builtin(n)))
        .collect();
    runs.push((
        "zombie-fencing under protocol 1".into(),
        run_checked(
            "zombie v1",
            &under_protocol_1(builtin_text("zombie-fencing")),
        ),
    ));
    for (name, sim) in &runs {
        for b in &sim.brokers {
            let mut last: BTreeMap<&str, TxnState> = BTreeMap::new();
            for e in b.txn_coordinator.log.entries() {
                let t = &e.transit;
                let from = last
                    .get(t.transactional_id.as_str())
                    .copied()
                    .unwrap_or(Empty);
                assert!(
                    from.can_transition_to(t.state),
                    "{name}: {} went {from:?} → {:?}",
                    t.transactional_id,
                    t.state
                );
                assert!(
                    TxnState::ALL
                        .iter()
                        .filter(|s| s.can_transition_to(t.state))
                        .any(|s| *s == from),
                    "{name}: {from:?} is not among {:?}'s valid previous states",
                    t.state
                );
                last.insert(t.transactional_id.as_str(), t.state);
            }
            assert!(b.txn_coordinator.log.replay().is_ok(), "{name}");
        }
        let narrated: Vec<(String, String)> = notes(sim)
            .filter_map(|(_, n)| match n {
                Note::TxnTransition { from, to, .. } => Some((from.clone(), to.clone())),
                _ => None,
            })
            .collect();
        assert!(!narrated.is_empty(), "{name}: no transition narrated");
        for (from, to) in &narrated {
            let state = |s: &str| {
                *TxnState::ALL
                    .iter()
                    .find(|x| x.name() == s)
                    .unwrap_or_else(|| panic!("{name}: unknown state {s}"))
            };
            assert!(
                state(from).can_transition_to(state(to)),
                "{name}: narrated {from} → {to}"
            );
        }
        let written: usize = sim
            .brokers
            .iter()
            .map(|b| b.txn_coordinator.log.entries().len())
            .sum();
        assert_eq!(
            narrated.len(),
            written,
            "{name}: one narrated transition per log entry"
        );
    }
    let story = |name: &str, id: &str| -> Vec<TxnState> {
        let sim = &runs.iter().find(|(n, _)| n == name).expect("ran").1;
        states(&txn_log(sim, id))
    };
    // The first transaction writes to two partitions: each leader adds its own (protocol 2),
    // and the second addition is "Ongoing again".
    assert_eq!(
        story("seed-commit-abort", "app-tx"),
        [
            Empty,
            Ongoing,
            Ongoing,
            PrepareCommit,
            CompleteCommit,
            Ongoing,
            PrepareAbort,
            CompleteAbort
        ]
    );
    // The old instance's InitProducerId, then the new instance's (at its start, 1 s later)
    // aborts the old one's transaction before it may have its epoch.
    assert_eq!(
        story("zombie-fencing", "orders-tx"),
        [
            Empty,
            Ongoing,
            PrepareAbort,
            CompleteAbort,
            Empty,
            Ongoing,
            PrepareCommit,
            CompleteCommit
        ]
    );
    assert_eq!(
        story("zombie-fencing under protocol 1", "orders-tx"),
        story("zombie-fencing", "orders-tx")
    );
    assert_eq!(
        story("txn-timeout-abort", "app-tx"),
        [Empty, Ongoing, PrepareAbort, CompleteAbort]
    );
    assert_eq!(
        story("txn-producer-crash-stalls-readers", "txn-app-tx"),
        [Empty, Ongoing, PrepareAbort, CompleteAbort]
    );
    assert_eq!(
        story("txn-producer-crash-restart", "txn-app-tx"),
        [Empty, Ongoing, PrepareAbort, CompleteAbort, Empty]
    );
    for name in [
        "txn-crash-after-prepare-commit",
        "txn-coordinator-crash-after-prepare-commit",
    ] {
        assert_eq!(
            story(name, "app-tx"),
            [Empty, Ongoing, Ongoing, PrepareCommit, CompleteCommit],
            "{name}"
        );
    }
    // Protocol 1: the late copy of transaction 1's EndTxn(abort) aborts transaction 2's first
    // half; the client's AddPartitionsToTxn for a new partition then opens a new transaction
    // under the same epoch, which the client's own EndTxn commits.
    assert_eq!(
        story("txn-v1-delayed-endtxn", "app-tx"),
        [
            Empty,
            Ongoing,
            PrepareAbort,
            CompleteAbort,
            Ongoing,
            PrepareAbort,
            CompleteAbort,
            Ongoing,
            PrepareCommit,
            CompleteCommit
        ]
    );
    // Protocol 2: the late copy is fenced and writes nothing; each partition's leader adds its
    // partition to transaction 2 (the second addition is "Ongoing again").
    assert_eq!(
        story("txn-v2-delayed-endtxn", "app-tx"),
        [
            Empty,
            Ongoing,
            PrepareAbort,
            CompleteAbort,
            Ongoing,
            Ongoing,
            PrepareCommit,
            CompleteCommit
        ]
    );
}

// ---------------------------------------------------------------------------------------
// Item 9.

/// After a durable PrepareCommit, every marker written for that producer id and epoch is
/// COMMIT, and every partition of the transaction gets one.
fn assert_prepare_commit_commits(name: &str, sim: &Simulation) {
    for b in &sim.brokers {
        for e in b.txn_coordinator.log.entries() {
            let t = &e.transit;
            if t.state != PrepareCommit {
                continue;
            }
            assert!(!t.topic_partitions.is_empty(), "{name}: empty commit");
            for tp in &t.topic_partitions {
                let d = derive(leader(sim, *tp));
                let mine: Vec<ControlType> = d
                    .markers
                    .iter()
                    .filter(|(pid, epoch, _, _)| {
                        (*pid, *epoch) == (t.producer_id, t.producer_epoch)
                    })
                    .map(|(_, _, c, _)| *c)
                    .collect();
                assert!(
                    !mine.is_empty() && mine.iter().all(|c| *c == ControlType::Commit),
                    "{name}: {tp:?} markers of producer {} epoch {} after PrepareCommit: {mine:?}",
                    t.producer_id,
                    t.producer_epoch
                );
            }
        }
    }
    // And on every replica, not only the leaders.
    let prepared: BTreeSet<(i64, i16)> = sim
        .brokers
        .iter()
        .flat_map(|b| b.txn_coordinator.log.entries())
        .filter(|e| e.transit.state == PrepareCommit)
        .map(|e| (e.transit.producer_id, e.transit.producer_epoch))
        .collect();
    for b in &sim.brokers {
        for r in b.replicas.values() {
            for batch in r.log.batches() {
                if batch.control == Some(ControlType::Abort) {
                    assert!(
                        !prepared.contains(&(batch.producer_id, batch.epoch)),
                        "{name}: broker {} {:?} has an ABORT marker for a prepared commit",
                        b.id,
                        r.tp
                    );
                }
            }
        }
    }
}

/// The producer crashes after EndTxn(commit) and restarts at once while the coordinator,
/// whose markers were lost, is still in PrepareCommit: the new instance's InitProducerId
/// must wait (CONCURRENT_TRANSACTIONS) and cannot turn the decided commit into an abort.
const RESTART_DURING_PREPARE_COMMIT: &str = r#"
version = 1
name = "restart-during-prepare-commit"
[[topics]]
name = "events"
partitions = 2
[[producers]]
name = "app"
transactional_id = "app-tx"
[[producers.transactions]]
end = "commit"
[[producers.transactions.sends]]
topic = "events"
partition = 0
key = "a"
[[producers.transactions.sends]]
topic = "events"
partition = 1
key = "b"
[[producers.transactions]]
at_ms = 50
end = "commit"
[[producers.transactions.sends]]
topic = "events"
partition = 0
key = "c"
[[faults]]
at_ms = 0
action = "drop"
message = "write_txn_markers"
[[faults]]
at_ms = 12
action = "crash"
target = "app"
restart_after_ms = 38
[[consumers]]
name = "reader"
topic = "events"
isolation = "read_committed"
# After the coordinator sends the lost markers again (30 s, its request timeout).
start_ms = 31000
"#;

/// Item 9: after a durable PrepareCommit every partition gets COMMIT, never ABORT: when the
/// producer dies right after EndTxn, when the markers are lost and the coordinator's broker
/// crashes before resending them (it reloads `__transaction_state` and resends COMMIT), and
/// when a new instance initialises while the commit is still being completed.
#[test]
fn invariant_9_after_prepare_commit_every_marker_is_commit() {
    // The producer dies after sending EndTxn: it never hears the outcome, yet it commits.
    let name = "txn-crash-after-prepare-commit";
    let sim = run_builtin(name);
    assert_prepare_commit_commits(name, &sim);
    let app = producer(&sim, "app");
    assert!(
        !notes(&sim).any(|(_, n)| matches!(n, Note::TxnEnded { producer, .. } if *producer == app)),
        "{name}: the crashed producer heard an outcome"
    );
    let crash = step_of(
        &sim,
        |n| matches!(n, Note::Crashed { node } if *node == app),
    )
    .unwrap();
    let prepare = step_of(
        &sim,
        |n| matches!(n, Note::TxnTransition { to, .. } if to == PrepareCommit.name()),
    )
    .unwrap();
    assert!(
        crash < prepare,
        "{name}: the crash comes before PrepareCommit"
    );
    for tp in [P0, P1] {
        assert_eq!(derive(leader(&sim, tp)).committed.len(), 1, "{name} {tp:?}");
    }
    assert_eq!(consumer_keys(&sim, "committed-reader"), ["a", "b"]);

    // The coordinator's broker crashes between PrepareCommit and the markers.
    let name = "txn-coordinator-crash-after-prepare-commit";
    let text = builtin_text(name);
    // Just before the broker restarts at 700 ms: decided, but no marker anywhere, and the
    // LSO still pins both partitions at 0.
    let mut sim = parse(name, text).simulation(None);
    step_checked(name, &mut sim, Some(ms(699)));
    assert_eq!(
        coordinator_state(&sim, "app-tx"),
        None,
        "{name}: broker down"
    );
    let log = txn_log(&sim, "app-tx");
    assert_eq!(log.last().map(|e| e.transit.state), Some(PrepareCommit));
    for tp in [P0, P1] {
        let r = sim.brokers[0].replicas.get(&tp).expect("replica");
        assert!(derive(r).markers.is_empty(), "{name}: {tp:?} has a marker");
        assert_eq!(r.last_stable_offset(), 0, "{name}: {tp:?}");
        assert_eq!(r.high_watermark, 1, "{name}: {tp:?}");
    }
    step_checked(name, &mut sim, None);
    assert!(
        notes(&sim).any(
            |(_, n)| matches!(n, Note::TxnRecovered { state, .. } if state == PrepareCommit.name())
        ),
        "{name}: the coordinator did not reload PrepareCommit"
    );
    assert_prepare_commit_commits(name, &sim);
    assert_eq!(coordinator_state(&sim, "app-tx"), Some(CompleteCommit));
    for tp in [P0, P1] {
        let d = derive(leader(&sim, tp));
        assert_eq!(d.markers.len(), 1, "{name}: {tp:?} {d:?}");
        assert_eq!(d.markers[0].2, ControlType::Commit);
        assert!(d.open.is_empty() && d.aborted.is_empty());
    }
    assert_eq!(consumer_keys(&sim, "early-reader"), Vec::<String>::new());
    assert_eq!(consumer_keys(&sim, "committed-reader"), ["a", "b"]);

    // A new instance initialises while the commit is being completed.
    let name = "restart-during-prepare-commit";
    let sim = run_checked(name, RESTART_DURING_PREPARE_COMMIT);
    assert_prepare_commit_commits(name, &sim);
    let log = txn_log(&sim, "app-tx");
    let st = states(&log);
    let prepare = st
        .iter()
        .position(|s| *s == PrepareCommit)
        .expect("a commit");
    assert_eq!(
        st[prepare + 1],
        CompleteCommit,
        "{name}: {st:?} (the restart must not come between)"
    );
    assert!(
        notes(&sim).any(|(_, n)| matches!(n, Note::TxnRetry { .. }))
            || sim.trace().iter().any(|s| matches!(
                &s.what,
                eos_core::sim::simulation::StepKind::Timer {
                    timer: eos_core::sim::Timer::Producer(
                        eos_core::kafka::producer::ProducerTimer::InitRetry
                    )
                }
            )),
        "{name}: the new instance was never told to wait"
    );
    // The crashed transaction is skipped (no rerun), the next one commits.
    assert_eq!(consumer_keys(&sim, "reader"), ["a", "c", "b"]);
}

// ---------------------------------------------------------------------------------------
// Item 10.

/// Item 10: a committed transaction's records all become visible to read_committed, an
/// aborted one's none. Checked on each scenario's final logs (every record of a transaction
/// with a COMMIT marker is in the committed view; none with an ABORT marker is), against
/// what the producers heard, and against what the readers returned.
#[test]
fn invariant_10_committed_records_all_visible_aborted_none() {
    for name in TXN_BUILTINS {
        let sim = run_builtin(name);
        let mut visible: BTreeSet<RecordId> = BTreeSet::new();
        let mut aborted: BTreeSet<RecordId> = BTreeSet::new();
        for tp in partitions(&sim) {
            let r = leader(&sim, tp);
            let d = derive(r);
            let view: BTreeSet<u64> = committed_view(r).iter().map(|x| x.offset).collect();
            for o in &d.committed {
                if *o < d.lso {
                    assert!(view.contains(o), "{name}: committed {tp:?}@{o} not visible");
                }
            }
            for o in d.aborted.iter().chain(d.open.iter()) {
                assert!(!view.contains(o), "{name}: aborted/open {tp:?}@{o} visible");
            }
            for rec in r.log.records_below(u64::MAX) {
                if view.contains(&rec.offset) {
                    visible.insert(rec.value);
                }
                if d.aborted.contains(&rec.offset) {
                    aborted.insert(rec.value);
                }
            }
        }
        for (i, e) in sim.ledger.records.iter().enumerate() {
            let id = RecordId(i as u32);
            match e.txn_outcome {
                // Under protocol 1 the producer can hear "committed" for a transaction a late
                // EndTxn cut in two (txn-v1-delayed-endtxn): checked there.
                Some(TxnOutcome::Committed) if *name != "txn-v1-delayed-endtxn" => assert!(
                    visible.contains(&id),
                    "{name}: {id} ({}) heard committed, not visible",
                    key_of(&sim, id)
                ),
                Some(TxnOutcome::Aborted) => assert!(
                    !visible.contains(&id),
                    "{name}: {id} ({}) heard aborted, yet visible",
                    key_of(&sim, id)
                ),
                _ => {}
            }
        }
        // What read_committed readers returned is exactly what became visible in the
        // partitions they read (they all start after the last decision).
        for c in sim
            .consumers
            .iter()
            .filter(|c| c.settings.isolation == Isolation::ReadCommitted)
        {
            for r in &c.reads {
                assert!(
                    !aborted.contains(&r.value),
                    "{name}: read aborted {}",
                    r.value
                );
                assert!(
                    visible.contains(&r.value),
                    "{name}: read invisible {}",
                    r.value
                );
            }
        }
    }

    // Each scenario's verdict, by key.
    let sim = run_builtin("seed-commit-abort");
    assert_eq!(
        keys_at(&sim, P1, &derive(leader(&sim, P1)).aborted),
        ["c"],
        "seed-commit-abort"
    );
    let sim = run_builtin("zombie-fencing");
    let d = derive(leader(&sim, P0));
    assert_eq!(keys_at(&sim, P0, &d.committed), ["new-0", "new-1"]);
    assert_eq!(keys_at(&sim, P0, &d.aborted), ["old-0"]);
    assert!(d.open.is_empty());
    let sim = run_builtin("txn-timeout-abort");
    let d = derive(leader(&sim, P0));
    assert_eq!(keys_at(&sim, P0, &d.aborted), ["k0", "k1"]);
    assert!(d.committed.is_empty() && d.open.is_empty());
    assert_eq!(
        consumer_keys(&sim, "committed-reader"),
        Vec::<String>::new()
    );
    assert_eq!(consumer_keys(&sim, "uncommitted-reader"), ["k0", "k1"]);
    let sim = run_builtin("txn-v2-delayed-endtxn");
    let d = derive(leader(&sim, P0));
    assert_eq!(keys_at(&sim, P0, &d.committed), ["t2-0", "t2-1"]);
    assert_eq!(keys_at(&sim, P0, &d.aborted), ["t1"]);
    assert!(d.open.is_empty());
    let d = derive(leader(&sim, P1));
    assert_eq!(keys_at(&sim, P1, &d.committed), ["t2-2"]);
    assert!(d.aborted.is_empty() && d.open.is_empty());
}

// ---------------------------------------------------------------------------------------
// Item 11.

/// Item 11: read_committed never returns a record of an aborted or open transaction, nor
/// anything at or above the LSO, and LSO ≤ HW everywhere (checked after every step by
/// `check_step`). Here the LSO is watched as the crashed producer's transaction pins it: the
/// plain record behind it waits for the timeout, or for the restarted instance.
#[test]
fn invariant_11_read_committed_stops_at_the_last_stable_offset() {
    let name = "txn-producer-crash-stalls-readers";
    let text = builtin_text(name);
    let mut sim = parse(name, text).simulation(None);
    // Until the 3 s timeout (the transaction started at 9 ms, when the leader added the
    // partition; the coordinator looks at 3.5 s) the LSO stays at 0 though the
    // high watermark has passed "plain" at offset 1.
    step_checked(name, &mut sim, Some(ms(3_002)));
    let r = leader(&sim, P0);
    assert_eq!((r.last_stable_offset(), r.high_watermark), (0, 2), "{name}");
    assert_eq!(r.txn.ongoing_first_offset(0), Some(0));
    assert_eq!(consumer_keys(&sim, "early-reader"), Vec::<String>::new());
    assert_eq!(consumer_keys(&sim, "patient-reader"), Vec::<String>::new());
    assert_eq!(
        consumer_keys(&sim, "uncommitted-reader"),
        ["in-txn", "plain"]
    );
    let pinned_polls = notes(&sim)
        .filter(|(_, n)| {
            matches!(
                n,
                Note::PolledNothing {
                    isolation: Isolation::ReadCommitted,
                    last_stable_offset: 0,
                    ..
                }
            )
        })
        .count();
    assert!(pinned_polls >= 5, "{name}: {pinned_polls} pinned polls");
    step_checked(name, &mut sim, None);
    let abort = step_of(&sim, |n| {
        matches!(
            n,
            Note::MarkerWritten {
                control: ControlType::Abort,
                ..
            }
        )
    })
    .expect("an ABORT marker");
    let timed_out = step_of(&sim, |n| matches!(n, Note::TxnTimedOut { .. })).expect("timeout");
    assert!(timed_out <= abort);
    let patient = sim
        .consumers
        .iter()
        .find(|c| sim.names.node(c.node()) == "patient-reader")
        .unwrap();
    assert_eq!(patient.reads.len(), 1);
    assert!(
        patient.reads[0].at > ms(3_000),
        "read at {}",
        patient.reads[0].at
    );
    let read_step = step_of(
        &sim,
        |n| matches!(n, Note::Read { consumer, .. } if *consumer == patient.node()),
    )
    .unwrap();
    assert!(read_step > abort, "{name}: read before the ABORT marker");
    let r = leader(&sim, P0);
    assert_eq!((r.last_stable_offset(), r.high_watermark), (3, 3));

    // Restarted after 1 s: the LSO is released at once, not at the timeout.
    let name = "txn-producer-crash-restart";
    let sim = run_builtin(name);
    let early = sim
        .consumers
        .iter()
        .find(|c| sim.names.node(c.node()) == "early-reader")
        .unwrap();
    assert_eq!(consumer_keys(&sim, "early-reader"), ["plain"]);
    assert!(
        early.reads[0].at < ms(1_500),
        "read at {}",
        early.reads[0].at
    );
    assert!(!notes(&sim).any(|(_, n)| matches!(n, Note::TxnTimedOut { .. })));
    assert!(notes(&sim).any(|(_, n)| matches!(n, Note::TxnFencedByNewInstance { .. })));
}

// ---------------------------------------------------------------------------------------
// Item 12.

/// The old instance, frozen after its records are stored, wakes only to ask for the commit.
fn zombie_commits_late() -> String {
    builtin_text("zombie-fencing")
        .replace("count = 2\ninterval_us = 500000", "count = 2")
        .replace(
            "at_ms = 100\naction = \"freeze\"",
            "at_ms = 8\naction = \"freeze\"",
        )
}

/// Checks item 12 on a finished run: after the coordinator handed out epoch e (an Empty
/// entry), no transaction that ran under an epoch below e reaches PrepareCommit.
fn assert_no_commit_below_handed_out_epoch(name: &str, sim: &Simulation, id: &str) {
    let log = txn_log(sim, id);
    let mut floor: Option<i16> = None;
    let mut running: Option<i16> = None;
    for e in &log {
        let t = &e.transit;
        match t.state {
            Empty => floor = Some(floor.map_or(t.producer_epoch, |f| f.max(t.producer_epoch))),
            Ongoing => running = Some(t.producer_epoch),
            PrepareCommit => {
                let ran = running.expect("a commit follows Ongoing");
                assert!(
                    floor.is_none_or(|f| ran >= f),
                    "{name}: a transaction of epoch {ran} commits after epoch {floor:?} was handed out"
                );
            }
            _ => {}
        }
    }
}

/// Item 12: after InitProducerId returns epoch e, no transaction of an earlier epoch commits.
/// The zombie's late write is refused (INVALID_PRODUCER_EPOCH, which the client takes as
/// abortable: it fails the write and aborts, and that EndTxn meets PRODUCER_FENCED) or its
/// late EndTxn is (PRODUCER_FENCED); nothing of it is visible; under both protocols.
#[test]
fn invariant_12_a_fenced_instance_never_commits() {
    let variants = [
        ("zombie-fencing", builtin_text("zombie-fencing").to_string()),
        (
            "zombie-fencing under protocol 1",
            under_protocol_1(builtin_text("zombie-fencing")),
        ),
        ("zombie commits late", zombie_commits_late()),
        (
            "zombie commits late under protocol 1",
            under_protocol_1(&zombie_commits_late()),
        ),
    ];
    for (name, text) in &variants {
        let sim = run_checked(name, text);
        assert_no_commit_below_handed_out_epoch(name, &sim, "orders-tx");
        let old = producer(&sim, "old-instance");
        let new = producer(&sim, "new-instance");
        let epoch_of = |who: NodeId| -> Vec<i16> {
            notes(&sim)
                .filter_map(|(_, n)| match n {
                    Note::ProducerIdAssigned {
                        producer, epoch, ..
                    } if *producer == who => Some(*epoch),
                    _ => None,
                })
                .collect()
        };
        let old_epochs = epoch_of(old);
        let new_epochs = epoch_of(new);
        assert_eq!(old_epochs.len(), 1, "{name}: {old_epochs:?}");
        assert_eq!(new_epochs.len(), 1, "{name}: {new_epochs:?}");
        let (old_epoch, new_epoch) = (old_epochs[0], new_epochs[0]);
        assert!(new_epoch > old_epoch, "{name}");
        // The old instance's transaction ended in an abort decided by the coordinator; no
        // PrepareCommit ever carried its producer's epoch or the one right after it.
        let log = txn_log(&sim, "orders-tx");
        for e in &log {
            if e.transit.state == PrepareCommit {
                assert!(
                    e.transit.producer_epoch >= new_epoch,
                    "{name}: {:?}",
                    e.transit
                );
            }
        }
        let fenced: Vec<KafkaError> = notes(&sim)
            .filter_map(|(_, n)| match n {
                Note::ProducerFenced {
                    producer, error, ..
                } if *producer == old => Some(*error),
                _ => None,
            })
            .collect();
        // Fatal only at the coordinator's PRODUCER_FENCED, as in the Java client (KIP-588).
        assert_eq!(fenced, [KafkaError::ProducerFenced], "{name}");
        if !name.contains("late") {
            let failed = step_of(&sim, |n| {
                matches!(n, Note::DeliveryFailed { producer, error: KafkaError::InvalidProducerEpoch, .. } if *producer == old)
            })
            .unwrap_or_else(|| panic!("{name}: the zombie's write is not failed"));
            let abort = step_of(&sim, |n| {
                matches!(n, Note::TxnRequestSent { producer, what } if *producer == old && what.starts_with("EndTxn(abort)"))
            })
            .unwrap_or_else(|| panic!("{name}: the zombie does not abort"));
            let refused = step_of(&sim, |n| {
                matches!(n, Note::TxnRequestRefused { error: KafkaError::ProducerFenced, request, .. } if request.starts_with("EndTxn(abort)"))
            })
            .unwrap_or_else(|| panic!("{name}: the abort is not fenced"));
            assert!(
                failed <= abort && abort < refused,
                "{name}: {failed} {abort} {refused}"
            );
        }
        assert!(
            !notes(&sim)
                .any(|(_, n)| matches!(n, Note::TxnEnded { producer, .. } if *producer == old)),
            "{name}: the zombie heard an outcome"
        );
        // No batch of the old epoch follows the coordinator's ABORT marker on the partition.
        let r = leader(&sim, P0);
        let abort_at = r
            .log
            .batches()
            .iter()
            .find(|b| b.control == Some(ControlType::Abort))
            .map(|b| b.base_offset)
            .expect("the zombie's transaction is aborted");
        for b in r.log.batches().iter().filter(|b| b.base_offset > abort_at) {
            assert!(b.epoch > old_epoch, "{name}: {b:?} after the fence");
        }
        assert_eq!(
            consumer_keys(&sim, "committed-reader"),
            ["new-0", "new-1"],
            "{name}"
        );
        let report = Report::of(name, &sim);
        assert_eq!(report.outcome.lost, 0, "{name}");
    }
}

// ---------------------------------------------------------------------------------------
// Item 13.

/// Item 13: an Ongoing transaction older than its timeout is aborted (it ends CompleteAbort),
/// and a later commit by its producer is fenced.
#[test]
fn invariant_13_an_expired_transaction_is_aborted_and_its_commit_fenced() {
    let name = "txn-timeout-abort";
    let sim = run_builtin(name);
    let log = txn_log(&sim, "app-tx");
    assert_eq!(states(&log), [Empty, Ongoing, PrepareAbort, CompleteAbort]);
    let start = log[1].transit.txn_start.expect("Ongoing has a start");
    let timeout = ms(log[1].transit.txn_timeout_ms);
    assert_eq!(timeout, ms(2_000));
    // Aborted at the coordinator's first look for timed-out transactions after it expired
    // (every 500 ms from the broker's start, in this scenario), fenced with an epoch bump
    // (V2: one more at the abort).
    let abort_at = log[2].written_at;
    assert!(
        abort_at > start + timeout && abort_at <= start + timeout + ms(500),
        "aborted at {abort_at}, start {start}"
    );
    assert_eq!(abort_at % ms(500), 0, "aborted at a look, {abort_at}");
    assert_eq!(epochs(&log), [0, 0, 2, 2]);
    assert_eq!(coordinator_state(&sim, "app-tx"), Some(CompleteAbort));
    let timed_out = step_of(&sim, |n| matches!(n, Note::TxnTimedOut { .. })).expect("timeout");
    let fenced_step = step_of(&sim, |n| {
        matches!(
            n,
            Note::ProducerFenced {
                error: KafkaError::ProducerFenced,
                ..
            }
        )
    })
    .expect("the late commit is fenced");
    assert!(timed_out < fenced_step);
    // The late EndTxn(commit) was sent after the abort and answered PRODUCER_FENCED.
    let end_sent = notes(&sim)
        .filter(|(_, n)| matches!(n, Note::TxnRequestSent { what, .. } if what.starts_with("EndTxn(commit)")))
        .map(|(s, _)| s.step)
        .collect::<Vec<_>>();
    assert_eq!(end_sent.len(), 1);
    assert!(timed_out < end_sent[0] && end_sent[0] < fenced_step);
    assert!(!notes(&sim).any(|(_, n)| matches!(n, Note::TxnEnded { .. })));
    let d = derive(leader(&sim, P0));
    assert_eq!(d.markers, [(0, 2, ControlType::Abort, 2)]);

    // The crashed producer's transaction too: aborted at its timeout, CompleteAbort.
    let sim = run_builtin("txn-producer-crash-stalls-readers");
    let log = txn_log(&sim, "txn-app-tx");
    assert_eq!(states(&log), [Empty, Ongoing, PrepareAbort, CompleteAbort]);
    let start = log[1].transit.txn_start.unwrap();
    assert!(log[2].written_at > start + ms(3_000));
    assert_eq!(coordinator_state(&sim, "txn-app-tx"), Some(CompleteAbort));
}

/// Kafka aborts a timed-out transaction only when its coordinator next looks for one
/// (`transaction.abort.timed.out.transaction.cleanup.interval.ms`, 10 s by default): under
/// the default, txn-timeout-abort's producer wakes at 4 s, 2 s past its timeout but before
/// the first look, and its commit goes through. The reader sees both records committed.
#[test]
fn a_transaction_past_its_timeout_commits_before_the_coordinator_looks() {
    let text = builtin_text("txn-timeout-abort").replace(
        "transaction_abort_timed_out_transaction_cleanup_interval_ms = 500",
        "transaction_abort_timed_out_transaction_cleanup_interval_ms = 10000",
    );
    assert_ne!(
        text,
        builtin_text("txn-timeout-abort"),
        "the scenario sets the interval"
    );
    let mut sim = parse("txn-timeout-abort, default interval", &text).simulation(None);
    assert_eq!(
        sim.run(eos_core::RunLimit::Completion),
        StepOutcome::Finished
    );
    let log = txn_log(&sim, "app-tx");
    assert_eq!(
        states(&log),
        [Empty, Ongoing, PrepareCommit, CompleteCommit]
    );
    let start = log[1].transit.txn_start.expect("Ongoing has a start");
    assert!(
        log[2].written_at > start + ms(2_000),
        "committed after its timeout"
    );
    assert!(!notes(&sim).any(|(_, n)| matches!(n, Note::TxnTimedOut { .. })));
    assert_eq!(consumer_keys(&sim, "committed-reader"), ["k0", "k1"]);
}

// ---------------------------------------------------------------------------------------
// Protocol 1 and 2 under a late EndTxn.

/// Under protocol 1 the late copy of transaction 1's EndTxn(abort) aborts the half of
/// transaction 2 already written; the client's AddPartitionsToTxn for the partition of its last
/// record then opens a new transaction under the same epoch, which its EndTxn commits. The
/// producer heard all of transaction 2 committed (KAFKA-17754: two lost writes).
#[test]
fn v1_a_late_end_txn_aborts_half_of_the_next_transaction() {
    let name = "txn-v1-delayed-endtxn";
    let sim = run_builtin(name);
    let log = txn_log(&sim, "app-tx");
    assert!(
        epochs(&log).iter().all(|e| *e == 0),
        "protocol 1 never bumps"
    );
    // The second PrepareAbort is the copy of transaction 1's EndTxn, 600 ms after the first.
    let stray = log[5];
    assert_eq!(stray.transit.state, PrepareAbort);
    assert_eq!(stray.written_at, log[2].written_at + ms(600));
    let duplicated = step_of(
        &sim,
        |n| matches!(n, Note::MessageDuplicated { kind, .. } if kind.name() == "end_txn"),
    );
    assert!(duplicated.is_some());
    let d = derive(leader(&sim, P0));
    assert_eq!(keys_at(&sim, P0, &d.aborted), ["t1", "t2-0", "t2-1"]);
    assert!(d.committed.is_empty() && d.open.is_empty());
    let d = derive(leader(&sim, P1));
    assert_eq!(keys_at(&sim, P1, &d.committed), ["t2-2"]);
    assert!(d.open.is_empty());
    assert_eq!(coordinator_state(&sim, "app-tx"), Some(CompleteCommit));
    // The producer heard transaction 1 aborted and all of transaction 2 committed.
    let heard: Vec<(bool, Vec<String>)> = notes(&sim)
        .filter_map(|(_, n)| match n {
            Note::TxnEnded {
                commit, records, ..
            } => Some((*commit, records.iter().map(|r| key_of(&sim, *r)).collect())),
            _ => None,
        })
        .collect();
    assert_eq!(
        heard,
        [
            (false, vec!["t1".to_string()]),
            (true, vec!["t2-0".into(), "t2-1".into(), "t2-2".into()])
        ]
    );
    assert_eq!(consumer_keys(&sim, "committed-reader"), ["t2-2"]);
    let report = Report::of(name, &sim);
    assert_eq!(report.outcome.lost, 2);
}

/// The same schedule under protocol 2: the copy carries the epoch before transaction 1's
/// bump and is fenced; nothing is written for it, and transaction 2 commits whole.
#[test]
fn v2_a_late_end_txn_is_fenced() {
    let name = "txn-v2-delayed-endtxn";
    let sim = run_builtin(name);
    let log = txn_log(&sim, "app-tx");
    // Empty, Ongoing at 0; PrepareAbort, CompleteAbort at 1 (the bump); transaction 2's two
    // partitions added at 1; PrepareCommit, CompleteCommit at 2.
    assert_eq!(epochs(&log), [0, 0, 1, 1, 1, 1, 2, 2]);
    // Transaction 2 is decided by its own EndTxn (after t2-2 at about 810 ms), not by the copy.
    assert_eq!(log[6].transit.state, PrepareCommit);
    assert!(log[6].written_at > ms(811), "{:?}", log[6]);
    let refused: Vec<SimTime> = notes(&sim)
        .filter(|(_, n)| {
            matches!(n, Note::TxnRequestRefused { error: KafkaError::ProducerFenced, request, .. } if request.starts_with("EndTxn"))
        })
        .map(|(s, _)| s.time)
        .collect();
    assert_eq!(refused.len(), 1, "the copy is fenced: {refused:?}");
    let ignored: Vec<SimTime> = notes(&sim)
        .filter(|(_, n)| matches!(n, Note::StaleResponseIgnored { .. }))
        .map(|(s, _)| s.time)
        .collect();
    assert_eq!(ignored, [refused[0] + ms(1)], "the answer to the copy");
    let d = derive(leader(&sim, P0));
    assert_eq!(keys_at(&sim, P0, &d.committed), ["t2-0", "t2-1"]);
    assert_eq!(keys_at(&sim, P0, &d.aborted), ["t1"]);
    assert!(d.open.is_empty());
    assert_eq!(
        d.markers
            .iter()
            .map(|m| (m.1, m.2, m.3))
            .collect::<Vec<_>>(),
        [(1, ControlType::Abort, 1), (2, ControlType::Commit, 4)]
    );
    let r = leader(&sim, P0);
    assert_eq!((r.last_stable_offset(), r.high_watermark), (5, 5));
    assert_eq!(
        consumer_keys(&sim, "committed-reader"),
        ["t2-0", "t2-1", "t2-2"]
    );
}

/// Every transaction scenario is small, filed under "Transactions", and pins its outcome.
#[test]
fn transaction_scenarios_are_small_and_filed() {
    for name in TXN_BUILTINS {
        let s = parse(name, builtin_text(name));
        assert_eq!(s.file.group, "Transactions", "{name}");
        assert!(s.file.expect.is_some(), "{name}: no [expect]");
        let records: u32 = s
            .file
            .producers
            .iter()
            .flat_map(|p| {
                p.sends
                    .iter()
                    .chain(p.transactions.iter().flat_map(|t| &t.sends))
            })
            .map(|s| s.count)
            .sum();
        assert!(records <= 20, "{name}: {records} records");
    }
}

// ---------------------------------------------------------------------------------------
// Reruns, and regressions of bugs found by these tests (each fixed in the simulator).

/// txn-producer-crash-restart with `resend_unconfirmed_on_restart = true`: the restarted
/// instance aborts its predecessor's transaction and runs it again under a new epoch. The log
/// then holds "in-txn" twice for producer id 0: at offset 0 in the aborted transaction (epoch
/// 0) and at offset 3 in the committed one (epoch 3). That is what Kafka does, and
/// read_committed sees it once; the idempotence invariants (items 1, 2, 4, 5), which look at
/// producer ids, must not call it a duplicate: a transactional id keeps its producer id
/// across instances. (This failed before the oracle keyed them by producer id and epoch.)
#[test]
fn a_transactional_rerun_after_a_crash_is_not_a_duplicate() {
    let text = builtin_text("txn-producer-crash-restart").replace(
        "transaction_timeout_ms = 3000",
        "transaction_timeout_ms = 3000\nresend_unconfirmed_on_restart = true",
    );
    let sim = run_checked("txn-producer-crash-restart with a rerun", &text);
    let d = derive(leader(&sim, P0));
    assert_eq!(keys_at(&sim, P0, &d.aborted), ["in-txn"]);
    assert_eq!(keys_at(&sim, P0, &d.committed), ["in-txn"]);
    assert_eq!(consumer_keys(&sim, "early-reader"), ["plain", "in-txn"]);
}

/// Transaction 2's first batch to events-0 (sequence 0 under the epoch bumped at transaction
/// 1's EndTxn) is lost; its second batch (sequence 1) arrives first. After transaction 1's
/// COMMIT marker the partition knows epoch 1 but no sequence of it, and Kafka
/// (`ProducerAppendInfo.checkSequence`: `inSequence(NO_SEQUENCE, 1)` is false) refuses
/// sequence 1 with OUT_OF_ORDER_SEQUENCE_NUMBER; the client retries it after the lost batch,
/// which lands first, and the transaction commits in order.
const GAP_AFTER_V2_MARKER: &str = r#"
version = 1
name = "gap-after-v2-marker"
[[topics]]
name = "events"
[[producers]]
name = "app"
transactional_id = "app-tx"
request_timeout_ms = 1000
[[producers.transactions]]
end = "commit"
[[producers.transactions.sends]]
topic = "events"
key = "t1"
[[producers.transactions]]
at_ms = 100
end = "commit"
[[producers.transactions.sends]]
topic = "events"
key_prefix = "t2-"
count = 2
interval_us = 10000
[[faults]]
at_ms = 50
action = "drop"
message = "produce"
[[consumers]]
name = "reader"
topic = "events"
isolation = "read_committed"
start_ms = 5000
"#;

/// Regression (fixed): `producer_state::check_append` accepts any
/// sequence for the first batch of an epoch that a (protocol 2) marker started, since the
/// entry has the epoch but no batches (Kafka requires sequence 0 there). Here it appends
/// "t2-1" at sequence 1 with nothing at sequence 0 (`sequences-contiguous` breaks at step 20
/// of `eos-sim run --trace` on this text); the retry of the lost "t2-0" is then refused as
/// out of order (step 24) and the transaction aborts (step 26), where Kafka would refuse
/// "t2-1" until "t2-0" lands and commit both, in order.
#[test]
fn regression_the_first_batch_after_a_v2_marker_must_start_at_sequence_0() {
    let name = "gap-after-v2-marker";
    let sim = run_checked(name, GAP_AFTER_V2_MARKER);
    assert_eq!(consumer_keys(&sim, "reader"), ["t1", "t2-0", "t2-1"]);
}

/// Regression (fixed): Under protocol 1 every transaction of a
/// producer instance has the same epoch; `prepare-commit-always-commits` pairs markers with
/// a PrepareCommit by (producer id, epoch), so the seed scenario (commit, then abort) run
/// under protocol 1 reports transaction 2's legitimate ABORT marker as an abort of
/// transaction 1's durable commit.
#[test]
fn regression_prepare_commit_invariant_misfires_under_protocol_1() {
    let text = under_protocol_1(builtin_text("seed-commit-abort"));
    let sim = run_checked("seed-commit-abort under protocol 1", &text);
    assert_eq!(consumer_keys(&sim, "committed-reader"), ["a", "b"]);
}

/// The coordinator's broker is down (or frozen) from 100 ms to 2 s while "app-tx", started
/// at 3 ms with a 1 s timeout, is Ongoing: it expires while nobody can abort it.
const EXPIRES_WHILE_COORDINATOR_AWAY: &str = r#"
version = 1
name = "expires-while-coordinator-away"
[[topics]]
name = "events"
[[producers]]
name = "app"
transactional_id = "app-tx"
transaction_timeout_ms = 1000
[[producers.transactions]]
end = "commit"
[[producers.transactions.sends]]
topic = "events"
key = "k"
[cluster]
transaction_abort_timed_out_transaction_cleanup_interval_ms = 100
[[faults]]
at_ms = 8
action = "freeze"
target = "app"
duration_ms = 5000
[[faults]]
at_ms = 100
action = "crash"
target = "broker-0"
restart_after_ms = 1900
[[consumers]]
name = "reader"
topic = "events"
isolation = "read_committed"
start_ms = 6000
"#;

/// Regression (fixed in the oracle): when the coordinator's broker comes back after an
/// Ongoing transaction's deadline, the expiry check runs at that same instant, one step
/// later; `expired-transactions-aborted` allows a check that is due now.
#[test]
fn regression_expired_transaction_at_coordinator_restart_or_thaw() {
    for (name, text) in [
        (
            "after a restart",
            EXPIRES_WHILE_COORDINATOR_AWAY.to_string(),
        ),
        (
            "after a freeze",
            EXPIRES_WHILE_COORDINATOR_AWAY.replace(
                "action = \"crash\"\ntarget = \"broker-0\"\nrestart_after_ms = 1900",
                "action = \"freeze\"\ntarget = \"broker-0\"\nduration_ms = 1900",
            ),
        ),
    ] {
        let sim = run_checked(name, &text);
        assert_eq!(
            coordinator_state(&sim, "app-tx"),
            Some(CompleteAbort),
            "{name}"
        );
        assert_eq!(
            consumer_keys(&sim, "reader"),
            Vec::<String>::new(),
            "{name}"
        );
    }
}

/// The producer's transaction times out (500 ms) while it is still writing; its next request
/// is fenced and it closes. It crashes afterwards and restarts, with
/// `resend_unconfirmed_on_restart = false`.
const FENCED_THEN_RESTARTED: &str = r#"
version = 1
name = "fenced-then-restarted"
[cluster]
transaction_abort_timed_out_transaction_cleanup_interval_ms = 50
[[topics]]
name = "events"
[[producers]]
name = "app"
transactional_id = "app-tx"
transaction_timeout_ms = 500
resend_unconfirmed_on_restart = false
[[producers.transactions]]
end = "commit"
[[producers.transactions.sends]]
topic = "events"
key_prefix = "k"
count = 3
interval_us = 300000
[[faults]]
at_ms = 1000
action = "crash"
target = "app"
restart_after_ms = 100
[[consumers]]
name = "reader"
topic = "events"
isolation = "read_uncommitted"
start_ms = 5000
"#;

/// Regression (fixed): `TxnClient::crash` skips the unfinished
/// transaction only when the phase is InTransaction or Ending; a producer closed by a fence
/// (phase Fatal) mid-transaction keeps it as "next", so after a restart it runs the fenced
/// transaction again although `resend_unconfirmed_on_restart = false` (the records are
/// appended a second time, and the oracle's idempotence checks then misfire as well).
#[test]
fn regression_a_fenced_producer_reruns_its_transaction_after_a_restart() {
    let name = "fenced-then-restarted";
    let sim = run_to_end(name, FENCED_THEN_RESTARTED);
    let app = producer(&sim, "app");
    let begun = notes(&sim)
        .filter(|(_, n)| matches!(n, Note::TxnBegun { producer, .. } if *producer == app))
        .count();
    assert!(
        notes(&sim)
            .any(|(_, n)| matches!(n, Note::ProducerFenced { producer, .. } if *producer == app)),
        "{name}: the producer was never fenced"
    );
    assert_eq!(begun, 1, "{name}: the fenced transaction began again");
}

fn run_to_end(label: &str, text: &str) -> Simulation {
    let mut sim = parse(label, text).simulation(None);
    assert_eq!(
        sim.run(eos_core::RunLimit::Completion),
        StepOutcome::Finished,
        "{label}"
    );
    sim
}

/// Regression (fixed): When the coordinator answers
/// AddPartitionsToTxn with CONCURRENT_TRANSACTIONS, the client arms a 20 ms retry timer and
/// clears the outstanding request; a linger timer in between makes `drain` send
/// AddPartitionsToTxn at once, and the retry timer then sends it a third time although the
/// partition is already in the transaction (txn-v2-delayed-endtxn: sent at 11, 16 and 33 ms,
/// steps 14, 19 and 24 of `eos-sim run --trace`). Kafka's client has one such request in
/// flight and retries it only if it failed. (A retry timer that fires in a later transaction
/// would add the earlier transaction's partitions to it.) Since the client sends
/// AddPartitionsToTxn only under protocol 1, this runs txn-v1-delayed-endtxn.
#[test]
fn regression_add_partitions_is_not_sent_again_once_the_partition_is_added() {
    let client_adds = |name: &str| -> Vec<SimTime> {
        let sim = run_builtin(name);
        notes(&sim)
            .filter(|(_, n)| {
                matches!(n, Note::TxnRequestSent { what, .. } if what.starts_with("AddPartitionsToTxn"))
            })
            .map(|(s, _)| s.time)
            .collect()
    };
    // Transaction 1 once; transaction 2 once refused (CONCURRENT_TRANSACTIONS) and once more
    // when the 20 ms backoff ends, then once for the partition its last record goes to.
    assert_eq!(
        client_adds("txn-v1-delayed-endtxn"),
        [ms(2), ms(13), ms(35), ms(813)]
    );
    // Protocol 2: the partition leaders add the partitions; the client sends none.
    assert_eq!(client_adds("txn-v2-delayed-endtxn"), Vec::<SimTime>::new());
}

/// zombie-fencing with broker 0, the transaction coordinator's, crashed for good at `at_ms`,
/// run to its end (which it must reach).
fn zombie_fencing_with_the_coordinator_down_from(at_ms: u64) -> eos_core::Simulation {
    let base = builtin::get("zombie-fencing").expect("built-in");
    let mut file = base.file.clone();
    file.faults.push(eos_core::scenario::schema::FaultSpec {
        at_ms,
        action: "crash".into(),
        target: Some("broker-0".into()),
        count: 1,
        ..Default::default()
    });
    let s = Scenario::from_file(file).expect("valid");
    let mut sim = s.simulation(None);
    sim.run(eos_core::RunLimit::Completion);
    assert!(sim.is_finished(), "ended after {} steps", sim.steps());
    sim
}

/// The transaction coordinator's broker crashes for good while `old-instance` waits for its
/// EndTxn(abort) answer: `abortTransaction()` throws once it has waited `max.block.ms` (60 s),
/// and the application closes the producer. The run ends instead of sending EndTxn every
/// 30 s until its step limit.
#[test]
fn an_end_txn_unanswered_for_max_block_ms_closes_the_producer() {
    let sim = zombie_fencing_with_the_coordinator_down_from(3107);
    let trace = sim.trace();
    let gave_up = trace
        .iter()
        .position(|r| {
            r.notes.iter().any(|n| {
                matches!(n, Note::TxnEndGaveUp { commit: false, waited, .. } if *waited >= ms(60_000))
            })
        })
        .expect("abortTransaction() gave up");
    let end_txns = |steps: &[StepRecord]| {
        steps
            .iter()
            .filter(|r| {
                r.notes.iter().any(
                    |n| matches!(n, Note::TxnRequestSent { what, .. } if what.starts_with("EndTxn")),
                )
            })
            .count()
    };
    let old = sim
        .producers
        .iter()
        .find(|p| sim.names.node(p.node()) == "old-instance")
        .expect("old-instance");
    assert!(old.gave_up() && !old.is_fenced(), "closed, not fenced");
    // Sent, timed out after 30 s and sent again, then given up at 60 s.
    assert!(end_txns(&trace[..gave_up]) >= 2);
    assert_eq!(
        end_txns(&trace[gave_up + 1..]),
        0,
        "no EndTxn once the producer is closed"
    );
}

/// The transaction coordinator's broker crashes for good before `new-instance` starts: its
/// `initTransactions()` throws once it has waited `max.block.ms` (60 s) for InitProducerId's
/// answer, and the application closes the producer. The run ends instead of asking every
/// 30 s until its step limit.
#[test]
fn an_init_producer_id_unanswered_for_max_block_ms_closes_the_producer() {
    let sim = zombie_fencing_with_the_coordinator_down_from(500);
    let trace = sim.trace();
    let new = sim
        .producers
        .iter()
        .find(|p| sim.names.node(p.node()) == "new-instance")
        .expect("new-instance");
    let gave_up = trace
        .iter()
        .position(|r| {
            r.notes.iter().any(|n| {
                matches!(n, Note::TxnInitGaveUp { producer, waited }
                    if *producer == new.node() && *waited >= ms(60_000))
            })
        })
        .expect("initTransactions() gave up");
    let asked = |steps: &[StepRecord]| {
        steps
            .iter()
            .filter(|r| {
                r.notes.iter().any(
                    |n| matches!(n, Note::ProducerIdRequested { producer, .. } if *producer == new.node()),
                )
            })
            .count()
    };
    assert!(new.gave_up() && new.gave_up_init() && !new.is_fenced());
    // Asked, timed out after 30 s and asked again, then given up at 60 s.
    assert!(asked(&trace[..gave_up]) >= 2);
    assert_eq!(
        asked(&trace[gave_up + 1..]),
        0,
        "no InitProducerId once closed"
    );
}
