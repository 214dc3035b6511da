//! A broker's own timers (the transaction coordinator it hosts has `CoordinatorTimer`).

use crate::time::SimTime;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BrokerTimer {
    /// The "isr-expiration" task's look at time `at`.
    IsrExpiration { at: SimTime },
    /// A WriteTxnMarkers answer still waiting for the replicas at the request's timeout
    /// (`marker_wait`): what still waits is answered REQUEST_TIMED_OUT.
    MarkerAnswerDue {
        request_id: u64,
        coordinator: crate::ids::NodeId,
    },
}
