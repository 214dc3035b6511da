//! The two-phase-commit sink over Kafka transactions (SEMANTICS §5), speaking Kafka's own
//! protocol to the brokers: `beginTransaction` = InitProducerId for the transactional id
//! `{prefix}-{subtask}-{n}`; `invoke` = AddPartitionsToTxn + a transactional Produce;
//! `preCommit` on the barrier = flush (every produce acknowledged); `commit` on
//! `notifyCheckpointComplete` = EndTxn(commit) with the stored producer id and epoch (what
//! Flink's committer does when it resumes a transaction); on restore `recoverAndCommit` for
//! the checkpoint's committables and InitProducerId on the following ids, which aborts the
//! lingering transactions. A commit Kafka refuses (the transaction timed out and was
//! aborted) is taken as "already committed", as Flink does: that output is lost silently.

use super::graph::SinkKind;
use super::job::Job;
use super::record::FRecord;
use super::snapshot::{Committable, TaskSnapshot};
use super::FlinkTimer;
use crate::ids::{NodeId, RecordId, Tp};
use crate::kafka::errors::KafkaError;
use crate::kafka::group_coordinator::coordinator_for;
use crate::kafka::partition_log::LogRecord;
use crate::kafka::protocol::{Message, ProduceResult, ProducerBatch};
use crate::kafka::Acks;
use crate::sim::{Ctx, FlinkNote, Note, Timer};
use crate::time::ms;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, VecDeque};

