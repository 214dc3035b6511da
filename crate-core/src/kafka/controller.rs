//! The controller's part, kept deliberately small: when a broker dies, partitions it led get
//! a new leader from the in-sync replicas (clean election only); when it comes back, it
//! truncates to what the leader has and catches up. Metadata reaches every live broker at
//! once (a stand-in for KRaft's metadata log).

use super::broker::{push_to_followers, release_acks, Broker};
use crate::ids::{NodeId, Tp};
use crate::sim::{Ctx, Note};
use std::collections::BTreeSet;

fn partitions(brokers: &[Broker]) -> BTreeSet<Tp> {
    crate::order::set_of(brokers.iter().flat_map(|b| b.replicas.keys().copied()))
}

fn set_metadata(brokers: &mut [Broker], tp: Tp, leader: Option<u8>, epoch: u32, isr: &[u8]) {
    for b in brokers.iter_mut() {
        b.leaders.insert(tp, leader);
        if let Some(r) = b.replicas.get_mut(&tp) {
            r.leader = leader;
            r.leader_epoch = epoch;
            r.isr = isr.to_vec();
            if leader != Some(b.id) {
                r.follower_leo.clear();
                r.pending_acks.clear();
            }
        }
    }
}

/// Broker `failed` has crashed. `alive` tells which brokers are up.
pub fn broker_failed(brokers: &mut [Broker], alive: &[bool], failed: u8, ctx: &mut Ctx) {
    for tp in partitions(brokers) {
        let Some(meta) = brokers
            .iter()
            .find(|b| alive.get(usize::from(b.id)).copied().unwrap_or(false))
            .and_then(|b| b.replicas.get(&tp))
            .or_else(|| brokers.iter().find_map(|b| b.replicas.get(&tp)))
        else {
            continue;
        };
        let (leader, epoch) = (meta.leader, meta.leader_epoch);
        let mut isr: Vec<u8> = meta.isr.iter().copied().filter(|b| *b != failed).collect();
        if !meta.replicas.contains(&failed) {
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
                    set_metadata(brokers, tp, Some(new_leader), epoch + 1, &isr);
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
                    isr = vec![failed];
                    set_metadata(brokers, tp, None, epoch, &isr);
                    ctx.note(Note::PartitionOffline { tp });
                }
            }
        } else if let Some(l) = leader {
            set_metadata(brokers, tp, leader, epoch, &isr);
            if let Some(r) = brokers
                .iter_mut()
                .find(|b| b.id == l)
                .and_then(|b| b.replicas.get_mut(&tp))
            {
                release_acks(l, r, NodeId::Broker(l), ctx);
            }
        }
    }
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
                .filter_map(|b| b.replicas.get(&tp).and_then(|r| r.leader))
                .next()
        });
        match leader {
            Some(l) if l != back => {
                set_metadata(brokers, tp, Some(l), epoch, &isr);
                align_followers(brokers, alive, tp, l, ctx);
            }
            Some(_) => {}
            None if isr.contains(&back) => {
                set_metadata(brokers, tp, Some(back), epoch + 1, &[back]);
                ctx.note(Note::LeaderElected {
                    tp,
                    broker: NodeId::Broker(back),
                    leader_epoch: epoch + 1,
                    lost_records: Vec::new(),
                });
            }
            None => {}
        }
    }
}

/// Followers drop anything past the leader's log end (the divergent tail of a deposed
/// leader), then the leader pushes what they lack.
fn align_followers(brokers: &mut [Broker], alive: &[bool], tp: Tp, leader: u8, ctx: &mut Ctx) {
    let Some(leader_leo) = brokers
        .iter()
        .find(|b| b.id == leader)
        .and_then(|b| b.replicas.get(&tp))
        .map(|r| r.log.log_end_offset())
    else {
        return;
    };
    let mut follower_leos = Vec::new();
    for b in brokers.iter_mut().filter(|b| b.id != leader) {
        if !alive.get(usize::from(b.id)).copied().unwrap_or(false) {
            continue;
        }
        let id = b.id;
        if let Some(r) = b.replicas.get_mut(&tp) {
            // Records below the follower's high watermark are on every in-sync replica, the new
            // leader included; anything past it may have diverged (truncate-to-HW recovery).
            let keep = leader_leo.min(r.high_watermark);
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
    }
    if let Some(r) = brokers
        .iter_mut()
        .find(|b| b.id == leader)
        .and_then(|b| b.replicas.get_mut(&tp))
    {
        for (id, leo) in follower_leos {
            r.follower_leo.insert(id, leo);
        }
        if r.high_watermark < leader_leo {
            release_acks(leader, r, NodeId::Broker(leader), ctx);
        }
        push_to_followers(leader, r, ctx);
        for f in r.replicas.clone() {
            if f != leader
                && !r.isr.contains(&f)
                && alive.get(usize::from(f)).copied().unwrap_or(false)
            {
                let from_offset = r.follower_leo.get(&f).copied().unwrap_or(0);
                ctx.send_as(
                    NodeId::Broker(leader),
                    NodeId::Broker(f),
                    crate::kafka::protocol::Message::Replicate {
                        tp,
                        leader_epoch: r.leader_epoch,
                        from_offset,
                        batches: r.log.batches_from(from_offset),
                        leader_high_watermark: r.high_watermark,
                    },
                );
            }
        }
    }
}
