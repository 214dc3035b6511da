//! Playback state as a reducer over the core: load a scenario, step, step back (from a
//! snapshot plus replay), reset, run to the end. No simulation logic lives here.

use crate::i18n::{Lang, S};
pub use crate::view_model::inspector::Selection;
use eos_core::scenario::schema::FaultSpec;
use eos_core::time::SimTime;
#[cfg(test)]
use eos_core::RunLimit;
use eos_core::{builtin, Scenario, Simulation, StepOutcome};
use std::cell::RefCell;
use std::rc::Rc;
use yew::Reducible;

/// A snapshot is kept every this many steps, so stepping back replays at most this many.
pub const SNAPSHOT_EVERY: u64 = 64;
/// The longest run the page plays (it keeps snapshots to step back through); `eos-sim`
/// runs longer ones.
pub const PAGE_MAX_STEPS: u64 = 250_000;
/// The most records a scenario may send for the page to compare the three guarantees and
/// chart their outcomes and costs: those run the scenario a dozen times over, at once, and
/// a larger one would hold the page for seconds to minutes. `eos-sim compare`, `outcomes`
/// and `cost` run any size.
pub const PAGE_MAX_COMPARED_RECORDS: u64 = 5_000;

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Load(String),
    Step,
    StepBack,
    Reset,
    RunToEnd,
    TogglePlay,
    Pause,
    /// Go to this step (the scrub bar).
    Seek(u64),
    NextNotable,
    PreviousNotable,
    /// Playback speed in quarters (1 = 0.25×, 4 = 1×, 64 = 16×).
    SetSpeed(u32),
    /// Add a fault just after the current moment (its `at_ms` is replaced): a freeze, a
    /// crash, a drop of a message on the wire, ... The run is rebuilt from the schedule, so
    /// the past stays as it was and the run stays reproducible.
    InjectFault(Box<FaultSpec>),
    /// Take the `n`th fault added by click out of the schedule (the run is recomputed and
    /// stays at its step).
    RemoveFault(usize),
    /// Open something in the inspector, or close it (`None`).
    Select(Option<Selection>),
    /// Open a permalink or an imported scenario (see `permalink.rs`).
    Open(Box<Opened>),
    /// A changed scenario under a name (a lesson's try-it prompt).
    LoadScenario(String, Rc<Scenario>),
    /// Say something about the run on screen (a link that opened with a change).
    Notice(String),
    /// The reader closes the notice.
    DismissNotice,
    /// The same scenario and added faults under another seed, from step 0.
    SetSeed(u64),
    /// The same scenario, seed and added faults with the processors under another
    /// guarantee, from step 0.
    SetGuarantee(eos_core::kafka::processor::Guarantee),
    /// The fork panel forked the run (what a permalink carries), or let its fork go.
    SetFork(Option<crate::permalink::ForkAt>),
}

/// A scenario to open with faults added by click and a step to go to. An `error` opens the
/// default scenario instead, and says why.
#[derive(Clone, Debug, PartialEq)]
pub struct Opened {
    pub source: crate::permalink::Source,
    pub base: Result<Scenario, String>,
    pub seed: Option<u64>,
    pub guarantee: Option<eos_core::kafka::processor::Guarantee>,
    pub faults: Vec<FaultSpec>,
    pub step: u64,
    pub selection: Option<Selection>,
    /// The fork the link shows.
    pub fork: Option<crate::permalink::ForkAt>,
    /// What reading the link left out or changed, said when it opens.
    pub notices: Vec<String>,
}

impl Opened {
    /// A scenario to open as it is, at step 0: no seed, guarantee or faults of a link's.
    pub fn at_start(source: crate::permalink::Source, base: Scenario) -> Opened {
        Opened {
            source,
            base: Ok(base),
            seed: None,
            guarantee: None,
            faults: Vec::new(),
            step: 0,
            selection: None,
            fork: None,
            notices: Vec::new(),
        }
    }
}

/// A process fault by click (`freeze` lasts `freeze_ms`).
pub fn process_fault(target: &str, action: &str, freeze_ms: u64) -> FaultSpec {
    FaultSpec {
        duration_ms: (action == "freeze").then_some(freeze_ms),
        action: action.to_string(),
        target: Some(target.to_string()),
        count: 1,
        ..Default::default()
    }
}

/// What the page says above the stage: a sentence already written (a refused link, an
/// unknown scenario, a refused fault), or one it writes in the reader's language.
#[derive(Clone, Debug, PartialEq)]
pub enum Notice {
    Text(String),
    /// The run reached its step limit at this step, not its end.
    StepLimit(u64),
    /// A fault pressed again at the same moment (its words): said by the fault panel too,
    /// where the press was.
    AlreadyScheduled(String),
}

impl Notice {
    pub fn text(&self, lang: Lang) -> String {
        match self {
            Notice::Text(t) => t.clone(),
            Notice::StepLimit(steps) => S::StepLimit.f(lang, &[steps, &PAGE_MAX_STEPS]),
            Notice::AlreadyScheduled(fault) => S::AlreadyScheduled.f(lang, &[fault]),
        }
    }
}

impl From<String> for Notice {
    fn from(text: String) -> Notice {
        Notice::Text(text)
    }
}

/// Playback speeds offered, in quarters of the base rate.
pub const SPEEDS: [u32; 7] = [1, 2, 4, 8, 16, 32, 64];

/// The whole run, computed once when a scenario loads: its length and the steps worth
/// jumping to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Timeline {
    pub total_steps: u64,
    pub notable: Vec<u64>,
    /// The run reached its step limit rather than its end.
    pub cut: bool,
}

impl Timeline {
    fn of(scenario: &Scenario) -> Timeline {
        let mut sim = scenario.simulation(None);
        let mut notable = Vec::new();
        let end = loop {
            match sim.step() {
                StepOutcome::Stepped => {}
                other => break other,
            }
            if let Some(rec) = sim.trace().last() {
                if rec.notable().is_some() {
                    notable.push(rec.step);
                }
            }
        };
        Timeline {
            total_steps: sim.steps(),
            notable,
            cut: end == StepOutcome::LimitReached,
        }
    }

    pub fn next_after(&self, step: u64) -> Option<u64> {
        self.notable.iter().copied().find(|s| *s > step)
    }

    pub fn previous_before(&self, step: u64) -> Option<u64> {
        self.notable.iter().rev().copied().find(|s| *s < step)
    }
}

