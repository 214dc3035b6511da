use super::activate;
use crate::flink_view::{kind_word, outcome_word, phase_word, status_word, FlinkVm, RestoreVm};
use crate::i18n::{I18n, S};
use crate::state::Selection;
use eos_core::ids::NodeId;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FlinkStageProps {
    pub job: FlinkVm,
    pub selected: Option<Selection>,
    pub on_select: Callback<Selection>,
    /// At the end: the output against a failure-free run, and whether it is the same.
    pub verdict: Option<(String, bool)>,
}

/// The Flink job: subtasks with their state, channels with records and barriers, and the
/// checkpoint timeline.
#[function_component(FlinkStage)]
pub fn flink_stage(props: &FlinkStageProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let (tr, lang) = (|s: S| i18n.t(s), i18n.lang);
    let j = &props.job;
    // A channel's records and barriers are one roving group each (rove.rs): Tab goes from a
    // channel to its items' stop, ↑/↓ move among them, Enter opens one.
    let rove = super::rove::use_rove();
    let spot = crate::spot::use_spot();
    html! {
        <section class={classes!("flink", j.phase)} aria-label={tr(S::FlinkJob)}>
            <header class="flink-head">
                <h2>{ tr(S::FlinkJob) }</h2>
                {{
                    let (click, key) = activate(&props.on_select, Selection::Node(NodeId::JobManager));
                    html! { <button class={classes!("ctl", "jm", spot.class("jobmanager"))} data-spot="jobmanager" onclick={click} onkeydown={key} title={tr(S::InspectJobManager)}>{"JobManager"}</button> }
                }}
                <span class="flink-mode">{ &j.mode }</span>
                <span class={classes!("flink-phase", j.phase)}>{ phase_word(j.phase, lang) }</span>
                <span class="flink-summary">{ &j.summary }</span>
                if let Some((text, same)) = &props.verdict {
                    <span id="flink-verdict" class={classes!("flink-verdict", if *same { "same" } else { "differs" })}>{ text }</span>
                }
            </header>
            <div class="flink-tasks">
                { for j.tasks.iter().enumerate().map(|(i, t)| {
                    let sel = Selection::Node(NodeId::Task(i as u8));
                    let (click, key) = activate(&props.on_select, sel);
                    html! {
                    <article class={classes!("card", "task", t.status, (props.selected == Some(sel)).then_some("selected"), spot.class(&t.name))} tabindex="0" data-spot={t.name.clone()}
                        onclick={click} onkeydown={key}
                        title={i18n.f(S::InspectThing, &[&t.name])}
                        aria-label={format!("{} ({}), {}", t.name, kind_word(t.kind, lang), status_word(t.status, lang))}>
                        <h3>{ &t.name }<span class="task-kind">{ kind_word(t.kind, lang) }</span></h3>
                        <p class="task-status">{ if t.processed_all == t.processed {
                            i18n.f(S::TaskProcessed, &[&status_word(t.status, lang), &t.processed])
                        } else {
                            i18n.f(S::TaskProcessedSinceRestore, &[&status_word(t.status, lang), &t.processed, &t.processed_all])
                        } }</p>
                        if t.snapshot > 0 {
                            <p class="snapshot-badge" title={i18n.t(S::SnapshotTip)}>{ i18n.f(S::SnapshotN, &[&t.snapshot]) }</p>
                            if let Some(at) = &t.saved {
                                <p class="task-detail saved">{ i18n.f(S::SnapshotSaved, &[at]) }</p>
                            }
                        }
                        if !t.state.is_empty() {
                            <p class="task-state">{ i18n.f(S::StateN, &[&t.state]) }</p>
                        }
                        if let Some(d) = &t.detail {
                            <p class="task-detail">{ d }</p>
                        }
                    </article>
                }}) }
            </div>
            <div class="flink-channels" data-roves="" ref={rove.container.clone()}
                onfocusin={rove.onfocusin.clone()} onkeydown={rove.onkeydown.clone()}>
                { for j.channels.iter().enumerate().map(|(i, c)| {
                    let sel = Selection::Channel(i as u16);
                    let (click, key) = activate(&props.on_select, sel);
                    let fill = i18n.f(S::ChannelFill, &[&c.records, &c.capacity]);
                    // The channel's tab stop among its items: the one last focused, or its first.
                    let keys: Vec<String> = c.items.iter().filter_map(|it| it.pick.map(|p| rove_key(i, p))).collect();
                    let stop = rove.stop(&keys[..keys.len().min(1)], &|k| keys.iter().any(|x| x == k));
                    html! {
                    <div class={classes!("channel", c.blocked.then_some("blocked"), c.loop_edge.then_some("loop"), (props.selected == Some(sel)).then_some("selected"))}
                        role="button" tabindex="0" onclick={click} onkeydown={key}
                        aria-label={i18n.f(S::InspectChannel, &[&c.from, &c.to, &format!("{fill}{}", if c.blocked { tr(S::CommaBlocked) } else { "" })])}>
                        <span class="channel-ends"><span>{ &c.from }</span>{" → "}<span>{ &c.to }</span></span>
                        <span class="channel-items">
                            // A click on a record or a barrier opens it rather than the channel;
                            // so do Enter and Space on it.
                            { for c.items.iter().map(|item| {
                                let key = item.pick.map(|pick| rove_key(i, pick));
                                let onclick = item.pick.map(|pick| {
                                    let cb = props.on_select.clone();
                                    Callback::from(move |e: MouseEvent| { e.stop_propagation(); cb.emit(pick) })
                                });
                                let onkeydown = item.pick.map(|pick| {
                                    let cb = props.on_select.clone();
                                    Callback::from(move |e: KeyboardEvent| {
                                        if matches!(e.key().as_str(), "Enter" | " ") {
                                            e.prevent_default();
                                            e.stop_propagation();
                                            cb.emit(pick)
                                        }
                                    })
                                });
                                let lit = item.pick.is_some() && props.selected == item.pick;
                                let tabindex = key.as_ref().map(|k| super::rove::tabindex(Some(k) == stop.as_ref()));
                                html! {
                                    <span class={classes!("item", item.kind, item.pick.is_some().then_some("pickable"), lit.then_some("selected"))}
                                        title={item.title.clone()} {onclick} {onkeydown} {tabindex} data-rove={key}
                                        role={item.pick.map(|_| "button")}>{ &item.label }</span>
                                }
                            }) }
                        </span>
                        <span class="channel-fill">{ format!("{}/{}", c.records, c.capacity) }
                            if c.blocked { <span class="blocked-tag">{ tr(S::Blocked) }</span> }
                            if c.loop_edge { <span class="loop-tag">{ tr(S::LoopEdge) }</span> }
                        </span>
                    </div>
                }}) }
            </div>
            <ol class="checkpoint-timeline" aria-label={tr(S::Checkpoints)}>
                { for j.checkpoints.iter().enumerate().map(|(i, c)| {
                    let sel = Selection::Checkpoint(c.id);
                    let lit = props.selected == Some(sel);
                    let onclick = props.on_select.reform(move |_: MouseEvent| sel);
                    html! { <>
                        { restores(&j.restores, i) }
                        <li class={classes!("checkpoint", c.outcome, lit.then_some("selected"))}>
                            <button class="cp-open" {onclick} aria-pressed={lit.to_string()}
                                title={i18n.f(S::InspectCheckpoint, &[&c.id])}>
                                <strong>{ i18n.f(if c.savepoint { S::Savepoint } else { S::CpN }, &[&c.id]) }</strong>
                                <span>{ outcome_word(c.outcome, c.savepoint, lang) }</span>
                                <span>{ i18n.f(S::AcksN, &[&c.acks]) }</span>
                                <span>{ &c.timing }</span>
                            </button>
                        </li>
                    </> }
                }) }
                { restores(&j.restores, j.checkpoints.len()) }
            </ol>
        </section>
    }
}

/// A channel item's roving key: its channel (the group) and what it opens, stable while it
/// moves along the channel.
fn rove_key(channel: usize, pick: Selection) -> String {
    match pick {
        Selection::FlinkRecord(r) => format!("c{channel}:r{}", r.0),
        Selection::Checkpoint(id) => format!("c{channel}:b{id}"),
        // Items open a record or a checkpoint only.
        _ => format!("c{channel}:x"),
    }
}

/// The restores drawn before checkpoint chip `before`.
fn restores(all: &[RestoreVm], before: usize) -> Html {
    all.iter()
        .filter(|r| r.before == before)
        .map(|r| html! { <li class="restore">{ &r.label }</li> })
        .collect()
}
