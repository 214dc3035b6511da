//! A channel between two subtasks: FIFO, bounded in records (credit-based flow control),
//! with a transfer latency. It stands for the sender's output buffer, the wire and the
//! receiver's input buffer together.

use super::record::{FRecord, Item};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Slot {
    /// When the item is in the receiver's input buffer.
    pub at: SimTime,
    pub item: Item,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Channel {
    pub queue: VecDeque<Slot>,
    pub capacity: u32,
    /// Records pushed since the last restore (replayed channel state included).
    pub pushed: u64,
    /// Records taken by the receiver since the last restore.
    pub popped: u64,
    /// Blocked by aligned alignment: its barrier arrived, the others' have not.
    pub blocked: bool,
}

impl Channel {
    pub fn new(capacity: u32) -> Self {
        Channel {
            capacity: capacity.max(1),
            ..Default::default()
        }
    }

    /// The records in the channel, in order.
    pub fn record_ids(&self) -> Vec<crate::ids::RecordId> {
        self.queue
            .iter()
            .filter_map(|s| match s.item {
                Item::Record(r) => Some(r.id),
                _ => None,
            })
            .collect()
    }

    pub fn records(&self) -> usize {
        self.queue
            .iter()
            .filter(|s| matches!(s.item, Item::Record(_)))
            .count()
    }

    pub fn has_room(&self) -> bool {
        self.records() < self.capacity as usize
    }

    pub fn push_record(&mut self, at: SimTime, r: FRecord) {
        self.pushed += 1;
        self.queue.push_back(Slot {
            at,
            item: Item::Record(r),
        });
    }

    /// An aligned barrier queues behind the records; an unaligned one overtakes them all and
    /// returns the overtaken records (they go into the sender's snapshot as channel state).
    pub fn push_barrier(&mut self, at: SimTime, item: Item, overtake: bool) -> Vec<FRecord> {
        if !overtake {
            self.queue.push_back(Slot { at, item });
            return Vec::new();
        }
        let overtaken = self.record_list();
        self.queue.push_front(Slot { at, item });
        overtaken
    }

    pub fn record_list(&self) -> Vec<FRecord> {
        self.queue
            .iter()
            .filter_map(|s| match s.item {
                Item::Record(r) => Some(r),
                Item::Barrier { .. } => None,
            })
            .collect()
    }

    /// The head item, if it has arrived.
    pub fn ready(&self, now: SimTime) -> Option<&Slot> {
        self.queue.front().filter(|s| s.at <= now)
    }

    pub fn pop(&mut self) -> Option<Slot> {
        let s = self.queue.pop_front()?;
        if matches!(s.item, Item::Record(_)) {
            self.popped += 1;
        }
        Some(s)
    }

    /// Where barrier `id` sits among the arrived items, if it has arrived.
    pub fn arrived_barrier(&self, id: u64, now: SimTime) -> Option<usize> {
        self.queue
            .iter()
            .position(|s| matches!(s.item, Item::Barrier { id: b, .. } if b == id) && s.at <= now)
    }

    /// Takes barrier `id` out from the middle (it overtakes the records ahead of it) and
    /// returns those records, which stay queued for processing.
    /// Whether a record is queued (a barrier that reached the front overtook these).
    pub fn holds_records(&self) -> bool {
        self.queue.iter().any(|s| matches!(s.item, Item::Record(_)))
    }

    pub fn take_barrier_at(&mut self, pos: usize) -> Vec<FRecord> {
        let ahead: Vec<FRecord> = self
            .queue
            .iter()
            .take(pos)
            .filter_map(|s| match s.item {
                Item::Record(r) => Some(r),
                Item::Barrier { .. } => None,
            })
            .collect();
        self.queue.remove(pos);
        ahead
    }

    pub fn clear(&mut self) {
        self.queue.clear();
        self.pushed = 0;
        self.popped = 0;
        self.blocked = false;
    }

    /// The earliest arrival still ahead (to wake the receiver).
    pub fn next_arrival(&self, now: SimTime) -> Option<SimTime> {
        self.queue.front().map(|s| s.at).filter(|&t| t > now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::RecordId;

    fn rec(i: u32) -> FRecord {
        FRecord {
            id: RecordId(i),
            key: None,
            count: 0,
            passes: 0,
        }
    }

    #[test]
    fn aligned_barrier_queues_unaligned_overtakes() {
        let mut c = Channel::new(2);
        c.push_record(5, rec(0));
        c.push_record(5, rec(1));
        assert!(!c.has_room());
        let b = Item::Barrier {
            id: 1,
            triggered_at: 0,
        };
        assert!(c.push_barrier(6, b, false).is_empty());
        assert!(!c.has_room(), "barriers take no credit but records do");
        assert_eq!(c.arrived_barrier(1, 6), Some(2));
        assert_eq!(c.arrived_barrier(1, 5), None, "not arrived yet");
        let mut d = Channel::new(4);
        d.push_record(5, rec(0));
        let over = d.push_barrier(6, b, true);
        assert_eq!(over, vec![rec(0)]);
        assert!(matches!(d.queue[0].item, Item::Barrier { id: 1, .. }));
    }

    #[test]
    fn taking_a_barrier_from_the_middle_keeps_the_records() {
        let mut c = Channel::new(4);
        c.push_record(1, rec(0));
        c.push_barrier(
            1,
            Item::Barrier {
                id: 3,
                triggered_at: 0,
            },
            false,
        );
        c.push_record(1, rec(1));
        let pos = c.arrived_barrier(3, 1).expect("arrived");
        assert_eq!(c.take_barrier_at(pos), vec![rec(0)]);
        assert_eq!(c.record_list(), vec![rec(0), rec(1)]);
        assert_eq!(c.pop().map(|s| s.item), Some(Item::Record(rec(0))));
        assert_eq!(c.popped, 1);
    }
}
