//! A partition's transaction bookkeeping on the broker, and what a consumer does with it.
//!
//! Broker side (Kafka `ProducerStateManager`'s `ongoingTxns` / `unreplicatedTxns`, the
//! `TransactionIndex` of `AbortedTxn`s, `ProducerAppendInfo.appendEndTxnMarker`): which
//! transactions are open, the last stable offset (LSO), and the aborted ranges a fetch returns.
//! Consumer side (Kafka `CompletedFetch`): the read_committed filter that drops records of
//! aborted transactions and every control record.
//!
//! Offsets are the partition log's offsets; a transaction marker occupies one offset of its
//! own. Nothing here reads the log: the broker calls `begin_if_needed` for every transactional
//! data append and `complete` for every marker it appends, in log order.

use super::errors::KafkaError;
use super::partition_log::FetchedRecord;
use super::txn_state::TxnProtocolVersion;
use super::Isolation;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;

/// Most undecided-or-unreplicated transactions one partition tracks at once (one per producer
/// id while open; a decided one until the high watermark passes its marker).
pub const MAX_UNSTABLE_TXNS_PER_PARTITION: u32 = 10_000;
/// Most entries in one partition's aborted-transaction index.
pub const MAX_ABORTED_TXNS_PER_PARTITION: u32 = 100_000;

/// The type of a control record (Kafka `ControlRecordType` of an `EndTransactionMarker`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ControlType {
    Abort,
    Commit,
}

impl ControlType {
    pub fn from_commit(commit: bool) -> Self {
        if commit {
            ControlType::Commit
        } else {
            ControlType::Abort
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ControlType::Abort => "ABORT",
            ControlType::Commit => "COMMIT",
        }
    }
}

impl fmt::Display for ControlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One entry of the aborted-transaction index (Kafka `AbortedTxn`). `last_offset` is the
/// offset of the ABORT marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AbortedTxn {
    pub producer_id: i64,
    pub first_offset: u64,
    pub last_offset: u64,
    /// The LSO when the abort was recorded: the first offset of the earliest transaction of
    /// another producer still open, or the marker offset + 1.
    pub last_stable_offset: u64,
}

/// A transaction closed by a marker on this partition (Kafka `CompletedTxn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CompletedTxn {
    pub producer_id: i64,
    pub first_offset: u64,
    /// The marker's offset.
    pub last_offset: u64,
    pub control: ControlType,
}

/// A decided transaction whose marker is not yet below the high watermark: it still holds the
/// LSO back, since a reader below the HW could not see the marker yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct UnreplicatedTxn {
    pub producer_id: i64,
    pub first_offset: u64,
    pub marker_offset: u64,
}

/// Who appends a marker, which decides how strictly its epoch is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MarkerOrigin {
    /// A leader appending a WriteTxnMarkers request. Under V2 the marker carries the epoch
    /// bumped at EndTxn and must be above the partition's epoch; under V1 it may be equal.
    Coordinator(TxnProtocolVersion),
    /// A follower copying the leader's log: the leader already checked, nothing is refused.
    Replication,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TxnIndexError {
    /// Kafka's transactional state needs a producer id.
    NoProducerId {
        offset: u64,
    },
    /// A data batch or marker from an epoch older than the one this partition has seen
    /// (`INVALID_PRODUCER_EPOCH`): a zombie, or a late request from before an epoch bump.
    FencedEpoch {
        producer_id: i64,
        epoch: i16,
        current_epoch: i16,
    },
    /// A marker at or below the first offset of the transaction it closes.
    MarkerBeforeTransaction {
        producer_id: i64,
        first_offset: u64,
        marker_offset: u64,
    },
    /// The aborted index is ordered by marker offset; a marker may not go back.
    MarkerOffsetNotIncreasing {
        previous_marker_offset: u64,
        marker_offset: u64,
    },
    TooManyUnstableTxns {
        max: u32,
    },
    TooManyAbortedTxns {
        max: u32,
    },
}

