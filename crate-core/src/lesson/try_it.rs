//! "Try it" prompts: one change to the scenario the reader can make (inject a fault, flip a
//! setting, switch the guarantee), applied here so the web and the checker agree.

use super::text::Text;
use crate::compare::with_guarantee;
use crate::kafka::processor::Guarantee;
use crate::scenario::schema::{AcksValue, ConsumerSpec, FaultSpec, ProducerSpec};
use crate::scenario::{FieldError, Scenario, ScenarioError};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TryIt {
    pub text: Text,
    pub action: TryAction,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TryAction {
    /// Add this fault to the schedule.
    Inject(Box<FaultSpec>),
    Flip(Flip),
    /// Switch every read-process-write processor to this guarantee.
    Guarantee(Guarantee),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flip {
    /// `enable.idempotence` of every non-transactional producer.
    Idempotence,
    /// read_committed ↔ read_uncommitted for every consumer.
    Isolation,
    /// Transaction protocol 1 ↔ 2.
    TransactionProtocol,
    /// Flink: aligned ↔ unaligned checkpoints.
    Unaligned,
    /// Flink: EXACTLY_ONCE ↔ AT_LEAST_ONCE checkpointing.
    Checkpointing,
    /// `acks` of every non-transactional producer: all ↔ 1 (0 becomes all). (Last, so the
    /// built-in lessons' wire form keeps the others' numbers.)
    Acks,
    /// `min.insync.replicas` of every topic with two replicas or more: 1 ↔ 2 (any other
    /// value becomes 1). Last, as `Acks`.
    MinInsync,
    /// `unclean.leader.election.enable` of every topic with two replicas or more: false ↔
    /// true. Last, as `Acks`.
    UncleanElection,
    /// `auto.offset.reset` of every consumer: latest ↔ earliest (none becomes earliest).
    /// Last, as `Acks`.
    OffsetReset,
}

impl Flip {
    pub const ALL: [Flip; 9] = [
        Flip::Idempotence,
        Flip::Isolation,
        Flip::TransactionProtocol,
        Flip::Unaligned,
        Flip::Checkpointing,
        Flip::Acks,
        Flip::MinInsync,
        Flip::UncleanElection,
        Flip::OffsetReset,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Flip::Idempotence => "idempotence",
            Flip::Isolation => "isolation",
            Flip::TransactionProtocol => "transaction_protocol",
            Flip::Unaligned => "unaligned",
            Flip::Checkpointing => "checkpointing",
            Flip::Acks => "acks",
            Flip::MinInsync => "min_insync_replicas",
            Flip::UncleanElection => "unclean_leader_election",
            Flip::OffsetReset => "auto_offset_reset",
        }
    }

    pub fn parse(s: &str) -> Option<Flip> {
        Flip::ALL.into_iter().find(|f| f.name() == s)
    }
}

/// A producer's `enable.idempotence` as its client takes it: the Java client's default is on.
pub fn idempotence_of(p: &ProducerSpec) -> bool {
    p.enable_idempotence.unwrap_or(p.client == "java")
}

/// A producer's `acks` as Kafka names it: `all` by default (Java since 3.0, librdkafka's -1).
pub fn acks_of(p: &ProducerSpec) -> &'static str {
    match &p.acks {
        Some(AcksValue::Number(0)) => "0",
        Some(AcksValue::Number(1)) => "1",
        Some(AcksValue::Text(t)) if t == "0" => "0",
        Some(AcksValue::Text(t)) if t == "1" => "1",
        _ => "all",
    }
}

/// A consumer's `auto.offset.reset` (`earliest` unless set).
pub fn offset_reset_of(c: &ConsumerSpec) -> &str {
    c.auto_offset_reset.as_deref().unwrap_or("earliest")
}

/// A consumer's isolation level as its client takes it: librdkafka's default is
/// read_committed, the Java client's read_uncommitted.
pub fn isolation_of(c: &ConsumerSpec) -> String {
    c.isolation.clone().unwrap_or_else(|| {
        (if c.client == "librdkafka" {
            "read_committed"
        } else {
            "read_uncommitted"
        })
        .to_string()
    })
}

