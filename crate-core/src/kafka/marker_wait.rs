//! A partition leader's answer to WriteTxnMarkers. Kafka writes markers with `acks=-1`
//! (`KafkaApis.handleWriteTxnMarkersRequest`): a marker is refused while the ISR is smaller
//! than `min.insync.replicas` (NOT_ENOUGH_REPLICAS, before the append), and once appended its
//! answer waits, as a producer's `acks=all` write does (`DelayedProduce`), until the in-sync
//! replicas have it. One answer per request, for all its partitions; what still waits at the
//! request's timeout (the broker's `request.timeout.ms`) is answered REQUEST_TIMED_OUT.

use super::broker::Broker;
use super::broker_timer::BrokerTimer;
use super::errors::KafkaError;
use super::protocol::Message;
use crate::ids::{NodeId, Tp};
use crate::sim::{Ctx, Timer};
use crate::time::ms;
use serde::{Deserialize, Serialize};

/// The broker's `request.timeout.ms` (Kafka's default), which a WriteTxnMarkers request's
/// `DelayedProduce` waits at most.
pub const MARKER_ANSWER_TIMEOUT_MS: u64 = 30_000;

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
    /// Takes a WriteTxnMarkers request's partitions as the leader settled them: answered now
    /// if none waits, else once they are replicated or at the request's timeout. Returns the
    /// partitions that wait, with their marker's offset.
    pub(super) fn hold_marker_answer(&mut self, wait: MarkerWait, ctx: &mut Ctx) -> Vec<(Tp, u64)> {
        let (request_id, coordinator) = (wait.request_id, wait.coordinator);
        self.marker_waits.push(wait);
        self.answer_markers(ctx);
        let waiting: Vec<(Tp, u64)> = self
            .marker_waits
            .iter()
            .filter(|w| w.request_id == request_id && w.coordinator == coordinator)
            .flat_map(|w| &w.parts)
            .filter_map(|(tp, part)| match part {
                MarkerPart::Waiting { end_offset } => Some((*tp, end_offset.saturating_sub(1))),
                MarkerPart::Done(_) => None,
            })
            .collect();
        if !waiting.is_empty() {
            ctx.set_timer(
                ms(MARKER_ANSWER_TIMEOUT_MS),
                Timer::Broker(BrokerTimer::MarkerAnswerDue {
                    request_id,
                    coordinator,
                }),
            );
        }
        waiting
    }

    /// The request's timeout: what still waits is answered REQUEST_TIMED_OUT. False if it
    /// was answered already.
    pub(super) fn marker_answer_due(
        &mut self,
        request_id: u64,
        coordinator: NodeId,
        ctx: &mut Ctx,
    ) -> bool {
        let Some(wait) = self
            .marker_waits
            .iter_mut()
            .find(|w| w.request_id == request_id && w.coordinator == coordinator)
        else {
            return false;
        };
        for (_, part) in &mut wait.parts {
            if matches!(part, MarkerPart::Waiting { .. }) {
                *part = MarkerPart::Done(Some(KafkaError::RequestTimedOut));
            }
        }
        self.answer_markers(ctx);
        true
    }

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
