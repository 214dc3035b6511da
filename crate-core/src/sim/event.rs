//! Events in the queue, ordered by (time, sequence number) so that ties break the same way
//! on every platform.

use super::fault::Fault;
use crate::ids::NodeId;
use crate::kafka::consumer::ConsumerTimer;
use crate::kafka::processor::ProcessorTimer;
use crate::kafka::producer::ProducerTimer;
use crate::kafka::protocol::Message;
use crate::kafka::txn_coordinator::CoordinatorTimer;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// A message on the wire.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Envelope {
    pub id: u64,
    pub from: NodeId,
    pub to: NodeId,
    pub sent_at: SimTime,
    pub msg: Message,
    /// The second copy of a message the network duplicated (a `duplicate` fault).
    #[serde(default)]
    pub copy: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Timer {
    Producer(ProducerTimer),
    Consumer(ConsumerTimer),
    /// The transaction coordinator's timers, on the broker that hosts it.
    Coordinator(CoordinatorTimer),
    Processor(ProcessorTimer),
    /// Flink's timers, at the JobManager or at a task.
    Flink(crate::flink::FlinkTimer),
    /// A broker's own timers (the "isr-expiration" task).
    Broker(crate::kafka::broker_timer::BrokerTimer),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// A message arrives at its destination.
    Deliver(Envelope),
    /// A timer fires. Timers of an earlier incarnation (before a crash) are void.
    Timer {
        node: NodeId,
        incarnation: u32,
        timer: Timer,
    },
    /// A fault from the schedule (or injected) takes effect.
    Fault(Fault),
}

impl Event {
    /// The process the event happens at.
    pub fn node(&self) -> Option<NodeId> {
        match self {
            Event::Deliver(env) => Some(env.to),
            Event::Timer { node, .. } => Some(*node),
            Event::Fault(f) => f.target(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Scheduled {
    pub time: SimTime,
    pub seq: u64,
    pub event: Event,
}

// The queue is a max-heap: reverse so that the earliest (time, seq) comes out first.
impl Ord for Scheduled {
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
