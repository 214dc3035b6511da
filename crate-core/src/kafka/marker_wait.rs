//! A partition leader's answer to WriteTxnMarkers. Kafka writes markers with `acks=-1`
//! (`KafkaApis.handleWriteTxnMarkersRequest`): a marker is refused while the ISR is smaller
//! than `min.insync.replicas` (NOT_ENOUGH_REPLICAS, before the append), and once appended its
//! answer waits, as a producer's `acks=all` write does (`DelayedProduce`), until the in-sync
//! replicas have it. One answer per request, for all its partitions.

use super::broker::Broker;
use super::errors::KafkaError;
use super::protocol::Message;
use crate::ids::{NodeId, Tp};
use crate::sim::Ctx;
use serde::{Deserialize, Serialize};

/// One partition of a WriteTxnMarkers request, as the leader stands with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MarkerPart {
    /// Answered: written and replicated (`None`), or refused.
    Done(Option<KafkaError>),
    /// Appended below `end_offset`: waits for the high watermark to reach it.
    Waiting { end_offset: u64 },
}

/// A WriteTxnMarkers request whose answer waits for some partition's replicas.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MarkerWait {
    pub request_id: u64,
    pub coordinator: NodeId,
    pub parts: Vec<(Tp, MarkerPart)>,
}

impl Broker {
    /// Answers every WriteTxnMarkers request whose partitions are all settled: replicated
    /// to the ISR (NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR is then too small), or no
    /// longer led here (NOT_LEADER_OR_FOLLOWER). The others keep waiting.
    pub fn answer_markers(&mut self, ctx: &mut Ctx) {
        if self.marker_waits.is_empty() {
            return;
        }
        let (me, node) = (self.id, self.node());
        let mut still = Vec::new();
        for mut wait in std::mem::take(&mut self.marker_waits) {
            for (tp, part) in &mut wait.parts {
                let MarkerPart::Waiting { end_offset } = *part else {
                    continue;
                };
                match self.replicas.get(tp).filter(|r| r.is_leader(me)) {
                    None => *part = MarkerPart::Done(Some(KafkaError::NotLeaderOrFollower)),
                    Some(r) if r.high_watermark >= end_offset => {
                        let too_few = r.too_few_in_sync();
                        *part = MarkerPart::Done(
                            too_few.then_some(KafkaError::NotEnoughReplicasAfterAppend),
                        );
                    }
                    Some(_) => {}
                }
            }
            let results: Option<Vec<(Tp, Option<KafkaError>)>> = wait
                .parts
                .iter()
                .map(|(tp, part)| match part {
                    MarkerPart::Done(error) => Some((*tp, *error)),
                    MarkerPart::Waiting { .. } => None,
                })
                .collect();
            match results {
                Some(results) => ctx.send_as(
                    node,
                    wait.coordinator,
                    Message::WriteTxnMarkersResponse {
                        request_id: wait.request_id,
                        results,
                    },
                ),
                None => still.push(wait),
            }
        }
        self.marker_waits = still;
    }
}
