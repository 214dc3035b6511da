//! Builds the Flink job of a scenario, checking every field (SEMANTICS §4–§5 rules
//! included: unaligned needs exactly-once and one concurrent checkpoint; an iterative job
//! needs `force`).

use super::flink_spec::{FlinkSpec, OperatorSpec};
use super::limits::{MAX_TIMEOUT_MS, MAX_TIME_MS};
use crate::flink::config::RestartStrategy;
use crate::flink::graph::{OperatorDef, OperatorKind, SinkKind};
use crate::flink::{CheckpointMode, FlinkConfig, Job};
use crate::ids::Tp;
use crate::time::ms;
use crate::vec_map::VecMap;

pub const MAX_OPERATORS: usize = 8;
pub const MAX_PARALLELISM: u8 = 4;
pub const MAX_TASKS: usize = 16;
pub const MAX_CHANNEL_CAPACITY: u32 = 10_000;
pub const MAX_PASSES: u8 = 16;
pub const MAX_PROCESSING_US: u64 = 10_000_000;

/// The names a fault can target: `{operator}-{subtask}` per subtask, in task order.
pub fn task_names(spec: &FlinkSpec) -> Vec<String> {
    let mut out = Vec::new();
    for op in spec.operators.iter().take(MAX_OPERATORS) {
        for s in 0..op.parallelism.min(MAX_PARALLELISM) {
            out.push(format!("{}-{s}", op.name));
        }
    }
    out
}

/// The subtasks a TaskManager named `taskmanager-N` hosts: slots are filled round-robin,
/// subtask `i` (in task order) on worker `i % taskmanagers`.
pub fn worker_tasks(file: &super::ScenarioFile, name: &str) -> Option<Vec<u8>> {
    let spec = file.flink.as_ref()?;
    let n: u8 = name.strip_prefix("taskmanager-")?.parse().ok()?;
    let workers = spec.taskmanagers.max(1);
    if n >= workers {
        return None;
    }
    let tasks = task_names(spec).len();
    Some(
        (0..tasks)
            .filter(|i| i % usize::from(workers) == usize::from(n))
            .map(|i| i as u8)
            .collect(),
    )
}

pub(super) struct Context<'a> {
    pub topics: &'a VecMap<&'a str, (u16, u16)>,
    pub leaders: &'a VecMap<Tp, u8>,
    pub brokers: u8,
    pub output_base: u32,
}

