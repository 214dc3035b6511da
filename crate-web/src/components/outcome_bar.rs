//! The oracle's counts so far, over the partition logs: duplicates, losses and aborted
//! reads, as the run goes (the CLI report's `outcome` at this step).

use super::live::Part;
use crate::i18n::{Lang, S};
use eos_core::report::Outcome;
use eos_core::sim::Simulation;
use yew::prelude::*;

/// Past this many records the counts are not redrawn while the run plays (they read the
/// whole ledger and every log); they catch up when it stops.
pub const LIVE_MAX_RECORDS: usize = 2_000;

/// The counts bar; it reads the run when it renders (`live.rs`).
#[derive(PartialEq)]
pub struct OutcomePart;

impl Part for OutcomePart {
    fn view(&self, sim: &Simulation, lang: Lang) -> Html {
        let o = Outcome::of(sim);
        let count = |id: &'static str, s: S, n: u64| {
            html! { <span id={id} class={classes!("count", (n > 0).then_some("bad"))}>{ s.f(lang, &[&n]) }</span> }
        };
        html! {
            <p id="outcome-bar" class="outcome-bar">
                <span class="what">{ S::OutcomeSoFar.get(lang) }</span>
                { count("outcome-duplicates", S::DuplicatesN, o.duplicates) }
                { count("outcome-lost", S::LostN, o.lost) }
                { count("outcome-aborted", S::AbortedReadsN, o.aborted_reads) }
            </p>
        }
    }
}
