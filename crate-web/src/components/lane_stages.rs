//! Three lanes in step: the scenario and its faults under at-most-once, at-least-once and
//! exactly-once, each run to the moment on screen, side by side. Each lane is a small stage:
//! its processor's card, the next messages on its wire, its output log as a read_committed
//! reader would find it, and its counts at that moment (`eos_core::outcomes::outcome_now`). Step, step back or scrub the main run and the
//! three follow (a lane that must go back replays from the latest copy of its run before that
//! moment).

use super::flights::Flights;
use super::partition_log::PartitionLog;
use super::processor_card::ProcessorCard;
use super::SharedScenario;
use crate::i18n::{I18n, Lang, S};
use crate::state::{Selection, Snapshots};
use crate::view_model::{cost::GUARANTEES, in_flight_shown, partitions, processors, PartitionVm};
use eos_core::kafka::processor::Guarantee;
use eos_core::time::SimTime;
use eos_core::Simulation;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// A moment of the main run: its clock, and how many of its steps happened at that time (a
/// step in the middle of a millisecond shows only some of that millisecond's events).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Moment {
    pub time: SimTime,
    pub steps_at_time: u64,
}

impl Moment {
    /// Where `sim` (a run that keeps its trace) stands.
    pub fn of(sim: &Simulation) -> Moment {
        let time = sim.now();
        let trace = sim.trace();
        let before = trace.partition_point(|r| r.time < time);
        Moment {
            time,
            steps_at_time: (trace.len() - before) as u64,
        }
    }
}

/// Steps `sim` through every event before `m` and, at its time, until it has taken as many
/// steps there as the main run (`taken`: the steps it has taken at that time already). The
/// lane under the main run's own guarantee is the main run, step for step; another lane
/// differs anyway, and stops at the same point of the moment as near as it can.
pub fn advance(
    sim: &mut Simulation,
    m: Moment,
    taken: &mut u64,
    mut after_step: impl FnMut(&mut Simulation),
) {
    while let Some(next) = sim.next_event_time() {
        if next > m.time || (next == m.time && *taken >= m.steps_at_time) {
            break;
        }
        if sim.step() != eos_core::StepOutcome::Stepped {
            break;
        }
        if sim.last_step_at() == m.time {
            *taken += 1;
        }
        after_step(sim);
    }
}

#[derive(Properties, PartialEq)]
pub struct LaneStagesProps {
    pub scenario: SharedScenario,
    pub seed: u64,
    /// The main run's moment: every lane is run to it.
    pub moment: Moment,
    /// What the inspector shows: a lane's record is `Selection::LaneRecord`.
    #[prop_or_default]
    pub selected: Option<Selection>,
    /// A click on a lane's record (as `Selection::LaneRecord`).
    #[prop_or_default]
    pub on_select: Callback<Selection>,
}

/// A lane keeps a copy of its run every this many steps, so that going back in a long run
/// replays at most this many.
const SNAPSHOT_EVERY: u64 = 2_000;
/// Messages a lane lists from its wire (the rest are counted).
const LANE_WIRE_SHOWN: usize = 3;
/// The most copies a lane keeps (past it, every other one goes and the spacing doubles).
const MAX_SNAPSHOTS: usize = 32;
/// The most memory a lane spends on its copies.
const SNAPSHOT_BUDGET_BYTES: usize = 64 << 20;

/// One lane's run, with copies of it taken on the way (the page's `Snapshots`).
struct Lane {
    guarantee: Guarantee,
    sim: Simulation,
    snapshots: Snapshots,
    /// The time of the run's latest step and how many steps it took at that time
    /// (`UNKNOWN` after a copy was restored: the copy does not say).
    at: (SimTime, u64),
}

impl Lane {
    fn new(guarantee: Guarantee, sim: Simulation, every: u64) -> Lane {
        Lane {
            guarantee,
            snapshots: Snapshots::new(&sim, every, MAX_SNAPSHOTS)
                .with_budget(SNAPSHOT_BUDGET_BYTES),
            sim,
            at: (0, 0),
        }
    }

