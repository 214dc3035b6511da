//! The cost of each guarantee across commit intervals: two plotters charts computed by
//! running the core headless (`eos_core::cost`), the numbers in a table, SVG and PNG export.

use crate::i18n::{I18n, S};
use crate::view_model::cost;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CostChartProps {
    pub scenario: super::SharedScenario,
    pub intervals: Vec<u64>,
}

#[function_component(CostChart)]
pub fn cost_chart(props: &CostChartProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let points = use_memo(
        (props.scenario.clone(), props.intervals.clone()),
        |(s, iv)| eos_core::cost::sweep_commit_interval(s, iv, None).map_err(|e| e.to_string()),
    );
    let status = use_state(String::new);
    let points = match &*points {
        Ok(p) => p,
        Err(e) => return html! { <div class="error" role="alert">{ e.clone() }</div> },
    };
    let (latency, messages) = cost::charts(points, i18n.lang);
    let name = props.scenario.name().to_string();
    let t = |s: S| i18n.t(s);
    let heads = [
        S::Guarantee,
        S::ColInterval,
        S::ColLatency,
        S::ColP95,
        S::ColMsgs,
        S::ForkDuplicates,
        S::ForkLost,
    ]
    .map(t);
    html! {
        <section class="cost panel" aria-label={t(S::CostTitle)}>
            <h2>{ t(S::CostTitle) }
                <span class="muted">{ format!(" · {name}, {}", t(S::CostSub)) }</span></h2>
            <div class="chart-row">
                { figure("cost-latency", &latency, &name, &status, i18n.lang) }
                { figure("cost-messages", &messages, &name, &status, i18n.lang) }
            </div>
            <p class="quiet">{ t(S::CostAmoFlat) }</p>
            if !status.is_empty() {
                <p class="share-status" role="status">{ format!("{} {}", t(S::ChartsDownloaded), *status) }</p>
            }
            <details class="cost-table">
                <summary>{ t(S::TheNumbers) }</summary>
                <table>
                    <thead><tr>{ for heads.iter().map(|h| html! { <th>{ *h }</th> }) }</tr></thead>
                    <tbody>
                        { for cost::rows(points, i18n.lang).into_iter().map(|r| html! {
                            <tr class={r[0].clone()}>{ for r.into_iter().map(|c| html! { <td>{ c }</td> }) }</tr>
                        }) }
                    </tbody>
                </table>
            </details>
        </section>
    }
}

/// A chart with its SVG and PNG export buttons (`status` says what was downloaded).
pub fn figure(
    id: &'static str,
    chart: &crate::charts::LineChart,
    name: &str,
    status: &UseStateHandle<String>,
    lang: crate::i18n::Lang,
) -> Html {
    let svg = crate::charts::svg_in(chart, lang).unwrap_or_default();
    let file = format!("{name}-{id}");
    let on_svg = {
        let (file, status) = (file.clone(), status.clone());
        Callback::from(move |_| {
            let svg = crate::share::svg_text(&format!("#{id} svg"));
            crate::share::download_svg_text(&format!("{file}.svg"), &svg);
            status.set(format!("{file}.svg"));
        })
    };
    let on_png = {
        let status = status.clone();
        Callback::from(move |_| {
            let svg = crate::share::svg_text(&format!("#{id} svg"));
            let status = status.clone();
            let done = format!("{file}.png");
            crate::share::download_png(
                &done.clone(),
                &svg,
                Box::new(move |error| status.set(if error.is_empty() { done } else { error })),
            );
        })
    };
    html! {
        // Named by its title (the caption holds only the export buttons, which say which
        // chart they export): the table beside the charts is their text.
        <figure class="chart-figure" aria-label={chart.title.clone()}>
            <div id={id} role="img" aria-label={chart.title.clone()}>{ Html::from_html_unchecked(AttrValue::from(svg)) }</div>
            <figcaption class="chart-export">
                <button id={format!("{id}-svg")} onclick={on_svg} aria-label={format!("{} · SVG", chart.title)}>{"SVG"}</button>
                <button id={format!("{id}-png")} onclick={on_png} aria-label={format!("{} · PNG", chart.title)}>{"PNG"}</button>
            </figcaption>
        </figure>
    }
}
