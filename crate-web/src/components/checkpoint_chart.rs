//! Checkpoint duration, start delay, alignment time and channel state, aligned vs unaligned, for the
//! Flink scenario on screen: both runs computed headless (`view_model::checkpoints`), drawn with plotters.

use crate::components::cost_chart::figure;
use crate::i18n::{I18n, S};
use crate::view_model::checkpoints;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CheckpointChartProps {
    pub scenario: super::SharedScenario,
}

#[function_component(CheckpointChart)]
pub fn checkpoint_chart(props: &CheckpointChartProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let t = |s: S| i18n.t(s);
    let runs = use_memo(props.scenario.clone(), |s| checkpoints::runs(s));
    let status = use_state(String::new);
    if runs.iter().all(|r| r.checkpoints.is_empty()) {
        return Html::default();
    }
    let charts = checkpoints::charts(&runs, i18n.lang);
    let name = props.scenario.name().to_string();
    html! {
        <section class="cost panel checkpoints-chart" aria-label={t(S::CkptTitle)} data-veil={t(S::Veiled)}>
            <h2>{ t(S::CkptTitle) }
                <span class="muted">{ format!(" · {name}, {}", t(if runs.len() == 1 { S::CkptSubOne } else { S::CkptSub })) }</span></h2>
            if runs.iter().any(|r| r.at_least_once) {
                <p class="muted" id="ckpt-one-run">{ t(S::CkptOneRun) }</p>
            }
            <p class="muted" id="ckpt-explain">{ t(S::CkptExplain) }</p>
            <div class="chart-row two-by-two">
                { figure("ckpt-duration", &charts.duration, &name, &status, i18n.lang) }
                { figure("ckpt-start-delay", &charts.start_delay, &name, &status, i18n.lang) }
                { figure("ckpt-alignment", &charts.alignment, &name, &status, i18n.lang) }
                if runs.iter().any(|r| r.unaligned) {
                    { figure("ckpt-channel-state", &charts.channel_state, &name, &status, i18n.lang) }
                }
            </div>
            if let Some(note) = &charts.final_note {
                <p class="muted" id="ckpt-final">{ note }</p>
            }
            if let Some(note) = &charts.runs_note {
                <p class="muted" id="ckpt-runs">{ note }</p>
            }
            if !status.is_empty() {
                <p class="share-status" role="status">{ format!("{} {}", t(S::ChartsDownloaded), *status) }</p>
            }
        </section>
    }
}
