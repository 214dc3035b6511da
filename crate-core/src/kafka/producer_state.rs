//! The broker's per-partition producer state and the append rules of SEMANTICS §2, in
//! Kafka's order (`ProducerAppendInfo.checkProducerEpoch` / `checkSequence`,
//! `ProducerStateEntry.findDuplicateBatch`).

use super::errors::KafkaError;
use super::partition_log::{sequence_add, StoredBatch};
use super::{NO_PRODUCER_EPOCH, PRODUCER_STATE_BATCHES};
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BatchMetadata {
    pub first_seq: i32,
    pub last_seq: i32,
    pub first_offset: u64,
    pub last_offset: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProducerStateEntry {
    pub epoch: i16,
    /// The last `PRODUCER_STATE_BATCHES` batches, oldest first.
    pub batches: VecDeque<BatchMetadata>,
}

impl ProducerStateEntry {
    pub fn last_seq(&self) -> Option<i32> {
        self.batches.back().map(|b| b.last_seq)
    }
}

/// What the broker does with a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AppendDecision {
    /// Append it.
    Append,
    /// Already stored: answer success with the original offset, append nothing.
    Duplicate { base_offset: u64 },
    /// Refuse the whole batch.
    Reject {
        error: KafkaError,
        /// The sequence the broker expected, where that explains the refusal.
        expected_seq: Option<i32>,
    },
}

/// The rules, checked in order: duplicate; lower epoch (fenced); higher epoch must start at
/// 0; same epoch must continue the last sequence; no state accepts anything.
pub fn check_append(
    entry: Option<&ProducerStateEntry>,
    epoch: i16,
    first_seq: i32,
    last_seq: i32,
) -> AppendDecision {
    let Some(entry) = entry.filter(|e| e.epoch != NO_PRODUCER_EPOCH) else {
        return AppendDecision::Append;
    };
    if epoch == entry.epoch {
        if let Some(dup) = entry
            .batches
            .iter()
            .find(|b| b.first_seq == first_seq && b.last_seq == last_seq)
        {
            return AppendDecision::Duplicate {
                base_offset: dup.first_offset,
            };
        }
    }
    if epoch < entry.epoch {
        return AppendDecision::Reject {
            error: KafkaError::InvalidProducerEpoch,
            expected_seq: None,
        };
    }
    if epoch > entry.epoch {
        return if first_seq == 0 {
            AppendDecision::Append
        } else {
            AppendDecision::Reject {
                error: KafkaError::OutOfOrderSequenceNumber,
                expected_seq: Some(0),
            }
        };
    }
    // An entry without batches was left by a marker that raised the epoch (transactions
    // v2): its epoch starts at sequence 0, as Kafka's `checkSequence` requires.
    let expected = entry.last_seq().map_or(0, |last| sequence_add(last, 1));
    if first_seq == expected {
        AppendDecision::Append
    } else {
        AppendDecision::Reject {
            error: KafkaError::OutOfOrderSequenceNumber,
            expected_seq: Some(expected),
        }
    }
}

/// Producer id → state, for one partition replica.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProducerStateTable {
    entries: VecMap<i64, ProducerStateEntry>,
}

impl ProducerStateTable {
    pub fn get(&self, producer_id: i64) -> Option<&ProducerStateEntry> {
        self.entries.get(&producer_id)
    }

    pub fn entries(&self) -> &VecMap<i64, ProducerStateEntry> {
        &self.entries
    }

    /// Records an appended batch. A new epoch forgets the old epoch's batches.
    pub fn record(&mut self, batch: &StoredBatch) {
        if batch.producer_id < 0 {
            return;
        }
        if batch.control.is_some() {
            // A marker carries no sequence; a higher epoch on it (transactions v2 bumps at
            // every EndTxn) starts the producer's next epoch afresh.
            if let Some(entry) = self.entries.get_mut(&batch.producer_id) {
                if batch.epoch > entry.epoch {
                    entry.epoch = batch.epoch;
                    entry.batches.clear();
                }
            }
            return;
        }
        let entry = self
            .entries
            .entry(batch.producer_id)
            .or_insert(ProducerStateEntry {
                epoch: batch.epoch,
                batches: VecDeque::new(),
            });
        if entry.epoch != batch.epoch {
            entry.epoch = batch.epoch;
            entry.batches.clear();
        }
        if entry.batches.len() == PRODUCER_STATE_BATCHES {
            entry.batches.pop_front();
        }
        entry.batches.push_back(BatchMetadata {
            first_seq: batch.base_sequence,
            last_seq: batch.last_sequence(),
            first_offset: batch.base_offset,
            last_offset: batch.last_offset(),
        });
    }