impl TxnIndexError {
    /// The error a producer or the coordinator is answered with, where Kafka has one.
    pub fn kafka_error(&self) -> Option<KafkaError> {
        match self {
            TxnIndexError::FencedEpoch { .. } => Some(KafkaError::InvalidProducerEpoch),
            _ => None,
        }
    }
}

impl fmt::Display for TxnIndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TxnIndexError::NoProducerId { offset } => {
                write!(
                    f,
                    "transactional append at offset {offset} without a producer id"
                )
            }
            TxnIndexError::FencedEpoch {
                producer_id,
                epoch,
                current_epoch,
            } => write!(
                f,
                "producer {producer_id} epoch {epoch} is older than the partition's epoch \
                 {current_epoch} (INVALID_PRODUCER_EPOCH)"
            ),
            TxnIndexError::MarkerBeforeTransaction {
                producer_id,
                first_offset,
                marker_offset,
            } => write!(
                f,
                "marker of producer {producer_id} at offset {marker_offset} is not after its \
                 transaction's first offset {first_offset}"
            ),
            TxnIndexError::MarkerOffsetNotIncreasing {
                previous_marker_offset,
                marker_offset,
            } => write!(
                f,
                "ABORT marker at offset {marker_offset} is not after the previous one at \
                 {previous_marker_offset}"
            ),
            TxnIndexError::TooManyUnstableTxns { max } => {
                write!(
                    f,
                    "more than {max} open or unreplicated transactions on a partition"
                )
            }
            TxnIndexError::TooManyAbortedTxns { max } => {
                write!(
                    f,
                    "more than {max} aborted transactions indexed on a partition"
                )
            }
        }
    }
}

impl std::error::Error for TxnIndexError {}

/// One partition replica's transaction state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TxnIndex {
    /// Open transactions: producer id → first offset.
    ongoing: VecMap<i64, u64>,
    /// Decided transactions whose marker may still be at or above the HW, by first offset.
    unreplicated: VecMap<u64, UnreplicatedTxn>,
    /// Aborted transactions in marker order.
    aborted: Vec<AbortedTxn>,
    /// The latest epoch the partition has seen per producer, from data and from markers. A
    /// V2 marker raises it, which is what fences a late Produce of the finished transaction.
    epochs: VecMap<i64, i16>,
}

impl TxnIndex {
    /// Open transactions: producer id → first offset.
    pub fn ongoing(&self) -> &VecMap<i64, u64> {
        &self.ongoing
    }

    pub fn ongoing_first_offset(&self, producer_id: i64) -> Option<u64> {
        self.ongoing.get(&producer_id).copied()
    }

