//! Playback: while playing, each animation frame converts the time since the last one ×
//! speed into steps of the run, at most one per frame, so that a step and its drawing land
//! in the same frame (a timer of its own drifted against the display: one frame in ten
//! drew two steps and missed the next refresh).

use crate::state::{Action, Playground};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Milliseconds per step at 1× (speed 4, in quarters).
pub const STEP_MS_AT_1X: f64 = 350.0;

/// Milliseconds between two steps at `speed` quarters of the base rate.
pub fn period_ms(speed: u32) -> f64 {
    STEP_MS_AT_1X * 4.0 / f64::from(speed.max(1))
}

/// How much time the player owes steps for, after `elapsed` ms more: whether to step now,
/// and what is left. Never more than one step per frame, and never a backlog of more than
/// one period (a hidden tab or a slow frame does not bring a burst of steps).
pub fn advance(owed: f64, elapsed: f64, period: f64) -> (bool, f64) {
    let owed = owed + elapsed.max(0.0);
    if owed >= period {
        (true, (owed - period).min(period))
    } else {
        (false, owed)
    }
}

type Frame = Closure<dyn FnMut(f64)>;

/// The frame loop; dropping it stops it.
struct Player {
    id: Rc<Cell<Option<i32>>>,
    frame: Rc<RefCell<Option<Frame>>>,
}

impl Player {
    fn start(period: f64, dispatcher: UseReducerDispatcher<Playground>) -> Option<Player> {
        let window = web_sys::window()?;
        let id = Rc::new(Cell::new(None));
        let frame: Rc<RefCell<Option<Frame>>> = Rc::new(RefCell::new(None));
        let (next_id, next_frame) = (id.clone(), frame.clone());
        let (last, owed) = (Cell::new(None::<f64>), Cell::new(0.0));
        let win = window.clone();
        *frame.borrow_mut() = Some(Closure::new(move |now: f64| {
            let elapsed = last.get().map_or(0.0, |l| now - l);
            last.set(Some(now));
            let (step, left) = advance(owed.get(), elapsed, period);
            owed.set(left);
            if step {
                dispatcher.dispatch(Action::Step);
            }
            if let Some(f) = next_frame.borrow().as_ref() {
                next_id.set(win.request_animation_frame(f.as_ref().unchecked_ref()).ok());
            }
        }));
        if let Some(f) = frame.borrow().as_ref() {
            id.set(
                window
                    .request_animation_frame(f.as_ref().unchecked_ref())
                    .ok(),
            );
        }
        Some(Player { id, frame })
    }
}

impl Drop for Player {
    fn drop(&mut self) {
        if let (Some(id), Some(w)) = (self.id.take(), web_sys::window()) {
            let _ = w.cancel_animation_frame(id);
        }
        // The closure holds a handle to itself (to ask for the next frame): let it go.
        self.frame.borrow_mut().take();
    }
}

/// Steps the run while `playing`, at `speed`; stops when either changes or the page goes.
#[hook]
pub fn use_playback(playing: bool, speed: u32, dispatcher: UseReducerDispatcher<Playground>) {
    use_effect_with((playing, speed), move |&(playing, speed)| {
        let player = if playing {
            Player::start(period_ms(speed), dispatcher)
        } else {
            None
        };
        move || drop(player)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_give_their_periods() {
        assert_eq!(period_ms(4), 350.0);
        assert_eq!(period_ms(1), 1400.0);
        assert_eq!(period_ms(64), 21.875);
        assert_eq!(period_ms(0), 1400.0, "no division by zero");
    }

    #[test]
    fn one_step_per_period_at_most_one_per_frame_and_no_burst() {
        // 60 Hz frames at 16x: 1,000 frames give 16.7 s / 21.875 ms = 762 steps.
        let (period, frame) = (period_ms(64), 1000.0 / 60.0);
        let (mut owed, mut steps) = (0.0, 0);
        for _ in 0..1000 {
            let (step, left) = advance(owed, frame, period);
            owed = left;
            steps += usize::from(step);
        }
        assert!((760..=763).contains(&steps), "{steps}");
        // A 5 s stall (a hidden tab) brings one step, not 228.
        let (step, left) = advance(0.0, 5_000.0, period);
        assert!(step && left <= period);
        let (again, left) = advance(left, 0.0, period);
        assert!(again, "at most one more owed");
        let (third, _) = advance(left, 0.0, period);
        assert!(!third, "and nothing after it");
        // Frames faster than the period: no step until a period has passed.
        assert_eq!(advance(0.0, 10.0, 350.0), (false, 10.0));
    }
}
