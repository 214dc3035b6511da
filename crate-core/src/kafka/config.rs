//! Client configuration: the Java client's and librdkafka's real defaults, overridden by what
//! a scenario sets, then checked the way the clients check them.

use super::{Acks, Isolation, MAX_IN_FLIGHT_FOR_IDEMPOTENCE};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientKind {
    /// The Apache Kafka Java client (4.x).
    Java,
    /// librdkafka (and confluent-kafka-python, which wraps it).
    Librdkafka,
}

impl ClientKind {
    pub fn name(self) -> &'static str {
        match self {
            ClientKind::Java => "java",
            ClientKind::Librdkafka => "librdkafka",
        }
    }

    /// What the client calls the bound on a whole send.
    pub fn delivery_timeout_name(self) -> &'static str {
        match self {
            ClientKind::Java => "delivery.timeout.ms",
            ClientKind::Librdkafka => "message.timeout.ms",
        }
    }

    pub fn default_isolation(self) -> Isolation {
        match self {
            ClientKind::Java => Isolation::ReadUncommitted,
            ClientKind::Librdkafka => Isolation::ReadCommitted,
        }
    }
}

/// A producer's effective configuration.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProducerConfig {
    pub client: ClientKind,
    pub enable_idempotence: bool,
    pub acks: Acks,
    pub retries: u32,
    pub max_in_flight: u32,
    pub request_timeout_ms: u64,
    pub delivery_timeout_ms: u64,
    pub retry_backoff_ms: u64,
    pub retry_backoff_max_ms: u64,
    pub linger_ms: u64,
    /// Records per batch: our stand-in for `batch.size` (bytes in Kafka).
    pub batch_max_records: u32,
}

/// What a scenario may override; `None` keeps the client's default.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProducerOverrides {
    pub enable_idempotence: Option<bool>,
    pub acks: Option<Acks>,
    pub retries: Option<u32>,
    pub max_in_flight: Option<u32>,
    pub request_timeout_ms: Option<u64>,
    pub delivery_timeout_ms: Option<u64>,
    pub retry_backoff_ms: Option<u64>,
    pub retry_backoff_max_ms: Option<u64>,
    pub linger_ms: Option<u64>,
    pub batch_max_records: Option<u32>,
}

/// `retries` = `Integer.MAX_VALUE` in both clients.
pub const RETRIES_MAX: u32 = i32::MAX as u32;

impl ProducerConfig {
    pub fn defaults(client: ClientKind) -> Self {
        match client {
            ClientKind::Java => ProducerConfig {
                client,
                enable_idempotence: true,
                acks: Acks::All,
                retries: RETRIES_MAX,
                max_in_flight: 5,
                request_timeout_ms: 30_000,
                delivery_timeout_ms: 120_000,
                retry_backoff_ms: 100,
                retry_backoff_max_ms: 1_000,
                linger_ms: 5,
                batch_max_records: 16,
            },
            ClientKind::Librdkafka => ProducerConfig {
                client,
                enable_idempotence: false,
                acks: Acks::All,
                retries: RETRIES_MAX,
                max_in_flight: 1_000_000,
                request_timeout_ms: 30_000,
                delivery_timeout_ms: 300_000,
                retry_backoff_ms: 100,
                retry_backoff_max_ms: 1_000,
                linger_ms: 5,
                batch_max_records: 16,
            },
        }
    }

