//! The inspector on a message the network lost: dropped by a fault, a cut link or a stuck
//! connection, or an acknowledgement lost after its append. It is no longer on the wire and
//! never arrives, so it is found by the step whose note names it.

use super::inspector::{row, InspectorVm};
use crate::i18n::{duration, Lang, S};
use eos_core::ids::NodeId;
use eos_core::sim::narration::narrate;
use eos_core::sim::note::Note;
use eos_core::sim::simulation::Simulation;

/// The message `id` as lost at a step up to now, or `None` when no step lost it.
pub(super) fn inspect(sim: &Simulation, id: u64, lang: Lang) -> Option<InspectorVm> {
    let (rec, note) = sim.trace().iter().find_map(|rec| {
        rec.notes
            .iter()
            .find(|n| {
                matches!(n, Note::MessageDropped { msg, .. } | Note::AckLost { msg, .. } if *msg == id)
            })
            .map(|n| (rec, n))
    })?;
    let (from, to, kind, content, sent_at) = match note {
        Note::MessageDropped {
            from,
            to,
            kind,
            label,
            sent_at,
            ..
        } => (
            *from,
            *to,
            *kind,
            super::message_words::content(label, lang),
            *sent_at,
        ),
        Note::AckLost {
            broker,
            producer,
            tp,
            sent_at,
            ..
        } => (
            *broker,
            *producer,
            eos_core::kafka::protocol::MessageKind::ProduceResponse,
            S::AckFor.f(lang, &[&sim.names.tp(*tp)]),
            *sent_at,
        ),
        _ => return None,
    };
    let n = |node: NodeId| super::node_name(sim, node, lang);
    let kind = super::message_words::kind(kind, lang);
    Some(InspectorVm {
        picks: Vec::new(),
        steps: Vec::new(),
        kind: "message",
        title: S::MessageTitle.f(lang, &[&id, &kind]),
        rows: vec![
            row(S::Kind, lang, kind.clone()),
            row(S::Content, lang, content),
            row(S::From, lang, n(from)),
            row(S::To, lang, n(to)),
            row(S::Sent, lang, duration(sent_at, lang)),
            row(
                S::LostOnTheWire,
                lang,
                S::AtStep.f(lang, &[&duration(rec.time, lang), &rec.step]),
            ),
            row(S::Status, lang, S::LostNeverArrives.get(lang)),
        ],
        notes: vec![narrate(&sim.names, note)],
        message: None,
    })
}
