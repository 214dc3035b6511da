//! Per logical record: who sent it, how often, where copies were appended, how it was
//! acknowledged, who read it, and the steps that tell its story.

use crate::ids::{NodeId, RecordId, Tp};
use crate::kafka::errors::KafkaError;
use crate::kafka::producer::Producer;
use crate::sim::note::Note;
use crate::sim::FlinkNote;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Evidence kept per record is capped so that a pathological run stays small.
const EVIDENCE_MAX: usize = 24;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    /// Not yet acknowledged nor failed.
    Pending,
    Delivered,
    Failed,
    /// Sent, never answered, given up: it may or may not be in the log.
    Indeterminate,
}

impl DeliveryStatus {
    pub fn name(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Delivered => "delivered",
            DeliveryStatus::Failed => "failed",
            DeliveryStatus::Indeterminate => "indeterminate",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AppendedCopy {
    pub tp: Tp,
    pub offset: u64,
    pub step: u64,
    /// Which hand-over of the record this copy was sent under (see `RecordEntry::hand_overs`).
    #[serde(default)]
    pub hand_over: u32,
    /// A transactional copy: how the transaction of its hand-over ended, as the producer
    /// heard it. One logical record can be written by several transactions (a
    /// read-process-write processor writes an input's output again after an abort), so the
    /// outcome that decides whether *this* copy may be visible is its own transaction's.
    #[serde(default)]
    pub txn_outcome: Option<TxnOutcome>,
    /// Where that hand-over stands in the order of all hand-overs of the run (its send
    /// order: a record handed over again is sent again, later).
    #[serde(default)]
    pub send_order: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ReadBy {
    pub consumer: u8,
    pub offset: u64,
    pub step: u64,
}

/// A read by a read-process-write processor's consumer side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProcessorRead {
    pub processor: u8,
    pub tp: Tp,
    pub offset: u64,
    pub step: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RecordEntry {
    /// The plain producer that handed it over.
    pub producer: Option<u8>,
    /// The read-process-write processor whose output client it was handed to.
    #[serde(default)]
    pub processor: Option<u8>,
    /// The Flink two-phase-commit sink task (its subtask node number) that wrote it.
    #[serde(default)]
    pub sink: Option<u8>,
    pub key: Option<u32>,
    pub tp: Option<Tp>,
    pub accepted_at: Option<SimTime>,
    /// The order in which the application handed records over (its send order).
    pub accept_order: Option<u64>,
    pub attempts: u32,
    /// Sent at least once and not yet settled when its producer crashed.
    pub in_doubt_at_crash: bool,
    pub status: DeliveryStatus,
    pub acked_offset: Option<u64>,
    pub delivered_at: Option<SimTime>,
    pub error: Option<KafkaError>,
    pub appends: Vec<AppendedCopy>,
    /// Reads by consumers.
    pub reads: Vec<ReadBy>,
    /// Reads by processors (their input records).
    #[serde(default)]
    pub processor_reads: Vec<ProcessorRead>,
    pub evidence: Vec<u64>,
    /// Written inside a transaction.
    pub transactional: bool,
    /// How its producer's transaction ended, as the producer heard it (the latest one that
    /// held it, when it was handed over again).
    pub txn_outcome: Option<TxnOutcome>,
    /// Times the application handed it to a producer client (a processor hands an input's
    /// output over again after an abort or a crash; each hand-over goes into a new
    /// transaction).
    #[serde(default)]
    pub hand_overs: u32,
    /// How the transaction holding the latest hand-over ended, as the producer heard it; a
    /// copy of that hand-over appended after it ended (a late retry) takes it over.
    #[serde(default)]
    pub hand_over_outcome: Option<TxnOutcome>,
    /// The latest hand-over's place in the order of all hand-overs of the run.
    #[serde(default)]
    pub hand_over_order: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TxnOutcome {
    Committed,
    Aborted,
}

impl RecordEntry {
    fn new() -> Self {
        RecordEntry {
            producer: None,
            processor: None,
            sink: None,
            key: None,
            tp: None,
            accepted_at: None,
            accept_order: None,
            attempts: 0,
            in_doubt_at_crash: false,
            status: DeliveryStatus::Pending,
            acked_offset: None,
            delivered_at: None,
            error: None,
            appends: Vec::new(),
            reads: Vec::new(),
            processor_reads: Vec::new(),
            evidence: Vec::new(),
            transactional: false,
            txn_outcome: None,
            hand_overs: 0,
            hand_over_outcome: None,
            hand_over_order: None,
        }
    }

    /// Acknowledged in the sense that counts for loss: delivered and, inside a transaction,
    /// committed; or, for a Flink sink's output, committed as far as Flink knows: its
    /// checkpoint completed and the commit was answered (a sink's transaction outcome comes
    /// only from that answer), so Flink will not write it again, whatever Kafka answered.
    pub fn acknowledged(&self) -> bool {
        (self.sink.is_some() && self.txn_outcome.is_some())
            || (self.final_status() == DeliveryStatus::Delivered
                && (!self.transactional || self.txn_outcome == Some(TxnOutcome::Committed)))
    }

    /// A Flink sink's commit was answered: the current hand-over's copies take the
    /// transaction's outcome, as Kafka gave it, and Flink counts the record as done.
    fn settle_sink(&mut self, outcome: TxnOutcome, now: SimTime, step: u64) {
        self.end_transaction(outcome, step);
        let current = self.hand_overs;
        if let Some(copy) = self.appends.iter().rev().find(|c| c.hand_over == current) {
            self.acked_offset = Some(copy.offset);
        }
        if outcome == TxnOutcome::Committed {
            self.status = DeliveryStatus::Delivered;
            self.delivered_at = Some(now);
        } else {
            self.status = DeliveryStatus::Failed;
        }
    }

    /// The transaction holding the current hand-over ended: only the copies sent under
    /// that hand-over take its outcome (earlier ones belong to earlier transactions).
    fn end_transaction(&mut self, outcome: TxnOutcome, step: u64) {
        self.txn_outcome = Some(outcome);
        self.hand_over_outcome = Some(outcome);
        let current = self.hand_overs;
        for copy in self.appends.iter_mut().filter(|c| c.hand_over == current) {
            copy.txn_outcome = Some(outcome);
        }
        self.witness(step);
    }

    fn witness(&mut self, step: u64) {
        if self.evidence.last() != Some(&step) && self.evidence.len() < EVIDENCE_MAX {
            self.evidence.push(step);
        }
    }

    /// The status a report gives: a record still pending at the end was either never sent
    /// (failed) or sent and left in doubt by a crash (indeterminate).
    pub fn final_status(&self) -> DeliveryStatus {
        match self.status {
            DeliveryStatus::Pending if self.in_doubt_at_crash || self.attempts > 0 => {
                DeliveryStatus::Indeterminate
            }
            DeliveryStatus::Pending => DeliveryStatus::Failed,
            s => s,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Ledger {
    /// Shared between copies of a run (the playground keeps one every 64 to 512 steps to
    /// step back): a copy shares every entry, and an entry is copied when it next changes,
    /// so a copy costs a pointer per record, not every entry's lists.
    pub records: Vec<Arc<RecordEntry>>,
    /// (partition, base offset) → the records of the batch appended there, so that a lost
    /// acknowledgement can be tied to what it acknowledged.
    #[serde(with = "crate::serde_pairs")]
    batches_at: BTreeMap<(Tp, u64), Vec<RecordId>>,
    accepted: u64,
    /// Hand-overs so far, first ones and repeated ones.
    #[serde(default)]
    handed: u64,
    /// Per processor, the inputs it has read and not yet processed, with where it read them:
    /// an offset commit past one of them, and a crash while it holds them, are part of its
    /// story (at-most-once commits first; a crash in between skips the input for good).
    /// (A flat list, not a map: it holds a batch or two, and a map's generic code cost the
    /// page 4 KB.)
    #[serde(default)]
    unprocessed: Vec<(u8, Tp, u64, RecordId)>,
    /// Unclean leader elections, (partition, step): after one, an acknowledged offset may
    /// hold another record, and replicas may disagree below their high watermarks.
    #[serde(default)]
    pub unclean_elections: Vec<(Tp, u64)>,
}

/// Whether `note` is of a kind the ledger takes a record's evidence from (`RecordEntry::
/// evidence`): what a record's story names a step by, rather than another note of the same
/// step (a copy to a follower dropped at the step the record was appended).
pub fn witnesses(note: &Note) -> bool {
    match note {
        Note::Flink(f) => matches!(
            f,
            FlinkNote::SinkWrote { .. }
                | FlinkNote::SinkCommitted { .. }
                | FlinkNote::SinkCommitRejected { .. }
        ),
        Note::BatchSent { .. }
        | Note::RequestTimedOut { .. }
        | Note::ConnectionClosed { .. }
        | Note::RetryScheduled { .. }
        | Note::DuplicateDetected { .. }
        | Note::AppendRejected { .. }
        | Note::TxnPartitionCheck { .. }
        | Note::TxnPartitionCheckFailed { .. }
        | Note::Delivered { .. }
        | Note::DeliveryFailed { .. }
        | Note::Appended { .. }
        | Note::TxnEnded { .. }
        | Note::ProducerFenced { .. }
        | Note::AckLost { .. }
        | Note::LeaderElected { .. }
        | Note::UncleanLeaderElected { .. }
        | Note::LogTruncated { .. }
        | Note::Read { .. }
        | Note::OffsetsCommitted { .. }
        | Note::Crashed { .. } => true,
        _ => false,
    }
}

impl Ledger {
    /// About how many bytes a copy of the ledger takes: an entry per record of the scenario,
    /// and what each entry lists.
    pub fn approx_bytes(&self) -> usize {
        use std::mem::size_of;
        let lists: usize = self
            .records
            .iter()
            .map(|e| {
                e.appends.len() * size_of::<AppendedCopy>()
                    + e.reads.len() * size_of::<ReadBy>()
                    + e.processor_reads.len() * size_of::<ProcessorRead>()
                    + e.evidence.len() * size_of::<u64>()
            })
            .sum();
        self.records.len() * size_of::<RecordEntry>()
            + lists
            + self.batches_at.len() * (size_of::<(Tp, u64)>() + size_of::<Vec<RecordId>>())
    }

    pub fn new(records: u32) -> Self {
        Ledger {
            records: (0..records).map(|_| Arc::new(RecordEntry::new())).collect(),
            batches_at: BTreeMap::new(),
            accepted: 0,
            handed: 0,
            unprocessed: Vec::new(),
            unclean_elections: Vec::new(),
        }
    }

    /// The steps of the unclean leader elections of `tp`: after one, acks=all's promises
    /// (an acknowledged or read offset keeps its record) no longer hold there.
    pub fn unclean_elections_of(&self, tp: Tp) -> Vec<u64> {
        self.unclean_elections
            .iter()
            .filter(|(t, _)| *t == tp)
            .map(|(_, step)| *step)
            .collect()
    }

    /// Send order of a record (records never handed over sort last).
    pub fn send_order(&self, id: RecordId) -> u64 {
        self.get(id)
            .and_then(|e| e.accept_order)
            .unwrap_or(u64::MAX)
    }

    pub fn get(&self, id: RecordId) -> Option<&RecordEntry> {
        self.records.get(id.0 as usize).map(|e| &**e)
    }

    /// The copy of `id` appended last at `offset` of `tp`.
    pub fn copy_at(&self, id: RecordId, tp: Tp, offset: u64) -> Option<&AppendedCopy> {
        self.get(id)?
            .appends
            .iter()
            .rev()
            .find(|c| c.tp == tp && c.offset == offset)
    }

    fn entry(&mut self, id: RecordId) -> Option<&mut RecordEntry> {
        self.records.get_mut(id.0 as usize).map(Arc::make_mut)
    }

    fn each(&mut self, ids: &[RecordId], mut f: impl FnMut(usize, &mut RecordEntry)) {
        for (i, id) in ids.iter().enumerate() {
            if let Some(e) = self.entry(*id) {
                f(i, e);
            }
        }
    }

    pub fn observe(&mut self, note: &Note, step: u64, now: SimTime) {
        match note {
            Note::RecordAccepted {
                producer,
                record,
                key,
                tp,
            } => {
                if let Some(e) = self.hand_over(*record, *key, *tp, now) {
                    match producer {
                        crate::ids::NodeId::Producer(p) => e.producer = Some(*p),
                        crate::ids::NodeId::Processor(p) => e.processor = Some(*p),
                        _ => {}
                    }
                }
            }
            Note::Flink(flink) => self.observe_sink(flink, step, now),
            Note::BatchSent { records, .. } => self.each(records, |_, e| {
                e.attempts += 1;
                e.witness(step);
            }),
            Note::RequestTimedOut { records, .. }
            | Note::ConnectionClosed { records, .. }
            | Note::RetryScheduled { records, .. }
            | Note::DuplicateDetected { records, .. }
            | Note::AppendRejected { records, .. }
            | Note::TxnPartitionCheck { records, .. }
            | Note::TxnPartitionCheckFailed { records, .. } => {
                self.each(records, |_, e| e.witness(step))
            }
            Note::Delivered {
                records,
                base_offset,
                ..
            } => self.each(records, |i, e| {
                e.status = DeliveryStatus::Delivered;
                e.acked_offset = base_offset.map(|o| o + i as u64);
                e.delivered_at = Some(now);
                e.witness(step);
            }),
            Note::DeliveryFailed {
                records,
                error,
                indeterminate,
                ..
            } => self.each(records, |_, e| {
                e.status = if *indeterminate {
                    DeliveryStatus::Indeterminate
                } else {
                    DeliveryStatus::Failed
                };
                e.error = Some(*error);
                e.witness(step);
            }),
            Note::Appended {
                tp,
                base_offset,
                records,
                transactional,
                ..
            } => {
                self.batches_at.insert((*tp, *base_offset), records.clone());
                self.each(records, |i, e| {
                    e.transactional |= *transactional;
                    e.appends.push(AppendedCopy {
                        tp: *tp,
                        offset: base_offset + i as u64,
                        step,
                        hand_over: e.hand_overs,
                        txn_outcome: if *transactional {
                            e.hand_over_outcome
                        } else {
                            None
                        },
                        send_order: e.hand_over_order,
                    });
                    e.witness(step);
                });
            }
            Note::TxnEnded {
                commit, records, ..
            } => {
                let outcome = if *commit {
                    TxnOutcome::Committed
                } else {
                    TxnOutcome::Aborted
                };
                self.each(records, |_, e| e.end_transaction(outcome, step));
            }
            Note::ProducerFenced { records, .. } => self.each(records, |_, e| e.witness(step)),
            Note::AckLost {
                tp, base_offset, ..
            } => {
                if let Some(ids) = self.batches_at.get(&(*tp, *base_offset)).cloned() {
                    self.each(&ids, |_, e| e.witness(step));
                }
            }
            Note::LeaderElected { lost_records, .. } => {
                let ids = lost_records.clone();
                self.each(&ids, |_, e| e.witness(step));
            }
            Note::UncleanLeaderElected {
                tp, lost_records, ..
            } => {
                let ids = lost_records.clone();
                self.each(&ids, |_, e| e.witness(step));
                self.unclean_elections.push((*tp, step));
            }
            Note::LogTruncated { dropped, .. } => {
                let ids = dropped.clone();
                self.each(&ids, |_, e| e.witness(step));
            }
            Note::Read {
                consumer: crate::ids::NodeId::Consumer(c),
                records,
                ..
            } => {
                for (offset, id) in records {
                    if let Some(e) = self.entry(*id) {
                        e.reads.push(ReadBy {
                            consumer: *c,
                            offset: *offset,
                            step,
                        });
                    }
                }
            }
            Note::Read {
                consumer: crate::ids::NodeId::Processor(p),
                tp,
                records,
                ..
            } => {
                for (offset, id) in records {
                    if let Some(e) = self.entry(*id) {
                        e.processor_reads.push(ProcessorRead {
                            processor: *p,
                            tp: *tp,
                            offset: *offset,
                            step,
                        });
                        e.witness(step);
                    }
                    self.unprocessed.push((*p, *tp, *offset, *id));
                }
            }
            Note::Processed {
                processor: crate::ids::NodeId::Processor(p),
                inputs,
                ..
            } => {
                // A set: a batch may hold hundreds of inputs.
                let done: std::collections::BTreeSet<RecordId> =
                    crate::order::set_of(inputs.iter().copied());
                self.unprocessed
                    .retain(|(q, _, _, id)| q != p || !done.contains(id));
            }
            // The group's offsets moved past inputs the processor has not processed.
            Note::OffsetsCommitted {
                consumer: crate::ids::NodeId::Processor(p),
                offsets,
                ..
            } => {
                let passed: Vec<RecordId> = self
                    .unprocessed
                    .iter()
                    .filter(|(q, tp, offset, _)| {
                        q == p && offsets.iter().any(|(t, o)| t == tp && offset < o)
                    })
                    .map(|(_, _, _, id)| *id)
                    .collect();
                self.each(&passed, |_, e| e.witness(step));
            }
            // What a processor held dies with it.
            Note::Crashed {
                node: crate::ids::NodeId::Processor(p),
            } => {
                let held: Vec<RecordId> = self
                    .unprocessed
                    .iter()
                    .filter(|(q, ..)| q == p)
                    .map(|(.., id)| *id)
                    .collect();
                self.unprocessed.retain(|(q, ..)| q != p);
                self.each(&held, |_, e| e.witness(step));
            }
            _ => {}
        }
    }

    /// The application hands `record` to a client (again): a new hand-over, in a new
    /// transaction if it is transactional.
    fn hand_over(
        &mut self,
        record: RecordId,
        key: Option<u32>,
        tp: Tp,
        now: SimTime,
    ) -> Option<&mut RecordEntry> {
        let order = self.accepted;
        let handed = self.handed;
        let e = self.records.get_mut(record.0 as usize).map(Arc::make_mut)?;
        e.hand_over_order = Some(handed);
        self.handed += 1;
        if e.accept_order.is_none() {
            e.accept_order = Some(order);
            self.accepted += 1;
        }
        e.key = key;
        e.tp = Some(tp);
        e.hand_overs = e.hand_overs.saturating_add(1);
        e.hand_over_outcome = None;
        e.accepted_at.get_or_insert(now);
        Some(e)
    }

    /// The Flink two-phase-commit sink's side of a record's story: it writes the record in
    /// a transaction (a hand-over; a replay after a failover is another one, in another
    /// transaction), and the commit after the checkpoint settles it. Kafka may refuse that
    /// commit (the transaction timed out); Flink takes it as done, so the record is
    /// acknowledged and its transaction aborted: a lost write.
    fn observe_sink(&mut self, note: &FlinkNote, step: u64, now: SimTime) {
        match note {
            FlinkNote::SinkWrote {
                task: NodeId::Task(t),
                record,
                to: Some((tp, key)),
                ..
            } => {
                if let Some(e) = self.hand_over(*record, *key, *tp, now) {
                    e.sink = Some(*t);
                    e.transactional = true;
                    // The sink sends each record once, acks=all, and fails the job
                    // rather than retry.
                    e.attempts = e.attempts.saturating_add(1);
                    e.witness(step);
                }
            }
            FlinkNote::SinkCommitted { records, .. } => {
                self.each(records, |_, e| {
                    e.settle_sink(TxnOutcome::Committed, now, step)
                });
            }
            FlinkNote::SinkCommitRejected { records, error, .. } => {
                self.each(records, |_, e| {
                    e.settle_sink(TxnOutcome::Aborted, now, step);
                    e.error = Some(*error);
                });
            }
            _ => {}
        }
    }

    /// A producer crashes: whatever it had sent and not settled is now in doubt.
    pub fn producer_crashed(&mut self, producer: &Producer, step: u64) {
        for batch in producer.batches.values() {
            let sent = batch.attempts > 0;
            for r in &batch.records {
                if let Some(e) = self.entry(r.value) {
                    e.in_doubt_at_crash |= sent;
                    e.witness(step);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NodeId;

    /// Every step a built-in's ledger keeps as a record's evidence holds a note `witnesses`
    /// names: a record's story can always name the step by what concerned the record.
    #[test]
    fn every_evidence_step_has_a_witnessing_note() {
        let mut checked = 0;
        for name in crate::builtin::names() {
            let Ok(scenario) = crate::builtin::get(&name) else {
                panic!("{name}");
            };
            let mut sim = scenario.simulation(None);
            sim.run(crate::RunLimit::Completion);
            let trace = sim.trace();
            for e in &sim.ledger.records {
                for step in &e.evidence {
                    let Ok(at) = trace.binary_search_by_key(step, |r| r.step) else {
                        panic!("{name}: step {step} not in the trace");
                    };
                    assert!(
                        trace[at].notes.iter().any(witnesses),
                        "{name}: step {step}: {:?}",
                        trace[at]
                            .notes
                            .iter()
                            .map(|n| n.kind_name())
                            .collect::<Vec<_>>()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    const OUT: Tp = Tp {
        topic: 1,
        partition: 0,
    };

    fn accepted(record: u32) -> Note {
        Note::RecordAccepted {
            producer: NodeId::Processor(0),
            record: RecordId(record),
            key: None,
            tp: OUT,
        }
    }

    fn appended(record: u32, offset: u64, epoch: i16) -> Note {
        Note::Appended {
            broker: NodeId::Broker(0),
            tp: OUT,
            base_offset: offset,
            records: vec![RecordId(record)],
            producer_id: 1,
            epoch,
            base_sequence: 0,
            transactional: true,
        }
    }

    fn ended(record: u32, commit: bool, new_epoch: i16) -> Note {
        Note::TxnEnded {
            producer: NodeId::Processor(0),
            transactional_id: "proc-tx".to_string(),
            commit,
            records: vec![RecordId(record)],
            new_epoch,
        }
    }

    fn outcomes(ledger: &Ledger) -> Vec<Option<TxnOutcome>> {
        ledger.records[0]
            .appends
            .iter()
            .map(|a| a.txn_outcome)
            .collect()
    }

    #[test]
    fn each_copy_takes_the_outcome_of_the_transaction_it_was_sent_in() {
        let mut ledger = Ledger::new(1);
        let notes = [
            accepted(0),
            appended(0, 0, 0),
            ended(0, false, 1),
            // Handed over again, in a new transaction: not aborted, not yet decided.
            accepted(0),
            appended(0, 2, 1),
        ];
        for (step, note) in notes.iter().enumerate() {
            ledger.observe(note, step as u64, 0);
        }
        assert_eq!(outcomes(&ledger), [Some(TxnOutcome::Aborted), None]);
        assert_eq!(ledger.records[0].txn_outcome, Some(TxnOutcome::Aborted));
        ledger.observe(&ended(0, true, 2), 9, 0);
        assert_eq!(
            outcomes(&ledger),
            [Some(TxnOutcome::Aborted), Some(TxnOutcome::Committed)]
        );
    }

    #[test]
    fn a_copy_appended_after_its_transaction_ended_takes_that_outcome() {
        // A late retry of an aborted transaction's send (protocol 1 lets one land in the next
        // transaction): it is still a copy of the aborted hand-over.
        let mut ledger = Ledger::new(1);
        for (step, note) in [accepted(0), ended(0, false, 0), appended(0, 4, 0)]
            .iter()
            .enumerate()
        {
            ledger.observe(note, step as u64, 0);
        }
        assert_eq!(outcomes(&ledger), [Some(TxnOutcome::Aborted)]);
    }

    fn sink_wrote(record: u32) -> Note {
        Note::Flink(FlinkNote::SinkWrote {
            task: NodeId::Task(3),
            record: RecordId(record),
            how: "sink-0-1".into(),
            to: Some((OUT, Some(7))),
        })
    }

    #[test]
    fn a_flink_sink_write_is_a_hand_over_its_commit_a_delivery() {
        let mut ledger = Ledger::new(1);
        let committed = Note::Flink(FlinkNote::SinkCommitted {
            task: NodeId::Task(3),
            transactional_id: "sink-0-1".into(),
            checkpoint: 1,
            records: vec![RecordId(0)],
            recovered: false,
        });
        for (step, note) in [sink_wrote(0), appended(0, 4, 0), committed]
            .iter()
            .enumerate()
        {
            ledger.observe(note, step as u64, 50);
        }
        let e = &ledger.records[0];
        assert_eq!((e.sink, e.key, e.tp), (Some(3), Some(7), Some(OUT)));
        assert_eq!(e.status, DeliveryStatus::Delivered);
        assert_eq!(e.acked_offset, Some(4));
        assert_eq!(outcomes(&ledger), [Some(TxnOutcome::Committed)]);
        assert!(e.acknowledged());
        assert_eq!(e.evidence, [0, 1, 2]);
    }

    #[test]
    fn a_replayed_sink_write_is_a_new_transaction_and_a_refused_commit_a_loss() {
        // Written, its transaction aborted by a failover (nothing the ledger hears), written
        // again by the replay, and that commit refused: Flink takes it as done.
        let mut ledger = Ledger::new(1);
        let rejected = Note::Flink(FlinkNote::SinkCommitRejected {
            task: NodeId::Task(3),
            transactional_id: "sink-0-2".into(),
            checkpoint: 2,
            records: vec![RecordId(0)],
            error: KafkaError::InvalidProducerEpoch,
        });
        let notes = [
            sink_wrote(0),
            appended(0, 0, 0),
            sink_wrote(0),
            appended(0, 2, 0),
            rejected,
        ];
        for (step, note) in notes.iter().enumerate() {
            ledger.observe(note, step as u64, 0);
        }
        let e = &ledger.records[0];
        assert_eq!((e.attempts, e.hand_overs), (2, 2));
        assert_eq!(outcomes(&ledger), [None, Some(TxnOutcome::Aborted)]);
        assert_eq!(e.final_status(), DeliveryStatus::Failed);
        assert_eq!(e.acked_offset, Some(2));
        assert!(e.acknowledged(), "Flink will not write it again");
    }
}
