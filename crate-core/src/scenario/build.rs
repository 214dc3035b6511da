//! Validates a scenario file and builds the simulation's starting point. Every error names
//! the field, the value and what is allowed; all errors are reported at once.

use super::error::{FieldError, ScenarioError};
use super::limits::*;
use super::schema::{AcksValue, FaultSpec, ScenarioFile};
use crate::ids::{NodeId, Tp};
use crate::kafka::broker::Broker;
use crate::kafka::config::{ClientKind, ProducerConfig, ProducerOverrides};
use crate::kafka::consumer::{Consumer, ConsumerSettings};
use crate::kafka::producer::{KeyPlan, Producer, SendSpec};
use crate::kafka::protocol::MessageKind;
use crate::kafka::replica::Replica;
use crate::kafka::txn_client::{TxnClient, TxnWork};
use crate::kafka::txn_state::{TxnProtocolVersion, TRANSACTION_MAX_TIMEOUT_MS};
use crate::kafka::{Acks, Isolation, OffsetReset};
use crate::net::NetworkConfig;
use crate::sim::fault::{Fault, MessageMatch, ScheduledFault};
use crate::sim::names::{KeyRange, Names};
use crate::sim::simulation::Setup;
use crate::time::ms;
use crate::vec_map::VecMap;

#[derive(Default)]
struct Checker {
    errors: Vec<FieldError>,
}

impl Checker {
    fn err(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.errors.push(FieldError {
            field: field.into(),
            message: message.into(),
        });
    }

    fn range<T: PartialOrd + std::fmt::Display + Copy>(&mut self, field: &str, v: T, lo: T, hi: T) {
        if v < lo || v > hi {
            self.err(
                field,
                format!("{v} is out of range (allowed: {lo} to {hi})"),
            );
        }
    }

    /// The polling settings consumers and processors share.
    fn polling(&mut self, f: &str, start_ms: u64, poll_interval_ms: u64, max_empty_polls: u32) {
        self.range(&format!("{f}.start_ms"), start_ms, 0, MAX_TIME_MS);
        self.range(
            &format!("{f}.poll_interval_ms"),
            poll_interval_ms,
            1,
            MAX_TIMEOUT_MS,
        );
        self.range(&format!("{f}.max_empty_polls"), max_empty_polls, 1, 10_000);
    }

    fn name(&mut self, field: &str, v: &str) {
        if v.trim().is_empty() {
            self.err(field, "must not be empty");
        } else if v.chars().count() > MAX_NAME_CHARS {
            self.err(field, format!("is longer than {MAX_NAME_CHARS} characters"));
        }
    }

    fn text(&mut self, field: &str, v: &str) {
        if v.chars().count() > MAX_TEXT_CHARS {
            self.err(field, format!("is longer than {MAX_TEXT_CHARS} characters"));
        }
    }
}

fn client(c: &mut Checker, field: &str, v: &str) -> ClientKind {
    match v {
        "java" => ClientKind::Java,
        "librdkafka" => ClientKind::Librdkafka,
        other => {
            c.err(
                field,
                format!("\"{other}\" is not a client (allowed: \"java\", \"librdkafka\")"),
            );
            ClientKind::Java
        }
    }
}

fn acks(c: &mut Checker, field: &str, v: &AcksValue) -> Acks {
    match v {
        AcksValue::Number(0) => Acks::None,
        AcksValue::Number(1) => Acks::Leader,
        AcksValue::Number(-1) => Acks::All,
        AcksValue::Text(t) if t == "all" || t == "-1" => Acks::All,
        AcksValue::Text(t) if t == "0" => Acks::None,
        AcksValue::Text(t) if t == "1" => Acks::Leader,
        other => {
            let shown = match other {
                AcksValue::Number(n) => n.to_string(),
                AcksValue::Text(t) => format!("\"{t}\""),
            };
            c.err(
                field,
                format!("{shown} is not an acks setting (allowed: 0, 1, \"all\")"),
            );
            Acks::All
        }
    }
}

/// Resolves a process name: `broker-N`, or a producer's or consumer's name.
fn node(file: &ScenarioFile, name: &str) -> Option<NodeId> {
    if let Some(n) = name
        .strip_prefix("broker-")
        .or_else(|| name.strip_prefix("broker "))
    {
        let id: u8 = n.parse().ok()?;
        return (id < file.cluster.brokers).then_some(NodeId::Broker(id));
    }
    if let Some(i) = file.producers.iter().position(|p| p.name == name) {
        return Some(NodeId::Producer(i as u8));
    }
    if let Some(i) = file.consumers.iter().position(|p| p.name == name) {
        return Some(NodeId::Consumer(i as u8));
    }
    if let Some(i) = file.processors.iter().position(|p| p.name == name) {
        return Some(NodeId::Processor(i as u8));
    }
    if name == "jobmanager" && file.flink.is_some() {
        return Some(NodeId::JobManager);
    }
    let tasks = file
        .flink
        .as_ref()
        .map(super::build_flink::task_names)
        .unwrap_or_default();
    tasks
        .iter()
        .position(|t| t == name)
        .map(|i| NodeId::Task(i as u8))
}

