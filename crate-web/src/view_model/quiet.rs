//! A line for a step that narrates nothing: a message arrived and changed nothing worth a
//! sentence (a fetch answer before the next poll), or a timer fired (a snapshot's upload
//! finished; its acknowledgement is the arrow that leaves). The
//! event log shows it for the current step only, so that a step forward always says what it
//! did, and the history keeps to the narrated steps. Its words are in the chrome's table, but
//! the log shows them in English, as the narration around them (`i18n.rs`).

use super::{message_words, node_name};
use crate::i18n::{Lang, S};
use eos_core::kafka::{
    consumer::ConsumerTimer, processor::ProcessorTimer, producer::ProducerTimer,
    protocol::MessageKind,
};
use eos_core::sim::event::Timer;
use eos_core::sim::simulation::StepKind;
use eos_core::sim::{Simulation, StepRecord};

/// What the step did, in the page's language.
pub fn line(sim: &Simulation, rec: &StepRecord, lang: Lang) -> String {
    let who = |n| node_name(sim, n, lang);
    let at = rec.node.map(who).unwrap_or_default();
    match &rec.what {
        // A broker answers a Metadata request in the same step, and says nothing: the
        // answer's arrival is the client's sentence.
        StepKind::Deliver {
            from,
            kind: MessageKind::Metadata,
            ..
        } => S::QuietMetadata.f(lang, &[&at, &who(*from)]),
        StepKind::Deliver { from, kind, .. } => {
            S::QuietDeliver.f(lang, &[&at, &message_words::kind(*kind, lang), &who(*from)])
        }
        StepKind::Timer { timer } => {
            let s = match timer {
                Timer::Producer(ProducerTimer::Start)
                | Timer::Consumer(ConsumerTimer::Start)
                | Timer::Processor(ProcessorTimer::Start) => S::QuietStart,
                Timer::Consumer(ConsumerTimer::Poll)
                | Timer::Processor(ProcessorTimer::Poll)
                | Timer::Flink(eos_core::flink::FlinkTimer::Poll { .. }) => S::QuietPoll,
                Timer::Producer(ProducerTimer::BackoffOver { .. }) => S::QuietBackoff,
                Timer::Flink(eos_core::flink::FlinkTimer::Uploaded { .. }) => S::QuietUploaded,
                _ => S::QuietTimer,
            };
            s.f(lang, &[&at])
        }
        StepKind::Fault { .. } => S::QuietFault.f(lang, &[&at]),
    }
}
