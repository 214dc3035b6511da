//! The scenario file as written. Unknown fields are rejected everywhere; ranges and cross
//! references are checked by `build`.

use crate::lesson::Lang;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

fn default_seed() -> u64 {
    1
}
fn is_one_u8(n: &u8) -> bool {
    *n == 1
}

fn one_u8() -> u8 {
    1
}
fn one_u16() -> u16 {
    1
}
fn one_u32() -> u32 {
    1
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub version: u32,
    pub name: String,
    #[serde(default)]
    pub title: String,
    /// One line for the scenario picker.
    #[serde(default)]
    pub summary: String,
    /// The title in Russian, for the playground in Russian (the English one otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title_ru: Option<String>,
    /// The summary in Russian, likewise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_ru: Option<String>,
    /// Where the picker files it ("Idempotent producer", "Replication", ...).
    #[serde(default)]
    pub group: String,
    #[serde(default = "default_seed")]
    pub seed: u64,
    #[serde(default)]
    pub cluster: ClusterSpec,
    #[serde(default)]
    pub network: NetworkSpec,
    pub topics: Vec<TopicSpec>,
    #[serde(default)]
    pub producers: Vec<ProducerSpec>,
    #[serde(default)]
    pub consumers: Vec<ConsumerSpec>,
    #[serde(default)]
    pub processors: Vec<ProcessorSpec>,
    /// A Flink job (checkpointing settings and operators).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flink: Option<super::flink_spec::FlinkSpec>,
    #[serde(default)]
    pub faults: Vec<FaultSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<ExpectSpec>,
    #[serde(default)]
    pub limits: LimitsSpec,
}

impl ScenarioFile {
    /// The title in `lang`; the English one where there is no translation.
    pub fn title_in(&self, lang: Lang) -> &str {
        in_lang(&self.title, self.title_ru.as_deref(), lang)
    }

    /// The summary in `lang`; the English one where there is no translation.
    pub fn summary_in(&self, lang: Lang) -> &str {
        in_lang(&self.summary, self.summary_ru.as_deref(), lang)
    }
}