fn refused(field: &str, message: &str) -> ScenarioError {
    ScenarioError::Invalid(vec![FieldError {
        field: field.into(),
        message: message.into(),
    }])
}

impl TryIt {
    /// The scenario with this change made, validated like any scenario.
    pub fn apply(&self, scenario: &Scenario) -> Result<Scenario, ScenarioError> {
        match &self.action {
            TryAction::Inject(fault) => scenario.with_fault((**fault).clone()),
            TryAction::Guarantee(g) => {
                if scenario.file.processors.is_empty() {
                    return Err(refused(
                        "processors",
                        "the scenario has no read-process-write processor to switch",
                    ));
                }
                with_guarantee(scenario, *g)
            }
            TryAction::Flip(flip) => {
                let mut file = scenario.file.clone();
                match flip {
                    Flip::Idempotence | Flip::Acks => {
                        let mut flipped = 0;
                        for p in file
                            .producers
                            .iter_mut()
                            .filter(|p| p.transactional_id.is_none())
                        {
                            if *flip == Flip::Idempotence {
                                p.enable_idempotence = Some(!idempotence_of(p));
                            } else {
                                p.acks = Some(if acks_of(p) == "all" {
                                    AcksValue::Number(1)
                                } else {
                                    AcksValue::Text("all".into())
                                });
                            }
                            flipped += 1;
                        }
                        if flipped == 0 {
                            return Err(refused(
                                "producers",
                                "the scenario has no non-transactional producer",
                            ));
                        }
                    }
                    Flip::Isolation | Flip::OffsetReset => {
                        if file.consumers.is_empty() {
                            return Err(refused("consumers", "the scenario has no consumer"));
                        }
                        for c in &mut file.consumers {
                            if *flip == Flip::Isolation {
                                c.isolation = Some(if isolation_of(c) == "read_committed" {
                                    "read_uncommitted".into()
                                } else {
                                    "read_committed".into()
                                });
                            } else {
                                c.auto_offset_reset = Some(if offset_reset_of(c) == "latest" {
                                    "earliest".into()
                                } else {
                                    "latest".into()
                                });
                            }
                        }
                    }
                    Flip::Unaligned | Flip::Checkpointing => {
                        let Some(f) = file.flink.as_mut() else {
                            return Err(refused("flink", "the scenario has no Flink job"));
                        };
                        if *flip == Flip::Unaligned {
                            f.unaligned = !f.unaligned;
                            // An aligned timeout exists only with unaligned checkpoints on:
                            // aligned means aligned throughout.
                            if !f.unaligned {
                                f.aligned_checkpoint_timeout_ms = None;
                            }
                        } else {
                            f.checkpointing = if f.checkpointing == "at-least-once" {
                                "exactly-once".into()
                            } else {
                                "at-least-once".into()
                            };
                            // Unaligned checkpoints exist only under exactly-once.
                            f.unaligned = false;
                            f.aligned_checkpoint_timeout_ms = None;
                        }
                    }
                    Flip::MinInsync | Flip::UncleanElection => {
                        let replicated =
                            file.topics.iter_mut().filter(|t| t.replication_factor >= 2);
                        let mut flipped = 0;
                        for t in replicated {
                            if *flip == Flip::MinInsync {
                                t.min_insync_replicas =
                                    if t.min_insync_replicas == 1 { 2 } else { 1 };
                            } else {
                                t.unclean_leader_election = !t.unclean_leader_election;
                            }
                            flipped += 1;
                        }
                        if flipped == 0 {
                            return Err(refused(
                                "topics",
                                "the scenario has no topic with replication_factor 2 or more",
                            ));
                        }
                    }
                    Flip::TransactionProtocol => {
                        file.cluster.transaction_protocol =
                            if file.cluster.transaction_protocol == 1 {
                                2
                            } else {
                                1
                            };
                    }
                }
                Scenario::from_file(file)
            }
        }
    }
}