    pub fn unreplicated(&self) -> impl Iterator<Item = &UnreplicatedTxn> + '_ {
        self.unreplicated.values()
    }

    /// The aborted-transaction index, in marker order.
    pub fn aborted(&self) -> &[AbortedTxn] {
        &self.aborted
    }

    /// The latest epoch this partition has seen from `producer_id` (data or marker).
    pub fn producer_epoch(&self, producer_id: i64) -> Option<i16> {
        self.epochs.get(&producer_id).copied()
    }

    /// Kafka's data-batch epoch check: an epoch older than the partition's is a zombie
    /// (`INVALID_PRODUCER_EPOCH`). Call it before appending any batch of a producer that has
    /// written transactionally here; `producer_state::check_append` does not see markers.
    pub fn check_data_epoch(&self, producer_id: i64, epoch: i16) -> Result<(), TxnIndexError> {
        match self.producer_epoch(producer_id) {
            Some(current_epoch) if epoch < current_epoch => Err(TxnIndexError::FencedEpoch {
                producer_id,
                epoch,
                current_epoch,
            }),
            _ => Ok(()),
        }
    }

    /// Records a transactional data batch about to be appended at `offset`. Opens the
    /// producer's transaction on this partition if none is open; returns whether it did.
    /// Nothing changes on an error.
    pub fn begin_if_needed(
        &mut self,
        producer_id: i64,
        epoch: i16,
        offset: u64,
    ) -> Result<bool, TxnIndexError> {
        if producer_id < 0 {
            return Err(TxnIndexError::NoProducerId { offset });
        }
        self.check_data_epoch(producer_id, epoch)?;
        let started = if self.ongoing.contains_key(&producer_id) {
            false
        } else {
            if self.unstable_count() >= u64::from(MAX_UNSTABLE_TXNS_PER_PARTITION) {
                return Err(TxnIndexError::TooManyUnstableTxns {
                    max: MAX_UNSTABLE_TXNS_PER_PARTITION,
                });
            }
            self.ongoing.insert(producer_id, offset);
            true
        };
        self.raise_epoch(producer_id, epoch);
        Ok(started)
    }

    /// Records a COMMIT or ABORT marker appended at `marker_offset`. Closes the producer's
    /// open transaction, if any, and indexes it when aborted. A marker with no open
    /// transaction here (the transaction wrote nothing to this partition, or a resent marker)
    /// completes nothing but still raises the epoch. Nothing changes on an error.
    pub fn complete(
        &mut self,
        producer_id: i64,
        marker_epoch: i16,
        control: ControlType,
        marker_offset: u64,
        origin: MarkerOrigin,
    ) -> Result<Option<CompletedTxn>, TxnIndexError> {
        if producer_id < 0 {
            return Err(TxnIndexError::NoProducerId {
                offset: marker_offset,
            });
        }
        let open = self.ongoing_first_offset(producer_id);
        self.check_marker_epoch(producer_id, marker_epoch, open.is_some(), origin)?;
        let Some(first_offset) = open else {
            self.raise_epoch(producer_id, marker_epoch);
            return Ok(None);
        };
        if marker_offset <= first_offset {
            return Err(TxnIndexError::MarkerBeforeTransaction {
                producer_id,
                first_offset,
                marker_offset,
            });
        }
        if control == ControlType::Abort {
            if self.aborted.len() as u64 >= u64::from(MAX_ABORTED_TXNS_PER_PARTITION) {
                return Err(TxnIndexError::TooManyAbortedTxns {
                    max: MAX_ABORTED_TXNS_PER_PARTITION,
                });
            }
            if let Some(previous) = self.aborted.last() {
                if previous.last_offset >= marker_offset {
                    return Err(TxnIndexError::MarkerOffsetNotIncreasing {
                        previous_marker_offset: previous.last_offset,
                        marker_offset,
                    });
                }
            }
        }
        // Kafka's `lastStableOffset(completedTxn)`: the next undecided transaction of another
        // producer, else just past the marker.
        let last_stable_offset = self
            .ongoing
            .iter()
            .filter(|(pid, _)| **pid != producer_id)
            .map(|(_, first)| *first)
            .min()
            .unwrap_or(marker_offset.saturating_add(1));
        self.ongoing.remove(&producer_id);
        self.unreplicated.insert(
            first_offset,
            UnreplicatedTxn {
                producer_id,
                first_offset,
                marker_offset,
            },
        );
        if control == ControlType::Abort {
            self.aborted.push(AbortedTxn {
                producer_id,
                first_offset,
                last_offset: marker_offset,
                last_stable_offset,
            });
        }
        self.raise_epoch(producer_id, marker_epoch);
        Ok(Some(CompletedTxn {
            producer_id,
            first_offset,
            last_offset: marker_offset,
            control,
        }))
    }

    /// Kafka `ProducerAppendInfo.checkProducerEpoch` for markers. V2: the marker's epoch must
    /// be above the partition's (EndTxn bumped it), except that a resent marker with the same
    /// epoch after the transaction is closed is accepted as a duplicate (KAFKA-19999). V1:
    /// equal is fine, only older is refused.
    fn check_marker_epoch(
        &self,
        producer_id: i64,
        marker_epoch: i16,
        transaction_open: bool,
        origin: MarkerOrigin,
    ) -> Result<(), TxnIndexError> {
        let Some(current_epoch) = self.producer_epoch(producer_id) else {
            return Ok(());
        };
        let fenced = match origin {
            MarkerOrigin::Replication => false,
            MarkerOrigin::Coordinator(TxnProtocolVersion::V1) => marker_epoch < current_epoch,
            MarkerOrigin::Coordinator(TxnProtocolVersion::V2) => {
                let duplicate = marker_epoch == current_epoch && !transaction_open;
                marker_epoch <= current_epoch && !duplicate
            }
        };
        if fenced {
            Err(TxnIndexError::FencedEpoch {
                producer_id,
                epoch: marker_epoch,
                current_epoch,
            })
        } else {
            Ok(())
        }
    }

    fn raise_epoch(&mut self, producer_id: i64, epoch: i16) {
        let entry = self.epochs.entry(producer_id).or_insert(epoch);
        *entry = (*entry).max(epoch);
    }

    fn unstable_count(&self) -> u64 {
        self.ongoing.len() as u64 + self.unreplicated.len() as u64
    }

    /// Forgets decided transactions whose marker is now below the high watermark (Kafka
    /// `onHighWatermarkUpdated`). `last_stable_offset` is right without it; this bounds memory.
    pub fn on_high_watermark(&mut self, high_watermark: u64) {
        self.unreplicated
            .retain(|_, txn| txn.marker_offset >= high_watermark);
    }

    /// The first offset that is not yet stable: the earliest transaction that is open, or
    /// decided with its marker at or above the high watermark.
    pub fn first_unstable_offset(&self, high_watermark: u64) -> Option<u64> {
        let open = self.ongoing.values().copied().min();
        let unreplicated = self
            .unreplicated
            .values()
            .filter(|txn| txn.marker_offset >= high_watermark)
            .map(|txn| txn.first_offset)
            .min();
        match (open, unreplicated) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// LSO = min(HW, first unstable offset). read_committed fetches stop here; it is never
    /// above the HW.
    pub fn last_stable_offset(&self, high_watermark: u64) -> u64 {
        self.first_unstable_offset(high_watermark)
            .map_or(high_watermark, |first| first.min(high_watermark))
    }

    /// Where a fetch with this isolation level stops (exclusive).
    pub fn fetch_upper_bound(&self, isolation: Isolation, high_watermark: u64) -> u64 {
        match isolation {
            Isolation::ReadUncommitted => high_watermark,
            Isolation::ReadCommitted => self.last_stable_offset(high_watermark),
        }
    }

    /// The aborted transactions a read_committed fetch of `[from, until)` returns with its
    /// records: those that overlap the range (Kafka `collectAbortedTxns`: last offset ≥ from
    /// and first offset < until).
    pub fn aborted_in_range(&self, from: u64, until: u64) -> Vec<AbortedTxn> {
        self.aborted
            .iter()
            .filter(|txn| txn.last_offset >= from && txn.first_offset < until)
            .copied()
            .collect()
    }
}

