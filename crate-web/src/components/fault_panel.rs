use crate::i18n::{I18n, S};
use crate::state::process_fault;
use crate::view_model::{parse_freeze_seconds, FREEZE_SECONDS, FREEZE_SECONDS_MAX};
use eos_core::scenario::schema::FaultSpec;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FaultPanelProps {
    pub processes: Vec<String>,
    /// The fault schedule, one line each ("at 5 ms: freeze broker 0 for 6.000 s").
    pub schedule: Vec<String>,
    pub injected: u32,
    /// The faults added by click, in the order added, each in words: each can be taken out.
    #[prop_or_default]
    pub added: Vec<String>,
    #[prop_or_default]
    pub on_remove: Callback<usize>,
    /// A press that added nothing (the same fault again), said here as well as above.
    #[prop_or_default]
    pub refused: Option<String>,
    pub on_inject: Callback<FaultSpec>,
    /// The processes down now: they can be restarted, not crashed or frozen.
    pub down: Vec<String>,
    /// A Flink job's subtasks and task managers: the JobManager restarts them (a failover),
    /// never a click; a task manager can only crash.
    #[prop_or_default]
    pub flink: Vec<String>,
}

/// Faults by click: pick a process, freeze it for the chosen number of seconds, crash it
/// or restart it. Each fault joins the schedule just after the current moment.
#[function_component(FaultPanel)]
pub fn fault_panel(props: &FaultPanelProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let t = |s: S| i18n.t(s);
    let target = use_node_ref();
    let picked = use_state(|| props.processes.first().cloned().unwrap_or_default());
    // After a change of scenario the old pick may be gone: the select shows the first.
    let current = if props.processes.contains(&*picked) {
        (*picked).clone()
    } else {
        props.processes.first().cloned().unwrap_or_default()
    };
    let is_down = props.down.contains(&current);
    let flink = props.flink.contains(&current);
    let worker = flink && current.starts_with("taskmanager-");
    let on_pick = {
        let picked = picked.clone();
        Callback::from(move |e: Event| {
            if let Some(select) = e.target_dyn_into::<HtmlSelectElement>() {
                picked.set(select.value());
            }
        })
    };
    let seconds_text = use_state(|| "2".to_string());
    let seconds = parse_freeze_seconds(&seconds_text, i18n.lang);
    // What a screen reader is told after a click: the fault and that it is scheduled, once
    // the schedule has taken it (a refused fault gets its alert instead). The same fault
    // twice in a row differs by an invisible mark, so it is said again.
    let said = use_state(String::new);
    let clicked = use_mut_ref(String::new);
    {
        let (said, clicked) = (said.clone(), clicked.clone());
        let injected = props.injected;
        let before = use_mut_ref(|| injected);
        use_effect_with(injected, move |now| {
            let grew = *now > *before.borrow();
            *before.borrow_mut() = *now;
            let line = std::mem::take(&mut *clicked.borrow_mut());
            if grew && !line.is_empty() {
                said.set(if *said == line {
                    format!("{line}\u{200b}")
                } else {
                    line
                });
            }
        });
    }
    let button = |id: &'static str,
                  label: String,
                  action: &'static str,
                  freeze_ms: u64,
                  ok: bool,
                  tip: Option<String>| {
        let cb = props.on_inject.clone();
        let (target, clicked) = (target.clone(), clicked.clone());
        let scheduled = i18n.t(S::FaultScheduled);
        let text = label.clone();
        html! {
            <button id={id} class="ctl fault" disabled={!ok} title={tip} onclick={Callback::from(move |_| {
                if let Some(select) = target.cast::<HtmlSelectElement>() {
                    let process = select.value();
                    cb.emit(process_fault(&process, action, freeze_ms));
                    *clicked.borrow_mut() = format!("{text} · {process}. {scheduled}");
                }
            })}>{ label }</button>
        }
    };
    let on_seconds = {
        let seconds_text = seconds_text.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(i) = e.target_dyn_into::<HtmlInputElement>() {
                seconds_text.set(i.value());
            }
        })
    };
    let freeze_label = match &seconds {
        Ok(s) => i18n.f(S::FreezeN, &[s]),
        Err(_) => t(S::Freeze).to_string(),
    };
    html! {
        <section class="card faults" aria-label={t(S::Faults)}>
            <h2>{ t(S::InjectFault) }</h2>
            <div class="fault-row">
                <select id="fault-target" ref={target.clone()} aria-label={t(S::Process)} onchange={on_pick}>
                    { for props.processes.iter().map(|p| html! {
                        <option value={p.clone()} selected={*p == current}>{ p }</option>
                    }) }
                </select>
                <label class="freeze-length">
                    <span class="label">{ t(S::For) }</span>
                    <input id="freeze-seconds" type="number" min="1" max={FREEZE_SECONDS_MAX.to_string()} step="1"
                        list="freeze-choices" value={(*seconds_text).clone()} oninput={on_seconds}
                        aria-label={t(S::FreezeSeconds)} aria-invalid={seconds.is_err().to_string()}
                        aria-describedby="freeze-error" />
                    <datalist id="freeze-choices">
                        { for FREEZE_SECONDS.iter().map(|s| html! { <option value={s.to_string()} /> }) }
                    </datalist>
                    <span class="label">{ t(S::SecondsUnit) }</span>
                </label>
                { button("fault-freeze", freeze_label, "freeze", seconds.clone().unwrap_or(0) * 1_000,
                    seconds.is_ok() && !is_down && !worker,
                    if worker { Some(t(S::WorkerOnlyCrashes).to_string()) } else { is_down.then(|| t(S::AlreadyDown).to_string()) }) }
                { button("fault-crash", t(S::Crash).into(), "crash", 0, !is_down,
                    Some(t(match (is_down, flink) {
                        (true, _) => S::AlreadyDown,
                        (false, true) => S::CrashTaskTip,
                        (false, false) => S::CrashTip,
                    }).to_string())) }
                { button("fault-restart", t(S::Restart).into(), "restart", 0, is_down && !flink,
                    if flink { Some(t(S::RestartedByJobManager).to_string()) } else { (!is_down).then(|| t(S::NotDown).to_string()) }) }
            </div>
            <div class="quick-freeze" role="group" aria-label={t(S::FreezeLength)}>
                { for FREEZE_SECONDS.iter().map(|s| {
                    let seconds_text = seconds_text.clone();
                    let s = *s;
                    html! {
                        <button class={classes!("chip", (seconds == Ok(s)).then_some("on"))}
                            aria-pressed={(seconds == Ok(s)).to_string()}
                            onclick={Callback::from(move |_| seconds_text.set(s.to_string()))}>
                            { i18n.f(S::SecondsN, &[&s]) }
                        </button>
                    }
                }) }
            </div>
            if let Err(why) = &seconds {
                <p id="freeze-error" class="field-error" role="alert">{ why }</p>
            }
            if let Some(why) = &props.refused {
                <p class="field-error" aria-hidden="true">{ why }</p>
            }
            // Said when a click adds a fault (as the inspector's buttons say it).
            <p class="visually-hidden" role="status">{ &*said }</p>
            <h3 class="schedule-title" id="fault-schedule-title" tabindex="-1">
                { t(S::FaultSchedule) }
                if props.injected > 0 { <span class="injected">{ i18n.f(S::ByClick, &[&props.injected]) }</span> }
            </h3>
            if props.schedule.is_empty() {
                <p class="quiet">{ t(S::NoFaults) }</p>
            } else {
                <ol id="fault-schedule" class="schedule">
                    { for props.schedule.iter().map(|f| html! { <li>{ f }</li> }) }
                </ol>
            }
            if !props.added.is_empty() {
                <h3 class="schedule-title" id="added-faults-title">{ t(S::AddedByClick) }</h3>
                <ul id="added-faults" class="added-faults" aria-labelledby="added-faults-title">
                    { for props.added.iter().enumerate().map(|(n, f)| {
                        let cb = props.on_remove.clone();
                        // The button goes with its fault: the focus goes to the next one's
                        // (or the last one's), else to the schedule's title; not to a select,
                        // where End or an arrow would change the process picked.
                        let left = props.added.len() - 1;
                        let next = if left > 0 {
                            format!("remove-fault-{}", n.min(left - 1))
                        } else {
                            "fault-schedule-title".to_string()
                        };
                        html! {
                            <li>
                                <span>{ f }</span>
                                <button id={format!("remove-fault-{n}")} class="remove"
                                    aria-label={i18n.f(S::RemoveFault, &[f])} title={i18n.f(S::RemoveFault, &[f])}
                                    onclick={Callback::from(move |_| {
                                        cb.emit(n);
                                        crate::components::focus_soon(next.clone());
                                    })}>{"×"}</button>
                            </li>
                        }
                    }) }
                </ul>
            }
        </section>
    }
}
