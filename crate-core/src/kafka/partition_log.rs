//! A partition's log: batches at increasing offsets. Offsets are dense; a batch occupies one
//! offset per record.

use super::txn_index::{ControlRecord, ControlType, FetchedEntry};
use crate::ids::RecordId;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// One data record as stored. The value is the logical record it carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LogRecord {
    /// Index into the scenario's key table; `None` for a null key.
    pub key: Option<u32>,
    pub value: RecordId,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct StoredBatch {
    pub base_offset: u64,
    pub producer_id: i64,
    pub epoch: i16,
    pub base_sequence: i32,
    pub records: Vec<LogRecord>,
    pub appended_at: SimTime,
    /// The simulation step whose event appended this batch (on the leader).
    pub appended_step: u64,
    /// Written inside a transaction.
    #[serde(default)]
    pub transactional: bool,
    /// A transaction marker (control batch): no records, one offset.
    #[serde(default)]
    pub control: Option<ControlType>,
    /// The leader epoch of the leader that appended it (Kafka's `partitionLeaderEpoch`):
    /// where a log's epochs end is how a reader finds that its log parted from this one.
    #[serde(default)]
    pub leader_epoch: u32,
}

impl StoredBatch {
    /// Offsets the batch occupies: one per record, or one for a marker.
    pub fn len(&self) -> u64 {
        if self.control.is_some() {
            1
        } else {
            self.records.len() as u64
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entries a fetch returns for this batch, from `from` (inclusive).
    fn entries_from(&self, from: u64) -> impl Iterator<Item = FetchedEntry> + '_ {
        let control = self.control.map(|c| {
            FetchedEntry::Control(ControlRecord {
                offset: self.base_offset,
                producer_id: self.producer_id,
                epoch: self.epoch,
                control: c,
            })
        });
        let data = self
            .records
            .iter()
            .enumerate()
            .map(move |(i, r)| FetchedEntry::Data {
                record: FetchedRecord {
                    offset: self.base_offset + i as u64,
                    key: r.key,
                    value: r.value,
                    producer_id: self.producer_id,
                    epoch: self.epoch,
                    sequence: sequence_add(self.base_sequence, i as i32),
                },
                transactional: self.transactional,
            });
        control
            .into_iter()
            .chain(data)
            .filter(move |e| e.offset() >= from)
    }

    pub fn last_offset(&self) -> u64 {
        self.base_offset + self.len().saturating_sub(1)
    }

    pub fn last_sequence(&self) -> i32 {
        sequence_add(self.base_sequence, self.records.len() as i32 - 1)
    }
}

/// Sequence arithmetic wraps at `i32::MAX` back to 0, as Kafka's does.
pub fn sequence_add(sequence: i32, increment: i32) -> i32 {
    if sequence < 0 {
        return sequence;
    }
    let sum = i64::from(sequence) + i64::from(increment);
    if sum > i64::from(i32::MAX) {
        (sum - i64::from(i32::MAX) - 1) as i32
    } else {
        sum as i32
    }
}

/// A record as a reader sees it, with its offset and producer metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FetchedRecord {
    pub offset: u64,
    pub key: Option<u32>,
    pub value: RecordId,
    pub producer_id: i64,
    pub epoch: i16,
    pub sequence: i32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PartitionLog {
    batches: Vec<StoredBatch>,
    log_end_offset: u64,
}

impl PartitionLog {
    /// About how many bytes a copy of the log takes.
    pub fn approx_bytes(&self) -> usize {
        use std::mem::size_of;
        self.batches
            .iter()
            .map(|b| size_of::<StoredBatch>() + b.records.len() * size_of::<LogRecord>())
            .sum()
    }

    pub fn log_end_offset(&self) -> u64 {
        self.log_end_offset
    }

    pub fn batches(&self) -> &[StoredBatch] {
        &self.batches
    }

    /// The first offset where this log and `leader`'s part: the base of the first batch they
    /// do not share, or the shorter log's end. What a follower keeps when it follows a new
    /// leader: Kafka finds this point by leader epoch (OffsetsForLeaderEpoch, KIP-101 and
    /// KIP-279), so a follower keeps every record the leader has at the same offset, not just
    /// those below its high watermark.
    pub fn parts_from(&self, leader: &PartitionLog) -> u64 {
        let end = self.log_end_offset.min(leader.log_end_offset);
        self.batches
            .iter()
            .zip(&leader.batches)
            .find(|(mine, theirs)| mine != theirs)
            .map_or(end, |(mine, theirs)| {
                mine.base_offset.min(theirs.base_offset)
            })
            .min(end)
    }

