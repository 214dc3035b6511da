//! The page: header, controls, the Kafka stage and the narration, wired to the reducer.

use crate::components::live::{
    producer_node, DiagramPart, Live, LogPart, ProducerPart, SimRef, WirePart,
};
use crate::components::{
    compare_panel::ComparePanel, consumer_card::ConsumerCard, controls::Controls,
    event_log::EventLog, fault_panel::FaultPanel, header::Header, held::Held, inspector::Inspector,
    processor_card::ProcessorCard, transactions::Transactions,
};
use crate::state::{Action, Playground, Selection};
use crate::view_model;
use eos_core::builtin;
use eos_core::scenario::schema::FaultSpec;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| Playground::new(builtin::DEFAULT));
    // Where the reader is in the lessons (told by lesson mode), for the page's link.
    let place = use_state_eq(|| None::<crate::permalink::LessonPlace>);
    // The language of the chrome and the lessons (i18n.rs), shared by context.
    let i18n = crate::i18n_hook::use_i18n({
        let d = state.dispatcher();
        Callback::from(move |()| d.dispatch(Action::Notice(crate::russian::FAILED.to_string())))
    });
    let lang = i18n.lang;
    // Permalinks, import/export and embed mode (see share.rs).
    let sharing = crate::share::use_sharing(&state, (*place).clone(), lang);
    let on_place = {
        let place = place.clone();
        Callback::from(move |p| place.set(p))
    };
    // The stage element the lesson's step points at, lit by the stage's components.
    let spot = use_state_eq(crate::spot::Spot::default);
    let on_spot = {
        let spot = spot.clone();
        Callback::from(move |s| spot.set(s))
    };
    // In lesson mode PageDown/PageUp move through the lesson (lesson_mode.rs), not the run.
    let in_lesson = use_mut_ref(|| false);
    *in_lesson.borrow_mut() = place.as_ref().is_some_and(|p| p.trying.is_none());
    // While a lesson's question waits for its answer the run holds still: a step on (a key,
    // Play, End) would show the answer before it is given. Back stays free.
    let asking = use_state_eq(|| false);
    let holding = use_mut_ref(|| false);
    *holding.borrow_mut() = *asking;
    let on_asking = {
        let asking = asking.clone();
        Callback::from(move |a: bool| asking.set(a))
    };
    // Keyed by the language: the built-ins' Russian titles come with the Russian texts.
    let scenarios = use_memo(lang, |_| crate::builtins::list());

    // Playback: steps on animation frames while playing (playback.rs).
    crate::playback::use_playback(state.playing, state.speed, state.dispatcher());

    // Keyboard: → step, ← back, Space play/pause, Home reset, End run to the end.
    {
        let dispatcher = state.dispatcher();
        let (in_lesson, holding) = (in_lesson.clone(), holding.clone());
        use_effect_with((), move |_| {
            let listener = Closure::<dyn Fn(KeyboardEvent)>::new(move |e: KeyboardEvent| {
                // Alt+← is the browser's Back, Ctrl+End the page's bottom: not ours.
                if e.alt_key() || e.ctrl_key() || e.meta_key() {
                    return;
                }
                let target = e
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
                let in_form = target.as_ref().is_some_and(|el| {
                    matches!(el.tag_name().as_str(), "SELECT" | "INPUT" | "TEXTAREA")
                });
                // Space presses a focused button, link, record or diagram arrow: play/pause
                // only when the focus is on nothing that Space works.
                let in_control = target.as_ref().is_some_and(|el| {
                    matches!(el.tag_name().as_str(), "BUTTON" | "A" | "SUMMARY")
                        || el.has_attribute("role")
                        || el.get_attribute("tabindex").is_some_and(|t| t != "-1")
                });
                let action = match e.key().as_str() {
                    "ArrowRight" if e.shift_key() => Some(Action::NextNotable),
                    "ArrowLeft" if e.shift_key() => Some(Action::PreviousNotable),
                    "ArrowRight" => Some(Action::Step),
                    "ArrowLeft" => Some(Action::StepBack),
                    // A presenter's clicker sends these.
                    "PageDown" if !*in_lesson.borrow() => Some(Action::Step),
                    "PageUp" if !*in_lesson.borrow() => Some(Action::StepBack),
                    " " if !in_form && !in_control => Some(Action::TogglePlay),
                    "Home" => Some(Action::Reset),
                    "End" => Some(Action::RunToEnd),
                    "Escape" => Some(Action::Select(None)),
                    _ => None,
                };
                let forward = matches!(
                    action,
                    Some(
                        Action::Step | Action::NextNotable | Action::RunToEnd | Action::TogglePlay
                    )
                );
                if forward && *holding.borrow() {
                    return;
                }
                if let Some(a) = action {
                    // In the scenario picker the arrows still step; the scrub bar and other
                    // inputs keep their keys.
                    let in_select = e
                        .target()
                        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                        .is_some_and(|el| el.tag_name() == "SELECT");
                    let everywhere = matches!(a, Action::Select(None));
                    if !in_form
                        || everywhere
                        || (in_select && matches!(a, Action::Step | Action::StepBack))
                    {
                        e.prevent_default();
                        dispatcher.dispatch(a);
                    }
                }
            });
            let window = web_sys::window();
            if let Some(w) = &window {
                let _ = w
                    .add_event_listener_with_callback("keydown", listener.as_ref().unchecked_ref());
            }
            move || {
                if let Some(w) = window {
                    let _ = w.remove_event_listener_with_callback(
                        "keydown",
                        listener.as_ref().unchecked_ref(),
                    );
                }
            }
        });
    }

    // Stable callbacks (built once over the reducer's dispatcher), so that a card whose data
    // did not change is not rendered again at every step.
    let dispatcher = state.dispatcher();
    let on_action = use_callback(dispatcher.clone(), |a: Action, d| d.dispatch(a));
    let on_inject = use_callback(dispatcher.clone(), |spec: FaultSpec, d| {
        d.dispatch(Action::InjectFault(Box::new(spec)))
    });
    let on_remove = use_callback(dispatcher.clone(), |n: usize, d| {
        d.dispatch(Action::RemoveFault(n))
    });
    let on_pick = use_callback(dispatcher.clone(), |s: Selection, d| {
        d.dispatch(Action::Select(Some(s)))
    });
    let on_close = use_callback(dispatcher.clone(), |_: (), d| {
        d.dispatch(Action::Select(None))
    });
    let on_fork = use_callback(
        dispatcher.clone(),
        |f: Option<crate::permalink::ForkAt>, d| d.dispatch(Action::SetFork(f)),
    );
    let on_seek = use_callback(dispatcher.clone(), |step: u64, d| {
        d.dispatch(Action::Seek(step))
    });
    let on_seed = use_callback(dispatcher.clone(), |seed: u64, d| {
        d.dispatch(Action::SetSeed(seed))
    });
    let on_guarantee = use_callback(dispatcher.clone(), |name: String, d| {
        if let Some(g) = eos_core::kafka::processor::Guarantee::parse(&name) {
            d.dispatch(Action::SetGuarantee(g))
        }
    });
    let on_dismiss = use_callback(dispatcher.clone(), |_: MouseEvent, d| {
        d.dispatch(Action::DismissNotice)
    });
    let on_select = use_callback(dispatcher, |name: String, d| d.dispatch(Action::Load(name)));

    // The comparison's ledger changes only with the scenario: built once per comparison.
    let compare = use_memo(Lanes(state.comparison.clone()), |l| {
        view_model::comparison(&l.0)
    });
    // A Flink job's failure-free twin, run once per scenario: what a finished job's output
    // is compared with.
    let flink_twin = use_memo(
        crate::components::SharedScenario(state.scenario.clone()),
        |s| {
            s.file
                .flink
                .is_some()
                .then(|| eos_core::flink::report::failure_free_output(&s.0, None))
                .flatten()
        },
    );
    // A compared lane's record is inspected in that lane's run: the scenario under the
    // lane's guarantee, replayed to the moment on screen (once per selection and moment); an
    // input of the compare table, in the lane's whole run, as the table counts it.
    let lane_run = {
        let (seed, moment) = {
            let sim = state.sim.borrow();
            (sim.seed, crate::components::lane_stages::Moment::of(&sim))
        };
        use view_model::inspector::Selection;
        let lane = match state.selection {
            Some(Selection::LaneRecord { guarantee, .. }) => Some((guarantee, Some(moment))),
            Some(Selection::LaneInput { guarantee, .. }) => Some((guarantee, None)),
            _ => None,
        };
        use_memo(
            (
                crate::components::SharedScenario(state.scenario.clone()),
                seed,
                lane,
            ),
            |(s, seed, lane)| {
                let (guarantee, until) = (*lane)?;
                let scenario = eos_core::compare::with_guarantee(&s.0, guarantee).ok()?;
                let mut run = scenario.simulation_without_trace(Some(*seed));
                match until {
                    // To the moment on screen, as the lanes are (`lane_stages::advance`).
                    Some(m) => crate::components::lane_stages::advance(&mut run, m, &mut 0, |_| {}),
                    None => {
                        run.run(eos_core::RunLimit::Completion);
                    }
                }
                Some(run)
            },
        )
    };
    let sim = state.sim.borrow();
    // The logs, producers, wire and diagram read the run themselves (components/live.rs).
    let replicas = eos_core::sim::observe::replicas(&sim);
    let producer_count = sim.producers.len();
    // The oracle's counts read the whole ledger: on a big run they wait for a pause.
    let outcome_still = sim.ledger.records.len() > crate::components::outcome_bar::LIVE_MAX_RECORDS;
    let consumers = view_model::consumers(&sim, lang);
    let processors = view_model::processors(&sim, lang);
    let transactions = view_model::transactions(&sim, lang);
    let flink = crate::flink_view::flink(&sim, lang);
    let verdict = crate::flink_view::versus_failure_free(&sim, flink_twin.as_ref().as_ref(), lang);
    let selected = state.selection;
    // A delivered message's content, which its inspector shows as a message on the wire
    // does: found by replaying to the step before its delivery, once per message and run.
    let delivered = selected.and_then(|s| match s {
        view_model::inspector::Selection::Message(id) => {
            view_model::inspector::delivered_at(&sim, id).map(|step| (id, step))
        }
        _ => None,
    });
    let delivered_label = {
        let state = state.clone();
        use_memo((delivered, state.run_id()), move |(d, _)| {
            d.and_then(|(id, step)| state.delivered_label(step, id))
        })
    };
    let inspected = selected
        .and_then(|s| match s {
            view_model::inspector::Selection::LaneRecord { .. }
            | view_model::inspector::Selection::LaneInput { .. } => lane_run
                .as_ref()
                .as_ref()
                .map(|run| view_model::inspector::inspect(run, &s, lang)),
            _ => Some(view_model::inspector::inspect(&sim, &s, lang)),
        })
        .map(|mut vm| {
            if let (Some(_), Some(label)) = (delivered, delivered_label.as_ref()) {
                view_model::inspector::add_content(&mut vm, label, lang);
            }
            vm
        });
    let clock = view_model::clock(&sim, lang);
    // A lesson's caption: what the current step did (its narration box is further down).
    let now = place
        .is_some()
        .then(|| view_model::now_line(&sim))
        .flatten();
    let trace_hash = format!("{:016x}", sim.trace_hash());
    let at_start = sim.steps() == 0;
    // At the page's step limit the run goes no further either: the forward controls rest.
    // At the whole run's last step it is over too, though a step has not yet found the
    // queue empty (the verdict shows there, not one press later).
    let finished = sim.is_finished()
        || sim.at_step_limit()
        || (state.timeline.total_steps > 0 && sim.steps() >= state.timeline.total_steps);
    let schedule = view_model::fault_schedule(&sim, lang);
    let down = view_model::crashed_processes(&sim);
    let seed = sim.seed;
    let next_ms = eos_core::time::to_ms(view_model::inspector::injection_time(&sim));
    let moment = crate::components::lane_stages::Moment::of(&sim);
    let step = sim.steps();
    drop(sim);

    let embed = sharing.embed;
    // While playing, parts out of view do not redraw (components/held.rs).
    let hold = state.playing;
    let live = SimRef {
        sim: state.sim.clone(),
        version: state.version,
    };
    let imported = matches!(state.source, crate::permalink::Source::Custom(_))
        || !crate::builtins::NAMES.contains(&state.scenario_name.as_str());
    // A lesson's try-it run: the built-in, changed.
    let trying = place.as_ref().is_some_and(|p| p.trying.is_some());
    // A built-in's title from the picker's list, which has its Russian once that is here.
    let builtin_title = (!imported)
        .then(|| scenarios.iter().find(|i| i.name == state.scenario_name))
        .flatten()
        .map(|i| i.title_in(lang).to_string());
    // The stage's third column (see below): what reads and decides, and the narration.
    let lesson = place.is_some();
    let readers = html! {
        <div class="readers">
            <Transactions transactions={transactions} />
            { for consumers.into_iter().map(|c| html! { <Held hold={hold} class="held">
                <ConsumerCard selected={selected == Some(Selection::Node(c.node))} consumer={c} on_select={on_pick.clone()} />
            </Held> }) }
        </div>
    };
    let events = html! { <EventLog sim={live.clone()} on_seek={on_seek.clone()} announce={!state.playing} /> };
    html! {
        <ContextProvider<crate::i18n::I18n> context={i18n.clone()}>
        <ContextProvider<crate::spot::Spot> context={(*spot).clone()}>
        <div class={classes!("app", embed.then_some("embed"), place.as_ref().map(|_| "in-lesson"), sharing.opening.then_some("opening"))} ondragover={sharing.on_dragover} ondrop={sharing.on_drop}>
            if sharing.opening {
                <p class="opening-note" role="status">{ i18n.t(crate::i18n::S::OpeningLink) }</p>
            }
            // Skip links for the keyboard, seen only when focused: buttons, not anchors, so
            // that the link's fragment (a scenario's payload) is left alone.
            if !embed {
                <div class="skip-links">
                    { skip("skip-controls", "controls", i18n.t(crate::i18n::S::SkipToControls)) }
                    { skip("skip-stage", "stage", i18n.t(crate::i18n::S::SkipToStage)) }
                    { skip("skip-diagram", "diagram", i18n.t(crate::i18n::S::SkipToDiagram)) }
                    if compare.is_some() {
                        { skip("skip-lanes", "lanes", i18n.t(crate::i18n::S::SkipToLanes)) }
                        { skip("skip-outcomes", "outcomes", i18n.t(crate::i18n::S::SkipToCharts)) }
                    }
                    { skip("skip-fork", "fork", i18n.t(crate::i18n::S::SkipToFork)) }
                </div>
            }
            if embed {
                { crate::components::embed_bar::embed_bar(&crate::components::embed_bar::EmbedBarProps {
                    on_action: on_action.clone(), playing: state.playing, finished: finished || *asking, at_start,
                    clock: clock.clone(), title: match builtin_title {
                        Some(t) if trying => crate::i18n::S::TitleChanged.f(lang, &[&t]),
                        Some(t) => t,
                        None => state.scenario.file.title_in(lang).to_string(),
                    },
                    full_link: sharing.full_link, lang }) }
            } else {
                <Header scenarios={(*scenarios).clone()} current={state.scenario_name.clone()} seed={seed} on_select={on_select} on_seed={on_seed}
                    imported={imported.then(|| crate::builtins::info_of(&state.scenario.file))}
                    trying={trying}
                    guarantee={state.scenario.file.processors.first().map(|p| p.guarantee.clone())}
                    guarantee_picked={state.guarantee.is_some()}
                    on_guarantee={on_guarantee} />
            }
            if let Some(err) = &state.error {
                <div class="error import-errors-head" role="alert">
                    <span>{ err.text(lang) }</span>
                    <button class="ctl" id="notice-close" onclick={on_dismiss}>{ i18n.t(crate::i18n::S::Dismiss) }</button>
                </div>
            }
            { sharing.import_errors }
            <crate::lesson_mode::LessonMode playground={state.dispatcher()} version={state.version}
                scenario_name={state.scenario_name.clone()} start={sharing.lesson_start.clone()}
                embed={embed} on_place={on_place} on_spot={on_spot} imported={sharing.imported_lesson.clone()}
                scenario_imports={sharing.scenario_imports}
                share={if embed { Html::default() } else { sharing.menu }} on_asking={on_asking} />
            if !embed {
            <Controls on_action={on_action} playing={state.playing} finished={finished || *asking} at_start={at_start} clock={clock} trace_hash={trace_hash}
                step={step} total_steps={state.timeline.total_steps} speed={state.speed} lesson={lesson} now={now} />
            }
            if let Some(job) = flink {
                <Held hold={hold} class="held">
                    <crate::components::flink_stage::FlinkStage job={job} selected={selected} on_select={on_pick.clone()} verdict={verdict} />
                </Held>
            }
            <main class="stage" id="stage" tabindex="-1">
                <div class="clients">
                    { for (0..producer_count).map(|index| html! { <Held hold={hold} class="held">
                        <Live<ProducerPart> sim={live.clone()} part={ProducerPart { index, on_select: on_pick.clone(),
                            selected: selected == Some(Selection::Node(producer_node(index))) }} />
                    </Held> }) }
                    { for processors.into_iter().map(|p| html! { <Held hold={hold} class="held">
                        <ProcessorCard selected={selected == Some(Selection::Node(p.node))} processor={p} on_select={on_pick.clone()} />
                    </Held> }) }
                    <Held hold={hold} class="held">
                        <Live<WirePart> sim={live.clone()} part={WirePart { selected, on_select: on_pick.clone() }} />
                    </Held>
                    <FaultPanel processes={state.scenario.process_names()} flink={state.scenario.flink_process_names()} schedule={schedule}
                        injected={state.injected} on_inject={on_inject.clone()} down={down}
                        added={state.added.iter().map(view_model::describe_added).collect::<Vec<_>>()}
                        on_remove={on_remove}
                        refused={match &state.error {
                            Some(n @ crate::state::Notice::AlreadyScheduled(_)) => Some(n.text(lang)),
                            _ => None,
                        }} />
                </div>
                <div class="brokers">
                    <Held hold={hold} still={outcome_still} class="held">
                        <Live<crate::components::outcome_bar::OutcomePart> sim={live.clone()} part={crate::components::outcome_bar::OutcomePart { done: finished, on_seek: on_seek.clone() }} />
                    </Held>
                    <h2>{ i18n.t(crate::i18n::S::PartitionLogs) }</h2>
                    { for replicas.into_iter().map(|(tp, broker)| html! { <Held hold={hold} class="held">
                        <Live<LogPart> sim={live.clone()} part={LogPart { tp, broker, selected, on_select: on_pick.clone() }} />
                    </Held> }) }
                </div>
                // Writers on the left, the logs in the middle, and on the right what reads and
                // decides (the transaction coordinator, the consumers) with the narration: in a
                // lesson, whose step says what happened, the readers come first, so the ones it
                // points at are on the first screen; in the playground the narration does.
                <div class="side">
                    if lesson { { readers } { events } } else { { events } { readers } }
                </div>
            </main>
            if !embed {
            <Held hold={hold} class="held">
                <Live<DiagramPart> sim={live.clone()} part={DiagramPart { selected, on_select: on_pick.clone() }} />
            </Held>
            if let Some(vm) = inspected {
                <Inspector vm={vm} on_close={on_close} on_inject={on_inject} on_select={on_pick.clone()} on_seek={on_seek.clone()}
                    scheduled={state.added.clone()} next_ms={next_ms} run={state.run_id()} step={step} />
            }
            if let Some(compare) = (*compare).clone() {
                <Held hold={hold} class="held">
                    <crate::components::lane_stages::LaneStages scenario={crate::components::SharedScenario(state.scenario.clone())}
                        seed={seed} moment={moment} selected={selected} on_select={on_pick.clone()} />
                </Held>
                <ComparePanel compare={compare} selected={selected} on_select={on_pick.clone()} />
                <crate::components::outcome_chart::OutcomeChart scenario={crate::components::SharedScenario(state.scenario.clone())} />
                <crate::components::cost_chart::CostChart scenario={crate::components::SharedScenario(state.scenario.clone())}
                    intervals={vec![10, 25, 50, 100, 200]} />
            }
            if compare.is_none() && !state.scenario.file.processors.is_empty() {
                <section class="card compare-skipped" id="compare-skipped">
                    <h2>{ i18n.t(crate::i18n::S::CompareHeading) }</h2>
                    <p>{ i18n.f(crate::i18n::S::CompareTooBig, &[
                        &state.scenario.records_sent(),
                        &crate::state::PAGE_MAX_COMPARED_RECORDS,
                    ]) }</p>
                </section>
            }
            if state.scenario.file.flink.is_some() {
                <crate::components::checkpoint_chart::CheckpointChart scenario={crate::components::SharedScenario(state.scenario.clone())} />
            }
            <crate::components::fork_panel::ForkPanel scenario={crate::components::SharedScenario(state.scenario.clone())} seed={seed} step={step}
                fork={state.fork.clone()} {on_fork} />
            <footer class="footer">
                { i18n.t(crate::i18n::S::Footer) }
                <br />{ i18n.t(crate::i18n::S::NarrationNote) }
            </footer>
            }
        </div>
        </ContextProvider<crate::spot::Spot>>
        </ContextProvider<crate::i18n::I18n>>
    }
}

/// The compared lanes, equal while they are the same computation (compared by pointer).
#[derive(Clone)]
struct Lanes(std::rc::Rc<Vec<eos_core::compare::Lane>>);

impl PartialEq for Lanes {
    fn eq(&self, other: &Self) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }
}

/// How long after a skip link's jump it is made again (a few frames).
const SKIP_SETTLE_MS: u32 = 100;

/// A skip link: moves the focus (and the view) to the element with id `to`.
fn skip(id: &'static str, to: &'static str, label: &'static str) -> Html {
    let scroll = move || {
        if let Some(el) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(to))
        {
            el.scroll_into_view();
        }
    };
    let onclick = Callback::from(move |_: MouseEvent| {
        crate::components::focus_by_id(to);
        scroll();
        // The space-time diagram is laid out only once it comes near the screen
        // (`content-visibility`); if that changes its height, what is below it moves: the
        // jump is made again once it has been drawn.
        gloo_timers::callback::Timeout::new(SKIP_SETTLE_MS, scroll).forget();
    });
    html! { <button {id} class="skip" {onclick}>{ label }</button> }
}
