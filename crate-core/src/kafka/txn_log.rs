//! The simulated `__transaction_state`: every coordinator transition is appended here before
//! it takes effect. It is what survives a coordinator crash: `replay` rebuilds the
//! coordinator's metadata (Kafka `TransactionStateManager.loadTransactionMetadata`), and
//! `pending_markers` lists the transactions decided but not completed, whose
//! WriteTxnMarkers must be sent again (Kafka `loadTransactionsForTxnTopicPartition`).

use super::txn_index::ControlType;
use super::txn_state::{TransactionMetadata, TxnProtocolVersion, TxnState, TxnTransitMetadata};
use crate::ids::Tp;
use crate::time::SimTime;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;

/// Default bound on the entries the log holds; `compact` frees room.
pub const TXN_LOG_MAX_ENTRIES: u32 = 100_000;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TxnLogEntry {
    pub offset: u64,
    pub written_at: SimTime,
    pub transit: TxnTransitMetadata,
}

/// A decided transaction whose markers may not all have been written.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PendingMarkers {
    pub transactional_id: String,
    pub producer_id: i64,
    /// The epoch the markers carry (bumped under V2).
    pub producer_epoch: i16,
    pub result: ControlType,
    pub partitions: BTreeSet<Tp>,
    pub protocol: TxnProtocolVersion,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TxnLogError {
    Full {
        max_entries: u32,
    },
    /// PrepareEpochFence is an in-memory step, never a record.
    NotLoggable {
        transactional_id: String,
        state: TxnState,
    },
    /// Two consecutive records of one transactional id break the table of SEMANTICS §3.
    CorruptTransition {
        offset: u64,
        transactional_id: String,
        from: TxnState,
        to: TxnState,
    },
}

impl fmt::Display for TxnLogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TxnLogError::Full { max_entries } => write!(
                f,
                "__transaction_state holds {max_entries} entries, its limit; compact it"
            ),
            TxnLogError::NotLoggable {
                transactional_id,
                state,
            } => write!(
                f,
                "transactional id {transactional_id:?}: {state} is never written to the log"
            ),
            TxnLogError::CorruptTransition {
                offset,
                transactional_id,
                from,
                to,
            } => write!(
                f,
                "__transaction_state offset {offset}: transactional id {transactional_id:?} \
                 goes {from} -> {to}, which the transition table forbids"
            ),
        }
    }
}

impl std::error::Error for TxnLogError {}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TxnLog {
    entries: Vec<TxnLogEntry>,
    next_offset: u64,
    max_entries: u32,
}

impl Default for TxnLog {
    fn default() -> Self {
        TxnLog::new(TXN_LOG_MAX_ENTRIES)
    }
}

impl TxnLog {
    pub fn new(max_entries: u32) -> Self {
        TxnLog {
            entries: Vec::new(),
            next_offset: 0,
            max_entries,
        }
    }

    pub fn entries(&self) -> &[TxnLogEntry] {
        &self.entries
    }

    /// Gives up every entry (its broker no longer leads the partition): the log is empty
    /// after, its next offset kept.
    pub fn take_entries(&mut self) -> Vec<TxnLogEntry> {
        std::mem::take(&mut self.entries)
    }