    /// Rebuilds the table from a log, as a broker does after truncation or a restart.
    pub fn rebuild<'a>(batches: impl IntoIterator<Item = &'a StoredBatch>) -> Self {
        let mut table = ProducerStateTable::default();
        for b in batches {
            table.record(b);
        }
        table
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kafka::partition_log::LogRecord;

    fn batch(pid: i64, epoch: i16, seq: i32, n: usize, offset: u64) -> StoredBatch {
        StoredBatch {
            base_offset: offset,
            producer_id: pid,
            epoch,
            base_sequence: seq,
            records: vec![
                LogRecord {
                    key: None,
                    value: crate::ids::RecordId(0)
                };
                n
            ],
            appended_at: 0,
            appended_step: 0,
            transactional: false,
            control: None,
            leader_epoch: 0,
        }
    }

    fn table_with(batches: &[StoredBatch]) -> ProducerStateTable {
        ProducerStateTable::rebuild(batches)
    }

    #[test]
    fn unknown_producer_is_accepted_with_any_sequence() {
        assert_eq!(check_append(None, 0, 17, 17), AppendDecision::Append);
    }

    #[test]
    fn a_cached_batch_is_a_duplicate_answered_with_its_original_offset() {
        let t = table_with(&[batch(7, 0, 0, 2, 10), batch(7, 0, 2, 1, 12)]);
        assert_eq!(
            check_append(t.get(7), 0, 0, 1),
            AppendDecision::Duplicate { base_offset: 10 }
        );
    }

    #[test]
    fn lower_epoch_is_fenced_even_with_a_fitting_sequence() {
        let t = table_with(&[batch(7, 3, 0, 1, 0)]);
        assert!(matches!(
            check_append(t.get(7), 2, 1, 1),
            AppendDecision::Reject {
                error: KafkaError::InvalidProducerEpoch,
                ..
            }
        ));
    }

    #[test]
    fn higher_epoch_must_start_at_zero() {
        let t = table_with(&[batch(7, 0, 0, 1, 0)]);
        assert_eq!(check_append(t.get(7), 1, 0, 0), AppendDecision::Append);
        assert!(matches!(
            check_append(t.get(7), 1, 5, 5),
            AppendDecision::Reject {
                error: KafkaError::OutOfOrderSequenceNumber,
                expected_seq: Some(0)
            }
        ));
    }

    #[test]
    fn same_epoch_must_continue_the_last_sequence() {
        let t = table_with(&[batch(7, 0, 0, 3, 0)]);
        assert_eq!(check_append(t.get(7), 0, 3, 4), AppendDecision::Append);
        assert_eq!(
            check_append(t.get(7), 0, 5, 5),
            AppendDecision::Reject {
                error: KafkaError::OutOfOrderSequenceNumber,
                expected_seq: Some(3)
            }
        );
    }

    #[test]
    fn a_retry_older_than_five_batches_is_out_of_order_not_a_duplicate() {
        let batches: Vec<_> = (0..6).map(|i| batch(7, 0, i, 1, i as u64)).collect();
        let t = table_with(&batches);
        assert_eq!(
            t.get(7).map(|e| e.batches.len()),
            Some(PRODUCER_STATE_BATCHES)
        );
        assert_eq!(
            check_append(t.get(7), 0, 0, 0),
            AppendDecision::Reject {
                error: KafkaError::OutOfOrderSequenceNumber,
                expected_seq: Some(6)
            }
        );
        assert_eq!(
            check_append(t.get(7), 0, 1, 1),
            AppendDecision::Duplicate { base_offset: 1 },
            "the fifth-newest batch is still remembered"
        );
    }
}
