//! Kafka's error codes, with the names Kafka gives them, and their classes.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum KafkaError {
    OutOfOrderSequenceNumber,
    InvalidProducerEpoch,
    NotLeaderOrFollower,
    RequestTimedOut,
    /// The client closed the connection the request was on (another request on it timed
    /// out); retriable, with the same pid, epoch and sequence.
    NetworkException,
    /// The batch's CRC does not match its contents: the broker stores nothing; retriable.
    CorruptMessage,
    DeliveryTimeout,
    /// The request does not fit the transaction's state (EndTxn with no transaction, commit
    /// after a decided abort, ...).
    InvalidTxnState,
    /// A newer instance (higher epoch) owns the transactional id: fatal, close the producer.
    ProducerFenced,
    /// The coordinator is still completing a transition for this transactional id (writing
    /// the log, or waiting for markers): back off and retry.
    ConcurrentTransactions,
    /// The transaction cannot go on: abort it and rewind the input to the committed offsets.
    TransactionAbortable,
    /// The producer id does not belong to this transactional id.
    InvalidProducerIdMapping,
    /// `transaction.timeout.ms` above the broker maximum (or zero).
    InvalidTransactionTimeout,
    /// A transaction holds offsets for the partition (KIP-447): ask again later.
    UnstableOffsetCommit,
    /// An `acks=all` write to a partition with fewer in-sync replicas than
    /// `min.insync.replicas`: refused before the append. Also Kafka's answer when a partition
    /// leader could not confirm with the transaction coordinator that the partition is in the
    /// transaction (KIP-890: the coordinator was busy or unreachable); it does not make the
    /// client refresh its metadata. Retriable.
    NotEnoughReplicas,
    /// An `acks=all` write appended and copied to every in-sync replica, but those are fewer
    /// than `min.insync.replicas` (the ISR shrank while it waited): the records stay in the
    /// log, and a retry may store them twice. Retriable.
    NotEnoughReplicasAfterAppend,
    /// The group coordinator could not reach the transaction coordinator for a
    /// TxnOffsetCommit's check (KIP-890). Retriable.
    CoordinatorNotAvailable,
    /// The broker no longer coordinates the transactional id (its `__transaction_state`
    /// partition moved): the client looks the coordinator up again. Retriable.
    NotCoordinator,
    /// A fetch from an offset past the leader's log end: the reader resets its position by
    /// `auto.offset.reset` (here, earliest).
    OffsetOutOfRange,
}

impl KafkaError {
    pub fn name(self) -> &'static str {
        match self {
            KafkaError::OutOfOrderSequenceNumber => "OUT_OF_ORDER_SEQUENCE_NUMBER",
            KafkaError::InvalidProducerEpoch => "INVALID_PRODUCER_EPOCH",
            KafkaError::NotLeaderOrFollower => "NOT_LEADER_OR_FOLLOWER",
            KafkaError::RequestTimedOut => "REQUEST_TIMED_OUT",
            KafkaError::NetworkException => "NETWORK_EXCEPTION",
            KafkaError::CorruptMessage => "CORRUPT_MESSAGE",
            KafkaError::DeliveryTimeout => "DELIVERY_TIMEOUT",
            KafkaError::InvalidTxnState => "INVALID_TXN_STATE",
            KafkaError::ProducerFenced => "PRODUCER_FENCED",
            KafkaError::ConcurrentTransactions => "CONCURRENT_TRANSACTIONS",
            KafkaError::TransactionAbortable => "TRANSACTION_ABORTABLE",
            KafkaError::InvalidProducerIdMapping => "INVALID_PRODUCER_ID_MAPPING",
            KafkaError::InvalidTransactionTimeout => "INVALID_TRANSACTION_TIMEOUT",
            KafkaError::UnstableOffsetCommit => "UNSTABLE_OFFSET_COMMIT",
            KafkaError::NotEnoughReplicas => "NOT_ENOUGH_REPLICAS",
            KafkaError::NotEnoughReplicasAfterAppend => "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
            KafkaError::CoordinatorNotAvailable => "COORDINATOR_NOT_AVAILABLE",
            KafkaError::NotCoordinator => "NOT_COORDINATOR",
            KafkaError::OffsetOutOfRange => "OFFSET_OUT_OF_RANGE",
        }
    }

    /// Whether the client may retry the same request unchanged (for a batch: the same pid,
    /// epoch and sequence).
    pub fn is_retriable(self) -> bool {
        matches!(
            self,
            KafkaError::NotLeaderOrFollower
                | KafkaError::RequestTimedOut
                | KafkaError::NetworkException
                | KafkaError::CorruptMessage
                | KafkaError::ConcurrentTransactions
                | KafkaError::UnstableOffsetCommit
                | KafkaError::NotEnoughReplicas
                | KafkaError::NotEnoughReplicasAfterAppend
                | KafkaError::CoordinatorNotAvailable
                | KafkaError::NotCoordinator
        )
    }
}

impl fmt::Display for KafkaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
