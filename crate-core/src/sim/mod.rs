//! The simulation engine: one clock, one RNG, one event queue; components are pure state
//! machines that push commands, and only the engine schedules them.

pub mod client_timers;
pub mod command;
pub mod event;
pub mod fault;
pub mod flink_note;
pub mod names;
pub mod narration;
pub mod narration_repeats;
pub mod node_status;
pub mod note;
pub mod observe;
pub mod simulation;

pub use command::{Command, Ctx};
pub use event::{Event, Scheduled, Timer};
pub use fault::{Fault, MessageMatch};
pub use flink_note::FlinkNote;
pub use note::Note;
pub use simulation::{RunLimit, Simulation, StepOutcome, StepRecord};
