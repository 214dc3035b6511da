//! The oracle covers read-process-write processors on their own account: with a source
//! producer that is neither idempotent nor acks=all and a read_uncommitted reader, the
//! invariants listed for the run come from the processor's output client and consumer side.
//! Each is shown to hold on the real run and to fail on a deliberately broken copy of it.

use eos_core::ids::{RecordId, Tp};
use eos_core::oracle::invariants::{self, check_all};
use eos_core::oracle::{ProcessorRead, TxnOutcome};
use eos_core::{RunLimit, Scenario, Simulation};

/// Seed 0, transaction protocol 1: the processor's first produce request on out-0 (v3's
/// output, sequence 0) is delayed past its request timeout. Sequences 1–5 land first (the
/// broker has no state for the new producer id, so it takes any sequence); the retry of
/// sequence 0 is then OUT_OF_ORDER, the first transaction aborts, and the processor writes
/// the same outputs again in the next one, under the same producer id and epoch (protocol 1
/// does not bump it at EndTxn). v4's output thus has an aborted copy and a committed one.
fn scenario() -> Scenario {
    let text = r#"
version = 1
name = "processor-oracle"
seed = 0
[cluster]
transaction_protocol = 1
[network]
jitter_us = 300
[[topics]]
name = "in"
partitions = 2
[[topics]]
name = "out"
partitions = 2
[[producers]]
name = "source"
client = "librdkafka"
enable_idempotence = false
acks = 1
linger_ms = 0
[[producers.sends]]
topic = "in"
key_prefix = "k"
count = 10
interval_us = 1000
[[processors]]
name = "proc"
guarantee = "exactly-once"
input = "in"
output = "out"
start_ms = 3
poll_interval_ms = 10
request_timeout_ms = 300
transaction_timeout_ms = 2000
commit_interval_ms = 1
[[faults]]
at_ms = 0
action = "delay"
message = "produce"
topic = "out"
partition = 0
count = 1
extra_ms = 1000
[[consumers]]
name = "reader"
topic = "out"
isolation = "read_uncommitted"
start_ms = 20000
"#;
    Scenario::parse(text).expect("valid scenario")
}

fn finished() -> Simulation {
    let mut sim = scenario().simulation(None);
    sim.run(RunLimit::Completion);
    assert!(sim.is_finished());
    sim
}

/// Whether `name` is listed, and whether it holds.
fn verdict(sim: &Simulation, name: &str) -> Option<bool> {
    check_all(sim)
        .into_iter()
        .find(|r| r.name == name)
        .map(|r| r.holds)
}

const OUT0: Tp = Tp {
    topic: 1,
    partition: 0,
};

/// v4's output: its copies on out-0 (the first aborted, the second committed).
fn v4_output(sim: &Simulation) -> RecordId {
    RecordId(sim.processors[0].settings.output_base + 4)
}

#[test]
fn the_processor_alone_brings_in_its_invariants_and_they_hold() {
    let sim = finished();
    assert!(!sim.producers[0].is_idempotent());
    for name in [
        invariants::SEQUENCES_CONTIGUOUS,
        invariants::NO_DUPLICATE_PER_PRODUCER_ID,
        invariants::IDEMPOTENT_SEND_ORDER,
        invariants::NO_STALE_EPOCH_APPEND,
        invariants::ACKED_OFFSET_IS_ORIGINAL,
        invariants::READ_COMMITTED_ISOLATION,
        invariants::READS_STAY_READABLE,
    ] {
        assert_eq!(
            verdict(&sim, name),
            Some(true),
            "{name}: {:?}",
            check_all(&sim)
        );
    }
    let e = sim.ledger.get(v4_output(&sim)).expect("in the ledger");
    assert_eq!(e.processor, Some(0));
    let copies: Vec<(u64, u32, Option<TxnOutcome>)> = e
        .appends
        .iter()
        .filter(|c| c.tp == OUT0)
        .map(|c| (c.offset, c.hand_over, c.txn_outcome))
        .collect();
    assert_eq!(
        copies,
        [
            (0, 1, Some(TxnOutcome::Aborted)),
            (7, 2, Some(TxnOutcome::Committed))
        ]
    );
    // The processor's reads are in the ledger, as consumers' are.
    let input = sim.ledger.get(RecordId(3)).expect("in the ledger");
    assert!(!input.processor_reads.is_empty());
}

#[test]
fn a_second_copy_of_one_send_in_one_session_is_a_duplicate() {
    let mut sim = finished();
    let id = v4_output(&sim);
    // Pretend the copy at offset 7 came from the first send (a retry appended twice).
    if let Some(e) = sim
        .ledger
        .records
        .get_mut(id.0 as usize)
        .map(std::sync::Arc::make_mut)
    {
        for c in &mut e.appends {
            c.hand_over = 1;
        }
    }
    assert_eq!(
        verdict(&sim, invariants::NO_DUPLICATE_PER_PRODUCER_ID),
        Some(false)
    );
}