    pub fn len(&self) -> u32 {
        u32::try_from(self.entries.len()).unwrap_or(u32::MAX)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn max_entries(&self) -> u32 {
        self.max_entries
    }

    /// Appends a prepared transit; returns its offset. Once this returns, the transition is
    /// durable and the caller may `complete_transition_to` it.
    pub fn append(
        &mut self,
        transit: TxnTransitMetadata,
        written_at: SimTime,
    ) -> Result<u64, TxnLogError> {
        if transit.state == TxnState::PrepareEpochFence {
            return Err(TxnLogError::NotLoggable {
                transactional_id: transit.transactional_id,
                state: transit.state,
            });
        }
        if self.len() >= self.max_entries {
            return Err(TxnLogError::Full {
                max_entries: self.max_entries,
            });
        }
        let offset = self.next_offset;
        self.next_offset += 1;
        self.entries.push(TxnLogEntry {
            offset,
            written_at,
            transit,
        });
        Ok(offset)
    }

    /// The latest record of a transactional id, if it is still alive.
    pub fn latest(&self, transactional_id: &str) -> Option<&TxnTransitMetadata> {
        self.entries
            .iter()
            .rev()
            .map(|e| &e.transit)
            .find(|t| t.transactional_id == transactional_id)
            .filter(|t| t.state != TxnState::Dead)
    }

    /// The coordinator's metadata after a restart: the latest record per transactional id,
    /// nothing pending. A Dead record is a tombstone. Consecutive records of one id are checked
    /// against the transition table (the first one is taken as it is: compaction may have
    /// removed what came before).
    pub fn replay(&self) -> Result<VecMap<String, TransactionMetadata>, TxnLogError> {
        let mut last_state: VecMap<&str, TxnState> = VecMap::new();
        let mut metadata = VecMap::new();
        for entry in &self.entries {
            let transit = &entry.transit;
            let id = transit.transactional_id.as_str();
            if let Some(from) = last_state.get(id) {
                if !from.can_transition_to(transit.state) {
                    return Err(TxnLogError::CorruptTransition {
                        offset: entry.offset,
                        transactional_id: transit.transactional_id.clone(),
                        from: *from,
                        to: transit.state,
                    });
                }
            }
            if transit.state == TxnState::Dead {
                last_state.remove(id);
                metadata.remove(id);
            } else {
                last_state.insert(id, transit.state);
                metadata.insert(
                    transit.transactional_id.clone(),
                    TransactionMetadata::from_transit(transit),
                );
            }
        }
        Ok(metadata)
    }

    /// The decided transactions whose markers must be (re)sent after a coordinator restart,
    /// ordered by transactional id. The broker side accepts resent markers as duplicates.
    pub fn pending_markers(&self) -> Result<Vec<PendingMarkers>, TxnLogError> {
        Ok(pending_markers_of(&self.replay()?))
    }

    /// Keeps only the latest record of each live transactional id (what Kafka's log
    /// compaction converges to); offsets are kept. `replay` gives the same answer after.
    pub fn compact(&mut self) {
        let mut latest: VecMap<&str, u64> = VecMap::new();
        for entry in &self.entries {
            latest.insert(entry.transit.transactional_id.as_str(), entry.offset);
        }
        let keep: BTreeSet<u64> = crate::order::set_of(latest.into_values());
        self.entries
            .retain(|e| keep.contains(&e.offset) && e.transit.state != TxnState::Dead);
    }
}

/// The transactions of `metadata` in PrepareCommit or PrepareAbort.
pub fn pending_markers_of(metadata: &VecMap<String, TransactionMetadata>) -> Vec<PendingMarkers> {
    metadata
        .values()
        .filter(|m| matches!(m.state(), TxnState::PrepareCommit | TxnState::PrepareAbort))
        .filter_map(|m| {
            m.state().decision().map(|result| PendingMarkers {
                transactional_id: m.transactional_id().to_string(),
                producer_id: m.producer_id(),
                producer_epoch: m.producer_epoch(),
                result,
                partitions: m.topic_partitions().clone(),
                protocol: m.protocol(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kafka::txn_state::{
        AddPartitionsPlan, EndTxnPlan, InitProducerIdPlan, DEFAULT_TRANSACTION_TIMEOUT_MS,
    };

    const V2: TxnProtocolVersion = TxnProtocolVersion::V2;

    fn tps(partitions: &[u16]) -> BTreeSet<Tp> {
        partitions
            .iter()
            .map(|p| Tp {
                topic: 0,
                partition: *p,
            })
            .collect()
    }

    /// A coordinator in miniature: metadata in memory, every transition through the log.
    struct Coordinator {
        log: TxnLog,
        metadata: VecMap<String, TransactionMetadata>,
        next_pid: i64,
    }

    impl Coordinator {
        fn new(log: TxnLog) -> Self {
            Coordinator {
                log,
                metadata: VecMap::new(),
                next_pid: 100,
            }
        }

        fn write(&mut self, id: &str, transit: TxnTransitMetadata, now: SimTime) {
            assert!(self.log.append(transit.clone(), now).is_ok());
            let applied = self
                .metadata
                .get_mut(id)
                .map(|m| m.complete_transition_to(&transit));
            assert_eq!(applied, Some(Ok(())));
        }

        fn meta(&mut self, id: &str) -> &mut TransactionMetadata {
            let pid = self.next_pid;
            self.metadata.entry(id.to_string()).or_insert_with(|| {
                TransactionMetadata::new(id.to_string(), pid, DEFAULT_TRANSACTION_TIMEOUT_MS, V2, 0)
            })
        }

        fn init(&mut self, id: &str, now: SimTime) {
            let plan =
                self.meta(id)
                    .prepare_init_producer_id(DEFAULT_TRANSACTION_TIMEOUT_MS, None, now);
            self.next_pid += 1;
            let Ok(InitProducerIdPlan::Write(t)) = plan else {
                panic!("{plan:?}");
            };
            self.write(id, t, now);
        }

        fn add(&mut self, id: &str, partitions: &[u16], now: SimTime) {
            let m = self.meta(id);
            let (pid, epoch) = (m.producer_id(), m.producer_epoch());
            let plan = m.prepare_add_partitions(pid, epoch, &tps(partitions), V2, now);
            let Ok(AddPartitionsPlan::Write(t)) = plan else {
                panic!("{plan:?}");
            };
            self.write(id, t, now);
        }

        fn end(&mut self, id: &str, commit: bool, now: SimTime) -> TxnTransitMetadata {
            let m = self.meta(id);
            let (pid, epoch) = (m.producer_id(), m.producer_epoch());
            let plan = m.prepare_end_txn(pid, epoch, commit, V2, now);
            let Ok(EndTxnPlan::Write(t)) = plan else {
                panic!("{plan:?}");
            };
            self.write(id, t.clone(), now);
            t
        }

        fn complete(&mut self, id: &str, now: SimTime) {
            let t = self.meta(id).prepare_complete(now);
            let Ok(t) = t else {
                panic!("{t:?}");
            };
            self.write(id, t, now);
        }

        /// The coordinator process dies: only the log is left.
        fn crash_and_restart(self) -> Coordinator {
            let replayed = self.log.replay();
            assert!(replayed.is_ok(), "{replayed:?}");
            Coordinator {
                metadata: replayed.unwrap_or_default(),
                log: self.log,
                next_pid: self.next_pid,
            }
        }
    }

    #[test]
    fn replay_after_a_crash_restores_state_and_lists_pending_markers() {
        let mut c = Coordinator::new(TxnLog::default());
        c.init("committed", 1);
        c.add("committed", &[0], 2);
        c.end("committed", true, 3);
        c.complete("committed", 4);
        c.init("deciding", 5);
        c.add("deciding", &[1, 2], 6);
        let decision = c.end("deciding", true, 7);
        c.init("aborting", 8);
        c.add("aborting", &[3], 9);
        c.end("aborting", false, 10);
        c.init("open", 11);
        c.add("open", &[4], 12);
        // A transition prepared but not written when the process dies is lost.
        let open = c.meta("open");
        let (pid, epoch) = (open.producer_id(), open.producer_epoch());
        assert!(open.prepare_end_txn(pid, epoch, true, V2, 13).is_ok());
        let before: VecMap<String, TransactionMetadata> = c
            .metadata
            .iter()
            .map(|(id, m)| {
                let mut m = m.clone();
                m.cancel_pending();
                (id.clone(), m)
            })
            .collect();

        let mut c = c.crash_and_restart();
        assert_eq!(c.metadata, before);
        assert_eq!(
            c.metadata.get("open").map(|m| m.state()),
            Some(TxnState::Ongoing)
        );
        assert_eq!(
            c.log.pending_markers(),
            Ok(vec![
                PendingMarkers {
                    transactional_id: "aborting".into(),
                    producer_id: 102,
                    producer_epoch: 1,
                    result: ControlType::Abort,
                    partitions: tps(&[3]),
                    protocol: V2,
                },
                PendingMarkers {
                    transactional_id: "deciding".into(),
                    producer_id: decision.producer_id,
                    producer_epoch: decision.producer_epoch,
                    result: ControlType::Commit,
                    partitions: tps(&[1, 2]),
                    protocol: V2,
                },
            ])
        );
        // The restarted coordinator finishes the durable commit.
        c.complete("deciding", 20);
        c.complete("aborting", 21);
        assert_eq!(c.log.pending_markers(), Ok(vec![]));
        let states: Vec<(String, TxnState)> = c
            .log
            .replay()
            .unwrap_or_default()
            .into_iter()
            .map(|(id, m)| (id, m.state()))
            .collect();
        assert_eq!(
            states,
            vec![
                ("aborting".to_string(), TxnState::CompleteAbort),
                ("committed".to_string(), TxnState::CompleteCommit),
                ("deciding".to_string(), TxnState::CompleteCommit),
                ("open".to_string(), TxnState::Ongoing),
            ]
        );
    }

    #[test]
    fn the_log_and_its_replay_round_trip_through_json() {
        let mut c = Coordinator::new(TxnLog::default());
        c.init("t", 1);
        c.add("t", &[0, 1], 2);
        c.end("t", true, 3);
        let json = serde_json::to_string(&c.log);
        assert!(json.is_ok(), "{json:?}");
        let back: Result<TxnLog, _> = serde_json::from_str(&json.unwrap_or_default());
        assert_eq!(back.as_ref().ok(), Some(&c.log));
        assert_eq!(back.ok().map(|log| log.replay()), Some(c.log.replay()));
    }

    #[test]
    fn compaction_keeps_the_replay_and_drops_tombstones() {
        let mut c = Coordinator::new(TxnLog::default());
        for round in 0..3 {
            let now = 10 * round;
            c.init("a", now);
            c.add("a", &[0], now + 1);
            c.end("a", round % 2 == 0, now + 2);
            c.complete("a", now + 3);
        }
        c.init("b", 100);
        let dead = c.meta("b").prepare_dead(101);
        let Ok(dead) = dead else {
            panic!("{dead:?}");
        };
        assert!(c.log.append(dead, 101).is_ok());
        let replayed = c.log.replay();
        assert_eq!(replayed.as_ref().map(|m| m.len()), Ok(1), "b is gone");
        assert_eq!(c.log.latest("b"), None);
        let length = c.log.len();
        c.log.compact();
        assert_eq!(c.log.len(), 1);
        assert!(length > 1);
        assert_eq!(c.log.replay(), replayed);
        assert_eq!(
            c.log.entries()[0].offset,
            u64::from(length) - 3,
            "offsets are kept"
        );
    }

    #[test]
    fn a_log_that_breaks_the_table_is_reported_with_its_offset() {
        let mut c = Coordinator::new(TxnLog::default());
        c.init("t", 1);
        let mut bogus = match c.log.latest("t") {
            Some(t) => t.clone(),
            None => panic!("no record"),
        };
        bogus.state = TxnState::CompleteCommit;
        assert_eq!(c.log.append(bogus, 2), Ok(1));
        assert_eq!(
            c.log.replay(),
            Err(TxnLogError::CorruptTransition {
                offset: 1,
                transactional_id: "t".into(),
                from: TxnState::Empty,
                to: TxnState::CompleteCommit
            })
        );
    }

    #[test]
    fn the_log_is_bounded_and_never_holds_an_epoch_fence() {
        let mut c = Coordinator::new(TxnLog::new(2));
        c.init("t", 1);
        c.add("t", &[0], 2);
        let Some(mut t) = c.log.latest("t").cloned() else {
            panic!("no record");
        };
        assert_eq!(
            c.log.append(t.clone(), 3),
            Err(TxnLogError::Full { max_entries: 2 })
        );
        t.state = TxnState::PrepareEpochFence;
        let mut roomy = TxnLog::default();
        assert!(matches!(
            roomy.append(t, 3),
            Err(TxnLogError::NotLoggable { .. })
        ));
        assert!(roomy.is_empty());
    }
}