/// A control record as a reader sees it: a transaction marker. It occupies an offset and is
/// never given to the application.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ControlRecord {
    pub offset: u64,
    pub producer_id: i64,
    pub epoch: i16,
    pub control: ControlType,
}

/// One offset of a fetch response, in log order: a data record (with the batch's
/// transactional flag) or a control record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FetchedEntry {
    Data {
        record: FetchedRecord,
        transactional: bool,
    },
    Control(ControlRecord),
}

impl FetchedEntry {
    pub fn offset(&self) -> u64 {
        match self {
            FetchedEntry::Data { record, .. } => record.offset,
            FetchedEntry::Control(control) => control.offset,
        }
    }
}

/// What a read_committed consumer delivers from a fetch (Kafka `CompletedFetch`): walking the
/// entries in order, every aborted transaction whose first offset has been reached marks its
/// producer as aborted; that producer's transactional records are skipped until its ABORT
/// marker clears it. Non-transactional records are always delivered, control records never.
/// `entries` must be in log order, `aborted` is what the fetch returned.
pub fn read_committed_filter(
    entries: &[FetchedEntry],
    aborted: &[AbortedTxn],
) -> Vec<FetchedRecord> {
    let mut queue: Vec<AbortedTxn> = aborted.to_vec();
    crate::order::sort_by_key(&mut queue, |txn| txn.first_offset);
    let mut next_aborted = 0;
    let mut aborted_producers: BTreeSet<i64> = BTreeSet::new();
    let mut delivered = Vec::new();
    for entry in entries {
        let (producer_id, offset) = match entry {
            FetchedEntry::Data { record, .. } => (record.producer_id, record.offset),
            FetchedEntry::Control(control) => (control.producer_id, control.offset),
        };
        if producer_id >= 0 {
            while let Some(txn) = queue.get(next_aborted) {
                if txn.first_offset > offset {
                    break;
                }
                aborted_producers.insert(txn.producer_id);
                next_aborted += 1;
            }
        }
        match entry {
            FetchedEntry::Control(control) => {
                if control.control == ControlType::Abort {
                    aborted_producers.remove(&control.producer_id);
                }
            }
            FetchedEntry::Data {
                record,
                transactional,
            } => {
                if !(*transactional && aborted_producers.contains(&record.producer_id)) {
                    delivered.push(*record);
                }
            }
        }
    }
    delivered
}

