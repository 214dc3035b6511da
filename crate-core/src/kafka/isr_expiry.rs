//! `replica.lag.time.max.ms`: a partition leader takes out of the ISR a follower that has
//! lacked some of its records for longer than this (Kafka's `Partition.maybeShrinkIsr`, run
//! by the broker's "isr-expiration" task every half of that time since the broker started).
//! A follower with nothing to catch up stays in sync, however long it has been silent (a
//! replica that answers nothing is the controller's to fence, when its broker's session
//! expires).
//!
//! Replication here is pushed by the leader, not fetched by the follower, so a follower's
//! last caught-up time (Kafka's `lastCaughtUpTimeMs`) is when the leader appended the first
//! record the follower lacks, or when the leader began to lead (its election or restart,
//! where Kafka resets the followers' clocks), whichever is later. The looks are armed only
//! when a follower lags, at the look Kafka's fixed schedule would make first after the
//! follower goes out of sync; a look that finds nothing to do is not a step.

use super::broker::{release_acks, send_missing, Broker};
use super::broker_timer::BrokerTimer;
use super::replica::Replica;
use crate::ids::Tp;
use crate::sim::{Ctx, Note, Timer};
use crate::time::{ms, SimTime};
use crate::vec_map::VecMap;
use serde::{Deserialize, Serialize};

/// Kafka's default `replica.lag.time.max.ms`.
pub const DEFAULT_REPLICA_LAG_TIME_MAX_MS: u64 = 30_000;

/// A broker's "isr-expiration" task.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct IsrExpiry {
    /// `replica.lag.time.max.ms`.
    pub lag_max_ms: u64,
    /// When the broker's scheduler started (its start or restart): its looks fall at this
    /// time plus each multiple of half the lag.
    pub looks_since: SimTime,
    /// The look armed, if any.
    pub armed: Option<SimTime>,
}

impl Default for IsrExpiry {
    fn default() -> Self {
        IsrExpiry {
            lag_max_ms: DEFAULT_REPLICA_LAG_TIME_MAX_MS,
            looks_since: 0,
            armed: None,
        }
    }
}

impl IsrExpiry {
    /// The first look of the schedule at or after `due`.
    pub fn look_at(&self, due: SimTime) -> SimTime {
        let interval = ms(self.lag_max_ms / 2).max(1);
        let Some(after) = due.checked_sub(self.looks_since) else {
            return self.looks_since;
        };
        self.looks_since
            .saturating_add(after.div_ceil(interval).saturating_mul(interval))
    }

    /// The broker starts again: its scheduler with it, nothing armed.
    pub fn restart(&mut self, now: SimTime) {
        self.looks_since = now;
        self.armed = None;
    }
}

/// Since when follower `f` of `r` has been out of touch with everything its leader has, if
/// it lacks something now: Kafka's `lastCaughtUpTimeMs`, its last fetch at which it had it
/// all. Here the first record it lacks was appended then, or its fetches stopped reaching the
/// leader (`unreachable`: cut off, frozen or down), whichever came first; and no earlier
/// than the leader began to lead (Kafka's `makeLeader` resets the followers' clocks).
pub fn lagging_since(r: &Replica, f: u8, unreachable: Option<SimTime>) -> Option<SimTime> {
    let has = r.follower_leo.get(&f).copied().unwrap_or(0);
    if has >= r.log.log_end_offset() {
        return None;
    }
    let first_missing = r.log.appended_at(has).unwrap_or(r.leading_since);
    let since = unreachable.map_or(first_missing, |u| u.min(first_missing));
    Some(since.max(r.leading_since))
}

/// The followers' clocks of one partition, as its leader `me` keeps them.
struct Clocks<'a> {
    r: &'a Replica,
    me: u8,
    unreachable: &'a VecMap<u8, SimTime>,
}

impl Clocks<'_> {
    /// The in-sync followers that lack something, with since when.
    fn lagging(&self) -> impl Iterator<Item = (u8, SimTime)> + '_ {
        self.r
            .isr
            .iter()
            .copied()
            .filter(|f| *f != self.me)
            .filter_map(|f| {
                Some((
                    f,
                    lagging_since(self.r, f, self.unreachable.get(&f).copied())?,
                ))
            })
    }

    /// When the first in-sync follower goes out of sync, if one lags.
    fn out_of_sync_at(&self, lag_max_ms: u64) -> Option<SimTime> {
        self.lagging()
            .map(|(_, since)| since)
            .min()
            .map(|since| since.saturating_add(ms(lag_max_ms)).saturating_add(1))
    }

    /// The in-sync followers out of sync at `now`, with the earliest time one of them last
    /// had everything.
    fn out_of_sync(&self, lag_max_ms: u64, now: SimTime) -> (Vec<u8>, SimTime) {
        let mut first = now;
        let mut out = Vec::new();
        for (f, since) in self.lagging() {
            if now.saturating_sub(since) > ms(lag_max_ms) {
                out.push(f);
                first = first.min(since);
            }
        }
        (out, first)
    }
}

