//! What a producer client is waiting for, with the deadlines it will act on: each request on
//! the wire against `request.timeout.ms`, each batch waiting out its retry backoff. The page
//! draws them as countdown rings.

use super::event::Timer;
use super::simulation::Simulation;
use crate::ids::{NodeId, Tp};
use crate::kafka::producer::{Producer, ProducerTimer};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientTimerKind {
    /// A produce request on the wire: if no answer comes by `until`, it times out.
    Request,
    /// A batch waiting to be retried at `until`.
    Backoff,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientTimer {
    pub kind: ClientTimerKind,
    pub tp: Tp,
    pub base_sequence: i32,
    pub records: usize,
    /// The batch's first record.
    pub first_record: Option<crate::ids::RecordId>,
    /// Attempts made so far (a request on the wire is attempt `attempts`).
    pub attempts: u32,
    pub from: SimTime,
    pub until: SimTime,
}

/// The producer's pending request timeouts and backoffs, earliest deadline first.
pub fn producer_timers(sim: &Simulation, producer: &Producer) -> Vec<ClientTimer> {
    let me = producer.owner.unwrap_or(NodeId::Producer(producer.index));
    let mut out = Vec::new();
    for (until, timer) in sim.pending_timers_of(me) {
        let (kind, batch_id, from) = match timer {
            Timer::Producer(ProducerTimer::RequestTimeout { request_id }) => {
                let Some(flight) = producer.in_flight.get(request_id) else {
                    continue;
                };
                (ClientTimerKind::Request, flight.batch_id, flight.sent_at)
            }
            Timer::Producer(ProducerTimer::BackoffOver { batch_id }) => {
                let Some(batch) = producer.batches.get(batch_id) else {
                    continue;
                };
                if !batch.backing_off {
                    continue;
                }
                (ClientTimerKind::Backoff, *batch_id, batch.backoff_from)
            }
            _ => continue,
        };
        let Some(batch) = producer.batches.get(&batch_id) else {
            continue;
        };
        out.push(ClientTimer {
            kind,
            tp: batch.tp,
            base_sequence: batch.base_sequence,
            records: batch.records.len(),
            first_record: batch.records.first().map(|r| r.value),
            attempts: batch.attempts,
            from,
            until,
        });
    }
    crate::order::sort_by_key(&mut out, |t| (t.until, t.tp, t.base_sequence));
    out
}
