//! What the step just taken did that the stage shows for that step only: a message lost on
//! the wire (its row fades out under a cross) and a duplicate batch the broker recognised
//! (its partition flashes).

use super::{node_name, FlightVm};
use crate::i18n::{Lang, S};
use eos_core::ids::{NodeId, Tp};
use eos_core::sim::{Note, Simulation};

/// The top bit marks a lost message's row in the wire list (message ids never reach it).
pub const GHOST_ID: u64 = 1 << 63;
/// The next bit marks the second and later copies of a message the network duplicated.
pub const COPY_KEY: u64 = 1 << 62;

/// The notes of the step just taken (none before the first step).
pub fn current_notes(sim: &Simulation) -> &[Note] {
    match sim.trace().last() {
        Some(rec) if rec.step == sim.steps() => &rec.notes,
        _ => &[],
    }
}

pub fn route(sim: &Simulation, from: NodeId, to: NodeId, lang: Lang) -> String {
    format!(
        "{} → {}",
        node_name(sim, from, lang),
        node_name(sim, to, lang)
    )
}

/// The messages the step just took lost: dropped, an acknowledgement lost after the append,
/// or arrived at a crashed process.
pub fn lost_on_the_wire(sim: &Simulation, lang: Lang) -> Vec<FlightVm> {
    current_notes(sim)
        .iter()
        .enumerate()
        .filter_map(|(i, n)| {
            let (route, label) = match n {
                Note::MessageDropped {
                    from, to, label, ..
                } => (
                    route(sim, *from, *to, lang),
                    super::message_words::content(label, lang),
                ),
                Note::AckLost {
                    broker,
                    producer,
                    tp,
                    ..
                } => (
                    route(sim, *broker, *producer, lang),
                    S::AckFor.f(lang, &[&sim.names.tp(*tp)]),
                ),
                Note::LostAtCrashedNode { node, kind } => (
                    node_name(sim, *node, lang),
                    super::message_words::kind(*kind, lang),
                ),
                _ => return None,
            };
            let id = GHOST_ID | (sim.steps() << 8) | (i.min(0xff) as u64);
            Some(FlightVm {
                id,
                key: id,
                route,
                label,
                arrives: S::LostOnTheWire.get(lang).to_string(),
                progress: 1000,
                lost: true,
            })
        })
        .collect()
}

/// What to say while partition `tp` on `broker` flashes: the step just taken recognised a
/// duplicate batch there (same producer id, epoch and sequences as one already appended).
pub fn dedup_flash(sim: &Simulation, tp: Tp, broker: u8, lang: Lang) -> Option<String> {
    current_notes(sim).iter().find_map(|n| match n {
        Note::DuplicateDetected {
            broker: b,
            tp: t,
            base_sequence,
            last_sequence,
            original_offset,
            ..
        } if *t == tp && *b == NodeId::Broker(broker) => Some(if base_sequence == last_sequence {
            S::DedupFlashOne.f(lang, &[base_sequence, original_offset])
        } else {
            S::DedupFlash.f(lang, &[base_sequence, last_sequence, original_offset])
        }),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use eos_core::{builtin, StepOutcome};

    /// Steps `name` to the first step for which `found` holds; `None` if the run ends first.
    fn step_until(name: &str, found: impl Fn(&Simulation) -> bool) -> Option<Simulation> {
        let mut sim = builtin::get(name).expect("built-in").simulation(None);
        while sim.step() == StepOutcome::Stepped {
            if found(&sim) {
                return Some(sim);
            }
        }
        None
    }

    #[test]
    fn a_lost_ack_shows_in_the_wire_list_for_the_step_that_lost_it() {
        use crate::view_model::in_flight;
        let lost = |sim: &Simulation| in_flight(sim, Lang::En).iter().any(|f| f.lost);
        let mut sim = step_until("lost-ack-idempotence-off", lost).expect("a lost ack");
        let ghost = in_flight(&sim, Lang::En)
            .into_iter()
            .find(|f| f.lost)
            .expect("lost");
        assert!(ghost.label.starts_with("ack for "), "{ghost:?}");
        assert!(ghost.id & GHOST_ID != 0, "a key apart from message ids");
        sim.step();
        assert!(
            !in_flight(&sim, Lang::En).iter().any(|f| f.id == ghost.id),
            "gone next step"
        );
    }

    #[test]
    fn a_recognised_duplicate_flashes_its_partition_for_one_step() {
        use crate::view_model::partitions;
        let flashing =
            |sim: &Simulation| partitions(sim, Lang::En).iter().any(|p| p.dedup.is_some());
        let mut sim =
            step_until("lost-ack-idempotence-on", flashing).expect("a recognised duplicate");
        let text = partitions(&sim, Lang::En)
            .into_iter()
            .find_map(|p| p.dedup)
            .expect("flash");
        assert!(text.starts_with("duplicate recognised: seq 0"), "{text}");
        sim.step();
        // The retries of v1 and v2 are recognised at the next steps, each with its own flash.
        let next = partitions(&sim, Lang::En).into_iter().find_map(|p| p.dedup);
        assert_ne!(
            next.as_deref(),
            Some(text.as_str()),
            "a flash lasts one step"
        );
        for _ in 0..4 {
            sim.step();
        }
        assert!(!flashing(&sim), "no flash once every retry is answered");
    }
}

/// Yew panics on a keyed list with a key twice: every keyed list the stage draws must keep
/// its keys unique at every step, including when the network duplicates a message (two
/// copies on the wire under one id) or a frozen process hands a held message back.
#[cfg(test)]
mod keys {
    use crate::i18n::Lang;
    use crate::view_model::{diagram, events, in_flight, partitions};
    use eos_core::builtin::BUILTIN;
    use eos_core::{Scenario, StepOutcome};
    use std::collections::BTreeSet;

    fn unique(keys: impl IntoIterator<Item = u64>, what: &str, at: &str) {
        let mut seen = BTreeSet::new();
        for k in keys {
            assert!(seen.insert(k), "{at}: {what} key {k} twice");
        }
    }

    fn check(name: &str, text: &str) {
        let scenario = Scenario::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut sim = scenario.simulation(None);
        for _ in 0..500 {
            if sim.step() != StepOutcome::Stepped {
                break;
            }
            let at = format!("{name} step {}", sim.steps());
            unique(
                in_flight(&sim, Lang::En).iter().map(|f| f.key),
                "wire row",
                &at,
            );
            let d = diagram::diagram(&sim, diagram::WINDOW_COLUMNS, Lang::En);
            unique(d.arrows.iter().map(|a| a.key()), "arrow", &at);
            unique(
                events(&sim, 14, None, Lang::En).iter().map(|e| e.id),
                "event",
                &at,
            );
            for p in partitions(&sim, Lang::En) {
                unique(p.cells.iter().map(|c| c.offset), "cell", &at);
            }
        }
    }

    #[test]
    fn every_built_in_keeps_its_keys_unique() {
        for (name, text) in BUILTIN {
            check(name, text);
        }
    }

    #[test]
    fn duplicated_messages_keep_the_keys_unique() {
        let (name, text) = BUILTIN
            .iter()
            .find(|(n, _)| *n == eos_core::builtin::DEFAULT)
            .expect("the default");
        let text = format!(
            "{text}\n[[faults]]\nat_ms = 0\naction = \"duplicate\"\nextra_ms = 3\ncount = 50\n"
        );
        check(name, &text);
    }
}