    /// Appends a data batch at the log end; returns the base offset it was given.
    #[allow(clippy::too_many_arguments)]
    pub fn append(
        &mut self,
        producer_id: i64,
        epoch: i16,
        base_sequence: i32,
        records: Vec<LogRecord>,
        transactional: bool,
        appended_at: SimTime,
        appended_step: u64,
        leader_epoch: u32,
    ) -> u64 {
        let base_offset = self.log_end_offset;
        self.log_end_offset += records.len() as u64;
        self.batches.push(StoredBatch {
            base_offset,
            producer_id,
            epoch,
            base_sequence,
            records,
            appended_at,
            appended_step,
            transactional,
            control: None,
            leader_epoch,
        });
        base_offset
    }

    /// Appends a transaction marker (one offset); returns its offset.
    pub fn append_marker(
        &mut self,
        producer_id: i64,
        epoch: i16,
        control: ControlType,
        appended_at: SimTime,
        appended_step: u64,
        leader_epoch: u32,
    ) -> u64 {
        let offset = self.log_end_offset;
        self.log_end_offset += 1;
        self.batches.push(StoredBatch {
            base_offset: offset,
            producer_id,
            epoch,
            base_sequence: super::NO_SEQUENCE,
            records: Vec::new(),
            appended_at,
            appended_step,
            transactional: true,
            control: Some(control),
            leader_epoch,
        });
        offset
    }

    /// Data and control entries in `[from, until)`, at most `max` of them, in log order.
    pub fn read_entries(&self, from: u64, until: u64, max: u32) -> Vec<FetchedEntry> {
        let start = self
            .batches
            .partition_point(|b| b.base_offset + b.len() <= from);
        self.batches[start..]
            .iter()
            .flat_map(|b| b.entries_from(from))
            .take_while(|e| e.offset() < until)
            .take(max as usize)
            .collect()
    }

    /// Appends a copy of a batch replicated from the leader, keeping its offsets.
    pub fn append_replica(&mut self, batch: StoredBatch) {
        debug_assert_eq!(batch.base_offset, self.log_end_offset);
        self.log_end_offset = batch.base_offset + batch.len();
        self.batches.push(batch);
    }

    /// Drops every record at or above `offset` (a whole batch at a time, as Kafka does when a
    /// follower truncates to the leader's log).
    pub fn truncate_to(&mut self, offset: u64) {
        self.batches.retain(|b| b.base_offset < offset);
        self.log_end_offset = self.batches.last().map_or(0, |b| b.base_offset + b.len());
    }

    /// Where leader epoch `epoch` ends in this log: the first offset written under a later
    /// epoch, or the log end (Kafka's OffsetsForLeaderEpoch answer, from its leader-epoch
    /// cache, which the batches' epochs make).
    pub fn end_offset_for_epoch(&self, epoch: u32) -> u64 {
        self.batches
            .iter()
            .find(|b| b.leader_epoch > epoch)
            .map_or(self.log_end_offset, |b| b.base_offset)
    }

    /// The batch that holds `offset`, if the log holds it.
    fn batch_holding(&self, offset: u64) -> Option<&StoredBatch> {
        let i = self
            .batches
            .partition_point(|b| b.base_offset + b.len() <= offset);
        self.batches.get(i).filter(|b| b.base_offset <= offset)
    }

    /// The leader epoch of the batch that holds `offset`, if the log holds it.
    pub fn epoch_at(&self, offset: u64) -> Option<u32> {
        self.batch_holding(offset).map(|b| b.leader_epoch)
    }

    /// When the leader appended the batch that holds `offset`, if the log holds it.
    pub fn appended_at(&self, offset: u64) -> Option<SimTime> {
        self.batch_holding(offset).map(|b| b.appended_at)
    }

    /// Batches that start at or after `offset`, for replication.
    pub fn batches_from(&self, offset: u64) -> Vec<StoredBatch> {
        let start = self.batches.partition_point(|b| b.base_offset < offset);
        self.batches[start..].to_vec()
    }

    /// Records in `[from, until)`, at most `max_records`.
    pub fn read(&self, from: u64, until: u64, max_records: u32) -> Vec<FetchedRecord> {
        let mut out = Vec::new();
        let start = self
            .batches
            .partition_point(|b| b.base_offset + b.len() <= from);
        for batch in &self.batches[start..] {
            if batch.control.is_some() && batch.base_offset >= until {
                return out;
            }
            for (i, record) in batch.records.iter().enumerate() {
                let offset = batch.base_offset + i as u64;
                if offset < from {
                    continue;
                }
                if offset >= until || out.len() as u32 >= max_records {
                    return out;
                }
                out.push(FetchedRecord {
                    offset,
                    key: record.key,
                    value: record.value,
                    producer_id: batch.producer_id,
                    epoch: batch.epoch,
                    sequence: sequence_add(batch.base_sequence, i as i32),
                });
            }
        }
        out
    }

