//! The controller's part, kept deliberately small: when a broker dies, partitions it led get
//! a new leader from the in-sync replicas (or, where the topic enables unclean leader
//! election and none is left, from the live replicas out of sync); when it comes back, it
//! truncates to what the leader has and catches up. Metadata reaches every broker at once (a
//! stand-in for KRaft's metadata log), except a frozen one: it keeps what it missed in
//! `missed_metadata` and applies it when it thaws (`catch_up`), after serving what waited.

use super::broker::{push_to_followers, release_acks, send_missing, Broker, MetadataUpdate};
use super::errors::KafkaError;
use super::protocol::{Message, ProduceResult};
use crate::ids::{NodeId, Tp};
use crate::sim::{Ctx, Note};
use crate::time::SimTime;
use std::collections::BTreeSet;

fn partitions(brokers: &[Broker]) -> BTreeSet<Tp> {
    crate::order::set_of(brokers.iter().flat_map(|b| b.replicas.keys().copied()))
}

/// The metadata a partition gets: leader, leader epoch, ISR.
type Set<'a> = (Option<u8>, u32, &'a [u8]);

fn set_metadata(brokers: &mut [Broker], tp: Tp, (leader, epoch, isr): Set, now: SimTime) {
    for b in brokers.iter_mut() {
        if b.deaf {
            // A frozen broker hears nothing: it keeps its old view until it catches up.
            b.missed_metadata.retain(|m| m.tp != tp);
            b.missed_metadata.push(MetadataUpdate {
                tp,
                leader,
                leader_epoch: epoch,
                isr: isr.to_vec(),
            });
            continue;
        }
        apply(b, tp, (leader, epoch, isr), now);
    }
}

fn apply(b: &mut Broker, tp: Tp, (leader, epoch, isr): Set, now: SimTime) {
    b.leaders.insert(tp, leader);
    if let Some(r) = b.replicas.get_mut(&tp) {
        if leader == Some(b.id) && (r.leader != leader || r.leader_epoch != epoch) {
            // A new leader starts its followers' lag clocks (Kafka's `makeLeader`).
            r.leading_since = now;
        }
        r.leader = leader;
        r.leader_epoch = epoch;
        r.isr = isr.to_vec();
        if leader != Some(b.id) {
            r.follower_leo.clear();
            r.pending_acks.clear();
        }
    }
}

/// The leader of `tp` grew or shrank its ISR (AlterPartition): the controller's metadata
/// takes it, so that an election after the leader's failure sees who is in sync. A leader
/// the controller has replaced is not heard (Kafka fences it by its leader epoch).
pub fn isr_changed(brokers: &mut [Broker], tp: Tp, leader: u8, isr: &[u8], now: SimTime) {
    let Some((Some(l), epoch, _, _)) = brokers
        .iter()
        .find(|b| b.id == leader)
        .and_then(|b| meta_of(b, tp))
    else {
        return;
    };
    if l == leader {
        set_metadata(brokers, tp, (Some(leader), epoch, isr), now);
    }
}

/// The broker that takes fenced broker `failed`'s transaction coordination over: the next
/// live replica of the `__transaction_state` partition it led (replication factor
/// min(3, brokers), placed on the brokers after it), if any.
pub fn txn_successor(brokers: usize, alive: &[bool], failed: u8) -> Option<u8> {
    (1..brokers.min(3))
        .map(|k| ((usize::from(failed) + k) % brokers) as u8)
        .find(|b| alive.get(usize::from(*b)).copied().unwrap_or(false))
}

/// Every broker's metadata says that `to` coordinates the ids `failed` did, and those
/// `failed` had taken over.
pub fn coordination_moved(brokers: &mut [Broker], failed: u8, to: u8) {
    for b in brokers.iter_mut() {
        for (_, now) in b.coordinator_moves.iter_mut() {
            if *now == failed {
                *now = to;
            }
        }
        b.coordinator_moves.insert(failed, to);
    }
}

/// A partition's metadata as the controller last set it, from broker `b`'s replica with what
/// `b` missed while deaf laid over it: (leader, leader epoch, ISR, replicas).
type Meta = (Option<u8>, u32, Vec<u8>, Vec<u8>);
fn meta_of(b: &Broker, tp: Tp) -> Option<Meta> {
    let r = b.replicas.get(&tp)?;
    Some(match b.missed_metadata.iter().find(|m| m.tp == tp) {
        Some(m) => (m.leader, m.leader_epoch, m.isr.clone(), r.replicas.clone()),
        None => (r.leader, r.leader_epoch, r.isr.clone(), r.replicas.clone()),
    })
}

