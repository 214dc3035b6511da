//! The oracle: a ledger of every logical record, the anomalies it proves (with Jepsen's
//! names) and the invariants of SEMANTICS §7, each linked to the steps that show it.

pub mod anomalies;
mod idempotence;
pub mod invariants;
pub mod ledger;
mod reads;

pub use anomalies::{Anomaly, AnomalyKind};
pub use invariants::InvariantResult;
pub use ledger::{DeliveryStatus, Ledger, ProcessorRead, RecordEntry, TxnOutcome};
