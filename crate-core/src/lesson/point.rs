//! Narration points: where in the run a narration step stands, as data
//! (`until = { notable = "retry" }`), and how a point is recognised while the run advances.

use super::schema::{UntilSpec, UntilTable};
use crate::scenario::FieldError;
use crate::sim::note::{Notable, Note};
use crate::sim::{Simulation, StepRecord};
use crate::time::{ms, to_ms, SimTime};
use serde::{Deserialize, Serialize};

/// The transaction coordinator's states, as `txn_state` names them.
pub const TXN_STATES: &[&str] = &[
    "Empty",
    "Ongoing",
    "PrepareCommit",
    "PrepareAbort",
    "CompleteCommit",
    "CompleteAbort",
    "Dead",
    "PrepareEpochFence",
];

/// A point of the run. Event points (`notable`, `note`, `txn_state`) are the first step
/// *after* the previous point that carries the event; `step` and `time_ms` are absolute and
/// may coincide with the previous point but not precede it; `end` is the last step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Until {
    Notable(Notable),
    Note(String),
    TxnState(String),
    Step(u64),
    TimeMs(u64),
    End,
}

impl Until {
    /// Validates the written form; errors name `field` (`steps[2].until`).
    pub(crate) fn from_spec(spec: &UntilSpec, field: &str) -> Result<Until, FieldError> {
        let err = |message: String| FieldError {
            field: field.to_string(),
            message,
        };
        let table = match spec {
            UntilSpec::Word(w) if w == "end" => return Ok(Until::End),
            UntilSpec::Word(w) => {
                return Err(err(format!(
                    "\"{w}\" is not a point (write \"end\" or a table with one of notable, note, txn_state, step, time_ms)"
                )))
            }
            UntilSpec::Table(t) => t,
        };
        let UntilTable {
            notable,
            note,
            txn_state,
            step,
            time_ms,
        } = table;
        let set = [
            notable.is_some(),
            note.is_some(),
            txn_state.is_some(),
            step.is_some(),
            time_ms.is_some(),
        ]
        .iter()
        .filter(|s| **s)
        .count();
        if set != 1 {
            return Err(err(format!(
                "has {set} keys; give exactly one of notable, note, txn_state, step, time_ms"
            )));
        }
        if let Some(n) = notable {
            let known: Vec<&str> = Notable::ALL.iter().map(|n| n.name()).collect();
            return Notable::parse(n)
                .map(Until::Notable)
                .ok_or_else(|| FieldError {
                    field: format!("{field}.notable"),
                    message: format!("\"{n}\" is not a notable (allowed: {})", known.join(", ")),
                });
        }
        if let Some(n) = note {
            return if Note::is_kind_name(n.as_str()) {
                Ok(Until::Note(n.clone()))
            } else {
                Err(FieldError {
                    field: format!("{field}.note"),
                    message: format!(
                        "\"{n}\" is not a note kind (allowed: {})",
                        Note::all_kind_names().join(", ")
                    ),
                })
            };
        }
        if let Some(s) = txn_state {
            return if TXN_STATES.contains(&s.as_str()) {
                Ok(Until::TxnState(s.clone()))
            } else {
                Err(FieldError {
                    field: format!("{field}.txn_state"),
                    message: format!(
                        "\"{s}\" is not a transaction state (allowed: {})",
                        TXN_STATES.join(", ")
                    ),
                })
            };
        }
        if let Some(t) = time_ms {
            if *t > crate::scenario::limits::MAX_TIME_MS {
                return Err(FieldError {
                    field: format!("{field}.time_ms"),
                    message: format!(
                        "{t} is out of range (allowed: 0 to {})",
                        crate::scenario::limits::MAX_TIME_MS
                    ),
                });
            }
            return Ok(Until::TimeMs(*t));
        }
        Ok(Until::Step(step.unwrap_or_default()))
    }

    /// `notable "retry"`, for messages.
    pub fn describe(&self) -> String {
        match self {
            Until::Notable(n) => format!("notable \"{}\"", n.name()),
            Until::Note(n) => format!("note \"{n}\""),
            Until::TxnState(s) => format!("transaction state \"{s}\""),
            Until::Step(s) => format!("step {s}"),
            Until::TimeMs(t) => format!("time {t} ms"),
            Until::End => "the end".into(),
        }
    }

    fn in_record(&self, rec: &StepRecord) -> bool {
        rec.notes.iter().any(|note| match self {
            Until::Notable(n) => note.notable() == Some(*n),
            Until::Note(kind) => note.kind_name() == kind,
            Until::TxnState(state) => matches!(note, Note::TxnTransition { to, .. } if to == state),
            _ => false,
        })
    }

    /// Whether the simulation, as it is now, stands at this point. `after` is the step of
    /// the previous point; `finished` says the run has nothing left to do.
    pub(crate) fn reached(&self, sim: &mut Simulation, after: u64, finished: bool) -> Reached {
        match self {
            Until::Notable(_) | Until::Note(_) | Until::TxnState(_) => match sim.trace().last() {
                Some(rec) if rec.step > after && rec.step == sim.steps() && self.in_record(rec) => {
                    Reached::Yes
                }
                _ => Reached::NotYet,
            },
            Until::Step(s) if sim.steps() == *s => Reached::Yes,
            Until::Step(s) if sim.steps() > *s => Reached::Passed(format!(
                "step {s} comes before the previous point (step {after})"
            )),
            Until::Step(_) => Reached::NotYet,
            Until::TimeMs(t) => {
                let t_us: SimTime = ms(*t);
                // While this point is the next one, no step later than `t` runs: a later
                // step can only come from a previous point that lies beyond it.
                if sim.last_step_at() > t_us {
                    return Reached::Passed(format!(
                        "time {t} ms comes before the previous point (step {after}, at {} ms)",
                        to_ms(sim.last_step_at())
                    ));
                }
                if sim.next_event_time().is_some_and(|next| next <= t_us) {
                    // Not yet, unless what comes next by `t` is only events that make no
                    // step (a stale timer, an answer nobody waits for): stepping would run
                    // past `t`. A copy tells.
                    let mut next = sim.clone_without_trace();
                    let stepped = next.step() == crate::StepOutcome::Stepped;
                    if stepped && next.last_step_at() <= t_us {
                        return Reached::NotYet;
                    }
                }
                // Reached now, unless the run ended before `t`: nothing is left but stale
                // timers, whether or not the caller has stepped into the end yet. A copy
                // tells, once per point (only here, where the point would be reached).
                let ended = || finished || sim.clone().step() != crate::StepOutcome::Stepped;
                if t_us > sim.last_step_at() && ended() {
                    return Reached::Passed(format!(
                        "time {t} ms is after the run ends (at {} ms, step {}); use until = \"end\"",
                        to_ms(sim.last_step_at()),
                        sim.steps()
                    ));
                }
                Reached::Yes
            }
            Until::End if finished => Reached::Yes,
            Until::End => Reached::NotYet,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reached {
    Yes,
    NotYet,
    /// It can never be reached from here; the reason.
    Passed(String),
}
