//! KIP-320 on a reader's side: the leader epoch of the record before each fetch position,
//! sent with the fetch so that the leader can say its log parted from the one the reader
//! read (after an unclean election), and the reset that follows; and the reset an offset past
//! the log end gets (OFFSET_OUT_OF_RANGE, `auto.offset.reset=earliest`). Consumers,
//! processors and Flink's Kafka sources share it.

use super::errors::KafkaError;
use super::protocol::FetchBody;
use crate::ids::{NodeId, Tp};
use crate::sim::{Ctx, Note};
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};

/// A fetch answer as a reader gets it.
pub type FetchResult = Result<FetchBody, (KafkaError, Option<u8>)>;

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PositionEpochs(#[serde(with = "crate::serde_pairs")] VecMap<Tp, u32>);

impl PositionEpochs {
    /// The epoch to send with a fetch of `tp`, if the reader knows it.
    pub fn of(&self, tp: Tp) -> Option<u32> {
        self.0.get(&tp).copied()
    }

    /// The positions moved where the reader saw no record (a rewind to a checkpoint): their
    /// epochs are unknown.
    pub fn forget(&mut self) {
        self.0 = VecMap::new();
    }

    /// `tp`'s position moved where the reader saw no record: its epoch is unknown.
    pub fn drop_position(&mut self, tp: Tp) {
        self.0.remove(&tp);
    }

    /// The epochs to commit with `offsets` (Kafka's committed leader epoch).
    pub fn for_commit(&self, offsets: &[(Tp, u64)]) -> Vec<(Tp, u32)> {
        offsets
            .iter()
            .filter_map(|(tp, _)| Some((*tp, self.of(*tp)?)))
            .collect()
    }

    /// The positions are the group's committed offsets now: their epochs are those
    /// committed with them, where there are.
    pub fn resume(&mut self, committed: &[(Tp, u32)]) {
        self.0 = committed.iter().copied().collect();
    }

    /// Takes the answer to `reader`'s fetch of `tp` from offset `at`: keeps the epoch of
    /// what it served; for a diverging epoch or an offset out of range, says so and returns
    /// the position to go to.
    pub fn take(
        &mut self,
        reader: NodeId,
        tp: Tp,
        at: u64,
        result: &FetchResult,
        ctx: &mut Ctx,
    ) -> Option<u64> {
        let (to, diverged) = match result {
            Ok(body) => match body.diverging {
                Some(d) => (d.end_offset, Some(d.epoch)),
                None => {
                    if let Some(e) = body.last_epoch {
                        self.0.insert(tp, e);
                    }
                    return None;
                }
            },
            Err((KafkaError::OffsetOutOfRange, _)) => (0, None),
            Err(_) => return None,
        };
        match diverged {
            // The position's epoch is now the one that ends there.
            Some(e) => self.0.insert(tp, e),
            None => self.0.remove(&tp),
        };
        ctx.note(Note::PositionReset {
            reader,
            tp,
            from: at,
            to,
            diverged,
        });
        Some(to)
    }
}
