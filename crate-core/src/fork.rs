//! The fork: one change to the scenario (a flipped setting or another guarantee) and both
//! futures side by side. The changed scenario runs from the start with the same seed and
//! fault schedule, so the two runs are identical until the change first makes a difference:
//! the fork says at which step that is, and what each future holds after the step the reader
//! forked at.

use crate::flink::report::LedgerLine;
use crate::kafka::processor::Guarantee;
use crate::lesson::try_it::{
    acks_of, idempotence_of, isolation_of, offset_reset_of, Flip, TryAction, TryIt,
};
use crate::lesson::Text;
use crate::report::{Delivery, Report};
use crate::scenario::Scenario;
use crate::sim::narration::narrate;
use crate::sim::note::{Notable, Note};
use crate::sim::{Simulation, StepRecord};
use crate::RunLimit;

/// How many of a side's events are shown at first (the page folds the rest away).
pub const EVENTS_SHOWN: usize = 12;
/// The most events each side lists after the fork step; `more` counts the rest.
pub const EVENTS_LISTED: usize = 200;

/// What can be changed in this scenario: each flip that applies, and each guarantee the
/// processors are not already all under.
pub fn changes(s: &Scenario) -> Vec<TryAction> {
    let f = &s.file;
    // The transaction protocol matters only where something writes in transactions.
    let transactions = f.producers.iter().any(|p| p.transactional_id.is_some())
        || f.processors.iter().any(|p| p.guarantee == "exactly-once")
        || f.flink
            .iter()
            .any(|j| j.operators.iter().any(|o| o.kind == "kafka-2pc"));
    // auto.offset.reset where a consumer names it: elsewhere every reader starts at the log's
    // start, and the scenario is not about where.
    let reset = f.consumers.iter().any(|c| c.auto_offset_reset.is_some());
    let mut out: Vec<TryAction> = Flip::ALL
        .into_iter()
        .filter(|flip| *flip != Flip::TransactionProtocol || transactions)
        .filter(|flip| *flip != Flip::OffsetReset || reset)
        .map(TryAction::Flip)
        .filter(|a| try_it(a).apply(s).is_ok())
        .collect();
    if !s.file.processors.is_empty() {
        out.extend(
            Guarantee::ALL
                .into_iter()
                .filter(|g| s.file.processors.iter().any(|p| p.guarantee != g.name()))
                .map(TryAction::Guarantee),
        );
    }
    // A Flink scenario's own settings first: the one offered before any other.
    if f.flink.is_some() {
        let flink =
            |a: &TryAction| matches!(a, TryAction::Flip(Flip::Unaligned | Flip::Checkpointing));
        let (mut first, rest): (Vec<TryAction>, Vec<TryAction>) = out.into_iter().partition(flink);
        first.extend(rest);
        out = first;
    }
    out
}

/// A short name for a change: `idempotence`, `guarantee exactly-once`, ...
pub fn change_name(a: &TryAction) -> String {
    match a {
        TryAction::Flip(f) => f.name().to_string(),
        TryAction::Guarantee(g) => format!("guarantee {}", g.name()),
        TryAction::Inject(_) => "a fault".to_string(),
    }
}

/// A change as a reader sees it: the setting, and its value in the scenario and in the fork.
/// Mixed values across clients are listed (`on/off`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangeSetting {
    /// The setting's English name: `idempotence`, `isolation`, `transaction protocol`,
    /// `checkpoints` (aligned or unaligned), `checkpointing` (the mode), `guarantee`,
    /// `min.insync.replicas`.
    pub setting: &'static str,
    /// The clients whose setting it is (`app, other-app`), for a client's setting
    /// (idempotence, isolation) when they all have the same value; empty otherwise.
    pub of: String,
    pub from: String,
    pub to: String,
    /// An `acks` change that turns idempotence off (it needs acks=all) or back on (its
    /// default with acks=all): idempotence's new value.
    pub idempotence: Option<bool>,
}