pub(super) fn build(
    err: &mut dyn FnMut(String, String),
    spec: &FlinkSpec,
    cx: &Context,
) -> Option<Job> {
    let errors_before = std::cell::Cell::new(0u32);
    let mut e = |field: String, msg: String| {
        errors_before.set(errors_before.get() + 1);
        err(field, msg)
    };
    let range = |e: &mut dyn FnMut(String, String), field: &str, v: u64, lo: u64, hi: u64| {
        if v < lo || v > hi {
            e(
                format!("flink.{field}"),
                format!("{v} is out of range (allowed: {lo} to {hi})"),
            );
        }
    };
    let mode = match spec.checkpointing.as_str() {
        "exactly-once" => CheckpointMode::ExactlyOnce,
        "at-least-once" => CheckpointMode::AtLeastOnce,
        other => {
            e(
                "flink.checkpointing".into(),
                format!("\"{other}\" is not a checkpointing mode (allowed: \"exactly-once\", \"at-least-once\")"),
            );
            CheckpointMode::ExactlyOnce
        }
    };
    range(
        &mut e,
        "checkpoint_interval_ms",
        spec.checkpoint_interval_ms,
        10,
        MAX_TIMEOUT_MS,
    );
    range(
        &mut e,
        "checkpoint_timeout_ms",
        spec.checkpoint_timeout_ms,
        10,
        MAX_TIMEOUT_MS,
    );
    range(
        &mut e,
        "max_concurrent_checkpoints",
        u64::from(spec.max_concurrent_checkpoints),
        1,
        16,
    );
    range(&mut e, "min_pause_ms", spec.min_pause_ms, 0, MAX_TIMEOUT_MS);
    range(
        &mut e,
        "tolerable_failed_checkpoints",
        u64::from(spec.tolerable_failed_checkpoints),
        0,
        1_000,
    );
    let restart_strategy = match spec.restart_strategy.as_str() {
        "exponential-delay" => RestartStrategy::ExponentialDelay,
        "fixed-delay" => RestartStrategy::FixedDelay,
        other => {
            e(
                "flink.restart_strategy".into(),
                format!("\"{other}\" is not a restart strategy (allowed: \"exponential-delay\", \"fixed-delay\")"),
            );
            RestartStrategy::ExponentialDelay
        }
    };
    range(
        &mut e,
        "restart_max_backoff_ms",
        spec.restart_max_backoff_ms,
        1,
        MAX_TIMEOUT_MS,
    );
    // Flink: the initial backoff is at least 1 ms and at most the maximum.
    let (lowest, highest) = match restart_strategy {
        RestartStrategy::FixedDelay => (0, MAX_TIMEOUT_MS),
        RestartStrategy::ExponentialDelay => (1, spec.restart_max_backoff_ms.min(MAX_TIMEOUT_MS)),
    };
    range(
        &mut e,
        "restart_delay_ms",
        spec.restart_delay_ms,
        lowest,
        highest,
    );
    range(
        &mut e,
        "channel_capacity",
        u64::from(spec.channel_capacity),
        1,
        u64::from(MAX_CHANNEL_CAPACITY),
    );
    range(
        &mut e,
        "channel_latency_us",
        spec.channel_latency_us,
        0,
        10_000_000,
    );
    range(&mut e, "upload_ms", spec.upload_ms, 0, MAX_TIMEOUT_MS);
    range(&mut e, "stop_ms", spec.stop_ms, 1, MAX_TIME_MS);
    range(
        &mut e,
        "poll_interval_ms",
        spec.poll_interval_ms,
        1,
        MAX_TIMEOUT_MS,
    );
    if let Some(t) = spec.aligned_checkpoint_timeout_ms {
        range(
            &mut e,
            "aligned_checkpoint_timeout_ms",
            t,
            0,
            MAX_TIMEOUT_MS,
        );
        if t > 0 && !spec.unaligned {
            e(
                "flink.aligned_checkpoint_timeout_ms".into(),
                "the aligned checkpoint timeout needs unaligned = true: in Flink, execution.checkpointing.aligned-checkpoint-timeout only lets an unaligned-enabled job start aligned (without unaligned checkpoints it has no effect)".into(),
            );
        }
    }
    if spec.unaligned
        && (mode != CheckpointMode::ExactlyOnce || spec.max_concurrent_checkpoints != 1)
    {
        e(
            "flink.unaligned".into(),
            "unaligned checkpoints need checkpointing = \"exactly-once\" and max_concurrent_checkpoints = 1".into(),
        );
    }
    if spec.operators.len() > MAX_OPERATORS {
        e(
            "flink.operators".into(),
            format!(
                "{} operators; the limit is {MAX_OPERATORS}",
                spec.operators.len()
            ),
        );
    }
    let index: VecMap<&str, usize> = spec
        .operators
        .iter()
        .enumerate()
        .map(|(i, o)| (o.name.as_str(), i))
        .collect();
    if index.len() != spec.operators.len() {
        e(
            "flink.operators".into(),
            "operator names must be distinct".into(),
        );
    }
    let total_tasks: usize = spec
        .operators
        .iter()
        .map(|o| usize::from(o.parallelism))
        .sum();
    if total_tasks > MAX_TASKS {
        e(
            "flink.operators".into(),
            format!("{total_tasks} subtasks in all; the limit is {MAX_TASKS}"),
        );
    }
    let mut ops = Vec::new();
    let mut iterative = false;
    for (i, o) in spec.operators.iter().enumerate().take(MAX_OPERATORS) {
        let f = format!("flink.operators[{i}]");
        if let Some(def) = operator(&mut e, &f, o, i, &index, cx) {
            iterative |= matches!(def.kind, OperatorKind::Iterate { .. });
            ops.push(def);
        }
    }
    if !ops
        .iter()
        .any(|o| matches!(o.kind, OperatorKind::Source { .. }))
    {
        e("flink.operators".into(), "the job needs a source".into());
    }
    if iterative && !spec.force {
        e(
            "flink.force".into(),
            "checkpointing an iterative job needs force = true (Flink refuses it otherwise: records on the loop edge are not in the checkpoint)".into(),
        );
    }
    if errors_before.get() > 0 {
        return None;
    }
    let aligned_timeout = spec
        .aligned_checkpoint_timeout_ms
        .filter(|t| *t > 0 && spec.unaligned)
        .map(ms);
    let config = FlinkConfig {
        mode,
        // Unaligned with an aligned timeout starts aligned and switches at the timeout;
        // unaligned without one (or with 0) is unaligned from the start.
        unaligned: spec.unaligned && aligned_timeout.is_none(),
        aligned_timeout,
        interval: ms(spec.checkpoint_interval_ms),
        timeout: ms(spec.checkpoint_timeout_ms),
        max_concurrent: spec.max_concurrent_checkpoints,
        min_pause: ms(spec.min_pause_ms),
        tolerable_failures: spec.tolerable_failed_checkpoints,
        restart_strategy,
        restart_delay: ms(spec.restart_delay_ms),
        max_backoff: ms(spec.restart_max_backoff_ms),
        channel_capacity: spec.channel_capacity,
        channel_latency: spec.channel_latency_us,
        upload_time: ms(spec.upload_ms),
        force: spec.force,
        stop_at: ms(spec.stop_ms),
        poll_interval: ms(spec.poll_interval_ms),
        output_base: cx.output_base,
    };
    Some(Job::new(
        "job".into(),
        config,
        ops,
        cx.leaders.clone(),
        cx.brokers,
    ))
}

