//! The inspector: the full state of whatever was clicked, as labelled rows, and the faults a
//! click on a message can inject (as scenario fault specs, so they join the schedule).

use crate::i18n::{duration, either, Lang, S};
use eos_core::ids::{NodeId, RecordId, Tp};
use eos_core::kafka::processor::Guarantee;
use eos_core::kafka::producer::ClientState;
use eos_core::kafka::txn_index::FetchedEntry;
use eos_core::oracle::anomalies;
use eos_core::oracle::ledger::{DeliveryStatus, RecordEntry};
use eos_core::scenario::schema::FaultSpec;
use eos_core::sim::narration::narrate;
use eos_core::sim::observe::TxnCellState;
use eos_core::sim::simulation::StepKind;
use eos_core::sim::Simulation;
use eos_core::time::{ms, to_ms, SimTime};

/// What the inspector shows. Ids are stable across a recomputed run (a message id, a
/// partition and offset, a process index), so a selection survives stepping and faults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    Message(u64),
    Record {
        tp: Tp,
        broker: u8,
        offset: u64,
    },
    Partition {
        tp: Tp,
        broker: u8,
    },
    Node(NodeId),
    /// A record in a compared lane's output log: the same scenario under `guarantee`, run
    /// to the moment on screen (`inspect` is given that lane's run).
    LaneRecord {
        guarantee: Guarantee,
        tp: Tp,
        broker: u8,
        offset: u64,
    },
    /// An input record of the compare table, in one lane's whole run (`inspect` is given
    /// that lane's run at its end): its output's visible copies and why there are that many.
    LaneInput {
        guarantee: Guarantee,
        input: u32,
    },
    /// A Flink job's checkpoint, by id.
    Checkpoint(u64),
    /// A Flink job's channel, by its index in the job graph.
    Channel(u16),
    /// A record in a Flink job's channels, by the input record it derives from: the
    /// inspector follows it from channel to channel.
    FlinkRecord(RecordId),
}

/// A message the inspector can put a fault on.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageRef {
    /// "app → broker 0", as the rest of the page names processes.
    pub route: String,
    pub from: String,
    pub to: String,
    /// The scenario's name for the kind (`produce`).
    pub kind: String,
    pub tp: Option<(String, u16)>,
    /// Still on the wire when a fault injected now fires (one millisecond later).
    pub hittable: bool,
    pub is_produce: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct InspectorVm {
    /// `message`, `record`, `partition`, `producer`, `consumer`, `processor`, `broker`.
    pub kind: &'static str,
    pub title: String,
    pub rows: Vec<(String, String)>,
    /// Sentences: the narration of a delivery, anomalies naming a record, ...
    pub notes: Vec<String>,
    pub message: Option<MessageRef>,
    /// Rows whose value opens something else (by row index): a channel's records and
    /// barriers, reachable so from the keyboard.
    pub picks: Vec<(usize, Selection)>,
    /// Rows told by step (by row index): each entry goes to its step when clicked, unless
    /// what the panel shows did not exist yet at that step (`None`: plain text). The row's
    /// own value is the same entries joined, as read aloud or copied.
    pub steps: Steps,
}

/// What a click on a message can do to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageFault {
    /// Lose this message (it is on the wire).
    Drop,
    /// Deliver it this many ms later.
    Delay(u64),
    /// Let the produce append, lose the acknowledgement.
    LoseAck,
    /// Lose the next message of this kind sent on this link.
    DropNext,
    /// Cut the link between the two processes.
    CutLink,
}

/// Delays a click may ask for, in ms (validated against this range).
pub const DELAY_MS_MIN: u64 = 1;
pub const DELAY_MS_MAX: u64 = 60_000;

/// The name a scenario uses for a process (`broker-0`, or the client's name).
pub fn process_name(sim: &Simulation, node: NodeId) -> String {
    match node {
        NodeId::Broker(i) => format!("broker-{i}"),
        other => sim.names.node(other),
    }
}

/// The fault spec (without its time: the reducer puts it just after now).
pub fn message_fault(m: &MessageRef, fault: MessageFault) -> FaultSpec {
    let on_link = |action: &str| FaultSpec {
        action: action.into(),
        from: Some(m.from.clone()),
        to: Some(m.to.clone()),
        message: Some(m.kind.clone()),
        topic: m.tp.as_ref().map(|t| t.0.clone()),
        partition: m.tp.as_ref().map(|t| t.1),
        count: 1,
        ..Default::default()
    };
    match fault {
        MessageFault::Drop => on_link("drop_on_wire"),
        MessageFault::Delay(extra) => FaultSpec {
            extra_ms: Some(extra),
            ..on_link("delay_on_wire")
        },
        MessageFault::DropNext => FaultSpec {
            topic: None,
            partition: None,
            ..on_link("drop")
        },
        MessageFault::LoseAck => FaultSpec {
            action: "lose_ack".into(),
            topic: m.tp.as_ref().map(|t| t.0.clone()),
            partition: m.tp.as_ref().map(|t| t.1),
            count: 1,
            ..Default::default()
        },
        MessageFault::CutLink => FaultSpec {
            action: "partition".into(),
            target: Some(m.from.clone()),
            peer: Some(m.to.clone()),
            count: 1,
            ..Default::default()
        },
    }
}

/// "500" → 500 ms; anything else gets a sentence saying what is allowed.
pub fn parse_delay_ms(text: &str, lang: Lang) -> Result<u64, String> {
    let t = text.trim();
    let range: [&dyn std::fmt::Display; 2] = [&DELAY_MS_MIN, &DELAY_MS_MAX];
    match t.parse::<u64>() {
        Ok(v) if (DELAY_MS_MIN..=DELAY_MS_MAX).contains(&v) => Ok(v),
        Ok(v) => Err(S::DelayOutOfRange.f(lang, &[&v, range[0], range[1]])),
        Err(_) => Err(S::DelayNotNumber.f(lang, &[&t, range[0], range[1]])),
    }
}

/// When a fault injected now fires: the next whole millisecond (see state.rs).
/// When a fault injected now takes effect: the millisecond after the last step (not after
/// `now`, which a finished run has moved on to its last stale timer, maybe minutes later).
pub fn injection_time(sim: &Simulation) -> SimTime {
    ms(to_ms(sim.last_step_at()) + 1)
}

/// A producer without idempotence has no producer id (-1 on the wire): "no pid", not -1.
fn pid_or_none(producer_id: i64, lang: Lang, shown: impl FnOnce() -> String) -> String {
    if producer_id < 0 {
        S::NoPid.get(lang).to_string()
    } else {
        shown()
    }
}

/// A labelled row: the label in the page's language.
pub(super) fn row(label: S, lang: Lang, value: impl Into<String>) -> (String, String) {
    (label.get(lang).to_string(), value.into())
}

/// Rows told by step, by row index (`InspectorVm::steps`): each entry's step (if a link) and
/// its words.
pub type Steps = Vec<(usize, Vec<(Option<u64>, String)>)>;

/// A row's entries told by step, by the row's label: what a panel told at the furthest step
/// seen of the same thing in the same run (`with_later`).
pub type Seen = Vec<(String, Vec<(Option<u64>, String)>)>;

/// An entry told by step, and whether it is still to come (`with_later`).
pub type Entry = (Option<u64>, String, bool);

/// `vm`'s rows told by step, each followed by the entries `seen` had after its own for the
/// same row: after a jump back the story goes on to what the run does later, marked so
/// (`true`), rather than stopping at the step jumped to. A row whose entries are not the
/// start of what was seen (the run changed) is told as it is now, and `seen` learns it.
pub fn with_later(vm: &InspectorVm, seen: &mut Seen) -> Vec<(usize, Vec<Entry>)> {
    let mut out = Vec::with_capacity(vm.steps.len());
    for (row, now) in &vm.steps {
        let Some((label, _)) = vm.rows.get(*row) else {
            continue;
        };
        let mut entries: Vec<Entry> = now.iter().map(|(s, t)| (*s, t.clone(), false)).collect();
        match seen.iter_mut().find(|(l, _)| l == label) {
            Some((_, before)) if before.len() > now.len() && before.starts_with(now) => {
                entries.extend(
                    before[now.len()..]
                        .iter()
                        .map(|(s, t)| (*s, t.clone(), true)),
                );
            }
            Some((_, before)) => before.clone_from(now),
            None => seen.push((label.clone(), now.clone())),
        }
        out.push((*row, entries));
    }
    out
}

/// A row of entries each at a step, joined by `sep` as its plain value; none makes `empty`
/// (told by step with no entries: later ones may follow after a jump back, `with_later`).
/// Entries before step `from` (when what the panel shows came to be) are not links: there
/// the panel would show nothing.
fn stepped(
    (rows, steps): (&mut Vec<(String, String)>, &mut Steps),
    (label, lang, from): (S, Lang, u64),
    entries: Vec<(u64, String)>,
    (sep, empty): (&str, &str),
) {
    if entries.is_empty() {
        rows.push(row(label, lang, empty));
        steps.push((rows.len() - 1, Vec::new()));
        return;
    }
    let plain: Vec<&str> = entries.iter().map(|(_, e)| e.as_str()).collect();
    rows.push(row(label, lang, plain.join(sep)));
    let entries = entries
        .into_iter()
        .map(|(step, said)| ((step >= from).then_some(step), said))
        .collect();
    steps.push((rows.len() - 1, entries));
}

/// What happened to a record at step `step` of its evidence, by the core's name for its
/// kind of event: of the notes the ledger takes evidence from (`ledger::witnesses`), the
/// notable one, else the first (`ack_lost`, `appended`; not the copy to a follower dropped
/// at the same step); else the step's notable or first note (`gist::gist` puts it in words).
/// None if the trace no longer holds the step.
fn step_kind(sim: &Simulation, step: u64) -> Option<&'static str> {
    use eos_core::oracle::ledger::witnesses;
    let trace = sim.trace();
    let at = trace.binary_search_by_key(&step, |r| r.step).ok()?;
    let notes = &trace.get(at)?.notes;
    let note = notes
        .iter()
        .find(|n| witnesses(n) && n.notable().is_some())
        .or_else(|| notes.iter().find(|n| witnesses(n)))
        .or_else(|| notes.iter().find(|n| n.notable().is_some()))
        .or_else(|| notes.first())?;
    Some(note.kind_name())
}

/// A lane's run is not the run on screen: its steps are told in words, not linked (a link
/// would move the run on screen to a step of another run).
fn told_not_linked(mut vm: InspectorVm) -> InspectorVm {
    vm.steps.clear();
    vm
}

