//! What is drawn, computed from simulation state by pure functions: no Yew, no DOM, so it
//! is tested natively.

pub mod arrow_labels;
pub mod checkpoints;
pub mod cost;
pub mod diagram;
pub mod effects;
pub mod gist;
pub mod inspector;
pub mod lesson;
mod lost_message;
pub mod message_words;
pub mod outcomes;
mod quiet;
pub mod timers;

use crate::i18n::{duration, either, Lang, S};
use eos_core::ids::{NodeId, Tp};
use eos_core::kafka::producer::ClientState;
use eos_core::sim::narration_repeats::narrate_in;
use eos_core::sim::note::Notable;
use eos_core::sim::observe::TxnCellState;
use eos_core::sim::simulation::StepKind;
use eos_core::sim::Simulation;
use eos_core::time::SimTime;

#[derive(Clone, Debug, PartialEq)]
pub struct CellVm {
    pub offset: u64,
    pub key: String,
    pub value: String,
    pub meta: String,
    /// CSS classes: `dup` (a second copy), `zombie` (see `zombie`), `uncommitted` (at or
    /// above the HW).
    pub classes: String,
    /// What the tooltip says, kept raw: the sentence is written only when a cell is drawn
    /// (`title`), not for every cell at every step.
    pub marker: Option<String>,
    pub producer_id: i64,
    pub epoch: i16,
    pub sequence: i32,
    pub txn: Option<TxnCellState>,
    pub duplicate: bool,
    /// Only a deposed leader holds it, above its high watermark: no consumer reads it, and it
    /// is truncated when the broker learns it was deposed (a duplicate here is tagged as a
    /// zombie copy, not counted by the oracle).
    pub zombie: bool,
}

