//! The cost of each guarantee across commit intervals: two plotters charts computed by
//! running the core headless (`eos_core::cost`), the numbers in a table, SVG and PNG export.

use crate::i18n::{I18n, Lang};
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
    let ru = i18n.lang == Lang::Ru;
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
    let heads: [&str; 7] = if ru {
        [
            "гарантия",
            "интервал, мс",
            "задержка, мс",
            "p95, мс",
            "сообщ./запись",
            "дубликаты",
            "потеряно",
        ]
    } else {
        [
            "guarantee",
            "interval, ms",
            "latency, ms",
            "p95, ms",
            "msgs/record",
            "duplicates",
            "lost",
        ]
    };
    html! {
        <section class="cost panel" aria-label={if ru { "Стоимость гарантий" } else { "What each guarantee costs" }}>
            <h2>{ if ru { "Стоимость каждой гарантии" } else { "What each guarantee costs" } }
                <span class="muted">{ format!(" · {name}, {}", if ru { "фоновые прогоны" } else { "headless runs" }) }</span></h2>
            <div class="chart-row">
                { figure("cost-latency", &latency, &name, &status) }
                { figure("cost-messages", &messages, &name, &status) }
            </div>
            <p class="quiet">{ i18n.t(crate::i18n::S::CostAmoFlat) }</p>
            if !status.is_empty() {
                <p class="share-status" role="status">{ format!("{} {}", if ru { "Скачано:" } else { "Downloaded" }, *status) }</p>
            }
            <details class="cost-table">
                <summary>{ if ru { "Числа" } else { "The numbers" } }</summary>
                <table>
                    <thead><tr>{ for heads.iter().map(|h| html! { <th>{ *h }</th> }) }</tr></thead>
                    <tbody>
                        { for cost::rows(points).into_iter().map(|r| html! {
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
) -> Html {
    let svg = crate::charts::svg(chart).unwrap_or_default();
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
