use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FaultPanelProps {
    pub processes: Vec<String>,
    /// The fault schedule, one line each ("at 5 ms: freeze broker-0 for 6000 ms").
    pub schedule: Vec<String>,
    pub injected: u32,
    pub on_inject: Callback<(String, String)>,
}

/// Faults by click: pick a process, freeze it for 2 s, crash it or restart it. Each fault
/// joins the schedule just after the current moment.
#[function_component(FaultPanel)]
pub fn fault_panel(props: &FaultPanelProps) -> Html {
    let target = use_node_ref();
    let button = |id: &'static str, label: &'static str, action: &'static str| {
        let cb = props.on_inject.clone();
        let target = target.clone();
        html! {
            <button id={id} class="ctl fault" onclick={Callback::from(move |_| {
                if let Some(select) = target.cast::<HtmlSelectElement>() {
                    cb.emit((select.value(), action.to_string()));
                }
            })}>{ label }</button>
        }
    };
    html! {
        <section class="card faults" aria-label="Faults">
            <h2>{"Inject a fault"}</h2>
            <div class="fault-row">
                <select id="fault-target" ref={target.clone()} aria-label="Process">
                    { for props.processes.iter().map(|p| html! { <option value={p.clone()}>{ p }</option> }) }
                </select>
                { button("fault-freeze", "Freeze 2 s", "freeze") }
                { button("fault-crash", "Crash", "crash") }
                { button("fault-restart", "Restart", "restart") }
            </div>
            <h3 class="schedule-title">
                { "Fault schedule" }
                if props.injected > 0 { <span class="injected">{ format!(" (+{} by click)", props.injected) }</span> }
            </h3>
            if props.schedule.is_empty() {
                <p class="quiet">{"no faults"}</p>
            } else {
                <ol id="fault-schedule" class="schedule">
                    { for props.schedule.iter().map(|f| html! { <li>{ f }</li> }) }
                </ol>
            }
        </section>
    }
}