pub struct Playground {
    pub scenario_name: String,
    pub scenario: Rc<Scenario>,
    /// The live simulation. Shared and mutated in place (cloning it per step would cost
    /// O(run length)); `version` tells Yew that it changed.
    pub sim: Rc<RefCell<Simulation>>,
    snapshots: Rc<RefCell<Snapshots>>,
    pub version: u64,
    pub playing: bool,
    pub finished: bool,
    pub error: Option<Notice>,
    pub timeline: Rc<Timeline>,
    /// Quarters of the base playback rate (4 = 1×).
    pub speed: u32,
    /// Faults added by click on top of the scenario's own schedule.
    pub injected: u32,
    /// For a read-process-write scenario: the same schedule under the three guarantees.
    pub comparison: Rc<Vec<eos_core::compare::Lane>>,
    /// What the inspector shows.
    pub selection: Option<Selection>,
    /// Where the scenario came from, and the faults added by click, in order: what a
    /// permalink carries.
    pub source: crate::permalink::Source,
    pub added: Rc<Vec<FaultSpec>>,
    /// The processors' guarantee picked in the header, when it differs from the file's.
    pub guarantee: Option<eos_core::kafka::processor::Guarantee>,
    /// The fork on screen, in the fork panel: what a permalink carries. A new run (another
    /// scenario, seed, fault or guarantee) starts without one.
    pub fork: Option<crate::permalink::ForkAt>,
}

impl PartialEq for Playground {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version
            && self.playing == other.playing
            && self.speed == other.speed
            && self.scenario_name == other.scenario_name
            && self.error == other.error
            && self.selection == other.selection
            && self.fork == other.fork
    }
}

impl Playground {
    pub fn new(name: &str) -> Self {
        match crate::builtins::get(name) {
            Ok(s) => Playground::with_scenario(name, s, None),
            Err(e) => {
                let fallback = crate::builtins::get(builtin::DEFAULT).ok();
                match fallback {
                    Some(s) => Playground::with_scenario(builtin::DEFAULT, s, Some(e.to_string())),
                    None => unreachable_default(),
                }
            }
        }
    }

    fn with_scenario(name: &str, scenario: Scenario, error: Option<String>) -> Self {
        let scenario = scenario.with_step_cap(PAGE_MAX_STEPS);
        let sim = scenario.simulation(None);
        let timeline = Rc::new(Timeline::of(&scenario));
        let error = error.map(Notice::Text).or_else(|| {
            timeline
                .cut
                .then_some(Notice::StepLimit(timeline.total_steps))
        });
        let comparison = if scenario.records_sent() > PAGE_MAX_COMPARED_RECORDS {
            Rc::new(Vec::new())
        } else {
            Rc::new(eos_core::compare::compare_counts(&scenario, None).unwrap_or_default())
        };
        Playground {
            timeline,
            comparison,
            speed: 4,
            injected: 0,
            selection: None,
            source: crate::permalink::Source::Builtin(name.to_string()),
            added: Rc::new(Vec::new()),
            guarantee: None,
            fork: None,
            scenario_name: name.to_string(),
            scenario: Rc::new(scenario),
            snapshots: Rc::new(RefCell::new(Snapshots::new(
                &sim,
                SNAPSHOT_EVERY,
                MAX_SNAPSHOTS,
            ))),
            sim: Rc::new(RefCell::new(sim)),
            version: 0,
            playing: false,
            finished: false,
            error,
        }
    }

    fn bumped(&self, finished: bool, playing: bool) -> Self {
        Playground {
            scenario_name: self.scenario_name.clone(),
            scenario: self.scenario.clone(),
            sim: self.sim.clone(),
            snapshots: self.snapshots.clone(),
            version: self.version + 1,
            playing: playing && !finished,
            finished,
            error: None,
            timeline: self.timeline.clone(),
            speed: self.speed,
            injected: self.injected,
            comparison: self.comparison.clone(),
            selection: self.selection,
            source: self.source.clone(),
            added: self.added.clone(),
            guarantee: self.guarantee,
            fork: self.fork.clone(),
        }
    }

    /// Tells this run from any other (a new scenario, seed, fault or guarantee starts one).
    pub fn run_id(&self) -> usize {
        Rc::as_ptr(&self.snapshots) as usize
    }

    /// What message `id`, delivered at step `step`, carried: the trace keeps only its kind,
    /// so the run is replayed from the snapshot before it to the step before, where the
    /// message is still on the wire (at most `SNAPSHOT_EVERY` steps or so; on a click, not
    /// while playing). `None` if it is not found there.
    pub fn delivered_label(&self, step: u64, id: u64) -> Option<String> {
        let before = step.checked_sub(1)?;
        let mut sim = self.snapshots.borrow().at_or_before(before)?.clone();
        while sim.steps() < before {
            if sim.step() != StepOutcome::Stepped {
                return None;
            }
        }
        sim.in_flight()
            .into_iter()
            .find(|m| m.id == id)
            .map(|m| m.label)
    }

    /// The notice in `lang`, if there is one.
    pub fn error_text(&self, lang: Lang) -> Option<String> {
        self.error.as_ref().map(|e| e.text(lang))
    }

    fn step_once(&self) -> bool {
        let mut sim = self.sim.borrow_mut();
        let outcome = sim.step();
        if outcome == StepOutcome::Stepped {
            self.snapshots.borrow_mut().offer(&mut sim);
        }
        outcome != StepOutcome::Stepped
    }

    /// Goes to `target` steps: forward by stepping on; back from the nearest snapshot, given
    /// the records of its steps from the run on screen (the same deterministic run).
    fn seek(&self, target: u64) {
        let mut current = self.sim.borrow_mut();
        if target < current.steps() {
            let base = {
                let snaps = self.snapshots.borrow();
                let Some(base) = snaps.at_or_before(target) else {
                    return;
                };
                base.clone()
            };
            // The run on screen gives its trace, cut to the snapshot's steps: the cost is
            // what is cut, not what is kept.
            let keep = usize::try_from(base.steps()).unwrap_or(usize::MAX);
            let mut trace = current.take_trace();
            trace.truncate(keep);
            *current = base.with_trace(trace);
        }
        // Forward, keeping snapshots on the way (a jump deep into the run leaves them too).
        let mut snaps = self.snapshots.borrow_mut();
        while current.steps() < target && current.step() == StepOutcome::Stepped {
            snaps.offer(&mut current);
        }
    }
}