/// A record's story at step `step`: "#4 ack lost" told as "#4 appended @0, ack lost" when
/// the record was appended then, with where (a story follows every copy of the record: "#19
/// appended @5" is another copy than the panel's), else the step's kind in words.
fn story_entry(sim: &Simulation, e: &RecordEntry, tp: Tp, step: u64, lang: Lang) -> String {
    use super::gist::gist;
    let kind = step_kind(sim, step);
    let here: Vec<String> = e
        .appends
        .iter()
        .filter(|a| a.step == step)
        .map(|a| match a.tp == tp {
            true => format!("@{}", a.offset),
            false => format!("{} @{}", sim.names.tp(a.tp), a.offset),
        })
        .collect();
    let said = match (here.is_empty(), kind) {
        (true, k) => k.map(|k| gist(k, lang)).unwrap_or_default(),
        (false, None | Some("appended")) => {
            format!("{} {}", gist("appended", lang), here.join(", "))
        }
        (false, Some(k)) => format!(
            "{} {}, {}",
            gist("appended", lang),
            here.join(", "),
            gist(k, lang)
        ),
    };
    format!("#{step} {said}").trim_end().to_string()
}

/// "`at` (step N)", at step N.
fn at_step(at: String, step: u64, lang: Lang) -> (u64, String) {
    (step, S::AtStep.f(lang, &[&at, &step]))
}

pub fn inspect(sim: &Simulation, sel: &Selection, lang: Lang) -> InspectorVm {
    match *sel {
        Selection::Message(id) => message(sim, id, lang),
        Selection::Record { tp, broker, offset } => record(sim, tp, broker, offset, lang),
        Selection::LaneRecord {
            guarantee,
            tp,
            broker,
            offset,
        } => {
            let mut vm = record(sim, tp, broker, offset, lang);
            vm.title = S::InLane.f(lang, &[&guarantee.name(), &vm.title]);
            told_not_linked(vm)
        }
        Selection::LaneInput { guarantee, input } => {
            told_not_linked(lane_input(sim, guarantee, input, lang))
        }
        Selection::Checkpoint(id) => crate::flink_checkpoint::inspect(sim, id, lang),
        Selection::Channel(i) => crate::flink_channel::inspect(sim, i, lang),
        Selection::FlinkRecord(r) => crate::flink_channel::inspect_record(sim, r, lang),
        Selection::Partition { tp, broker } => partition(sim, tp, broker, lang),
        Selection::Node(node @ NodeId::Producer(i)) => producer(sim, node, i, lang),
        Selection::Node(node @ NodeId::Consumer(i)) => consumer(sim, node, i, lang),
        Selection::Node(node @ NodeId::Processor(i)) => processor(sim, node, i, lang),
        Selection::Node(node @ NodeId::Broker(i)) => broker(sim, node, i, lang),
        Selection::Node(node @ (NodeId::JobManager | NodeId::Task(_))) => {
            crate::flink_view::inspect(sim, node, lang)
        }
    }
}

fn missing(kind: &'static str, title: String, why: &str) -> InspectorVm {
    InspectorVm {
        picks: Vec::new(),
        steps: Vec::new(),
        kind,
        title,
        rows: Vec::new(),
        notes: vec![why.to_string()],
        message: None,
    }
}

/// The step that delivered message `id`, with who sent it, its kind and when, if it has
/// arrived.
fn delivery(
    sim: &Simulation,
    id: u64,
) -> Option<(
    &eos_core::sim::simulation::StepRecord,
    NodeId,
    eos_core::kafka::protocol::MessageKind,
    SimTime,
)> {
    sim.trace().iter().find_map(|rec| match &rec.what {
        StepKind::Deliver {
            msg_id,
            from,
            kind,
            sent_at,
        } if *msg_id == id => Some((rec, *from, *kind, *sent_at)),
        _ => None,
    })
}

/// The step that delivered message `id`, if it has arrived.
pub fn delivered_at(sim: &Simulation, id: u64) -> Option<u64> {
    delivery(sim, id).map(|(rec, ..)| rec.step)
}

/// Adds what a delivered message carried (`label`, as the core writes a message on the wire)
/// under its kind, as a message on the wire shows it.
pub fn add_content(vm: &mut InspectorVm, label: &str, lang: Lang) {
    let content = row(S::Content, lang, super::message_words::content(label, lang));
    if vm.kind == "message" && !vm.rows.iter().any(|(k, _)| *k == content.0) {
        let at = vm.rows.len().min(1);
        vm.rows.insert(at, content);
    }
}

fn message(sim: &Simulation, id: u64, lang: Lang) -> InspectorVm {
    let n = |node: NodeId| super::node_name(sim, node, lang);
    let dur = |t: SimTime| duration(t, lang);
    if let Some(m) = sim.in_flight().into_iter().find(|m| m.id == id) {
        let at = injection_time(sim);
        let mut rows = vec![
            row(S::Kind, lang, super::message_words::kind(m.kind, lang)),
            row(
                S::Content,
                lang,
                super::message_words::content(&m.label, lang),
            ),
            row(S::From, lang, n(m.from)),
            row(S::To, lang, n(m.to)),
            row(S::Sent, lang, dur(m.sent_at)),
            row(
                S::Arrives,
                lang,
                S::ArrivesIn.f(
                    lang,
                    &[
                        &dur(m.arrive_at),
                        &dur(m.arrive_at.saturating_sub(sim.now())),
                    ],
                ),
            ),
            row(S::Status, lang, S::OnTheWireValue.get(lang)),
        ];
        if let Some(tp) = m.tp {
            rows.insert(2, row(S::PartitionRow, lang, sim.names.tp(tp)));
        }
        let hittable = m.arrive_at >= at;
        return InspectorVm {
            picks: Vec::new(),
            steps: Vec::new(),
            kind: "message",
            title: S::MessageTitle.f(lang, &[&id, &super::message_words::kind(m.kind, lang)]),
            rows,
            notes: if hittable {
                Vec::new()
            } else {
                vec![S::TooLateToHit.get(lang).into()]
            },
            message: Some(MessageRef {
                route: format!("{} → {}", n(m.from), n(m.to)),
                from: process_name(sim, m.from),
                to: process_name(sim, m.to),
                kind: m.kind.name().to_string(),
                tp: m.tp.map(|tp| {
                    let topic = sim
                        .names
                        .topics
                        .get(usize::from(tp.topic))
                        .cloned()
                        .unwrap_or_default();
                    (topic, tp.partition)
                }),
                hittable,
                is_produce: m.kind.name() == "produce",
            }),
        };
    }
    let Some((rec, from, kind, sent_at)) = delivery(sim, id) else {
        if let Some(vm) = super::lost_message::inspect(sim, id, lang) {
            return vm;
        }
        return missing(
            "message",
            S::MessageN.f(lang, &[&id]),
            S::NotOnTheWire.get(lang),
        );
    };
    let to = rec.node.map(n).unwrap_or_default();
    InspectorVm {
        picks: Vec::new(),
        steps: Vec::new(),
        kind: "message",
        title: S::MessageTitle.f(lang, &[&id, &super::message_words::kind(kind, lang)]),
        rows: vec![
            row(S::Kind, lang, super::message_words::kind(kind, lang)),
            row(S::From, lang, n(from)),
            row(S::To, lang, to.clone()),
            row(S::Sent, lang, dur(sent_at)),
            row(
                S::Arrived,
                lang,
                S::AtStep.f(lang, &[&dur(rec.time), &rec.step]),
            ),
            row(
                S::Status,
                lang,
                if rec
                    .notes
                    .iter()
                    .any(|x| matches!(x, eos_core::sim::note::Note::LostAtCrashedNode { .. }))
                {
                    S::LostReceiverDown.get(lang)
                } else {
                    S::Delivered.get(lang)
                },
            ),
        ],
        // An arrival that narrates nothing still says what it did; a Metadata request held
        // by a frozen broker whose connection its client then closed says it failed with it.
        notes: {
            let mut notes: Vec<String> = if rec.notes.is_empty() {
                vec![super::quiet::line(sim, rec, lang)]
            } else {
                rec.notes.iter().map(|x| narrate(&sim.names, x)).collect()
            };
            if let Some(closed) = metadata_request_failed(sim, rec, kind, from) {
                notes.push(S::MetadataRequestFailed.f(lang, &[&closed]));
            }
            notes
        },
        message: Some(MessageRef {
            route: format!("{} → {to}", n(from)),
            from: process_name(sim, from),
            to: rec.node.map(|t| process_name(sim, t)).unwrap_or_default(),
            kind: kind.name().to_string(),
            tp: None,
            hittable: false,
            is_produce: false,
        }),
    }
}

