use super::activate;
use crate::i18n::{I18n, S};
use crate::state::Selection;
use crate::view_model::{CellVm, PartitionVm};
use eos_core::ids::Tp;
use yew::prelude::*;

/// From how many cells on a log its cells are drawn small.
const DENSE_FROM: usize = 16;

#[derive(Properties, PartialEq)]
pub struct PartitionLogProps {
    pub partition: PartitionVm,
    pub selected: Option<Selection>,
    pub on_select: Callback<Selection>,
    /// Opens in the inspector and lessons may spotlight it (false for a copy drawn from
    /// another run, like a compared lane).
    #[prop_or(true)]
    pub live: bool,
    /// The stage's own log: its name and broker open in the inspector and lessons may
    /// spotlight it (false for a compared lane's log, whose records alone open, in the
    /// lane's run).
    #[prop_or(true)]
    pub stage: bool,
}

/// One replica's log as a row of cells, with the high watermark drawn between cells. Cells
/// and the partition's name open in the inspector.
#[function_component(PartitionLog)]
pub fn partition_log(props: &PartitionLogProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let p = &props.partition;
    let (tp, broker) = (p.tp, p.broker);
    let (name_click, name_key) = activate(&props.on_select, Selection::Partition { tp, broker });
    let (broker_click, broker_key) = activate(
        &props.on_select,
        Selection::Node(eos_core::ids::NodeId::Broker(broker)),
    );
    let live = props.live;
    let head = live && props.stage;
    let (tab, button) = (head.then_some("0"), head.then_some("button"));
    // The names a lesson can point at it by (only the stage's own logs).
    let spots = head.then(|| crate::view_model::lesson::partition_spots(&p.title, broker));
    let spot = crate::spot::use_spot();
    // The last stable offset and the high watermark are lines drawn on the left of the
    // first cell at or above them, where they fall inside the log (at its end they say
    // nothing): on the cell, so that a wrapping row never parts them.
    let line = |offset: u64| -> Option<&'static str> {
        if offset == p.last_stable_offset && p.last_stable_offset < p.high_watermark {
            Some("LSO")
        } else if offset == p.high_watermark {
            Some("HW")
        } else {
            None
        }
    };
    // One tab stop for the cells (rove.rs): the one last focused, else the selected record,
    // else the first cell.
    let rove = super::rove::use_rove();
    let chosen = match props.selected {
        Some(Selection::Record {
            tp: t,
            broker: b,
            offset,
        }) if t == tp && b == broker => Some(offset),
        _ => None,
    };
    let stop = rove.stop_number(&[chosen, p.cells.first().map(|c| c.offset)], &|o| {
        p.cells.iter().any(|c| c.offset == o)
    });
    html! {
        <section class={classes!("partition", p.status, p.dedup.is_some().then_some("dedup-flash"), spots.as_deref().and_then(|s| spot.class(s)))} data-spot={spots.clone()} aria-label={p.title.clone()}>
            <div class="partition-head">
                <span class={classes!("partition-name", head.then_some("pickable"))} tabindex={tab} role={button}
                    aria-label={head.then(|| i18n.f(S::InspectPartition, &[&p.title, &broker]))}
                    onclick={head.then_some(name_click)} onkeydown={head.then_some(name_key)}>{ &p.title }</span>
                <span class={classes!("partition-role", head.then_some("pickable"), p.role_warn.then_some("warn"))} tabindex={tab} role={button}
                    aria-label={head.then(|| i18n.f(S::InspectBroker, &[&broker]))}
                    onclick={head.then_some(broker_click)} onkeydown={head.then_some(broker_key)}>{ &p.role }</span>
                if let Some(text) = &p.dedup { <span class="flash" role="status">{ text }</span> }
                if p.status != "up" { <span class={classes!("badge", p.status)}>{ crate::view_model::status_word(p.status, i18n.lang) }</span> }
                if p.held > 0 { <span class="badge held" title={i18n.t(S::HeldTip)}>{ i18n.f(S::HeldBadge, &[&p.held]) }</span> }
                <span class="hw">
                    if p.last_stable_offset < p.high_watermark {
                        <span class="lso" title={i18n.t(S::LsoTip)}>
                            { format!("LSO {} · ", p.last_stable_offset) }
                        </span>
                    }
                    { format!("HW {} · LEO {}", p.high_watermark, p.log_end_offset) }
                </span>
            </div>
            // A long log draws its cells smaller (offset and value; key and producer id stay in
            // each cell's tooltip), so a busy partition stays a few rows high.
            <ol class={classes!("log", (p.cells.len() > DENSE_FROM).then_some("dense"))}
                data-partition={p.title.clone()} data-broker={broker.to_string()}
                data-roves="" ref={rove.container.clone()} onfocusin={live.then(|| rove.onfocusin.clone())} onkeydown={live.then(|| rove.onkeydown.clone())}>
                if p.earlier > 0 {
                    <li class="earlier">{ i18n.f(S::EarlierCells, &[&p.earlier]) }</li>
                }
                // A list of its own, keyed by offset: yew matches cells by key only in a
                // list whose every child is keyed.
                <>{ for p.cells.iter().map(|c| html! {
                    <LogCell key={c.offset} cell={c.clone()} tp={tp} broker={broker}
                        selected={props.selected == Some(Selection::Record { tp, broker, offset: c.offset })}
                        on_select={props.on_select.clone()} live={live} line={line(c.offset)}
                        tab_stop={stop == Some(c.offset)} />
                }) }</>
                if p.cells.is_empty() { <li class="empty">{ i18n.t(S::EmptyLog) }</li> }
            </ol>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct LogCellProps {
    cell: CellVm,
    tp: Tp,
    broker: u8,
    selected: bool,
    on_select: Callback<Selection>,
    live: bool,
    /// "LSO" or "HW": the line drawn on the cell's left, with its tag.
    line: Option<&'static str>,
    /// The log's one tab stop (rove.rs); ↑ and ↓ reach the other cells.
    tab_stop: bool,
}

/// One record's cell, keyed by offset: as the log grows, cells already drawn are neither
/// rebuilt nor rendered again, and only the new one lands.
#[function_component(LogCell)]
fn log_cell(props: &LogCellProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let c = &props.cell;
    let sel = Selection::Record {
        tp: props.tp,
        broker: props.broker,
        offset: c.offset,
    };
    let (click, key) = activate(&props.on_select, sel);
    let live = props.live;
    // The tooltip says what the colour shows (open, committed, aborted): a screen reader
    // hears it as the cell's name.
    let title = c.title(i18n.lang);
    html! {
        <li class={classes!(c.classes.clone(), props.selected.then_some("selected"),
                props.line.map(|l| if l == "LSO" { "line-lso" } else { "line-hw" }))}
            data-line={props.line} title={title.clone()}
            aria-label={live.then_some(title)}
            data-tag={c.duplicate.then(|| i18n.t(if c.zombie { S::ZombieCopyTag } else { S::DuplicateTag }))}
            tabindex={live.then_some(super::rove::tabindex(props.tab_stop))} role={live.then_some("button")}
            data-rove={live.then(|| c.offset.to_string())}
            aria-pressed={live.then(|| props.selected.to_string())}
            onclick={live.then_some(click)} onkeydown={live.then_some(key)}>
            <span class="offset">{ c.offset }</span>
            <span class="value">{ &c.value }</span>
            <span class="key">{ &c.key }</span>
            // On a phone the sequence goes to a line of its own (style.css), so that two
            // cells still fit side by side.
            <span class="meta">{
                match c.meta.split_once(" · seq ") {
                    Some((head, seq)) => html! {
                        <>{ head }<span class="seq"><span class="sep">{" · "}</span>{ "seq " }{ seq }</span></>
                    },
                    None => html! { { &c.meta } },
                }
            }</span>
        </li>
    }
}