/// Snapshots of the run every `every` steps (`sims[i]` at step `i * every`), without their
/// traces. Past `limit` copies, or past `budget` bytes, every other one goes and the spacing
/// doubles, so memory stays bounded however long the run and however big the scenario (a
/// scenario of 100,000 records makes copies of ~25 MB each), and stepping back replays at
/// most `every` steps.
#[derive(Debug)]
pub struct Snapshots {
    every: u64,
    limit: usize,
    budget: usize,
    sims: Vec<Simulation>,
}

/// The most snapshots the page's run keeps at once.
pub const MAX_SNAPSHOTS: usize = 256;
/// The most memory the page's run spends on snapshots, as `Simulation::approx_bytes`
/// counts it (a wasm page has 4 GiB in all).
pub const SNAPSHOT_BUDGET_BYTES: usize = 256 << 20;

impl Snapshots {
    /// Starting from `start` (at step 0, so its trace is empty), one every `every` steps, at
    /// most `limit` kept.
    pub fn new(start: &Simulation, every: u64, limit: usize) -> Snapshots {
        Snapshots {
            every: every.max(1),
            limit: limit.max(2),
            budget: SNAPSHOT_BUDGET_BYTES,
            sims: vec![start.clone()],
        }
    }

    /// The same, with at most `bytes` spent on copies (at least two are kept, whatever
    /// their size).
    pub fn with_budget(mut self, bytes: usize) -> Snapshots {
        self.budget = bytes;
        self
    }

    /// Keeps a copy of `sim` if it is at the next snapshot's step.
    pub fn offer(&mut self, sim: &mut Simulation) {
        let steps = sim.steps();
        if steps % self.every != 0 || self.sims.len() as u64 != steps / self.every {
            return;
        }
        self.sims.push(sim.clone_without_trace());
        // The latest copy is the largest (logs and ledger only grow): a bound for each.
        let spent = self.sims.len().saturating_mul(sim.approx_bytes());
        if self.sims.len() > self.limit || (self.sims.len() > 2 && spent > self.budget) {
            let kept: Vec<Simulation> = std::mem::take(&mut self.sims)
                .into_iter()
                .step_by(2)
                .collect();
            self.sims = kept;
            self.every *= 2;
        }
    }

    fn at_or_before(&self, target: u64) -> Option<&Simulation> {
        let index = usize::try_from(target / self.every).unwrap_or(usize::MAX);
        self.sims.get(index.min(self.sims.len().saturating_sub(1)))
    }

    /// The latest copy whose clock is at or before `time` (the start if none is).
    pub fn at_or_before_time(&self, time: SimTime) -> Option<&Simulation> {
        let after = self.sims.partition_point(|s| s.now() <= time);
        self.sims.get(after.saturating_sub(1))
    }

    /// The run's start (always kept).
    pub fn first(&self) -> Option<&Simulation> {
        self.sims.first()
    }

    /// How many copies are kept.
    pub fn kept(&self) -> usize {
        self.sims.len()
    }

    pub fn every(&self) -> u64 {
        self.every
    }
}

fn unreachable_default() -> Playground {
    // build.rs refuses to build when a built-in scenario is invalid, so some built-in
    // loads; this only guards the type.
    let (name, scenario) = crate::builtins::NAMES
        .iter()
        .find_map(|n| crate::builtins::get(n).ok().map(|s| (*n, s)))
        .expect("build.rs validated every built-in scenario");
    Playground::with_scenario(
        name,
        scenario,
        Some("the default scenario could not be loaded".into()),
    )
}

/// A permalink's state, or the default view with the reason it could not be opened.
impl Playground {
    /// The same, with a notice.
    fn noticed(&self, text: String) -> Rc<Self> {
        let mut same = self.bumped(self.finished, false);
        same.error = Some(Notice::Text(text));
        Rc::new(same)
    }

    /// The same run with its faults changed (`scenario`, whose last faults are `added`, the
    /// faults added by click), at the step it was at; a scenario that cannot be built leaves
    /// everything as it was and says why.
    fn refaulted(
        self: Rc<Self>,
        scenario: Result<Scenario, eos_core::ScenarioError>,
        added: Vec<FaultSpec>,
    ) -> Rc<Self> {
        let scenario = match scenario {
            Ok(s) => s,
            Err(e) => return self.noticed(e.to_string()),
        };
        let steps = self.sim.borrow().steps();
        let mut next = Playground::with_scenario(&self.scenario_name, scenario, None);
        next.injected = added.len() as u32;
        next.added = Rc::new(added);
        next.source = self.source.clone();
        next.guarantee = self.guarantee;
        next.speed = self.speed;
        next.selection = self.selection;
        next.version = self.version + 1;
        // A run cut by its step limit keeps saying so at the step it goes to.
        let limit = next.error.take();
        let next = Rc::new(next).reduce(Action::Seek(steps));
        let mut next = Rc::try_unwrap(next).unwrap_or_else(|rc| rc.bumped(rc.finished, false));
        next.error = limit;
        Rc::new(next)
    }

    /// The same source and added faults as `self`, as `scenario` (another seed or guarantee),
    /// from step 0; a scenario that cannot be built leaves everything as it was and says why.
    fn rerun(
        self: Rc<Self>,
        scenario: Result<Scenario, eos_core::ScenarioError>,
        guarantee: Option<eos_core::kafka::processor::Guarantee>,
    ) -> Rc<Self> {
        match scenario {
            Ok(scenario) => {
                let mut next = Playground::with_scenario(&self.scenario_name, scenario, None);
                next.injected = self.injected;
                next.source = self.source.clone();
                next.added = self.added.clone();
                next.guarantee = guarantee;
                next.speed = self.speed;
                next.version = self.version + 1;
                Rc::new(next)
            }
            Err(e) => self.noticed(e.to_string()),
        }
    }
}

/// Why a link's fault does not fit, naming the field but not its path (the link's faults
/// follow the scenario's own, so their indexes would not be the link's).
fn misfit(e: &eos_core::ScenarioError) -> String {
    match e {
        eos_core::ScenarioError::Invalid(errors) => errors
            .iter()
            .map(|f| {
                let field = f.field.rsplit('.').next().unwrap_or(&f.field);
                format!("{field}: {}", f.message)
            })
            .collect::<Vec<_>>()
            .join("; "),
        other => other.to_string(),
    }
}

