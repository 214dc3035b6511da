//! The narration of a whole run, told in order: a consumer's empty poll that only repeats
//! its previous one (same partition, same offset, same last stable offset and high
//! watermark) is told in a few words, not with the full explanation again. A single note
//! told on its own (a tooltip, an inspector) keeps the full sentence: see `narrate`.

use super::names::Names;
use super::narration::narrate;
use super::note::Note;
use super::simulation::StepRecord;
use crate::kafka::Isolation;

/// How far back (in step records) a poll looks for the one before it. A consumer polls once
/// a second or so; a busier run just tells the poll in full.
pub const REPEAT_LOOKBACK: usize = 4096;

/// The sentence for `note`, a note of `trace[at]`, in the context of the run before it.
pub fn narrate_in(names: &Names, trace: &[StepRecord], at: usize, note: &Note) -> String {
    match note {
        Note::PolledNothing {
            consumer,
            tp,
            offset,
            last_stable_offset,
            high_watermark,
            ..
        } if held_by_lso(note)
            && previous_poll(trace, at, note).is_some_and(|p| same_poll(p, note)) =>
        {
            format!(
                "{} polls {} at offset {offset} again: still held at the last stable offset {last_stable_offset} (high watermark {high_watermark}).",
                names.node(*consumer),
                names.tp(*tp)
            )
        }
        _ => narrate(names, note),
    }
}

/// A read_committed poll that got nothing because the last stable offset holds it back:
/// the one whose full sentence is long.
fn held_by_lso(note: &Note) -> bool {
    matches!(note, Note::PolledNothing {
        offset,
        skipped: 0,
        last_stable_offset,
        high_watermark,
        isolation: Isolation::ReadCommitted,
        ..
    } if last_stable_offset <= offset && last_stable_offset < high_watermark)
}

/// Two empty polls alike: the same consumer, partition, offset, entries dropped, last
/// stable offset, high watermark and isolation. (Fields compared, not whole notes: a
/// derived comparison of every kind of note weighs 12 KB in the page.)
fn same_poll(a: &Note, b: &Note) -> bool {
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
        _ => false,
    }
}

/// The same consumer's previous poll result for the same partition (a read or an empty
/// poll), within `REPEAT_LOOKBACK` records before `trace[at]`.
fn previous_poll<'t>(trace: &'t [StepRecord], at: usize, note: &Note) -> Option<&'t Note> {
    let Note::PolledNothing { consumer, tp, .. } = note else {
        return None;
    };
    let start = at.saturating_sub(REPEAT_LOOKBACK);
    trace
        .get(start..at.min(trace.len()))?
        .iter()
        .rev()
        .flat_map(|rec| rec.notes.iter().rev())
        .find(|n| match n {
            Note::PolledNothing {
                consumer: c, tp: t, ..
            }
            | Note::Read {
                consumer: c, tp: t, ..
            } => c == consumer && t == tp,
            _ => false,
        })
}