fn record(sim: &Simulation, tp: Tp, broker: u8, offset: u64, lang: Lang) -> InspectorVm {
    let title = S::RecordAt.f(lang, &[&sim.names.tp(tp), &offset, &broker]);
    let dur = |t: SimTime| duration(t, lang);
    let Some(replica) = sim
        .brokers
        .get(usize::from(broker))
        .and_then(|b| b.replicas.get(&tp))
    else {
        return missing("record", title, S::NoReplica.get(lang));
    };
    let entry = replica
        .log
        .read_entries(offset, offset + 1, 1)
        .into_iter()
        .find(|e| e.offset() == offset);
    let (rec, transactional) = match entry {
        Some(FetchedEntry::Data {
            record,
            transactional,
        }) => (record, transactional),
        Some(FetchedEntry::Control(c)) => {
            return InspectorVm {
                picks: Vec::new(),
                steps: Vec::new(),
                kind: "record",
                title,
                rows: vec![
                    row(S::Marker, lang, c.control.name()),
                    row(S::ProducerId, lang, c.producer_id.to_string()),
                    row(S::Epoch, lang, c.epoch.to_string()),
                ],
                notes: vec![S::MarkerNote.get(lang).into()],
                message: None,
            }
        }
        None => return missing("record", title, S::NotInLog.get(lang)),
    };
    let none = || S::NoneAtAll.get(lang).to_string();
    let mut steps = Steps::new();
    let mut rows = vec![
        row(S::Value, lang, sim.names.record(rec.value)),
        row(
            S::Key,
            lang,
            sim.names.key(rec.key).unwrap_or_else(|| "null".into()),
        ),
        row(
            S::PidEpochSeq,
            lang,
            pid_or_none(rec.producer_id, lang, || {
                format!("{} · {} · {}", rec.producer_id, rec.epoch, rec.sequence)
            }),
        ),
        row(
            S::Transactional,
            lang,
            either(transactional, S::Yes, S::No, lang),
        ),
    ];
    let mut notes = Vec::new();
    // This copy's transaction, as the log's markers decide it: what a read_committed reader
    // goes by (the ledger keeps what the producer heard, for the record as a whole).
    let in_log = eos_core::sim::observe::txn_state_at(replica, offset);
    if let Some(state) = in_log {
        rows.push(row(
            S::Transaction,
            lang,
            match state {
                TxnCellState::Committed => S::TxnCommitted.get(lang),
                TxnCellState::Aborted => S::TxnAborted.get(lang),
                TxnCellState::Open => S::TxnOpen.get(lang),
            },
        ));
    }
    if let Some(e) = sim.ledger.get(rec.value) {
        let status = match e.status {
            DeliveryStatus::Pending => S::DeliveryPending,
            DeliveryStatus::Delivered => S::DeliveryDelivered,
            DeliveryStatus::Failed => S::DeliveryFailed,
            DeliveryStatus::Indeterminate => S::DeliveryIndeterminate,
        };
        rows.push(row(S::LedgerStatus, lang, status.get(lang)));
        // This cell exists from its append on: before, the panel would be empty.
        let from = e
            .appends
            .iter()
            .find(|a| a.tp == tp && a.offset == offset)
            .map_or(0, |a| a.step);
        // The record's story next to its status: what happened to it, in the panel's first
        // screen (last, it was below the fold of a 720 px screen); the details follow.
        // (A lane's run keeps no trace to name its steps' events by: no story of numbers.)
        if !e.evidence.is_empty() && !sim.trace().is_empty() {
            let entries = e
                .evidence
                .iter()
                .map(|s| (*s, story_entry(sim, e, tp, *s, lang)))
                .collect();
            stepped(
                (&mut rows, &mut steps),
                (S::Story, lang, from),
                entries,
                (" · ", ""),
            );
        }
        if let Some(by) = eos_core::report::sender(e) {
            rows.push(row(S::SentBy, lang, sim.names.node(by)));
        }
        rows.push(row(S::SendAttempts, lang, e.attempts.to_string()));
        // A processor's replay after a crash or an abort hands the output over again: a new
        // send, which the attempts above count too, not the producer's retry.
        if e.hand_overs > 1 {
            rows.push(row(
                S::HandedOverTimes,
                lang,
                S::HandOversN.f(lang, &[&e.hand_overs]),
            ));
        }
        if let Some(t) = e.accepted_at {
            rows.push(row(S::HandedOverAt, lang, dur(t)));
        }
        let entries = e
            .appends
            .iter()
            .map(|a| {
                at_step(
                    format!("{} @{}", sim.names.tp(a.tp), a.offset),
                    a.step,
                    lang,
                )
            })
            .collect();
        stepped(
            (&mut rows, &mut steps),
            (S::Appends, lang, from),
            entries,
            (", ", &none()),
        );
        rows.push(row(
            S::Acknowledged,
            lang,
            match (e.acked_offset, e.delivered_at) {
                (Some(o), Some(t)) => S::OffsetAt.f(lang, &[&o, &dur(t)]),
                // Counted done by a Flink sink whose commit Kafka refused: not an ack.
                (Some(o), None) if e.status == DeliveryStatus::Failed => {
                    let by = eos_core::report::sender(e).map(|n| sim.names.node(n));
                    S::SinkCountedRefused.f(lang, &[&o, &by.unwrap_or_default()])
                }
                (Some(o), None) => S::OffsetN.f(lang, &[&o]),
                // A Flink sink's record is done when its checkpoint's commit is answered.
                _ if e.sink.is_some() => S::NotYetSink.get(lang).to_string(),
                _ => S::NotYet.get(lang).to_string(),
            },
        ));
        // Consumers' reads, then processors' (an input's: where its story starts).
        let reads: Vec<(NodeId, u64, u64)> = e
            .reads
            .iter()
            .map(|r| (NodeId::Consumer(r.consumer), r.offset, r.step))
            .chain(
                e.processor_reads
                    .iter()
                    .map(|r| (NodeId::Processor(r.processor), r.offset, r.step)),
            )
            .collect();
        let entries = reads
            .iter()
            .map(|(node, offset, step)| {
                at_step(format!("{} @{offset}", sim.names.node(*node)), *step, lang)
            })
            .collect();
        stepped(
            (&mut rows, &mut steps),
            (S::Reads, lang, from),
            entries,
            (", ", &none()),
        );
        if let Some(err) = &e.error {
            // Kafka's own name for the error (`REQUEST_TIMED_OUT`).
            rows.push(row(S::Error, lang, err.name()));
        }
    }
    // A loss and a record nobody read are known at the end (as the oracle's bar says): mid-run
    // the record may not be replicated or read yet.
    let over = sim.is_finished() || sim.at_step_limit();
    for a in anomalies::find(sim) {
        let judged = over
            || !matches!(
                a.kind,
                anomalies::AnomalyKind::LostWrite | anomalies::AnomalyKind::Unseen
            );
        if a.record == Some(rec.value) && judged {
            notes.push(S::Anomaly.f(lang, &[&a.kind.name(), &a.detail]));
        }
    }
    if notes.is_empty() {
        notes.push(S::NoAnomaly.get(lang).into());
    }
    // The log's marker decided the transaction before its producer heard (a transaction
    // aborted at its timeout, which a Flink sink learns only when it commits): the two
    // rows above disagree for a while, and say why.
    if let Some(e) = sim.ledger.get(rec.value) {
        let decided = match in_log {
            Some(TxnCellState::Aborted) => Some(S::DecidedAborted),
            Some(TxnCellState::Committed) => Some(S::DecidedCommitted),
            _ => None,
        };
        // This copy's transaction as its producer heard it.
        let unheard = e
            .appends
            .iter()
            .any(|a| a.tp == tp && a.offset == offset && a.txn_outcome.is_none());
        if let (Some(word), true, Some(by)) = (decided, unheard, eos_core::report::sender(e)) {
            let who = sim.names.node(by);
            let heard = S::TxnDecidedUnheard.f(lang, &[&word.get(lang), &who, &who]);
            notes.insert(0, heard);
        }
    }
    InspectorVm {
        picks: Vec::new(),
        steps,
        kind: "record",
        title: S::RecordTitle.f(lang, &[&sim.names.record(rec.value), &title]),
        rows,
        notes,
        message: None,
    }
}

/// An input record in a lane's whole run: its output's visible copies (the first opened as a
/// record), or, when there is none, the input record itself, whether the processor ever
/// handed an output over, and the anomalies naming the output.
fn lane_input(sim: &Simulation, guarantee: Guarantee, input: u32, lang: Lang) -> InspectorVm {
    let input = RecordId(input);
    let title = |fate: String| S::InLane.f(lang, &[&guarantee.name(), &fate]);
    // In a chain, the last stage's output of the input (`report::pipeline`).
    let stages = eos_core::report::pipeline::pipeline(sim);
    let (Some(p), Some(last)) = (stages.first(), stages.last()) else {
        return missing("record", title(input.to_string()), S::NoProcessor.get(lang));
    };
    let output = eos_core::report::pipeline::output_through(&stages, input);
    let handed = eos_core::report::pipeline::output_through(&stages[..stages.len() - 1], input);
    let copies = anomalies::readable_copies(sim);
    let visible = copies.get(&output).map(Vec::as_slice).unwrap_or_default();
    let open = |&(tp, offset): &(Tp, u64)| {
        eos_core::sim::observe::leader_replica(sim, tp)
            .map(|(broker, _)| record(sim, tp, broker, offset, lang))
    };
    // The first visible copy, or else the input where the processor read it.
    let shown = visible.first().or_else(|| {
        copies
            .get(&input)
            .and_then(|at| at.iter().find(|(tp, _)| p.settings.inputs.contains(tp)))
    });
    let mut vm = shown
        .and_then(open)
        .unwrap_or_else(|| missing("record", String::new(), S::NotInLog.get(lang)));
    let (input_name, output_name) = (sim.names.record(input), sim.names.record(output));
    vm.title = title(match visible.len() {
        1 => S::InputOneCopy.f(lang, &[&input_name, &output_name]),
        n => S::InputCopies.f(lang, &[&input_name, &n, &output_name]),
    });
    let at = |&(tp, offset): &(Tp, u64)| format!("{} @{offset}", sim.names.tp(tp));
    let mut head = vec![
        row(
            S::VisibleCopies,
            lang,
            if visible.is_empty() {
                S::NoneAtAll.get(lang).to_string()
            } else {
                visible.iter().map(at).collect::<Vec<_>>().join(", ")
            },
        ),
        row(
            S::OutputHandedOver,
            lang,
            either(last.processed.contains(&handed), S::Yes, S::No, lang),
        ),
    ];
    // The rows told by step keep theirs: each index moves down by the rows put above.
    for (row, _) in &mut vm.steps {
        *row += head.len();
    }
    head.append(&mut vm.rows);
    vm.rows = head;
    if visible.is_empty() {
        // The record shown is the input: the anomalies that explain the loss name the output.
        vm.kind = "input-lost";
        vm.notes.retain(|n| n != S::NoAnomaly.get(lang));
        let mut why = vec![S::NoVisibleOutput.f(lang, &[&output_name, &input_name])];
        let stored = copies.get(&input).map(Vec::as_slice).unwrap_or_default();
        if !stored.is_empty() && !eos_core::report::committed_past(sim, p, stored) {
            vm.kind = "input-unread";
            why.push(S::UnreadInput.f(lang, &[&input_name]));
        }
        for a in anomalies::find(sim) {
            if a.record == Some(output) {
                why.push(S::Anomaly.f(lang, &[&a.kind.name(), &a.detail]));
            }
        }
        why.append(&mut vm.notes);
        vm.notes = why;
    }
    vm
}

