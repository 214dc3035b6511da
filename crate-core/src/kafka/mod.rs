//! Kafka: partition logs, brokers and replication, the idempotent producer, consumers.

pub mod broker;
pub mod broker_timer;
pub mod config;
pub mod consumer;
pub mod controller;
pub mod errors;
pub mod group_coordinator;
pub mod isr_expiry;
pub mod marker_wait;
pub mod partition_log;
pub mod partitioner;
pub mod position_epochs;
pub mod processor;
pub mod producer;
pub mod producer_state;
pub mod protocol;
pub mod replica;
pub mod txn_check;
pub mod txn_client;
pub mod txn_coordinator;
pub mod txn_index;
pub mod txn_log;
pub mod txn_state;

pub use errors::KafkaError;

use serde::{Deserialize, Serialize};

/// Kafka's "no producer id" (`RecordBatch.NO_PRODUCER_ID`).
pub const NO_PRODUCER_ID: i64 = -1;
/// Kafka's "no producer epoch".
pub const NO_PRODUCER_EPOCH: i16 = -1;
/// Kafka's "no sequence".
pub const NO_SEQUENCE: i32 = -1;
/// How many batches per producer the broker remembers for de-duplication.
pub const PRODUCER_STATE_BATCHES: usize = 5;
/// The most requests an idempotent producer may have in flight per connection.
pub const MAX_IN_FLIGHT_FOR_IDEMPOTENCE: u32 = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Acks {
    /// acks=0: fire and forget.
    None,
    /// acks=1: the leader answers after its own append.
    Leader,
    /// acks=all (-1): the leader answers once every in-sync replica has the batch.
    All,
}

impl Acks {
    pub fn as_config(self) -> &'static str {
        match self {
            Acks::None => "0",
            Acks::Leader => "1",
            Acks::All => "all",
        }
    }
}

/// `auto.offset.reset`: where a consumer starts a partition it has no committed offset for,
/// or goes when its position is past the log end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OffsetReset {
    /// The log's start (offset 0 here: nothing is ever deleted).
    #[default]
    Earliest,
    /// The log's end as the consumer may read it (ListOffsets: the high watermark, or the
    /// last stable offset under read_committed): what is already there is skipped.
    Latest,
    /// None: `poll()` throws (NoOffsetForPartitionException, OffsetOutOfRangeException) and
    /// the application stops.
    #[serde(rename = "none")]
    Fail,
}

impl OffsetReset {
    pub fn as_config(self) -> &'static str {
        match self {
            OffsetReset::Earliest => "earliest",
            OffsetReset::Latest => "latest",
            OffsetReset::Fail => "none",
        }
    }

    pub fn parse(text: &str) -> Option<OffsetReset> {
        [
            OffsetReset::Earliest,
            OffsetReset::Latest,
            OffsetReset::Fail,
        ]
        .into_iter()
        .find(|r| r.as_config() == text)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Isolation {
    ReadUncommitted,
    ReadCommitted,
}

impl Isolation {
    pub fn as_config(self) -> &'static str {
        match self {
            Isolation::ReadUncommitted => "read_uncommitted",
            Isolation::ReadCommitted => "read_committed",
        }
    }
}