/// The setting a change flips and its values before and after, or `None` for a change with
/// no setting (an injected fault) or one the scenario does not take.
pub fn change_setting(s: &Scenario, a: &TryAction) -> Option<ChangeSetting> {
    let setting = match a {
        TryAction::Flip(Flip::TransactionProtocol) => "transaction protocol",
        TryAction::Flip(Flip::Unaligned) => "checkpoints",
        TryAction::Flip(Flip::MinInsync) => "min.insync.replicas",
        TryAction::Flip(Flip::UncleanElection) => "unclean.leader.election.enable",
        TryAction::Flip(Flip::OffsetReset) => "auto.offset.reset",
        TryAction::Flip(f) => f.name(),
        TryAction::Guarantee(_) => "guarantee",
        TryAction::Inject(_) => return None,
    };
    let values = |sc: &Scenario| -> Option<String> {
        let f = &sc.file;
        let values: Vec<String> = match a {
            TryAction::Flip(Flip::Idempotence) => f
                .producers
                .iter()
                .filter(|p| p.transactional_id.is_none())
                .map(|p| (if idempotence_of(p) { "on" } else { "off" }).to_string())
                .collect(),
            TryAction::Flip(Flip::Isolation) => f.consumers.iter().map(isolation_of).collect(),
            TryAction::Flip(Flip::OffsetReset) => f
                .consumers
                .iter()
                .map(|c| offset_reset_of(c).to_string())
                .collect(),
            TryAction::Flip(Flip::Acks) => f
                .producers
                .iter()
                .filter(|p| p.transactional_id.is_none())
                .map(|p| acks_of(p).to_string())
                .collect(),
            TryAction::Flip(Flip::TransactionProtocol) => {
                vec![f.cluster.transaction_protocol.to_string()]
            }
            TryAction::Flip(Flip::MinInsync) => f
                .topics
                .iter()
                .filter(|t| t.replication_factor >= 2)
                .map(|t| t.min_insync_replicas.to_string())
                .collect(),
            TryAction::Flip(Flip::UncleanElection) => f
                .topics
                .iter()
                .filter(|t| t.replication_factor >= 2)
                .map(|t| t.unclean_leader_election.to_string())
                .collect(),
            TryAction::Flip(Flip::Unaligned) => f
                .flink
                .iter()
                .map(|j| (if j.unaligned { "unaligned" } else { "aligned" }).to_string())
                .collect(),
            TryAction::Flip(Flip::Checkpointing) => f
                .flink
                .iter()
                // Flink's own names (no `to_uppercase`: its Unicode tables would ship).
                .map(|j| {
                    (if j.checkpointing == "at-least-once" {
                        "AT_LEAST_ONCE"
                    } else {
                        "EXACTLY_ONCE"
                    })
                    .to_string()
                })
                .collect(),
            TryAction::Guarantee(_) => f.processors.iter().map(|p| p.guarantee.clone()).collect(),
            TryAction::Inject(_) => Vec::new(),
        };
        let mut distinct: Vec<String> = Vec::new();
        for v in values {
            if !distinct.contains(&v) {
                distinct.push(v);
            }
        }
        (!distinct.is_empty()).then(|| distinct.join("/"))
    };
    let after = try_it(a).apply(s).ok()?;
    let f = &s.file;
    let of: Vec<&str> = match a {
        TryAction::Flip(Flip::Idempotence | Flip::Acks) => f
            .producers
            .iter()
            .filter(|p| p.transactional_id.is_none())
            .map(|p| p.name.as_str())
            .collect(),
        TryAction::Flip(Flip::Isolation | Flip::OffsetReset) => {
            f.consumers.iter().map(|c| c.name.as_str()).collect()
        }
        TryAction::Flip(Flip::MinInsync | Flip::UncleanElection) => f
            .topics
            .iter()
            .filter(|t| t.replication_factor >= 2)
            .map(|t| t.name.as_str())
            .collect(),
        _ => Vec::new(),
    };
    let from = values(s)?;
    Some(ChangeSetting {
        setting,
        // Named when they share one value: mixed values are listed once each, not per client.
        of: if from.contains('/') {
            String::new()
        } else {
            of.join(", ")
        },
        from,
        to: values(&after)?,
        idempotence: match a {
            TryAction::Flip(Flip::Acks) => {
                let now = after.plain_producers_idempotent();
                (s.plain_producers_idempotent() != now
                    && now.iter().all(|i| Some(i) == now.first()))
                .then(|| now.first().copied())
                .flatten()
            }
            _ => None,
        },
    })
}

/// The change as a reader sees it: the setting, from what the scenario has to what the fork
/// gives it (`idempotence: on → off`, `checkpoints: unaligned → aligned`).
pub fn change_label(s: &Scenario, a: &TryAction) -> String {
    let so = |c: &ChangeSetting| match c.idempotence {
        Some(false) => ", so idempotence off (it needs acks=all)",
        Some(true) => ", so idempotence on (its default with acks=all)",
        None => "",
    };
    match change_setting(s, a) {
        Some(c) if !c.of.is_empty() => {
            format!("{} ({}): {} → {}{}", c.setting, c.of, c.from, c.to, so(&c))
        }
        Some(c) => format!("{}: {} → {}{}", c.setting, c.from, c.to, so(&c)),
        None => change_name(a),
    }
}

fn try_it(action: &TryAction) -> TryIt {
    TryIt {
        text: Text::default(),
        action: action.clone(),
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ForkSide {
    pub report: Report,
    /// Events after the fork step, from where the futures part: (step, sentence). The step
    /// where they part is listed whole (it is what differs); after it, the notable events.
    pub events: Vec<(u64, String)>,
    /// Notable events past the ones listed.
    pub more: usize,
    /// Per listed event: a commit its producer heard (dropped when the other future lists
    /// the same sentence: a commit both futures make is no news).
    pub commits: Vec<bool>,
}

/// A record, reader or key whose fate differs between the two futures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FateDiff {
    pub subject: Subject,
    pub as_is: Fate,
    pub changed: Fate,
}

/// What a fate row is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// A record, named as the logs name it (`v4′` for an output).
    Record(String),
    /// A consumer, by name.
    Reader(String),
    /// A key of a Flink job's keyed state, by name.
    Key(String),
}

/// What one future holds for a subject.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    /// A delivery: its ledger status (`delivered`, ..., or `never sent`) and its readable
    /// copies, with the partitions they are in (not their offsets: a marker more or less
    /// shifts every later offset, and is no difference in the record's fate).
    Delivery {
        status: String,
        copies: usize,
        partitions: Vec<String>,
    },
    /// An input's way through a Flink job.
    Flink(LedgerLine),
    /// What a reader read, at its isolation level.
    Read { isolation: String, records: u64 },
    /// A key's final state (or upserted value).
    State(u64),
}

