//! A producer's countdowns, drawn as rings on its card: each request on the wire against its
//! `request.timeout.ms`, each batch waiting out a retry backoff.

use crate::i18n::{duration, Lang, S};
use eos_core::kafka::producer::Producer;
use eos_core::sim::client_timers::{producer_timers, ClientTimerKind};
use eos_core::Simulation;

/// The most rings a card draws; the rest are counted.
pub const TIMERS_SHOWN: usize = 4;

#[derive(Clone, Debug, PartialEq)]
pub struct TimerVm {
    /// `request` (waiting for an answer) or `backoff` (waiting to retry).
    pub kind: &'static str,
    pub label: String,
    /// Time left, written out.
    pub left: String,
    /// Time left as a share of the whole wait, per mille: the ring's filled part.
    pub remaining: u16,
    pub title: String,
}

/// The producer's first `TIMERS_SHOWN` countdowns, earliest first, and how many more there are.
pub fn timers(sim: &Simulation, producer: &Producer, lang: Lang) -> (Vec<TimerVm>, usize) {
    let all = producer_timers(sim, producer);
    let now = sim.now();
    let more = all.len().saturating_sub(TIMERS_SHOWN);
    let shown = all
        .into_iter()
        .take(TIMERS_SHOWN)
        .map(|t| {
            let tp = sim.names.tp(t.tp);
            let left = duration(t.until.saturating_sub(now), lang);
            let (kind, title) = match t.kind {
                ClientTimerKind::Request => (
                    "request",
                    S::TimerRequestTip.f(lang, &[&tp, &t.attempts, &left]),
                ),
                ClientTimerKind::Backoff => (
                    "backoff",
                    S::TimerBackoffTip.f(lang, &[&tp, &(t.attempts + 1), &left]),
                ),
            };
            TimerVm {
                kind,
                label: {
                    // Which records the ring waits for: "v1", or "v1 +2" for a batch of three.
                    let first = t
                        .first_record
                        .map(|r| sim.names.record(r))
                        .unwrap_or_default();
                    let what = match t.records {
                        0 | 1 => first,
                        n => format!("{first} +{}", n - 1),
                    };
                    S::TimerLabel.f(lang, &[&what, &tp, &t.attempts.max(1)])
                },
                left,
                remaining: 1000 - super::progress(t.from, t.until, now),
                title,
            }
        })
        .collect();
    (shown, more)
}

#[cfg(test)]
mod tests {
    use super::*;
    use eos_core::{builtin, StepOutcome};

    /// Steps `name` until `found` holds for some producer's timers, or the run ends.
    fn first_timers(name: &str, found: impl Fn(&[TimerVm]) -> bool) -> Option<Vec<TimerVm>> {
        let mut sim = builtin::get(name).expect("built-in").simulation(None);
        while sim.step() == StepOutcome::Stepped {
            for p in &sim.producers {
                let (t, _) = timers(&sim, p, Lang::En);
                if found(&t) {
                    return Some(t);
                }
            }
        }
        None
    }

    #[test]
    fn a_request_on_the_wire_counts_down_its_timeout() {
        let t = first_timers(builtin::DEFAULT, |t| t.iter().any(|t| t.kind == "request"))
            .expect("a request on the wire");
        let r = t.iter().find(|t| t.kind == "request").expect("a request");
        assert!(r.remaining <= 1000 && r.remaining > 0, "{r:?}");
        assert!(r.title.contains("request.timeout.ms"), "{}", r.title);
    }

    #[test]
    fn a_lost_ack_leads_to_a_backoff_ring_before_the_retry() {
        let t = first_timers("lost-ack-idempotence-off", |t| {
            t.iter().any(|t| t.kind == "backoff")
        })
        .expect("a retry backoff");
        let b = t.iter().find(|t| t.kind == "backoff").expect("a backoff");
        assert!(b.title.contains("attempt 2"), "{}", b.title);
        assert!(b.remaining > 0, "{b:?}");
        // The ring names the record it waits for (the three backoffs end in jittered order).
        assert!(
            ["v0", "v1", "v2"]
                .map(|v| format!("{v} · payments-0 · try\u{a0}1"))
                .contains(&b.label),
            "{}",
            b.label
        );
    }
}