/// What a read_uncommitted consumer delivers: every data record, aborted ones included; never
/// a control record.
pub fn read_uncommitted_filter(entries: &[FetchedEntry]) -> Vec<FetchedRecord> {
    entries
        .iter()
        .filter_map(|entry| match entry {
            FetchedEntry::Data { record, .. } => Some(*record),
            FetchedEntry::Control(_) => None,
        })
        .collect()
}

/// What the application receives for a fetch at this isolation level.
pub fn deliverable(
    isolation: Isolation,
    entries: &[FetchedEntry],
    aborted: &[AbortedTxn],
) -> Vec<FetchedRecord> {
    match isolation {
        Isolation::ReadUncommitted => read_uncommitted_filter(entries),
        Isolation::ReadCommitted => read_committed_filter(entries, aborted),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::RecordId;

    const V1: MarkerOrigin = MarkerOrigin::Coordinator(TxnProtocolVersion::V1);
    const V2: MarkerOrigin = MarkerOrigin::Coordinator(TxnProtocolVersion::V2);

    /// A partition as the broker would build it: entries in offset order plus the index.
    #[derive(Default)]
    struct Partition {
        entries: Vec<FetchedEntry>,
        index: TxnIndex,
    }

    impl Partition {
        fn next_offset(&self) -> u64 {
            self.entries.len() as u64
        }

        fn data(&mut self, pid: i64, epoch: i16, value: u32, transactional: bool) -> u64 {
            let offset = self.next_offset();
            if transactional {
                assert!(self.index.begin_if_needed(pid, epoch, offset).is_ok());
            }
            self.entries.push(FetchedEntry::Data {
                record: FetchedRecord {
                    offset,
                    key: None,
                    value: RecordId(value),
                    producer_id: pid,
                    epoch,
                    sequence: 0,
                },
                transactional,
            });
            offset
        }

        fn marker(&mut self, pid: i64, epoch: i16, control: ControlType) -> Option<CompletedTxn> {
            let offset = self.next_offset();
            let done = self.index.complete(pid, epoch, control, offset, V2);
            assert!(done.is_ok(), "{done:?}");
            self.entries.push(FetchedEntry::Control(ControlRecord {
                offset,
                producer_id: pid,
                epoch,
                control,
            }));
            done.ok().flatten()
        }

        fn read(&self, isolation: Isolation, from: u64, high_watermark: u64) -> Vec<u32> {
            let until = self.index.fetch_upper_bound(isolation, high_watermark);
            let entries: Vec<FetchedEntry> = self
                .entries
                .iter()
                .filter(|e| e.offset() >= from && e.offset() < until)
                .copied()
                .collect();
            let aborted = self.index.aborted_in_range(from, until);
            deliverable(isolation, &entries, &aborted)
                .iter()
                .map(|r| r.value.0)
                .collect()
        }
    }

    #[test]
    fn an_open_transaction_pins_the_lso_and_its_marker_releases_it() {
        let mut p = Partition::default();
        p.data(-1, -1, 0, false);
        let first = p.data(7, 0, 1, true);
        p.data(-1, -1, 2, false);
        let hw = p.next_offset();
        assert_eq!(p.index.last_stable_offset(hw), first);
        assert_eq!(p.read(Isolation::ReadCommitted, 0, hw), vec![0]);
        assert_eq!(p.read(Isolation::ReadUncommitted, 0, hw), vec![0, 1, 2]);

        let done = p.marker(7, 1, ControlType::Commit);
        assert_eq!(
            done,
            Some(CompletedTxn {
                producer_id: 7,
                first_offset: first,
                last_offset: 3,
                control: ControlType::Commit
            })
        );
        // The marker is appended but not yet below the HW: still unstable.
        assert_eq!(p.index.last_stable_offset(3), first);
        let hw = p.next_offset();
        assert_eq!(p.index.last_stable_offset(hw), hw);
        assert_eq!(p.read(Isolation::ReadCommitted, 0, hw), vec![0, 1, 2]);
        p.index.on_high_watermark(hw);
        assert_eq!(p.index.unreplicated().count(), 0);
        assert_eq!(p.index.last_stable_offset(hw), hw);
    }

    #[test]
    fn the_earliest_open_transaction_pins_the_lso_and_lso_never_exceeds_hw() {
        let mut p = Partition::default();
        let first_a = p.data(1, 0, 0, true);
        let first_b = p.data(2, 0, 1, true);
        p.data(1, 0, 2, true);
        assert_eq!(p.index.last_stable_offset(3), first_a);
        p.marker(1, 1, ControlType::Commit);
        assert_eq!(p.index.last_stable_offset(p.next_offset()), first_b);
        p.marker(2, 1, ControlType::Abort);
        let end = p.next_offset();
        for hw in 0..=end {
            assert!(p.index.last_stable_offset(hw) <= hw);
        }
        assert_eq!(p.index.last_stable_offset(end), end);
        assert_eq!(p.index.last_stable_offset(2), 0, "HW below every marker");
    }

    #[test]
    fn aborts_are_indexed_commits_are_not_and_ranges_overlap_like_kafka() {
        let mut p = Partition::default();
        p.data(1, 0, 0, true); // 0
        p.data(2, 0, 1, true); // 1
        p.marker(1, 1, ControlType::Abort); // 2
        p.marker(2, 1, ControlType::Commit); // 3
        p.data(1, 1, 2, true); // 4
        p.marker(1, 2, ControlType::Abort); // 5
        let expected_first = AbortedTxn {
            producer_id: 1,
            first_offset: 0,
            last_offset: 2,
            last_stable_offset: 1,
        };
        let expected_second = AbortedTxn {
            producer_id: 1,
            first_offset: 4,
            last_offset: 5,
            last_stable_offset: 6,
        };
        assert_eq!(p.index.aborted(), &[expected_first, expected_second]);
        assert_eq!(p.index.aborted_in_range(0, 6).len(), 2);
        assert_eq!(p.index.aborted_in_range(3, 4), vec![], "between the two");
        assert_eq!(p.index.aborted_in_range(2, 3), vec![expected_first]);
        assert_eq!(p.index.aborted_in_range(0, 4), vec![expected_first]);
        assert_eq!(p.index.aborted_in_range(5, 9), vec![expected_second]);
        assert_eq!(p.index.aborted_in_range(6, 9), vec![]);
    }

    #[test]
    fn a_marker_without_an_open_transaction_closes_nothing_but_raises_the_epoch() {
        let mut index = TxnIndex::default();
        assert_eq!(index.complete(9, 3, ControlType::Commit, 0, V2), Ok(None));
        assert_eq!(index.producer_epoch(9), Some(3));
        assert!(index.aborted().is_empty());
        assert_eq!(index.last_stable_offset(1), 1);
    }

    #[test]
    fn v2_markers_must_raise_the_epoch_and_then_fence_a_late_produce() {
        let mut index = TxnIndex::default();
        assert_eq!(index.begin_if_needed(7, 4, 0), Ok(true));
        assert_eq!(index.begin_if_needed(7, 4, 1), Ok(false));
        // A V2 marker with the transaction's own epoch is stale.
        assert_eq!(
            index.complete(7, 4, ControlType::Commit, 2, V2),
            Err(TxnIndexError::FencedEpoch {
                producer_id: 7,
                epoch: 4,
                current_epoch: 4
            })
        );
        assert_eq!(index.ongoing_first_offset(7), Some(0), "nothing changed");
        assert!(index.complete(7, 5, ControlType::Commit, 2, V2).is_ok());
        // A resent marker (coordinator restart) is a harmless duplicate.
        assert_eq!(index.complete(7, 5, ControlType::Commit, 3, V2), Ok(None));
        // The late Produce of the finished transaction (epoch 4) is refused...
        let late = index.begin_if_needed(7, 4, 4);
        assert_eq!(
            late.as_ref().err().and_then(TxnIndexError::kafka_error),
            Some(KafkaError::InvalidProducerEpoch)
        );
        assert_eq!(index.ongoing_first_offset(7), None);
        // ...while the next transaction, at the bumped epoch, is accepted.
        assert_eq!(index.begin_if_needed(7, 5, 4), Ok(true));
    }

    #[test]
    fn v1_markers_keep_the_epoch_so_a_late_produce_opens_a_new_transaction() {
        let mut index = TxnIndex::default();
        assert_eq!(index.begin_if_needed(7, 4, 0), Ok(true));
        assert!(index.complete(7, 4, ControlType::Commit, 1, V1).is_ok());
        assert_eq!(index.producer_epoch(7), Some(4));
        // KAFKA-17754: the delayed retry lands and silently starts the next transaction.
        assert_eq!(index.begin_if_needed(7, 4, 2), Ok(true));
        assert_eq!(index.last_stable_offset(3), 2);
        // An older epoch is still a zombie under V1.
        assert!(index.complete(7, 3, ControlType::Abort, 3, V1).is_err());
    }

    #[test]
    fn replicated_markers_are_never_refused() {
        let mut index = TxnIndex::default();
        assert_eq!(index.begin_if_needed(7, 4, 0), Ok(true));
        assert!(index
            .complete(7, 4, ControlType::Abort, 1, MarkerOrigin::Replication)
            .is_ok());
        assert_eq!(index.aborted().len(), 1);
    }

    #[test]
    fn bad_marker_offsets_and_missing_producer_ids_are_refused() {
        let mut index = TxnIndex::default();
        assert_eq!(
            index.begin_if_needed(-1, 0, 0),
            Err(TxnIndexError::NoProducerId { offset: 0 })
        );
        assert_eq!(index.begin_if_needed(7, 0, 5), Ok(true));
        assert_eq!(
            index.complete(7, 1, ControlType::Abort, 5, V2),
            Err(TxnIndexError::MarkerBeforeTransaction {
                producer_id: 7,
                first_offset: 5,
                marker_offset: 5
            })
        );
        assert!(index.complete(7, 1, ControlType::Abort, 6, V2).is_ok());
        assert_eq!(index.begin_if_needed(8, 0, 2), Ok(true));
        assert_eq!(
            index.complete(8, 1, ControlType::Abort, 6, V2),
            Err(TxnIndexError::MarkerOffsetNotIncreasing {
                previous_marker_offset: 6,
                marker_offset: 6
            })
        );
    }

    #[test]
    fn the_number_of_unstable_transactions_is_bounded() {
        let mut index = TxnIndex::default();
        let max = i64::from(MAX_UNSTABLE_TXNS_PER_PARTITION);
        for pid in 0..max {
            assert_eq!(index.begin_if_needed(pid, 0, pid as u64), Ok(true));
        }
        assert_eq!(
            index.begin_if_needed(max, 0, max as u64),
            Err(TxnIndexError::TooManyUnstableTxns {
                max: MAX_UNSTABLE_TXNS_PER_PARTITION
            })
        );
        assert_eq!(
            index.begin_if_needed(0, 0, max as u64),
            Ok(false),
            "open one continues"
        );
    }

    #[test]
    fn read_committed_skips_aborted_records_read_uncommitted_returns_them_markers_never() {
        let mut p = Partition::default();
        p.data(1, 0, 10, true);
        p.data(1, 0, 11, true);
        p.marker(1, 1, ControlType::Commit);
        p.data(1, 1, 12, true);
        p.marker(1, 2, ControlType::Abort);
        p.data(-1, -1, 13, false);
        let hw = p.next_offset();
        assert_eq!(p.read(Isolation::ReadCommitted, 0, hw), vec![10, 11, 13]);
        assert_eq!(
            p.read(Isolation::ReadUncommitted, 0, hw),
            vec![10, 11, 12, 13]
        );
        let control_offsets = [2, 4];
        for isolation in [Isolation::ReadCommitted, Isolation::ReadUncommitted] {
            let until = p.index.fetch_upper_bound(isolation, hw);
            let delivered = deliverable(isolation, &p.entries, &p.index.aborted_in_range(0, until));
            assert!(delivered
                .iter()
                .all(|r| !control_offsets.contains(&r.offset)));
        }
    }

    #[test]
    fn an_abort_marker_clears_the_producer_for_its_next_transaction() {
        let mut p = Partition::default();
        p.data(1, 0, 0, true);
        p.marker(1, 1, ControlType::Abort);
        p.data(1, 1, 1, true);
        p.marker(1, 2, ControlType::Commit);
        assert_eq!(
            p.read(Isolation::ReadCommitted, 0, p.next_offset()),
            vec![1]
        );
    }

    #[test]
    fn a_fetch_that_starts_inside_an_aborted_transaction_still_skips_it() {
        let mut p = Partition::default();
        p.data(1, 0, 0, true);
        p.data(1, 0, 1, true);
        p.data(2, 0, 2, true);
        p.marker(1, 1, ControlType::Abort);
        p.marker(2, 1, ControlType::Commit);
        assert_eq!(
            p.read(Isolation::ReadCommitted, 1, p.next_offset()),
            vec![2]
        );
    }

    #[test]
    fn non_transactional_records_of_an_aborted_producer_are_delivered() {
        let record = |offset, transactional| FetchedEntry::Data {
            record: FetchedRecord {
                offset,
                key: None,
                value: RecordId(offset as u32),
                producer_id: 1,
                epoch: 0,
                sequence: offset as i32,
            },
            transactional,
        };
        let aborted = [AbortedTxn {
            producer_id: 1,
            first_offset: 0,
            last_offset: 2,
            last_stable_offset: 3,
        }];
        let got = read_committed_filter(&[record(0, true), record(1, false)], &aborted);
        assert_eq!(got.iter().map(|r| r.offset).collect::<Vec<_>>(), vec![1]);
    }

    #[test]
    fn the_index_round_trips_through_json() {
        let mut p = Partition::default();
        p.data(1, 0, 0, true);
        p.data(2, 0, 1, true);
        p.marker(1, 1, ControlType::Abort);
        let json = serde_json::to_string(&p.index);
        assert!(json.is_ok(), "{json:?}");
        let back: Result<TxnIndex, _> = serde_json::from_str(&json.unwrap_or_default());
        assert_eq!(back.ok(), Some(p.index));
    }

    /// SEMANTICS §8 "Commit and abort, two isolation levels".
    #[test]
    fn commit_on_two_partitions_then_abort_on_one_reads_two_or_three() {
        let mut p1 = Partition::default();
        let mut p2 = Partition::default();
        p1.data(5, 0, 1, true);
        p2.data(5, 0, 2, true);
        p1.marker(5, 1, ControlType::Commit);
        p2.marker(5, 1, ControlType::Commit);
        p1.data(5, 1, 3, true);
        p1.marker(5, 2, ControlType::Abort);
        let read = |isolation| {
            let mut all = p1.read(isolation, 0, p1.next_offset());
            all.extend(p2.read(isolation, 0, p2.next_offset()));
            all
        };
        assert_eq!(read(Isolation::ReadCommitted), vec![1, 2]);
        assert_eq!(read(Isolation::ReadUncommitted), vec![1, 3, 2]);
    }
}