    /// Applies overrides and checks the result as the client would at construction.
    pub fn resolve(client: ClientKind, o: &ProducerOverrides) -> Result<Self, String> {
        let mut c = ProducerConfig::defaults(client);
        c.acks = o.acks.unwrap_or(c.acks);
        c.retries = o.retries.unwrap_or(c.retries);
        // Kafka ≥ 3.2 (KIP-679 follow-up): idempotence that is on only by default is turned
        // off, not refused, when acks, retries or max.in.flight conflict with it. Set
        // explicitly, the same conflict is a ConfigException.
        let conflicts = c.acks != Acks::All
            || c.retries == 0
            || o.max_in_flight
                .is_some_and(|n| n > MAX_IN_FLIGHT_FOR_IDEMPOTENCE);
        let idempotence = match o.enable_idempotence {
            Some(explicit) => explicit,
            None => c.enable_idempotence && !conflicts,
        };
        c.enable_idempotence = idempotence;
        c.request_timeout_ms = o.request_timeout_ms.unwrap_or(c.request_timeout_ms);
        c.delivery_timeout_ms = o.delivery_timeout_ms.unwrap_or(c.delivery_timeout_ms);
        c.retry_backoff_ms = o.retry_backoff_ms.unwrap_or(c.retry_backoff_ms);
        c.retry_backoff_max_ms = o
            .retry_backoff_max_ms
            .unwrap_or(c.retry_backoff_max_ms)
            .max(c.retry_backoff_ms);
        c.linger_ms = o.linger_ms.unwrap_or(c.linger_ms);
        c.batch_max_records = o.batch_max_records.unwrap_or(c.batch_max_records);
        c.max_in_flight = match o.max_in_flight {
            Some(n) => n,
            // librdkafka lowers its default for idempotence by itself; Java's default is 5.
            None if idempotence => c.max_in_flight.min(MAX_IN_FLIGHT_FOR_IDEMPOTENCE),
            None => c.max_in_flight,
        };
        if idempotence {
            if c.max_in_flight > MAX_IN_FLIGHT_FOR_IDEMPOTENCE {
                return Err(format!(
                    "ConfigException: Must set max.in.flight.requests.per.connection to at most 5 \
                     to use the idempotent producer (it is {}).",
                    c.max_in_flight
                ));
            }
            if c.acks != Acks::All {
                return Err(format!(
                    "ConfigException: Must set acks to all in order to use the idempotent \
                     producer. Otherwise we cannot guarantee idempotence (acks is {}).",
                    c.acks.as_config()
                ));
            }
            if c.retries == 0 {
                return Err(
                    "ConfigException: Must set retries to non-zero when using the idempotent \
                     producer."
                        .into(),
                );
            }
        }
        if c.max_in_flight == 0 {
            return Err("max.in.flight.requests.per.connection must be at least 1".into());
        }
        if client == ClientKind::Java
            && c.delivery_timeout_ms < c.linger_ms.saturating_add(c.request_timeout_ms)
        {
            return Err(format!(
                "ConfigException: delivery.timeout.ms should be equal to or larger than \
                 linger.ms + request.timeout.ms ({} < {} + {}).",
                c.delivery_timeout_ms, c.linger_ms, c.request_timeout_ms
            ));
        }
        Ok(c)
    }

    /// Kafka's exponential backoff: `retry.backoff.ms × 2^(attempt-1)`, capped at
    /// `retry.backoff.max.ms`. Jitter (±20%) is added by the simulation's RNG.
    pub fn backoff_ms(&self, failed_attempts: u32) -> u64 {
        let exp = failed_attempts.saturating_sub(1).min(32);
        self.retry_backoff_ms
            .saturating_mul(1u64 << exp)
            .min(self.retry_backoff_max_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_carry_the_real_defaults() {
        let java = ProducerConfig::defaults(ClientKind::Java);
        assert!(java.enable_idempotence);
        assert_eq!(java.acks, Acks::All);
        assert_eq!(java.max_in_flight, 5);
        assert_eq!(java.delivery_timeout_ms, 120_000);
        let rd = ProducerConfig::defaults(ClientKind::Librdkafka);
        assert!(!rd.enable_idempotence);
        assert_eq!(rd.delivery_timeout_ms, 300_000);
    }

    #[test]
    fn idempotence_with_more_than_five_in_flight_is_refused_as_kafka_words_it() {
        let err = ProducerConfig::resolve(
            ClientKind::Java,
            &ProducerOverrides {
                enable_idempotence: Some(true),
                max_in_flight: Some(6),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(err.contains("max.in.flight.requests.per.connection to at most 5"));
    }

    #[test]
    fn explicit_idempotence_needs_acks_all() {
        let err = ProducerConfig::resolve(
            ClientKind::Java,
            &ProducerOverrides {
                enable_idempotence: Some(true),
                acks: Some(Acks::Leader),
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(err.contains("acks to all"));
    }

    #[test]
    fn default_idempotence_quietly_yields_to_conflicting_settings() {
        for o in [
            ProducerOverrides {
                acks: Some(Acks::Leader),
                ..Default::default()
            },
            ProducerOverrides {
                retries: Some(0),
                ..Default::default()
            },
            ProducerOverrides {
                max_in_flight: Some(10),
                ..Default::default()
            },
        ] {
            let c = ProducerConfig::resolve(ClientKind::Java, &o).expect("accepted");
            assert!(!c.enable_idempotence, "{o:?}");
        }
    }

    #[test]
    fn librdkafka_idempotence_lowers_in_flight_by_itself() {
        let c = ProducerConfig::resolve(
            ClientKind::Librdkafka,
            &ProducerOverrides {
                enable_idempotence: Some(true),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(c.max_in_flight, 5);
    }

    #[test]
    fn backoff_doubles_up_to_the_maximum() {
        let c = ProducerConfig::defaults(ClientKind::Java);
        assert_eq!(c.backoff_ms(1), 100);
        assert_eq!(c.backoff_ms(2), 200);
        assert_eq!(c.backoff_ms(4), 800);
        assert_eq!(c.backoff_ms(5), 1_000);
        assert_eq!(c.backoff_ms(500), 1_000);
    }
}
