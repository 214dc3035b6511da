//! Links with latency and seeded jitter, FIFO per direction like a TCP connection; cut links;
//! message faults armed from the schedule (drop, delay, duplicate, lose an append's ack); and
//! an optional random loss rate as an integer ratio.
//!
//! A producer client's connection to a broker behaves like the TCP stream it is: once one of
//! its messages is lost (a lost acknowledgement, a dropped request or response), nothing sent
//! after it on that direction arrives either. The connection stays stalled until the client
//! gives up on it after a request timeout and reconnects (the Java client and librdkafka both
//! close the connection on a request timeout), or until either end crashes or restarts.

use crate::ids::{NodeId, Tp};
use crate::kafka::protocol::{Message, ProduceResult};
use crate::rng::Rng;
use crate::sim::event::Envelope;
use crate::sim::fault::{Fault, MessageMatch};
use crate::sim::note::{DropReason, Note};
use crate::time::SimTime;
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

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
    last_arrival: VecMap<(NodeId, NodeId), SimTime>,
    /// Stalled producer connections, per direction (from, to): the id of the first message
    /// lost on it. Later messages on that direction never arrive.
    #[serde(with = "crate::serde_pairs", default)]
    stalled: VecMap<(NodeId, NodeId), u64>,
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
            last_arrival: VecMap::new(),
            stalled: VecMap::new(),
        }
    }

    /// Marks the direction of `env` stalled when `env` travels on a producer's connection:
    /// TCP delivers in order, so what follows the lost message is stuck behind it.
    pub fn stall_behind(&mut self, env: &Envelope) {
        if env.msg.on_producer_connection() {
            self.stalled.entry((env.from, env.to)).or_insert(env.id);
        }
    }

    /// Whether `env` is stuck behind a message lost earlier on its connection.
    pub fn is_stalled(&self, env: &Envelope) -> bool {
        env.msg.on_producer_connection()
            && self
                .stalled
                .get(&(env.from, env.to))
                .is_some_and(|lost| env.id > *lost)
    }

    /// The processes `node` has a stalled connection with, in order.
    pub fn stalled_peers(&self, node: NodeId) -> Vec<NodeId> {
        let mut peers: Vec<NodeId> = self
            .stalled
            .keys()
            .filter_map(|(from, to)| {
                if *from == node {
                    Some(*to)
                } else if *to == node {
                    Some(*from)
                } else {
                    None
                }
            })
            .collect();
        crate::order::sort(&mut peers);
        peers.dedup();
        peers
    }

    /// The client closed its connection to `b` (and will open a new one): both directions
    /// flow again.
    pub fn reconnect(&mut self, a: NodeId, b: NodeId) {
        self.stalled.remove(&(a, b));
        self.stalled.remove(&(b, a));
    }

    /// A process crashed or restarted: every connection it had is gone.
    pub fn forget_node(&mut self, node: NodeId) {
        self.stalled
            .retain(|(from, to), _| *from != node && *to != node);
    }

    /// Whether an armed `Corrupt` fault damages the next produce request for `tp` (and
    /// counts it).
    pub fn corrupts(&mut self, tp: Tp) -> bool {
        self.count_against(|f| matches!(f, Fault::Corrupt { tp: t, .. } if *t == tp))
    }

    /// An acknowledgement stuck behind a lost one counts against an armed `LoseAck` for its
    /// partition: "lose the next n acks" means n appends the producer never hears about,
    /// however they are lost.
    fn count_lost_ack(&mut self, env: &Envelope) {
        if let Message::ProduceResponse {
            tp,
            result: ProduceResult::Appended { .. },
            ..
        } = &env.msg
        {
            self.count_against(|f| matches!(f, Fault::LoseAck { tp: t, .. } if t == tp));
        }
    }

    /// Takes one off the first armed fault `hit` picks (disarming it at zero); false when
    /// none is armed.
    fn count_against(&mut self, hit: impl Fn(&Fault) -> bool) -> bool {
        let Some(i) = self.armed.iter().position(|a| hit(&a.fault)) else {
            return false;
        };
        if let Some(armed) = self.armed.get_mut(i) {
            armed.remaining = armed.remaining.saturating_sub(1);
            if armed.remaining == 0 {
                self.armed.remove(i);
            }
        }
        true
    }

    /// The note for a message swallowed by a stalled connection: an append's acknowledgement
    /// is an acknowledgement lost (the batch IS stored), anything else a drop.
    pub fn stalled_note(env: &Envelope) -> Note {
        match &env.msg {
            Message::ProduceResponse {
                tp,
                result: ProduceResult::Appended { base_offset },
                ..
            } => Note::AckLost {
                broker: env.from,
                producer: env.to,
                tp: *tp,
                base_offset: *base_offset,
                msg: env.id,
                sent_at: env.sent_at,
                behind: true,
            },
            _ => Note::MessageDropped {
                from: env.from,
                to: env.to,
                kind: env.msg.kind(),
                label: env.msg.label(),
                why: DropReason::StalledConnection,
                msg: env.id,
                sent_at: env.sent_at,
            },
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
            msg: env.id,
            sent_at: env.sent_at,
        };
        if self.is_cut(env.from, env.to) {
            notes.push(dropped(DropReason::Partitioned));
            return Vec::new();
        }
        if self.is_stalled(env) {
            self.count_lost_ack(env);
            notes.push(Self::stalled_note(env));
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
                            msg: env.id,
                            sent_at: env.sent_at,
                            behind: false,
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
                        self.stall_behind(env);
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
                        msg: env.id,
                        sent_at: env.sent_at,
                        behind: false,
                    });
                    self.stall_behind(env);
                    return Vec::new();
                }
            }
        }
        if self.config.loss_per_million > 0
            && rng.chance(u64::from(self.config.loss_per_million), 1_000_000)
        {
            notes.push(dropped(DropReason::RandomLoss));
            self.stall_behind(env);
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
