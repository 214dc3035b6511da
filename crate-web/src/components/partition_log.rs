use crate::view_model::PartitionVm;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PartitionLogProps {
    pub partition: PartitionVm,
}

/// One replica's log as a row of cells, with the high watermark drawn between cells.
#[function_component(PartitionLog)]
pub fn partition_log(props: &PartitionLogProps) -> Html {
    let p = &props.partition;
    html! {
        <section class={classes!("partition", p.status)} aria-label={p.title.clone()}>
            <div class="partition-head">
                <span class="partition-name">{ &p.title }</span>
                <span class="partition-role">{ &p.role }</span>
                if p.status != "up" { <span class={classes!("badge", p.status)}>{ p.status }</span> }
                <span class="hw">
                    if p.last_stable_offset < p.high_watermark {
                        <span class="lso" title="Last stable offset: read_committed readers stop here">
                            { format!("LSO {} · ", p.last_stable_offset) }
                        </span>
                    }
                    { format!("HW {} · LEO {}", p.high_watermark, p.log_end_offset) }
                </span>
            </div>
            <ol class="log" data-partition={p.title.clone()}>
                { for p.cells.iter().map(|c| html! {
                    <li class={c.classes.clone()} title={c.title.clone()}>
                        <span class="offset">{ c.offset }</span>
                        <span class="value">{ &c.value }</span>
                        <span class="key">{ &c.key }</span>
                        <span class="meta">{ &c.meta }</span>
                    </li>
                }) }
                if p.cells.is_empty() { <li class="empty">{"empty log"}</li> }
            </ol>
        </section>
    }
}