/// Whether `tp`'s topic lets a replica out of sync lead (`unclean.leader.election.enable`).
fn unclean_ok(brokers: &[Broker], tp: Tp) -> bool {
    brokers
        .iter()
        .find_map(|b| b.replicas.get(&tp))
        .is_some_and(|r| r.unclean_election)
}

/// What the last leader `old` of `tp` holds past where its log parts from `new`'s: lost when
/// `new` leads.
fn lost_to(brokers: &[Broker], tp: Tp, old: u8, new: u8) -> Vec<crate::ids::RecordId> {
    let log = |id: u8| {
        brokers
            .iter()
            .find(|b| b.id == id)
            .and_then(|b| b.replicas.get(&tp))
            .map(|r| &r.log)
    };
    let (Some(old_log), Some(new_log)) = (log(old), log(new)) else {
        return Vec::new();
    };
    let parts = old_log.parts_from(new_log);
    old_log
        .records_below(u64::MAX)
        .filter(|r| r.offset >= parts)
        .map(|r| r.value)
        .collect()
}

/// Unclean leader election: `new`, a live replica out of sync, leads `tp` alone in its ISR;
/// what the last leader `old` had beyond it is lost.
fn elect_unclean(
    brokers: &mut [Broker],
    alive: &[bool],
    tp: Tp,
    (old, new, epoch): (u8, u8, u32),
    ctx: &mut Ctx,
) {
    let lost_records = lost_to(brokers, tp, old, new);
    set_metadata(brokers, tp, (Some(new), epoch + 1, &[new]), ctx.now);
    ctx.note(Note::UncleanLeaderElected {
        tp,
        broker: NodeId::Broker(new),
        leader_epoch: epoch + 1,
        lost_records,
    });
    align_followers(brokers, alive, tp, new, ctx);
}

/// Broker `failed` has crashed. `alive` tells which brokers are up; `electable`, which may
/// lead (up and not fenced), for an unclean election.
pub fn broker_failed(
    brokers: &mut [Broker],
    (alive, electable): (&[bool], &[bool]),
    failed: u8,
    ctx: &mut Ctx,
) {
    for tp in partitions(brokers) {
        let Some((leader, epoch, isr, replicas)) = brokers
            .iter()
            .find(|b| alive.get(usize::from(b.id)).copied().unwrap_or(false))
            .and_then(|b| meta_of(b, tp))
            .or_else(|| brokers.iter().find_map(|b| meta_of(b, tp)))
        else {
            continue;
        };
        let mut isr: Vec<u8> = isr.into_iter().filter(|b| *b != failed).collect();
        if !replicas.contains(&failed) {
            continue;
        }
        if leader == Some(failed) {
            let candidate = isr
                .iter()
                .copied()
                .find(|b| alive.get(usize::from(*b)).copied().unwrap_or(false));
            match candidate {
                Some(new_leader) => {
                    let old_records: Vec<_> = brokers
                        .iter()
                        .find(|b| b.id == failed)
                        .and_then(|b| b.replicas.get(&tp))
                        .map(|r| r.log.records_below(u64::MAX).collect())
                        .unwrap_or_default();
                    set_metadata(brokers, tp, (Some(new_leader), epoch + 1, &isr), ctx.now);
                    let leader_leo = brokers
                        .iter()
                        .find(|b| b.id == new_leader)
                        .and_then(|b| b.replicas.get(&tp))
                        .map_or(0, |r| r.log.log_end_offset());
                    let lost: Vec<_> = old_records
                        .iter()
                        .filter(|r| r.offset >= leader_leo)
                        .map(|r| r.value)
                        .collect();
                    ctx.note(Note::LeaderElected {
                        tp,
                        broker: NodeId::Broker(new_leader),
                        leader_epoch: epoch + 1,
                        lost_records: lost,
                    });
                    align_followers(brokers, alive, tp, new_leader, ctx);
                }
                None => {
                    let unclean = replicas.iter().copied().find(|b| {
                        *b != failed && electable.get(usize::from(*b)).copied().unwrap_or(false)
                    });
                    match unclean.filter(|_| unclean_ok(brokers, tp)) {
                        Some(new_leader) => {
                            elect_unclean(brokers, alive, tp, (failed, new_leader, epoch), ctx)
                        }
                        None => {
                            isr = vec![failed];
                            set_metadata(brokers, tp, (None, epoch, &isr), ctx.now);
                            let unclean = unclean_ok(brokers, tp);
                            ctx.note(Note::PartitionOffline { tp, unclean });
                        }
                    }
                }
            }
        } else if let Some(l) = leader {
            set_metadata(brokers, tp, (leader, epoch, &isr), ctx.now);
            // The leader, with the smaller ISR, may advance its high watermark and answer
            // what waited: only a live one that hears the controller (a frozen one does it
            // when it catches up; a crashed one holds nothing).
            if let Some(r) = brokers
                .iter_mut()
                .find(|b| b.id == l && !b.deaf)
                .filter(|_| alive.get(usize::from(l)).copied().unwrap_or(false))
                .and_then(|b| b.replicas.get_mut(&tp))
            {
                release_acks(l, r, NodeId::Broker(l), ctx);
            }
        }
    }
}