impl Broker {
    /// Arms the look that finds `tp`'s first lagging follower out of sync, unless a look as
    /// early is armed.
    pub fn arm_isr_expiry(&mut self, tp: Tp, ctx: &mut Ctx) {
        let me = self.id;
        let lag = self.isr_expiry.lag_max_ms;
        let unreachable = &self.unreachable_since;
        let Some(due) = self
            .replicas
            .get(&tp)
            .filter(|r| r.is_leader(me))
            .and_then(|r| Clocks { r, me, unreachable }.out_of_sync_at(lag))
        else {
            return;
        };
        let at = self.isr_expiry.look_at(due.max(ctx.now));
        if self.isr_expiry.armed.is_some_and(|a| a <= at) {
            return;
        }
        self.isr_expiry.armed = Some(at);
        ctx.set_timer_for(
            self.node(),
            at - ctx.now,
            Timer::Broker(BrokerTimer::IsrExpiration { at }),
        );
    }

    /// Arms the looks for every partition this broker leads.
    pub fn arm_all_isr_expiry(&mut self, ctx: &mut Ctx) {
        let led: Vec<Tp> = self.replicas.keys().copied().collect();
        for tp in led {
            self.arm_isr_expiry(tp, ctx);
        }
    }

    /// The look at `at`: each partition this broker leads takes its followers out of sync
    /// out of the ISR, tells the controller, answers what the smaller ISR lets it, and sends
    /// each follower it dropped what it lacks (Kafka's follower keeps fetching, in sync or
    /// not: over a healthy link it catches up and comes back). A broker still deaf from a
    /// freeze acts on nothing (its AlterPartition would name a leader epoch the controller
    /// has moved past): it looks again once it has caught up. Returns whether it acted.
    pub fn on_isr_expiration(&mut self, at: SimTime, ctx: &mut Ctx) -> bool {
        if self.isr_expiry.armed != Some(at) {
            return false;
        }
        self.isr_expiry.armed = None;
        if self.deaf {
            return false;
        }
        let (me, node, lag) = (self.id, self.node(), self.isr_expiry.lag_max_ms);
        let led: Vec<Tp> = self
            .replicas
            .iter()
            .filter(|(_, r)| r.is_leader(me))
            .map(|(tp, _)| *tp)
            .collect();
        let mut acted = false;
        for tp in &led {
            let Some(r) = self.replicas.get_mut(tp) else {
                continue;
            };
            let unreachable = &self.unreachable_since;
            let (out, behind_since) = Clocks { r, me, unreachable }.out_of_sync(lag, ctx.now);
            if out.is_empty() {
                continue;
            }
            acted = true;
            r.isr.retain(|b| !out.contains(b));
            ctx.note(Note::IsrShrunk {
                broker: node,
                tp: *tp,
                followers: out.clone(),
                behind_since,
                lag_max_ms: lag,
                isr: r.isr.clone(),
                min_insync: r.effective_min_insync(),
            });
            ctx.alter_partition(me, *tp, r.isr.clone());
            release_acks(me, r, node, ctx);
            for f in out {
                send_missing(me, r, f, ctx);
            }
        }
        self.arm_all_isr_expiry(ctx);
        acted
    }

    /// Broker `peer`'s fetches reach this one again (a link healed, a broker thawed): for
    /// each partition this broker leads with a replica there that lacks records, the
    /// follower fetches what it lacks. Nothing while this broker is deaf.
    pub fn resume_follower(&self, peer: u8, ctx: &mut Ctx) {
        let me = self.id;
        if self.deaf || peer == me || self.unreachable_since.contains_key(&peer) {
            return;
        }
        for r in self.replicas.values().filter(|r| r.is_leader(me)) {
            if r.replicas.contains(&peer) && lagging_since(r, peer, None).is_some() {
                send_missing(me, r, peer, ctx);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_fall_on_the_schedule_since_the_broker_started() {
        let mut e = IsrExpiry::default();
        // Every 15 s from 0: a follower out of sync at 31.001 s is seen at 45 s.
        assert_eq!(e.look_at(ms(31_001)), ms(45_000));
        assert_eq!(e.look_at(ms(30_000)), ms(30_000));
        assert_eq!(e.look_at(0), 0);
        // A restarted broker's looks count from its restart.
        e.restart(ms(1_234));
        assert_eq!(e.look_at(ms(1_000)), ms(1_234));
        assert_eq!(e.look_at(ms(16_235)), ms(31_234));
        assert_eq!(e.armed, None);
        // Absurd numbers saturate; a 1 ms lag still looks every microsecond.
        assert_eq!(e.look_at(u64::MAX), u64::MAX);
        e.lag_max_ms = 1;
        assert_eq!(e.look_at(ms(2_000) + 7), ms(2_000) + 7);
    }
}