fn partition(sim: &Simulation, tp: Tp, broker: u8, lang: Lang) -> InspectorVm {
    let title = S::PartitionTitle.f(lang, &[&sim.names.tp(tp), &broker]);
    let Some(r) = sim
        .brokers
        .get(usize::from(broker))
        .and_then(|b| b.replicas.get(&tp))
    else {
        return missing("partition", title, S::NoReplica.get(lang));
    };
    let list = |v: &[u8]| {
        v.iter()
            .map(|b| b.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    InspectorVm {
        picks: Vec::new(),
        steps: Vec::new(),
        kind: "partition",
        title,
        rows: vec![
            row(
                S::Role,
                lang,
                if r.is_leader(broker) {
                    S::Leader.get(lang).to_string()
                } else {
                    match r.leader {
                        Some(l) => S::FollowerOf.f(lang, &[&l]),
                        None => S::NoLeader.get(lang).into(),
                    }
                },
            ),
            row(S::LeaderEpoch, lang, r.leader_epoch.to_string()),
            row(S::Replicas, lang, list(&r.replicas)),
            row(S::Isr, lang, list(&r.isr)),
            row(S::MinInsync, lang, r.min_insync.to_string()),
            row(S::LogEndOffset, lang, r.log.log_end_offset().to_string()),
            row(S::HighWatermark, lang, r.high_watermark.to_string()),
            row(
                S::LastStableOffset,
                lang,
                r.last_stable_offset().to_string(),
            ),
            row(S::AcksWaiting, lang, r.pending_acks.len().to_string()),
            row(
                S::HeldForCoordinator,
                lang,
                crate::view_model::held_for_coordinator(sim, broker, Some(r.tp)).to_string(),
            ),
        ]
        .into_iter()
        // A replicated topic's unclean.leader.election.enable, when it is on.
        .chain(
            r.unclean_election
                .then(|| row(S::UncleanElection, lang, S::Yes.get(lang))),
        )
        .chain(producer_state_rows(r, lang))
        .collect(),
        notes: Vec::new(),
        message: None,
    }
}

/// The broker's producer-state table for the partition: per producer id, its epoch and the
/// last batches it stored (at most 5, oldest first), which is all it can recognise a retry
/// by.
fn producer_state_rows(r: &eos_core::kafka::replica::Replica, lang: Lang) -> Vec<(String, String)> {
    let entries = r.producers.entries();
    if entries.is_empty() {
        return vec![row(S::ProducerState, lang, S::NoProducerState.get(lang))];
    }
    entries
        .iter()
        .map(|(pid, e)| {
            let batches: Vec<String> = e
                .batches
                .iter()
                .map(|b| {
                    let seq = if b.first_seq == b.last_seq {
                        b.first_seq.to_string()
                    } else {
                        format!("{}–{}", b.first_seq, b.last_seq)
                    };
                    S::SeqAtOffset.f(lang, &[&seq, &b.first_offset])
                })
                .collect();
            (
                S::ProducerStateOf.f(lang, &[pid, &e.epoch]),
                batches.join(" · "),
            )
        })
        .collect()
}

fn status_of(sim: &Simulation, node: NodeId, lang: Lang) -> String {
    match sim.status.get(&node) {
        Some(s) if s.crashed && s.registering => {
            S::RestartRefused.f(lang, &[&sim.broker_session_timeout_ms])
        }
        Some(s) if s.crashed && s.unfenced => {
            S::CrashedUnfenced.f(lang, &[&sim.broker_session_timeout_ms])
        }
        Some(s) if s.crashed => S::Crashed.get(lang).into(),
        Some(s) if s.frozen && s.fenced => S::FrozenFenced.f(lang, &[&s.held.len()]),
        Some(s) if s.frozen => S::FrozenHolding.f(lang, &[&s.held.len()]),
        // Thawed, and still on the metadata it had when it froze until it catches up.
        Some(_) if matches!(node, NodeId::Broker(i) if sim.brokers.get(usize::from(i)).is_some_and(|b| !b.missed_metadata.is_empty())) => {
            S::UpStale.get(lang).into()
        }
        Some(_) => S::Up.get(lang).into(),
        None => S::Unknown.get(lang).into(),
    }
}

fn producer(sim: &Simulation, node: NodeId, i: u8, lang: Lang) -> InspectorVm {
    let title = S::ProducerTitle.f(lang, &[&sim.names.node(node)]);
    let Some(p) = sim.producers.get(usize::from(i)) else {
        return missing("producer", title, S::NoProducer.get(lang));
    };
    let mut rows = vec![
        row(S::Status, lang, status_of(sim, node, lang)),
        row(
            S::State,
            lang,
            match p.state {
                ClientState::Ready => S::Ready.get(lang).to_string(),
                ClientState::Idle => S::Idle.get(lang).to_string(),
                ClientState::Initializing { broker, .. } => S::AskingForPid.f(lang, &[&broker]),
            },
        ),
        row(
            S::ProducerId,
            lang,
            pid_or_none(p.producer_id, lang, || p.producer_id.to_string()),
        ),
        row(
            S::Epoch,
            lang,
            if p.epoch < 0 {
                "—".to_string()
            } else {
                p.epoch.to_string()
            },
        ),
        row(
            S::IdempotenceAcks,
            lang,
            format!(
                "{} · acks={}",
                either(p.is_idempotent(), S::On, S::Off, lang),
                p.config.acks.as_config()
            ),
        ),
        row(
            S::NextSequences,
            lang,
            if p.next_sequence.is_empty() {
                S::NoneYet.get(lang).to_string()
            } else {
                p.next_sequence
                    .iter()
                    .map(|(tp, s)| format!("{} → {s}", sim.names.tp(*tp)))
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        ),
        row(S::AwaitingAnswer, lang, p.pending_records().to_string()),
    ];
    let batches: Vec<String> = p
        .in_flight
        .values()
        .map(|f| match p.batches.get(&f.batch_id) {
            Some(b) => S::BatchDetail.f(
                lang,
                &[
                    &b.id,
                    &f.broker,
                    &sim.names.tp(b.tp),
                    &b.records.len(),
                    &b.base_sequence,
                    &b.attempts,
                    &duration(f.sent_at, lang),
                ],
            ),
            None => S::BatchTo.f(lang, &[&f.batch_id, &f.broker]),
        })
        .collect();
    rows.push(row(
        S::InFlightBatches,
        lang,
        if batches.is_empty() {
            S::NoneAtAll.get(lang).to_string()
        } else {
            batches.len().to_string()
        },
    ));
    InspectorVm {
        picks: Vec::new(),
        steps: Vec::new(),
        kind: "producer",
        title,
        rows,
        notes: batches,
        message: None,
    }
}

fn consumer(sim: &Simulation, node: NodeId, i: u8, lang: Lang) -> InspectorVm {
    let title = S::ConsumerTitle.f(lang, &[&sim.names.node(node)]);
    let Some(c) = sim.consumers.get(usize::from(i)) else {
        return missing("consumer", title, S::NoConsumer.get(lang));
    };
    let positions = |m: &eos_core::vec_map::VecMap<Tp, u64>| {
        if m.is_empty() {
            S::NoneAtAll.get(lang).to_string()
        } else {
            m.iter()
                .map(|(tp, o)| format!("{} @{o}", sim.names.tp(*tp)))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let mut rows = vec![
        row(S::Status, lang, status_of(sim, node, lang)),
        row(S::Isolation, lang, c.settings.isolation.as_config()),
        row(S::OffsetReset, lang, c.settings.offset_reset.as_config()),
        row(S::Positions, lang, positions(&c.positions)),
        row(S::RecordsRead, lang, c.reads.len().to_string()),
        row(
            S::LastReads,
            lang,
            read_list(sim, c.reads.iter().map(|r| (r.value, r.offset)), lang),
        ),
    ];
    if let Some(g) = &c.settings.group {
        rows.push(row(S::Group, lang, g.clone()));
        rows.push(row(S::Committed, lang, positions(&c.committed)));
    }
    InspectorVm {
        picks: Vec::new(),
        steps: Vec::new(),
        kind: "consumer",
        title,
        rows,
        notes: Vec::new(),
        message: None,
    }
}

fn read_list(
    sim: &Simulation,
    reads: impl DoubleEndedIterator<Item = (RecordId, u64)>,
    lang: Lang,
) -> String {
    let last: Vec<String> = reads
        .rev()
        .take(12)
        .map(|(v, o)| format!("{}@{o}", sim.names.record(v)))
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    if last.is_empty() {
        S::NoneAtAll.get(lang).into()
    } else {
        last.join(" ")
    }
}

fn processor(sim: &Simulation, node: NodeId, i: u8, lang: Lang) -> InspectorVm {
    let title = S::ProcessorTitle.f(lang, &[&sim.names.node(node)]);
    let Some(p) = sim.processors.get(usize::from(i)) else {
        return missing("processor", title, S::NoProcessor.get(lang));
    };
    InspectorVm {
        picks: Vec::new(),
        steps: Vec::new(),
        kind: "processor",
        title,
        rows: vec![
            row(S::Status, lang, status_of(sim, node, lang)),
            row(S::Guarantee, lang, p.settings.guarantee.name()),
            row(S::Phase, lang, super::phase_words(&p.phase, lang)),
            row(S::Processed, lang, p.processed.len().to_string()),
            row(
                S::InputPositions,
                lang,
                p.positions
                    .iter()
                    .map(|(tp, o)| format!("{} @{o}", sim.names.tp(*tp)))
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            row(
                S::OutputClient,
                lang,
                pid_or_none(p.producer.producer_id, lang, || {
                    S::PidEpoch.f(lang, &[&p.producer.producer_id, &p.producer.epoch])
                }),
            ),
            row(S::BatchInWork, lang, p.batch.len().to_string()),
        ],
        notes: Vec::new(),
        message: None,
    }
}

/// How far back a broker's story looks.
const STORY_STEPS: usize = 50_000;

fn broker(sim: &Simulation, node: NodeId, i: u8, lang: Lang) -> InspectorVm {
    let title = S::BrokerTitle.f(lang, &[&i]);
    let Some(b) = sim.brokers.get(usize::from(i)) else {
        return missing("broker", title, S::NoBroker.get(lang));
    };
    let replicas: Vec<String> = b
        .replicas
        .iter()
        .map(|(tp, r)| {
            S::ReplicaLine.f(
                lang,
                &[
                    &sim.names.tp(*tp),
                    &if eos_core::sim::observe::deposed(b, *tp) {
                        S::LeaderDeposed.get(lang)
                    } else {
                        either(r.is_leader(i), S::Leader, S::Follower, lang)
                    },
                    &r.log.log_end_offset(),
                    &r.high_watermark,
                ],
            )
        })
        .collect();
    // What happened to it so far: crashes, fencing, elections, truncations, by step (in the
    // last STORY_STEPS steps: the panel is drawn at every step while the run plays).
    let mut story: Vec<(u64, String)> = Vec::new();
    let trace = sim.trace();
    for rec in &trace[trace.len().saturating_sub(STORY_STEPS)..] {
        for n in &rec.notes {
            use eos_core::sim::note::Note;
            let said = match n {
                Note::Crashed { node: b } if *b == node => S::StoryCrashed.get(lang).to_string(),
                Note::Restarted { node: b } if *b == node => {
                    S::StoryRestarted.get(lang).to_string()
                }
                Note::Frozen { node: b, .. } if *b == node => S::StoryFrozen.get(lang).to_string(),
                Note::Thawed { node: b, .. } if *b == node => S::StoryThawed.get(lang).to_string(),
                Note::BrokerFenced { broker: b, .. } if *b == node => {
                    S::StoryFenced.get(lang).to_string()
                }
                Note::LeaderElected { broker: b, tp, .. }
                | Note::UncleanLeaderElected { broker: b, tp, .. }
                    if *b == node =>
                {
                    S::StoryLeads.f(lang, &[&sim.names.tp(*tp)])
                }
                Note::LogTruncated {
                    broker: b,
                    tp,
                    to_offset,
                    ..
                } if *b == node => S::StoryTruncated.f(lang, &[&sim.names.tp(*tp), to_offset]),
                Note::IsrShrunk { followers, tp, .. }
                    if followers.iter().any(|f| NodeId::Broker(*f) == node) =>
                {
                    S::StoryLeftIsr.f(lang, &[&sim.names.tp(*tp)])
                }
                Note::IsrShrunk {
                    broker: b,
                    followers,
                    tp,
                    ..
                } if *b == node => {
                    let names: Vec<String> = followers.iter().map(u8::to_string).collect();
                    S::StoryDroppedFromIsr.f(lang, &[&sim.names.tp(*tp), &names.join(", ")])
                }
                Note::IsrExpanded { follower, tp, .. } if *follower == node => {
                    S::StoryRejoinedIsr.f(lang, &[&sim.names.tp(*tp)])
                }
                Note::IsrExpanded {
                    broker: b,
                    follower: NodeId::Broker(f),
                    tp,
                    ..
                } if *b == node => S::StoryTookBackIsr.f(lang, &[&sim.names.tp(*tp), f]),
                _ => continue,
            };
            story.push((rec.step, format!("#{} {said}", rec.step)));
        }
    }
    let mut rows = vec![
        row(S::Status, lang, status_of(sim, node, lang)),
        row(S::PartitionsHeld, lang, replicas.len().to_string()),
        row(
            S::TxnsCoordinated,
            lang,
            b.txn_coordinator.transactions.len().to_string(),
        ),
        row(
            S::HeldForCoordinator,
            lang,
            crate::view_model::held_for_coordinator(sim, i, None).to_string(),
        ),
    ];
    // WriteTxnMarkers answers held until the in-sync replicas have the markers.
    let markers_held = b.marker_waits.len();
    if markers_held > 0 {
        rows.push(row(S::MarkerAnswersHeld, lang, markers_held.to_string()));
    }
    let mut steps = Steps::new();
    if !story.is_empty() {
        stepped(
            (&mut rows, &mut steps),
            (S::Story, lang, 0),
            story,
            (" · ", ""),
        );
    }
    InspectorVm {
        picks: Vec::new(),
        steps,
        kind: "broker",
        title,
        rows,
        notes: replicas,
        message: None,
    }
}

/// The step at which the client of a Metadata request held by a frozen broker closed that
/// connection (it asks again: `again`), so that the request failed with it and its late
/// answer is not taken.
fn metadata_request_failed(
    sim: &Simulation,
    rec: &eos_core::sim::StepRecord,
    kind: eos_core::kafka::protocol::MessageKind,
    client: NodeId,
) -> Option<u64> {
    use eos_core::sim::note::Note;
    let held = rec
        .notes
        .iter()
        .any(|n| matches!(n, Note::HeldWhileFrozen { .. }));
    if kind != eos_core::kafka::protocol::MessageKind::Metadata || !held {
        return None;
    }
    sim.trace()
        .iter()
        .filter(|r| r.step > rec.step)
        .find(|r| {
            r.notes.iter().any(|n| {
                matches!(n, Note::MetadataRequested { client: c, again: true, .. } if *c == client)
            })
        })
        .map(|r| r.step)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use eos_core::{builtin, RunLimit};

    /// The stage's role line of broker `broker`'s replica (the first partition it holds).
    fn role_of(sim: &Simulation, broker: u8) -> String {
        crate::view_model::partitions(sim, Lang::En)
            .into_iter()
            .find(|p| p.broker == broker)
            .map(|p| p.role)
            .expect("a replica on that broker")
    }

    /// The first record of the first topic's partition 0 on broker 0.
    fn first_record() -> Selection {
        Selection::Record {
            tp: Tp {
                topic: 0,
                partition: 0,
            },
            broker: 0,
            offset: 0,
        }
    }

    fn at_step(name: &str, steps: u64) -> Simulation {
        let mut sim = builtin::get(name).expect("built-in").simulation(None);
        sim.run(RunLimit::Steps(steps));
        sim
    }

    /// A replicated partition's leader names its in-sync replicas on the stage: the ISR an
    /// acks=all write waits for shrinks when the controller fences the follower.
    #[test]
    fn a_leader_names_its_in_sync_replicas() {
        let role = |steps: u64| role_of(&at_step("unclean-election-loss", steps), 0);
        assert_eq!(role(4), "broker 0 · leader · ISR 0, 1");
        assert_eq!(
            role(8),
            "broker 0 · leader · ISR 0",
            "broker 1 fenced at step 5"
        );
        // Fewer in sync than min.insync.replicas: the card says the high watermark is held.
        let short = role_of(&at_step("min-isr-retry-duplicate", 9), 0);
        assert_eq!(
            short,
            "broker 0 · leader · ISR 0, under min.insync.replicas=2: high watermark held"
        );
        // An unreplicated partition's leader says nothing of it.
        let single = at_step("lost-ack-idempotence-off", 5);
        let p = crate::view_model::partitions(&single, Lang::En);
        assert!(
            p.iter().all(|p| !p.role.contains("ISR")),
            "{:?}",
            p.iter().map(|p| &p.role).collect::<Vec<_>>()
        );
    }

    /// A leader holding its answer to the transaction coordinator until the in-sync replicas
    /// have a marker says so, and not once it has answered.
    #[test]
    fn a_leader_says_it_holds_a_marker_answer_for_its_replicas() {
        let mut sim = at_step("txn-marker-min-isr", 0);
        let held = |sim: &Simulation| {
            let vm = inspect(sim, &Selection::Node(NodeId::Broker(0)), Lang::En);
            vm.rows
                .iter()
                .find(|r| r.0 == "marker answers waiting for replicas")
                .map(|r| r.1.clone())
        };
        step_until(&mut sim, "the marker's answer waits", |rec| {
            rec.notes
                .iter()
                .any(|n| matches!(n, eos_core::sim::note::Note::MarkerWaitsForReplicas { .. }))
                .then_some(())
        });
        assert_eq!(held(&sim).as_deref(), Some("1"));
        sim.run(RunLimit::Completion);
        assert_eq!(held(&sim), None);
    }

    /// After a jump back, a record's rows told by step go on to what the run does later,
    /// marked as later; at the end they are all its own again; and a row that the run no
    /// longer tells that way (a changed run) is told as it is now.
    #[test]
    fn a_story_keeps_what_comes_later_after_a_jump_back() {
        let name = "seed-frozen-broker";
        let sim = finished(name);
        let end = sim.steps();
        let tp = eos_core::ids::Tp {
            topic: 0,
            partition: 0,
        };
        let record = Selection::Record {
            tp,
            broker: 0,
            offset: 0,
        };
        let at_end = inspect(&sim, &record, Lang::En);
        let mut seen = Seen::new();
        let told = with_later(&at_end, &mut seen);
        assert!(
            told.iter().flat_map(|(_, e)| e).all(|e| !e.2),
            "nothing later at the end"
        );
        let story_row = told
            .iter()
            .find(|(r, _)| at_end.rows[*r].0 == "story (steps)");
        let Some((_, story)) = story_row else {
            panic!("no story: {:?}", at_end.rows);
        };
        assert!(story.len() >= 3, "{story:?}");
        // Back to the step of its first entry told as a link (the cell exists there): the
        // rest is later, in order.
        let Some((i, back)) = story
            .iter()
            .enumerate()
            .find_map(|(i, e)| e.0.map(|s| (i, s)))
        else {
            panic!("{story:?}");
        };
        assert!(story.len() > i + 2, "{story:?}");
        let mut earlier = builtin::get(name).expect("built-in").simulation(None);
        earlier.run(RunLimit::Steps(back));
        let vm = inspect(&earlier, &record, Lang::En);
        let told = with_later(&vm, &mut seen);
        let Some((_, again)) = told.iter().find(|(r, _)| vm.rows[*r].0 == "story (steps)") else {
            panic!("no story at step {back}: {:?}", vm.rows);
        };
        let words = |e: &Vec<Entry>| {
            e.iter()
                .map(|(s, t, _)| (*s, t.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(words(again), words(story), "the same story, end to end");
        assert!(again.iter().take(i + 1).all(|e| !e.2), "{again:?}");
        assert!(
            again
                .iter()
                .skip(i + 1)
                .all(|e| e.2 && e.0.is_some_and(|s| s > back && s <= end)),
            "{again:?}"
        );
        // A story that is not the start of the one seen (another run) replaces it.
        let mut other = Seen::new();
        other.push((
            "story (steps)".to_string(),
            vec![(Some(1), "#1 crashed".to_string())],
        ));
        let told = with_later(&vm, &mut other);
        assert!(told.iter().flat_map(|(_, e)| e).all(|e| !e.2));
        let learnt = other.iter().find(|(l, _)| l == "story (steps)");
        assert_eq!(learnt.map(|(_, e)| e.len()), Some(i + 1));
    }

    /// A record's story names a step by what concerned the record: v0 of the cut-link
    /// scenario is appended at step 6, where its copy to the cut-off follower is dropped.
    #[test]
    fn a_story_names_what_concerned_the_record() {
        let sim = finished("network-partition-isr-shrink");
        let tp = eos_core::ids::Tp {
            topic: 0,
            partition: 0,
        };
        let vm = inspect(
            &sim,
            &Selection::Record {
                tp,
                broker: 0,
                offset: 0,
            },
            Lang::En,
        );
        let story = value(&vm, "story (steps)");
        assert!(
            story.contains("#6 appended") && !story.contains("dropped"),
            "{story}"
        );
    }

    /// Every kind of event a built-in's record story names has its words in both languages
    /// (`gist.rs`): none of them falls back to the core's English on a Russian page.
    #[test]
    fn every_kind_a_record_story_names_has_its_russian() {
        let mut kinds = std::collections::BTreeSet::new();
        for name in builtin::names() {
            let sim = finished(&name);
            for e in &sim.ledger.records {
                for s in &e.evidence {
                    if let Some(kind) = step_kind(&sim, *s) {
                        assert!(super::super::gist::known(kind), "{name}: {kind}");
                        kinds.insert(kind);
                    }
                }
            }
        }
        assert!(
            kinds.contains("ack_lost") && kinds.contains("sink_committed") && kinds.len() > 20,
            "{kinds:?}"
        );
    }

    /// A broker's inspector tells its story by step: the crash, the fencing, the elections
    /// and the truncation that dropped a record.
    #[test]
    fn a_broker_tells_its_story() {
        let mut sim = at_step("unclean-election-loss", 0);
        sim.run(RunLimit::Completion);
        let story = |i: u8| {
            let vm = inspect(&sim, &Selection::Node(NodeId::Broker(i)), Lang::En);
            value(&vm, "story (steps)").to_string()
        };
        let zero = story(0);
        assert!(
            zero.contains("#9 crashed")
                && zero.contains("restarted")
                && zero.contains("truncated orders-0 to offset 0"),
            "{zero}"
        );
        let one = story(1);
        assert!(
            one.starts_with("#2 frozen")
                && one.contains("fenced by the controller")
                && one.contains("leads orders-0"),
            "{one}"
        );
    }

    /// A follower cut off from its leader leaves the ISR at the leader's look past
    /// replica.lag.time.max.ms, and comes back after the heal: its story says both, and the
    /// leader's card names the ISR of the moment.
    #[test]
    fn a_follower_s_story_tells_it_left_the_isr_and_came_back() {
        let mut sim = at_step("network-partition-isr-shrink", 0);
        let leader_role = |sim: &Simulation| role_of(sim, 0);
        assert_eq!(leader_role(&sim), "broker 0 · leader · ISR 0, 1");
        let follower_role = |sim: &Simulation| role_of(sim, 1);
        step_until(&mut sim, "the link is cut", |rec| {
            rec.notes
                .iter()
                .any(|n| matches!(n, eos_core::sim::note::Note::LinkCut { .. }))
                .then_some(())
        });
        assert_eq!(
            follower_role(&sim),
            "broker 1 · follower of broker 0 · cut off from it"
        );
        let shrunk = step_until(&mut sim, "the ISR shrinks", |rec| {
            rec.notes
                .iter()
                .any(|n| matches!(n, eos_core::sim::note::Note::IsrShrunk { .. }))
                .then_some(rec.step)
        });
        assert_eq!(leader_role(&sim), "broker 0 · leader · ISR 0");
        assert_eq!(
            follower_role(&sim),
            "broker 1 · follower of broker 0 · out of sync, cut off"
        );
        // Both lines stand out while the replication is weakened, and not once it is whole.
        let warned = |sim: &Simulation| {
            crate::view_model::partitions(sim, Lang::En)
                .iter()
                .map(|p| p.role_warn)
                .collect::<Vec<_>>()
        };
        assert_eq!(warned(&sim), vec![true, true]);
        sim.run(RunLimit::Completion);
        assert_eq!(follower_role(&sim), "broker 1 · follower of broker 0");
        assert_eq!(warned(&sim), vec![false, false]);
        assert_eq!(leader_role(&sim), "broker 0 · leader · ISR 0, 1");
        let vm = inspect(&sim, &Selection::Node(NodeId::Broker(1)), Lang::En);
        let story = value(&vm, "story (steps)").to_string();
        assert!(
            story.starts_with(&format!("#{shrunk} out of the ISR of orders-0 (lagged)"))
                && story.contains("back in the ISR of orders-0"),
            "{story}"
        );
        // Each entry goes to its own step: the shrink's, then the rejoin's (a later one).
        let at: Vec<Option<u64>> = told_by_step(&vm, "story (steps)")
            .iter()
            .map(|s| s.0)
            .collect();
        assert!(
            at.len() == 2 && at[0] == Some(shrunk) && at[1] > Some(shrunk),
            "{at:?}"
        );
        let leader = inspect(&sim, &Selection::Node(NodeId::Broker(0)), Lang::En);
        let told = value(&leader, "story (steps)").to_string();
        assert!(
            told.starts_with(&format!(
                "#{shrunk} took broker 1 out of the ISR of orders-0"
            )) && told.contains("took broker 1 back into the ISR of orders-0"),
            "{told}"
        );
        let ru = inspect(&sim, &Selection::Node(NodeId::Broker(1)), Lang::Ru);
        assert!(
            ru.rows
                .iter()
                .any(|r| r.1.contains("выбыл из ISR orders-0")),
            "{:?}",
            ru.rows
        );
    }

    /// A loss is known at the end, as the oracle's bar says: mid-run the inspector does not
    /// call a record lost (it may be read or copied yet), though judged now it would be.
    #[test]
    fn a_record_is_not_called_lost_mid_run() {
        let v0 = first_record();
        let sim = at_step("unclean-election-loss", 12);
        // The oracle, asked now, finds v0 lost (broker 1 leads without it)...
        assert!(anomalies::find(&sim).iter().any(|a| {
            a.kind == anomalies::AnomalyKind::LostWrite && a.record == Some(RecordId(0))
        }));
        // ...but the run is not over: the inspector says no anomaly names it yet.
        let vm = inspect(&sim, &v0, Lang::En);
        assert!(
            vm.notes
                .iter()
                .all(|n| !n.starts_with("Anomaly lost-write"))
                && vm.notes.iter().any(|n| n == S::NoAnomaly.get(Lang::En)),
            "{:?}",
            vm.notes
        );
    }

    /// Steps `sim` until a step's record gives `find` something, and returns it (a failed
    /// test, saying `what` was expected, if the run ends first); shared with other tests.
    pub(crate) fn step_until<T>(
        sim: &mut Simulation,
        what: &str,
        find: impl Fn(&eos_core::sim::simulation::StepRecord) -> Option<T>,
    ) -> T {
        loop {
            assert!(!sim.is_finished(), "the run ends before {what}");
            sim.step();
            if let Some(found) = sim.trace().last().and_then(&find) {
                return found;
            }
        }
    }

    #[test]
    fn a_lost_message_is_named_with_when_and_how_it_was_lost() {
        let mut sim = builtin::get("lost-ack-idempotence-off")
            .expect("built-in")
            .simulation(None);
        let lost = step_until(&mut sim, "an acknowledgement is lost", |r| {
            r.notes.iter().find_map(|n| match n {
                eos_core::sim::note::Note::AckLost { msg, .. } => Some(*msg),
                _ => None,
            })
        });
        let step = sim.steps();
        sim.run(RunLimit::Steps(5));
        for lang in [Lang::En, Lang::Ru] {
            let vm = inspect(&sim, &Selection::Message(lost), lang);
            assert!(vm.message.is_none(), "no fault offered on a lost message");
            let label = S::LostOnTheWire.get(lang);
            assert!(
                value(&vm, label).contains(&format!("{step}")),
                "{:?}",
                vm.rows
            );
            assert_eq!(
                value(&vm, S::Status.get(lang)),
                S::LostNeverArrives.get(lang)
            );
            assert!(vm.notes[0].contains("loses"), "{:?}", vm.notes);
        }
    }

    /// The value of the row labelled `label` (a failed test if there is none), shared with
    /// other inspectors' tests.
    pub(crate) fn value<'a>(vm: &'a InspectorVm, label: &str) -> &'a str {
        vm.rows
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("no row {label}: {:?}", vm.rows))
    }

    #[test]
    fn a_partition_shows_the_brokers_producer_state_the_last_five_batches() {
        let sim = finished("retry-outside-window");
        let tp = eos_core::ids::Tp {
            topic: 0,
            partition: 0,
        };
        let vm = inspect(&sim, &Selection::Partition { tp, broker: 0 }, Lang::En);
        // Seven batches were stored; the broker keeps the last five.
        assert_eq!(
            value(&vm, "producer id 0 · epoch 0, last batches"),
            "seq 2 @2 · seq 3 @3 · seq 4 @4 · seq 5 @5 · seq 6 @6"
        );
        let empty = inspect(
            &builtin::get("lost-ack-idempotence-off")
                .expect("built-in")
                .simulation(None),
            &Selection::Partition {
                tp: eos_core::ids::Tp {
                    topic: 0,
                    partition: 0,
                },
                broker: 0,
            },
            Lang::En,
        );
        assert_eq!(
            value(&empty, "producer state"),
            "no producer id has written here"
        );
    }

    #[test]
    fn a_message_on_the_wire_shows_its_route_and_times_and_can_be_dropped() {
        let sim = at_step("seed-frozen-broker", 6);
        let id = sim.in_flight()[0].id;
        let vm = inspect(&sim, &Selection::Message(id), Lang::En);
        assert_eq!(value(&vm, "kind"), "produce");
        assert_eq!(value(&vm, "from"), "app");
        assert_eq!(value(&vm, "to"), "broker 0");
        assert_eq!(value(&vm, "partition"), "events-0");
        assert_eq!(value(&vm, "sent"), "5 ms");
        assert!(value(&vm, "arrives").starts_with("6 ms"));
        let m = vm.message.expect("a message");
        assert!(m.hittable && m.is_produce);
        let drop = message_fault(&m, MessageFault::Drop);
        assert_eq!(drop.action, "drop_on_wire");
        assert_eq!(drop.from.as_deref(), Some("app"));
        assert_eq!(drop.to.as_deref(), Some("broker-0"));
        assert_eq!(drop.message.as_deref(), Some("produce"));
        let ack = message_fault(&m, MessageFault::LoseAck);
        assert_eq!(
            (ack.action.as_str(), ack.topic.as_deref(), ack.partition),
            ("lose_ack", Some("events"), Some(0))
        );
        let delay = message_fault(&m, MessageFault::Delay(250));
        assert_eq!(delay.extra_ms, Some(250));
        let scenario = builtin::get("seed-frozen-broker").expect("built-in");
        for f in [drop, ack, delay, message_fault(&m, MessageFault::DropNext)] {
            let spec = FaultSpec { at_ms: 6, ..f };
            assert!(scenario.with_fault(spec.clone()).is_ok(), "{spec:?}");
        }
    }

    #[test]
    fn a_delivered_message_tells_what_its_arrival_did() {
        let sim = at_step("seed-frozen-broker", 7);
        let id = sim.in_flight().first().map(|m| m.id);
        assert!(id.is_none(), "the produce was delivered (held)");
        let delivered = sim
            .trace()
            .iter()
            .rev()
            .find_map(|r| match &r.what {
                StepKind::Deliver { msg_id, .. } => Some(*msg_id),
                _ => None,
            })
            .expect("a delivery");
        let vm = inspect(&sim, &Selection::Message(delivered), Lang::En);
        assert_eq!(value(&vm, "status"), "delivered");
        assert!(
            vm.notes.iter().any(|n| n.contains("frozen")),
            "{:?}",
            vm.notes
        );
        assert!(inspect(&sim, &Selection::Message(9_999), Lang::En)
            .rows
            .is_empty());
    }

    /// The first arrival of a Metadata request whose step `pred` accepts: its message id
    /// and step record.
    fn metadata_delivery(
        sim: &Simulation,
        pred: impl Fn(&eos_core::sim::StepRecord) -> bool,
    ) -> Option<(u64, &eos_core::sim::StepRecord)> {
        sim.trace().iter().find_map(|r| match &r.what {
            StepKind::Deliver {
                msg_id,
                kind: eos_core::kafka::protocol::MessageKind::Metadata,
                ..
            } if pred(r) => Some((*msg_id, r)),
            _ => None,
        })
    }

    #[test]
    fn a_metadata_request_that_narrates_nothing_says_that_its_broker_answers() {
        // The paused-leader run's first Metadata request arrives at broker 1 at step 10,
        // which answers it in the same step and says nothing.
        let sim = at_step("paused-leader-fenced-loss", 11);
        let (id, rec) = metadata_delivery(&sim, |_| true).expect("a Metadata request arrived");
        assert!(rec.notes.is_empty(), "{:?}", rec.notes);
        for (lang, words) in [
            (Lang::En, "broker 1 answers app's Metadata request"),
            (Lang::Ru, "запрос Metadata от app"),
        ] {
            let vm = inspect(&sim, &Selection::Message(id), lang);
            assert!(vm.notes.iter().any(|n| n.contains(words)), "{:?}", vm.notes);
        }
        let d = crate::view_model::diagram::diagram(&sim, 40, Lang::En);
        let arrow = d.arrows.iter().find(|a| a.msg_id == id).expect("its arrow");
        assert!(
            arrow.title.contains("answers app's Metadata request"),
            "{}",
            arrow.title
        );
    }

    #[test]
    fn a_held_metadata_request_whose_connection_closed_says_it_failed() {
        use eos_core::sim::note::Note;
        let sim = finished("seed-frozen-broker");
        let (id, at) = metadata_delivery(&sim, |r| {
            r.notes
                .iter()
                .any(|n| matches!(n, Note::HeldWhileFrozen { .. }))
        })
        .map(|(id, r)| (id, r.step))
        .expect("a Metadata request held by the frozen broker");
        let again = sim
            .trace()
            .iter()
            .find(|r| {
                r.step > at
                    && r.notes
                        .iter()
                        .any(|n| matches!(n, Note::MetadataRequested { again: true, .. }))
            })
            .map(|r| r.step)
            .expect("the client asks again");
        let vm = inspect(&sim, &Selection::Message(id), Lang::En);
        let said = format!("At step {again} the client closed this connection");
        assert!(
            vm.notes.iter().any(|n| n.starts_with(&said)),
            "{:?}",
            vm.notes
        );
        // A Metadata request answered in time says nothing of the kind.
        let answered = at_step("paused-leader-fenced-loss", 11);
        let first = metadata_delivery(&answered, |_| true)
            .map(|(id, _)| id)
            .expect("a Metadata request");
        let vm = inspect(&answered, &Selection::Message(first), Lang::En);
        assert!(!vm
            .notes
            .iter()
            .any(|n| n.contains("closed this connection")));
    }

    /// The inspector on offset 0 of a partition (by its name) of broker 0, at the run's end.
    /// The entries of the row labelled `label`, told by step.
    fn told_by_step(vm: &InspectorVm, label: &str) -> Vec<(Option<u64>, String)> {
        let row = vm.rows.iter().position(|r| r.0 == label);
        vm.steps
            .iter()
            .find(|(r, _)| Some(*r) == row)
            .map(|s| s.1.clone())
            .unwrap_or_default()
    }

    fn finished(scenario: &str) -> Simulation {
        let mut sim = builtin::get(scenario).expect("built-in").simulation(None);
        sim.run(RunLimit::Completion);
        sim
    }

    fn first_record_at_end(scenario: &str, partition: &str) -> InspectorVm {
        let sim = finished(scenario);
        let tp = (0..sim.names.topics.len() as u16)
            .map(|topic| Tp {
                topic,
                partition: 0,
            })
            .find(|tp| sim.names.tp(*tp) == partition)
            .expect("the partition");
        let at = Selection::Record {
            tp,
            broker: 0,
            offset: 0,
        };
        inspect(&sim, &at, Lang::En)
    }

    /// Kafka aborts a Flink sink's transaction at its timeout long before the sink hears it
    /// (when it commits): meanwhile the record's rows disagree, and a note says why.
    #[test]
    fn a_transaction_decided_in_the_log_but_not_yet_heard_says_so() {
        let name = "flink-2pc-txn-timeout-loss";
        let look = |sim: &Simulation| {
            let tp = (0..sim.names.topics.len() as u16)
                .map(|topic| Tp {
                    topic,
                    partition: 0,
                })
                .find(|tp| sim.names.tp(*tp) == "ledger-0")
                .expect("the partition");
            // v9′ at offset 9 (as `eos-sim run flink-2pc-txn-timeout-loss --trace` says).
            let at = Selection::Record {
                tp,
                broker: 0,
                offset: 9,
            };
            inspect(sim, &at, Lang::En)
        };
        let value = |vm: &InspectorVm, label: &str| {
            vm.rows
                .iter()
                .find(|r| r.0 == label)
                .map(|r| r.1.clone())
                .unwrap_or_default()
        };
        // After the ABORT marker (step 258), before the refused commit (step 265).
        let vm = look(&at_step(name, 262));
        assert!(vm.title.starts_with("Record v9′"), "{}", vm.title);
        assert_eq!(value(&vm, "transaction"), "aborted");
        assert_eq!(value(&vm, "ledger status"), "pending");
        assert_eq!(
            value(&vm, "acknowledged"),
            "not yet: at the answer to its checkpoint's commit"
        );
        assert!(
            vm.notes[0].starts_with("Kafka has aborted this transaction")
                && vm.notes[0].contains("sink-0 has not heard yet"),
            "{:?}",
            vm.notes
        );
        // Once the sink has heard, the rows agree and the note goes; the record is counted
        // done by Flink, not acknowledged by Kafka.
        let mut sim = at_step(name, 262);
        sim.run(RunLimit::Completion);
        let vm = look(&sim);
        assert_eq!(value(&vm, "ledger status"), "failed");
        assert_eq!(
            value(&vm, "acknowledged"),
            "no: sink-0 counts offset 9 as done, but Kafka refused its commit"
        );
        assert!(
            vm.notes.iter().all(|n| !n.contains("has not heard")),
            "{:?}",
            vm.notes
        );
    }

    fn lane_input_at_end(g: Guarantee, input: u32) -> InspectorVm {
        let s = builtin::get("rpw-crash-at-least-once").expect("built-in");
        let lane = eos_core::compare::with_guarantee(&s, g).expect("switched");
        let mut sim = lane.simulation(None);
        sim.run(RunLimit::Completion);
        inspect(
            &sim,
            &Selection::LaneInput {
                guarantee: g,
                input,
            },
            Lang::En,
        )
    }

    #[test]
    fn a_compared_input_shows_where_its_copies_are_and_why_it_has_that_many() {
        // As `eos-sim compare rpw-crash-at-least-once` says: v7 has 2 copies at
        // at-least-once (invoices-0 offsets 7 and 8), 0 at at-most-once, 1 at exactly-once.
        let dup = lane_input_at_end(Guarantee::AtLeastOnce, 7);
        assert_eq!(
            dup.title,
            "at-least-once lane · input v7: 2 visible copies of v7′"
        );
        assert_eq!(
            value(&dup, "visible copies (read_committed)"),
            "invoices-0 @7, invoices-0 @8"
        );
        assert_eq!(value(&dup, "value"), "v7′");
        // Two sends, before and after the crash: a replay, which the inspector tells apart
        // from a producer's retry.
        assert!(
            value(&dup, "handed over by the application").starts_with("2 times: each a new send"),
            "{:?}",
            dup.rows
        );
        assert!(
            dup.notes
                .iter()
                .any(|n| n.starts_with("Anomaly duplicate: record v7′")),
            "{:?}",
            dup.notes
        );
        let lost = lane_input_at_end(Guarantee::AtMostOnce, 7);
        assert_eq!(value(&lost, "visible copies (read_committed)"), "none");
        assert_eq!(lost.kind, "input-lost", "leads with why");
        assert_eq!(value(&lost, "output handed to the producer"), "no");
        // The record shown is the input, where the processor read it.
        assert_eq!(value(&lost, "value"), "v7");
        assert!(
            lost.notes[0].starts_with("No copy of v7′, the output of v7,"),
            "{:?}",
            lost.notes
        );
        // Why: billing read it, committed its offset past it, and crashed before processing
        // it (steps 98, 99 and 100 of this run), all in its story; the read is listed.
        assert_eq!(value(&lost, "reads"), "billing @7 (step 98)");
        assert!(
            value(&lost, "story (steps)")
                .ends_with("#98 read · #99 offsets committed · #100 crashed"),
            "{}",
            value(&lost, "story (steps)")
        );
        let once = lane_input_at_end(Guarantee::ExactlyOnce, 7);
        // One copy, after the aborted transaction's records and the markers.
        assert_eq!(
            value(&once, "visible copies (read_committed)"),
            "invoices-0 @16"
        );
        assert_eq!(value(&once, "transaction"), "committed");
        assert_eq!(
            once.title,
            "exactly-once lane · input v7: 1 visible copy of v7′"
        );
    }

    /// The labels of `vm`'s rows told by step, in order.
    fn stepped_labels(vm: &InspectorVm) -> Vec<&str> {
        vm.steps
            .iter()
            .filter_map(|(i, _)| vm.rows.get(*i).map(|(k, _)| k.as_str()))
            .collect()
    }

    #[test]
    fn a_record_s_story_follows_its_status_and_its_steps_stay_on_their_rows() {
        // lost-ack-idempotence-off's v0 at the end: the story comes right after the ledger
        // status, before the details, and the entries told by step sit on the rows that
        // tell them.
        let sim = finished("lost-ack-idempotence-off");
        let v0 = first_record();
        let vm = inspect(&sim, &v0, Lang::En);
        assert_eq!(
            stepped_labels(&vm),
            ["story (steps)", "appends", "reads"],
            "{:?}",
            vm.rows
        );
        let labels: Vec<&str> = vm.rows.iter().map(|(k, _)| k.as_str()).collect();
        let status = labels.iter().position(|k| *k == "ledger status");
        let story = labels.iter().position(|k| *k == "story (steps)");
        assert_eq!(story, status.map(|i| i + 1), "{labels:?}");
        // The append that lost its ack says where it put this copy, and v0's second copy,
        // at offset 5, is named so.
        let told = value(&vm, "story (steps)");
        assert!(told.contains("#4 appended @0, ack lost · #9"), "{told}");
        assert!(told.contains("#19 appended @5 · #20"), "{told}");
        // Each row's plain value is its entries' words.
        for (row, entries) in &vm.steps {
            let said: Vec<&str> = entries.iter().map(|(_, t)| t.as_str()).collect();
            let sep = if vm.rows[*row].0 == "story (steps)" {
                " · "
            } else {
                ", "
            };
            assert_eq!(vm.rows[*row].1, said.join(sep));
        }
        // A compared input is told from another run than the one on screen: its rows say
        // their steps in words, with no links into the run on screen, and two rows of its
        // own come first.
        let input = lane_input_at_end(Guarantee::AtLeastOnce, 7);
        assert!(input.steps.is_empty(), "{:?}", input.steps);
        assert_eq!(input.rows[0].0, "visible copies (read_committed)");
        assert_eq!(
            value(&input, "appends"),
            "invoices-0 @7 (step 99), invoices-0 @8 (step 119)"
        );
    }

    #[test]
    fn a_lane_record_is_the_lane_run_s_record_named_with_its_lane() {
        // The at-least-once scenario under exactly-once: the lane's output log holds a
        // committed copy at offset 0, and the title says whose it is.
        let s = builtin::get("rpw-crash-at-least-once").expect("built-in");
        let lane = eos_core::compare::with_guarantee(&s, Guarantee::ExactlyOnce).expect("switched");
        let mut sim = lane.simulation(None);
        sim.run(RunLimit::Completion);
        let tp = Tp {
            topic: sim.processors[0].settings.output_topic,
            partition: 0,
        };
        let at = Selection::LaneRecord {
            guarantee: Guarantee::ExactlyOnce,
            tp,
            broker: 0,
            offset: 0,
        };
        let vm = inspect(&sim, &at, Lang::En);
        assert!(
            vm.title.starts_with("exactly-once lane · Record "),
            "{}",
            vm.title
        );
        assert_eq!(value(&vm, "transaction"), "committed");
        assert_eq!(value(&vm, "value"), "v0′");
    }

    #[test]
    fn a_flink_sink_record_shows_its_copy_s_transaction_and_the_sink_s_delivery() {
        // enriched-0, the sink's topic: its first record was committed by the sink.
        let vm = first_record_at_end("flink-barrier-walkthrough", "enriched-0");
        assert_eq!(value(&vm, "transaction"), "committed");
        assert_eq!(value(&vm, "ledger status"), "delivered");
        assert_eq!(value(&vm, "sent by"), "sink-0");
    }

    #[test]
    fn a_record_shows_its_ledger_entry() {
        let vm = first_record_at_end("lost-ack-idempotence-off", "payments-0");
        assert_eq!(value(&vm, "value"), "v0");
        assert_eq!(value(&vm, "ledger status"), "delivered");
        assert!(value(&vm, "appends").contains("payments-0 @0"));
        assert!(value(&vm, "appends").contains(", "), "two copies");
        // Each copy's entry goes to the step of its append, as its text says.
        let copies = told_by_step(&vm, "appends");
        assert_eq!(copies.len(), 2, "{copies:?}");
        for (step, said) in &copies {
            let step = step.expect("this cell exists from the first append on");
            assert!(said.ends_with(&format!("(step {step})")), "{said}");
        }
        // v1's second copy (offset 4) did not exist at its first append: that entry is text.
        let second = inspect(
            &finished("lost-ack-idempotence-off"),
            &Selection::Record {
                tp: Tp {
                    topic: 0,
                    partition: 0,
                },
                broker: 0,
                offset: 4,
            },
            Lang::En,
        );
        let copies = told_by_step(&second, "appends");
        assert!(copies[0].0.is_none() && copies[1].0.is_some(), "{copies:?}");
        assert!(
            vm.notes.iter().any(|n| n.starts_with("Anomaly duplicate")),
            "{:?}",
            vm.notes
        );
    }

    #[test]
    fn a_crashed_broker_says_the_metadata_names_it_until_it_is_fenced() {
        let mut sim = at_step("acks1-leader-crash-loss", 0);
        sim.run(RunLimit::Until(eos_core::time::ms(1_000)));
        let b = inspect(&sim, &Selection::Node(NodeId::Broker(0)), Lang::En);
        assert!(
            value(&b, "status").contains("until the controller fences it, 9000 ms after the crash"),
            "{}",
            value(&b, "status")
        );
        sim.run(RunLimit::Until(eos_core::time::ms(10_000)));
        let b = inspect(&sim, &Selection::Node(NodeId::Broker(0)), Lang::En);
        assert_eq!(value(&b, "status"), "crashed");
    }

    /// Restarted before its old session expired, a broker says it is refused until then;
    /// a producer without idempotence has no producer id rather than -1.
    #[test]
    fn a_refused_broker_and_a_producer_without_a_pid_say_so() {
        let mut sim = at_step("txn-coordinator-crash-after-prepare-commit", 0);
        sim.run(RunLimit::Until(eos_core::time::ms(1_000)));
        let b = inspect(&sim, &Selection::Node(NodeId::Broker(0)), Lang::En);
        assert!(
            value(&b, "status").starts_with("restarted · the controller refuses its registration"),
            "{}",
            value(&b, "status")
        );
        sim.run(RunLimit::Until(eos_core::time::ms(9_500)));
        let b = inspect(&sim, &Selection::Node(NodeId::Broker(0)), Lang::En);
        assert_eq!(value(&b, "status"), "up");
        let sim = at_step("lost-ack-idempotence-off", 5);
        let p = inspect(&sim, &Selection::Node(NodeId::Producer(0)), Lang::En);
        assert_eq!(value(&p, "producer id"), "no pid");
        assert_eq!(value(&p, "epoch"), "—");
    }

    #[test]
    fn a_frozen_broker_fenced_by_the_controller_says_so() {
        let mut sim = at_step("paused-leader-fenced-loss", 0);
        sim.run(RunLimit::Until(eos_core::time::ms(5_000)));
        let b = inspect(&sim, &Selection::Node(NodeId::Broker(0)), Lang::En);
        assert!(
            !value(&b, "status").contains("fenced"),
            "{}",
            value(&b, "status")
        );
        sim.run(RunLimit::Until(eos_core::time::ms(10_000)));
        let b = inspect(&sim, &Selection::Node(NodeId::Broker(0)), Lang::En);
        assert!(
            value(&b, "status").starts_with("frozen, holding")
                && value(&b, "status").contains("fenced by the controller, which it cannot hear")
                && value(&b, "status").contains("zombie leader"),
            "{}",
            value(&b, "status")
        );
        // Its log on the stage: deposed while it cannot hear, a follower once it has.
        let role = |sim: &Simulation, broker: u8| {
            let p = crate::view_model::partitions(sim, Lang::En)
                .into_iter()
                .find(|p| p.broker == broker)
                .expect("a replica");
            (p.leader, p.role)
        };
        assert_eq!(
            role(&sim, 0),
            (
                false,
                "broker 0 · deposed, thinks it still leads".to_string()
            )
        );
        assert!(role(&sim, 1).0, "broker 1 leads");
        sim.run(RunLimit::Until(eos_core::time::ms(15_100)));
        assert_eq!(
            role(&sim, 0),
            (false, "broker 0 · follower of broker 1".to_string())
        );
        // Thawed (step 37: the first waiting retry appended) and not yet caught up: a zombie.
        let zombie = at_step("paused-leader-fenced-loss", 37);
        let b = inspect(&zombie, &Selection::Node(NodeId::Broker(0)), Lang::En);
        assert!(
            value(&b, "status").starts_with("up · serving what waited"),
            "{b:?}"
        );
        assert!(
            b.notes
                .iter()
                .any(|n| n.contains("deposed, thinks it still leads")),
            "{b:?}"
        );
        // Its log, with the retries it appended again (step 41): copies no one will read,
        // tagged as a zombie's, not alarmed as duplicates the oracle would count.
        let appended = at_step("paused-leader-fenced-loss", 41);
        let logs = crate::view_model::partitions(&appended, Lang::En);
        let deposed = logs.iter().find(|p| p.broker == 0).expect("broker 0's log");
        assert!(
            deposed.cells.iter().filter(|c| c.duplicate).count() >= 2,
            "{deposed:?}"
        );
        for c in &deposed.cells {
            assert!(c.zombie && c.classes.contains("zombie") && !c.classes.contains("dup"));
            assert!(c
                .title(Lang::En)
                .contains("only in the deposed leader's log"));
        }
        let leader = logs.iter().find(|p| p.broker == 1).expect("broker 1's log");
        assert!(leader.cells.iter().all(|c| !c.zombie));
    }

    #[test]
    fn a_producer_shows_identity_sequences_and_batches_in_flight() {
        let sim = at_step("seed-frozen-broker", 6);
        let vm = inspect(&sim, &Selection::Node(NodeId::Producer(0)), Lang::En);
        assert_eq!(vm.title, "Producer app");
        assert_eq!(value(&vm, "producer id"), "0");
        assert_eq!(value(&vm, "next sequences"), "events-0 → 1");
        assert_eq!(value(&vm, "in-flight batches"), "1");
        assert!(vm.notes[0].contains("base seq 0"), "{:?}", vm.notes);
        let b = inspect(&sim, &Selection::Node(NodeId::Broker(0)), Lang::En);
        assert!(value(&b, "status").starts_with("frozen"));
        let p = inspect(
            &sim,
            &Selection::Partition {
                tp: Tp {
                    topic: 0,
                    partition: 0,
                },
                broker: 0,
            },
            Lang::En,
        );
        assert_eq!(value(&p, "role"), "leader");
    }

    #[test]
    fn delays_are_validated_with_a_sentence() {
        assert_eq!(parse_delay_ms(" 500 ", Lang::En), Ok(500));
        assert!(parse_delay_ms("0", Lang::En)
            .unwrap_err()
            .contains("out of range"));
        assert!(parse_delay_ms("1e9", Lang::En)
            .unwrap_err()
            .contains("not a delay"));
        assert!(parse_delay_ms("1e9", Lang::Ru)
            .unwrap_err()
            .contains("не задержка"));
    }

    #[test]
    fn the_inspector_speaks_russian_when_asked() {
        let sim = at_step("seed-frozen-broker", 6);
        let id = sim.in_flight()[0].id;
        let (en, ru) = (
            inspect(&sim, &Selection::Message(id), Lang::En),
            inspect(&sim, &Selection::Message(id), Lang::Ru),
        );
        assert_ne!(en.title, ru.title);
        assert_eq!(ru.title, format!("Сообщение #{id}: produce"));
        assert_eq!(value(&ru, "от"), "app");
        assert_eq!(value(&ru, "кому"), "брокер 0");
        assert_eq!(value(&ru, "отправлено"), "5 мс");
        assert_eq!(value(&ru, "статус"), "в пути");
        assert_eq!(
            en.message.as_ref().map(|m| &m.from),
            ru.message.as_ref().map(|m| &m.from)
        );
        let b = inspect(&sim, &Selection::Node(NodeId::Broker(0)), Lang::Ru);
        assert_eq!(b.title, "Брокер 0");
        assert!(value(&b, "статус").starts_with("заморожен"));
    }
}
