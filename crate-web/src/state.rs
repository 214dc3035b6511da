//! Playback state as a reducer over the core: load a scenario, step, step back (from a
//! snapshot plus replay), reset, run to the end. No simulation logic lives here.

#[cfg(test)]
use eos_core::RunLimit;
use eos_core::{builtin, Scenario, Simulation, StepOutcome};
use std::cell::RefCell;
use std::rc::Rc;
use yew::Reducible;

/// A snapshot is kept every this many steps, so stepping back replays at most this many.
pub const SNAPSHOT_EVERY: u64 = 64;

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Load(String),
    Step,
    StepBack,
    Reset,
    RunToEnd,
    TogglePlay,
    Pause,
}

pub struct Playground {
    pub scenario_name: String,
    pub scenario: Rc<Scenario>,
    /// The live simulation. Shared and mutated in place (cloning it per step would cost
    /// O(run length)); `version` tells Yew that it changed.
    pub sim: Rc<RefCell<Simulation>>,
    snapshots: Rc<RefCell<Vec<Simulation>>>,
    pub version: u64,
    pub playing: bool,
    pub finished: bool,
    pub error: Option<String>,
}

impl PartialEq for Playground {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version
            && self.playing == other.playing
            && self.scenario_name == other.scenario_name
            && self.error == other.error
    }
}

impl Playground {
    pub fn new(name: &str) -> Self {
        match builtin::get(name) {
            Ok(s) => Playground::with_scenario(name, s, None),
            Err(e) => {
                let fallback = builtin::get(builtin::DEFAULT).ok();
                match fallback {
                    Some(s) => Playground::with_scenario(builtin::DEFAULT, s, Some(e.to_string())),
                    None => unreachable_default(),
                }
            }
        }
    }

    fn with_scenario(name: &str, scenario: Scenario, error: Option<String>) -> Self {
        let sim = scenario.simulation(None);
        Playground {
            scenario_name: name.to_string(),
            scenario: Rc::new(scenario),
            snapshots: Rc::new(RefCell::new(vec![sim.clone()])),
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
        }
    }

    fn step_once(&self) -> bool {
        let mut sim = self.sim.borrow_mut();
        let outcome = sim.step();
        if outcome == StepOutcome::Stepped && sim.steps() % SNAPSHOT_EVERY == 0 {
            let mut snaps = self.snapshots.borrow_mut();
            if snaps.len() as u64 == sim.steps() / SNAPSHOT_EVERY {
                snaps.push(sim.clone());
            }
        }
        outcome != StepOutcome::Stepped
    }

    /// Rebuilds the simulation at `target` steps from the nearest snapshot.
    fn seek(&self, target: u64) {
        let snaps = self.snapshots.borrow();
        let index = ((target / SNAPSHOT_EVERY) as usize).min(snaps.len().saturating_sub(1));
        let Some(base) = snaps.get(index) else { return };
        let mut sim = base.clone();
        while sim.steps() < target && sim.step() == StepOutcome::Stepped {}
        *self.sim.borrow_mut() = sim;
    }
}

fn unreachable_default() -> Playground {
    // The default scenario is compiled in and tested to parse; this only guards the type.
    let scenario = Scenario::parse(builtin::BUILTIN[0].1).unwrap_or_else(|_| {
        Scenario::parse("version = 1\nname = \"empty\"\n[[topics]]\nname = \"t\"\n")
            .expect("a literal minimal scenario parses")
    });
    Playground::with_scenario(
        "empty",
        scenario,
        Some("no built-in scenario could be loaded".into()),
    )
}

impl Reducible for Playground {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        match action {
            Action::Load(name) => match builtin::get(&name) {
                Ok(s) => Rc::new(Playground::with_scenario(&name, s, None)),
                Err(e) => {
                    let mut same = self.bumped(self.finished, false);
                    same.error = Some(e.to_string());
                    Rc::new(same)
                }
            },
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

    #[test]
    fn stepping_back_past_a_snapshot_boundary_replays_from_it() {
        let mut s = Rc::new(Playground::new("in-flight-order-idempotence-on"));
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
            .error
            .as_deref()
            .unwrap_or("")
            .contains("no-such-scenario"));
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