#[test]
fn a_copy_stored_ahead_of_its_send_order_breaks_send_order() {
    let mut sim = finished();
    let id = v4_output(&sim);
    // The second send of v4's output handed over after everything else of its transaction.
    if let Some(e) = sim
        .ledger
        .records
        .get_mut(id.0 as usize)
        .map(std::sync::Arc::make_mut)
    {
        for c in e.appends.iter_mut().filter(|c| c.hand_over == 2) {
            c.send_order = Some(u64::MAX - 1);
        }
    }
    assert_eq!(
        verdict(&sim, invariants::IDEMPOTENT_SEND_ORDER),
        Some(false)
    );
}

#[test]
fn an_acknowledgement_naming_another_offset_breaks_acked_offset_is_original() {
    let mut sim = finished();
    let id = v4_output(&sim);
    if let Some(e) = sim
        .ledger
        .records
        .get_mut(id.0 as usize)
        .map(std::sync::Arc::make_mut)
    {
        assert_eq!(e.acked_offset, Some(7));
        e.acked_offset = Some(8);
    }
    assert_eq!(
        verdict(&sim, invariants::ACKED_OFFSET_IS_ORIGINAL),
        Some(false)
    );
}

#[test]
fn a_processor_reading_an_aborted_record_breaks_read_committed() {
    let mut sim = finished();
    let id = v4_output(&sim);
    // As if the exactly-once processor had read the aborted copy at offset 0 of out-0.
    let step = sim.steps();
    if let Some(e) = sim
        .ledger
        .records
        .get_mut(id.0 as usize)
        .map(std::sync::Arc::make_mut)
    {
        e.processor_reads.push(ProcessorRead {
            processor: 0,
            tp: OUT0,
            offset: 0,
            step,
        });
    }
    assert_eq!(
        verdict(&sim, invariants::READ_COMMITTED_ISOLATION),
        Some(false)
    );
    // The record is still there: that read stays readable.
    assert_eq!(verdict(&sim, invariants::READS_STAY_READABLE), Some(true));
}

#[test]
fn a_processor_read_the_leader_no_longer_holds_breaks_reads_stay_readable() {
    let mut sim = finished();
    let step = sim.steps();
    if let Some(e) = sim.ledger.records.get_mut(3).map(std::sync::Arc::make_mut) {
        let at = e.processor_reads[0];
        e.processor_reads.push(ProcessorRead {
            offset: at.offset + 1,
            step,
            ..at
        });
    }
    assert_eq!(verdict(&sim, invariants::READS_STAY_READABLE), Some(false));
}

/// At-most-once commits an input's offset before it processes it; a crash in between skips
/// the input for good. The input's story names the read, the commit past it and the crash
/// (it used to hold only its own produce steps, so a lost input did not say why).
#[test]
fn a_skipped_inputs_story_names_its_read_the_commit_past_it_and_the_crash() {
    use eos_core::sim::Note;
    let scenario = eos_core::builtin::get("rpw-crash-at-most-once").expect("built-in");
    let mut sim = scenario.simulation(None);
    sim.run(RunLimit::Completion);
    let skipped = eos_core::outcomes::skipped_now(&sim);
    let (input, _) = *skipped
        .first()
        .expect("at-most-once skips an input at the crash");
    let story = sim.ledger.get(input).expect("an entry").evidence.clone();
    let step_of = |want: &dyn Fn(&Note) -> bool| {
        sim.trace()
            .iter()
            .filter(|r| r.notes.iter().any(want))
            .map(|r| r.step)
            .collect::<Vec<u64>>()
    };
    let read = sim.ledger.get(input).expect("an entry").processor_reads[0].step;
    let commits = step_of(
        &|n| matches!(n, Note::OffsetsCommitted { consumer, .. } if matches!(consumer, eos_core::ids::NodeId::Processor(_))),
    );
    let crashes = step_of(
        &|n| matches!(n, Note::Crashed { node } if matches!(node, eos_core::ids::NodeId::Processor(_))),
    );
    let commit = commits
        .iter()
        .copied()
        .find(|s| *s > read)
        .expect("a commit after the read");
    let crash = crashes
        .iter()
        .copied()
        .find(|s| *s > commit)
        .expect("the crash after it");
    for (what, step) in [("read", read), ("commit", commit), ("crash", crash)] {
        assert!(
            story.contains(&step),
            "{what} #{step} in the story {story:?}"
        );
    }
    // An input processed in time has its read in its story, and no crash.
    let done = (0..sim.ledger.records.len() as u32)
        .map(RecordId)
        .find(|id| {
            let e = sim.ledger.get(*id).expect("an entry");
            !e.processor_reads.is_empty()
                && !skipped.iter().any(|(i, _)| i == id)
                && !e.evidence.contains(&crash)
        })
        .expect("an input processed before the crash");
    let e = sim.ledger.get(done).expect("an entry");
    assert!(
        e.evidence.contains(&e.processor_reads[0].step),
        "{:?}",
        e.evidence
    );
}
