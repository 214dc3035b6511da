//! Kafka's error codes, with the names Kafka gives them, and their classes.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum KafkaError {
    OutOfOrderSequenceNumber,
    InvalidProducerEpoch,
    NotLeaderOrFollower,
    RequestTimedOut,
    DeliveryTimeout,
}

impl KafkaError {
    pub fn name(self) -> &'static str {
        match self {
            KafkaError::OutOfOrderSequenceNumber => "OUT_OF_ORDER_SEQUENCE_NUMBER",
            KafkaError::InvalidProducerEpoch => "INVALID_PRODUCER_EPOCH",
            KafkaError::NotLeaderOrFollower => "NOT_LEADER_OR_FOLLOWER",
            KafkaError::RequestTimedOut => "REQUEST_TIMED_OUT",
            KafkaError::DeliveryTimeout => "DELIVERY_TIMEOUT",
        }
    }

    /// Whether the client may retry the same batch (same pid, epoch and sequence).
    pub fn is_retriable(self) -> bool {
        matches!(
            self,
            KafkaError::NotLeaderOrFollower | KafkaError::RequestTimedOut
        )
    }
}

impl fmt::Display for KafkaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
