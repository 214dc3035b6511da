use super::activate;
use crate::i18n::{I18n, S};
use crate::state::Selection;
use crate::view_model::{CellVm, PartitionVm};
use eos_core::ids::Tp;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PartitionLogProps {
    pub partition: PartitionVm,
    pub selected: Option<Selection>,
    pub on_select: Callback<Selection>,
    /// Lessons may spotlight it (false for a copy drawn elsewhere, like a compared lane).
    #[prop_or(true)]
    pub spot: bool,
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
    html! {
        <section class={classes!("partition", p.status, p.dedup.is_some().then_some("dedup-flash"))} data-spot={props.spot.then(|| crate::view_model::lesson::partition_spots(&p.title, broker))} aria-label={p.title.clone()}>
            <div class="partition-head">
                <span class="partition-name pickable" tabindex="0" role="button"
                    aria-label={i18n.f(S::InspectPartition, &[&p.title, &broker])}
                    onclick={name_click} onkeydown={name_key}>{ &p.title }</span>
                <span class="partition-role pickable" tabindex="0" role="button"
                    aria-label={i18n.f(S::InspectBroker, &[&broker])}
                    onclick={broker_click} onkeydown={broker_key}>{ &p.role }</span>
                if let Some(text) = &p.dedup { <span class="flash" role="status">{ text }</span> }
                if p.status != "up" { <span class={classes!("badge", p.status)}>{ crate::view_model::status_word(p.status, i18n.lang) }</span> }
                <span class="hw">
                    if p.last_stable_offset < p.high_watermark {
                        <span class="lso" title={i18n.t(S::LsoTip)}>
                            { format!("LSO {} · ", p.last_stable_offset) }
                        </span>
                    }
                    { format!("HW {} · LEO {}", p.high_watermark, p.log_end_offset) }
                </span>
            </div>
            <ol class="log" data-partition={p.title.clone()} data-broker={broker.to_string()}>
                if p.earlier > 0 {
                    <li class="earlier">{ i18n.f(S::EarlierCells, &[&p.earlier]) }</li>
                }
                // A list of its own, keyed by offset: yew matches cells by key only in a
                // list whose every child is keyed.
                <>{ for p.cells.iter().map(|c| html! {
                    <LogCell key={c.offset} cell={c.clone()} tp={tp} broker={broker}
                        selected={props.selected == Some(Selection::Record { tp, broker, offset: c.offset })}
                        on_select={props.on_select.clone()} />
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
    html! {
        <li class={classes!(c.classes.clone(), props.selected.then_some("selected"))} title={c.title(i18n.lang)}
            data-tag={c.duplicate.then(|| i18n.t(S::DuplicateTag))}
            tabindex="0" role="button" aria-pressed={props.selected.to_string()}
            onclick={click} onkeydown={key}>
            <span class="offset">{ c.offset }</span>
            <span class="value">{ &c.value }</span>
            <span class="key">{ &c.key }</span>
            <span class="meta">{ &c.meta }</span>
        </li>
    }
}