impl Subject {
    /// In English: `v4′`, `reader auditor`, `key alice`.
    pub fn describe(&self) -> String {
        match self {
            Subject::Record(r) => r.clone(),
            Subject::Reader(r) => format!("consumer {r}"),
            Subject::Key(k) => format!("key {k}"),
        }
    }
}

impl Fate {
    /// In English: `delivered, 2 copies in invoices-0`, `read 2, counted 2`,
    /// `read_committed: read 11`, `state 46`.
    pub fn describe(&self) -> String {
        match self {
            Fate::Delivery {
                status,
                copies,
                partitions,
            } => match copies {
                0 => format!("{status}, no copy readable"),
                1 => format!("{status}, 1 copy in {}", partitions.join(", ")),
                n => format!("{status}, {n} copies in {}", partitions.join(", ")),
            },
            Fate::Flink(l) => {
                let mut parts = vec![format!("read {}", l.read)];
                for (n, what) in [
                    (l.counted, "counted"),
                    (l.committed, "committed"),
                    (l.appended, "appended"),
                ] {
                    if n > 0 {
                        parts.push(format!("{what} {n}"));
                    }
                }
                parts.join(", ")
            }
            Fate::Read { isolation, records } => format!("{isolation}: read {records}"),
            Fate::State(v) => format!("state {v}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Fork {
    pub at: u64,
    /// The first step at which the runs differ (`None`: the change makes no difference).
    pub diverged_at: Option<u64>,
    pub as_is: ForkSide,
    pub changed: ForkSide,
    pub fates: Vec<FateDiff>,
    /// The sides list their notable events after this step: the step before the futures
    /// part if they part at the fork step or later, else the fork step.
    pub events_after: u64,
    /// The changed side lists its events after this step of its own run: `events_after`,
    /// unless the change acted before the fork step (idempotence off from the start) and
    /// moved the changed run's steps in time; then the step before the same moment.
    pub changed_after: u64,
    /// The run's names (keys, nodes, records), to show what the reports hold.
    pub names: crate::sim::names::Names,
}

fn run(s: &Scenario, seed: Option<u64>) -> Simulation {
    let mut sim = s.simulation(seed);
    sim.run(RunLimit::Completion);
    sim
}

/// One future: its report, and its events after `from` (the step after it is where the
/// futures part, when they do). Each duplicate, lost write and aborted read the oracle finds
/// after `from` is listed too (`findings`), and each input at-most-once skipped
/// (`skipped_inputs`): a duplicate that comes from a replay (a consumer re-reading from its
/// committed offset) has no notable event of its own, and without these lines a side would
/// not say where its counts come from.
fn side(s: &Scenario, seed: Option<u64>, sim: &Simulation, from: u64) -> ForkSide {
    let mut report = Report::counts(s.name(), sim);
    // Each line: its step, and the note or the oracle's finding (after the step's notes).
    let mut lines: Vec<(u64, Result<&Note, String>)> = sim
        .trace()
        .iter()
        .filter(|r| r.step > from)
        .flat_map(|r| {
            r.notes
                .iter()
                // The step where the futures part, whole; then what is notable, without
                // the routine acknowledgements and COMMIT markers, which would fill the
                // list (a commit is said once, when its producer hears it) and push the
                // crashes and aborts out of sight.
                .filter(move |n| {
                    r.step == from + 1
                        || n.notable().is_some_and(|k| k != Notable::Delivered)
                            && !matches!(
                                n,
                                Note::MarkerWritten {
                                    control: crate::kafka::txn_index::ControlType::Commit,
                                    ..
                                }
                            )
                })
                .map(move |n| (r.step, Ok(n)))
        })
        .collect();
    lines.extend(findings(sim, from));
    lines.extend(skipped_inputs(sim, &report, from));
    crate::order::sort_by_key(&mut lines, |(step, line)| (*step, line.is_err()));
    let more = lines.len().saturating_sub(EVENTS_LISTED);
    let mut commits = Vec::new();
    let events = lines
        .into_iter()
        .take(EVENTS_LISTED)
        .map(|(step, line)| match line {
            Ok(n) => {
                commits.push(matches!(n, Note::TxnEnded { commit: true, .. }));
                (step, narrate(&sim.names, n))
            }
            Err(finding) => {
                commits.push(false);
                (step, finding)
            }
        })
        .collect();
    // A Flink job's loss or over-count shows against its failure-free twin, not in the
    // Kafka counts (an upsert or append sink writes to no topic).
    if let Some(f) = report.flink.as_mut() {
        f.versus_failure_free = crate::flink::report::versus_failure_free(s, seed, sim);
    }
    ForkSide {
        report,
        events,
        more,
        commits,
    }
}

/// Each side without the commits the other side lists word for word: routine commits both
/// futures make would fill the lists and fold the crashes and aborts away.
fn without_shared_commits(a: ForkSide, b: ForkSide) -> (ForkSide, ForkSide) {
    let keep = |x: &ForkSide, other: &ForkSide| -> Vec<bool> {
        x.events
            .iter()
            .zip(&x.commits)
            .map(|((_, text), commit)| !commit || !other.events.iter().any(|(_, t)| t == text))
            .collect()
    };
    let (ka, kb) = (keep(&a, &b), keep(&b, &a));
    let filter = |mut x: ForkSide, k: Vec<bool>| {
        let mut i = 0;
        x.events.retain(|_| {
            i += 1;
            k.get(i - 1).copied().unwrap_or(true)
        });
        x.commits = vec![false; x.events.len()];
        x
    };
    (filter(a, ka), filter(b, kb))
}

/// What a finding line of a side starts with (the page keeps these in view).
pub const FINDINGS: [&str; 3] = ["Duplicate: ", "Lost: ", "Aborted read: "];

/// Whether an event line of a side is one of the oracle's findings.
pub fn is_finding(line: &str) -> bool {
    FINDINGS.iter().any(|f| line.starts_with(f))
}

/// The oracle's duplicates, lost writes and aborted reads after `from`, each at the step
/// that makes it: a duplicate where its second readable copy was appended (not where its
/// evidence ends, an acknowledgement some steps later), the others where their evidence
/// ends.
fn findings<'a>(sim: &Simulation, from: u64) -> Vec<(u64, Result<&'a Note, String>)> {
    use crate::oracle::anomalies::{find, readable_copies, AnomalyKind};
    let copies = readable_copies(sim);
    find(sim)
        .into_iter()
        .filter_map(|a| {
            let what = match a.kind {
                AnomalyKind::Duplicate => "Duplicate",
                AnomalyKind::LostWrite => "Lost",
                AnomalyKind::AbortedRead => "Aborted read",
                _ => return None,
            };
            let second_copy = a
                .record
                .filter(|_| a.kind == AnomalyKind::Duplicate)
                .and_then(|id| {
                    let at = copies.get(&id)?;
                    let mut steps: Vec<u64> = sim
                        .ledger
                        .get(id)?
                        .appends
                        .iter()
                        .filter(|c| at.contains(&(c.tp, c.offset)))
                        .map(|c| c.step)
                        .collect();
                    crate::order::sort(&mut steps);
                    steps.get(1).copied()
                });
            // An aborted read where the reader read it (its record's evidence ends with the
            // abort, often long before).
            let read = a
                .record
                .filter(|_| a.kind == AnomalyKind::AbortedRead)
                .and_then(|id| {
                    let at = sim
                        .consumers
                        .iter()
                        .flat_map(|c| c.reads.iter())
                        .filter(|r| r.value == id)
                        .map(|r| r.at)
                        .max()?;
                    sim.trace().iter().find(|r| r.time >= at).map(|r| r.step)
                });
            // (A finding with no evidence steps is listed at the run's end.)
            let at = second_copy
                .or(read)
                .or_else(|| a.events.iter().copied().max())
                .or_else(|| sim.trace().last().map(|r| r.step))
                .filter(|at| *at > from)?;
            Some((at, Err(format!("{what}: {}.", a.detail))))
        })
        .collect()
}

/// A processor's input with no output in any log (at-most-once's loss: its offset was
/// committed before its output was written, and the crash took the output), listed where
/// the processor resumes past it: no anomaly names it, as no output record was ever stored.
fn skipped_inputs<'a>(
    sim: &Simulation,
    report: &Report,
    from: u64,
) -> Vec<(u64, Result<&'a Note, String>)> {
    let Some(p) = report.processing.as_ref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for d in &report.deliveries {
        if p.ledger.get(&d.record) != Some(&0) {
            continue;
        }
        let (Some(topic), Some(partition), Some(offset)) = (&d.topic, d.partition, d.offset) else {
            continue;
        };
        let place = format!("{topic}-{partition}");
        let resumed = sim.trace().iter().filter(|r| r.step > from).find_map(|r| {
            r.notes.iter().find_map(|n| match n {
                Note::ResumedFromCommitted {
                    consumer: consumer @ crate::ids::NodeId::Processor(_),
                    offsets,
                    ..
                } => offsets
                    .iter()
                    .find(|(tp, o)| sim.names.tp(*tp) == place && o.is_some_and(|o| o > offset))
                    .and_then(|(_, o)| *o)
                    .map(|o| (r.step, *consumer, o)),
                _ => None,
            })
        });
        if let Some((step, processor, resumed_at)) = resumed {
            let key = d
                .key
                .as_ref()
                .map(|k| format!(" (key \"{k}\")"))
                .unwrap_or_default();
            out.push((
                step,
                Err(format!(
                    "Lost: {} resumes {place} at offset {resumed_at}, past record {}{key} at offset {offset}, whose offset was committed before its output was written: no output of it is in any log.",
                    sim.names.node(processor),
                    d.record
                )),
            ));
        }
    }
    out
}

/// The records whose fate differs, in record order: each delivery (named as the logs name
/// it: `v4′` for an output), then, for a Flink job, each input's way through the job.
fn fates(a: &Simulation, as_is: &Report, changed: &Report) -> Vec<FateDiff> {
    // Record order: the producers' records, then each stage's outputs (`v4` before `v0′`).
    let number = |name: &str| {
        let primes = name.chars().filter(|c| *c == '′').count() as u32;
        let base = name
            .trim_start_matches('v')
            .trim_end_matches('′')
            .parse::<u32>()
            .unwrap_or(u32::MAX);
        (primes, base)
    };
    let mut out: Vec<((u32, u32), u8, FateDiff)> = as_is
        .deliveries
        .iter()
        .filter_map(|d| {
            let e = changed.deliveries.iter().find(|e| e.record == d.record)?;
            let (x, y) = (fate(d), fate(e));
            (x != y).then(|| {
                let diff = FateDiff {
                    subject: Subject::Record(d.record.clone()),
                    as_is: x,
                    changed: y,
                };
                (number(&d.record), 0, diff)
            })
        })
        .collect();
    if let (Some(x), Some(y)) = (&as_is.flink, &changed.flink) {
        let empty = LedgerLine::default();
        let inputs = crate::order::set_of(x.ledger.keys().chain(y.ledger.keys()));
        for input in inputs {
            let (l, m) = (
                x.ledger.get(input).unwrap_or(&empty),
                y.ledger.get(input).unwrap_or(&empty),
            );
            if l != m {
                let diff = FateDiff {
                    subject: Subject::Record(input.clone()),
                    as_is: Fate::Flink(l.clone()),
                    changed: Fate::Flink(m.clone()),
                };
                out.push((number(input), 1, diff));
            }
        }
    }
    crate::order::sort_by_key(&mut out, |(id, kind, _)| (*id, *kind));
    let mut rows: Vec<FateDiff> = out.into_iter().map(|(_, _, d)| d).collect();
    // What each reader read: an isolation level changes no record's fate, only this.
    for (name, r) in &as_is.reads {
        let Some(q) = changed.reads.get(name) else {
            continue;
        };
        let read = |r: &crate::report::Reads| Fate::Read {
            isolation: r.isolation.clone(),
            records: r.records,
        };
        let (x, y) = (read(r), read(q));
        if x != y {
            rows.push(FateDiff {
                subject: Subject::Reader(name.clone()),
                as_is: x,
                changed: y,
            });
        }
    }
    // The keyed state (or upserted value) each future ends with, where they differ: an
    // over-count is in no record's own story.
    if let (Some(x), Some(y)) = (&as_is.flink, &changed.flink) {
        let d = crate::flink::outcome::diff(&x.output, &y.output);
        rows.extend(d.state_differs.iter().map(|(key, was, is)| FateDiff {
            subject: Subject::Key(a.names.key(Some(*key)).unwrap_or_else(|| key.to_string())),
            as_is: Fate::State(*was),
            changed: Fate::State(*is),
        }));
    }
    rows
}

/// What happened to a record: its status and how many readable copies it has where.
fn fate(d: &Delivery) -> Fate {
    let mut partitions: Vec<String> = d
        .copies
        .iter()
        .map(|c| {
            c.split_once('@')
                .map_or(c.as_str(), |(tp, _)| tp)
                .to_string()
        })
        .collect();
    partitions.dedup();
    Fate::Delivery {
        // Not "failed": nothing was ever sent (at-most-once's output of an input whose
        // offset was committed before the crash).
        status: if d.attempts == 0 && d.copies.is_empty() {
            "never sent".to_string()
        } else {
            d.status.clone()
        },
        copies: d.copies.len(),
        partitions,
    }
}

/// Forks `s` at step `at` with `change` made. Refused when the change does not apply.
pub fn fork(s: &Scenario, seed: Option<u64>, change: &TryAction, at: u64) -> Result<Fork, String> {
    let other = try_it(change).apply(s).map_err(|e| e.to_string())?;
    let (a, b) = (run(s, seed), run(&other, seed));
    let told = |r: &StepRecord, sim: &Simulation| -> Vec<String> {
        r.notes.iter().map(|n| narrate(&sim.names, n)).collect()
    };
    let steps = a.trace().iter().zip(b.trace());
    // The first step the runs tell differently. The hash each step already adds to the
    // trace's finds the first that differs at all (a derived comparison of the records
    // would ship a second walk over every note kind in the page); a step can differ in a
    // detail no sentence tells (a fetch's isolation level, an AT_LEAST_ONCE snapshot's
    // tracking on a one-input job), and a reader shown two identical lists at "they part"
    // is misled, so from there on the steps are compared as told.
    let diverged_at = steps
        .skip_while(|(x, y)| crate::hash::stable_hash(*x) == crate::hash::stable_hash(*y))
        .find(|(x, y)| told(x, &a) != told(y, &b))
        .map(|(x, _)| x.step)
        .or_else(|| {
            let (la, lb) = (a.trace().len(), b.trace().len());
            (la != lb).then(|| la.min(lb) as u64 + 1)
        });
    // The events listed start where the futures part (before that they are the same), the
    // fork's own step included when they part there; parted before the fork, after it.
    let from = match diverged_at {
        Some(d) if d >= at => d.saturating_sub(1),
        _ => at,
    };
    // Parted before the fork step: the two runs' step numbers no longer name the same
    // moments, so the changed side starts where the as-is side's list starts in time.
    let changed_from = if diverged_at.is_some_and(|d| d < at) {
        let start = usize::try_from(from).unwrap_or(usize::MAX);
        let moment = match a.trace().get(start) {
            Some(first) => first.time,
            None => a.trace().last().map_or(0, |r| r.time + 1),
        };
        b.trace().partition_point(|r| r.time < moment) as u64
    } else {
        from
    };
    let (as_is, changed) = (
        side(s, seed, &a, from),
        side(&other, seed, &b, changed_from),
    );
    let (as_is, changed) = without_shared_commits(as_is, changed);
    let fates = fates(&a, &as_is.report, &changed.report);
    Ok(Fork {
        at,
        diverged_at,
        as_is,
        changed,
        fates,
        events_after: from,
        changed_after: changed_from,
        names: a.names.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_says_which_way_it_flips() {
        let cases = [
            (
                "flink-backpressure-unaligned",
                TryAction::Flip(Flip::Unaligned),
                "checkpoints: unaligned → aligned",
            ),
            (
                "flink-alignment-two-inputs",
                TryAction::Flip(Flip::Idempotence),
                "idempotence (web): on → off",
            ),
            (
                "flink-at-least-once-overcount",
                TryAction::Flip(Flip::Checkpointing),
                "checkpointing: AT_LEAST_ONCE → EXACTLY_ONCE",
            ),
            (
                "rpw-crash-at-least-once",
                TryAction::Guarantee(Guarantee::ExactlyOnce),
                "guarantee: at-least-once → exactly-once",
            ),
            (
                "lost-ack-idempotence-off",
                TryAction::Flip(Flip::Idempotence),
                "idempotence (app): off → on",
            ),
            // A transactional producer always has idempotence: only the plain one flips.
            (
                "txn-producer-crash-stalls-readers",
                TryAction::Flip(Flip::Idempotence),
                "idempotence (plain-app): on → off",
            ),
            (
                "paused-leader-fenced-loss",
                TryAction::Flip(Flip::Acks),
                "acks (app): 1 → all",
            ),
            // Idempotence by default needs acks=all: the label says it goes with it.
            (
                "unclean-election-loss",
                TryAction::Flip(Flip::Acks),
                "acks (app): all → 1, so idempotence off (it needs acks=all)",
            ),
            // Two consumers at two levels: both listed, in the scenario's order.
            (
                "seed-commit-abort",
                TryAction::Flip(Flip::Isolation),
                "isolation: read_committed/read_uncommitted → read_uncommitted/read_committed",
            ),
        ];
        for (name, action, expected) in cases {
            let s = crate::builtin::get(name).expect("built-in");
            assert_eq!(change_label(&s, &action), expected, "{name}");
        }
        // The fork offers acks where a producer may take acks=1, not where idempotence is
        // set on (Kafka refuses it) or every producer is transactional.
        let offers_acks = |name: &str| {
            let s = crate::builtin::get(name).expect("built-in");
            changes(&s).contains(&TryAction::Flip(Flip::Acks))
        };
        assert!(offers_acks("paused-leader-fenced-loss"));
        assert!(!offers_acks("zombie-fencing"));
    }

    #[test]
    fn a_flink_fork_shows_each_future_against_its_failure_free_run_and_the_inputs_that_differ() {
        // AT_LEAST_ONCE over-counts after the failover; EXACTLY_ONCE does not.
        let s = crate::builtin::get("flink-at-least-once-overcount").expect("built-in");
        let f = fork(&s, None, &TryAction::Flip(Flip::Checkpointing), 0).expect("applies");
        let versus = |side: &ForkSide| {
            side.report
                .flink
                .as_ref()
                .and_then(|x| x.versus_failure_free.clone())
                .expect("compared with the failure-free run")
        };
        let (as_is, changed) = (versus(&f.as_is), versus(&f.changed));
        assert!(!as_is.state_differs.is_empty(), "{as_is:?}");
        assert!(changed.is_empty(), "{changed:?}");
        // Both futures count the replayed records twice; EXACTLY_ONCE's restore takes the
        // first count back, so only the state differs: key alice ends at 46 and at 40.
        let (key, was, is) = as_is.state_differs[0];
        assert_eq!(key, 0);
        let row = f.fates.iter().find(|d| d.subject.describe() == "key alice");
        assert_eq!(
            row.map(|d| (d.as_is.describe(), d.changed.describe())),
            Some((format!("state {is}"), format!("state {was}"))),
            "{:?}",
            f.fates
        );
    }

    #[test]
    fn fork_rows_are_the_fates_that_differ_named_as_the_logs_name_them() {
        // At-least-once stores v7′ twice; exactly-once once. Only that differs (not every
        // later offset, which the transaction markers shift), and what the reader read.
        let s = crate::builtin::get("rpw-crash-at-least-once").expect("built-in");
        let action = TryAction::Guarantee(Guarantee::ExactlyOnce);
        let f = fork(&s, None, &action, 0).expect("applies");
        let rows: Vec<(String, String, String)> = f
            .fates
            .iter()
            .map(|d| {
                (
                    d.subject.describe(),
                    d.as_is.describe(),
                    d.changed.describe(),
                )
            })
            .collect();
        let owned = |r: [&str; 3]| r.map(String::from).into();
        assert_eq!(
            rows,
            [
                owned([
                    "v7′",
                    "delivered, 2 copies in invoices-0",
                    "delivered, 1 copy in invoices-0"
                ]),
                owned([
                    "consumer auditor",
                    "read_committed: read 13",
                    "read_committed: read 12"
                ]),
            ]
        );
    }

    #[test]
    fn a_change_that_acts_before_the_fork_lists_the_changed_future_from_the_same_moment() {
        // Idempotence off: no producer id is asked for, so the changed run's steps are
        // other moments than the as-is run's from the start.
        let s = crate::builtin::get("seed-frozen-broker").expect("built-in");
        let f = fork(&s, None, &TryAction::Flip(Flip::Idempotence), 6).expect("applies");
        assert!(f.diverged_at.is_some_and(|d| d <= 6), "{:?}", f.diverged_at);
        assert_eq!(f.events_after, 6);
        let (a, b) = (
            run(&s, None),
            run(
                &try_it(&TryAction::Flip(Flip::Idempotence))
                    .apply(&s)
                    .expect("applies"),
                None,
            ),
        );
        let time = |sim: &Simulation, step: u64| {
            sim.trace()[usize::try_from(step).expect("fits") - 1].time
        };
        let first = |side: &ForkSide| side.events.first().map(|e| e.0).expect("events");
        // Both lists start at the as-is side's next moment, whatever its step number there.
        let moment = time(&a, f.events_after + 1);
        assert_eq!(time(&b, first(&f.changed)), time(&b, f.changed_after + 1));
        assert!(time(&b, f.changed_after + 1) >= moment);
        assert!(f.changed_after == 0 || time(&b, f.changed_after) < moment);
        assert_ne!(
            f.changed_after, f.events_after,
            "the step numbers differ here"
        );
    }

    #[test]
    fn commits_both_futures_make_are_not_listed() {
        // The exactly-once processor commits the same transactions in both futures up to its
        // crash; a change to the auditor's isolation level changes none of them.
        let s = crate::builtin::get("rpw-crash-exactly-once").expect("built-in");
        let f = fork(&s, None, &TryAction::Flip(Flip::Isolation), 0).expect("applies");
        for (x, y) in [(&f.as_is, &f.changed), (&f.changed, &f.as_is)] {
            assert!(
                !x.events.iter().any(
                    |(_, t)| t.contains("is committed") && y.events.iter().any(|(_, u)| u == t)
                ),
                "{:#?}",
                x.events
            );
        }
        // The read_uncommitted future's aborted read is listed where the auditor reads it.
        let (step, _) = f
            .changed
            .events
            .iter()
            .find(|(_, t)| t.starts_with("Aborted read: auditor (read_uncommitted) read v7′"))
            .expect("the aborted read is listed");
        assert!(f
            .changed
            .events
            .iter()
            .any(|(s, t)| s < step && t.contains("to auditor")));
        // Under another guarantee the commits are the changed future's own: listed.
        let g = fork(&s, None, &TryAction::Guarantee(Guarantee::AtLeastOnce), 0).expect("applies");
        assert!(g
            .as_is
            .events
            .iter()
            .any(|(_, t)| t.contains("is committed")));
    }

    /// The step whose narration contains `words`, in the scenario's run.
    fn a_sim_step(s: &Scenario, words: &str) -> u64 {
        let sim = run(s, None);
        sim.trace()
            .iter()
            .find(|r| {
                r.notes
                    .iter()
                    .any(|n| narrate(&sim.names, n).contains(words))
            })
            .map(|r| r.step)
            .unwrap_or_else(|| panic!("no step says {words}"))
    }

    #[test]
    fn a_duplicate_from_a_replay_is_listed_where_its_second_copy_is_appended() {
        // At-least-once: the processor crashes after its output is appended, before it
        // commits, and re-reads from its committed offset. No notable event makes the second
        // copy (it is a plain append); the oracle's finding is listed in its place.
        let s = crate::builtin::get("rpw-crash-at-least-once").expect("built-in");
        let f = fork(&s, None, &TryAction::Guarantee(Guarantee::ExactlyOnce), 5).expect("applies");
        assert!(f.as_is.report.outcome.duplicates > 0);
        let restart = f
            .as_is
            .events
            .iter()
            .position(|(_, t)| t.contains("restarts"))
            .expect("the restart is listed");
        let (at, line) = f
            .as_is
            .events
            .iter()
            .find(|(_, t)| t.starts_with("Duplicate: "))
            .expect("the duplicate is listed");
        assert!(line.contains("is stored 2 times"), "{line}");
        // At the step that appends the second copy (v7′ at offset 8 of invoices-0), not at
        // the acknowledgement that ends its evidence.
        let appended = f
            .as_is
            .events
            .iter()
            .position(|(_, t)| t.starts_with("Duplicate: "))
            .map(|_| *at);
        let second = a_sim_step(&s, "broker 0 appends record v7′ at offset 8 of invoices-0");
        assert_eq!(appended, Some(second));
        assert!(f.as_is.events[restart].0 < *at);
        // Listed in step order, after the notes of its own step.
        assert!(f.as_is.events.windows(2).all(|w| w[0].0 <= w[1].0));
        // The exactly-once future has none, and says none.
        assert_eq!(f.changed.report.outcome.duplicates, 0);
        assert!(!f
            .changed
            .events
            .iter()
            .any(|(_, t)| t.starts_with("Duplicate")));
        // At-most-once loses the input whose offset it committed before the crash: no
        // anomaly names it (no output was stored), so the side says where it is skipped.
        let amo = fork(&s, None, &TryAction::Guarantee(Guarantee::AtMostOnce), 5).expect("applies");
        assert_eq!(amo.changed.report.outcome.lost, 1);
        let lost: Vec<&(u64, String)> = amo
            .changed
            .events
            .iter()
            .filter(|(_, t)| t.starts_with("Lost: "))
            .collect();
        assert_eq!(lost.len(), 1, "{:#?}", amo.changed.events);
        assert!(
            lost[0].1.contains("billing resumes orders-0 at offset 8, past record v7 (key \"order-7\") at offset 7"),
            "{}",
            lost[0].1
        );
        let restart = amo
            .changed
            .events
            .iter()
            .find(|(_, t)| t.contains("restarts"))
            .map(|(step, _)| *step);
        assert!(
            restart.is_some_and(|r| r < lost[0].0),
            "{:#?}",
            amo.changed.events
        );
        assert!(!amo
            .as_is
            .events
            .iter()
            .any(|(_, t)| t.starts_with("Lost: ")));
        // Its output was never sent: not "failed".
        let row = amo
            .fates
            .iter()
            .find(|r| r.subject == Subject::Record("v7′".into()))
            .expect("v7′ differs");
        assert_eq!(row.changed.describe(), "never sent, no copy readable");
        // A finding before the fork step is not this future's news.
        let late =
            fork(&s, None, &TryAction::Guarantee(Guarantee::ExactlyOnce), *at).expect("applies");
        assert!(!late
            .as_is
            .events
            .iter()
            .any(|(_, t)| t.starts_with("Duplicate")));
    }

    #[test]
    fn the_runs_part_where_they_first_tell_something_different() {
        // AT_LEAST_ONCE on a one-input job aligns nothing: the runs differ only in a
        // snapshot's bookkeeping no sentence tells, so the fork says the change makes none.
        let s = crate::builtin::get("flink-barrier-walkthrough").expect("built-in");
        let f = fork(&s, None, &TryAction::Flip(Flip::Checkpointing), 0).expect("applies");
        assert_eq!(f.diverged_at, None, "{:#?}", f.as_is.events);
        // Wherever a fork of a built-in says they part, the step's lines differ.
        for name in crate::builtin::names() {
            let s = crate::builtin::get(&name).expect("built-in");
            for change in changes(&s) {
                let f = fork(&s, None, &change, 0).expect("applies");
                let Some(d) = f.diverged_at else { continue };
                let at = |side: &ForkSide| -> Vec<String> {
                    let lines = side.events.iter().filter(|(step, _)| *step == d);
                    lines.map(|(_, t)| t.clone()).collect()
                };
                assert_ne!(at(&f.as_is), at(&f.changed), "{name}: {change:?} at {d}");
            }
        }
    }

    #[test]
    fn the_events_start_with_the_step_where_the_futures_part_and_say_how_many_more() {
        let s = crate::builtin::get("flink-at-least-once-overcount").expect("built-in");
        let f = fork(&s, None, &TryAction::Flip(Flip::Checkpointing), 0).expect("applies");
        let parted = f.diverged_at.expect("they part");
        assert_eq!(f.events_after, parted - 1);
        for side in [&f.as_is, &f.changed] {
            assert_eq!(
                side.events.first().map(|e| e.0),
                Some(parted),
                "{:?}",
                side.events
            );
            assert!(side.events.len() <= EVENTS_LISTED);
            assert!(!side
                .events
                .iter()
                .any(|(_, t)| t.contains("gets its acknowledgement")));
        }
        // The story of the as-is future: the barrier that does not block, the crash, the
        // failover and the restore, then the checkpoints; all of it fits.
        let story: Vec<&str> = f.as_is.events.iter().map(|(_, t)| t.as_str()).collect();
        for words in [
            "is not blocked",
            "crashes",
            "fails over",
            "restarts from checkpoint 1",
        ] {
            assert!(
                story.iter().any(|t| t.contains(words)),
                "{words}: {story:#?}"
            );
        }
        assert_eq!(f.as_is.more, 0);
        // A longer future says how many more there are.
        let long = crate::builtin::get("rpw-cost").expect("built-in");
        let action = TryAction::Guarantee(Guarantee::AtLeastOnce);
        let g = fork(&long, None, &action, 0).expect("applies");
        let listed = g.as_is.events.len();
        assert!(listed > EVENTS_SHOWN, "{listed}");
        assert!(g.as_is.more == 0 || listed == EVENTS_LISTED, "{listed}");
        // The longest lists stop at EVENTS_LISTED and count the rest.
        let longest = crate::builtin::get("flink-backpressure-aligned").expect("built-in");
        let h = fork(&longest, None, &TryAction::Flip(Flip::Unaligned), 0).expect("applies");
        for side in [&h.as_is, &h.changed] {
            assert!(side.events.len() <= EVENTS_LISTED);
            assert!(side.more == 0 || side.events.len() == EVENTS_LISTED);
        }
        // No transactions in this job: the protocol is not offered.
        assert!(!changes(&s).contains(&TryAction::Flip(Flip::TransactionProtocol)));
    }
}
