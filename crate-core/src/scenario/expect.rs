//! `expect` assertions: how course authors pin a scenario's outcome.

use super::schema::{ExpectSpec, ScenarioFile};
use crate::oracle::anomalies::AnomalyKind;
use crate::report::Report;

const STATUSES: [&str; 3] = ["delivered", "failed", "indeterminate"];
const KINDS: [AnomalyKind; 8] = [
    AnomalyKind::Duplicate,
    AnomalyKind::LostWrite,
    AnomalyKind::AbortedRead,
    AnomalyKind::Unseen,
    AnomalyKind::NonmonotonicSend,
    AnomalyKind::NonmonotonicPoll,
    AnomalyKind::PollSkip,
    AnomalyKind::InconsistentOffsets,
];

fn kind_names() -> Vec<&'static str> {
    KINDS.iter().map(|k| k.name()).collect()
}

pub fn validate(
    err: &mut dyn FnMut(String, String),
    e: &ExpectSpec,
    file: &ScenarioFile,
    records: u64,
) {
    for (list, field) in [
        (&e.anomalies, "anomalies"),
        (&e.no_anomalies, "no_anomalies"),
    ] {
        for (i, k) in list.iter().enumerate() {
            if !kind_names().contains(&k.as_str()) {
                err(
                    format!("expect.{field}[{i}]"),
                    format!(
                        "\"{k}\" is not an anomaly (allowed: {})",
                        kind_names().join(", ")
                    ),
                );
            }
        }
    }
    for (i, d) in e.deliveries.iter().enumerate() {
        if u64::from(d.record) >= records {
            err(
                format!("expect.deliveries[{i}].record"),
                format!(
                    "{} is out of range (the scenario sends records 0 to {})",
                    d.record,
                    records.saturating_sub(1)
                ),
            );
        }
        if let Some(o) = &d.output {
            if !file.processors.iter().any(|p| &p.name == o) {
                let names: Vec<&str> = file.processors.iter().map(|p| p.name.as_str()).collect();
                err(
                    format!("expect.deliveries[{i}].output"),
                    if names.is_empty() {
                        format!("\"{o}\" is not a processor: the scenario has no [[processors]]")
                    } else {
                        format!(
                            "\"{o}\" is not a processor of this scenario (processors: {})",
                            names.join(", ")
                        )
                    },
                );
            }
        }
        if let Some(s) = &d.status {
            if !STATUSES.contains(&s.as_str()) {
                err(
                    format!("expect.deliveries[{i}].status"),
                    format!("\"{s}\" is not a status (allowed: {})", STATUSES.join(", ")),
                );
            }
        }
    }
    for name in e.reads.keys() {
        if !file.consumers.iter().any(|c| &c.name == name) {
            err(
                format!("expect.reads.{name}"),
                format!("\"{name}\" is not a consumer of this scenario"),
            );
        }
    }
}

