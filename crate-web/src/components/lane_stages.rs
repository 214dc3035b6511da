//! Three lanes in step: the scenario and its faults under at-most-once, at-least-once and
//! exactly-once, each run to the moment on screen, side by side. Each lane shows its
//! processor's output log as a read_committed reader would find it, and its counts at that
//! moment (`eos_core::outcomes::outcome_now`). Step, step back or scrub the main run and the
//! three follow (a lane that must go back is replayed from its start: these runs are small).

use super::partition_log::PartitionLog;
use super::SharedScenario;
use crate::i18n::{I18n, Lang};
use crate::view_model::{cost::GUARANTEES, partitions, PartitionVm};
use eos_core::kafka::processor::Guarantee;
use eos_core::time::SimTime;
use eos_core::{RunLimit, Simulation};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LaneStagesProps {
    pub scenario: SharedScenario,
    pub seed: u64,
    /// The main run's clock: every lane is run to this moment.
    pub time: SimTime,
}

/// One lane's run, and what it was built from.
struct Lane {
    guarantee: Guarantee,
    sim: Simulation,
}

fn fresh(scenario: &SharedScenario, seed: u64) -> Vec<Lane> {
    Guarantee::ALL
        .into_iter()
        .filter_map(|g| {
            let s = eos_core::compare::with_guarantee(scenario, g).ok()?;
            Some(Lane {
                guarantee: g,
                sim: s.simulation_without_trace(Some(seed)),
            })
        })
        .collect()
}

#[function_component(LaneStages)]
pub fn lane_stages(props: &LaneStagesProps) -> Html {
    let lang = use_context::<I18n>().unwrap_or_default().lang;
    let ru = lang == Lang::Ru;
    let built = use_mut_ref(|| None::<(SharedScenario, u64)>);
    let lanes: Rc<RefCell<Vec<Lane>>> = use_mut_ref(Vec::new);
    {
        let key = (props.scenario.clone(), props.seed);
        let mut built = built.borrow_mut();
        if built.as_ref() != Some(&key) {
            *lanes.borrow_mut() = fresh(&props.scenario, props.seed);
            *built = Some(key);
        }
    }
    let mut lanes = lanes.borrow_mut();
    for lane in lanes.iter_mut() {
        if lane.sim.now() > props.time {
            // Back in time: replay this lane from its start.
            if let Ok(s) = eos_core::compare::with_guarantee(&props.scenario, lane.guarantee) {
                lane.sim = s.simulation_without_trace(Some(props.seed));
            }
        }
        lane.sim.run(RunLimit::Until(props.time));
    }
    let title = if ru {
        "Три гарантии в этот момент"
    } else {
        "The three guarantees at this moment"
    };
    html! {
        <section class="card lane-stages" aria-label={title}>
            <h2>{ title }</h2>
            <p class="quiet">{ if ru {
                "Те же сбои при каждой гарантии, каждый прогон доведён до времени на часах: выходной журнал процессора и счёт на этот момент."
            } else {
                "The same faults under each guarantee, each run to the time on the clock: the processor's output log and the counts so far."
            } }</p>
            <div class="lane-row">
                { for lanes.iter().map(|l| lane_view(l, lang)) }
            </div>
        </section>
    }
}

fn lane_view(lane: &Lane, lang: Lang) -> Html {
    let ru = lang == Lang::Ru;
    let name = lane.guarantee.name();
    let colour = GUARANTEES
        .iter()
        .find(|(g, _)| *g == name)
        .map_or("--accent", |(_, c)| *c);
    let counts = eos_core::outcomes::outcome_now(&lane.sim, false).unwrap_or_default();
    // The processor's output partitions, leaders only: what a reader is served.
    let outputs: Vec<u16> = lane
        .sim
        .processors
        .iter()
        .map(|p| p.settings.output_topic)
        .collect();
    let logs: Vec<PartitionVm> = partitions(&lane.sim, lang)
        .into_iter()
        .filter(|p| p.leader && outputs.contains(&p.tp.topic))
        .collect();
    html! {
        <article class={classes!("lane-stage", name)} style={format!("--lane: var({colour})")}>
            <h3>{ name }</h3>
            <p class="lane-counts">
                <span>{ format!("{}: {}", if ru { "с результатом" } else { "with output" }, counts.visible) }</span>
                <span class={classes!((counts.duplicates > 0).then_some("bad"))}>{ format!("{}: {}", if ru { "дубликаты" } else { "duplicates" }, counts.duplicates) }</span>
                <span class={classes!((counts.lost > 0).then_some("bad"))}>{ format!("{}: {}", if ru { "потеряно" } else { "lost" }, counts.lost) }</span>
            </p>
            { for logs.into_iter().map(|p| html! {
                <PartitionLog partition={p} selected={None} on_select={Callback::noop()} spot={false} />
            }) }
        </article>
    }
}