    /// Every record below `until`, in offset order.
    pub fn records_below(&self, until: u64) -> impl Iterator<Item = FetchedRecord> + '_ {
        self.batches
            .iter()
            .take_while(move |b| b.base_offset < until)
            .flat_map(move |b| {
                b.records.iter().enumerate().filter_map(move |(i, r)| {
                    let offset = b.base_offset + i as u64;
                    (offset < until).then_some(FetchedRecord {
                        offset,
                        key: r.key,
                        value: r.value,
                        producer_id: b.producer_id,
                        epoch: b.epoch,
                        sequence: sequence_add(b.base_sequence, i as i32),
                    })
                })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(v: u32) -> LogRecord {
        LogRecord {
            key: None,
            value: RecordId(v),
        }
    }

    #[test]
    fn offsets_are_dense_and_reads_respect_bounds() {
        let mut log = PartitionLog::default();
        assert_eq!(log.append(7, 0, 0, vec![rec(0), rec(1)], false, 0, 1, 0), 0);
        assert_eq!(log.append(7, 0, 2, vec![rec(2)], false, 0, 2, 0), 2);
        assert_eq!(log.log_end_offset(), 3);
        let read = log.read(1, 3, 10);
        assert_eq!(
            read.iter().map(|r| r.offset).collect::<Vec<_>>(),
            vec![1, 2]
        );
        assert_eq!(read[1].sequence, 2);
        assert_eq!(log.read(0, 2, 10).len(), 2, "stops at `until`");
        assert_eq!(log.read(0, 3, 1).len(), 1, "stops at max_records");
        assert_eq!(log.records_below(2).count(), 2);
    }

    #[test]
    fn truncation_drops_whole_batches_at_and_above_the_offset() {
        let mut log = PartitionLog::default();
        log.append(-1, -1, -1, vec![rec(0)], false, 0, 1, 0);
        log.append(-1, -1, -1, vec![rec(1), rec(2)], false, 0, 2, 0);
        log.truncate_to(1);
        assert_eq!(log.log_end_offset(), 1);
        assert_eq!(log.batches_from(0).len(), 1);
    }

    #[test]
    fn a_marker_takes_one_offset_and_is_never_data() {
        let mut log = PartitionLog::default();
        log.append(7, 0, 0, vec![rec(0), rec(1)], true, 0, 1, 0);
        assert_eq!(log.append_marker(7, 0, ControlType::Commit, 0, 2, 0), 2);
        log.append(-1, -1, -1, vec![rec(2)], false, 0, 3, 0);
        assert_eq!(log.log_end_offset(), 4);
        let data: Vec<u64> = log.read(0, 4, 10).iter().map(|r| r.offset).collect();
        assert_eq!(data, vec![0, 1, 3], "the marker is not a record");
        assert_eq!(log.records_below(4).count(), 3);
        let entries = log.read_entries(1, 4, 10);
        assert_eq!(entries.len(), 3);
        assert!(matches!(entries[1], FetchedEntry::Control(c) if c.offset == 2));
        assert!(matches!(
            entries[0],
            FetchedEntry::Data {
                transactional: true,
                ..
            }
        ));
        assert_eq!(log.read_entries(0, 4, 2).len(), 2, "max counts entries");
    }

    #[test]
    fn sequences_wrap_like_kafka() {
        assert_eq!(sequence_add(i32::MAX, 1), 0);
        assert_eq!(sequence_add(5, 2), 7);
        assert_eq!(sequence_add(-1, 3), -1);
    }

    #[test]
    fn an_epoch_ends_where_a_later_one_begins() {
        let mut log = PartitionLog::default();
        log.append(7, 0, 0, vec![rec(0), rec(1)], false, 0, 1, 0);
        log.append(7, 0, 2, vec![rec(2)], false, 0, 2, 2);
        log.append(7, 0, 3, vec![rec(3)], false, 0, 3, 5);
        // Epoch 0 ends at 2; epochs 1 and 2 (the second never wrote) end where 2's first
        // write begins; the newest runs to the log end.
        assert_eq!(log.end_offset_for_epoch(0), 2);
        assert_eq!(log.end_offset_for_epoch(1), 2);
        assert_eq!(log.end_offset_for_epoch(2), 3);
        assert_eq!(log.end_offset_for_epoch(5), 4);
        assert_eq!(log.end_offset_for_epoch(9), 4);
        assert_eq!(
            (0..5).map(|o| log.epoch_at(o)).collect::<Vec<_>>(),
            vec![Some(0), Some(0), Some(2), Some(5), None]
        );
    }
}