fn open(current: &Playground, opened: Opened) -> Playground {
    let fallback = |error: String| {
        let mut default = Playground::new(builtin::DEFAULT);
        default.error = Some(Notice::Text(error));
        default.speed = current.speed;
        default.version = current.version + 1;
        default
    };
    let base = match opened.base {
        Ok(base) => base,
        Err(e) => return fallback(e),
    };
    // Faults that do not fit are left out, and a step past the end is the end: the link's
    // scenario stays on screen, and a notice says what was changed.
    let (mut faults, mut step) = (opened.faults, opened.step);
    let mut notice = opened.notices;
    let mut guarantee = opened.guarantee;
    if guarantee.is_some() && base.file.processors.is_empty() {
        notice.push(
            "This link's guarantee (g=) does not apply: the scenario has no read-process-write processor."
                .to_string(),
        );
        guarantee = None;
    }
    let scenario = match crate::permalink::apply(&base, opened.seed, guarantee, &faults) {
        Ok(s) => s,
        Err(_) => {
            // Each fault that does not fit is left out, and the others kept.
            let mut kept: Vec<FaultSpec> = Vec::new();
            for (i, fault) in faults.iter().enumerate() {
                kept.push(fault.clone());
                if let Err(e) = crate::permalink::apply(&base, opened.seed, guarantee, &kept) {
                    kept.pop();
                    notice.push(format!(
                        "This link's fault {} does not fit its scenario ({}): left out.",
                        i + 1,
                        misfit(&e)
                    ));
                }
            }
            faults = kept;
            match crate::permalink::apply(&base, opened.seed, guarantee, &faults) {
                Ok(s) => s,
                Err(e) => return fallback(format!("This link cannot be opened: {e}")),
            }
        }
    };
    let name = scenario.name().to_string();
    let mut next = Playground::with_scenario(&name, scenario, None);
    if step > next.timeline.total_steps {
        let asked = if step >= crate::permalink::MAX_STEP {
            format!("step {} or later", crate::permalink::MAX_STEP)
        } else {
            format!("step {step}")
        };
        notice.push(if next.timeline.cut {
            format!(
                "This link asks for {asked}, but the page stops this run at step {} (below): showing that step.",
                next.timeline.total_steps
            )
        } else {
            format!(
                "This link asks for {asked}, but its run ends at step {}: showing its last step.",
                next.timeline.total_steps
            )
        });
        step = next.timeline.total_steps;
    }
    // A fork whose change this scenario has no setting for, or past the run's end, is left
    // out.
    next.fork = opened.fork.filter(|f| {
        let fits = eos_core::fork::changes(&next.scenario).contains(&f.change);
        if !fits {
            notice.push(format!(
                "This link's fork ({}) does not apply to its scenario: left out.",
                eos_core::fork::change_name(&f.change)
            ));
        } else if f.step > next.timeline.total_steps {
            notice.push(format!(
                "This link forks at step {}, past the run's last step ({}): the fork is left out.",
                f.step, next.timeline.total_steps
            ));
        }
        fits && f.step <= next.timeline.total_steps
    });
    next.source = opened.source;
    next.guarantee = guarantee;
    next.injected = faults.len() as u32;
    next.added = Rc::new(faults);
    next.speed = current.speed;
    next.version = current.version + 1;
    next.selection = opened.selection;
    // A run cut by its step limit says so (`with_scenario`); going to the step would drop it.
    let limit = next.error.take();
    let next = Rc::new(next).reduce(Action::Seek(step));
    let mut next = Rc::try_unwrap(next).unwrap_or_else(|rc| rc.bumped(rc.finished, false));
    // A message the run has neither on the wire nor delivered by this step is not selected.
    if let Some(sel @ Selection::Message(id)) = next.selection {
        let sim = next.sim.borrow();
        if crate::view_model::inspector::inspect(&sim, &sel, Lang::En)
            .message
            .is_none()
        {
            notice.push(format!(
                "This link selects message {id}, which is not on the wire or delivered by step {}: nothing is selected.",
                sim.steps()
            ));
            drop(sim);
            next.selection = None;
        }
    }
    next.error = match (notice.is_empty(), limit) {
        (true, limit) => limit,
        (false, None) => Some(Notice::Text(notice.join(" "))),
        (false, Some(limit)) => {
            notice.push(limit.text(Lang::En));
            Some(Notice::Text(notice.join(" ")))
        }
    };
    next
}

