use super::activate;
use crate::flink_view::FlinkVm;
use crate::state::Selection;
use eos_core::ids::NodeId;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FlinkStageProps {
    pub job: FlinkVm,
    pub selected: Option<Selection>,
    pub on_select: Callback<Selection>,
}

/// The Flink job: subtasks with their state, channels with records and barriers, and the
/// checkpoint timeline.
#[function_component(FlinkStage)]
pub fn flink_stage(props: &FlinkStageProps) -> Html {
    let j = &props.job;
    html! {
        <section class={classes!("flink", j.phase)} aria-label="Flink job">
            <header class="flink-head">
                <h2>{"Flink job"}</h2>
                {{
                    let (click, key) = activate(&props.on_select, Selection::Node(NodeId::JobManager));
                    html! { <button class="jm" data-spot="jobmanager" onclick={click} onkeydown={key} title="Inspect the JobManager (checkpoint coordinator)">{"JobManager"}</button> }
                }}
                <span class="flink-mode">{ &j.mode }</span>
                <span class={classes!("flink-phase", j.phase)}>{ j.phase }</span>
                <span class="flink-summary">{ &j.summary }</span>
            </header>
            <div class="flink-tasks">
                { for j.tasks.iter().enumerate().map(|(i, t)| {
                    let sel = Selection::Node(NodeId::Task(i as u8));
                    let (click, key) = activate(&props.on_select, sel);
                    html! {
                    <article class={classes!("card", "task", t.status, (props.selected == Some(sel)).then_some("selected"))} tabindex="0" data-spot={t.name.clone()}
                        onclick={click} onkeydown={key}
                        title={format!("Inspect {} (Enter)", t.name)}
                        aria-label={format!("{} ({}), {}", t.name, t.kind, t.status)}>
                        <h3>{ &t.name }<span class="task-kind">{ t.kind }</span></h3>
                        <p class="task-status">{ format!("{} · {} processed", t.status, t.processed) }</p>
                        if t.snapshot > 0 {
                            <p class="snapshot-badge" title="the last checkpoint this task snapshotted">{ format!("snapshot {}", t.snapshot) }</p>
                        }
                        if !t.state.is_empty() {
                            <p class="task-state">{ format!("state: {}", t.state) }</p>
                        }
                        if let Some(d) = &t.detail {
                            <p class="task-detail">{ d }</p>
                        }
                    </article>
                }}) }
            </div>
            <div class="flink-channels">
                { for j.channels.iter().map(|c| html! {
                    <div class={classes!("channel", c.blocked.then_some("blocked"), c.loop_edge.then_some("loop"))}>
                        <span class="channel-ends">{ format!("{} → {}", c.from, c.to) }</span>
                        <span class="channel-items">
                            { for c.items.iter().map(|i| html! {
                                <span class={classes!("item", if i.barrier { "barrier" } else { "record" })}>{ &i.label }</span>
                            }) }
                            if c.more > 0 {
                                <span class="item more">{ format!("+{}", c.more) }</span>
                            }
                        </span>
                        <span class="channel-fill">{ format!("{}/{}", c.records, c.capacity) }
                            if c.blocked { <span class="blocked-tag">{" blocked"}</span> }
                            if c.loop_edge { <span class="loop-tag">{" loop edge"}</span> }
                        </span>
                    </div>
                }) }
            </div>
            <ol class="checkpoint-timeline" aria-label="Checkpoints">
                { for j.checkpoints.iter().map(|c| html! {
                    <li class={classes!("checkpoint", c.outcome)}>
                        <strong>{ format!("cp {}", c.id) }</strong>
                        <span>{ c.outcome }</span>
                        <span>{ format!("acks {}", c.acks) }</span>
                        <span>{ &c.timing }</span>
                    </li>
                }) }
            </ol>
        </section>
    }
}
