use crate::i18n::{I18n, S};
use crate::view_model::inspector::{
    message_fault, parse_delay_ms, with_later, InspectorVm, MessageFault, Seen, Selection,
};
use eos_core::scenario::schema::FaultSpec;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct InspectorProps {
    pub vm: InspectorVm,
    pub on_close: Callback<()>,
    /// A row that opens something else (`InspectorVm::picks`) selects it.
    pub on_select: Callback<Selection>,
    /// A row's entry told by step (`InspectorVm::steps`) goes to its step.
    pub on_seek: Callback<u64>,
    pub on_inject: Callback<FaultSpec>,
    /// The faults added by click, and the time (ms) a fault added now would act at: a fault
    /// already added for this moment is not offered twice.
    pub scheduled: std::rc::Rc<Vec<FaultSpec>>,
    pub next_ms: u64,
    /// The run (`State::run_id`): what the panel told later in it stays after a jump back.
    pub run: usize,
    /// The run's current step: an entry told at it is marked.
    #[prop_or_default]
    pub step: u64,
}

/// The full state of what was clicked. For a message, the faults a click can put on it:
/// they join the schedule just after now, like the fault panel's.
#[function_component(Inspector)]
pub fn inspector(props: &InspectorProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let t = |s: S| i18n.t(s);
    let vm = &props.vm;
    let panel = use_node_ref();
    let delay_text = use_state(|| "500".to_string());
    // The rows told by step, with what they told at the furthest step seen of the same
    // thing in the same run (`with_later`): a jump back keeps the rest of the story.
    let seen = use_mut_ref(|| (0usize, String::new(), Seen::new()));
    let told = {
        let mut seen = seen.borrow_mut();
        if seen.0 != props.run || seen.1 != vm.title {
            *seen = (props.run, vm.title.clone(), Seen::new());
        }
        with_later(vm, &mut seen.2)
    };
    // Folded to its title, to see what is under it; something new opens unfolded.
    let folded = use_state_eq(|| false);
    // When the panel opens on something new it docks away from it (so it never hides what
    // was clicked) and takes the focus, so Tab reaches its buttons.
    // What had the focus when it opened gets it back when it closes.
    // (An element of the page or of a diagram: an SVG element is not an HtmlElement.)
    // While it is open, Tab from the opener goes into it (`placement::TabInto`).
    let opener = use_mut_ref(|| None::<web_sys::Element>);
    let tab_into = use_mut_ref(|| None::<crate::placement::TabInto>);
    {
        let (panel, opener, folded) = (panel.clone(), opener.clone(), folded.clone());
        let tab_into = tab_into.clone();
        use_effect_with(vm.title.clone(), move |_| {
            folded.set(false);
            if let Some(el) = panel.cast::<web_sys::HtmlElement>() {
                let active = web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.active_element());
                if let Some(a) = active.filter(|a| !el.contains(Some(a))) {
                    *tab_into.borrow_mut() = Some(crate::placement::TabInto::new(&el, &a));
                    *opener.borrow_mut() = Some(a);
                }
                crate::placement::dock_away(el.clone().into());
                let _ = el.focus();
            }
        });
    }
    // A record followed through a Flink job moves from channel to channel: the panel docks
    // away from where it is now, and leaves the focus where it is (the playback bar).
    {
        let panel = panel.clone();
        let place = (vm.kind == "flink-record")
            .then(|| vm.rows.first().map(|r| r.1.clone()))
            .flatten();
        use_effect_with(place, move |place| {
            if let (Some(_), Some(el)) = (place, panel.cast::<web_sys::HtmlElement>()) {
                crate::placement::dock_away(el.into());
            }
        });
    }
    // Tab leaves the panel for what follows its opener, as from a popover.
    let on_tab = {
        let (panel, opener) = (panel.clone(), opener.clone());
        Callback::from(move |e: KeyboardEvent| {
            if e.key() != "Tab" || e.alt_key() || e.ctrl_key() || e.meta_key() {
                return;
            }
            if let Some(el) = panel.cast::<web_sys::Element>() {
                let opener = opener.borrow().clone();
                if crate::placement::tab_around(&el, opener.as_ref(), e.shift_key()) {
                    e.prevent_default();
                }
            }
        })
    };
    // Tab onwards from the panel to something under it has the panel move out of its way.
    {
        let panel = panel.clone();
        use_effect_with((), move |_| {
            let watch = panel
                .cast::<web_sys::Element>()
                .map(crate::placement::FocusWatch::new);
            move || drop(watch)
        });
    }
    let inside = panel.clone();
    use_effect_with((), move |_| {
        move || {
            tab_into.borrow_mut().take();
            // Only when the focus went with the panel (Escape, ✕): not when the reader is
            // busy elsewhere (a new scenario picked also closes the panel).
            let document = web_sys::window().and_then(|w| w.document());
            let panel = inside.cast::<web_sys::Element>();
            let lost = document.as_ref().is_none_or(|d| {
                d.active_element().is_none_or(|a| {
                    d.body().is_some_and(|b| a == *b.as_ref())
                        || !a.is_connected()
                        || panel.as_ref().is_some_and(|p| p.contains(Some(&a)))
                })
            });
            // An opener gone from the page meanwhile (a message on the wire that has
            // arrived) hands the focus to the same message drawn elsewhere (its arrow).
            let opener = opener.borrow().clone().filter(|_| lost).and_then(|el| {
                if el.is_connected() {
                    return Some(el);
                }
                let id = el.get_attribute("data-msg")?;
                document
                    .as_ref()?
                    .query_selector(&format!("[data-msg=\"{id}\"][tabindex]"))
                    .ok()
                    .flatten()
            });
            if let Some(el) = opener.as_ref() {
                use wasm_bindgen::JsCast;
                if let Some(h) = el.dyn_ref::<web_sys::HtmlElement>() {
                    let _ = h.focus();
                } else if let Some(svg) = el.dyn_ref::<web_sys::SvgElement>() {
                    let _ = svg.focus();
                }
            }
        }
    });
    let close = {
        let cb = props.on_close.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let fold = {
        let folded = folded.clone();
        Callback::from(move |_: MouseEvent| folded.set(!*folded))
    };
    let fold_label = t(if *folded {
        S::UnfoldInspector
    } else {
        S::FoldInspector
    });
    let delay = parse_delay_ms(&delay_text, i18n.lang);
    let added = |m, fault| {
        let at = FaultSpec {
            at_ms: props.next_ms,
            ..message_fault(m, fault)
        };
        props.scheduled.contains(&at)
    };
    let faults = vm.message.as_ref().map(|m| {
        let button = |id: &'static str, label: String, fault: MessageFault, enabled: bool, tip: &'static str| {
            let cb = props.on_inject.clone();
            let spec = message_fault(m, fault);
            let enabled = enabled && !added(m, fault);
            html! {
                <button id={id} class="ctl fault" disabled={!enabled} title={tip}
                    onclick={Callback::from(move |_| {
                        cb.emit(spec.clone());
                        // The button is disabled now (the fault is in the schedule): the
                        // focus goes to the line that says so.
                        crate::components::focus_soon("fault-added");
                    })}>{ label }</button>
            }
        };
        let any_added = [
            MessageFault::Drop,
            MessageFault::Delay(delay.clone().unwrap_or(0)),
            MessageFault::LoseAck,
            MessageFault::DropNext,
            MessageFault::CutLink,
        ]
        .into_iter()
        .any(|f| added(m, f));
        let on_delay = {
            let delay_text = delay_text.clone();
            Callback::from(move |e: InputEvent| {
                if let Some(i) = e.target_dyn_into::<HtmlInputElement>() {
                    delay_text.set(i.value());
                }
            })
        };
        html! {
            <div class="inspector-faults">
                if m.hittable {
                    <h3>{ t(S::ThisMessage) }</h3>
                    <div class="fault-row">
                        { button("msg-drop", t(S::DropIt).into(), MessageFault::Drop, true, t(S::DropItTip)) }
                        <label class="delay-length">
                            <input id="msg-delay-ms" type="number" min="1" max="60000" step="1"
                                value={(*delay_text).clone()} oninput={on_delay}
                                aria-label={t(S::DelayMs)} aria-invalid={delay.is_err().to_string()} />
                            <span class="label">{ t(S::MsUnit) }</span>
                        </label>
                        { button("msg-delay", match &delay { Ok(v) => i18n.f(S::DelayItN, &[v]), Err(_) => t(S::DelayIt).into() },
                            MessageFault::Delay(delay.clone().unwrap_or(0)), delay.is_ok(), t(S::DelayItTip)) }
                        if m.is_produce {
                            { button("msg-lose-ack", t(S::LoseAck).into(), MessageFault::LoseAck, true, t(S::LoseAckTip)) }
                        }
                    </div>
                    if let Err(why) = &delay { <p class="field-error" role="alert">{ why }</p> }
                }
                <h3>{ i18n.f(S::TheLink, &[&m.route]) }</h3>
                <div class="fault-row">
                    { button("link-drop-next", i18n.f(S::DropNext, &[&crate::view_model::message_words::kind_named(&m.kind, i18n.lang)]), MessageFault::DropNext, true,
                        t(S::DropNextTip)) }
                    // A broker's message to the coordinator it hosts crosses no link.
                    if m.from != m.to {
                        { button("link-cut", t(S::CutLink).into(), MessageFault::CutLink, true, t(S::CutLinkTip)) }
                    }
                </div>
                if any_added { <p id="fault-added" class="fault-added" role="status" tabindex="-1">{ t(S::FaultScheduled) }</p> }
            </div>
        }
    });
    html! {
        <aside id="inspector" class={classes!("inspector", vm.kind, folded.then_some("folded"))} ref={panel} tabindex="-1"
            role="dialog" aria-modal="false" aria-labelledby="inspector-title" onkeydown={on_tab}>
            <div class="inspector-head">
                <h2 id="inspector-title">{ &vm.title }</h2>
                <button id="inspector-fold" class="ctl close" onclick={fold} title={fold_label} aria-label={fold_label}
                    aria-expanded={(!*folded).to_string()}>{ if *folded { "▴" } else { "▾" } }</button>
                <button id="inspector-close" class="ctl close" onclick={close} title={t(S::Close)} aria-label={t(S::CloseInspector)}>{"✕"}</button>
            </div>
            if !vm.rows.is_empty() {
                <dl class="rows">
                    { for vm.rows.iter().enumerate().map(|(i, (k, v))| {
                        let pick = vm.picks.iter().find(|(row, _)| *row == i).map(|(_, p)| *p);
                        // A row told by step with entries (its own, or later ones).
                        let told = told.iter().find(|(row, e)| *row == i && !e.is_empty()).map(|(_, s)| s);
                        html! {
                        <>
                            <dt>{ k }</dt>
                            if let Some(entries) = told {
                                <dd class="stepped">
                                // None yet, only later: "none" first.
                                if entries.iter().all(|e| e.2) {
                                    <span>{ v }</span>
                                }
                                { for entries.iter().map(|(step, said, later)| {
                                    let Some(step) = *step else {
                                        // The tooltip, and for a screen reader the same words.
                                        return html! { <span title={t(S::BeforeCell)}>{ said }
                                            <span class="visually-hidden">{ " (" }{ t(S::BeforeCell) }{ ")" }</span></span> };
                                    };
                                    let go = i18n.f(S::GoToStep, &[&step]);
                                    // "#7" says no more than its step; a sentence says what.
                                    let label = if *said == format!("#{step}") { go.clone() } else { format!("{said}: {go}") };
                                    let (title, label) = if *later {
                                        // (Not `char::to_uppercase`: its tables weigh 7 KB.)
                                        (i18n.f(S::LaterInRunTip, &[&go]), format!("{}: {label}", t(S::LaterInRun)))
                                    } else {
                                        (go, label)
                                    };
                                    let seek = props.on_seek.clone();
                                    html! {
                                        <button class={classes!("step-link", later.then_some("later"), (step == props.step).then_some("now"))}
                                            aria-current={(step == props.step).then_some("step")} title={title} aria-label={label}
                                            onclick={Callback::from(move |_: MouseEvent| {
                                                seek.emit(step);
                                                // The entry may be gone at that step: the
                                                // focus stays in the panel, not on the page.
                                                crate::components::focus_if_lost("inspector");
                                            })}>{ said }</button>
                                    }
                                }) }
                                </dd>
                            } else if let Some(pick) = pick {
                                <dd><button class="row-pick" onclick={props.on_select.reform(move |_: MouseEvent| pick)}>{ v }</button></dd>
                            } else {
                                <dd>{ v }</dd>
                            }
                        </>
                    }}) }
                </dl>
            }
            if !vm.notes.is_empty() {
                <ul class="notes">
                    { for vm.notes.iter().map(|n| html! { <li>{ n }</li> }) }
                </ul>
            }
            { faults.unwrap_or_default() }
        </aside>
    }
}
