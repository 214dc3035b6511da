//! The requests and responses that travel between simulated processes.

use super::errors::KafkaError;
use super::partition_log::{LogRecord, StoredBatch};
use super::txn_index::{AbortedTxn, ControlType, FetchedEntry};
use super::txn_state::TxnProtocolVersion;
use super::{Acks, Isolation};
use crate::ids::Tp;
use serde::{Deserialize, Serialize};

/// A batch as a producer sends it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProducerBatch {
    pub producer_id: i64,
    pub epoch: i16,
    pub base_sequence: i32,
    pub records: Vec<LogRecord>,
    /// Part of a transaction.
    pub transactional: bool,
    /// Damaged on the way (a `corrupt` fault): its CRC will not match at the broker.
    #[serde(default)]
    pub corrupt: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ProduceResult {
    Appended {
        base_offset: u64,
    },
    /// The broker recognised the batch and answers with the offset it was first stored at.
    Duplicate {
        base_offset: u64,
    },
    Error {
        error: KafkaError,
        leader_hint: Option<u8>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FetchBody {
    /// Data and control entries in log order, up to the isolation level's bound.
    pub entries: Vec<FetchedEntry>,
    /// For read_committed: the aborted transactions in the fetched range.
    pub aborted: Vec<AbortedTxn>,
    pub high_watermark: u64,
    pub last_stable_offset: u64,
    /// Where the consumer's next fetch starts.
    pub next_offset: u64,
    /// The leader epoch of the last entry served: the epoch of the reader's next position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_epoch: Option<u32>,
    /// The reader's log parted from this one below its position (KIP-320): nothing is served,
    /// and the reader goes back to where its epoch ends here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diverging: Option<DivergingEpoch>,
}

/// Kafka's `DivergingEpoch`: the reader's leader epoch and where the leader's log ends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DivergingEpoch {
    pub epoch: u32,
    pub end_offset: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Message {
    InitProducerId {
        request_id: u64,
        /// With a transactional id the transaction coordinator answers: same id, same
        /// producer id, a bumped epoch that fences older instances.
        transactional_id: Option<String>,
        transaction_timeout_ms: u64,
    },
    InitProducerIdResponse {
        request_id: u64,
        producer_id: i64,
        epoch: i16,
        error: Option<KafkaError>,
    },
    AddPartitionsToTxn {
        request_id: u64,
        transactional_id: String,
        producer_id: i64,
        epoch: i16,
        partitions: Vec<Tp>,
        /// From a partition leader under transaction protocol 1 (KIP-890 part 1): only ask
        /// whether the partitions are in the transaction, add nothing.
        #[serde(default)]
        verify_only: bool,
    },
    AddOffsetsToTxn {
        request_id: u64,
        transactional_id: String,
        producer_id: i64,
        epoch: i16,
        group: String,
    },
    TxnOffsetCommit {
        request_id: u64,
        transactional_id: String,
        group: String,
        producer_id: i64,
        epoch: i16,
        offsets: Vec<(Tp, u64)>,
        /// The leader epochs of the offsets, where known (KIP-320's committed leader epoch).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        leader_epochs: Vec<(Tp, u32)>,
    },
    EndTxn {
        request_id: u64,
        transactional_id: String,
        producer_id: i64,
        epoch: i16,
        commit: bool,
    },
    /// The answer to AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit and EndTxn. Under
    /// transactions v2 an EndTxn answer carries the bumped epoch.
    TxnResponse {
        request_id: u64,
        error: Option<KafkaError>,
        producer_id: i64,
        epoch: i16,
    },
    WriteTxnMarkers {
        request_id: u64,
        producer_id: i64,
        epoch: i16,
        control: ControlType,
        protocol: TxnProtocolVersion,
        partitions: Vec<Tp>,
    },
    WriteTxnMarkersResponse {
        request_id: u64,
        results: Vec<(Tp, Option<KafkaError>)>,
    },
    Produce {
        request_id: u64,
        tp: Tp,
        acks: Acks,
        batch: ProducerBatch,
        /// A transactional producer's id: the leader asks its coordinator about the batch's
        /// transaction (KIP-890).
        #[serde(default)]
        transactional_id: Option<String>,
        /// Sent by a client of transaction protocol 2 (Produce v12): the leader adds the
        /// partition to the transaction; for an older client it only verifies it.
        #[serde(default)]
        leader_adds: bool,
    },
    ProduceResponse {
        request_id: u64,
        tp: Tp,
        result: ProduceResult,
    },
    Replicate {
        tp: Tp,
        leader_epoch: u32,
        from_offset: u64,
        batches: Vec<StoredBatch>,
        leader_high_watermark: u64,
    },
    ReplicateResponse {
        tp: Tp,
        leader_epoch: u32,
        log_end_offset: u64,
    },
    Fetch {
        request_id: u64,
        tp: Tp,
        offset: u64,
        isolation: Isolation,
        max_records: u32,
        /// The leader epoch of the record before `offset` as the reader saw it (KIP-320's
        /// position validation): the leader answers `diverging` if its log ends that epoch
        /// below `offset`. `None` when the reader does not know it (a committed offset).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        last_epoch: Option<u32>,
    },
    FetchResponse {
        request_id: u64,
        tp: Tp,
        result: Result<FetchBody, (KafkaError, Option<u8>)>,
    },
    OffsetCommit {
        request_id: u64,
        group: String,
        offsets: Vec<(Tp, u64)>,
        /// The leader epochs of the offsets, where known (KIP-320's committed leader epoch).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        leader_epochs: Vec<(Tp, u32)>,
    },
    OffsetCommitResponse {
        request_id: u64,
    },
    OffsetFetch {
        request_id: u64,
        group: String,
        partitions: Vec<Tp>,
    },
    OffsetFetchResponse {
        request_id: u64,
        offsets: Vec<(Tp, Option<u64>)>,
        error: Option<KafkaError>,
        /// The leader epochs committed with the offsets, where there are.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        leader_epochs: Vec<(Tp, u32)>,
    },
    /// Flink's RPC between the JobManager and the tasks (checkpoint trigger, acknowledgement,
    /// notifications).
    Flink(crate::flink::rpc::Rpc),
    /// A client asks a broker for the cluster's metadata: who leads each partition (after a
    /// request of its own timed out, as Kafka's clients do).
    Metadata {
        request_id: u64,
    },
    /// The broker's answer: the leaders as it knows them (a broker that missed the
    /// controller's news answers with what it last heard).
    MetadataResponse {
        request_id: u64,
        leaders: Vec<(Tp, Option<u8>)>,
        /// Transaction coordination moved off a fenced broker (FindCoordinator's answer,
        /// carried here): (the broker ids hash to, the broker coordinating them now).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        coordinator_moves: Vec<(u8, u8)>,
    },
    /// A consumer with no position on `tp` asks its leader where the log ends for it
    /// (`auto.offset.reset=latest`: ListOffsets with the LATEST timestamp).
    ListOffsets {
        request_id: u64,
        tp: Tp,
        isolation: Isolation,
    },
    /// The offset: the high watermark, or the last stable offset under read_committed.
    ListOffsetsResponse {
        request_id: u64,
        tp: Tp,
        result: Result<u64, (KafkaError, Option<u8>)>,
    },
}

/// What kind of message this is, for filters, faults and the UI.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    InitProducerId,
    InitProducerIdResponse,
    Produce,
    ProduceResponse,
    Replicate,
    ReplicateResponse,
    Fetch,
    FetchResponse,
    OffsetCommit,
    OffsetCommitResponse,
    OffsetFetch,
    OffsetFetchResponse,
    AddPartitionsToTxn,
    AddOffsetsToTxn,
    TxnOffsetCommit,
    EndTxn,
    TxnResponse,
    WriteTxnMarkers,
    WriteTxnMarkersResponse,
    CheckpointTrigger,
    CheckpointAck,
    CheckpointNotify,
    CheckpointAbort,
    Metadata,
    MetadataResponse,
    ListOffsets,
    ListOffsetsResponse,
}

impl MessageKind {
    pub const ALL: [MessageKind; 27] = [
        MessageKind::InitProducerId,
        MessageKind::InitProducerIdResponse,
        MessageKind::Produce,
        MessageKind::ProduceResponse,
        MessageKind::Replicate,
        MessageKind::ReplicateResponse,
        MessageKind::Fetch,
        MessageKind::FetchResponse,
        MessageKind::OffsetCommit,
        MessageKind::OffsetCommitResponse,
        MessageKind::OffsetFetch,
        MessageKind::OffsetFetchResponse,
        MessageKind::AddPartitionsToTxn,
        MessageKind::AddOffsetsToTxn,
        MessageKind::TxnOffsetCommit,
        MessageKind::EndTxn,
        MessageKind::TxnResponse,
        MessageKind::WriteTxnMarkers,
        MessageKind::WriteTxnMarkersResponse,
        MessageKind::CheckpointTrigger,
        MessageKind::CheckpointAck,
        MessageKind::CheckpointNotify,
        MessageKind::CheckpointAbort,
        MessageKind::Metadata,
        MessageKind::MetadataResponse,
        MessageKind::ListOffsets,
        MessageKind::ListOffsetsResponse,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MessageKind::InitProducerId => "init_producer_id",
            MessageKind::InitProducerIdResponse => "init_producer_id_response",
            MessageKind::Produce => "produce",
            MessageKind::ProduceResponse => "produce_response",
            MessageKind::Replicate => "replicate",
            MessageKind::ReplicateResponse => "replicate_response",
            MessageKind::Fetch => "fetch",
            MessageKind::FetchResponse => "fetch_response",
            MessageKind::OffsetCommit => "offset_commit",
            MessageKind::OffsetCommitResponse => "offset_commit_response",
            MessageKind::OffsetFetch => "offset_fetch",
            MessageKind::OffsetFetchResponse => "offset_fetch_response",
            MessageKind::AddPartitionsToTxn => "add_partitions_to_txn",
            MessageKind::AddOffsetsToTxn => "add_offsets_to_txn",
            MessageKind::TxnOffsetCommit => "txn_offset_commit",
            MessageKind::EndTxn => "end_txn",
            MessageKind::TxnResponse => "txn_response",
            MessageKind::WriteTxnMarkers => "write_txn_markers",
            MessageKind::WriteTxnMarkersResponse => "write_txn_markers_response",
            MessageKind::CheckpointTrigger => "checkpoint_trigger",
            MessageKind::CheckpointAck => "checkpoint_ack",
            MessageKind::CheckpointNotify => "checkpoint_notify",
            MessageKind::CheckpointAbort => "checkpoint_abort",
            MessageKind::Metadata => "metadata",
            MessageKind::MetadataResponse => "metadata_response",
            MessageKind::ListOffsets => "list_offsets",
            MessageKind::ListOffsetsResponse => "list_offsets_response",
        }
    }

    pub fn parse(name: &str) -> Option<MessageKind> {
        MessageKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl Message {
    /// Whether the message travels on a producer client's connection to a broker: its
    /// requests and the broker's answers to them.
    pub fn on_producer_connection(&self) -> bool {
        matches!(
            self,
            Message::InitProducerId { .. }
                | Message::InitProducerIdResponse { .. }
                | Message::AddPartitionsToTxn { .. }
                | Message::AddOffsetsToTxn { .. }
                | Message::TxnOffsetCommit { .. }
                | Message::EndTxn { .. }
                | Message::TxnResponse { .. }
                | Message::Produce { .. }
                | Message::ProduceResponse { .. }
        )
    }

    pub fn kind(&self) -> MessageKind {
        match self {
            Message::InitProducerId { .. } => MessageKind::InitProducerId,
            Message::InitProducerIdResponse { .. } => MessageKind::InitProducerIdResponse,
            Message::Produce { .. } => MessageKind::Produce,
            Message::ProduceResponse { .. } => MessageKind::ProduceResponse,
            Message::Replicate { .. } => MessageKind::Replicate,
            Message::ReplicateResponse { .. } => MessageKind::ReplicateResponse,
            Message::Fetch { .. } => MessageKind::Fetch,
            Message::FetchResponse { .. } => MessageKind::FetchResponse,
            Message::OffsetCommit { .. } => MessageKind::OffsetCommit,
            Message::OffsetCommitResponse { .. } => MessageKind::OffsetCommitResponse,
            Message::OffsetFetch { .. } => MessageKind::OffsetFetch,
            Message::OffsetFetchResponse { .. } => MessageKind::OffsetFetchResponse,
            Message::AddPartitionsToTxn { .. } => MessageKind::AddPartitionsToTxn,
            Message::AddOffsetsToTxn { .. } => MessageKind::AddOffsetsToTxn,
            Message::TxnOffsetCommit { .. } => MessageKind::TxnOffsetCommit,
            Message::EndTxn { .. } => MessageKind::EndTxn,
            Message::TxnResponse { .. } => MessageKind::TxnResponse,
            Message::WriteTxnMarkers { .. } => MessageKind::WriteTxnMarkers,
            Message::WriteTxnMarkersResponse { .. } => MessageKind::WriteTxnMarkersResponse,
            Message::Flink(rpc) => rpc.kind(),
            Message::Metadata { .. } => MessageKind::Metadata,
            Message::MetadataResponse { .. } => MessageKind::MetadataResponse,
            Message::ListOffsets { .. } => MessageKind::ListOffsets,
            Message::ListOffsetsResponse { .. } => MessageKind::ListOffsetsResponse,
        }
    }

    /// The partition the message is about, where it has one.
    pub fn tp(&self) -> Option<Tp> {
        match self {
            Message::Produce { tp, .. }
            | Message::ProduceResponse { tp, .. }
            | Message::Replicate { tp, .. }
            | Message::ReplicateResponse { tp, .. }
            | Message::Fetch { tp, .. }
            | Message::FetchResponse { tp, .. }
            | Message::ListOffsets { tp, .. }
            | Message::ListOffsetsResponse { tp, .. } => Some(*tp),
            Message::InitProducerId { .. }
            | Message::InitProducerIdResponse { .. }
            | Message::OffsetCommit { .. }
            | Message::OffsetCommitResponse { .. }
            | Message::OffsetFetch { .. }
            | Message::OffsetFetchResponse { .. }
            | Message::AddPartitionsToTxn { .. }
            | Message::AddOffsetsToTxn { .. }
            | Message::TxnOffsetCommit { .. }
            | Message::EndTxn { .. }
            | Message::TxnResponse { .. }
            | Message::WriteTxnMarkersResponse { .. }
            | Message::Flink(_)
            | Message::Metadata { .. }
            | Message::MetadataResponse { .. } => None,
            Message::WriteTxnMarkers { partitions, .. } => partitions.first().copied(),
        }
    }

    /// A short label for the UI: "produce seq 0–4", "ack @0".
    pub fn label(&self) -> String {
        match self {
            Message::InitProducerId { .. } => "InitProducerId".into(),
            Message::InitProducerIdResponse {
                producer_id,
                epoch,
                error,
                ..
            } => match error {
                None => format!("pid {producer_id} e{epoch}"),
                Some(e) => e.name().to_string(),
            },
            Message::Produce { batch, .. } => {
                if batch.base_sequence < 0 {
                    format!("produce ×{}", batch.records.len())
                } else {
                    format!(
                        "produce seq {}",
                        super::partition_log::sequence_add(
                            batch.base_sequence,
                            batch.records.len() as i32 - 1
                        )
                    )
                }
            }
            Message::ProduceResponse { result, .. } => match result {
                ProduceResult::Appended { base_offset } => format!("ack @{base_offset}"),
                ProduceResult::Duplicate { base_offset } => format!("dup ack @{base_offset}"),
                ProduceResult::Error { error, .. } => error.name().to_string(),
            },
            Message::Replicate { batches, .. } => format!("replicate ×{}", batches.len()),
            Message::ReplicateResponse { log_end_offset, .. } => format!("leo {log_end_offset}"),
            Message::Fetch { offset, .. } => format!("fetch @{offset}"),
            Message::FetchResponse { result, .. } => match result {
                Ok(body) if body.entries.len() == 1 => "1 entry".to_string(),
                Ok(body) => format!("{} entries", body.entries.len()),
                Err((e, _)) => e.name().to_string(),
            },
            Message::AddPartitionsToTxn {
                partitions,
                verify_only: true,
                ..
            } => format!("AddPartitionsToTxn ×{} (verify)", partitions.len()),
            Message::AddPartitionsToTxn { partitions, .. } => {
                format!("AddPartitionsToTxn ×{}", partitions.len())
            }
            Message::AddOffsetsToTxn { group, .. } => format!("AddOffsetsToTxn {group}"),
            Message::TxnOffsetCommit { .. } => "TxnOffsetCommit".into(),
            Message::EndTxn { commit, .. } => {
                format!("EndTxn({})", if *commit { "commit" } else { "abort" })
            }
            Message::TxnResponse { error, .. } => match error {
                None => "txn ok".into(),
                Some(e) => e.name().to_string(),
            },
            Message::WriteTxnMarkers { control, .. } => format!("marker {}", control.name()),
            Message::WriteTxnMarkersResponse { .. } => "markers written".into(),
            Message::OffsetCommit { offsets, .. } => {
                let list: Vec<String> = offsets.iter().map(|(_, o)| o.to_string()).collect();
                format!("commit {}", list.join(","))
            }
            Message::OffsetCommitResponse { .. } => "commit ok".into(),
            Message::OffsetFetch { .. } => "offset fetch".into(),
            Message::OffsetFetchResponse { offsets, .. } => {
                let list: Vec<String> = offsets
                    .iter()
                    .map(|(_, o)| o.map_or("-".to_string(), |o| o.to_string()))
                    .collect();
                format!("committed {}", list.join(","))
            }
            Message::Flink(rpc) => rpc.label(),
            Message::Metadata { .. } => "leaders?".into(),
            Message::ListOffsets { .. } => "ListOffsets latest".into(),
            Message::ListOffsetsResponse { result, .. } => match result {
                Ok(offset) => format!("offset {offset}"),
                Err((e, _)) => e.name().to_string(),
            },
            // The leader of each partition, in order ("-": none): "leader: broker 0" for one
            // partition, "leaders: broker 0×3" when one broker leads them all, else
            // "leaders: brokers 0,1,-". (Not "leaders 0", which reads as none.)
            Message::MetadataResponse { leaders, .. } => {
                let list: Vec<String> = leaders
                    .iter()
                    .map(|(_, l)| l.map_or("-".to_string(), |b| b.to_string()))
                    .collect();
                match list.as_slice() {
                    [one] => format!("leader: broker {one}"),
                    [first, ..] if list.iter().all(|l| l == first) => {
                        format!("leaders: broker {first}×{}", list.len())
                    }
                    _ => format!("leaders: brokers {}", list.join(",")),
                }
            }
        }
    }
}