impl Reducible for Playground {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        match action {
            Action::Load(name) => match crate::builtins::get(&name) {
                Ok(s) => Rc::new(Playground::with_scenario(&name, s, None)),
                Err(e) => self.noticed(e.to_string()),
            },
            Action::LoadScenario(name, scenario) => {
                Rc::new(Playground::with_scenario(&name, (*scenario).clone(), None))
            }
            Action::Step => {
                let finished = self.step_once();
                Rc::new(self.bumped(finished, self.playing))
            }
            Action::StepBack => {
                let now = self.sim.borrow().steps();
                if now == 0 {
                    return self;
                }
                self.seek(now - 1);
                Rc::new(self.bumped(false, false))
            }
            Action::Reset => {
                self.seek(0);
                Rc::new(self.bumped(false, false))
            }
            Action::RunToEnd => {
                loop {
                    if self.step_once() {
                        break;
                    }
                }
                Rc::new(self.bumped(true, false))
            }
            Action::TogglePlay => {
                let finished = self.sim.borrow().is_finished();
                Rc::new(self.bumped(finished, !self.playing))
            }
            Action::Pause => Rc::new(self.bumped(self.finished, false)),
            Action::Seek(target) => {
                let target = target.min(self.timeline.total_steps);
                let now = self.sim.borrow().steps();
                if target > now {
                    while self.sim.borrow().steps() < target {
                        if self.step_once() {
                            break;
                        }
                    }
                } else if target < now {
                    self.seek(target);
                }
                if target == self.timeline.total_steps {
                    // Past the last step only void timers remain: let them go, as End does.
                    while !self.step_once() {}
                }
                let finished = self.sim.borrow().is_finished();
                Rc::new(self.bumped(finished, false))
            }
            Action::NextNotable => {
                let now = self.sim.borrow().steps();
                match self.timeline.next_after(now) {
                    Some(step) => self.reduce(Action::Seek(step)),
                    None => self.reduce(Action::RunToEnd),
                }
            }
            Action::PreviousNotable => {
                let now = self.sim.borrow().steps();
                let target = self.timeline.previous_before(now).unwrap_or(0);
                self.reduce(Action::Seek(target))
            }
            Action::Select(selection) => {
                let mut next = self.bumped(self.finished, self.playing);
                next.selection = selection;
                Rc::new(next)
            }
            Action::SetFork(fork) => {
                if fork == self.fork {
                    return self;
                }
                let mut next = self.bumped(self.finished, self.playing);
                next.error = self.error.clone();
                next.fork = fork;
                Rc::new(next)
            }
            Action::InjectFault(spec) => {
                let at = crate::view_model::inspector::injection_time(&self.sim.borrow());
                let spec = FaultSpec {
                    // Strictly after every step already taken: the past is unchanged.
                    at_ms: eos_core::time::to_ms(at),
                    ..*spec
                };
                // The same fault at the same moment again (a second press) changes nothing.
                if self.added.contains(&spec) {
                    let mut same = self.bumped(self.finished, false);
                    let said = crate::view_model::describe_added(&spec);
                    same.error = Some(Notice::AlreadyScheduled(said));
                    return Rc::new(same);
                }
                let mut added = self.added.as_ref().clone();
                added.push(spec.clone());
                let scenario = self.scenario.with_fault(spec);
                self.refaulted(scenario, added)
            }
            Action::RemoveFault(n) => {
                // The faults added by click are the file's last ones, in the order added.
                let mut file = self.scenario.file.clone();
                let Some(at) = (file.faults.len() + n)
                    .checked_sub(self.added.len())
                    .filter(|_| n < self.added.len())
                else {
                    return self;
                };
                file.faults.remove(at);
                let mut added = self.added.as_ref().clone();
                added.remove(n);
                self.refaulted(Scenario::from_file(file), added)
            }
            Action::Open(opened) => Rc::new(open(&self, *opened)),
            // A bumped state carries no notice.
            Action::DismissNotice => Rc::new(self.bumped(self.finished, self.playing)),
            Action::Notice(text) => {
                let mut same = self.bumped(self.finished, self.playing);
                same.error = Some(Notice::Text(text));
                Rc::new(same)
            }
            Action::SetSeed(seed) => {
                if seed == self.scenario.seed() {
                    return self;
                }
                let mut file = self.scenario.file.clone();
                file.seed = seed;
                let guarantee = self.guarantee;
                self.rerun(Scenario::from_file(file), guarantee)
            }
            Action::SetGuarantee(g) => {
                let now = self
                    .scenario
                    .file
                    .processors
                    .first()
                    .map(|p| p.guarantee.as_str());
                if now.is_none_or(|n| n == g.name()) {
                    return self;
                }
                let changed = eos_core::compare::with_guarantee(&self.scenario, g);
                self.rerun(changed, Some(g))
            }
            Action::SetSpeed(quarters) => {
                let mut next = self.bumped(self.finished, self.playing);
                next.speed = quarters.clamp(SPEEDS[0], SPEEDS[SPEEDS.len() - 1]);
                Rc::new(next)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn act(state: Rc<Playground>, action: Action) -> Rc<Playground> {
        state.reduce(action)
    }

    #[test]
    fn a_notice_is_dismissed_and_the_run_stays_as_it_was() {
        let s = Rc::new(Playground::new(builtin::DEFAULT));
        let s = act(s, Action::Step);
        let s = act(s, Action::Notice("the link was changed".into()));
        assert!(s.error_text(crate::i18n::Lang::En).is_some());
        let closed = act(s.clone(), Action::DismissNotice);
        assert_eq!(closed.error_text(crate::i18n::Lang::En), None);
        assert_eq!(closed.sim.borrow().steps(), 1);
        assert_eq!(
            closed.sim.borrow().trace_hash(),
            s.sim.borrow().trace_hash()
        );
    }

    #[test]
    fn step_back_then_forward_gives_the_identical_state() {
        let mut s = Rc::new(Playground::new(builtin::DEFAULT));
        for _ in 0..10 {
            s = act(s, Action::Step);
        }
        let at_ten = s.sim.borrow().state_hash();
        s = act(s, Action::StepBack);
        assert_eq!(s.sim.borrow().steps(), 9);
        assert_ne!(s.sim.borrow().state_hash(), at_ten);
        s = act(s, Action::Step);
        assert_eq!(s.sim.borrow().state_hash(), at_ten);
    }

    /// A delivered message's content is the label it had on the wire, found by replay from
    /// a snapshot: checked against labels read live, step by step, across snapshot bounds.
    #[test]
    fn a_delivered_message_gets_the_content_it_had_on_the_wire() {
        let mut s = Rc::new(Playground::new("txn-producer-crash-stalls-readers"));
        let mut seen: std::collections::BTreeMap<u64, String> = Default::default();
        while !s.sim.borrow().is_finished() {
            for m in s.sim.borrow().in_flight() {
                seen.entry(m.id).or_insert(m.label);
            }
            s = act(s, Action::Step);
        }
        let sim = s.sim.borrow();
        let mut checked = 0;
        for rec in sim.trace() {
            if let eos_core::sim::simulation::StepKind::Deliver { msg_id, .. } = rec.what {
                let label = s.delivered_label(rec.step, msg_id);
                assert_eq!(label.as_ref(), seen.get(&msg_id), "message {msg_id}");
                checked += 1;
            }
        }
        assert!(
            checked > 40 && sim.steps() > SNAPSHOT_EVERY,
            "{checked} deliveries"
        );
        assert_eq!(s.delivered_label(0, 0), None);
    }

    #[test]
    fn stepping_back_past_a_snapshot_boundary_replays_from_it() {
        let mut s = Rc::new(Playground::new("txn-producer-crash-stalls-readers"));
        s = act(s, Action::RunToEnd);
        let end = s.sim.borrow().steps();
        assert!(
            end > SNAPSHOT_EVERY,
            "the scenario should be long enough: {end}"
        );
        let mut reference = s.scenario.simulation(None);
        reference.run(RunLimit::Steps(SNAPSHOT_EVERY - 1));
        while s.sim.borrow().steps() > SNAPSHOT_EVERY - 1 {
            s = act(s, Action::StepBack);
        }
        assert_eq!(s.sim.borrow().state_hash(), reference.state_hash());
    }

    #[test]
    fn unknown_scenarios_keep_the_current_one_and_say_why() {
        let s = Rc::new(Playground::new(builtin::DEFAULT));
        let s = act(s, Action::Load("no-such-scenario".into()));
        assert_eq!(s.scenario_name, builtin::DEFAULT);
        assert!(s
            .error_text(Lang::En)
            .unwrap_or_default()
            .contains("no-such-scenario"));
    }

    #[test]
    fn a_scenario_too_large_to_compare_is_not_compared_and_the_built_ins_are() {
        for name in crate::builtins::NAMES {
            let scenario = crate::builtins::get(name).expect("built-in");
            assert!(
                scenario.records_sent() <= PAGE_MAX_COMPARED_RECORDS,
                "{name}"
            );
        }
        let mut file = crate::builtins::get("rpw-crash-at-least-once")
            .expect("built-in")
            .file;
        let small = Playground::with_scenario(
            "small",
            Scenario::from_file(file.clone()).expect("valid"),
            None,
        );
        assert_eq!(small.comparison.len(), 3, "three lanes");
        let sends = &mut file.producers[0].sends[0];
        sends.count = u32::try_from(PAGE_MAX_COMPARED_RECORDS).expect("fits") + 1;
        let scenario = Scenario::from_file(file).expect("valid");
        assert_eq!(scenario.records_sent(), PAGE_MAX_COMPARED_RECORDS + 1);
        let big = Playground::with_scenario("big", scenario, None);
        assert!(big.comparison.is_empty(), "not compared");
        assert_eq!(big.sim.borrow().steps(), 0, "but playable");
    }

    #[test]
    fn a_run_cut_by_its_step_limit_says_so() {
        let mut file = crate::builtins::get(builtin::DEFAULT)
            .expect("built-in")
            .file;
        file.limits.max_steps = 10;
        let scenario = Scenario::from_file(file).expect("valid");
        let s = Rc::new(Playground::with_scenario("cut", scenario, None));
        assert!(s.timeline.cut);
        assert_eq!(s.timeline.total_steps, 10);
        let message = s.error_text(Lang::En).unwrap_or_default();
        assert!(message.contains("stops at step 10"), "{message}");
        let russian = s.error_text(Lang::Ru).unwrap_or_default();
        assert!(russian.contains("на шаге 10"), "{russian}");
        let s = act(s, Action::RunToEnd);
        assert_eq!(s.sim.borrow().steps(), 10);
        // At the cut the clock says so, after the notice is gone.
        let clock = crate::view_model::clock(&s.sim.borrow(), Lang::En);
        assert!(clock.ends_with("stopped at its step limit"), "{clock}");
        // Opened from a link (an import, a permalink), the run still says it is cut; a step
        // past the cut is not called the run's end.
        let mut file = crate::builtins::get(builtin::DEFAULT)
            .expect("built-in")
            .file;
        file.limits.max_steps = 10;
        let base = Scenario::from_file(file).expect("valid");
        let mut opened = Opened::at_start(crate::permalink::Source::Custom("x".into()), base);
        let at_start = open(&s, opened.clone());
        let said = at_start.error_text(Lang::En).unwrap_or_default();
        assert!(said.contains("stops at step 10"), "{said}");
        opened.step = 50;
        let past = open(&s, opened);
        let said = past.error_text(Lang::En).unwrap_or_default();
        assert!(
            said.contains("the page stops this run at step 10")
                && said.contains("stops at step 10, its step limit here")
                && !said.contains("its run ends"),
            "{said}"
        );
        // A run that ends says nothing.
        let whole = Playground::new(builtin::DEFAULT);
        assert!(!whole.timeline.cut && whole.error.is_none());
    }

    #[test]
    fn the_timeline_knows_the_length_and_the_notable_steps() {
        let s = Rc::new(Playground::new(builtin::DEFAULT));
        let end = {
            let mut sim = s.scenario.simulation(None);
            sim.run(RunLimit::Completion);
            sim.steps()
        };
        assert_eq!(s.timeline.total_steps, end);
        assert!(!s.timeline.notable.is_empty());
        assert!(s.timeline.notable.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn notable_jumps_land_on_notable_steps_both_ways() {
        let mut s = Rc::new(Playground::new(builtin::DEFAULT));
        let first = s.timeline.notable[0];
        s = act(s, Action::NextNotable);
        assert_eq!(s.sim.borrow().steps(), first);
        let second = s.timeline.notable[1];
        s = act(s, Action::NextNotable);
        assert_eq!(s.sim.borrow().steps(), second);
        s = act(s, Action::PreviousNotable);
        assert_eq!(s.sim.borrow().steps(), first);
        let rec = s.sim.borrow().trace().last().cloned().expect("a step");
        assert!(rec.notable().is_some(), "{rec:?}");
    }

    #[test]
    fn snapshots_thin_out_past_their_limit_and_stay_near_any_step() {
        let scenario = crate::builtins::get("rpw-cost").expect("built-in");
        let mut sim = scenario.simulation(None);
        let mut snaps = Snapshots::new(&sim, 1, MAX_SNAPSHOTS);
        while sim.step() == StepOutcome::Stepped {
            snaps.offer(&mut sim);
        }
        let total = sim.steps();
        assert!(total > 4 * MAX_SNAPSHOTS as u64, "{total}");
        assert!(snaps.sims.len() <= MAX_SNAPSHOTS, "{}", snaps.sims.len());
        assert!(snaps.every >= 4, "the spacing doubled: {}", snaps.every);
        for (i, s) in snaps.sims.iter().enumerate() {
            assert_eq!(s.steps(), i as u64 * snaps.every);
            assert!(s.trace().is_empty(), "snapshots keep no trace");
        }
        for target in [0, 1, 333, total / 2, total - 1] {
            let base = snaps.at_or_before(target).expect("a snapshot");
            assert!(base.steps() <= target && target - base.steps() < snaps.every);
        }
    }

    #[test]
    fn snapshots_stay_within_their_memory_budget_and_still_reach_any_step() {
        // A big scenario (30,000 records: copies of ~6 MB) under a 32 MB budget: the count
        // limit alone would keep 256 copies, ~1.5 GB.
        let text =
            "version = 1\nname = \"big\"\n[[topics]]\nname = \"t\"\n[[producers]]\nname = \"p\"\n\
                    [[producers.sends]]\ntopic = \"t\"\ncount = 30000\n";
        let scenario = Scenario::parse(text).expect("parses");
        let mut sim = scenario.simulation(None);
        let budget = 32 << 20;
        let mut snaps = Snapshots::new(&sim, 1, MAX_SNAPSHOTS).with_budget(budget);
        while sim.step() == StepOutcome::Stepped {
            snaps.offer(&mut sim);
        }
        let each = sim.approx_bytes();
        assert!(each > 30_000 * 200, "a copy holds the whole ledger: {each}");
        let spent: usize = snaps.sims.iter().map(Simulation::approx_bytes).sum();
        assert!(
            spent <= budget && snaps.sims.len() >= 2,
            "{spent} bytes in {} copies",
            snaps.sims.len()
        );
        let total = sim.steps();
        for target in [0, 1, total / 3, total - 1] {
            let base = snaps.at_or_before(target).expect("a snapshot");
            assert!(base.steps() <= target && target - base.steps() < snaps.every);
        }
    }

    #[test]
    fn a_link_past_the_end_or_with_faults_that_do_not_fit_keeps_its_scenario() {
        let open_query = |query: &str| {
            let link = crate::permalink::parse_query(query).expect("valid");
            let base = crate::share::builtin_base("rpw-crash-exactly-once");
            let start = Rc::new(Playground::new(builtin::DEFAULT));
            act(
                start,
                Action::Open(Box::new(crate::share::opened_from_link(&link, base))),
            )
        };
        let s = open_query("?s=rpw-crash-exactly-once&seed=7&step=999999");
        let total = s.timeline.total_steps;
        assert_eq!(s.scenario_name, "rpw-crash-exactly-once");
        assert_eq!((s.sim.borrow().steps(), s.sim.borrow().seed), (total, 7));
        let said = s
            .error
            .as_ref()
            .map(|e| e.text(Lang::En))
            .unwrap_or_default();
        assert!(said.contains("showing its last step"), "{said}");
        // A crash of a process the scenario lacks, and one without a target, between two
        // that fit: those two are left out, the others kept.
        let s = open_query(
            "?s=rpw-crash-exactly-once&step=3&f=at:5,a:crash,t:broker-0&f=at:5,a:crash,t:nobody&f=at:6,a:crash&f=at:9,a:crash,t:broker-0",
        );
        assert_eq!(s.scenario_name, "rpw-crash-exactly-once");
        assert_eq!((s.sim.borrow().steps(), s.added.len()), (3, 2));
        let said = s
            .error
            .as_ref()
            .map(|e| e.text(Lang::En))
            .unwrap_or_default();
        assert!(
            said.contains("fault 2 does not fit its scenario (target: ")
                && said.contains("fault 3 does not fit its scenario (target: ")
                && !said.contains("fault 1 ")
                && !said.contains("faults["),
            "{said}"
        );
    }

    #[test]
    fn seeking_anywhere_gives_the_same_state_as_stepping_there() {
        let s = Rc::new(Playground::new("seed-commit-abort"));
        let total = s.timeline.total_steps;
        let s = act(s, Action::Seek(total * 2));
        assert_eq!(s.sim.borrow().steps(), total, "clamped to the end");
        assert!(s.finished && s.sim.borrow().is_finished());
        // Back across snapshots, forward, back to the start: state and trace as if stepped.
        let mut s = Rc::new(Playground::new("rpw-cost"));
        let total = s.timeline.total_steps;
        assert!(total > 4 * SNAPSHOT_EVERY, "{total}");
        for target in [
            17,
            total - 1,
            SNAPSHOT_EVERY + 3,
            SNAPSHOT_EVERY,
            3 * SNAPSHOT_EVERY - 1,
            0,
            5,
        ] {
            s = act(s, Action::Seek(target));
            let mut reference = s.scenario.simulation(None);
            reference.run(RunLimit::Steps(target));
            let sim = s.sim.borrow();
            assert_eq!(sim.steps(), target);
            assert_eq!(sim.state_hash(), reference.state_hash(), "at {target}");
            assert_eq!(sim.trace(), reference.trace(), "the trace at {target}");
        }
        let s = act(s, Action::SetSpeed(1_000));
        assert_eq!(s.speed, 64);
    }

    #[test]
    fn an_injected_fault_keeps_the_past_and_changes_the_future() {
        let mut s = Rc::new(Playground::new("lost-ack-idempotence-on"));
        for _ in 0..6 {
            s = act(s, Action::Step);
        }
        let past = s.sim.borrow().trace().to_vec();
        let s = act(
            s,
            Action::InjectFault(Box::new(process_fault("broker-0", "crash", 0))),
        );
        assert_eq!(s.injected, 1);
        assert_eq!(
            s.sim.borrow().trace(),
            past.as_slice(),
            "the past is unchanged"
        );
        let s = act(s, Action::RunToEnd);
        let crashed = s.sim.borrow().trace().iter().any(|r| {
            r.notes
                .iter()
                .any(|n| matches!(n, eos_core::sim::Note::Crashed { .. }))
        });
        assert!(crashed, "the broker crashes in the new future");
        assert_eq!(
            s.scenario.file.faults.len(),
            2,
            "the schedule holds the new fault"
        );
    }

    /// A second press of the same fault at the same moment adds nothing, and says so; a
    /// fault added by click can be taken out again, and the run is as if it never was.
    #[test]
    fn a_fault_added_by_click_is_added_once_and_can_be_removed() {
        let mut s = Rc::new(Playground::new("lost-ack-idempotence-on"));
        for _ in 0..6 {
            s = act(s, Action::Step);
        }
        let untouched = {
            let mut fresh = Rc::new(Playground::new("lost-ack-idempotence-on"));
            fresh = act(fresh, Action::RunToEnd);
            let hash = fresh.sim.borrow().trace_hash();
            hash
        };
        let crash = || Action::InjectFault(Box::new(process_fault("broker-0", "crash", 0)));
        let freeze = || Action::InjectFault(Box::new(process_fault("broker-0", "freeze", 2_000)));
        let s = act(act(act(s, crash()), crash()), freeze());
        assert_eq!(
            (s.added.len(), s.injected),
            (2, 2),
            "the second crash is not added"
        );
        assert_eq!(
            s.scenario.file.faults.len(),
            3,
            "the file's own fault and two"
        );
        let s = act(s, crash());
        let said = s.error_text(Lang::En).unwrap_or_default();
        assert!(
            said.contains("crash broker 0 is already in the fault schedule"),
            "{said}"
        );
        assert_eq!(s.sim.borrow().steps(), 6, "at its step");
        // Out again, one after the other (the crash, then the freeze), at the same step.
        let s = act(s, Action::RemoveFault(0));
        assert_eq!(s.added.len(), 1);
        assert_eq!(s.added[0].action, "freeze");
        assert_eq!(s.sim.borrow().steps(), 6, "still at its step");
        let s = act(s, Action::RemoveFault(5));
        assert_eq!(s.added.len(), 1, "no such fault: nothing changes");
        let s = act(s, Action::RemoveFault(0));
        assert!(s.added.is_empty() && s.injected == 0);
        assert_eq!(
            s.scenario.file.faults.len(),
            1,
            "the file's own fault stays"
        );
        let s = act(s, Action::RunToEnd);
        assert_eq!(s.sim.borrow().trace_hash(), untouched, "as if never added");
    }

    #[test]
    fn another_seed_reruns_the_same_scenario_and_faults_from_the_start() {
        let mut s = Rc::new(Playground::new("lost-ack-idempotence-on"));
        s = act(
            s,
            Action::InjectFault(Box::new(process_fault("broker-0", "crash", 0))),
        );
        s = act(s, Action::RunToEnd);
        let before = s.sim.borrow().trace_hash();
        s = act(s, Action::SetSeed(7));
        assert_eq!(s.sim.borrow().seed, 7);
        assert_eq!(s.sim.borrow().steps(), 0, "a new run starts at step 0");
        assert_eq!(
            (s.injected, s.added.len()),
            (1, 1),
            "the added fault is kept"
        );
        assert_eq!(s.scenario.file.faults.len(), 2);
        s = act(s, Action::RunToEnd);
        assert_ne!(
            s.sim.borrow().trace_hash(),
            before,
            "another seed, another run"
        );
        let again = act(s.clone(), Action::SetSeed(7));
        assert!(Rc::ptr_eq(&again, &s), "the same seed changes nothing");
    }

    #[test]
    fn another_guarantee_reruns_the_same_faults_and_travels_in_the_link() {
        use eos_core::kafka::processor::Guarantee;
        let mut s = Rc::new(Playground::new("rpw-crash-exactly-once"));
        s = act(s, Action::SetSeed(3));
        s = act(s, Action::SetGuarantee(Guarantee::AtLeastOnce));
        assert_eq!(s.scenario.file.processors[0].guarantee, "at-least-once");
        assert_eq!(s.sim.borrow().seed, 3, "the seed is kept");
        let link = crate::permalink::Link::of(&s, false);
        let query = crate::permalink::format_query(&link);
        assert!(query.contains("&g=at-least-once"), "{query}");
        // The link opens the same run.
        let opened = crate::share::opened_from_link(
            &crate::permalink::parse_query(&query).expect("valid"),
            crate::share::builtin_base("rpw-crash-exactly-once"),
        );
        let again = act(s.clone(), Action::Open(Box::new(opened)));
        assert_eq!(again.scenario.file.processors[0].guarantee, "at-least-once");
        assert_eq!(again.sim.borrow().seed, 3);
        // A scenario without a processor has no guarantee to change.
        let plain = Rc::new(Playground::new("lost-ack-idempotence-off"));
        let same = act(plain.clone(), Action::SetGuarantee(Guarantee::AtMostOnce));
        assert!(Rc::ptr_eq(&same, &plain));
    }

    #[test]
    fn a_fault_on_an_unknown_process_is_refused_and_nothing_is_lost() {
        let s = Rc::new(Playground::new(builtin::DEFAULT));
        let s = act(s, Action::Step);
        let s = act(
            s,
            Action::InjectFault(Box::new(process_fault("nobody", "crash", 0))),
        );
        assert!(s
            .error_text(Lang::En)
            .unwrap_or_default()
            .contains("not a process"));
        assert_eq!(s.sim.borrow().steps(), 1);
        assert_eq!(s.injected, 0);
    }

    #[test]
    fn a_freeze_by_click_lasts_the_chosen_length() {
        let s = act(
            Rc::new(Playground::new("lost-ack-idempotence-on")),
            Action::Step,
        );
        let s = act(
            s,
            Action::InjectFault(Box::new(process_fault("broker-0", "freeze", 10_000))),
        );
        let f = s.scenario.file.faults.last().cloned().expect("a fault");
        assert_eq!((f.action.as_str(), f.duration_ms), ("freeze", Some(10_000)));
    }

    #[test]
    fn dropping_the_produce_on_the_wire_by_click_changes_the_future_only() {
        use crate::view_model::inspector::{inspect, message_fault, MessageFault};
        let mut s = Rc::new(Playground::new(builtin::DEFAULT));
        for _ in 0..6 {
            s = act(s, Action::Step);
        }
        let id = s.sim.borrow().in_flight()[0].id;
        s = act(s, Action::Select(Some(Selection::Message(id))));
        let vm = inspect(&s.sim.borrow(), &Selection::Message(id), Lang::En);
        let m = vm.message.expect("a message");
        let past = s.sim.borrow().trace().to_vec();
        s = act(
            s,
            Action::InjectFault(Box::new(message_fault(&m, MessageFault::Drop))),
        );
        assert_eq!(s.sim.borrow().trace(), past.as_slice());
        assert_eq!(s.selection, Some(Selection::Message(id)), "still inspected");
        s = act(s, Action::Step);
        let dropped = s.sim.borrow().trace().last().is_some_and(|r| {
            r.notes
                .iter()
                .any(|n| matches!(n, eos_core::sim::Note::MessageDropped { .. }))
        });
        assert!(dropped);
        s = act(s, Action::Select(None));
        assert_eq!(s.selection, None);
    }

    #[test]
    fn run_to_end_finishes_and_stops_playing() {
        let s = Rc::new(Playground::new(builtin::DEFAULT));
        let s = act(s, Action::TogglePlay);
        assert!(s.playing);
        let s = act(s, Action::RunToEnd);
        assert!(s.finished && !s.playing);
        assert!(s.sim.borrow().is_finished());
    }
}
