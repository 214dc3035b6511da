//! The narration of a whole run, told in order, as a log reads it: what only repeats the
//! sentence before it is told in a few words, not with the full explanation again.
//!
//! - A broker's answer to a read_committed fetch held back by the last stable offset is
//!   explained in full the first time; an identical answer after it is told briefly.
//! - The consumer's empty poll after such an answer names the offsets only (the broker's
//!   sentence has said why), and "again" when it repeats its previous poll.
//! - A marker refused below min.insync.replicas again, for the same transaction, is told
//!   briefly (the coordinator's retry line says the rest).
//!
//! A single note told on its own (a tooltip, an inspector) keeps the full sentence: see
//! `narrate`.

use super::names::Names;
use super::narration::narrate;
use super::note::Note;
use super::simulation::StepRecord;
use crate::kafka::Isolation;

/// How far back (in step records) a note looks for the one it may repeat. A consumer polls
/// once a second or so; a busier run just tells the note in full.
pub const REPEAT_LOOKBACK: usize = 4096;

/// The sentence for `note`, a note of `trace[at]`, in the context of the run before it.
pub fn narrate_in(names: &Names, trace: &[StepRecord], at: usize, note: &Note) -> String {
    let n = |node| names.spoken(node);
    match note {
        Note::PolledNothing {
            consumer,
            tp,
            offset,
            last_stable_offset,
            high_watermark,
            ..
        } if held_poll(note) => {
            let again = previous(trace, at, |p| match p {
                Note::PolledNothing {
                    consumer: c, tp: t, ..
                }
                | Note::Read {
                    consumer: c, tp: t, ..
                } => c == consumer && t == tp,
                _ => false,
            })
            .is_some_and(|p| same(p, note));
            // The broker's answer to this fetch, which explained why (told before it).
            let explained = || {
                previous(trace, at, |p| {
                    matches!(p, Note::FetchServed { consumer: c, tp: t, .. } if c == consumer && t == tp)
                })
                .is_some_and(|p| {
                    held_answer(p)
                        && matches!(p, Note::FetchServed { from, last_stable_offset: l, high_watermark: h, .. }
                            if from == offset && l == last_stable_offset && h == high_watermark)
                })
            };
            if again {
                format!(
                    "{} polls {} at offset {offset} again: still held at the last stable offset {last_stable_offset} (high watermark {high_watermark}).",
                    n(*consumer),
                    names.tp(*tp)
                )
            } else if explained() {
                format!(
                    "{} polls {} at offset {offset}: nothing it may read yet, held at the last stable offset {last_stable_offset} (high watermark {high_watermark}).",
                    n(*consumer),
                    names.tp(*tp)
                )
            } else {
                narrate(names, note)
            }
        }
        Note::FetchServed {
            broker,
            consumer,
            tp,
            from,
            high_watermark,
            last_stable_offset,
            ..
        } if held_answer(note)
            && previous(trace, at, |p| {
                matches!(p, Note::FetchServed { broker: b, consumer: c, tp: t, .. }
                    if b == broker && c == consumer && t == tp)
            })
            .is_some_and(|p| same(p, note)) =>
        {
            format!(
                "{} again has nothing {} may read in {} from offset {from}: the last stable offset is still {last_stable_offset} (high watermark {high_watermark}).",
                n(*broker),
                n(*consumer),
                names.tp(*tp)
            )
        }
        Note::MarkerRefused {
            broker,
            tp,
            control,
            isr,
            min_insync,
            ..
        } if previous(trace, at, |p| match p {
            Note::MarkerRefused {
                broker: b, tp: t, ..
            }
            | Note::MarkerWritten {
                broker: b, tp: t, ..
            } => b == broker && t == tp,
            _ => false,
        })
        .is_some_and(|p| same(p, note)) =>
        {
            format!(
                "{} refuses the {control} marker on {} again (NOT_ENOUGH_REPLICAS: {} in sync, min.insync.replicas={min_insync}).",
                n(*broker),
                names.tp(*tp),
                isr.len()
            )
        }
        _ => narrate(names, note),
    }
}

/// A read_committed poll that got nothing because the last stable offset holds it back.
fn held_poll(note: &Note) -> bool {
    matches!(note, Note::PolledNothing {
        offset,
        skipped: 0,
        last_stable_offset,
        high_watermark,
        isolation: Isolation::ReadCommitted,
        ..
    } if last_stable_offset <= offset && last_stable_offset < high_watermark)
}

/// A broker's answer of nothing to a read_committed fetch held back by the last stable
/// offset: the one whose full sentence explains why.
fn held_answer(note: &Note) -> bool {
    matches!(note, Note::FetchServed {
        from,
        count: 0,
        last_stable_offset,
        high_watermark,
        isolation: Isolation::ReadCommitted,
        ..
    } if last_stable_offset <= from && last_stable_offset < high_watermark)
}

/// Whether `a` repeats `b`: the same kind among the three above, every field alike. (Fields
/// compared, not whole notes: a derived comparison of every kind of note weighs 12 KB in
/// the page.)
fn same(a: &Note, b: &Note) -> bool {
    match (a, b) {
        (
            Note::PolledNothing {
                consumer,
                tp,
                offset,
                skipped,
                last_stable_offset,
                high_watermark,
                isolation,
            },
            Note::PolledNothing {
                consumer: c,
                tp: t,
                offset: o,
                skipped: s,
                last_stable_offset: l,
                high_watermark: h,
                isolation: i,
            },
        ) => {
            (
                consumer,
                tp,
                offset,
                skipped,
                last_stable_offset,
                high_watermark,
            ) == (c, t, o, s, l, h)
                && isolation == i
        }
        (
            Note::FetchServed {
                broker,
                consumer,
                tp,
                from,
                count,
                high_watermark,
                last_stable_offset,
                isolation,
            },
            Note::FetchServed {
                broker: b,
                consumer: c,
                tp: t,
                from: f,
                count: k,
                high_watermark: h,
                last_stable_offset: l,
                isolation: i,
            },
        ) => {
            (
                broker,
                consumer,
                tp,
                from,
                count,
                high_watermark,
                last_stable_offset,
            ) == (b, c, t, f, k, h, l)
                && isolation == i
        }
        (
            Note::MarkerRefused {
                broker,
                tp,
                producer_id,
                control,
                isr,
                min_insync,
            },
            Note::MarkerRefused {
                broker: b,
                tp: t,
                producer_id: p,
                control: c,
                isr: r,
                min_insync: m,
            },
        ) => (broker, tp, producer_id, isr, min_insync) == (b, t, p, r, m) && control == c,
        _ => false,
    }
}

/// The latest note before `trace[at]` (within `REPEAT_LOOKBACK` records) that `related`
/// picks: the one `note` may repeat (`same`).
fn previous(trace: &[StepRecord], at: usize, related: impl Fn(&Note) -> bool) -> Option<&Note> {
    let start = at.saturating_sub(REPEAT_LOOKBACK);
    trace
        .get(start..at.min(trace.len()))?
        .iter()
        .rev()
        .flat_map(|rec| rec.notes.iter().rev())
        .find(|n| related(n))
}
