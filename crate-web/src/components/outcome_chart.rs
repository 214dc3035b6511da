//! Outcomes over time under the three guarantees: the scenario and its fault schedule run
//! headless once per guarantee (`eos_core::outcomes`), drawn as three small charts with SVG
//! and PNG export, the end of each run in a table.

use super::cost_chart::figure;
use crate::i18n::{I18n, S};
use crate::view_model::outcomes;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct OutcomeChartProps {
    pub scenario: super::SharedScenario,
}

#[function_component(OutcomeChart)]
pub fn outcome_chart(props: &OutcomeChartProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let lanes = use_memo(props.scenario.clone(), |s| {
        eos_core::outcomes::outcomes_over_time(s, None, outcomes::SAMPLES)
    });
    let status = use_state(String::new);
    let lanes = match &*lanes {
        Ok(l) => l,
        Err(e) => return html! { <div class="error" role="alert">{ e.clone() }</div> },
    };
    let [visible, duplicates, lost] = outcomes::charts(lanes, i18n.lang);
    let name = props.scenario.name().to_string();
    let t = |s: S| i18n.t(s);
    let heads = [
        t(S::Guarantee),
        t(S::ColSteps),
        t(S::ColWithOutput),
        t(S::ForkDuplicates),
        t(S::ForkLost),
    ];
    let title = t(S::OutcomesTitle);
    let veil = t(S::Veiled);
    html! {
        <section class="outcomes panel" id="outcomes" tabindex="-1" aria-label={title} data-veil={veil}>
            <h2>{ title }
                <span class="muted">{ format!(" · {name}, {}", t(S::OutcomesSub)) }</span></h2>
            <div class="chart-row">
                { figure("outcomes-visible", &visible, &name, &status, i18n.lang) }
                { figure("outcomes-duplicates", &duplicates, &name, &status, i18n.lang) }
                { figure("outcomes-lost", &lost, &name, &status, i18n.lang) }
            </div>
            <p class="quiet">{ t(S::OutcomesLostNote) }</p>
            if !status.is_empty() {
                <p class="share-status" role="status">{ format!("{} {}", t(S::ChartsDownloaded), *status) }</p>
            }
            <div class="table-scroll">
            <table class="outcomes-table">
                <thead><tr>{ for heads.iter().map(|h| html! { <th>{ *h }</th> }) }</tr></thead>
                <tbody>
                    { for outcomes::final_rows(lanes).into_iter().map(|r| html! {
                        <tr class={r[0].clone()}>{ for r.into_iter().map(|c| html! { <td>{ c }</td> }) }</tr>
                    }) }
                </tbody>
            </table>
            </div>
        </section>
    }
}