fn operator(
    e: &mut dyn FnMut(String, String),
    f: &str,
    o: &OperatorSpec,
    me: usize,
    index: &VecMap<&str, usize>,
    cx: &Context,
) -> Option<OperatorDef> {
    let mut ok = true;
    if o.name.trim().is_empty() || o.name.starts_with("broker") || o.name == "jobmanager" {
        e(
            format!("{f}.name"),
            format!("\"{}\" is not a usable operator name", o.name),
        );
        ok = false;
    }
    if o.parallelism == 0 || o.parallelism > MAX_PARALLELISM {
        e(
            format!("{f}.parallelism"),
            format!(
                "{} is out of range (allowed: 1 to {MAX_PARALLELISM})",
                o.parallelism
            ),
        );
        ok = false;
    }
    if o.processing_us > MAX_PROCESSING_US {
        e(
            format!("{f}.processing_us"),
            format!(
                "{} is out of range (allowed: 0 to {MAX_PROCESSING_US})",
                o.processing_us
            ),
        );
        ok = false;
    }
    let mut inputs = Vec::new();
    for (k, name) in o.inputs.iter().enumerate() {
        match index.get(name.as_str()) {
            Some(&i) if i < me => inputs.push(i),
            Some(_) => {
                e(
                    format!("{f}.inputs[{k}]"),
                    format!("\"{name}\" must be declared before \"{}\" (loops are made with kind = \"iterate\")", o.name),
                );
                ok = false;
            }
            None => {
                // The operators it may read: those declared before it, in their order.
                let mut before: Vec<(usize, &str)> = index
                    .iter()
                    .filter(|(_, i)| **i < me)
                    .map(|(n, i)| (*i, *n))
                    .collect();
                crate::order::sort(&mut before);
                let before: Vec<String> = before.iter().map(|(_, n)| format!("\"{n}\"")).collect();
                e(
                    format!("{f}.inputs[{k}]"),
                    format!(
                        "\"{name}\" is not an operator (declared before \"{}\": {})",
                        o.name,
                        before.join(", ")
                    ),
                );
                ok = false;
            }
        }
    }
    let topic = |e: &mut dyn FnMut(String, String)| -> Option<(u16, u16)> {
        let Some(t) = &o.topic else {
            e(
                format!("{f}.topic"),
                format!("is required for kind \"{}\"", o.kind),
            );
            return None;
        };
        let found = cx.topics.get(t.as_str()).copied();
        if found.is_none() {
            e(
                format!("{f}.topic"),
                format!("\"{t}\" is not a declared topic"),
            );
        }
        found
    };
    let kind = match o.kind.as_str() {
        "source" => {
            if !inputs.is_empty() {
                e(format!("{f}.inputs"), "a source has no inputs".into());
                ok = false;
            }
            let (t, parts) = topic(e)?;
            OperatorKind::Source {
                partitions: (0..parts)
                    .map(|p| Tp {
                        topic: t,
                        partition: p,
                    })
                    .collect(),
            }
        }
        "map" => OperatorKind::Map,
        "count" => OperatorKind::Count,
        "iterate" => {
            let passes = o.passes.unwrap_or(1);
            if passes == 0 || passes > MAX_PASSES {
                e(
                    format!("{f}.passes"),
                    format!("{passes} is out of range (allowed: 1 to {MAX_PASSES})"),
                );
                ok = false;
            }
            OperatorKind::Iterate { passes }
        }
        "kafka-2pc" => {
            let (t, parts) = topic(e)?;
            if o.transaction_timeout_ms == 0 || o.transaction_timeout_ms > 900_000 {
                e(
                    format!("{f}.transaction_timeout_ms"),
                    format!(
                        "{} is out of range (allowed: 1 to 900000, the broker's transaction.max.timeout.ms)",
                        o.transaction_timeout_ms
                    ),
                );
                ok = false;
            }
            if o.transactional_id_prefix.trim().is_empty() || o.transactional_id_prefix.len() > 64 {
                e(
                    format!("{f}.transactional_id_prefix"),
                    "must be 1 to 64 characters".into(),
                );
                ok = false;
            }
            OperatorKind::Sink(SinkKind::KafkaTwoPhase {
                topic: t,
                partitions: parts,
                transaction_timeout_ms: o.transaction_timeout_ms,
                prefix: o.transactional_id_prefix.clone(),
            })
        }
        "upsert" => OperatorKind::Sink(SinkKind::Upsert),
        "append" => OperatorKind::Sink(SinkKind::Append),
        other => {
            e(
                format!("{f}.kind"),
                format!("\"{other}\" is not an operator kind (allowed: \"source\", \"map\", \"count\", \"iterate\", \"kafka-2pc\", \"upsert\", \"append\")"),
            );
            return None;
        }
    };
    // (An input that names no operator has said so above.)
    if !matches!(kind, OperatorKind::Source { .. }) && o.inputs.is_empty() {
        e(
            format!("{f}.inputs"),
            format!("a {} needs at least one input", o.kind),
        );
        ok = false;
    }
    ok.then(|| OperatorDef {
        name: o.name.clone(),
        kind,
        parallelism: o.parallelism,
        inputs,
        processing: o.processing_us,
    })
}