/// What a broker that was deaf (frozen) learns when it hears the controller again.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct CaughtUp {
    /// Partitions it led and no longer leads.
    pub demoted: Vec<Tp>,
    /// Produce requests it held for its followers, answered NOT_LEADER_OR_FOLLOWER.
    pub answered: u32,
}

/// Broker `back`, deaf while frozen, applies the metadata it missed. Where it is no longer
/// the leader, the produce requests waiting for its followers are answered
/// NOT_LEADER_OR_FOLLOWER (Kafka completes them so when a leader becomes a follower).
/// A `live` one (thawed, not crashed while frozen) that still leads releases what a smaller
/// ISR lets it answer.
pub fn catch_up(brokers: &mut [Broker], back: u8, live: bool, ctx: &mut Ctx) -> CaughtUp {
    let mut out = CaughtUp::default();
    let Some(b) = brokers.iter_mut().find(|b| b.id == back) else {
        return out;
    };
    b.deaf = false;
    let node = b.node();
    for m in std::mem::take(&mut b.missed_metadata) {
        let demoted =
            m.leader != Some(back) && b.replicas.get(&m.tp).is_some_and(|r| r.is_leader(back));
        let waiting = match b.replicas.get_mut(&m.tp) {
            Some(r) if demoted => std::mem::take(&mut r.pending_acks),
            _ => Vec::new(),
        };
        apply(b, m.tp, (m.leader, m.leader_epoch, &m.isr), ctx.now);
        if demoted {
            out.demoted.push(m.tp);
        }
        if let Some(r) = b
            .replicas
            .get_mut(&m.tp)
            .filter(|r| live && r.is_leader(back))
        {
            release_acks(back, r, node, ctx);
        }
        for ack in waiting {
            out.answered += 1;
            ctx.send_as(
                node,
                ack.producer,
                Message::ProduceResponse {
                    request_id: ack.request_id,
                    tp: m.tp,
                    result: ProduceResult::Error {
                        error: KafkaError::NotLeaderOrFollower,
                        leader_hint: m.leader,
                    },
                },
            );
        }
    }
    crate::order::sort(&mut out.demoted);
    out
}

/// Broker `back` has restarted: it follows the current leader, or leads a partition that
/// went offline with it as the last in-sync replica.
pub fn broker_restarted(brokers: &mut [Broker], alive: &[bool], back: u8, ctx: &mut Ctx) {
    for tp in partitions(brokers) {
        let Some(meta) = brokers
            .iter()
            .find(|b| b.id == back)
            .and_then(|b| b.replicas.get(&tp))
        else {
            continue;
        };
        let (leader, epoch, isr) = (meta.leader, meta.leader_epoch, meta.isr.clone());
        let leader = leader.or_else(|| {
            brokers
                .iter()
                .filter_map(|b| meta_of(b, tp).and_then(|m| m.0))
                .next()
        });
        match leader {
            Some(l) if l != back => {
                set_metadata(brokers, tp, (Some(l), epoch, &isr), ctx.now);
                align_followers(brokers, alive, tp, l, ctx);
            }
            // Back before its session expired, still the leader: its followers catch up, and
            // their lag clocks start again with it.
            Some(_) => {
                if let Some(r) = brokers
                    .iter_mut()
                    .find(|b| b.id == back)
                    .and_then(|b| b.replicas.get_mut(&tp))
                {
                    r.leading_since = ctx.now;
                }
                align_followers(brokers, alive, tp, back, ctx)
            }
            None if isr.contains(&back) => {
                set_metadata(brokers, tp, (Some(back), epoch + 1, &[back]), ctx.now);
                ctx.note(Note::LeaderElected {
                    tp,
                    broker: NodeId::Broker(back),
                    leader_epoch: epoch + 1,
                    lost_records: Vec::new(),
                });
                // The only in-sync replica now leads: its high watermark is its log end (a
                // replica that was a follower may have lagged its old leader's), and its
                // followers catch up from it.
                align_followers(brokers, alive, tp, back, ctx);
            }
            // Offline, its last in-sync replica down: the topic lets one out of sync lead.
            None => {
                if let Some(&old) = isr.first().filter(|_| unclean_ok(brokers, tp)) {
                    elect_unclean(brokers, alive, tp, (old, back, epoch), ctx);
                }
            }
        }
    }
}