/// The JobManager's own failure is not modelled: Flink recovers it with high availability (a
/// standby takes leadership and restores the job from its latest completed checkpoint), and
/// a crash the run never recovered would leave the job unstoppable.
fn not_the_jobmanager(c: &mut Checker, f: &str, node: Option<NodeId>) -> Option<NodeId> {
    if node == Some(NodeId::JobManager) {
        c.err(
            format!("{f}.target"),
            "the JobManager cannot crash or restart here: its failure (Flink's high-availability \
             failover) is not modelled; crash a task or a taskmanager to fail the job over, or \
             freeze the JobManager to pause its coordination",
        );
        return None;
    }
    node
}

pub fn build(file: &ScenarioFile) -> Result<Setup, ScenarioError> {
    let mut c = Checker::default();
    if file.version != 1 {
        c.err(
            "version",
            format!("{} is not supported (allowed: 1)", file.version),
        );
    }
    c.name("name", &file.name);
    c.text("title", &file.title);
    c.text("summary", &file.summary);
    c.text("title_ru", file.title_ru.as_deref().unwrap_or_default());
    c.text("summary_ru", file.summary_ru.as_deref().unwrap_or_default());
    c.text("group", &file.group);
    c.range("cluster.brokers", file.cluster.brokers, 1, MAX_BROKERS);
    let brokers = file.cluster.brokers.clamp(1, MAX_BROKERS);
    let scan_interval_ms = file
        .cluster
        .transaction_abort_timed_out_transaction_cleanup_interval_ms;
    c.range(
        "cluster.broker_session_timeout_ms",
        file.cluster.broker_session_timeout_ms,
        0,
        MAX_TIMEOUT_MS,
    );
    c.range(
        "cluster.replica_lag_time_max_ms",
        file.cluster.replica_lag_time_max_ms,
        1,
        MAX_TIMEOUT_MS,
    );
    c.range(
        "cluster.transaction_abort_timed_out_transaction_cleanup_interval_ms",
        scan_interval_ms,
        1,
        MAX_TIMEOUT_MS,
    );
    c.range(
        "network.latency_us",
        file.network.latency_us,
        0,
        MAX_LATENCY_US,
    );
    c.range(
        "network.jitter_us",
        file.network.jitter_us,
        0,
        MAX_LATENCY_US,
    );
    c.range(
        "network.loss_per_million",
        file.network.loss_per_million,
        0,
        1_000_000,
    );
    c.range("limits.max_steps", file.limits.max_steps, 1, MAX_STEPS);

    // Topics and partition assignment (Kafka's round-robin: replica k of partition p on
    // broker (p + k) mod brokers; the first is the preferred leader).
    if file.topics.is_empty() {
        c.err("topics", "at least one topic is needed");
    }
    if file.topics.len() > MAX_TOPICS {
        c.err(
            "topics",
            format!("{} topics; the limit is {MAX_TOPICS}", file.topics.len()),
        );
    }
    let protocol = match file.cluster.transaction_protocol {
        1 => TxnProtocolVersion::V1,
        2 => TxnProtocolVersion::V2,
        other => {
            c.err(
                "cluster.transaction_protocol",
                format!("{other} is not a transaction protocol version (allowed: 1, 2)"),
            );
            TxnProtocolVersion::V2
        }
    };
    let mut broker_list: Vec<Broker> = (0..brokers)
        .map(|b| {
            Broker::new(
                b,
                brokers,
                protocol,
                scan_interval_ms.clamp(1, MAX_TIMEOUT_MS),
            )
            .with_replica_lag_time_max_ms(
                file.cluster
                    .replica_lag_time_max_ms
                    .clamp(1, MAX_TIMEOUT_MS),
            )
        })
        .collect();
    let mut leaders: VecMap<Tp, u8> = VecMap::new();
    let mut topic_index: VecMap<&str, (u16, u16)> = VecMap::new();
    for (ti, t) in file.topics.iter().enumerate().take(MAX_TOPICS) {
        let f = format!("topics[{ti}]");
        c.name(&format!("{f}.name"), &t.name);
        if topic_index.contains_key(t.name.as_str()) {
            c.err(
                format!("{f}.name"),
                format!("\"{}\" is declared twice", t.name),
            );
        }
        c.range(&format!("{f}.partitions"), t.partitions, 1, MAX_PARTITIONS);
        if t.replication_factor < 1 || t.replication_factor > brokers {
            c.err(
                format!("{f}.replication_factor"),
                format!(
                    "{} is out of range (allowed: 1 to {brokers}, the number of brokers)",
                    t.replication_factor
                ),
            );
        }
        let partitions = t.partitions.clamp(1, MAX_PARTITIONS);
        let rf = t.replication_factor.clamp(1, brokers);
        if t.min_insync_replicas < 1 || t.min_insync_replicas > rf {
            c.err(
                format!("{f}.min_insync_replicas"),
                format!(
                    "{} is out of range (allowed: 1 to {rf}, the topic's replication_factor)",
                    t.min_insync_replicas
                ),
            );
        }
        topic_index.insert(t.name.as_str(), (ti as u16, partitions));
        for p in 0..partitions {
            let tp = Tp {
                topic: ti as u16,
                partition: p,
            };
            let replicas: Vec<u8> = (0..rf)
                .map(|k| ((u32::from(p) + u32::from(k)) % u32::from(brokers)) as u8)
                .collect();
            leaders.insert(tp, replicas[0]);
            for b in broker_list.iter_mut() {
                b.leaders.insert(tp, Some(replicas[0]));
            }
            for b in &replicas {
                let mut replica = Replica::new(tp, replicas.clone());
                replica.min_insync = t.min_insync_replicas.clamp(1, rf);
                replica.unclean_election = t.unclean_leader_election;
                broker_list[usize::from(*b)].replicas.insert(tp, replica);
            }
        }
    }

    // Process names must be unique and must not look like brokers.
    let mut seen_names: VecMap<&str, String> = VecMap::new();
    let all_names = file
        .producers
        .iter()
        .enumerate()
        .map(|(i, p)| (format!("producers[{i}].name"), p.name.as_str()))
        .chain(
            file.consumers
                .iter()
                .enumerate()
                .map(|(i, p)| (format!("consumers[{i}].name"), p.name.as_str())),
        )
        .chain(
            file.processors
                .iter()
                .enumerate()
                .map(|(i, p)| (format!("processors[{i}].name"), p.name.as_str())),
        );
    for (field, name) in all_names {
        c.name(&field, name);
        if name.starts_with("broker") {
            c.err(&field, format!("\"{name}\" is reserved for brokers"));
        }
        if let Some(first) = seen_names.insert(name, field.clone()) {
            c.err(&field, format!("\"{name}\" is already the name of {first}"));
        }
    }

    let mut names = Names {
        producers: file.producers.iter().map(|p| p.name.clone()).collect(),
        consumers: file.consumers.iter().map(|p| p.name.clone()).collect(),
        processors: file.processors.iter().map(|p| p.name.clone()).collect(),
        topics: file.topics.iter().map(|t| t.name.clone()).collect(),
        keys: Vec::new(),
        outputs: Vec::new(),
        tasks: file
            .flink
            .as_ref()
            .map(super::build_flink::task_names)
            .unwrap_or_default(),
    };
    let mut fixed_keys: VecMap<String, u32> = VecMap::new();
    let mut next_key: u32 = 0;

    if file.producers.len() > MAX_PRODUCERS {
        c.err(
            "producers",
            format!(
                "{} producers; the limit is {MAX_PRODUCERS}",
                file.producers.len()
            ),
        );
    }
    let mut producers = Vec::new();
    let mut total_records: u64 = 0;
    for (pi, p) in file.producers.iter().enumerate().take(MAX_PRODUCERS) {
        let f = format!("producers[{pi}]");
        let kind = client(&mut c, &format!("{f}.client"), &p.client);
        let acks_value = p
            .acks
            .as_ref()
            .map(|a| acks(&mut c, &format!("{f}.acks"), a));
        if p.delivery_timeout_ms.is_some() && p.message_timeout_ms.is_some() {
            c.err(
                format!("{f}.message_timeout_ms"),
                "set delivery_timeout_ms or message_timeout_ms, not both (they are the same bound)",
            );
        }
        let timeout_fields = [
            ("request_timeout_ms", p.request_timeout_ms),
            ("delivery_timeout_ms", p.delivery_timeout_ms),
            ("message_timeout_ms", p.message_timeout_ms),
            ("retry_backoff_ms", p.retry_backoff_ms),
            ("retry_backoff_max_ms", p.retry_backoff_max_ms),
        ];
        for (name, v) in timeout_fields {
            if let Some(v) = v {
                c.range(&format!("{f}.{name}"), v, 1, MAX_TIMEOUT_MS);
            }
        }
        if let Some(v) = p.linger_ms {
            c.range(&format!("{f}.linger_ms"), v, 0, MAX_TIMEOUT_MS);
        }
        if let Some(v) = p.max_in_flight_requests_per_connection {
            c.range(
                &format!("{f}.max_in_flight_requests_per_connection"),
                v,
                1,
                MAX_IN_FLIGHT,
            );
        }
        if let Some(v) = p.batch_max_records {
            c.range(&format!("{f}.batch_max_records"), v, 1, MAX_BATCH_RECORDS);
        }
        let overrides = ProducerOverrides {
            enable_idempotence: p.enable_idempotence,
            acks: acks_value,
            retries: p.retries.map(|r| r.min(crate::kafka::config::RETRIES_MAX)),
            max_in_flight: p.max_in_flight_requests_per_connection,
            request_timeout_ms: p.request_timeout_ms,
            delivery_timeout_ms: p.delivery_timeout_ms.or(p.message_timeout_ms),
            retry_backoff_ms: p.retry_backoff_ms,
            retry_backoff_max_ms: p.retry_backoff_max_ms,
            linger_ms: p.linger_ms,
            batch_max_records: p.batch_max_records,
        };
        let config = match ProducerConfig::resolve(kind, &overrides) {
            Ok(config) => config,
            Err(message) => {
                c.err(f.clone(), message);
                ProducerConfig::defaults(kind)
            }
        };
        if p.sends.len() > MAX_SENDS_PER_PRODUCER {
            c.err(
                format!("{f}.sends"),
                format!(
                    "{} entries; the limit is {MAX_SENDS_PER_PRODUCER}",
                    p.sends.len()
                ),
            );
        }
        if p.transactional_id.is_some() && !p.sends.is_empty() {
            c.err(
                format!("{f}.sends"),
                "a transactional producer sends inside transactions: use [[producers.transactions]]",
            );
        }
        if p.transactional_id.is_none() && !p.transactions.is_empty() {
            c.err(
                format!("{f}.transactions"),
                "transactions need a transactional_id",
            );
        }
        if let Some(id) = &p.transactional_id {
            c.name(&format!("{f}.transactional_id"), id);
        }
        if let Some(t) = p.transaction_timeout_ms {
            c.range(
                &format!("{f}.transaction_timeout_ms"),
                t,
                1,
                TRANSACTION_MAX_TIMEOUT_MS,
            );
        }
        let mut all_sends: Vec<(String, &super::schema::SendSpecFile, Option<usize>)> = p
            .sends
            .iter()
            .enumerate()
            .map(|(si, s)| (format!("{f}.sends[{si}]"), s, None))
            .collect();
        for (ti, t) in p.transactions.iter().enumerate() {
            c.range(
                &format!("{f}.transactions[{ti}].at_ms"),
                t.at_ms,
                0,
                MAX_TIME_MS,
            );
            if t.end != "commit" && t.end != "abort" {
                c.err(
                    format!("{f}.transactions[{ti}].end"),
                    format!(
                        "\"{}\" is not an ending (allowed: \"commit\", \"abort\")",
                        t.end
                    ),
                );
            }
            for (si, s) in t.sends.iter().enumerate() {
                all_sends.push((format!("{f}.transactions[{ti}].sends[{si}]"), s, Some(ti)));
            }
        }
        let mut specs = Vec::new();
        let mut txn_work: Vec<TxnWork> = p
            .transactions
            .iter()
            .map(|t| TxnWork {
                at: ms(t.at_ms.min(MAX_TIME_MS)),
                sends: Vec::new(),
                commit: t.end != "abort",
                explicit: Vec::new(),
                offsets: None,
            })
            .collect();
        for (sf, s, in_txn) in all_sends.into_iter().take(MAX_SENDS_PER_PRODUCER) {
            c.range(&format!("{sf}.at_ms"), s.at_ms, 0, MAX_TIME_MS);
            c.range(&format!("{sf}.count"), u64::from(s.count), 1, MAX_RECORDS);
            c.range(
                &format!("{sf}.interval_us"),
                s.interval_us,
                0,
                ms(MAX_TIME_MS),
            );
            // The last record's send time is within the day too, not only each number.
            let last_us = ms(s.at_ms.min(MAX_TIME_MS)).saturating_add(
                s.interval_us
                    .saturating_mul(u64::from(s.count.saturating_sub(1))),
            );
            if s.at_ms <= MAX_TIME_MS && last_us > ms(MAX_TIME_MS) {
                c.err(
                    format!("{sf}.interval_us"),
                    format!(
                        "sends its last record at {} ms (at_ms + (count - 1) × interval_us), \
                         past the limit of {MAX_TIME_MS} ms",
                        last_us / 1000
                    ),
                );
            }
            let Some(&(topic, partitions)) = topic_index.get(s.topic.as_str()) else {
                c.err(
                    format!("{sf}.topic"),
                    format!("\"{}\" is not a declared topic", s.topic),
                );
                continue;
            };
            if let Some(part) = s.partition {
                if part >= partitions {
                    c.err(
                        format!("{sf}.partition"),
                        format!(
                            "{part} is out of range (topic \"{}\" has partitions 0 to {})",
                            s.topic,
                            partitions - 1
                        ),
                    );
                }
            }
            let keys = match (&s.key, &s.key_prefix) {
                (Some(_), Some(_)) => {
                    c.err(
                        format!("{sf}.key_prefix"),
                        "set key or key_prefix, not both",
                    );
                    KeyPlan::Null
                }
                (Some(k), None) => {
                    c.text(&format!("{sf}.key"), k);
                    let key = *fixed_keys.entry(k.clone()).or_insert_with(|| {
                        let id = next_key;
                        next_key += 1;
                        names.keys.push(KeyRange {
                            first: id,
                            count: 1,
                            prefix: k.clone(),
                            distinct: false,
                        });
                        id
                    });
                    KeyPlan::Fixed {
                        key,
                        text: k.clone(),
                    }
                }
                (None, Some(prefix)) => {
                    c.text(&format!("{sf}.key_prefix"), prefix);
                    let first = next_key;
                    next_key = next_key.saturating_add(s.count);
                    names.keys.push(KeyRange {
                        first,
                        count: s.count,
                        prefix: prefix.clone(),
                        distinct: true,
                    });
                    KeyPlan::Distinct {
                        first_key: first,
                        prefix: prefix.clone(),
                    }
                }
                (None, None) => KeyPlan::Null,
            };
            let first_record = total_records.min(u64::from(u32::MAX)) as u32;
            total_records = total_records.saturating_add(u64::from(s.count));
            let spec = SendSpec {
                at: ms(s.at_ms.min(MAX_TIME_MS)),
                topic,
                partitions,
                partition: s.partition.filter(|p| *p < partitions),
                keys,
                count: s.count,
                interval: s.interval_us,
                first_record,
            };
            match in_txn.and_then(|ti| txn_work.get_mut(ti)) {
                Some(work) => work.sends.push(spec),
                None => specs.push(spec),
            }
        }
        c.range(&format!("{f}.start_ms"), p.start_ms, 0, MAX_TIME_MS);
        let mut producer = Producer::new(
            pi as u8,
            config,
            specs,
            leaders.clone(),
            brokers,
            p.resend_unconfirmed_on_restart,
        );
        producer.start_at = ms(p.start_ms.min(MAX_TIME_MS));
        producers.push(match &p.transactional_id {
            None => producer,
            Some(id) => producer.with_transactions(TxnClient::new(
                id.clone(),
                p.transaction_timeout_ms
                    .unwrap_or(crate::kafka::txn_state::DEFAULT_TRANSACTION_TIMEOUT_MS),
                crate::kafka::group_coordinator::coordinator_for(id, brokers),
                protocol,
                txn_work,
                p.resend_unconfirmed_on_restart,
            )),
        });
    }
    if total_records > MAX_RECORDS {
        c.err(
            "producers",
            format!("{total_records} records in all; the limit is {MAX_RECORDS}"),
        );
    }

    if file.consumers.len() > MAX_CONSUMERS {
        c.err(
            "consumers",
            format!(
                "{} consumers; the limit is {MAX_CONSUMERS}",
                file.consumers.len()
            ),
        );
    }
    let mut consumers = Vec::new();
    for (ci, s) in file.consumers.iter().enumerate().take(MAX_CONSUMERS) {
        let f = format!("consumers[{ci}]");
        let kind = client(&mut c, &format!("{f}.client"), &s.client);
        let isolation = match s.isolation.as_deref() {
            None => kind.default_isolation(),
            Some("read_uncommitted") => Isolation::ReadUncommitted,
            Some("read_committed") => Isolation::ReadCommitted,
            Some(other) => {
                c.err(
                    format!("{f}.isolation"),
                    format!("\"{other}\" is not an isolation level (allowed: \"read_uncommitted\", \"read_committed\")"),
                );
                Isolation::ReadUncommitted
            }
        };
        c.polling(&f, s.start_ms, s.poll_interval_ms, s.max_empty_polls);
        if let Some(stop) = s.stop_ms {
            c.range(&format!("{f}.stop_ms"), stop, s.start_ms, MAX_TIME_MS);
        }
        let Some(&(topic, partitions)) = topic_index.get(s.topic.as_str()) else {
            c.err(
                format!("{f}.topic"),
                format!("\"{}\" is not a declared topic", s.topic),
            );
            continue;
        };
        let wanted: Vec<u16> = s
            .partitions
            .clone()
            .unwrap_or_else(|| (0..partitions).collect());
        if wanted.is_empty() {
            c.err(
                format!("{f}.partitions"),
                "must name at least one partition",
            );
        }
        let mut assignments = Vec::new();
        for p in wanted {
            if p >= partitions {
                c.err(
                    format!("{f}.partitions"),
                    format!(
                        "{p} is out of range (topic \"{}\" has partitions 0 to {})",
                        s.topic,
                        partitions - 1
                    ),
                );
            } else if !assignments.contains(&Tp {
                topic,
                partition: p,
            }) {
                assignments.push(Tp {
                    topic,
                    partition: p,
                });
            }
        }
        if let Some(g) = &s.group {
            c.name(&format!("{f}.group"), g);
        }
        if let Some(i) = s.auto_commit_interval_ms {
            c.range(
                &format!("{f}.auto_commit_interval_ms"),
                i,
                1,
                MAX_TIMEOUT_MS,
            );
        }
        if s.group.is_none()
            && (s.enable_auto_commit == Some(true) || s.auto_commit_interval_ms.is_some())
        {
            c.err(
                format!("{f}.enable_auto_commit"),
                "committing offsets needs a group: set group",
            );
        }
        let offset_reset = match s.auto_offset_reset.as_deref() {
            None => OffsetReset::Earliest,
            Some(text) => OffsetReset::parse(text).unwrap_or_else(|| {
                c.err(
                    format!("{f}.auto_offset_reset"),
                    format!("\"{text}\" is not an auto.offset.reset policy (allowed: \"earliest\", \"latest\", \"none\")"),
                );
                OffsetReset::Earliest
            }),
        };
        let auto_commit = s.group.is_some() && s.enable_auto_commit.unwrap_or(true);
        consumers.push(Consumer::new(
            ci as u8,
            ConsumerSettings {
                assignments,
                isolation,
                start_at: ms(s.start_ms.min(MAX_TIME_MS)),
                poll_interval: ms(s.poll_interval_ms.max(1)),
                max_empty_polls: s.max_empty_polls.max(1),
                stop_at: s.stop_ms.map(ms),
                coordinator: s.group.as_deref().map_or(0, |g| {
                    crate::kafka::group_coordinator::coordinator_for(g, brokers)
                }),
                group: s.group.clone(),
                offset_reset,
                auto_commit_interval: auto_commit.then(|| {
                    ms(s.auto_commit_interval_ms
                        .unwrap_or(5_000)
                        .min(MAX_TIMEOUT_MS))
                }),
            },
            leaders.clone(),
            brokers,
        ));
    }

    if file.processors.len() > MAX_PROCESSORS {
        c.err(
            "processors",
            format!(
                "{} processors; the limit is {MAX_PROCESSORS}",
                file.processors.len()
            ),
        );
    }
    let inputs_total = total_records.min(MAX_RECORDS);
    // Where each stage numbers its outputs (stages.rs): a stage may read the output of an
    // earlier one, not of a later one (or its own), or its numbers would run out of range.
    let layout = super::stages::layout(file, inputs_total);
    let names_of_stage = |i: usize| match file.processors.get(i) {
        Some(p) => format!("processor \"{}\"", p.name),
        None => "the Flink job".to_string(),
    };
    for (i, topic, w) in super::stages::backwards(file) {
        let field = match file.processors.get(i) {
            Some(_) => format!("processors[{i}].input"),
            None => "flink.operators".to_string(),
        };
        c.err(
            field,
            format!(
                "\"{topic}\" is written by {}, which comes {}: a stage may read only the output of a stage listed before it (the Flink job counts as last)",
                names_of_stage(w),
                if w == i { "here (its own output)" } else { "later" }
            ),
        );
    }
    let ids_total = layout
        .last()
        .map_or(inputs_total, |r| r.base.saturating_add(r.size));
    if super::stages::chained(file) && ids_total > MAX_RECORD_IDS {
        c.err(
            "processors",
            format!(
                "with chained stages the run needs {ids_total} record numbers (each stage numbers as many as all before it); the limit is {MAX_RECORD_IDS}: send fewer records"
            ),
        );
    }
    let mut processors = Vec::new();
    for (pi, s) in file.processors.iter().enumerate().take(MAX_PROCESSORS) {
        let f = format!("processors[{pi}]");
        let Some(guarantee) = crate::kafka::processor::Guarantee::parse(&s.guarantee) else {
            c.err(
                format!("{f}.guarantee"),
                format!("\"{}\" is not a guarantee (allowed: \"at-most-once\", \"at-least-once\", \"exactly-once\")", s.guarantee),
            );
            continue;
        };
        let (Some(&(input, in_parts)), Some(&(output, out_parts))) = (
            topic_index.get(s.input.as_str()),
            topic_index.get(s.output.as_str()),
        ) else {
            c.err(
                format!("{f}.input"),
                format!(
                    "\"{}\" → \"{}\": both must be declared topics",
                    s.input, s.output
                ),
            );
            continue;
        };
        if input == output {
            c.err(
                format!("{f}.output"),
                "the output topic must differ from the input topic",
            );
        }
        c.polling(&f, s.start_ms, s.poll_interval_ms, s.max_empty_polls);
        if let Some(t) = s.request_timeout_ms {
            c.range(&format!("{f}.request_timeout_ms"), t, 1, MAX_TIMEOUT_MS);
        }
        if let Some(t) = s.transaction_timeout_ms {
            c.range(
                &format!("{f}.transaction_timeout_ms"),
                t,
                1,
                TRANSACTION_MAX_TIMEOUT_MS,
            );
        }
        if let Some(t) = s.commit_interval_ms {
            c.range(&format!("{f}.commit_interval_ms"), t, 1, MAX_TIMEOUT_MS);
        }
        let wanted: Vec<u16> = s
            .partitions
            .clone()
            .unwrap_or_else(|| (0..in_parts).collect());
        let mut inputs = Vec::new();
        for p in wanted {
            if p >= in_parts {
                c.err(
                    format!("{f}.partitions"),
                    format!("{p} is out of range (0 to {})", in_parts - 1),
                );
            } else {
                inputs.push(Tp {
                    topic: input,
                    partition: p,
                });
            }
        }
        let group = s.group.clone().unwrap_or_else(|| s.name.clone());
        let group_coordinator = crate::kafka::group_coordinator::coordinator_for(&group, brokers);
        match (guarantee, s.enable_idempotence) {
            (crate::kafka::processor::Guarantee::ExactlyOnce, Some(false)) => c.err(
                format!("{f}.enable_idempotence"),
                "an exactly-once processor's producer is transactional, and so idempotent: leave it out or set true",
            ),
            (crate::kafka::processor::Guarantee::AtMostOnce, Some(true)) => c.err(
                format!("{f}.enable_idempotence"),
                "idempotence needs acks=all and retries, and an at-most-once processor has neither: use at-least-once",
            ),
            _ => {}
        }
        let (idempotence, acks, retries) = match guarantee {
            // SEMANTICS §1: no retries for at-most-once; retries without idempotence for
            // at-least-once; the exactly-once client is transactional.
            crate::kafka::processor::Guarantee::AtMostOnce => (false, Acks::Leader, 0),
            crate::kafka::processor::Guarantee::AtLeastOnce => (
                s.enable_idempotence.unwrap_or(false),
                Acks::All,
                crate::kafka::config::RETRIES_MAX,
            ),
            crate::kafka::processor::Guarantee::ExactlyOnce => {
                (true, Acks::All, crate::kafka::config::RETRIES_MAX)
            }
        };
        let config = ProducerConfig::resolve(
            ClientKind::Java,
            &ProducerOverrides {
                enable_idempotence: Some(idempotence),
                acks: Some(acks),
                retries: Some(retries),
                request_timeout_ms: s.request_timeout_ms,
                delivery_timeout_ms: s
                    .request_timeout_ms
                    .map(|t| t.saturating_mul(4).max(120_000)),
                linger_ms: Some(0),
                ..Default::default()
            },
        )
        .unwrap_or_else(|_| ProducerConfig::defaults(ClientKind::Java));
        let mut producer = Producer::new(0, config, Vec::new(), leaders.clone(), brokers, false);
        if guarantee == crate::kafka::processor::Guarantee::ExactlyOnce {
            let txn_id = format!("{}-tx", s.name);
            producer = producer.with_transactions(TxnClient::new(
                txn_id.clone(),
                s.transaction_timeout_ms
                    .unwrap_or(crate::kafka::txn_state::DEFAULT_TRANSACTION_TIMEOUT_MS),
                crate::kafka::group_coordinator::coordinator_for(&txn_id, brokers),
                protocol,
                Vec::new(),
                false,
            ));
        }
        let output_base = layout.get(pi).map_or(0, |r| r.base) as u32;
        processors.push(crate::kafka::processor::Processor::new(
            pi as u8,
            crate::kafka::processor::ProcessorSettings {
                guarantee,
                inputs,
                output_topic: output,
                output_partitions: out_parts,
                group,
                group_coordinator,
                start_at: ms(s.start_ms.min(MAX_TIME_MS)),
                poll_interval: ms(s.poll_interval_ms.max(1)),
                max_empty_polls: s.max_empty_polls.max(1),
                commit_interval: s.commit_interval_ms.map(|t| ms(t.clamp(1, MAX_TIMEOUT_MS))),
                output_base,
            },
            producer,
            leaders.clone(),
            brokers,
        ));
    }
    let mut outputs_total = 0u64;
    for (p, r) in processors.iter().zip(&layout) {
        names.outputs.push((p.settings.output_base, r.size as u32));
        outputs_total = outputs_total.saturating_add(r.size);
    }
    let flink_range = layout.get(processors.len()).copied();
    let flink = file.flink.as_ref().and_then(|spec| {
        let range = flink_range?;
        let output_base = range.base as u32;
        let job = super::build_flink::build(
            &mut |field, message| c.err(field, message),
            spec,
            &super::build_flink::Context {
                topics: &topic_index,
                leaders: &leaders,
                brokers,
                output_base,
            },
        )?;
        names.outputs.push((output_base, range.size as u32));
        outputs_total = outputs_total.saturating_add(range.size);
        Some(job)
    });

    if file.faults.len() > MAX_FAULTS {
        c.err(
            "faults",
            format!("{} faults; the limit is {MAX_FAULTS}", file.faults.len()),
        );
    }
    let mut faults = Vec::new();
    for (fi, spec) in file.faults.iter().enumerate().take(MAX_FAULTS) {
        // A Flink worker (TaskManager) takes every subtask it hosts down with it.
        if let Some(tasks) = spec
            .target
            .as_deref()
            .and_then(|t| super::build_flink::worker_tasks(file, t))
        {
            if spec.action != "crash" {
                c.err(
                    format!("faults[{fi}].action"),
                    format!("a TaskManager can only crash (got \"{}\")", spec.action),
                );
            }
            for task in tasks {
                faults.push(ScheduledFault {
                    at: ms(spec.at_ms.min(MAX_TIME_MS)),
                    fault: Fault::Crash {
                        node: NodeId::Task(task),
                        restart_after: None,
                    },
                });
            }
            continue;
        }
        if let Some(fault) = fault(&mut c, file, &topic_index, fi, spec) {
            faults.push(ScheduledFault {
                at: ms(spec.at_ms.min(MAX_TIME_MS)),
                fault,
            });
        }
    }

    if let Some(expect) = &file.expect {
        super::expect::validate(
            &mut |field, message| c.err(field, message),
            expect,
            file,
            total_records,
        );
    }

    if !c.errors.is_empty() {
        return Err(ScenarioError::Invalid(c.errors));
    }
    Ok(Setup {
        seed: file.seed,
        names,
        brokers: broker_list,
        producers,
        consumers,
        processors,
        flink,
        network: NetworkConfig {
            latency: file.network.latency_us,
            jitter: file.network.jitter_us,
            loss_per_million: file.network.loss_per_million,
            ack_loss_per_million: file.network.ack_loss_per_million,
        },
        broker_session_timeout_ms: file.cluster.broker_session_timeout_ms,
        faults,
        max_steps: file.limits.max_steps,
        records: (total_records.min(MAX_RECORDS) + outputs_total) as u32,
        keep_trace: true,
    })
}

