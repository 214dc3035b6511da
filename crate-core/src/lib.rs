//! `eos-core`: a deterministic, step-by-step simulation of Kafka's delivery machinery
//! (partition logs, replication, the idempotent producer, consumers) with first-class faults
//! and an oracle that names every duplicate and loss.
//!
//! The behavioural reference is `shared/SEMANTICS.md`; this crate follows Apache Kafka 4.x.
//! It knows nothing of the web: the playground and the `eos-sim` CLI both drive it.

pub mod compare;
pub mod cost;
pub mod flink;
pub mod fork;
pub mod hash;
pub mod ids;
pub mod kafka;
pub mod lesson;
pub mod net;
pub mod oracle;
pub mod order;
pub mod outcomes;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod serde_pairs;
pub mod sim;
pub mod time;
pub mod vec_map;

pub use lesson::{Lesson, LessonError};
pub use report::Report;
pub use scenario::{builtin, Scenario, ScenarioError};
pub use sim::{RunLimit, Simulation, StepOutcome};