/// Followers drop where their log parts from the leader's (the divergent tail of a deposed
/// leader), then the leader pushes what they lack. Nothing happens while the leader is down:
/// a follower's fetches to it go unanswered (it aligns them when it restarts).
fn align_followers(brokers: &mut [Broker], alive: &[bool], tp: Tp, leader: u8, ctx: &mut Ctx) {
    let is_alive = |id: u8| alive.get(usize::from(id)).copied().unwrap_or(false);
    if !is_alive(leader) {
        return;
    }
    let Some(leader_log) = brokers
        .iter()
        .find(|b| b.id == leader)
        .and_then(|b| b.replicas.get(&tp))
        .map(|r| &r.log)
    else {
        return;
    };
    let leader_leo = leader_log.log_end_offset();
    // Where each live follower's log parts from the leader's (OffsetsForLeaderEpoch).
    let keeps: Vec<(u8, u64)> = brokers
        .iter()
        .filter(|b| b.id != leader && is_alive(b.id))
        .filter_map(|b| Some((b.id, b.replicas.get(&tp)?.log.parts_from(leader_log))))
        .collect();
    let mut follower_leos = Vec::new();
    for (id, keep) in keeps {
        let Some(r) = brokers
            .iter_mut()
            .find(|b| b.id == id)
            .and_then(|b| b.replicas.get_mut(&tp))
        else {
            continue;
        };
        if r.log.log_end_offset() > keep {
            let dropped = r.truncate_to(keep);
            ctx.note(Note::LogTruncated {
                broker: NodeId::Broker(id),
                tp,
                to_offset: keep,
                dropped,
            });
        }
        follower_leos.push((id, r.log.log_end_offset()));
    }
    if let Some(b) = brokers.iter_mut().find(|b| b.id == leader) {
        let unreachable = &b.unreachable_since;
        if let Some(r) = b.replicas.get_mut(&tp) {
            for (id, leo) in follower_leos {
                r.follower_leo.insert(id, leo);
            }
            if r.high_watermark < leader_leo {
                release_acks(leader, r, NodeId::Broker(leader), ctx);
            }
            push_to_followers(leader, r, unreachable, ctx);
            // Live followers out of sync that it cannot reach now (frozen, cut off) get what
            // they lack too: it waits for them on the wire.
            for f in r.replicas.clone() {
                if f != leader
                    && !r.isr.contains(&f)
                    && unreachable.contains_key(&f)
                    && alive.get(usize::from(f)).copied().unwrap_or(false)
                {
                    send_missing(leader, r, f, ctx);
                }
            }
        }
    }
    if let Some(b) = brokers.iter_mut().find(|b| b.id == leader) {
        b.arm_isr_expiry(tp, ctx);
    }
}

#[cfg(test)]
mod txn_successor_tests {
    use super::txn_successor;

    #[test]
    fn the_next_live_replica_of_the_partition_takes_over() {
        assert_eq!(txn_successor(3, &[false, true, true], 0), Some(1));
        assert_eq!(txn_successor(3, &[false, false, true], 0), Some(2));
        assert_eq!(txn_successor(3, &[true, true, false], 2), Some(0));
        assert_eq!(txn_successor(2, &[false, true], 0), Some(1));
        // One broker, or only brokers that hold no replica of the partition, alive.
        assert_eq!(txn_successor(1, &[false], 0), None);
        assert_eq!(
            txn_successor(5, &[false, false, false, true, true], 0),
            None
        );
    }
}
