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
use eos_core::sim::fault::Fault;
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
        // A freeze's end that finds the process crashed meanwhile, or a restart of one
        // already up: the schedule's fault has nothing to do.
        StepKind::Fault {
            fault: Fault::Thaw { node },
        } => S::QuietThawCrashed.f(lang, &[&who(*node)]),
        StepKind::Fault {
            fault: Fault::Restart { node },
        } => S::QuietRestartUp.f(lang, &[&who(*node)]),
        StepKind::Fault { .. } => S::QuietFault.f(lang, &[&at]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use eos_core::scenario::schema::FaultSpec;

    #[test]
    fn a_freeze_ending_on_a_crashed_broker_says_nothing_happens() {
        // The leader freezes at 50 ms for 15 s; it crashes at 1 s, before its thaw.
        let scenario = crate::builtins::get("paused-leader-fenced-loss")
            .expect("built-in")
            .with_fault(FaultSpec {
                at_ms: 1_000,
                action: "crash".into(),
                target: Some("broker-0".into()),
                count: 1,
                ..Default::default()
            })
            .expect("a valid fault");
        let mut sim = scenario.simulation(None);
        sim.run(eos_core::RunLimit::Completion);
        let thaw = sim
            .trace()
            .iter()
            .find(|r| {
                matches!(
                    r.what,
                    StepKind::Fault {
                        fault: Fault::Thaw { .. }
                    }
                )
            })
            .expect("the scheduled thaw");
        assert!(thaw.notes.is_empty(), "{:?}", thaw.notes);
        assert_eq!(
            line(&sim, thaw, Lang::En),
            "broker 0's freeze would end now, but it has crashed meanwhile: nothing happens."
        );
    }
}
