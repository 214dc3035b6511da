//! The processors a producer's record passes through: the first `[[processors]]` stage, then
//! each later one that reads the previous one's output (a chain, `scenario/stages.rs`). The
//! report's `processing`, Compare, the outcomes over time and the cost sweep follow a record
//! from the first stage's input to the last stage's output: the end-to-end count a chain is
//! judged by.

use crate::ids::RecordId;
use crate::kafka::processor::Processor;
use crate::sim::Simulation;

/// The first processor, then each next one that reads its predecessor's output topic (the
/// earliest such, in file order). Empty without processors.
pub fn pipeline(sim: &Simulation) -> Vec<&Processor> {
    let mut out: Vec<&Processor> = Vec::new();
    let mut at = 0;
    let Some(first) = sim.processors.first() else {
        return out;
    };
    out.push(first);
    let mut last = first;
    while let Some((i, next)) = sim
        .processors
        .iter()
        .enumerate()
        .skip(at + 1)
        .find(|(_, p)| {
            p.settings
                .inputs
                .iter()
                .any(|tp| tp.topic == last.settings.output_topic)
        })
    {
        out.push(next);
        last = next;
        at = i;
    }
    out
}

/// The number the stages give, in turn, to `input`'s output: the last stage's output of it.
pub fn output_through(stages: &[&Processor], input: RecordId) -> RecordId {
    stages.iter().fold(input, |id, p| p.settings.output_of(id))
}