/// `en`, or `ru` when Russian is asked for and given.
pub fn in_lang<'a>(en: &'a str, ru: Option<&'a str>, lang: Lang) -> &'a str {
    match (lang, ru) {
        (Lang::Ru, Some(ru)) if !ru.trim().is_empty() => ru,
        _ => en,
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSpec {
    #[serde(default = "one_u8")]
    pub brokers: u8,
    /// Transaction protocol version: 2 (Kafka 4.x default, epoch bumped at every EndTxn) or
    /// 1 (no bump: a late EndTxn or produce can leak into the next transaction).
    #[serde(default = "two_u8")]
    pub transaction_protocol: u8,
    /// `transaction.abort.timed.out.transaction.cleanup.interval.ms`: how often each
    /// transaction coordinator looks for transactions past their timeout (Kafka's default
    /// 10000), so a transaction is aborted up to this long after its timeout runs out.
    #[serde(default = "default_timeout_scan_interval")]
    pub transaction_abort_timed_out_transaction_cleanup_interval_ms: u64,
    /// KRaft's `broker.session.timeout.ms` (default 9000): the controller fences a crashed
    /// broker, and moves the leadership of the partitions it led, only this long after the
    /// crash (or when it registers again after a restart). 0: at once.
    #[serde(default = "default_broker_session_timeout")]
    pub broker_session_timeout_ms: u64,
    /// `replica.lag.time.max.ms` (default 30000): a partition leader takes a follower that
    /// has lacked some of its records for longer than this out of the ISR.
    #[serde(default = "default_replica_lag_time_max")]
    pub replica_lag_time_max_ms: u64,
}

fn default_replica_lag_time_max() -> u64 {
    crate::kafka::isr_expiry::DEFAULT_REPLICA_LAG_TIME_MAX_MS
}

fn default_broker_session_timeout() -> u64 {
    9_000
}

fn default_timeout_scan_interval() -> u64 {
    crate::kafka::txn_coordinator::DEFAULT_TIMEOUT_SCAN_INTERVAL_MS
}

fn two_u8() -> u8 {
    2
}

impl Default for ClusterSpec {
    fn default() -> Self {
        ClusterSpec {
            brokers: 1,
            transaction_protocol: 2,
            transaction_abort_timed_out_transaction_cleanup_interval_ms:
                default_timeout_scan_interval(),
            broker_session_timeout_ms: default_broker_session_timeout(),
            replica_lag_time_max_ms: default_replica_lag_time_max(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSpec {
    #[serde(default = "default_latency")]
    pub latency_us: u64,
    #[serde(default)]
    pub jitter_us: u64,
    #[serde(default)]
    pub loss_per_million: u32,
    /// Lose this many append acknowledgements per million (the batch is stored).
    #[serde(default)]
    pub ack_loss_per_million: u32,
}

fn default_latency() -> u64 {
    1_000
}

impl Default for NetworkSpec {
    fn default() -> Self {
        NetworkSpec {
            latency_us: default_latency(),
            jitter_us: 0,
            loss_per_million: 0,
            ack_loss_per_million: 0,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicSpec {
    pub name: String,
    #[serde(default = "one_u16")]
    pub partitions: u16,
    #[serde(default = "one_u8")]
    pub replication_factor: u8,
    /// `min.insync.replicas`: an `acks=all` write needs this many in-sync replicas.
    #[serde(default = "one_u8", skip_serializing_if = "is_one_u8")]
    pub min_insync_replicas: u8,
    /// `unclean.leader.election.enable`: with no in-sync replica alive, the controller may
    /// elect one that is not in sync (and what it lacks is lost).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unclean_leader_election: bool,
}

/// `acks` as Kafka users write it: `0`, `1`, `-1`, `"all"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AcksValue {
    Number(i64),
    Text(String),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProducerSpec {
    pub name: String,
    /// `java` or `librdkafka`: whose defaults apply.
    #[serde(default = "default_client")]
    pub client: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_idempotence: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acks: Option<AcksValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_in_flight_requests_per_connection: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_timeout_ms: Option<u64>,
    /// Java's name for the bound on a whole send.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery_timeout_ms: Option<u64>,
    /// librdkafka's name for the same bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_timeout_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_backoff_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_backoff_max_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linger_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_max_records: Option<u32>,
    /// After a crash, the application sends again what it never saw acknowledged (for a
    /// transactional producer: it runs its unfinished transaction again).
    #[serde(default)]
    pub resend_unconfirmed_on_restart: bool,
    /// When the application starts (and its producer initialises: InitProducerId for an
    /// idempotent or transactional one). A send due earlier goes out at the start.
    #[serde(default)]
    pub start_ms: u64,
    #[serde(default)]
    pub sends: Vec<SendSpecFile>,
    /// `transactional.id`: makes the producer transactional (idempotence on, acks=all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transactional_id: Option<String>,
    /// `transaction.timeout.ms` (producer default 60000; broker maximum 900000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_timeout_ms: Option<u64>,
    /// The transactions a transactional producer runs, one after another.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transactions: Vec<TransactionSpec>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransactionSpec {
    /// Not before this time (it begins once the previous one has ended).
    #[serde(default)]
    pub at_ms: u64,
    /// `commit` or `abort`: how the application ends it.
    #[serde(default = "default_end")]
    pub end: String,
    pub sends: Vec<SendSpecFile>,
}

fn default_end() -> String {
    "commit".into()
}

fn default_client() -> String {
    "java".into()
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SendSpecFile {
    #[serde(default)]
    pub at_ms: u64,
    pub topic: String,
    /// Every record carries this key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Record i carries the key `{key_prefix}{i}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_prefix: Option<String>,
    /// An explicit partition (otherwise the key's murmur2, or sticky for null keys).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<u16>,
    #[serde(default = "one_u32")]
    pub count: u32,
    #[serde(default)]
    pub interval_us: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsumerSpec {
    pub name: String,
    #[serde(default = "default_client")]
    pub client: String,
    pub topic: String,
    /// Defaults to every partition of the topic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitions: Option<Vec<u16>>,
    /// `read_uncommitted` or `read_committed`; defaults to the client's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<String>,
    #[serde(default)]
    pub start_ms: u64,
    #[serde(default = "default_poll")]
    pub poll_interval_ms: u64,
    #[serde(default = "default_empty_polls")]
    pub max_empty_polls: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_ms: Option<u64>,
    /// The consumer group (`group.id`): positions are committed to it and resumed from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// `enable.auto.commit` (with a group; default true, as in both clients).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_auto_commit: Option<bool>,
    /// `auto.commit.interval.ms` (default 5000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_commit_interval_ms: Option<u64>,
    /// `auto.offset.reset`: `earliest` (the default here), `latest` (the Java client's
    /// default) or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_offset_reset: Option<String>,
}

fn default_poll() -> u64 {
    100
}
fn default_empty_polls() -> u32 {
    3
}

/// A read-process-write application: input topic → one output per record → output topic.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProcessorSpec {
    pub name: String,
    /// `at-most-once`, `at-least-once` or `exactly-once`.
    pub guarantee: String,
    pub input: String,
    /// Defaults to every partition of the input topic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partitions: Option<Vec<u16>>,
    pub output: String,
    /// The consumer group (defaults to the processor's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default)]
    pub start_ms: u64,
    #[serde(default = "default_poll")]
    pub poll_interval_ms: u64,
    #[serde(default = "default_processor_empty_polls")]
    pub max_empty_polls: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_timeout_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transaction_timeout_ms: Option<u64>,
    /// Kafka Streams' `commit.interval.ms`: unset, every poll's batch is committed at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit_interval_ms: Option<u64>,
    /// The output producer's `enable.idempotence`. At-least-once leaves it off (SEMANTICS
    /// §1); it can be turned on, which removes the retry duplicates but not the replayed
    /// ones. Exactly-once needs it and at-most-once (acks=1, no retries) cannot have it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_idempotence: Option<bool>,
}

fn default_processor_empty_polls() -> u32 {
    5
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultSpec {
    pub at_ms: u64,
    /// freeze, crash, restart, drop, delay, duplicate, drop_on_wire, delay_on_wire, lose_ack,
    /// corrupt, partition, heal
    pub action: String,
    /// The process for freeze, crash, restart, partition and heal: `broker-0`, or a
    /// producer's or consumer's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The other end, for partition and heal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_after_ms: Option<u64>,
    /// Message filters, for drop, delay, duplicate, drop_on_wire and delay_on_wire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_ms: Option<u64>,
    #[serde(default = "one_u32")]
    pub count: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicates: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aborted_reads: Option<u64>,
    /// Anomaly kinds that must be found (`duplicate`, `lost-write`, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anomalies: Vec<String>,
    /// Anomaly kinds that must not be found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub no_anomalies: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deliveries: Vec<ExpectDelivery>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reads: BTreeMap<String, ExpectRead>,
    /// A Flink job's outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flink: Option<ExpectFlink>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectFlink {
    /// Against the failure-free run: records lost and duplicated, keys whose state differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicated: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys_differ: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failovers: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_completed: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expired: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectDelivery {
    /// The record's index in the scenario: records are numbered in file order, producer by
    /// producer and send by send, from 0 (record 3 is printed as `v3`).
    pub record: u32,
    /// A `[[processors]]` name: the expectation is then on that processor's output of input
    /// `record`, not on the input itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_attempts: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivered_after_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivered_before_ms: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectRead {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub records: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<String>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsSpec {
    #[serde(default = "default_max_steps")]
    pub max_steps: u64,
}

fn default_max_steps() -> u64 {
    super::limits::DEFAULT_MAX_STEPS
}

impl Default for LimitsSpec {
    fn default() -> Self {
        LimitsSpec {
            max_steps: default_max_steps(),
        }
    }
}