fn fault(
    c: &mut Checker,
    file: &ScenarioFile,
    topics: &VecMap<&str, (u16, u16)>,
    fi: usize,
    s: &FaultSpec,
) -> Option<Fault> {
    let f = format!("faults[{fi}]");
    c.range(&format!("{f}.at_ms"), s.at_ms, 0, MAX_TIME_MS);
    c.range(&format!("{f}.count"), s.count, 1, MAX_FAULT_COUNT);
    let resolve =
        |c: &mut Checker, field: &str, name: &Option<String>, required: bool| -> Option<NodeId> {
            match name {
                None => {
                    if required {
                        c.err(
                            format!("{f}.{field}"),
                            format!("is required for action \"{}\"", s.action),
                        );
                    }
                    None
                }
                Some(n) => {
                    let found = node(file, n);
                    if found.is_none() {
                        c.err(
                            format!("{f}.{field}"),
                            format!(
                                "\"{n}\" is not a process (this scenario's: {})",
                                process_list(file)
                            ),
                        );
                    }
                    found
                }
            }
        };
    let millis = |c: &mut Checker, field: &str, v: Option<u64>, required: bool| -> Option<u64> {
        match v {
            None if required => {
                c.err(
                    format!("{f}.{field}"),
                    format!("is required for action \"{}\"", s.action),
                );
                None
            }
            None => None,
            Some(v) => {
                c.range(&format!("{f}.{field}"), v, 1, MAX_TIME_MS);
                Some(ms(v.min(MAX_TIME_MS)))
            }
        }
    };
    let tp = |c: &mut Checker| -> Option<Tp> {
        let topic = s.topic.as_ref()?;
        let Some(&(t, partitions)) = topics.get(topic.as_str()) else {
            c.err(
                format!("{f}.topic"),
                format!("\"{topic}\" is not a declared topic"),
            );
            return None;
        };
        let p = s.partition.unwrap_or(0);
        if p >= partitions {
            c.err(
                format!("{f}.partition"),
                format!("{p} is out of range (0 to {})", partitions - 1),
            );
            return None;
        }
        Some(Tp {
            topic: t,
            partition: p,
        })
    };
    let kind = |c: &mut Checker| -> Option<MessageKind> {
        let m = s.message.as_ref()?;
        let k = MessageKind::parse(m);
        if k.is_none() {
            let all: Vec<&str> = MessageKind::ALL.iter().map(|k| k.name()).collect();
            c.err(
                format!("{f}.message"),
                format!(
                    "\"{m}\" is not a message kind (allowed: {})",
                    all.join(", ")
                ),
            );
        }
        k
    };
    let count = s.count.clamp(1, MAX_FAULT_COUNT);
    match s.action.as_str() {
        "freeze" => {
            let node = resolve(c, "target", &s.target, true);
            let duration = millis(c, "duration_ms", s.duration_ms, true);
            Some(Fault::Freeze {
                node: node?,
                duration: duration?,
            })
        }
        "crash" => {
            let node = resolve(c, "target", &s.target, true);
            let node = not_the_jobmanager(c, &f, node);
            let restart_after = millis(c, "restart_after_ms", s.restart_after_ms, false);
            Some(Fault::Crash {
                node: node?,
                restart_after,
            })
        }
        "restart" => {
            let node = resolve(c, "target", &s.target, true);
            Some(Fault::Restart {
                node: not_the_jobmanager(c, &f, node)?,
            })
        }
        "drop" | "delay" | "duplicate" | "drop_on_wire" | "delay_on_wire" => {
            let matcher = MessageMatch {
                from: resolve(c, "from", &s.from, false),
                to: resolve(c, "to", &s.to, false),
                kind: kind(c),
                tp: tp(c),
            };
            match s.action.as_str() {
                "drop" => Some(Fault::Drop { matcher, count }),
                "drop_on_wire" => Some(Fault::DropOnWire { matcher, count }),
                "delay_on_wire" => Some(Fault::DelayOnWire {
                    matcher,
                    extra: millis(c, "extra_ms", s.extra_ms, true)?,
                    count,
                }),
                "delay" => Some(Fault::Delay {
                    matcher,
                    extra: millis(c, "extra_ms", s.extra_ms, true)?,
                    count,
                }),
                _ => Some(Fault::Duplicate {
                    matcher,
                    extra: millis(c, "extra_ms", s.extra_ms, true)?,
                    count,
                }),
            }
        }
        "lose_ack" => {
            if s.topic.is_none() {
                c.err(format!("{f}.topic"), "is required for action \"lose_ack\"");
            }
            Some(Fault::LoseAck { tp: tp(c)?, count })
        }
        "corrupt" => {
            if s.topic.is_none() {
                c.err(format!("{f}.topic"), "is required for action \"corrupt\"");
            }
            Some(Fault::Corrupt { tp: tp(c)?, count })
        }
        "partition" | "heal" => {
            let a = resolve(c, "target", &s.target, true);
            let b = resolve(c, "peer", &s.peer, true);
            let (a, b) = (a?, b?);
            Some(if s.action == "partition" {
                Fault::Partition { a, b }
            } else {
                Fault::Heal { a, b }
            })
        }
        other => {
            c.err(
                format!("{f}.action"),
                format!("\"{other}\" is not a fault (allowed: freeze, crash, restart, drop, delay, duplicate, drop_on_wire, delay_on_wire, lose_ack, corrupt, partition, heal)"),
            );
            None
        }
    }
}

/// This scenario's process names for a message, the first 16 of them.
fn process_list(file: &ScenarioFile) -> String {
    const SHOWN: usize = 16;
    let names = super::process_names_of(file);
    let more = names.len().saturating_sub(SHOWN);
    let mut list = names.into_iter().take(SHOWN).collect::<Vec<_>>().join(", ");
    if more > 0 {
        list.push_str(&format!(", and {more} more"));
    }
    list
}