/// Every way the report falls short of the expectations, as sentences.
pub fn check(e: &ExpectSpec, r: &Report, scenario: &super::Scenario) -> Vec<String> {
    let (file, records) = (&scenario.file, scenario.records_sent());
    let mut out = Vec::new();
    let mut number = |what: &str, want: Option<u64>, got: u64| {
        if let Some(w) = want {
            if w != got {
                out.push(format!("expected {what} = {w}, got {got}"));
            }
        }
    };
    number("duplicates", e.duplicates, r.outcome.duplicates);
    number("lost", e.lost, r.outcome.lost);
    number("aborted_reads", e.aborted_reads, r.outcome.aborted_reads);
    for k in &e.anomalies {
        if !r.anomalies.iter().any(|a| &a.kind == k) {
            let article = if k.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            out.push(format!("expected {article} {k} anomaly, found none"));
        }
    }
    for k in &e.no_anomalies {
        if let Some(a) = r.anomalies.iter().find(|a| &a.kind == k) {
            out.push(format!("expected no {k} anomaly, found: {}", a.detail));
        }
    }
    for d in &e.deliveries {
        // A processor's output of the producers' record k, through the stages before it
        // when they chain (as the scenario numbers them: stages.rs).
        let processor = d
            .output
            .as_ref()
            .and_then(|o| file.processors.iter().position(|p| &p.name == o));
        let k = u64::from(d.record);
        let id = match processor {
            Some(i) => super::stages::output_of(file, records, i, k).unwrap_or(k),
            None => k,
        };
        let name = scenario
            .setup
            .names
            .record(crate::ids::RecordId(u32::try_from(id).unwrap_or(u32::MAX)));
        let Some(got) = r.deliveries.iter().find(|x| x.record == name) else {
            out.push(format!("record {name} does not exist"));
            continue;
        };
        let who = match &d.output {
            Some(o) => format!("{o}'s output of record v{} ({name})", d.record),
            None => format!("record {name}"),
        };
        if let Some(s) = &d.status {
            if &got.status != s {
                out.push(format!("expected {who} to be {s}, it is {}", got.status));
            }
        }
        if let Some(o) = d.offset {
            if got.offset != Some(o) {
                out.push(format!(
                    "expected {who} acknowledged at offset {o}, {}",
                    got.offset
                        .map_or("it was not acknowledged".into(), |at| format!(
                            "got offset {at}"
                        ))
                ));
            }
        }
        if let Some(n) = d.min_attempts {
            if got.attempts < n {
                out.push(format!(
                    "expected {who} to take at least {n} attempts, it took {}",
                    got.attempts
                ));
            }
        }
        if let Some(n) = d.max_attempts {
            if got.attempts > n {
                out.push(format!(
                    "expected {who} to take at most {n} attempts, it took {}",
                    got.attempts
                ));
            }
        }
        if let Some(t) = d.delivered_after_ms {
            if got.delivered_at_ms.is_none_or(|at| at <= t) {
                out.push(format!(
                    "expected {who} delivered after {t} ms, {}",
                    when(got.delivered_at_ms)
                ));
            }
        }
        if let Some(t) = d.delivered_before_ms {
            if got.delivered_at_ms.is_none_or(|at| at >= t) {
                out.push(format!(
                    "expected {who} delivered before {t} ms, {}",
                    when(got.delivered_at_ms)
                ));
            }
        }
    }
    for (name, want) in &e.reads {
        let Some(got) = r.reads.get(name) else {
            out.push(format!("consumer {name} did not run"));
            continue;
        };
        if let Some(n) = want.records {
            if got.records != n {
                out.push(format!(
                    "expected {name} to read {n} records, it read {}",
                    got.records
                ));
            }
        }
        if let Some(keys) = &want.keys {
            let got_keys: Vec<String> = got
                .keys
                .iter()
                .map(|k| k.clone().unwrap_or_default())
                .collect();
            if &got_keys != keys {
                out.push(format!(
                    "expected {name} to read keys {keys:?}, it read {got_keys:?}"
                ));
            }
        }
    }
    if !r.completed {
        out.push(format!(
            "the run hit its step limit after {} steps: raise [limits] max_steps (up to 100000000) or make the run shorter (fewer records)",
            r.steps
        ));
    }
    for inv in r.invariants.iter().filter(|i| !i.holds) {
        out.push(format!(
            "invariant {} is broken: {}",
            inv.name,
            inv.detail.clone().unwrap_or_default()
        ));
    }
    let mut fp = Vec::new();
    if let Some(ef) = &e.flink {
        match &r.flink {
            None => fp.push("expected a Flink job, the scenario has none".into()),
            Some(f) => {
                num(
                    &mut fp,
                    "flink.failovers",
                    ef.failovers.map(u64::from),
                    u64::from(f.failovers),
                );
                num(
                    &mut fp,
                    "flink.expired",
                    ef.expired.map(u64::from),
                    u64::from(f.expired),
                );
                if let Some(m) = ef.min_completed {
                    if f.completed < m {
                        fp.push(format!(
                            "expected at least {m} completed checkpoints, got {}",
                            f.completed
                        ));
                    }
                }
                let wants =
                    ef.lost.is_some() || ef.duplicated.is_some() || ef.keys_differ.is_some();
                match (&f.versus_failure_free, wants) {
                    (Some(d), _) => {
                        num(&mut fp, "flink.lost", ef.lost, d.lost.len() as u64);
                        num(
                            &mut fp,
                            "flink.duplicated",
                            ef.duplicated,
                            d.duplicated.len() as u64,
                        );
                        num(
                            &mut fp,
                            "flink.keys_differ",
                            ef.keys_differ,
                            d.state_differs.len() as u64,
                        );
                    }
                    (None, true) => {
                        fp.push("the comparison with the failure-free run was not computed".into())
                    }
                    (None, false) => {}
                }
            }
        }
    }
    out.extend(fp);
    out
}

fn num(out: &mut Vec<String>, what: &str, want: Option<u64>, got: u64) {
    if let Some(w) = want {
        if w != got {
            out.push(format!("expected {what} = {w}, got {got}"));
        }
    }
}

/// When a record was delivered, for a message: `at 120 ms`, or that it never was.
fn when(at_ms: Option<u64>) -> String {
    at_ms.map_or("it was never delivered".into(), |t| {
        format!("it was at {t} ms")
    })
}