const RETRY_BACKOFF_MS: u64 = 100;
/// The sink's producers' `request.timeout.ms` (Kafka's default).
const SINK_REQUEST_TIMEOUT_MS: u64 = 30_000;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SinkTxn {
    /// The `n` of its transactional id.
    pub number: u64,
    pub transactional_id: String,
    pub init_request: Option<u64>,
    pub producer: Option<(i64, i16)>,
    pub added: BTreeSet<Tp>,
    pub adding: Option<(u64, Vec<Tp>)>,
    pub buffer: VecDeque<(Tp, FRecord)>,
    #[serde(with = "crate::serde_pairs")]
    pub sequence: VecMap<Tp, i32>,
    /// request id → (partition, output record)
    pub unacked: VecMap<u64, (Tp, RecordId)>,
    pub written: Vec<RecordId>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SinkState {
    pub topic: u16,
    pub partitions: u16,
    pub prefix: String,
    pub subtask: u8,
    pub transaction_timeout_ms: u64,
    pub current: Option<SinkTxn>,
    /// Pre-committed, waiting for the checkpoint to complete.
    pub pending: Vec<Committable>,
    /// EndTxn(commit) in flight: request id → committable.
    pub committing: VecMap<u64, Committable>,
    /// Commits to send again (the coordinator was busy).
    pub retry_commits: Vec<Committable>,
    /// Aborting lingering transactions: (request id, the id's number).
    pub probing: Option<(u64, u64)>,
    pub next_number: u64,
}

impl SinkState {
    pub fn new(kind: &SinkKind, subtask: u8) -> Option<Self> {
        match kind {
            SinkKind::KafkaTwoPhase {
                topic,
                partitions,
                transaction_timeout_ms,
                prefix,
            } => Some(SinkState {
                topic: *topic,
                partitions: (*partitions).max(1),
                prefix: prefix.clone(),
                subtask,
                transaction_timeout_ms: *transaction_timeout_ms,
                next_number: 1,
                ..Default::default()
            }),
            _ => None,
        }
    }

    pub fn transactional_id(&self, n: u64) -> String {
        format!("{}-{}-{}", self.prefix, self.subtask, n)
    }
}

impl Job {
    fn take_request(&mut self) -> u64 {
        let id = self.next_request_id;
        self.next_request_id += 1;
        id
    }

    /// Where the sink sends a transactional request for the id: its `__transaction_state`
    /// partition's home broker, or where coordination moved when that broker was fenced.
    fn coordinator(&self, transactional_id: &str) -> NodeId {
        let home = coordinator_for(transactional_id, self.brokers.max(1));
        NodeId::Broker(self.coordinator_moves.get(&home).copied().unwrap_or(home))
    }

    /// InitProducerId, with a timer for `request.timeout.ms`: a request lost to a dead
    /// broker is asked again (`sink_init_timeout`).
    fn send_init(&mut self, t: usize, request_id: u64, transactional_id: String, ctx: &mut Ctx) {
        let Some(sink) = self.tasks.get(t).and_then(|x| x.sink.as_ref()) else {
            return;
        };
        let timeout = sink.transaction_timeout_ms;
        let to = self.coordinator(&transactional_id);
        ctx.send_as(
            Self::node(t),
            to,
            Message::InitProducerId {
                request_id,
                transactional_id: Some(transactional_id),
                transaction_timeout_ms: timeout,
            },
        );
        let attempt = self.attempt;
        ctx.set_timer_for(
            Self::node(t),
            ms(SINK_REQUEST_TIMEOUT_MS),
            Timer::Flink(FlinkTimer::SinkInitTimeout {
                attempt,
                request: request_id,
            }),
        );
    }

    /// The InitProducerId the sink waits on had no answer in time: it asks again, with a new
    /// request, where its client finds the coordinator now.
    pub(super) fn sink_init_timeout(&mut self, t: usize, request: u64, ctx: &mut Ctx) -> bool {
        let waiting = self
            .tasks
            .get(t)
            .and_then(|x| x.sink.as_ref())
            .and_then(|s| s.current.as_ref())
            .filter(|txn| txn.init_request == Some(request))
            .map(|txn| txn.transactional_id.clone());
        let Some(tid) = waiting else {
            return false;
        };
        let request_id = self.take_request();
        if let Some(txn) = self.tasks[t].sink.as_mut().and_then(|s| s.current.as_mut()) {
            txn.init_request = Some(request_id);
        }
        ctx.note(Note::Flink(FlinkNote::SinkInitTimedOut {
            task: Self::node(t),
            transactional_id: tid.clone(),
            waited: ms(SINK_REQUEST_TIMEOUT_MS),
            to: self.coordinator(&tid),
        }));
        self.send_init(t, request_id, tid, ctx);
        true
    }

    /// beginTransaction: a fresh transactional id for the next checkpoint's output.
    pub(super) fn sink_begin(&mut self, t: usize, number: u64, ctx: &mut Ctx) {
        let request_id = self.take_request();
        let Some(sink) = self.tasks.get_mut(t).and_then(|x| x.sink.as_mut()) else {
            return;
        };
        // Still in use at a snapshot with nothing written: left as an empty commit.
        let empty_before = sink
            .current
            .as_ref()
            .filter(|txn| txn.written.is_empty())
            .map(|txn| txn.transactional_id.clone());
        let tid = sink.transactional_id(number);
        sink.next_number = number + 1;
        sink.current = Some(SinkTxn {
            number,
            transactional_id: tid.clone(),
            init_request: Some(request_id),
            ..Default::default()
        });
        ctx.note(Note::Flink(FlinkNote::SinkTxnBegun {
            task: Self::node(t),
            transactional_id: tid.clone(),
            empty_before,
        }));
        self.send_init(t, request_id, tid, ctx);
    }

    pub(super) fn sink_invoke(&mut self, t: usize, r: FRecord, ctx: &mut Ctx) {
        let base = self.config.output_base;
        let Some(sink) = self.tasks.get_mut(t).and_then(|x| x.sink.as_mut()) else {
            return;
        };
        let partition = match r.key {
            Some(k) => (k % u32::from(sink.partitions)) as u16,
            None => (r.id.0 % u32::from(sink.partitions)) as u16,
        };
        let tp = Tp {
            topic: sink.topic,
            partition,
        };
        let Some(txn) = sink.current.as_mut() else {
            return;
        };
        txn.buffer.push_back((tp, r));
        let tid = txn.transactional_id.clone();
        ctx.note(Note::Flink(FlinkNote::SinkWrote {
            task: Self::node(t),
            record: RecordId(base.saturating_add(r.id.0)),
            how: tid,
            to: Some((tp, r.key)),
        }));
        self.sink_pump(t, ctx);
    }

    /// Sends what can be sent: AddPartitionsToTxn for new partitions, then the records.
    fn sink_pump(&mut self, t: usize, ctx: &mut Ctx) {
        let base = self.config.output_base;
        let leaders = self.leaders.clone();
        let mut next = self.next_request_id;
        let coordinator = match self.tasks.get(t).and_then(|x| x.sink.as_ref()) {
            Some(s) => match s.current.as_ref() {
                Some(txn) => self.coordinator(&txn.transactional_id),
                None => return,
            },
            None => return,
        };
        let Some(sink) = self.tasks.get_mut(t).and_then(|x| x.sink.as_mut()) else {
            return;
        };
        let Some(txn) = sink.current.as_mut() else {
            return;
        };
        let Some((pid, epoch)) = txn.producer else {
            return;
        };
        let new: Vec<Tp> = crate::order::set_of(
            txn.buffer
                .iter()
                .map(|(tp, _)| *tp)
                .filter(|tp| !txn.added.contains(tp)),
        )
        .into_iter()
        .collect();
        if !new.is_empty() && txn.adding.is_none() {
            let request_id = next;
            next += 1;
            txn.adding = Some((request_id, new.clone()));
            ctx.send_as(
                Self::node(t),
                coordinator,
                Message::AddPartitionsToTxn {
                    request_id,
                    transactional_id: txn.transactional_id.clone(),
                    producer_id: pid,
                    epoch,
                    partitions: new,
                    verify_only: false,
                },
            );
        }
        let mut keep = VecDeque::new();
        while let Some((tp, r)) = txn.buffer.pop_front() {
            if !txn.added.contains(&tp) {
                keep.push_back((tp, r));
                continue;
            }
            let seq = txn.sequence.entry(tp).or_insert(0);
            let request_id = next;
            next += 1;
            let value = RecordId(base.saturating_add(r.id.0));
            ctx.send_as(
                Self::node(t),
                NodeId::Broker(leaders.get(&tp).copied().unwrap_or(0)),
                Message::Produce {
                    request_id,
                    tp,
                    acks: Acks::All,
                    batch: ProducerBatch {
                        producer_id: pid,
                        epoch,
                        base_sequence: *seq,
                        records: vec![LogRecord { key: r.key, value }],
                        transactional: true,
                        corrupt: false,
                    },
                    transactional_id: Some(txn.transactional_id.clone()),
                    // Flink's sink adds its partitions itself (AddPartitionsToTxn), as a
                    // client of transaction protocol 1 does: the leader only verifies.
                    leader_adds: false,
                },
            );
            *seq += 1;
            txn.unacked.insert(request_id, (tp, value));
        }
        txn.buffer = keep;
        self.next_request_id = next;
    }

    /// The sink waits for its transaction's InitProducerId answer.
    pub(super) fn sink_initializing(&self, t: usize) -> bool {
        self.tasks
            .get(t)
            .and_then(|x| x.sink.as_ref())
            .and_then(|s| s.current.as_ref())
            .is_some_and(|txn| txn.init_request.is_some())
    }

    /// Every write of the open transaction is acknowledged (or there is none).
    fn flushed(&self, t: usize) -> bool {
        self.tasks[t]
            .sink
            .as_ref()
            .and_then(|s| s.current.as_ref())
            .is_none_or(|txn| {
                txn.buffer.is_empty() && txn.unacked.is_empty() && txn.adding.is_none()
            })
    }

    /// preCommit waits for every write of the transaction to be acknowledged: at an aligned
    /// snapshot, or at an unaligned checkpoint's first barrier (`sealing`), as Flink's
    /// `prepareSnapshotPreBarrier` does before the barrier goes on. An unaligned snapshot
    /// then waits for its last barrier in the alignment, and is uploaded with the
    /// committables when it comes, with no second flush: the records taken meanwhile are in
    /// the next transaction (and in the checkpoint's channel state).
    pub(super) fn continue_flush(&mut self, t: usize, ctx: &mut Ctx) -> bool {
        let task = &self.tasks[t];
        let to_seal = task.sealing.or(task
            .flushing
            .as_ref()
            .filter(|s| !s.unaligned && !task.sealed)
            .map(|s| s.checkpoint));
        if to_seal.is_some() && !self.flushed(t) {
            return false;
        }
        self.tasks[t].sealing = None;
        if let Some(id) = to_seal {
            self.seal(t, id, ctx);
            self.tasks[t].sealed = true;
        }
        // Flink's snapshotState gets the next checkpoint's transactional producer
        // (`getTransactionalProducer(checkpointId + 1)`: initTransactions, in the task
        // thread): the snapshot is done, and acknowledged, once the coordinator answers.
        if self.sink_initializing(t) {
            return to_seal.is_some();
        }
        self.tasks[t].sealed = false;
        match self.tasks[t].flushing.take() {
            Some(mut snap) => {
                self.fill_pending(t, &mut snap);
                if snap.unaligned {
                    self.upload(t, snap, ctx);
                } else {
                    self.complete_snapshot(t, snap, ctx);
                }
            }
            None if to_seal.is_none() => return false,
            None => {}
        }
        self.wake(t, 0, ctx);
        true
    }

    /// The open transaction becomes checkpoint `id`'s committable, and the sink moves to the
    /// next checkpoint's transactional id.
    fn seal(&mut self, t: usize, id: u64, ctx: &mut Ctx) {
        let Some(sink) = self.tasks.get_mut(t).and_then(|x| x.sink.as_mut()) else {
            return;
        };
        // Every snapshot moves the sink to the next checkpoint's transactional id, as Flink's
        // `ExactlyOnceKafkaWriter` does (`getTransactionalProducer(checkpointId + 1)`), an
        // empty transaction too: that one is committed as is, a no-op that sends Kafka
        // nothing (no partition was added). So the id in use is always the last snapshot's
        // checkpoint + 1, which is where a restore begins and probes for lingering
        // transactions: records written after an idle checkpoint under an older id would be
        // out of its reach, and their open transaction would hold the last stable offset.
        let begin_next = sink.current.is_some();
        if let Some(txn) = sink.current.as_ref() {
            if let (false, Some((pid, epoch))) = (txn.written.is_empty(), txn.producer) {
                let c = Committable {
                    checkpoint: id,
                    transactional_id: txn.transactional_id.clone(),
                    producer_id: pid,
                    epoch,
                    partitions: txn.added.iter().copied().collect(),
                    records: txn.written.clone(),
                    recovered: false,
                };
                ctx.note(Note::Flink(FlinkNote::SinkPreCommitted {
                    task: Self::node(t),
                    transactional_id: c.transactional_id.clone(),
                    checkpoint: id,
                    records: c.records.len() as u32,
                }));
                sink.pending.push(c);
            }
        }
        if begin_next {
            let n = sink.next_number.max(id + 1);
            self.sink_begin(t, n, ctx);
        }
    }

    /// The sink's part of its snapshot: every transaction not known committed.
    fn fill_pending(&mut self, t: usize, snap: &mut TaskSnapshot) {
        let Some(sink) = self.tasks.get(t).and_then(|x| x.sink.as_ref()) else {
            return;
        };
        snap.pending = sink.pending.clone();
        snap.pending.extend(sink.committing.values().cloned());
        snap.pending.extend(sink.retry_commits.iter().cloned());
        crate::order::sort_by_key(&mut snap.pending, |c| c.checkpoint);
    }

    /// notifyCheckpointComplete(n): commit every pending transaction up to n.
    pub(super) fn sink_notify(&mut self, t: usize, id: u64, ctx: &mut Ctx) -> bool {
        let expired: Vec<u64> = self
            .coordinator
            .history
            .iter()
            .filter(|c| c.outcome == super::snapshot::CheckpointOutcome::Expired)
            .map(|c| c.id)
            .collect();
        let Some(sink) = self.tasks.get_mut(t).and_then(|x| x.sink.as_mut()) else {
            return false;
        };
        let (due, keep): (Vec<Committable>, Vec<Committable>) =
            sink.pending.drain(..).partition(|c| c.checkpoint <= id);
        sink.pending = keep;
        let earlier: Vec<(String, u64, bool)> = due
            .iter()
            .filter(|c| c.checkpoint < id)
            .map(|c| {
                let gone = expired.contains(&c.checkpoint);
                (c.transactional_id.clone(), c.checkpoint, gone)
            })
            .collect();
        if !earlier.is_empty() {
            ctx.note(Note::Flink(FlinkNote::SinkCommitsEarlier {
                task: Self::node(t),
                notified: id,
                earlier,
            }));
        }
        let mut again: Vec<Committable> = sink.retry_commits.drain(..).collect();
        // A commit whose answer never came is sent again (commits are idempotent).
        again.extend(std::mem::take(&mut sink.committing).into_values());
        let mut all = due;
        all.extend(again);
        crate::order::sort_by_key(&mut all, |c| c.checkpoint);
        let acted = !all.is_empty();
        for c in all {
            self.send_commit(t, c, ctx);
        }
        acted
    }

    /// EndTxn from sink task `t` to the id's coordinator; its request id.
    fn send_end_txn(
        &mut self,
        t: usize,
        transactional_id: String,
        (producer_id, epoch): (i64, i16),
        commit: bool,
        ctx: &mut Ctx,
    ) -> u64 {
        let request_id = self.take_request();
        let to = self.coordinator(&transactional_id);
        ctx.send_as(
            Self::node(t),
            to,
            Message::EndTxn {
                request_id,
                transactional_id,
                producer_id,
                epoch,
                commit,
            },
        );
        request_id
    }

    pub(super) fn send_commit(&mut self, t: usize, c: Committable, ctx: &mut Ctx) {
        let request_id = self.send_end_txn(
            t,
            c.transactional_id.clone(),
            (c.producer_id, c.epoch),
            true,
            ctx,
        );
        if let Some(sink) = self.tasks.get_mut(t).and_then(|x| x.sink.as_mut()) {
            sink.committing.insert(request_id, c);
        }
    }

    /// Aborts lingering transactions after a restore: InitProducerId on the ids after the
    /// one in use, until an id that was never used (epoch 0) answers.
    pub(super) fn sink_probe(&mut self, t: usize, number: u64, ctx: &mut Ctx) {
        let request_id = self.take_request();
        let Some(sink) = self.tasks.get_mut(t).and_then(|x| x.sink.as_mut()) else {
            return;
        };
        let tid = sink.transactional_id(number);
        sink.probing = Some((request_id, number));
        let timeout = sink.transaction_timeout_ms;
        let to = self.coordinator(&tid);
        ctx.send_as(
            Self::node(t),
            to,
            Message::InitProducerId {
                request_id,
                transactional_id: Some(tid),
                transaction_timeout_ms: timeout,
            },
        );
    }

    /// The task is cancelled at a failover: its writer closes, aborting the transaction it
    /// has open if one reached Kafka (partitions added). Flink's KafkaWriter `close()` does
    /// this on cancel too (`abortCurrentProducer`); an empty one is dropped without a word.
    pub(super) fn close_writer(&mut self, t: usize, ctx: &mut Ctx) -> bool {
        let Some(txn) = self
            .tasks
            .get_mut(t)
            .and_then(|x| x.sink.as_mut())
            .and_then(|s| s.current.take())
        else {
            return false;
        };
        let Some(producer) = txn.producer.filter(|_| !txn.added.is_empty()) else {
            return false;
        };
        ctx.note(Note::Flink(FlinkNote::WriterClosedAborting {
            task: Self::node(t),
            transactional_id: txn.transactional_id.clone(),
        }));
        self.send_end_txn(t, txn.transactional_id, producer, false, ctx);
        true
    }

    /// A Kafka answer for a sink task.
    pub(super) fn sink_message(&mut self, t: usize, msg: &Message, ctx: &mut Ctx) -> bool {
        let node = Self::node(t);
        let attempt = self.attempt;
        let Some(sink) = self.tasks.get_mut(t).and_then(|x| x.sink.as_mut()) else {
            return false;
        };
        match msg {
            Message::InitProducerIdResponse {
                request_id,
                producer_id,
                epoch,
                error,
            } => {
                if let Some((r, n)) = sink.probing {
                    if r == *request_id {
                        sink.probing = None;
                        let tid = sink.transactional_id(n);
                        match error {
                            Some(KafkaError::ConcurrentTransactions) => {
                                sink.probing = Some((u64::MAX, n));
                                retry_later(ctx, t, attempt);
                            }
                            None if *epoch > 0 => {
                                ctx.note(Note::Flink(FlinkNote::LingeringAborted {
                                    task: node,
                                    transactional_id: tid,
                                }));
                                self.sink_probe(t, n + 1, ctx);
                            }
                            None => ctx.note(Note::Flink(FlinkNote::LingeringProbeEnded {
                                task: node,
                                transactional_id: tid,
                            })),
                            _ => {}
                        }
                        return true;
                    }
                }
                let Some(txn) = sink.current.as_mut() else {
                    return false;
                };
                if txn.init_request != Some(*request_id) {
                    return false;
                }
                match error {
                    None => {
                        txn.init_request = None;
                        txn.producer = Some((*producer_id, *epoch));
                        self.sink_pump(t, ctx);
                        self.continue_flush(t, ctx);
                        // No longer blocked in initTransactions: on to its inputs.
                        self.wake(t, 0, ctx);
                    }
                    Some(KafkaError::ConcurrentTransactions) => {
                        // The coordinator is aborting the previous holder of this id first.
                        txn.init_request = Some(u64::MAX);
                        retry_later(ctx, t, attempt);
                    }
                    Some(e) => {
                        let e = *e;
                        self.fail(
                            format!("the sink's InitProducerId failed: {}", e.name()),
                            ctx,
                        );
                    }
                }
                true
            }
            Message::TxnResponse {
                request_id, error, ..
            } => {
                if let Some(c) = sink.committing.remove(request_id) {
                    match error {
                        None => {
                            ctx.note(Note::Flink(FlinkNote::SinkCommitted {
                                task: node,
                                transactional_id: c.transactional_id.clone(),
                                checkpoint: c.checkpoint,
                                records: c.records.clone(),
                                recovered: c.recovered,
                            }));
                        }
                        Some(KafkaError::ConcurrentTransactions) => {
                            sink.retry_commits.push(c);
                            retry_later(ctx, t, attempt);
                        }
                        Some(e) => {
                            ctx.note(Note::Flink(FlinkNote::SinkCommitRejected {
                                task: node,
                                transactional_id: c.transactional_id.clone(),
                                checkpoint: c.checkpoint,
                                records: c.records.clone(),
                                error: *e,
                            }));
                        }
                    }
                    return true;
                }
                let Some(txn) = sink.current.as_mut() else {
                    return false;
                };
                match &txn.adding {
                    Some((r, parts)) if r == request_id => {
                        let parts = parts.clone();
                        match error {
                            None => {
                                txn.adding = None;
                                txn.added.extend(parts);
                                self.sink_pump(t, ctx);
                                self.continue_flush(t, ctx);
                            }
                            Some(KafkaError::ConcurrentTransactions) => {
                                txn.adding = None;
                                retry_later(ctx, t, attempt);
                            }
                            Some(e) => {
                                let e = *e;
                                self.fail(
                                    format!("the sink's AddPartitionsToTxn failed: {}", e.name()),
                                    ctx,
                                );
                            }
                        }
                        true
                    }
                    _ => false,
                }
            }
            Message::ProduceResponse {
                request_id, result, ..
            } => {
                let Some(txn) = sink.current.as_mut() else {
                    return false;
                };
                let Some((_, value)) = txn.unacked.remove(request_id) else {
                    return false;
                };
                match result {
                    ProduceResult::Appended { .. } | ProduceResult::Duplicate { .. } => {
                        txn.written.push(value);
                        self.continue_flush(t, ctx);
                    }
                    ProduceResult::Error { error, .. } => {
                        let e = *error;
                        self.fail(format!("the sink's write failed: {}", e.name()), ctx);
                    }
                }
                true
            }
            _ => false,
        }
    }

    /// The coordinator was busy: ask again.
    pub(super) fn sink_retry(&mut self, t: usize, ctx: &mut Ctx) -> bool {
        let Some(sink) = self.tasks.get_mut(t).and_then(|x| x.sink.as_mut()) else {
            return false;
        };
        let mut acted = false;
        if let Some((u64::MAX, n)) = sink.probing {
            self.sink_probe(t, n, ctx);
            acted = true;
        }
        let Some(sink) = self.tasks.get_mut(t).and_then(|x| x.sink.as_mut()) else {
            return acted;
        };
        let retry: Vec<Committable> = sink.retry_commits.drain(..).collect();
        let reinit = sink
            .current
            .as_ref()
            .is_some_and(|txn| txn.init_request == Some(u64::MAX));
        for c in retry {
            self.send_commit(t, c, ctx);
            acted = true;
        }
        if reinit {
            let request_id = self.take_request();
            if let Some(sink) = self.tasks.get_mut(t).and_then(|x| x.sink.as_mut()) {
                let timeout = sink.transaction_timeout_ms;
                if let Some(txn) = sink.current.as_mut() {
                    txn.init_request = Some(request_id);
                    let tid = txn.transactional_id.clone();
                    let to = self.coordinator(&tid);
                    ctx.send_as(
                        Self::node(t),
                        to,
                        Message::InitProducerId {
                            request_id,
                            transactional_id: Some(tid),
                            transaction_timeout_ms: timeout,
                        },
                    );
                }
            }
            acted = true;
        }
        self.sink_pump(t, ctx);
        acted
    }
}

/// The coordinator was busy: ask again after a short backoff.
fn retry_later(ctx: &mut Ctx, t: usize, attempt: u32) {
    ctx.set_timer_for(
        Job::node(t),
        ms(RETRY_BACKOFF_MS),
        Timer::Flink(FlinkTimer::SinkRetry { attempt }),
    );
}
