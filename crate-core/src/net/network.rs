//! Links with latency and seeded jitter, FIFO per direction like a TCP connection; cut links;
//! message faults armed from the schedule (drop, delay, duplicate, lose an append's ack); and
//! an optional random loss rate as an integer ratio.

use crate::ids::NodeId;
use crate::kafka::protocol::{Message, ProduceResult};
use crate::rng::Rng;
use crate::sim::event::Envelope;
use crate::sim::fault::{Fault, MessageMatch};
use crate::sim::note::{DropReason, Note};
use crate::time::SimTime;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NetworkConfig {
    pub latency: SimTime,
    pub jitter: SimTime,
    /// Random loss, in messages per million.
    pub loss_per_million: u32,
    /// Random loss of append acknowledgements only (the batch IS stored), per million.
    pub ack_loss_per_million: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ArmedFault {
    pub fault: Fault,
    pub remaining: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Network {
    pub config: NetworkConfig,
    pub cut: BTreeSet<(NodeId, NodeId)>,
    pub armed: Vec<ArmedFault>,
    #[serde(with = "crate::serde_pairs")]
    last_arrival: BTreeMap<(NodeId, NodeId), SimTime>,
}

fn link(a: NodeId, b: NodeId) -> (NodeId, NodeId) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

/// Whether a message on the wire matches a fault's filter.
pub fn matches(m: &MessageMatch, env: &Envelope) -> bool {
    m.from.is_none_or(|f| f == env.from)
        && m.to.is_none_or(|t| t == env.to)
        && m.kind.is_none_or(|k| k == env.msg.kind())
        && m.tp.is_none_or(|tp| Some(tp) == env.msg.tp())
}

impl Network {
    pub fn new(config: NetworkConfig) -> Self {
        Network {
            config,
            cut: BTreeSet::new(),
            armed: Vec::new(),
            last_arrival: BTreeMap::new(),
        }
    }

    pub fn cut_link(&mut self, a: NodeId, b: NodeId) {
        self.cut.insert(link(a, b));
    }

    pub fn heal_link(&mut self, a: NodeId, b: NodeId) {
        self.cut.remove(&link(a, b));
    }

    pub fn is_cut(&self, a: NodeId, b: NodeId) -> bool {
        self.cut.contains(&link(a, b))
    }

    pub fn arm(&mut self, fault: Fault, count: u32) {
        if count > 0 {
            self.armed.push(ArmedFault {
                fault,
                remaining: count,
            });
        }
    }

    /// Decides when (if ever) a message arrives; may return two arrival times for a
    /// duplicated message. Facts worth narrating go into `notes`.
    pub fn route(
        &mut self,
        env: &Envelope,
        now: SimTime,
        rng: &mut Rng,
        notes: &mut Vec<Note>,
    ) -> Vec<SimTime> {
        let dropped = |why| Note::MessageDropped {
            from: env.from,
            to: env.to,
            kind: env.msg.kind(),
            label: env.msg.label(),
            why,
        };
        if self.is_cut(env.from, env.to) {
            notes.push(dropped(DropReason::Partitioned));
            return Vec::new();
        }
        let mut extra_delay = 0;
        let mut duplicate_after = None;
        let mut i = 0;
        while i < self.armed.len() {
            let armed = &mut self.armed[i];
            let hit = match &armed.fault {
                Fault::Drop { matcher, .. } if matches(matcher, env) => {
                    notes.push(dropped(DropReason::Fault));
                    Some(true)
                }
                Fault::Delay { matcher, extra, .. } if matches(matcher, env) => {
                    extra_delay += *extra;
                    notes.push(Note::MessageDelayed {
                        from: env.from,
                        to: env.to,
                        kind: env.msg.kind(),
                        extra: *extra,
                    });
                    Some(false)
                }
                Fault::Duplicate { matcher, extra, .. } if matches(matcher, env) => {
                    duplicate_after = Some(*extra);
                    notes.push(Note::MessageDuplicated {
                        from: env.from,
                        to: env.to,
                        kind: env.msg.kind(),
                        extra: *extra,
                    });
                    Some(false)
                }
                Fault::LoseAck { tp, .. } => match &env.msg {
                    Message::ProduceResponse {
                        tp: msg_tp,
                        result: ProduceResult::Appended { base_offset },
                        ..
                    } if msg_tp == tp => {
                        notes.push(Note::AckLost {
                            broker: env.from,
                            producer: env.to,
                            tp: *tp,
                            base_offset: *base_offset,
                        });
                        Some(true)
                    }
                    _ => None,
                },
                _ => None,
            };
            match hit {
                Some(drop) => {
                    armed.remaining -= 1;
                    if armed.remaining == 0 {
                        self.armed.remove(i);
                    } else {
                        i += 1;
                    }
                    if drop {
                        return Vec::new();
                    }
                }
                None => i += 1,
            }
        }
        if self.config.ack_loss_per_million > 0 {
            if let Message::ProduceResponse {
                tp,
                result: ProduceResult::Appended { base_offset },
                ..
            } = &env.msg
            {
                if rng.chance(u64::from(self.config.ack_loss_per_million), 1_000_000) {
                    notes.push(Note::AckLost {
                        broker: env.from,
                        producer: env.to,
                        tp: *tp,
                        base_offset: *base_offset,
                    });
                    return Vec::new();
                }
            }
        }
        if self.config.loss_per_million > 0
            && rng.chance(u64::from(self.config.loss_per_million), 1_000_000)
        {
            notes.push(dropped(DropReason::RandomLoss));
            return Vec::new();
        }
        let jitter = rng.below_or_equal(self.config.jitter);
        let natural = now + self.config.latency + jitter;
        // TCP keeps each direction in order; an injected delay is the exception it shows.
        let key = (env.from, env.to);
        let arrival = if extra_delay > 0 {
            natural + extra_delay
        } else {
            let last = self.last_arrival.get(&key).copied().unwrap_or(0);
            let at = natural.max(last);
            self.last_arrival.insert(key, at);
            at
        };
        let mut arrivals = vec![arrival];
        if let Some(extra) = duplicate_after {
            arrivals.push(arrival + extra.max(1));
        }
        arrivals
    }
}
