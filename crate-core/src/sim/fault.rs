//! Faults are events like any other: a scenario's fault schedule is data, and a fault
//! injected from the UI is appended to it.

use crate::ids::{NodeId, Tp};
use crate::kafka::protocol::MessageKind;
use crate::time::SimTime;
use serde::{Deserialize, Serialize};

/// Which messages a network fault applies to; `None` matches anything.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MessageMatch {
    pub from: Option<NodeId>,
    pub to: Option<NodeId>,
    pub kind: Option<MessageKind>,
    pub tp: Option<Tp>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// Pause the process (`docker pause`): connections stay up, nothing is processed.
    Freeze {
        node: NodeId,
        duration: SimTime,
    },
    Thaw {
        node: NodeId,
    },
    /// Kill the process; with `restart_after`, bring it back that much later.
    Crash {
        node: NodeId,
        restart_after: Option<SimTime>,
    },
    Restart {
        node: NodeId,
    },
    /// Drop the next `count` matching messages.
    Drop {
        matcher: MessageMatch,
        count: u32,
    },
    /// Delay the next `count` matching messages by `extra`.
    Delay {
        matcher: MessageMatch,
        extra: SimTime,
        count: u32,
    },
    /// Deliver the next `count` matching messages twice, the copy `extra` later.
    Duplicate {
        matcher: MessageMatch,
        extra: SimTime,
        count: u32,
    },
    /// Lose the acknowledgement of the next `count` appends to a partition: the batch IS in
    /// the log, the producer never hears so. The case a real bench cannot stage.
    LoseAck {
        tp: Tp,
        count: u32,
    },
    /// The next `count` produce requests for a partition arrive with a batch whose checksum
    /// does not match (damage TCP's weak checksum let through; Kafka checks each batch's
    /// CRC32C): the broker refuses it with CORRUPT_MESSAGE, which the client retries. Unlike
    /// a drop, the connection keeps flowing: the requests behind it arrive.
    Corrupt {
        tp: Tp,
        count: u32,
    },
    /// Drop the first `count` matching messages already on the wire when the fault fires
    /// (earliest arrival first). `Drop` acts on messages sent later; this one is for "drop
    /// that message" by click: link + kind + count, so a recomputed run drops the same one.
    DropOnWire {
        matcher: MessageMatch,
        count: u32,
    },
    /// Delay the first `count` matching messages already on the wire by `extra`.
    DelayOnWire {
        matcher: MessageMatch,
        extra: SimTime,
        count: u32,
    },
    /// Cut the link between two processes, both ways.
    Partition {
        a: NodeId,
        b: NodeId,
    },
    Heal {
        a: NodeId,
        b: NodeId,
    },
    /// The controller has heard no heartbeat from a crashed or frozen broker for
    /// `broker.session.timeout.ms` (a consequence of `Crash` or `Freeze`, never scheduled by
    /// hand). Void when the broker came back, or went silent again, since. (Last, so that the
    /// variants before it keep their trace hashes.)
    SessionExpired {
        broker: u8,
        session: u32,
    },
    /// A thawed broker hears the controller again and takes the metadata it missed while
    /// frozen (a consequence of `Thaw`, never scheduled by hand): until then it acted on its
    /// old view, a zombie leader if it led. (Last, for the trace hashes.)
    MetadataCatchUp {
        broker: u8,
    },
}

impl Fault {
    pub fn target(&self) -> Option<NodeId> {
        match self {
            Fault::Freeze { node, .. }
            | Fault::Thaw { node }
            | Fault::Crash { node, .. }
            | Fault::Restart { node } => Some(*node),
            Fault::SessionExpired { broker, .. } | Fault::MetadataCatchUp { broker } => {
                Some(NodeId::Broker(*broker))
            }
            Fault::Partition { a, .. } | Fault::Heal { a, .. } => Some(*a),
            Fault::Drop { .. }
            | Fault::Delay { .. }
            | Fault::Duplicate { .. }
            | Fault::DropOnWire { .. }
            | Fault::DelayOnWire { .. }
            | Fault::LoseAck { .. }
            | Fault::Corrupt { .. } => None,
        }
    }
}

/// A fault and when it happens.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ScheduledFault {
    pub at: SimTime,
    pub fault: Fault,
}