    /// Runs to the moment `m`: forward from where it is, or back from the latest copy before
    /// its time.
    fn seek(&mut self, m: Moment) {
        let (last, n) = self.at;
        if self.sim.now() > m.time || (last == m.time && n > m.steps_at_time) {
            // A copy from before the moment's time, so that every step at it is counted.
            let copy = match m.time.checked_sub(1) {
                Some(before) => self.snapshots.at_or_before_time(before),
                None => self.snapshots.first(),
            };
            if let Some(s) = copy {
                self.sim = s.clone();
                let n = if self.sim.steps() == 0 { 0 } else { UNKNOWN };
                self.at = (self.sim.last_step_at(), n);
            }
        }
        let mut taken = if self.at.0 == m.time { self.at.1 } else { 0 };
        let (snapshots, at) = (&mut self.snapshots, &mut self.at);
        advance(&mut self.sim, m, &mut taken, |sim| {
            let t = sim.last_step_at();
            *at = if at.0 == t {
                (t, at.1.saturating_add(1))
            } else {
                (t, 1)
            };
            snapshots.offer(sim);
        });
    }
}

/// A lane's count of steps at its latest step's time, after a copy was restored.
const UNKNOWN: u64 = u64::MAX;

fn fresh(scenario: &SharedScenario, seed: u64) -> Vec<Lane> {
    Guarantee::ALL
        .into_iter()
        .filter_map(|g| {
            let s = eos_core::compare::with_guarantee(scenario, g).ok()?;
            Some(Lane::new(
                g,
                s.simulation_without_trace(Some(seed)),
                SNAPSHOT_EVERY,
            ))
        })
        .collect()
}

#[function_component(LaneStages)]
pub fn lane_stages(props: &LaneStagesProps) -> Html {
    let lang = use_context::<I18n>().unwrap_or_default().lang;
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
        lane.seek(props.moment);
    }
    let title = S::LanesTitle.get(lang);
    let veil = S::Veiled.get(lang);
    html! {
        <section class="card lane-stages" id="lanes" tabindex="-1" aria-label={title} data-veil={veil}>
            <h2>{ title }</h2>
            <p class="quiet">{ S::LanesNote.get(lang) }</p>
            <div class="lane-row">
                { for lanes.iter().map(|l| lane_view(l, lang, props.selected, &props.on_select)) }
            </div>
        </section>
    }
}

fn lane_view(
    lane: &Lane,
    lang: Lang,
    selected: Option<Selection>,
    on_select: &Callback<Selection>,
) -> Html {
    let guarantee = lane.guarantee;
    // The lane's records open in the inspector, in the lane's own run.
    let pick = on_select.reform(move |s: Selection| match s {
        Selection::Record { tp, broker, offset } => Selection::LaneRecord {
            guarantee,
            tp,
            broker,
            offset,
        },
        other => other,
    });
    let selected = match selected {
        Some(Selection::LaneRecord {
            guarantee: g,
            tp,
            broker,
            offset,
        }) if g == guarantee => Some(Selection::Record { tp, broker, offset }),
        _ => None,
    };
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
    let (flights, more) = in_flight_shown(&lane.sim, lang, LANE_WIRE_SHOWN);
    // The outputs that will never be in the log (inputs skipped: at-most-once committed past
    // them before the crash), named under it: a missing cell is no gap to see.
    let missing: Vec<String> = eos_core::outcomes::skipped_now(&lane.sim)
        .into_iter()
        .map(|(input, output)| {
            S::LaneMissingOutput.f(
                lang,
                &[
                    &lane.sim.names.record(output),
                    &lane.sim.names.record(input),
                ],
            )
        })
        .collect();
    html! {
        <article class={classes!("lane-stage", name)} style={format!("--lane: var({colour})")}>
            <h3>{ name }</h3>
            <p class="lane-counts">
                { stat(S::LaneWithOutput.get(lang), counts.visible, false) }
                { stat(S::ForkDuplicates.get(lang), counts.duplicates, counts.duplicates > 0) }
                { stat(S::ForkLost.get(lang), counts.lost, counts.lost > 0) }
            </p>
            // The lane's stage: its processor (what it read, its transaction, its producer
            // id and epoch), the next messages on its wire, then its output.
            { for processors(&lane.sim, lang).into_iter().map(|p| html! {
                <ProcessorCard processor={p} selected={false} on_select={Callback::noop()} live={false} />
            }) }
            <Flights flights={flights} more={more} selected={None} on_select={Callback::noop()} live={false} />
            { for logs.into_iter().map(|p| html! {
                <PartitionLog partition={p} selected={selected} on_select={pick.clone()} stage={false} />
            }) }
            if !missing.is_empty() {
                <p class="lane-missing">{ format!("{} {}", S::LaneMissing.get(lang), missing.join(", ")) }</p>
            }
        </article>
    }
}

