//! What the engine knows of each process: alive, frozen (with the events it could not
//! process yet) or crashed, and its incarnation.

use super::event::Scheduled;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NodeStatus {
    pub crashed: bool,
    pub frozen: bool,
    /// Bumped at each crash so that timers set before it are void.
    pub incarnation: u32,
    /// A crashed or frozen broker the controller has not fenced yet (its session has not
    /// expired).
    #[serde(default)]
    pub unfenced: bool,
    /// Bumped when a broker stops heartbeating (a crash or a freeze), so that the session
    /// expiry of an earlier silence is void.
    #[serde(default)]
    pub session: u32,
    /// A frozen broker the controller fenced: it registers again when it thaws.
    #[serde(default)]
    pub fenced: bool,
    /// A crashed broker restarted while its old session lasts: the controller refuses its
    /// registration until the session expires, and until then it serves nothing.
    #[serde(default)]
    pub registering: bool,
    /// Events that arrived while frozen, in arrival order; replayed at the thaw.
    pub held: Vec<Scheduled>,
    /// A client's Metadata request in flight: (its request id, the broker, when sent). One
    /// at a time, as Kafka's clients do; an answer to any other is ignored.
    #[serde(default)]
    pub metadata_asked: Option<(u64, super::super::ids::NodeId, super::super::time::SimTime)>,
}
