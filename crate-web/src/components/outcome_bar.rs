//! The oracle's counts over the partition logs: duplicates and aborted reads as the run
//! goes, and at its end the losses too (the CLI report's `outcome`).

use super::live::Part;
use crate::i18n::{Lang, S};
use eos_core::report::Outcome;
use eos_core::sim::Simulation;
use yew::prelude::*;

/// Past this many records the counts are not redrawn while the run plays (they read the
/// whole ledger and every log); they catch up when it stops.
pub const LIVE_MAX_RECORDS: usize = 2_000;

/// At most this many of the oracle's findings are named under the counts.
const NAMED_MAX: usize = 5;

/// The counts bar; it reads the run when it renders (`live.rs`).
#[derive(PartialEq)]
pub struct OutcomePart {
    /// The run is over (the page's own word for it: stale timers may still be queued).
    pub done: bool,
    /// Moves the run to a step: a finding's step is a button.
    pub on_seek: Callback<u64>,
}

/// At the end, what the counts count: each duplicate, loss and aborted read in the oracle's
/// words, with the step that settles it.
fn named(sim: &Simulation, lang: Lang, on_seek: &Callback<u64>) -> Html {
    use eos_core::oracle::anomalies::{find, AnomalyKind};
    let found: Vec<_> = find(sim)
        .into_iter()
        .filter(|a| {
            matches!(
                a.kind,
                AnomalyKind::Duplicate | AnomalyKind::LostWrite | AnomalyKind::AbortedRead
            )
        })
        .collect();
    if found.is_empty() {
        return Html::default();
    }
    let more = found.len().saturating_sub(NAMED_MAX);
    html! {
        <ol id="outcome-named" class="outcome-named">
            { for found.iter().take(NAMED_MAX).map(|a| {
                let step = a.events.last().copied();
                let go = on_seek.clone();
                html! {
                    <li class={a.kind.name()}>
                        <span class="kind">{ a.kind.name() }</span>{" "}{ &a.detail }
                        if let Some(step) = step {
                            {" "}<button class="step" title={S::GoToStep.f(lang, &[&step])}
                                onclick={Callback::from(move |_: MouseEvent| go.emit(step))}>{ format!("#{step}") }</button>
                        }
                    </li>
                }
            }) }
            if more > 0 { <li class="more">{ S::ForkNotListed.f(lang, &[&more]) }</li> }
        </ol>
    }
}

impl Part for OutcomePart {
    fn view(&self, sim: &Simulation, lang: Lang) -> Html {
        // A Flink job's losses and over-counts are its own (the checkpoint timeline and the
        // sinks say them): these counts are Kafka's records only, so they would mislead.
        if sim.flink.is_some() {
            return Html::default();
        }
        let o = Outcome::of(sim);
        let done = self.done;
        let skipped = if done {
            0
        } else {
            eos_core::outcomes::skipped_now(sim).len()
        };
        let count = |id: &'static str, s: S, n: u64| {
            html! { <span id={id} class={classes!("count", (n > 0).then_some("bad"))}>{ s.f(lang, &[&n]) }</span> }
        };
        html! {
            // Its counts can be a lesson question's answer: veiled while it waits (style.css).
            <div id="outcome-bar" class="outcome-bar" data-veil={S::Veiled.get(lang)}>
                <span class="what">{ if done { S::OutcomeVerdict.get(lang) } else { S::OutcomeSoFar.get(lang) } }</span>
                { count("outcome-duplicates", S::DuplicatesN, o.duplicates) }
                // Mid-run, an acknowledged record may just not be readable yet (not yet
                // replicated, its output not yet written): a loss is known at the end.
                // A processor's input it has moved past with no output is lost already (the
                // three lanes count it too).
                if done {
                    { count("outcome-lost", S::LostN, o.lost) }
                } else if skipped > 0 {
                    <span id="outcome-lost" class="count bad">{ S::LostSoFar.f(lang, &[&skipped]) }</span>
                } else {
                    <span id="outcome-lost" class="count pending">{ S::LostAtEnd.get(lang) }</span>
                }
                { count("outcome-aborted", S::AbortedReadsN, o.aborted_reads) }
                if done { { named(sim, lang, &self.on_seek) } }
            </div>
        }
    }
}