/// One of a lane's counts: its name over its number, the number marked when it is bad news.
fn stat(name: &str, n: u64, bad: bool) -> Html {
    html! {
        <span class={classes!("stat", bad.then_some("bad"))}>
            <span class="k">{ name }</span>
            <span class="v">{ n }</span>
        </span>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use eos_core::sim::observe::partition_views;
    use eos_core::{builtin, RunLimit};

    /// The lane as a fresh run to `time` would leave it.
    fn direct(g: Guarantee, time: SimTime) -> Simulation {
        let s = builtin::get("rpw-crash-at-least-once").expect("built-in");
        let mut sim = eos_core::compare::with_guarantee(&s, g)
            .expect("switched")
            .simulation_without_trace(None);
        sim.run(RunLimit::Until(time));
        sim
    }

    /// The lane under the main run's own guarantee is the main run: at every step, even in
    /// the middle of a millisecond, forward and back, it has the same steps and logs.
    #[test]
    fn the_lane_of_the_main_runs_guarantee_follows_it_step_for_step() {
        let s = SharedScenario(Rc::new(
            builtin::get("rpw-crash-exactly-once").expect("built-in"),
        ));
        let mut lanes: Vec<Lane> = fresh(&s, s.seed())
            .into_iter()
            .filter(|l| l.guarantee == Guarantee::ExactlyOnce)
            .map(|l| Lane::new(l.guarantee, l.sim, 7))
            .collect();
        let lane = &mut lanes[0];
        let main_at = |steps: u64| {
            let mut sim = s.simulation(None);
            sim.run(RunLimit::Steps(steps));
            sim
        };
        let mut mid_moment = 0;
        for steps in (0..120).chain([60, 41, 40, 39, 3, 0, 90, 89]) {
            let main = main_at(steps);
            let m = Moment::of(&main);
            mid_moment += usize::from(main.next_event_time() == Some(m.time));
            lane.seek(m);
            assert_eq!(lane.sim.steps(), main.steps(), "at step {steps}");
            assert_eq!(
                partition_views(&lane.sim),
                partition_views(&main),
                "at step {steps}"
            );
        }
        assert!(
            mid_moment > 5,
            "steps in the middle of a moment were tried: {mid_moment}"
        );
    }

    #[test]
    fn a_lane_seeks_forward_and_back_to_the_same_state_as_a_fresh_run() {
        let s = SharedScenario(Rc::new(
            builtin::get("rpw-crash-at-least-once").expect("built-in"),
        ));
        let seed = s.seed();
        // Copies every 3 steps, so that they thin out on the way.
        let mut lanes: Vec<Lane> = fresh(&s, seed)
            .into_iter()
            .map(|l| Lane::new(l.guarantee, l.sim, 3))
            .collect();
        let end = direct(Guarantee::AtLeastOnce, SimTime::MAX).now();
        for time in [end / 2, end / 5, end, 0, end / 3, end / 3 + 1, end] {
            for lane in &mut lanes {
                // Every step at the time, as a fresh run to it takes.
                lane.seek(Moment {
                    time,
                    steps_at_time: u64::MAX,
                });
                let want = direct(lane.guarantee, time);
                assert_eq!(
                    lane.sim.steps(),
                    want.steps(),
                    "{:?} at {time}",
                    lane.guarantee
                );
                assert_eq!(partition_views(&lane.sim), partition_views(&want));
                assert!(lane.snapshots.kept() <= MAX_SNAPSHOTS);
                let start = lane
                    .snapshots
                    .at_or_before_time(0)
                    .expect("the start is kept");
                assert_eq!(start.steps(), 0, "the start is kept");
            }
        }
        assert!(
            lanes.iter().any(|l| l.snapshots.every() > 3),
            "spacing doubled past the limit"
        );
    }
}