impl CellVm {
    /// The cell's tooltip: what the record or marker is.
    pub fn title(&self, lang: Lang) -> String {
        match &self.marker {
            Some(m) => S::MarkerCellTip.f(lang, &[&self.offset, m, &self.producer_id, &self.epoch]),
            None => {
                let txn = self
                    .txn
                    .map(|t| S::InTransaction.f(lang, &[&txn_word(t, lang)]))
                    .unwrap_or_default();
                let dup = match (self.zombie, self.duplicate) {
                    (true, _) => S::AZombieCopy.get(lang),
                    (false, true) => S::ADuplicate.get(lang),
                    (false, false) => "",
                };
                // Words, not the cell's terse "pid 0 · e0 · seq 0": a screen reader says it.
                let id = if self.producer_id < 0 {
                    S::NoPid.get(lang).to_string()
                } else {
                    S::PidEpochSeqWords.f(lang, &[&self.producer_id, &self.epoch, &self.sequence])
                };
                S::RecordCellTip.f(
                    lang,
                    &[&self.offset, &self.value, &self.key, &id, &txn, &dup],
                )
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct PartitionVm {
    pub tp: Tp,
    pub broker: u8,
    pub title: String,
    /// This replica leads the partition (readers are served from it).
    pub leader: bool,
    pub role: String,
    /// The role line says something is wrong with the replication: a leader with replicas
    /// out of its ISR, a follower out of sync or cut off.
    pub role_warn: bool,
    pub status: &'static str,
    pub cells: Vec<CellVm>,
    /// Records before the first cell, not drawn.
    pub earlier: usize,
    /// The step just taken recognised a duplicate batch here: what to say as it flashes.
    pub dedup: Option<String>,
    /// Transactional writes the leader holds while it asks the transaction coordinator about
    /// the partition (KIP-890), queued ones included.
    pub held: usize,
    pub high_watermark: u64,
    pub last_stable_offset: u64,
    pub log_end_offset: u64,
}

/// The most cells a log shows: the latest (a long run would redraw thousands every step).
pub const LOG_CELLS_SHOWN: usize = 64;
/// The first cell shown moves by this many at a time, so most steps only add a cell.
pub const LOG_CELLS_STRIDE: usize = 16;

/// Every replica's log, in the stage's order (the logs export draws them all).
pub fn partitions(sim: &Simulation, lang: Lang) -> Vec<PartitionVm> {
    eos_core::sim::observe::partition_views_last(sim, LOG_CELLS_SHOWN, LOG_CELLS_STRIDE)
        .into_iter()
        .map(|p| partition_vm(sim, p, lang))
        .collect()
}

/// One replica's log (the stage draws each from the live run when it is in view): none if
/// that broker holds no replica of the partition.
pub fn partition(sim: &Simulation, tp: Tp, broker: u8, lang: Lang) -> Option<PartitionVm> {
    eos_core::sim::observe::partition_view_last(sim, tp, broker, LOG_CELLS_SHOWN, LOG_CELLS_STRIDE)
        .map(|p| partition_vm(sim, p, lang))
}

#[inline(never)] // one copy for the stage and the logs export
fn partition_vm(
    sim: &Simulation,
    p: eos_core::sim::observe::PartitionView,
    lang: Lang,
) -> PartitionVm {
    let status = if !p.alive {
        "crashed"
    } else if p.frozen {
        "frozen"
    } else {
        "up"
    };
    let cells = p
        .cells
        .iter()
        .map(|c| {
            let mut classes = vec!["cell"];
            let zombie = p.deposed && c.offset >= p.high_watermark;
            if zombie {
                classes.push("zombie");
            } else if c.duplicate {
                classes.push("dup");
            }
            if c.offset >= p.high_watermark {
                classes.push("uncommitted");
            }
            match c.txn {
                Some(TxnCellState::Open) => classes.push("txn-open"),
                Some(TxnCellState::Committed) => classes.push("txn-committed"),
                Some(TxnCellState::Aborted) => classes.push("txn-aborted"),
                None => {}
            }
            if let Some(m) = &c.marker {
                classes.push("marker");
                classes.push(if m == "COMMIT" {
                    "marker-commit"
                } else {
                    "marker-abort"
                });
            }
            let meta = if c.marker.is_some() {
                S::MarkerMeta.f(lang, &[&c.producer_id, &c.epoch])
            } else if c.producer_id < 0 {
                S::NoPid.get(lang).to_string()
            } else {
                // The epoch tells an aborted copy from its replay (same pid and sequence).
                S::CellMeta.f(lang, &[&c.producer_id, &c.epoch, &c.sequence])
            };
            let key = if c.marker.is_some() {
                S::Marker.get(lang).to_string()
            } else {
                c.key.clone().unwrap_or_else(|| "null".into())
            };
            CellVm {
                offset: c.offset,
                key,
                value: c.value.clone(),
                meta,
                classes: classes.join(" "),
                marker: c.marker.clone(),
                producer_id: c.producer_id,
                epoch: c.epoch,
                sequence: c.sequence,
                txn: c.txn,
                duplicate: c.duplicate,
                zombie,
            }
        })
        .collect();
    PartitionVm {
        tp: p.tp,
        broker: p.broker,
        title: p.name.clone(),
        leader: p.is_leader,
        role: match (p.is_leader, p.leader) {
            _ if p.deposed => S::BrokerDeposed.f(lang, &[&p.broker]),
            // A replicated partition's leader names its in-sync replicas; a follower out of
            // them says so: which copies an acks=all write waits for, and which may lead.
            (true, _) if p.replicas > 1 => {
                let isr: Vec<String> = p.isr.iter().map(u8::to_string).collect();
                if p.isr.len() < usize::from(p.min_insync) {
                    // Too few in sync: the high watermark is held (Kafka 3.7+).
                    S::BrokerLeaderIsrShort.f(lang, &[&p.broker, &isr.join(", "), &p.min_insync])
                } else {
                    S::BrokerLeaderIsr.f(lang, &[&p.broker, &isr.join(", ")])
                }
            }
            (true, _) => S::BrokerLeader.f(lang, &[&p.broker]),
            // A crashed broker follows no one: its log waits on its disk.
            (false, _) if !p.alive => S::BrokerDownLog.f(lang, &[&p.broker]),
            (false, Some(l)) if p.cut_off && !p.isr.contains(&p.broker) => {
                S::BrokerFollowerOutOfSyncCutOff.f(lang, &[&p.broker, &l])
            }
            (false, Some(l)) if p.cut_off => S::BrokerFollowerCutOff.f(lang, &[&p.broker, &l]),
            (false, Some(l)) if !p.isr.contains(&p.broker) => {
                S::BrokerFollowerOutOfSync.f(lang, &[&p.broker, &l])
            }
            (false, Some(l)) => S::BrokerFollower.f(lang, &[&p.broker, &l]),
            (false, None) => S::BrokerOffline.f(lang, &[&p.broker]),
        },
        role_warn: p.alive
            && !p.deposed
            && match p.leader {
                Some(l) if l == p.broker => p.isr.len() < usize::from(p.replicas),
                Some(_) => p.cut_off || !p.isr.contains(&p.broker),
                None => false,
            },
        status,
        cells,
        earlier: p.earlier,
        dedup: effects::dedup_flash(sim, p.tp, p.broker, lang),
        held: held_for_coordinator(sim, p.broker, Some(p.tp)),
        high_watermark: p.high_watermark,
        last_stable_offset: p.last_stable_offset,
        log_end_offset: p.log_end_offset,
    }
}

/// Transactional writes a broker holds while it asks the transaction coordinator about their
/// partition (KIP-890), and those queued behind them; of one partition, or all.
pub fn held_for_coordinator(sim: &Simulation, broker: u8, tp: Option<Tp>) -> usize {
    let Some(b) = sim.brokers.get(usize::from(broker)) else {
        return 0;
    };
    let held = b
        .checks
        .held
        .iter()
        .filter(|h| tp.is_none_or(|t| h.tp == t));
    let queued = b
        .checks
        .queued
        .iter()
        .filter(|q| tp.is_none_or(|t| q.tp == t));
    held.count() + queued.count()
}

fn txn_word(t: TxnCellState, lang: Lang) -> &'static str {
    match t {
        TxnCellState::Open => S::TxnOpen.get(lang),
        TxnCellState::Committed => S::TxnCommitted.get(lang),
        TxnCellState::Aborted => S::TxnAborted.get(lang),
    }
}

/// A process as the chrome names it: brokers by number in the page's language, the
/// scenario's clients and Flink's processes by their own names.
pub fn node_name(sim: &Simulation, node: NodeId, lang: Lang) -> String {
    match node {
        NodeId::Broker(i) => S::BrokerN.f(lang, &[&i]),
        other => sim.names.node(other),
    }
}

/// A process's status word (`crashed`, `up`) in the page's language.
pub fn status_word(status: &str, lang: Lang) -> &'static str {
    match status {
        "crashed" => S::Crashed.get(lang),
        "frozen" => S::Frozen.get(lang),
        _ => S::Up.get(lang),
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct EventVm {
    /// Unique in the run (the step and the note's place in it): the list's key.
    pub id: u64,
    pub step: u64,
    pub time: String,
    pub text: String,
    pub current: bool,
    /// CSS class for notable events (`retry`, `dedup`, `loss`, ...).
    pub tone: &'static str,
}

/// A note's tone: its notable kind's (`tone`), but a restart, which the jumps stop at with
/// the crashes, is a recovery: not the crash's red.
fn note_tone(note: &eos_core::sim::Note) -> &'static str {
    match note {
        eos_core::sim::Note::Restarted { .. }
        | eos_core::sim::Note::BrokerRegistration { accepted: true, .. } => "ok",
        n => tone(n.notable()),
    }
}

fn tone(n: Option<Notable>) -> &'static str {
    match n {
        Some(Notable::Retry) => "retry",
        Some(Notable::DuplicateDetected) => "dedup",
        Some(Notable::DuplicateAppended) => "dup",
        Some(Notable::Rejected) | Some(Notable::Fencing) => "reject",
        Some(Notable::Crash) | Some(Notable::Loss) => "loss",
        Some(Notable::Freeze) => "freeze",
        Some(Notable::Delivered) => "ok",
        Some(Notable::Commit) | Some(Notable::Checkpoint) => "commit",
        Some(Notable::Abort) => "abort",
        None => "",
    }
}

/// The last `limit` narrated lines, newest last; the lines of the current step are marked.
/// With `only`, just the steps that process ran or that delivered a message it sent.
pub fn events(sim: &Simulation, limit: usize, only: Option<NodeId>, lang: Lang) -> Vec<EventVm> {
    events_page(sim, limit, only, lang).0
}

/// `events`, and whether earlier lines exist before the first one returned.
pub fn events_page(
    sim: &Simulation,
    limit: usize,
    only: Option<NodeId>,
    lang: Lang,
) -> (Vec<EventVm>, bool) {
    let current = sim.steps();
    // The steps the filter keeps: that process ran them, or they delivered what it sent.
    let concerns = |rec: &eos_core::sim::StepRecord| match only {
        None => true,
        Some(node) => {
            rec.node == Some(node)
                || matches!(&rec.what, StepKind::Deliver { from, .. } if *from == node)
        }
    };
    let shown =
        |(_, rec): &(usize, &eos_core::sim::StepRecord)| !rec.notes.is_empty() && concerns(rec);
    let mut out: Vec<EventVm> = Vec::new();
    let trace = sim.trace();
    let mut records = trace.iter().enumerate().rev().filter(shown);
    for (at, rec) in records.by_ref() {
        for (i, note) in rec.notes.iter().enumerate().rev() {
            out.push(EventVm {
                id: rec.step.saturating_mul(1 << 16) | (i.min(0xffff) as u64),
                step: rec.step,
                time: duration(rec.time, lang),
                // In order, as a log: a repeated empty poll in a few words.
                text: narrate_in(&sim.names, trace, at, note),
                current: rec.step == current,
                tone: note_tone(note),
            });
        }
        if out.len() >= limit {
            break;
        }
    }
    // A current step that narrates nothing still gets a line (one of the `limit`; it is not
    // kept in the history).
    let quiet = sim
        .trace()
        .last()
        .filter(|r| r.step == current && r.notes.is_empty() && concerns(r))
        .map(|rec| EventVm {
            id: rec.step.saturating_mul(1 << 16) | 0xffff,
            step: rec.step,
            time: duration(rec.time, lang),
            // English, as the narration around it (`i18n.rs`).
            text: quiet::line(sim, rec, Lang::En),
            current: true,
            tone: "quiet",
        });
    let keep = limit.saturating_sub(usize::from(quiet.is_some()));
    let earlier = out.len() > keep || records.next().is_some();
    out.truncate(keep);
    out.reverse();
    out.extend(quiet);
    (out, earlier)
}

/// The current step's narration as one caption (a lesson's controls bar shows it, so that a
/// step forward says what it did while the log is out of view): its notes' sentences in
/// order, or the quiet line of a step that narrates nothing. None before the first step.
#[derive(Clone, Debug, PartialEq)]
pub struct NowVm {
    pub step: u64,
    pub text: String,
    /// The tone of its first notable note (`tone`), else "".
    pub tone: &'static str,
}

pub fn now_line(sim: &Simulation) -> Option<NowVm> {
    let trace = sim.trace();
    let (at, rec) = trace.iter().enumerate().next_back()?;
    if rec.step != sim.steps() {
        return None;
    }
    let text = if rec.notes.is_empty() {
        // English, as the narration (`i18n.rs`).
        quiet::line(sim, rec, Lang::En)
    } else {
        rec.notes
            .iter()
            .map(|n| narrate_in(&sim.names, trace, at, n))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let tone = rec
        .notes
        .iter()
        .map(note_tone)
        .find(|t| !t.is_empty())
        .unwrap_or("");
    Some(NowVm {
        step: rec.step,
        text,
        tone,
    })
}

#[derive(Clone, Debug, PartialEq)]
pub struct ProducerVm {
    pub node: NodeId,
    pub name: String,
    pub settings: String,
    pub identity: String,
    pub in_flight: usize,
    pub waiting: usize,
    pub status: &'static str,
    /// Countdown rings: requests against their timeout, batches in backoff.
    pub timers: Vec<timers::TimerVm>,
    pub more_timers: usize,
    /// "connection to broker 0 stuck …", one per broker whose connection is stalled behind
    /// a lost message.
    pub stuck: Vec<String>,
}

pub fn producers(sim: &Simulation, lang: Lang) -> Vec<ProducerVm> {
    sim.producers
        .iter()
        .map(|p| producer_vm(sim, p, lang))
        .collect()
}

/// The `index`th producer's card, if there is one.
pub fn producer(sim: &Simulation, index: usize, lang: Lang) -> Option<ProducerVm> {
    sim.producers.get(index).map(|p| producer_vm(sim, p, lang))
}

fn producer_vm(
    sim: &Simulation,
    p: &eos_core::kafka::producer::Producer,
    lang: Lang,
) -> ProducerVm {
    let node = p.node();
    let crashed = sim.status.get(&node).is_some_and(|s| s.crashed);
    let identity = match (p.is_idempotent(), p.state) {
        _ if crashed => S::ProducerDown.get(lang).to_string(),
        // Fenced and closed: it will not ask for a producer id again.
        _ if p.is_fenced() => S::ProducerClosedFenced.f(lang, &[&p.producer_id, &p.epoch]),
        _ if p.gave_up_init() => S::ProducerClosedInitGaveUp.get(lang).to_string(),
        _ if p.gave_up() => S::ProducerClosedGaveUp.get(lang).to_string(),
        // The application starts it later (the scenario's `start_ms`).
        (_, ClientState::Idle) if sim.now() < p.start_at => {
            S::StartsAt.f(lang, &[&crate::i18n::duration(p.start_at, lang)])
        }
        (false, _) => S::IdempotenceOff.get(lang).to_string(),
        (true, ClientState::Ready) => {
            let seqs: Vec<String> = p
                .next_sequence
                .iter()
                .map(|(tp, s)| S::NextSeq.f(lang, &[&sim.names.tp(*tp), s]))
                .collect();
            let mut id = S::PidEpoch.f(lang, &[&p.producer_id, &p.epoch]);
            if !seqs.is_empty() {
                id.push_str(" · ");
                id.push_str(&seqs.join(", "));
            }
            id
        }
        (true, _) => S::WaitingForPid.get(lang).to_string(),
    };
    let timers = timers::timers(sim, p, lang);
    ProducerVm {
        node,
        name: sim.names.node(node),
        settings: S::ProducerSettings.f(
            lang,
            &[
                &p.config.client.name(),
                &either(p.is_idempotent(), S::On, S::Off, lang),
                &p.config.acks.as_config(),
                &p.config.request_timeout_ms,
            ],
        ),
        identity,
        in_flight: p.in_flight.len(),
        waiting: p.pending_records(),
        status: if crashed { "crashed" } else { "up" },
        timers: timers.0,
        more_timers: timers.1,
        stuck: sim
            .network
            .stalled_peers(node)
            .into_iter()
            .map(|b| S::ConnectionStuck.f(lang, &[&sim.names.node(b)]))
            .collect(),
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct FlightVm {
    pub id: u64,
    /// Unique in the list (its key): the message id, but a copy the network duplicated is
    /// on the wire twice under one id.
    pub key: u64,
    pub route: String,
    pub label: String,
    pub arrives: String,
    /// How far along its link it is now, in per mille (sent 0, arriving 1000): the list
    /// draws it as the message moving from sender to receiver.
    pub progress: u16,
    /// Lost by the step just taken (dropped, its ack lost, or its receiver down): it fades
    /// out with a cross.
    pub lost: bool,
}

/// Per mille of the way from `sent` to `arrive` at `now`.
pub fn progress(sent: SimTime, arrive: SimTime, now: SimTime) -> u16 {
    let total = arrive.saturating_sub(sent);
    if total == 0 {
        return 1000;
    }
    let done = now.saturating_sub(sent).min(total);
    u16::try_from(u128::from(done) * 1000 / u128::from(total)).unwrap_or(1000)
}

pub fn in_flight(sim: &Simulation, lang: Lang) -> Vec<FlightVm> {
    in_flight_shown(sim, lang, usize::MAX).0
}

/// What the wire list shows: the messages the step just lost, then the first `limit` on the
/// wire by arrival; and how many more are on the wire.
pub fn in_flight_shown(sim: &Simulation, lang: Lang, limit: usize) -> (Vec<FlightVm>, usize) {
    let now = sim.now();
    // What the current step lost on the wire, first: drawn fading out with a cross.
    let mut out = effects::lost_on_the_wire(sim, lang);
    let (first, total) = sim.in_flight_first(limit);
    let more = total - first.len();
    let mut copies = std::collections::BTreeMap::<u64, u64>::new();
    out.extend(first.into_iter().map(|m| FlightVm {
        key: {
            let n = copies.entry(m.id).or_insert(0);
            *n += 1;
            if *n == 1 {
                m.id
            } else {
                effects::COPY_KEY | (m.id << 8) | (*n).min(0xff)
            }
        },
        id: m.id,
        route: effects::route(sim, m.from, m.to, lang),
        label: message_words::content(&m.label, lang),
        arrives: S::InN.f(lang, &[&duration(m.arrive_at.saturating_sub(now), lang)]),
        progress: progress(m.sent_at, m.arrive_at, now),
        lost: false,
    }));
    (out, more)
}

#[derive(Clone, Debug, PartialEq)]
pub struct ConsumerVm {
    pub node: NodeId,
    pub name: String,
    pub isolation: String,
    pub read: String,
    /// "group billing · committed orders-0 → 10", or empty without a group.
    pub group: String,
    pub status: &'static str,
}

pub fn consumers(sim: &Simulation, lang: Lang) -> Vec<ConsumerVm> {
    sim.consumers
        .iter()
        .map(|c| ConsumerVm {
            node: c.node(),
            name: sim.names.node(NodeId::Consumer(c.index)),
            status: if sim.status.get(&c.node()).is_some_and(|s| s.crashed) {
                "crashed"
            } else {
                "up"
            },
            group: match &c.settings.group {
                None => String::new(),
                Some(g) => {
                    let committed: Vec<String> = c
                        .committed
                        .iter()
                        .map(|(tp, o)| format!("{} → {o}", sim.names.tp(*tp)))
                        .collect();
                    if committed.is_empty() {
                        S::GroupNothing.f(lang, &[g])
                    } else {
                        S::GroupCommitted.f(lang, &[g, &committed.join(", ")])
                    }
                }
            },
            // The isolation level, and auto.offset.reset when it is not the default here.
            isolation: match c.settings.offset_reset {
                eos_core::kafka::OffsetReset::Earliest => {
                    c.settings.isolation.as_config().to_string()
                }
                reset => format!(
                    "{} · auto.offset.reset={}",
                    c.settings.isolation.as_config(),
                    reset.as_config()
                ),
            },
            read: if c.reads.is_empty() {
                S::NothingRead.get(lang).into()
            } else {
                // The latest 8, named as the logs name them (`v4′` for a processor's
                // output of v4), after an ellipsis when there were more.
                let shown = c.reads.len().min(8);
                let mut values: Vec<String> = c.reads[c.reads.len() - shown..]
                    .iter()
                    .map(|r| format!("{}@{}", sim.names.record(r.value), r.offset))
                    .collect();
                if shown < c.reads.len() {
                    values.insert(0, "…".to_string());
                }
                S::ReadN.f(lang, &[&c.reads.len(), &values.join(" ")])
            },
        })
        .collect()
}

#[derive(Clone, Debug, PartialEq)]
pub struct ProcessorVm {
    pub node: NodeId,
    pub name: String,
    pub guarantee: &'static str,
    pub phase: String,
    pub processed: String,
    pub client: String,
    pub status: &'static str,
}

pub fn processors(sim: &Simulation, lang: Lang) -> Vec<ProcessorVm> {
    sim.processors
        .iter()
        .map(|p| {
            let crashed = sim.status.get(&p.node()).is_some_and(|s| s.crashed);
            let positions: Vec<String> = p
                .positions
                .iter()
                .map(|(tp, o)| format!("{} @{o}", sim.names.tp(*tp)))
                .collect();
            ProcessorVm {
                node: p.node(),
                name: sim.names.node(p.node()),
                guarantee: p.settings.guarantee.name(),
                // A crashed processor's phase is what it had in memory: it is down.
                phase: if crashed {
                    S::Crashed.get(lang).to_string()
                } else {
                    phase_words(&p.phase, lang).to_string()
                },
                processed: {
                    // Its positions were only in memory: down, it has none.
                    use eos_core::kafka::processor::Phase;
                    let starting = matches!(p.phase, Phase::Initialising | Phase::Resuming { .. });
                    let input = if crashed || (positions.is_empty() && starting) {
                        S::ResumesFromCommitted.get(lang).to_string()
                    } else if positions.is_empty() {
                        S::NotStarted.get(lang).to_string()
                    } else {
                        positions.join(", ")
                    };
                    // Distinct records, as the ledger counts them; the inputs handled again
                    // after a restart are said so, and how many times when some were
                    // handled more than twice.
                    let (distinct, again, repeats) = processed_counts(&p.processed);
                    if again == 0 {
                        S::ProcessedInput.f(lang, &[&distinct, &input])
                    } else if repeats == again {
                        S::ProcessedAgainInput.f(lang, &[&distinct, &again, &input])
                    } else {
                        S::ProcessedAgainRepeatsInput
                            .f(lang, &[&distinct, &again, &repeats, &input])
                    }
                },
                client: if p.producer.producer_id < 0 {
                    S::OutputNoPid.get(lang).to_string()
                } else {
                    S::OutputPid.f(lang, &[&p.producer.producer_id, &p.producer.epoch])
                },
                status: if crashed { "crashed" } else { "up" },
            }
        })
        .collect()
}

#[derive(Clone, Debug, PartialEq)]
pub struct TxnVm {
    pub id: String,
    pub state: &'static str,
    pub detail: String,
    /// An open transaction's clock: when it times out, and when it would be aborted.
    pub clock: Option<String>,
}

/// Every transaction the coordinators know, with its state (the lit state of the machine).
pub fn transactions(sim: &Simulation, lang: Lang) -> Vec<TxnVm> {
    sim.brokers
        .iter()
        .flat_map(|b| {
            b.txn_coordinator.transactions.iter().map(move |(id, m)| {
                let parts: Vec<String> = m
                    .topic_partitions()
                    .iter()
                    .map(|tp| sim.names.tp(*tp))
                    .collect();
                // An open transaction's clock: when it runs out, and when the coordinator's
                // periodic look would abort it.
                let clock = match (m.state(), m.txn_start()) {
                    (eos_core::kafka::txn_state::TxnState::Ongoing, Some(start)) => {
                        let timeout_ms = m.txn_timeout_ms();
                        let expires = start.saturating_add(eos_core::time::ms(timeout_ms));
                        let look = b.txn_coordinator.expiry_due(start, timeout_ms);
                        let said = if sim.now() > expires {
                            S::TxnTimedOutAwaiting
                        } else {
                            S::TxnTimesOut
                        };
                        Some(said.f(lang, &[&duration(expires, lang), &duration(look, lang)]))
                    }
                    _ => None,
                };
                TxnVm {
                    id: id.clone(),
                    state: m.state().name(),
                    detail: format!(
                        "{}{}",
                        S::TxnDetail.f(lang, &[&b.id, &m.producer_id(), &m.producer_epoch()]),
                        if parts.is_empty() {
                            String::new()
                        } else {
                            format!(" · {}", parts.join(", "))
                        }
                    ),
                    clock,
                }
            })
        })
        .collect()
}

#[derive(Clone, Debug, PartialEq)]
pub struct CompareRowVm {
    pub input: String,
    /// The input's record id (`v6` is 6).
    pub id: u32,
    /// Visible output copies per lane, in lane order.
    pub copies: Vec<u32>,
    /// Per lane: no output, and no stage committed past the input (`Lane::unread`): not lost.
    pub unread: Vec<bool>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CompareVm {
    pub lanes: Vec<&'static str>,
    /// At most `COMPARE_ROWS`, those with a loss or a duplicate in some lane first chosen,
    /// shown in input order.
    pub rows: Vec<CompareRowVm>,
    /// Input records not listed.
    pub unlisted: usize,
    /// Per lane: "processed · visible · duplicates · lost", and the inputs unread.
    pub totals: Vec<(u64, u64, u64, u64, usize)>,
    /// A chain's processors, first to last, when the counts follow a record through them
    /// ("proc → mailer"); empty for one processor.
    pub stages: String,
    /// Partitions with no live leader after some lane's run ("orders-0, invoices-0"), whose
    /// records no reader can count; empty when every partition has one.
    pub offline: String,
}

/// The most input records the ledger table lists (a run may have hundreds of thousands).
pub const COMPARE_ROWS: usize = 200;

/// The per-input ledger of the three guarantees, or nothing for a scenario without a
/// read-process-write stage. Every record lost or duplicated in some lane is listed before
/// any delivered once everywhere, up to `COMPARE_ROWS` in all.
pub fn comparison(lanes: &[eos_core::compare::Lane]) -> Option<CompareVm> {
    let first = lanes.first()?;
    let mut inputs: Vec<&String> = first.ledger.keys().collect();
    eos_core::order::sort_by_key(&mut inputs, |k| {
        k.trim_start_matches('v').parse::<u64>().unwrap_or(u64::MAX)
    });
    let names = ["at-most-once", "at-least-once", "exactly-once"];
    Some(CompareVm {
        lanes: lanes
            .iter()
            .map(|l| {
                names
                    .iter()
                    .copied()
                    .find(|n| *n == l.guarantee)
                    .unwrap_or("?")
            })
            .collect(),
        unlisted: inputs.len().saturating_sub(COMPARE_ROWS),
        rows: {
            let copies = |input: &String| -> Vec<u32> {
                lanes
                    .iter()
                    .map(|l| l.ledger.get(input).copied().unwrap_or(0))
                    .collect()
            };
            let odd = inputs
                .iter()
                .filter(|i| copies(i).iter().any(|n| *n != 1))
                .count();
            // Room for records delivered once everywhere after the odd ones.
            let mut fine_room = COMPARE_ROWS.saturating_sub(odd);
            let mut odd_room = COMPARE_ROWS;
            inputs
                .into_iter()
                .filter_map(|input| {
                    let copies = copies(input);
                    let room = if copies.iter().any(|n| *n != 1) {
                        &mut odd_room
                    } else {
                        &mut fine_room
                    };
                    (*room > 0).then(|| {
                        *room -= 1;
                        CompareRowVm {
                            input: input.clone(),
                            id: input.trim_start_matches('v').parse().unwrap_or(u32::MAX),
                            copies,
                            unread: lanes.iter().map(|l| l.unread.contains(input)).collect(),
                        }
                    })
                })
                .collect()
        },
        totals: lanes
            .iter()
            .map(|l| {
                (
                    l.processed,
                    l.visible_outputs,
                    l.duplicates,
                    l.lost,
                    l.unread.len(),
                )
            })
            .collect(),
        stages: first
            .report
            .processing
            .as_ref()
            .map(|p| p.stages.join(" → "))
            .unwrap_or_default(),
        offline: {
            let mut all: Vec<&str> = Vec::new();
            for name in lanes.iter().flat_map(|l| &l.offline) {
                if !all.contains(&name.as_str()) {
                    all.push(name);
                }
            }
            all.join(", ")
        },
    })
}

/// The fault schedule as sentences, in time order.
pub fn fault_schedule(sim: &Simulation, lang: Lang) -> Vec<String> {
    let mut faults = sim.faults.clone();
    eos_core::order::sort_by_key(&mut faults, |f| f.at);
    faults
        .iter()
        .map(|f| {
            S::ScheduleAt.f(
                lang,
                &[
                    &duration(f.at, lang),
                    &eos_core::sim::narration::describe_fault(&sim.names, &f.fault),
                ],
            )
        })
        .collect()
}

/// A fault added by click, in the words of the fault schedule ("at 9 ms: crash shop"):
/// English, as the schedule's own lines are.
pub fn describe_added(f: &eos_core::scenario::schema::FaultSpec) -> String {
    // A broker as the schedule and the narration name it: "broker 0", not the file's "broker-0".
    let name = |n: &str| match n.strip_prefix("broker-") {
        Some(id) if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) => {
            format!("broker {id}")
        }
        _ => n.to_string(),
    };
    let mut what = match (f.action.as_str(), &f.target, &f.peer) {
        // A cut link, as the schedule says it.
        (action @ ("partition" | "heal"), Some(a), Some(b)) => format!(
            "{} the link between {} and {}",
            if action == "heal" { "heal" } else { "cut" },
            name(a),
            name(b)
        ),
        _ => {
            let mut what = f.action.replace('_', " ");
            for part in [&f.target, &f.message, &f.from].into_iter().flatten() {
                what.push(' ');
                what.push_str(&name(part));
            }
            what
        }
    };
    if let Some(to) = &f.to {
        what.push_str(" → ");
        what.push_str(&name(to));
    }
    if let Some(d) = f.duration_ms.or(f.extra_ms) {
        what.push_str(&format!(
            " for {}",
            duration(eos_core::time::ms(d), Lang::En)
        ));
    }
    format!(
        "at {}: {what}",
        duration(eos_core::time::ms(f.at_ms), Lang::En)
    )
}

/// Freeze lengths offered by the fault panel, in seconds; any whole number in range works.
pub const FREEZE_SECONDS: [u64; 4] = [1, 2, 6, 10];
pub const FREEZE_SECONDS_MAX: u64 = 120;

/// A seed typed in the header: any whole number a `u64` holds; anything else gets a sentence
/// saying what is allowed.
pub fn parse_seed(text: &str, lang: Lang) -> Result<u64, String> {
    let t = text.trim();
    match t.parse::<u64>() {
        Ok(s) => Ok(s),
        Err(_) if t.is_empty() => Err(S::SeedEmpty.f(lang, &[&u64::MAX])),
        Err(_) => Err(S::SeedNotNumber.f(lang, &[&t, &u64::MAX])),
    }
}

/// "6" → 6 s; anything else gets a sentence saying what is allowed.
pub fn parse_freeze_seconds(text: &str, lang: Lang) -> Result<u64, String> {
    let t = text.trim();
    match t.parse::<u64>() {
        Ok(s) if (1..=FREEZE_SECONDS_MAX).contains(&s) => Ok(s),
        Ok(s) => Err(S::FreezeOutOfRange.f(lang, &[&s, &FREEZE_SECONDS_MAX])),
        Err(_) if t.is_empty() => Err(S::FreezeEmpty.f(lang, &[&FREEZE_SECONDS_MAX])),
        Err(_) => Err(S::FreezeNotNumber.f(lang, &[&t, &FREEZE_SECONDS_MAX])),
    }
}

/// The processes that are down now, by the names the fault panel uses.
pub fn crashed_processes(sim: &Simulation) -> Vec<String> {
    sim.status
        .iter()
        .filter(|(_, st)| st.crashed)
        .map(|(node, _)| match node {
            NodeId::Broker(i) => format!("broker-{i}"),
            other => sim.names.node(*other),
        })
        .collect()
}

/// Every process, as (filter value, label) for the event log's component filter.
pub fn components(sim: &Simulation, lang: Lang) -> Vec<(String, String)> {
    diagram::lanes(sim, lang)
        .into_iter()
        .map(|l| (l.node.to_string(), l.label))
        .collect()
}

/// The process a filter value names (`broker-0`, `producer-1`, ...).
pub fn parse_component(value: &str) -> Option<NodeId> {
    let (kind, index) = value.rsplit_once('-')?;
    let i: u8 = index.parse().ok()?;
    match kind {
        "broker" => Some(NodeId::Broker(i)),
        "producer" => Some(NodeId::Producer(i)),
        "consumer" => Some(NodeId::Consumer(i)),
        "processor" => Some(NodeId::Processor(i)),
        _ => None,
    }
}

/// "step 14 · 6.005 s" and whether the run is over.
pub fn clock(sim: &Simulation, lang: Lang) -> String {
    let end = if sim.is_finished() {
        S::ClockFinished.get(lang)
    } else if sim.at_step_limit() {
        // Cut by its step limit (the page's at most): not the run's end.
        S::ClockCut.get(lang)
    } else {
        ""
    };
    let at = S::ClockStep.f(lang, &[&sim.steps(), &duration(sim.last_step_at(), lang)]);
    format!("{at}{end}")
}

/// Of a processor's processings: how many inputs, how many of them more than once, and how
/// many processings beyond each input's first.
fn processed_counts<T: Ord + Clone>(processed: &[T]) -> (usize, usize, usize) {
    let mut all = processed.to_vec();
    eos_core::order::sort(&mut all);
    let distinct = (0..all.len())
        .filter(|&i| i == 0 || all[i - 1] != all[i])
        .count();
    // The second of each run of one input.
    let again = (1..all.len())
        .filter(|&i| all[i - 1] == all[i] && (i == 1 || all[i - 2] != all[i]))
        .count();
    (distinct, again, all.len() - distinct)
}

/// A read-process-write processor's phase in words, in `lang`.
pub fn phase_words(phase: &eos_core::kafka::processor::Phase, lang: Lang) -> &'static str {
    use eos_core::kafka::processor::Phase;
    match phase {
        Phase::Idle => S::PhaseIdle,
        // Exactly-once: no reading until initTransactions has its producer id.
        Phase::Initialising => S::PhaseAwaitingPid,
        Phase::Resuming { .. } => S::PhaseResuming,
        Phase::Polling => S::PhasePolling,
        Phase::CommittingFirst { .. } => S::PhaseCommittingFirst,
        Phase::Producing => S::PhaseProducing,
        Phase::CommittingAfter { .. } => S::PhaseCommittingAfter,
        Phase::Transacting => S::PhaseTransacting,
        Phase::Stopped => S::PhaseStopped,
    }
    .get(lang)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use eos_core::sim::Note;
    use eos_core::{builtin, RunLimit};

    /// A built-in run to its end (shared with other modules' tests).
    pub(crate) fn finished(name: &str) -> Simulation {
        let mut sim = builtin::get(name).expect("built-in").simulation(None);
        sim.run(RunLimit::Completion);
        sim
    }

    #[test]
    fn the_producer_card_says_while_its_connection_is_stuck() {
        let mut sim = builtin::get("lost-ack-idempotence-off")
            .expect("built-in")
            .simulation(None);
        let stuck = |sim: &Simulation| producers(sim, Lang::En)[0].stuck.clone();
        let notes = |sim: &Simulation| effects::current_notes(sim).to_vec();
        while !notes(&sim)
            .iter()
            .any(|n| matches!(n, Note::AckLost { .. }))
        {
            assert!(stuck(&sim).is_empty(), "nothing stuck before the loss");
            assert_eq!(sim.step(), eos_core::StepOutcome::Stepped);
        }
        let s = stuck(&sim);
        assert_eq!(s.len(), 1, "{s:?}");
        assert!(s[0].starts_with("connection to broker 0 stuck"), "{s:?}");
        while !notes(&sim)
            .iter()
            .any(|n| matches!(n, Note::ConnectionClosed { .. }))
        {
            assert_eq!(
                sim.step(),
                eos_core::StepOutcome::Stepped,
                "the timeout closes it"
            );
        }
        assert!(stuck(&sim).is_empty(), "a new connection flows");
    }

    #[test]
    fn a_duplicate_copy_is_marked_in_the_log() {
        let sim = finished("lost-ack-idempotence-off");
        let parts = partitions(&sim, Lang::En);
        let dups: Vec<&CellVm> = parts[0]
            .cells
            .iter()
            .filter(|c| c.classes.contains("dup"))
            .collect();
        // The lost ack stalled the connection: v0, v1 and v2 were all retried and stored
        // again, newest first (the Java client re-enqueues a retry at the queue's head).
        let values: Vec<&str> = dups.iter().map(|c| c.value.as_str()).collect();
        assert_eq!(values, vec!["v2", "v1", "v0"]);
        assert!(dups[0].title(Lang::En).contains("DUPLICATE"));
    }

    #[test]
    fn idempotent_cells_show_producer_id_and_sequence() {
        let sim = finished(builtin::DEFAULT);
        let parts = partitions(&sim, Lang::En);
        let p0 = parts
            .iter()
            .find(|p| p.title == "events-0")
            .expect("events-0");
        assert_eq!(p0.cells.len(), 1);
        assert_eq!(p0.cells[0].meta, "pid 0 · e0 · seq 0");
        assert_eq!(p0.cells[0].key, "order-42");
        // In Russian the epoch's letter is "э", as the cards' "эпоха".
        let ru = partitions(&sim, Lang::Ru);
        let cell = &ru
            .iter()
            .find(|p| p.title == "events-0")
            .expect("events-0")
            .cells[0];
        assert_eq!(cell.meta, "pid 0 · э0 · seq 0");
    }

    #[test]
    fn frozen_broker_is_shown_frozen_while_it_is() {
        let mut sim = builtin::get(builtin::DEFAULT)
            .expect("built-in")
            .simulation(None);
        sim.run(RunLimit::Until(eos_core::time::ms(1_000)));
        assert!(partitions(&sim, Lang::En)
            .iter()
            .all(|p| p.status == "frozen"));
        sim.run(RunLimit::Until(eos_core::time::ms(7_000)));
        assert!(partitions(&sim, Lang::En).iter().all(|p| p.status == "up"));
    }

    /// Every step says what it did: a step that narrates nothing gets a quiet line of its own
    /// (for the current step only; the history keeps to the narrated steps).
    #[test]
    fn every_step_has_a_current_line() {
        let (mut quiet, mut uploads) = (0, 0);
        for (name, _) in builtin::BUILTIN {
            let mut sim = builtin::get(name).expect("built-in").simulation(None);
            while sim.step() == eos_core::StepOutcome::Stepped && sim.steps() < 400 {
                let ev = events(&sim, 14, None, Lang::En);
                let current: Vec<&EventVm> = ev.iter().filter(|e| e.current).collect();
                assert!(!current.is_empty(), "{name} step {}: no line", sim.steps());
                quiet += current.iter().filter(|e| e.tone == "quiet").count();
                uploads += current
                    .iter()
                    .filter(|e| e.text.ends_with("finishes uploading its snapshot."))
                    .count();
                // A quiet line leaves the history as it was.
                let silent = sim.trace().last().is_some_and(|r| r.notes.is_empty());
                assert_eq!(
                    silent,
                    ev.last().is_some_and(|e| e.tone == "quiet"),
                    "{name}"
                );
            }
        }
        assert!(
            quiet > 20 && uploads > 0,
            "{quiet} quiet lines, {uploads} uploads"
        );
        let mut sim = builtin::get("acks-all-leader-crash-no-loss")
            .expect("built-in")
            .simulation(None);
        sim.run(RunLimit::Steps(1));
        // In English on a Russian page too, as the narration around it.
        let ev = events(&sim, 14, None, Lang::Ru);
        assert_eq!(ev.last().map(|e| e.text.as_str()), Some("app starts."));
    }

    /// A restart is a recovery, told in the commit's green, not the crash's red (the jumps
    /// still stop at it with the crashes).
    #[test]
    fn a_restart_is_not_told_in_the_crashs_colour() {
        let mut sim = builtin::get("unclean-election-loss")
            .expect("built-in")
            .simulation(None);
        sim.run(RunLimit::Completion);
        let ev = events(&sim, 400, None, Lang::En);
        let tone_of = |words: &str| ev.iter().find(|e| e.text.contains(words)).map(|e| e.tone);
        assert_eq!(tone_of("broker 0 crashes"), Some("loss"));
        assert_eq!(tone_of("broker 0 restarts"), Some("ok"));
    }

    /// A lesson's caption tells the current step as the log does: the same sentences, in the
    /// same order (a repeated empty poll short in both), and nothing before the first step.
    #[test]
    fn the_caption_is_the_logs_current_lines() {
        for name in [
            "txn-marker-min-isr",
            "seed-frozen-broker",
            "flink-2pc-crash-recovery",
        ] {
            let mut sim = builtin::get(name).expect("built-in").simulation(None);
            assert_eq!(now_line(&sim), None, "{name}");
            let mut shortened = 0;
            while sim.step() == eos_core::StepOutcome::Stepped && sim.steps() < 300 {
                let now = now_line(&sim).expect("a caption after a step");
                let lines: Vec<String> = events(&sim, 64, None, Lang::En)
                    .into_iter()
                    .filter(|e| e.current)
                    .map(|e| e.text)
                    .collect();
                assert_eq!(now.text, lines.join(" "), "{name} step {}", sim.steps());
                assert_eq!(now.step, sim.steps());
                shortened += usize::from(now.text.contains(" again: still held"));
            }
            if name == "txn-marker-min-isr" {
                assert!(shortened >= 3, "{shortened}");
            }
        }
    }

    #[test]
    fn events_mark_the_current_step_and_tone_retries() {
        let mut sim = builtin::get(builtin::DEFAULT)
            .expect("built-in")
            .simulation(None);
        sim.run(RunLimit::Until(eos_core::time::ms(2_100)));
        let ev = events(&sim, 50, None, Lang::En);
        assert!(ev.last().is_some_and(|e| e.current));
        assert!(ev
            .iter()
            .any(|e| e.tone == "retry" && e.text.contains("request.timeout.ms")));
        assert!(events(&sim, 3, None, Lang::En).len() <= 3);
    }

    #[test]
    fn a_fenced_producer_s_card_says_it_closed_not_that_it_waits() {
        let sim = finished("zombie-fencing");
        let cards = producers(&sim, Lang::En);
        let old = cards
            .iter()
            .find(|p| p.name == "old-instance")
            .expect("card");
        assert!(
            old.identity.starts_with("closed: fenced"),
            "{}",
            old.identity
        );
        let new = cards
            .iter()
            .find(|p| p.name == "new-instance")
            .expect("card");
        assert!(
            new.identity.starts_with("pid 0 · epoch"),
            "{}",
            new.identity
        );
    }

    #[test]
    fn producer_card_shows_identity_once_it_has_one() {
        let mut sim = builtin::get(builtin::DEFAULT)
            .expect("built-in")
            .simulation(None);
        assert_eq!(
            producers(&sim, Lang::En)[0].identity,
            "waiting for a producer id"
        );
        sim.run(RunLimit::Until(eos_core::time::ms(10)));
        assert!(producers(&sim, Lang::En)[0]
            .identity
            .starts_with("pid 0 · epoch 0"));
        assert!(clock(&sim, Lang::En).starts_with("step "));
    }

    /// A fault added once the run has ended lands just after its last step, not after the
    /// stale timers the finished run went on to (two minutes later here).
    #[test]
    fn a_fault_added_after_the_end_lands_after_the_last_step() {
        let sim = finished("lost-ack-idempotence-off");
        assert!(sim.now() > sim.last_step_at() + eos_core::time::ms(60_000));
        assert_eq!(
            inspector::injection_time(&sim),
            sim.last_step_at() + eos_core::time::ms(1)
        );
    }

    #[test]
    fn the_clock_shows_the_last_step_not_stale_timers_after_it() {
        let sim = finished("lost-ack-idempotence-off");
        assert!(sim.now() > sim.last_step_at());
        assert_eq!(
            clock(&sim, Lang::En),
            format!("step {} · 5.308 s · finished", sim.steps())
        );
    }

    #[test]
    fn a_consumer_in_a_group_shows_what_it_committed() {
        let sim = finished("consumer-restart-from-commit");
        let c = &consumers(&sim, Lang::En)[0];
        assert_eq!(c.group, "group billing · committed orders-0 → 20");
        assert!(c.read.starts_with("25 read"));
    }

    #[test]
    fn transactions_colour_their_records_and_markers_are_cells() {
        let sim = finished("seed-commit-abort");
        let parts = partitions(&sim, Lang::En);
        let p1 = parts
            .iter()
            .find(|p| p.title == "events-1")
            .expect("events-1");
        let classes: Vec<&str> = p1.cells.iter().map(|c| c.classes.as_str()).collect();
        assert_eq!(
            classes,
            vec![
                "cell txn-committed",
                "cell marker marker-commit",
                "cell txn-aborted",
                "cell marker marker-abort"
            ]
        );
        assert_eq!(p1.last_stable_offset, 4);
        let txns = transactions(&sim, Lang::En);
        assert_eq!(txns.len(), 1);
        assert_eq!(txns[0].state, "CompleteAbort");
    }

    #[test]
    fn an_open_transaction_says_when_it_times_out_and_when_it_is_aborted() {
        let mut sim = builtin::get("txn-producer-crash-stalls-readers")
            .expect("built-in")
            .simulation(None);
        sim.run(RunLimit::Until(eos_core::time::ms(2_000)));
        let txns = transactions(&sim, Lang::En);
        assert_eq!(txns[0].state, "Ongoing");
        // Started at 9 ms (when the leader added the partition) with a 3 s timeout; the
        // coordinator looks every 500 ms.
        assert_eq!(
            txns[0].clock.as_deref(),
            Some(
                "times out at 3.009 s; if still open, aborted at the coordinator's look at 3.500 s"
            )
        );
        // Past its timeout, before the look: said in the past tense.
        sim.run(RunLimit::Until(eos_core::time::ms(3_200)));
        let txns = transactions(&sim, Lang::En);
        assert_eq!(
            txns[0].clock.as_deref(),
            Some("timed out at 3.009 s; the coordinator's look at 3.500 s aborts it")
        );
        sim.run(RunLimit::Completion);
        let txns = transactions(&sim, Lang::Ru);
        assert_eq!(txns[0].state, "CompleteAbort");
        assert_eq!(txns[0].clock, None);
    }

    #[test]
    fn a_fault_added_by_click_names_a_broker_as_the_schedule_does() {
        use eos_core::scenario::schema::FaultSpec;
        let crash = |target: &str| FaultSpec {
            at_ms: 9,
            action: "crash".into(),
            target: Some(target.into()),
            ..Default::default()
        };
        assert_eq!(
            describe_added(&crash("broker-0")),
            "at 9 ms: crash broker 0"
        );
        assert_eq!(
            describe_added(&crash("broker-x")),
            "at 9 ms: crash broker-x"
        );
        assert_eq!(describe_added(&crash("app")), "at 9 ms: crash app");
        let cut = FaultSpec {
            at_ms: 120_201,
            action: "partition".into(),
            target: Some("app".into()),
            peer: Some("broker-0".into()),
            ..Default::default()
        };
        assert_eq!(
            describe_added(&cut),
            "at 120.201 s: cut the link between app and broker 0"
        );
    }

    #[test]
    fn a_consumer_card_names_outputs_as_the_logs_do() {
        let sim = finished("rpw-crash-exactly-once");
        let read = &consumers(&sim, Lang::En)[0].read;
        // 12 outputs read; the latest 8 shown after an ellipsis, as v4′ (not v16).
        assert!(read.starts_with("12 read: … v4′@"), "{read}");
        assert!(read.ends_with("v11′@20"), "{read}");
    }

    #[test]
    fn a_processor_card_names_its_guarantee_and_progress() {
        let sim = finished("rpw-crash-exactly-once");
        let p = &processors(&sim, Lang::En)[0];
        assert_eq!(p.guarantee, "exactly-once");
        // The input of the transaction the crash aborted is processed again after the
        // restart: 13 processings of 12 inputs, each output visible once.
        assert_eq!(
            p.processed,
            "12 processed, 1 of them again · input orders-0 @12"
        );
        let report = eos_core::Report::of("rpw", &sim);
        assert_eq!(
            report.processing.map(|x| (x.inputs, x.visible_outputs)),
            Some((12, 12))
        );
        assert!(p.client.starts_with("output client: pid"));
        // Its phase in words, not the state machine's code name ("Stopped").
        assert_eq!(p.phase, "stopped");
        assert_eq!(processors(&sim, Lang::Ru)[0].phase, "остановлен");
        // While it is down its card says so, not the phase it had in memory.
        let mut sim = builtin::get("rpw-crash-exactly-once")
            .expect("built-in")
            .simulation(None);
        while !sim
            .status
            .get(&sim.processors[0].node())
            .is_some_and(|s| s.crashed)
        {
            assert_eq!(
                sim.step(),
                eos_core::StepOutcome::Stepped,
                "billing crashes"
            );
        }
        let p = &processors(&sim, Lang::En)[0];
        assert_eq!((p.phase.as_str(), p.status), ("crashed", "crashed"));
        assert!(
            p.processed
                .ends_with("input resumes from the group's committed offsets"),
            "{}",
            p.processed
        );
        // Back up under exactly-once, it has no transaction until it has a producer id.
        let mut awaiting = false;
        while sim.step() == eos_core::StepOutcome::Stepped && !awaiting {
            let p = &processors(&sim, Lang::En)[0];
            awaiting = p.phase == S::PhaseAwaitingPid.get(Lang::En);
            if awaiting {
                assert_eq!(p.client, S::OutputNoPid.get(Lang::En));
                assert!(
                    p.processed
                        .ends_with("input resumes from the group's committed offsets"),
                    "{}",
                    p.processed
                );
            }
            assert!(
                !(p.phase.starts_with("in a transaction")
                    && p.client == S::OutputNoPid.get(Lang::En)),
                "in a transaction without a producer id"
            );
        }
        assert!(awaiting, "the restart waits for its producer id");
    }

    #[test]
    fn processings_count_inputs_repeated_inputs_and_repeats() {
        assert_eq!(processed_counts::<u32>(&[]), (0, 0, 0));
        assert_eq!(processed_counts(&[3, 1, 2]), (3, 0, 0));
        assert_eq!(processed_counts(&[1, 2, 1]), (2, 1, 1));
        // Two inputs, each handled four times: both again, 6 repeats.
        assert_eq!(processed_counts(&[5, 5, 7, 5, 7, 5, 7, 7]), (2, 2, 6));
    }

    #[test]
    fn the_comparison_ledger_shows_one_loss_one_duplicate_and_exactly_once() {
        let s = builtin::get("rpw-crash-exactly-once").expect("built-in");
        let lanes = eos_core::compare::compare(&s, None).expect("comparable");
        let vm = comparison(&lanes).expect("a ledger");
        assert_eq!(
            vm.lanes,
            vec!["at-most-once", "at-least-once", "exactly-once"]
        );
        assert_eq!(vm.rows.len(), 12);
        assert_eq!(vm.unlisted, 0);
        assert_eq!(vm.rows[0].input, "v0");
        assert!(vm.rows.iter().all(|r| r.copies[2] == 1));
        assert_eq!(vm.rows.iter().filter(|r| r.copies[1] == 2).count(), 1);
        assert_eq!(vm.rows.iter().filter(|r| r.copies[0] == 0).count(), 1);
        assert!(comparison(&[]).is_none());
    }

    /// A dropped produce request is sent again only after its 30 s timeout, when the
    /// processor has stopped polling: inputs v2–v11 have no output in any lane, but no stage
    /// committed past them. The ledger marks them unread, not lost, in every lane (so
    /// exactly-once shows no loss), and the inspector says why.
    #[test]
    fn the_comparison_ledger_tells_an_unread_input_from_a_lost_one() {
        let base = builtin::get("rpw-crash-at-least-once").expect("built-in");
        let mut file = base.file.clone();
        // The fault as a link carries it (`&f=`), as a drop by click adds it.
        file.faults.push(
            crate::permalink::parse_fault(
                "at:41,a:drop_on_wire,from:shop,to:broker-0,m:produce,topic:orders,part:0",
            )
            .expect("a fault"),
        );
        let s = eos_core::Scenario::from_file(file).expect("valid");
        let lanes = eos_core::compare::compare(&s, None).expect("comparable");
        let vm = comparison(&lanes).expect("a ledger");
        let v2 = vm.rows.iter().find(|r| r.input == "v2").expect("listed");
        assert_eq!(
            (v2.copies.clone(), v2.unread.clone()),
            (vec![0; 3], vec![true; 3])
        );
        let v0 = vm.rows.iter().find(|r| r.input == "v0").expect("listed");
        assert_eq!(v0.unread, vec![false; 3]);
        assert!(
            vm.totals.iter().all(|t| t.3 == 0 && t.4 == 10),
            "{:?}",
            vm.totals
        );
        let exactly_once = eos_core::kafka::processor::Guarantee::ExactlyOnce;
        let lane = eos_core::compare::with_guarantee(&s, exactly_once).expect("switched");
        let mut sim = lane.simulation(None);
        sim.run(eos_core::RunLimit::Completion);
        let open = super::inspector::inspect(
            &sim,
            &crate::state::Selection::LaneInput {
                guarantee: exactly_once,
                input: 2,
            },
            Lang::En,
        );
        assert_eq!(open.kind, "input-unread");
        assert!(
            open.notes.iter().any(|n| n.starts_with("Not lost")),
            "{:?}",
            open.notes
        );
    }

    /// With a second processor reading the first one's output, the ledger follows each
    /// input to the second one's output and the panel names the chain; a lane's cell opens
    /// that output in the inspector.
    #[test]
    fn a_chains_ledger_follows_each_input_to_the_last_stage() {
        use eos_core::kafka::processor::Guarantee;
        let base = builtin::get("rpw-crash-exactly-once").expect("built-in");
        let mut file = base.file.clone();
        let first = file.processors[0].clone();
        let mut mails = file.topics[0].clone();
        mails.name = "mails".into();
        file.topics.push(mails);
        let mut mailer = first.clone();
        mailer.name = "mailer".into();
        mailer.input = first.output.clone();
        mailer.output = "mails".into();
        mailer.group = None;
        file.processors.push(mailer);
        let s = eos_core::Scenario::from_file(file).expect("a chain");
        let lanes = eos_core::compare::compare_counts(&s, None).expect("comparable");
        let vm = comparison(&lanes).expect("a ledger");
        assert_eq!(vm.stages, format!("{} → mailer", first.name));
        assert_eq!(vm.rows.len(), 12);
        let mut sim = eos_core::compare::with_guarantee(&s, Guarantee::ExactlyOnce)
            .expect("a scenario")
            .simulation(None);
        sim.run(RunLimit::Completion);
        let open = inspector::inspect(
            &sim,
            &inspector::Selection::LaneInput {
                guarantee: Guarantee::ExactlyOnce,
                input: 3,
            },
            Lang::En,
        );
        assert!(open.title.contains("v3′′"), "{}", open.title);
    }

    /// A long run's ledger lists at most `COMPARE_ROWS` records, every lost or duplicated
    /// one first, in input order, and counts the rest.
    #[test]
    fn a_long_ledger_lists_its_anomalies_first_and_counts_the_rest() {
        let s = builtin::get("rpw-crash-exactly-once").expect("built-in");
        let mut lanes = eos_core::compare::compare(&s, None).expect("comparable");
        // Many more inputs, each delivered once everywhere, and two odd ones far down.
        for lane in &mut lanes {
            for i in 100..1_000 {
                lane.ledger.insert(format!("v{i}"), 1);
            }
            lane.ledger.insert("v900".into(), 2);
            lane.ledger.insert("v950".into(), 0);
        }
        let total = lanes[0].ledger.len();
        let vm = comparison(&lanes).expect("a ledger");
        assert_eq!(vm.rows.len(), COMPARE_ROWS);
        assert_eq!(vm.unlisted, total - COMPARE_ROWS);
        let odd = |r: &&CompareRowVm| r.copies.iter().any(|n| *n != 1);
        let listed_odd: Vec<&str> = vm
            .rows
            .iter()
            .filter(odd)
            .map(|r| r.input.as_str())
            .collect();
        assert!(
            listed_odd.contains(&"v900") && listed_odd.contains(&"v950"),
            "{listed_odd:?}"
        );
        let numbers: Vec<u64> = vm
            .rows
            .iter()
            .map(|r| r.input.trim_start_matches('v').parse().expect("vN"))
            .collect();
        assert!(numbers.windows(2).all(|w| w[0] < w[1]), "in input order");
    }

    #[test]
    fn the_event_log_filters_by_component() {
        let sim = finished(builtin::DEFAULT);
        let all = events(&sim, 500, None, Lang::En);
        let reader = parse_component("consumer-0").expect("a component");
        let only = events(&sim, 500, Some(reader), Lang::En);
        assert!(!only.is_empty() && only.len() < all.len());
        assert!(only.iter().all(|e| e.text.contains("reader")), "{only:?}");
        let values: Vec<String> = components(&sim, Lang::En)
            .into_iter()
            .map(|c| c.0)
            .collect();
        assert_eq!(values, vec!["producer-0", "broker-0", "consumer-0"]);
        assert!(values.iter().all(|v| parse_component(v).is_some()));
        assert_eq!(parse_component("nobody"), None);
    }

    #[test]
    fn freeze_lengths_are_validated_with_a_sentence() {
        assert_eq!(parse_freeze_seconds("6", Lang::En), Ok(6));
        assert_eq!(parse_freeze_seconds(" 10 ", Lang::En), Ok(10));
        assert!(parse_freeze_seconds("0", Lang::En)
            .unwrap_err()
            .contains("out of range"));
        assert!(parse_freeze_seconds("100000", Lang::En)
            .unwrap_err()
            .contains("1 to 120"));
        assert!(parse_freeze_seconds("-3", Lang::En)
            .unwrap_err()
            .contains("not a number"));
        assert!(parse_freeze_seconds("", Lang::En).is_err());
        assert!(parse_freeze_seconds("0", Lang::Ru)
            .unwrap_err()
            .contains("вне диапазона"));
    }

    #[test]
    fn seeds_are_validated_with_a_sentence() {
        assert_eq!(parse_seed(" 7 ", Lang::En), Ok(7));
        assert_eq!(parse_seed("18446744073709551615", Lang::En), Ok(u64::MAX));
        assert!(parse_seed("18446744073709551616", Lang::En)
            .unwrap_err()
            .contains("is not a seed"));
        assert!(parse_seed("-1", Lang::En)
            .unwrap_err()
            .contains("whole number from 0"));
        assert!(parse_seed("", Lang::En)
            .unwrap_err()
            .starts_with("Type a seed"));
        assert!(parse_seed("abc", Lang::Ru).unwrap_err().contains("не сид"));
    }

    #[test]
    fn a_crashed_producer_card_says_it_is_down_not_waiting() {
        let sim = finished("txn-producer-crash-stalls-readers");
        let card = &producers(&sim, Lang::En)[0];
        assert_eq!(card.status, "crashed");
        assert!(card.identity.starts_with("crashed:"), "{}", card.identity);
    }

    #[test]
    fn the_cards_speak_russian_when_asked() {
        let mut sim = builtin::get(builtin::DEFAULT)
            .expect("built-in")
            .simulation(None);
        assert_eq!(producers(&sim, Lang::Ru)[0].identity, "ждёт id продюсера");
        sim.run(RunLimit::Until(eos_core::time::ms(10)));
        let (en, ru) = (&producers(&sim, Lang::En)[0], &producers(&sim, Lang::Ru)[0]);
        assert_ne!(en.settings, ru.settings);
        assert!(
            ru.settings.contains("идемпотентность вкл."),
            "{}",
            ru.settings
        );
        assert!(clock(&sim, Lang::Ru).starts_with("шаг "));
        assert_eq!(
            consumers(&sim, Lang::Ru)[0].read,
            "пока ничего не прочитано"
        );
        let done = finished(builtin::DEFAULT);
        let parts = partitions(&done, Lang::Ru);
        assert!(parts.iter().all(|p| p.role.starts_with("брокер 0 · ")));
        assert!(parts.iter().any(|p| p
            .cells
            .iter()
            .any(|c| c.title(Lang::Ru).starts_with("смещение 0: запись"))));
        assert_eq!(
            in_flight(&sim, Lang::Ru).len(),
            in_flight(&sim, Lang::En).len()
        );
        let lanes: Vec<String> = components(&done, Lang::Ru)
            .into_iter()
            .map(|c| c.1)
            .collect();
        assert_eq!(
            lanes,
            vec!["продюсер app", "брокер 0", "потребитель reader"]
        );
        assert!(fault_schedule(&done, Lang::Ru)[0].starts_with("5 мс: "));
    }

    #[test]
    fn in_flight_messages_say_where_they_go() {
        let mut sim = builtin::get(builtin::DEFAULT)
            .expect("built-in")
            .simulation(None);
        sim.step();
        let flights = in_flight(&sim, Lang::En);
        assert_eq!(flights.len(), 1);
        assert_eq!(flights[0].route, "app → broker 0");
        assert_eq!(flights[0].progress, 0, "just sent");
    }

    #[test]
    fn a_message_moves_along_its_link_with_time() {
        assert_eq!(progress(1_000, 3_000, 1_000), 0);
        assert_eq!(progress(1_000, 3_000, 1_500), 250);
        assert_eq!(progress(1_000, 3_000, 3_000), 1000);
        assert_eq!(
            progress(1_000, 3_000, 9_000),
            1000,
            "never past the receiver"
        );
        assert_eq!(progress(1_000, 3_000, 0), 0, "never before the sender");
        assert_eq!(progress(5, 5, 5), 1000, "an instant link");
        assert_eq!(progress(0, u64::MAX, u64::MAX / 2), 499, "no overflow");
    }
}
