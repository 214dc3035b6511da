//! The space-time diagram as geometry: one lane per process, one arrow per message, fault
//! marks on lanes, a "now" line. Pure, so the layout is tested natively.
//!
//! Time runs left to right on an *event* axis: every distinct moment at which a step
//! happened gets one column, so that a 1 ms round trip and a 6 s freeze are both legible.
//! Times between two columns are placed by linear interpolation between them.

use crate::i18n::{duration, Lang, S};
use eos_core::ids::NodeId;
use eos_core::sim::narration::narrate;
use eos_core::sim::simulation::StepKind;
use eos_core::sim::{FlinkNote, Note, Simulation};
use eos_core::time::SimTime;

/// Width of the lane labels on the left.
pub const LABEL_WIDTH: f64 = 170.0;
/// Horizontal room for one event column.
pub const COLUMN_WIDTH: f64 = 58.0;
/// The most room one column takes when a short drawing spreads to fill a wide frame.
pub const MAX_COLUMN_WIDTH: f64 = 170.0;
/// Room right of the now line for messages still on the wire.
pub const WIRE_WIDTH: f64 = 150.0;
/// The most a wide frame's wire zone grows while the drawing is short.
pub const WIRE_GROWTH: f64 = 110.0;
/// The same on a phone, whose diagram shows about 250–360 px in all.
pub const PHONE_WIRE_WIDTH: f64 = 112.0;

/// Where the diagram is shown. On a phone (`style.css`, up to 560 px wide) the wire zone is
/// narrower, and each lane's name sits just above its line over the visible drawing's left
/// end, so arrow labels keep clear of the names.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Viewport {
    /// `frame`: the width of the diagram's frame (the pinned lane names and the drawing),
    /// when known. A drawing narrower than the frame spreads its columns to fill it, up to
    /// `MAX_COLUMN_WIDTH` each, rather than leave the frame's right half empty.
    Wide { frame: Option<f64> },
    /// `visible`: the drawing's visible width, in pixels.
    Phone { visible: f64 },
}

impl Viewport {
    fn wire_width(self) -> f64 {
        match self {
            Viewport::Wide { .. } => WIRE_WIDTH,
            Viewport::Phone { .. } => PHONE_WIRE_WIDTH,
        }
    }
}
/// Vertical distance between lanes.
pub const LANE_GAP: f64 = 46.0;
/// Room above the first lane for the time ticks.
pub const TOP: f64 = 44.0;
/// Columns drawn at most: the diagram scrolls sideways over them, following the current
/// step; earlier moments are not drawn.
pub const WINDOW_COLUMNS: usize = 400;
/// Delivered messages drawn at most: on a busy run the window starts later, so that a
/// step does not redraw thousands of arrows.
pub const MAX_ARROWS: usize = 400;
/// The window's first arrow moves this many arrows at a time when `MAX_ARROWS` binds.
pub const ARROW_STRIDE: usize = 100;
/// A tick label on every this many columns (and on the now column).
pub const TICK_EVERY: usize = 2;
/// Room the now label takes left of the now line.
pub const NOW_LABEL_ROOM: f64 = 140.0;

#[derive(Clone, Debug, PartialEq)]
pub struct LaneVm {
    pub node: NodeId,
    /// "consumer auditor": the role, then the name.
    pub label: String,
    /// The role alone ("consumer"), which a phone leaves out of the lane's name.
    pub role: &'static str,
    pub y: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ArrowVm {
    pub msg_id: u64,
    pub kind: String,
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
    /// Still on the wire: drawn dashed into the "on the wire" zone right of now.
    pub in_flight: bool,
    /// Delivered by the current step.
    pub current: bool,
    /// It reached a crashed process, which lost it: drawn ending in a cross, not a head.
    pub lost: bool,
    /// Its kind is written over it: when it is current, or on a quiet wire.
    pub labelled: bool,
    /// How many more arrows like it (copies of one kind between the same lanes at the same
    /// moments, fanned out) its label speaks for: they carry none of their own.
    pub also: usize,
    /// Its start lies left of the window (the line is clipped to the window's edge).
    pub clipped: bool,
    /// Where its label is written (its centre and baseline; see `arrow_labels`).
    pub label_x: f64,
    pub label_y: f64,
    pub title: String,
    /// The second copy of a message the network duplicated (a `duplicate` fault): it has an
    /// arrow of its own, and shares the message's id with the first.
    pub copy: bool,
}

/// How far above its lane a message a process sends itself has its arch's control points,
/// at least; the arch peaks three quarters as high (`ARCH_PEAK` for the lowest).
pub const ARCH_LIFT: f64 = 22.0;
pub const ARCH_PEAK: f64 = ARCH_LIFT * 0.75;
/// How much higher a longer arch rises (a pixel for every 8 of its span, up to this), so
/// that two arches from one moment, one delivered and one still on the wire, do not lie
/// on one curve where only the later drawn could be clicked.
const ARCH_GROWTH: f64 = 12.0;
/// The least distance between an arch's control points: one sent and received at nearly one
/// moment is a loop, not a spike.
const ARCH_MIN_SPAN: f64 = 20.0;

impl ArrowVm {
    /// Its key in the drawing: the message's id, apart for a duplicated message's copy.
    pub fn key(&self) -> u64 {
        self.msg_id * 2 + u64::from(self.copy)
    }

    /// A message a process sends itself (a leader's AddPartitionsToTxn to the coordinator
    /// its own broker hosts) has both ends on one lane: drawn along the lane's line it was
    /// hard to see and its head read as the lane's. It is drawn as an arch above the lane,
    /// a cubic curve with these two control points (x, y, x, y).
    pub fn arch(&self) -> Option<[f64; 4]> {
        if self.y1 != self.y2 {
            return None;
        }
        let spread = ((ARCH_MIN_SPAN - (self.x2 - self.x1)) / 2.0).max(0.0);
        let y = self.y1 - self.arch_lift();
        Some([self.x1 - spread, y, self.x2 + spread, y])
    }

    /// How far above the lane its arch's control points are (see `arch`).
    pub fn arch_lift(&self) -> f64 {
        ARCH_LIFT + ((self.x2 - self.x1).abs() / 8.0).min(ARCH_GROWTH)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct MarkVm {
    /// `crash`, `restart` or `lost` (a dropped message or a lost acknowledgement).
    pub kind: &'static str,
    pub x: f64,
    pub y: f64,
    /// For a lost message: where its stub ends (see `lost_stub`), half way from its sender's
    /// lane toward its receiver's, with the cross there (so a lost answer does not read as a
    /// lost request).
    pub stub: Option<(f64, f64)>,
    /// The lost message, which a click on its cross opens.
    pub msg: Option<u64>,
    pub title: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BandVm {
    /// `freeze` (paused, its connections open), `down` (crashed until it restarts) or `cut`
    /// (its link to another process cut until it heals).
    pub kind: &'static str,
    pub x1: f64,
    pub x2: f64,
    pub y: f64,
    pub title: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TickVm {
    pub x: f64,
    pub label: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DiagramVm {
    pub width: f64,
    pub height: f64,
    pub lanes: Vec<LaneVm>,
    pub arrows: Vec<ArrowVm>,
    pub marks: Vec<MarkVm>,
    pub bands: Vec<BandVm>,
    pub ticks: Vec<TickVm>,
    pub now_x: f64,
    pub now_label: String,
    /// The window starts after the beginning of the run.
    pub earlier_hidden: bool,
    /// Where the drawing's part in view begins when it opens (scrolled to now): the label
    /// column's cut, or on a phone further right (a long drawing) or left (a short one).
    pub view_left: f64,
    /// Where the drawing on screen begins: the label column's cut; on a phone, left of it
    /// while the drawing is narrower than the screen, so that the now line stands right of
    /// the lane names written over the drawing's left end, not under them.
    pub origin: f64,
    /// The width of the pinned lane names' column on a wide screen.
    pub pane: f64,
}

/// Producers, brokers, consumers, processors: one lane each, top to bottom.
pub fn lanes(sim: &Simulation, lang: Lang) -> Vec<LaneVm> {
    let mut nodes: Vec<(NodeId, &str)> = Vec::new();
    let (producer, consumer) = (S::LaneProducer.get(lang), S::LaneConsumer.get(lang));
    nodes.extend((0..sim.producers.len()).map(|i| (NodeId::Producer(i as u8), producer)));
    nodes.extend((0..sim.brokers.len()).map(|i| (NodeId::Broker(i as u8), "")));
    nodes.extend((0..sim.consumers.len()).map(|i| (NodeId::Consumer(i as u8), consumer)));
    let processor = S::LaneProcessor.get(lang);
    nodes.extend((0..sim.processors.len()).map(|i| (NodeId::Processor(i as u8), processor)));
    if let Some(job) = &sim.flink {
        // Flink's RPC (trigger, ack, notify) and the tasks' Kafka traffic; records between
        // subtasks travel in channels, drawn on the Flink stage instead.
        nodes.push((NodeId::JobManager, ""));
        let task = S::LaneTask.get(lang);
        nodes.extend((0..job.tasks.len()).map(|i| (NodeId::Task(i as u8), task)));
    }
    nodes
        .into_iter()
        .enumerate()
        .map(|(i, (node, role))| {
            let name = super::node_name(sim, node, lang);
            LaneVm {
                node,
                role,
                label: if role.is_empty() {
                    name
                } else {
                    format!("{role} {name}")
                },
                y: TOP + LANE_GAP * (i as f64 + 0.5),
            }
        })
        .collect()
}

/// The time axis of the window: the latest distinct step times, at most `columns` of them.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeScale {
    pub times: Vec<SimTime>,
    /// The room one column takes: `COLUMN_WIDTH`, or more when a short drawing spreads.
    pub column: f64,
}

/// How many columns the window's first column moves at a time, for a window of `columns`:
/// a third of it. Between two moves nothing drawn shifts (the now line walks right, and an
/// arrow already drawn keeps its place, so it is not drawn again at every step).
pub fn stride(columns: usize) -> usize {
    (columns / 3).max(1)
}

impl TimeScale {
    /// The latest `columns` distinct times, sliding one column per new moment.
    pub fn of(sim: &Simulation, columns: usize) -> TimeScale {
        Self::paged(sim, columns, 1)
    }

    /// The latest distinct times, at most `columns` and at least `columns - stride + 1` of
    /// them (fewer at the start of a run), the first one's place in the run a multiple of
    /// `stride`; and no earlier than needed to hold at most `MAX_ARROWS` delivered messages.
    pub fn paged(sim: &Simulation, columns: usize, stride: usize) -> TimeScale {
        Self::capped(sim, columns, stride, MAX_ARROWS, ARROW_STRIDE)
    }

    /// `paged`, with the cap on delivered messages given: the window then starts at a
    /// delivery whose place in the run is a multiple of `arrow_stride`, so it moves in
    /// strides as well.
    pub fn capped(
        sim: &Simulation,
        columns: usize,
        stride: usize,
        max_arrows: usize,
        arrow_stride: usize,
    ) -> TimeScale {
        let trace = sim.trace();
        let is_delivery = |k: &StepKind| matches!(k, StepKind::Deliver { .. });
        let (mut distinct, mut deliveries) = (0usize, 0usize);
        let mut last = None;
        for rec in trace {
            if last != Some(rec.time) {
                distinct += 1;
                last = Some(rec.time);
            }
            deliveries += usize::from(is_delivery(&rec.what));
        }
        let stride = stride.max(1);
        let arrow_stride = arrow_stride.max(1);
        // By columns: skip whole strides of the earliest moments.
        let by_columns = distinct.saturating_sub(columns).div_ceil(stride) * stride;
        // By arrows: the first delivery kept, in whole strides; the moment it lands in.
        let first_kept =
            deliveries.saturating_sub(max_arrows).div_ceil(arrow_stride) * arrow_stride;
        let mut by_arrows = 0usize;
        if first_kept > 0 {
            let (mut moment, mut seen) = (0usize, 0usize);
            let mut last = None;
            for rec in trace {
                if last != Some(rec.time) {
                    moment += 1;
                    last = Some(rec.time);
                }
                if is_delivery(&rec.what) {
                    if seen == first_kept {
                        by_arrows = moment - 1;
                        break;
                    }
                    seen += 1;
                }
            }
        }
        let skipped = by_columns.max(by_arrows).min(distinct);
        let keep = distinct - skipped;
        let mut times: Vec<SimTime> = Vec::with_capacity(keep);
        for rec in trace.iter().rev() {
            if times.last() != Some(&rec.time) {
                if times.len() == keep {
                    break;
                }
                times.push(rec.time);
            }
        }
        times.reverse();
        TimeScale {
            times,
            column: COLUMN_WIDTH,
        }
    }

    /// The same moments, each column `drawing / (columns - 0.5)` wide (the first column's
    /// middle is half a column in, the now line at the last one's middle), between
    /// `COLUMN_WIDTH` and `MAX_COLUMN_WIDTH`: `drawing` is the room from the drawing's
    /// left edge to the now line.
    fn spread(self, drawing: f64) -> TimeScale {
        let n = self.times.len() as f64 - 0.5;
        let column = if n > 0.0 { drawing / n } else { COLUMN_WIDTH };
        TimeScale {
            column: column.clamp(COLUMN_WIDTH, MAX_COLUMN_WIDTH),
            ..self
        }
    }

    fn column_x(&self, i: usize) -> f64 {
        LABEL_WIDTH + self.column * (i as f64 + 0.5)
    }

    /// Where a moment lies; `None` before the window. After the last column: the now line.
    pub fn x(&self, t: SimTime) -> Option<f64> {
        let first = *self.times.first()?;
        if t < first {
            return None;
        }
        let i = self.times.partition_point(|c| *c <= t);
        // times[i - 1] <= t < times[i]
        let left = self.times[i - 1];
        let Some(&right) = self.times.get(i) else {
            return Some(self.column_x(i - 1));
        };
        let frac = (t - left) as f64 / (right - left) as f64;
        Some(self.column_x(i - 1) + self.column * frac)
    }

    pub fn now_x(&self) -> f64 {
        self.column_x(self.times.len().saturating_sub(1))
    }

    /// The left edge of the drawing area.
    pub fn left(&self) -> f64 {
        LABEL_WIDTH + self.column * 0.15
    }
}

/// A line from a point left of the window to (x2, y2), clipped to the window's left edge:
/// the start point keeps the slope the message's real line would have, roughly.
fn clip_start(left: f64, y1: f64, x2: f64, y2: f64) -> (f64, f64) {
    let lean = ((x2 - left) / (COLUMN_WIDTH * 2.0)).clamp(0.0, 1.0);
    (left, y2 + (y1 - y2) * lean.max(0.35))
}

/// Up to this many messages on the wire, each has its kind written over it.
pub const QUIET_WIRE: usize = 8;
/// How far right of its moment a lost message's stub reaches, in pixels.
const LOST_STUB_X: f64 = 20.0;

/// Two arrows whose labels would lie over each other: one kind between the same lanes, both
/// on the wire (their tips share its zone), or delivered at moments within a fan's width of
/// each other.
fn alike(a: &ArrowVm, b: &ArrowVm) -> bool {
    let near = |p: f64, q: f64| (p - q).abs() <= FAN_OUT * 6.0;
    a.kind == b.kind
        && a.in_flight == b.in_flight
        && a.y1 == b.y1
        && a.y2 == b.y2
        && (a.in_flight || (near(a.x1, b.x1) && near(a.x2, b.x2)))
}

/// A lost message's stub, from where it starts on its sender's lane (`y`) to where its
/// cross sits, toward its receiver's lane (`to_y`): from its sending to its loss when it
/// was lost on the way, its cross at the moment it was lost (`at`); a short slant ending at
/// that moment when it was lost as it was sent, so a loss at the current step never reads
/// as one to come, right of the now line.
fn lost_stub(
    scale: &TimeScale,
    sent_at: SimTime,
    at: f64,
    now_x: f64,
    y: f64,
    to_y: f64,
) -> (f64, (f64, f64)) {
    let end_y = y + stub_depth(to_y - y);
    let sent = scale.x(sent_at).unwrap_or_else(|| scale.left());
    if at - sent >= LOST_STUB_X / 2.0 {
        return (sent, (at, end_y));
    }
    let end = (at + LOST_STUB_X).min(now_x);
    (end - LOST_STUB_X, (end, end_y))
}

/// How far a lost message's stub reaches toward its receiver's lane (`dy` away): half way,
/// or, when a third process's lane lies half way, to the middle of the gap before it, so its
/// cross never sits on a process that had nothing to do with it.
fn stub_depth(dy: f64) -> f64 {
    // A message to itself rises toward its arch.
    if dy == 0.0 {
        return -ARCH_PEAK;
    }
    let gaps = (dy.abs() / LANE_GAP).round().max(1.0);
    dy.signum() * LANE_GAP * (((gaps - 1.0) / 2.0).floor() + 0.5)
}

/// How far apart copies of one arrow (same processes, same moments) are drawn, in pixels.
pub const FAN_OUT: f64 = 7.0;

/// The most messages on the wire the diagram draws.
pub const WIRE_ARROWS: usize = 60;

pub fn diagram(sim: &Simulation, columns: usize, lang: Lang) -> DiagramVm {
    diagram_in(sim, columns, lang, Viewport::Wide { frame: None })
}

/// The names a phone writes over the drawing (as `space_time.rs` draws them: 12 px bold, 8 px
/// in from the visible left end, 14 px above the lane's line), as boxes labels avoid.
fn names_over(lanes: &[LaneVm], visible_left: f64) -> Vec<super::arrow_labels::LabelBox> {
    lanes
        .iter()
        .map(|l| {
            let name = l
                .label
                .strip_prefix(l.role)
                .map_or(l.label.as_str(), str::trim_start);
            // `style.css` lifts a name 15 px on a phone.
            let baseline = l.y + 5.0 - 15.0;
            super::arrow_labels::LabelBox {
                x0: visible_left + 5.0,
                x1: visible_left + 12.0 + name.chars().count() as f64 * 7.6,
                y0: baseline - 12.0,
                y1: baseline + 4.0,
            }
        })
        .collect()
}

/// The diagram as `viewport` shows it.
pub fn diagram_in(sim: &Simulation, columns: usize, lang: Lang, viewport: Viewport) -> DiagramVm {
    let lanes = lanes(sim, lang);
    let y_of = |node: NodeId| lanes.iter().find(|l| l.node == node).map(|l| l.y);
    let columns = columns.max(1);
    let mut scale = TimeScale::paged(sim, columns, stride(columns));
    // The pinned lane names' column, and what is left of the frame for the drawing (its
    // box starts at the label column's cut): a short drawing spreads to fill it.
    let pane = pane_width(&lanes);
    if let Viewport::Wide { frame: Some(frame) } = viewport {
        let drawing = frame - pane - viewport.wire_width() - 10.0 - 6.0;
        scale = scale.spread(drawing);
    }
    let now_x = scale.now_x();
    // The "on the wire" zone right of now, and nothing further: the box scrolls sideways
    // from its right end, so now is in view from the first step. In the first few moments,
    // when the columns cannot spread any wider, the zone takes up to `WIRE_GROWTH` more of
    // the frame (room for "init producer id response" there).
    let mut wire = viewport.wire_width();
    if let Viewport::Wide { frame: Some(frame) } = viewport {
        let left_over = frame - pane - (now_x + wire + 10.0 - (LABEL_WIDTH - 6.0));
        wire += left_over.clamp(0.0, WIRE_GROWTH);
    }
    let width = now_x + wire + 10.0;
    let left = scale.left();
    let current_step = sim.steps();
    let name = |n: NodeId| super::node_name(sim, n, lang);
    let dur = |t: SimTime| duration(t, lang);

    let mut arrows: Vec<ArrowVm> = Vec::new();
    let mut seen_ids = std::collections::BTreeSet::new();
    // Messages a frozen process held when they first arrived (delivered again when it thaws).
    let mut held_ids = std::collections::BTreeSet::new();
    // Messages the network duplicated: each copy's arrow is current at its own arrival.
    let mut copied_ids = std::collections::BTreeSet::new();
    let mut current_ids: Vec<u64> = Vec::new();
    // Only the steps inside the window draw (the trace is in time order): a render costs the
    // window, not the whole run.
    let trace = sim.trace();
    let window_start = scale.times.first().map_or(trace.len(), |first| {
        trace.partition_point(|r| r.time < *first)
    });
    for rec in &trace[window_start..] {
        let StepKind::Deliver {
            msg_id,
            from,
            kind,
            sent_at,
        } = &rec.what
        else {
            continue;
        };
        if rec.step == current_step {
            current_ids.push(*msg_id);
        }
        let held = rec
            .notes
            .iter()
            .any(|n| matches!(n, Note::HeldWhileFrozen { .. }));
        // A message a frozen process held is delivered twice (held, then served): one arrow.
        // A copy the network duplicated arrives twice too: an arrow each.
        let copy = !seen_ids.insert(*msg_id);
        if held {
            held_ids.insert(*msg_id);
        }
        if copy && (held_ids.contains(msg_id) || !copied_ids.insert(*msg_id)) {
            continue;
        }
        let (Some(to), Some(x2)) = (rec.node, scale.x(rec.time)) else {
            continue;
        };
        let (Some(y1), Some(y2)) = (y_of(*from), y_of(to)) else {
            continue;
        };
        let (x1, y1, clipped) = match scale.x(*sent_at) {
            Some(x1) => (x1, y1, false),
            None => {
                let (x, y) = clip_start(left, y1, x2, y2);
                (x, y, true)
            }
        };
        // An arrival that narrates nothing still says what it did.
        let summary: Vec<String> = if rec.notes.is_empty() {
            vec![super::quiet::line(sim, rec, lang)]
        } else {
            rec.notes.iter().map(|n| narrate(&sim.names, n)).collect()
        };
        arrows.push(ArrowVm {
            msg_id: *msg_id,
            kind: super::message_words::kind(*kind, lang),
            x1,
            y1,
            x2,
            y2,
            in_flight: false,
            lost: rec
                .notes
                .iter()
                .any(|n| matches!(n, Note::LostAtCrashedNode { .. })),
            labelled: false,
            also: 0,
            clipped,
            label_x: 0.0,
            label_y: 0.0,
            title: S::ArrowTip.f(
                lang,
                &[
                    &super::message_words::kind(*kind, lang),
                    &name(*from),
                    &name(to),
                    &dur(*sent_at),
                    &dur(rec.time),
                    &rec.step,
                    &summary.join(" "),
                ],
            ),
            copy,
            // A duplicated message's arrows are current each at its own arrival.
            current: rec.step == current_step,
        });
    }
    for a in arrows
        .iter_mut()
        .filter(|a| !copied_ids.contains(&a.msg_id))
    {
        a.current = current_ids.contains(&a.msg_id);
    }

    let now = sim.last_step_at();
    // The next to arrive, at most `WIRE_ARROWS`: a busy wire (a thousand requests) would
    // otherwise redraw every one at every step.
    let mut wire_ids = std::collections::BTreeSet::new();
    for m in sim.in_flight_first(WIRE_ARROWS).0 {
        // One arrow per message (the diagram's keys): a copy the network duplicated is on
        // the wire twice, and a message a frozen process held goes back on the wire after
        // it was drawn delivered.
        if !wire_ids.insert(m.id) {
            continue;
        }
        // Back on the wire after a frozen process held it: only its flight is drawn. A
        // duplicated copy still on the wire keeps the first copy's arrival.
        if held_ids.contains(&m.id) {
            arrows.retain(|a| a.msg_id != m.id);
        }
        let copy = seen_ids.contains(&m.id) && !held_ids.contains(&m.id);
        let (Some(y1), Some(y2)) = (y_of(m.from), y_of(m.to)) else {
            continue;
        };
        // Several messages on the wire: fan their tips out so each stays clickable (by
        // message, so that a tip stays where it is as others arrive).
        let x2 = width - 20.0 - 14.0 * (m.id % 6) as f64;
        let (x1, y1, clipped) = match scale.x(m.sent_at) {
            Some(x1) => (x1, y1, false),
            None => {
                let (x, y) = clip_start(left, y1, x2, y2);
                (x, y, true)
            }
        };
        arrows.push(ArrowVm {
            msg_id: m.id,
            kind: super::message_words::kind(m.kind, lang),
            x1,
            y1,
            x2,
            y2,
            in_flight: true,
            current: false,
            lost: false,
            labelled: false,
            also: 0,
            clipped,
            label_x: 0.0,
            label_y: 0.0,
            title: S::WireArrowTip.f(
                lang,
                &[
                    &super::message_words::content(&m.label, lang),
                    &name(m.from),
                    &name(m.to),
                    &dur(m.sent_at),
                    &dur(m.arrive_at),
                ],
            ),
            copy,
        });
    }

    // Messages between the same two processes at the same moments (three answers to three
    // retries) would be one line: each further copy is drawn a few pixels to the left.
    let mut drawn: Vec<(i64, i64, i64, i64)> = Vec::new();
    for a in arrows.iter_mut().filter(|a| !a.in_flight) {
        let at = |a: &ArrowVm| {
            let r = |v: f64| v.round() as i64;
            (r(a.x1), r(a.y1), r(a.x2), r(a.y2))
        };
        let same = drawn.iter().filter(|g| **g == at(a)).count();
        drawn.push(at(a));
        if same > 0 {
            let shift = FAN_OUT * same.min(4) as f64;
            a.x1 -= shift;
            a.x2 -= shift;
        }
    }

    // Labels on the wire only while they can be read: on a busy wire they pile up over one
    // another (the tooltip and the inspector still name each message). Arrows alike share
    // one label (below), so a wire busy with a few kinds between a few lanes (5× replicate,
    // 5× ack) is still quiet enough.
    let on_wire: Vec<&ArrowVm> = arrows.iter().filter(|a| a.in_flight).collect();
    let kinds_on_wire = on_wire
        .iter()
        .enumerate()
        .filter(|(i, a)| !on_wire[..*i].iter().any(|b| alike(a, b)))
        .count();
    let quiet_wire = on_wire.len() <= QUIET_WIRE || kinds_on_wire <= QUIET_WIRE / 2;
    for a in &mut arrows {
        a.labelled = a.current || (a.in_flight && quiet_wire);
    }
    // Arrows alike (one kind, the same lanes, the same moments: fanned out) carry one label
    // between them, with their number: three "produce response" labels at once piled up
    // over the arrows and the now line.
    for i in 0..arrows.len() {
        if !arrows[i].labelled {
            continue;
        }
        let mut also = 0;
        for j in i + 1..arrows.len() {
            if arrows[j].labelled && alike(&arrows[i], &arrows[j]) {
                arrows[j].labelled = false;
                also += 1;
            }
        }
        arrows[i].also = also;
    }
    // The box shows the drawing's right end (now); a short drawing starts at the cut.
    let cut = LABEL_WIDTH - 6.0;
    let (view_left, origin, mut obstacles) = match viewport {
        // A drawing wider than its box (the frame less the pinned names) shows its right
        // end: what lies left of the box's edge is out of view, a tick label there cut.
        Viewport::Wide { frame } => (
            frame.map_or(cut, |f| (width - (f - pane)).max(cut)),
            cut,
            Vec::new(),
        ),
        Viewport::Phone { visible } => {
            let from = (width - visible).max(0.0);
            (from, from.min(cut), names_over(&lanes, from))
        }
    };
    // "On the wire", written at the wire zone's foot (8 px in from its right and bottom
    // edges, 14 px semibold): a label over it read as one with it.
    let height = TOP + LANE_GAP * lanes.len() as f64 + 8.0;
    let zone_label = S::WireZone.get(lang).chars().count() as f64 * 8.6;
    obstacles.push(super::arrow_labels::LabelBox {
        x0: width - 8.0 - zone_label,
        x1: width - 8.0,
        y0: height - 8.0 - 13.0,
        y1: height - 8.0 + 4.0,
    });
    let mut marks = Vec::new();
    let mut bands = Vec::new();
    let mut open_freezes: Vec<(NodeId, SimTime, SimTime)> = Vec::new();
    let mut open_downs: Vec<(NodeId, SimTime)> = Vec::new();
    let mut open_cuts: Vec<(NodeId, NodeId, SimTime)> = Vec::new();
    for (index, rec) in trace.iter().enumerate() {
        // Freezes are followed from the start (a band may begin before the window); marks
        // only inside it.
        let in_window = index >= window_start;
        for note in &rec.notes {
            // Crashes open a "down" band the same way.
            match note {
                Note::Crashed { node } => open_downs.push((*node, rec.time)),
                // A cut link: a band on both its ends until it heals.
                Note::LinkCut { a, b } => open_cuts.push((*a, *b, rec.time)),
                Note::LinkHealed { a, b } => {
                    let same = |c: &(NodeId, NodeId, SimTime)| {
                        (c.0 == *a && c.1 == *b) || (c.0 == *b && c.1 == *a)
                    };
                    if let Some(i) = open_cuts.iter().position(same) {
                        let (x, y, from) = open_cuts.remove(i);
                        push_cut(
                            &mut bands,
                            &scale,
                            (x, y),
                            &y_of,
                            (from, Some(rec.time)),
                            sim,
                            lang,
                        );
                    }
                }
                // A broker refused at its restart serves again once registered.
                Note::Restarted { node }
                | Note::BrokerRegistration {
                    broker: node,
                    accepted: true,
                    ..
                } => {
                    if let Some(i) = open_downs.iter().position(|d| d.0 == *node) {
                        let (node, from) = open_downs.remove(i);
                        push_down(&mut bands, &scale, y_of(node), from, Some(rec.time), lang);
                    }
                }
                // A Flink task comes back when the job restores a checkpoint: its band
                // closes and its lane gets the restart mark the job's note does not name.
                Note::Flink(FlinkNote::JobRestored { .. }) => {
                    let (tasks, rest): (Vec<_>, Vec<_>) = open_downs
                        .drain(..)
                        .partition(|d| matches!(d.0, NodeId::Task(_)));
                    open_downs = rest;
                    for (node, from) in tasks {
                        push_down(&mut bands, &scale, y_of(node), from, Some(rec.time), lang);
                        if let (true, Some(x), Some(y)) = (in_window, scale.x(rec.time), y_of(node))
                        {
                            marks.push(MarkVm {
                                kind: "restart",
                                x,
                                y,
                                stub: None,
                                msg: None,
                                title: format!("{} — {}", dur(rec.time), narrate(&sim.names, note)),
                            });
                        }
                    }
                }
                _ => {}
            }
            if !in_window && !matches!(note, Note::Frozen { .. } | Note::Thawed { .. }) {
                continue;
            }
            let (kind, node, toward) = match note {
                Note::Crashed { node } => ("crash", *node, None),
                Note::Restarted { node }
                | Note::BrokerRegistration {
                    broker: node,
                    accepted: true,
                    ..
                } => ("restart", *node, None),
                Note::MessageDropped {
                    from,
                    to,
                    msg,
                    sent_at,
                    ..
                } => ("lost", *from, Some((*to, *msg, *sent_at))),
                Note::AckLost {
                    broker,
                    producer,
                    msg,
                    sent_at,
                    ..
                } => ("lost", *broker, Some((*producer, *msg, *sent_at))),
                Note::Frozen { node, duration } => {
                    open_freezes.push((*node, rec.time, *duration));
                    continue;
                }
                Note::Thawed { node, .. } => {
                    if let Some(i) = open_freezes.iter().position(|f| f.0 == *node) {
                        let (node, from, duration) = open_freezes.remove(i);
                        push_band(
                            &mut bands,
                            &scale,
                            y_of(node),
                            from,
                            Some(rec.time),
                            duration,
                            lang,
                        );
                    }
                    continue;
                }
                _ => continue,
            };
            if let (Some(at), Some(y)) = (scale.x(rec.time), y_of(node)) {
                let text = narrate(&sim.names, note);
                let stub = toward.and_then(|(to, _, sent_at)| {
                    let to_y = y_of(to).filter(|to_y| (to_y - y).abs() > 1.0)?;
                    Some(lost_stub(&scale, sent_at, at, now_x, y, to_y))
                });
                let (x, stub) = match stub {
                    Some((x, end)) => (x, Some(end)),
                    None => (at, None),
                };
                marks.push(MarkVm {
                    kind,
                    x,
                    y,
                    stub,
                    msg: toward.map(|(_, msg, _)| msg),
                    title: format!("{} — {text}", dur(rec.time)),
                });
            }
        }
    }
    for (node, from) in open_downs {
        push_down(&mut bands, &scale, y_of(node), from, None, lang);
    }
    for (x, y, from) in open_cuts {
        push_cut(&mut bands, &scale, (x, y), &y_of, (from, None), sim, lang);
    }
    for (node, from, duration) in open_freezes {
        push_band(&mut bands, &scale, y_of(node), from, None, duration, lang);
    }

    // Every other column from the window's first (which moves in whole strides, so a tick
    // keeps its column from step to step), clear of the now label left of the now line,
    // and no tick that would read the same as the one before (two moments in one ms).
    // The now label is written left of the now line, ending 6 px before it (14 px bold
    // mono: about 8.6 px a character); a tick's label is centred on its line.
    // A phone writes the now label right of the now line (`style.css`), so a tick may come
    // up to the line: with the wide rule a phone's few hundred pixels showed no time at all.
    let now_label = S::NowN.f(lang, &[&dur(now)]);
    let now_label_left = match viewport {
        Viewport::Phone { .. } => now_x,
        Viewport::Wide { .. } => {
            now_x - 6.0 - (now_label.chars().count() as f64 * 8.6).max(NOW_LABEL_ROOM - 6.0)
        }
    };
    let mut ticks: Vec<TickVm> = Vec::new();
    for (i, t) in scale.times.iter().enumerate() {
        let x = scale.column_x(i);
        let label = dur(*t);
        let half = label.chars().count() as f64 * 8.6 / 2.0;
        if i % TICK_EVERY != 0 || x + half + 10.0 > now_label_left {
            continue;
        }
        if ticks.last().is_some_and(|p| p.label == label) {
            continue;
        }
        ticks.push(TickVm { x, label });
    }
    // Labels keep inside the drawing on screen: on a phone a short drawing opens left of the
    // label column's cut (`origin`), and a label may use that room (the lane names there are
    // obstacles) rather than cross the now line.
    let drawing_left = LABEL_WIDTH.min(origin + 6.0);
    let shown_from = view_left.max(drawing_left);
    // A crash's or a freeze's band on a lane is drawn over the lane's line: a label there
    // would be read across it.
    obstacles.extend(bands.iter().map(|b| super::arrow_labels::LabelBox {
        x0: b.x1,
        x1: b.x2,
        y0: b.y - 11.0,
        y1: b.y + 11.0,
    }));
    super::arrow_labels::place(
        &mut arrows,
        [drawing_left, shown_from, width - 4.0],
        now_x,
        &obstacles,
        matches!(viewport, Viewport::Phone { .. }),
    );

    let earlier_hidden = match (scale.times.first(), sim.trace().first()) {
        (Some(first), Some(rec)) => rec.time < *first,
        _ => false,
    };
    DiagramVm {
        width,
        height,
        lanes,
        arrows,
        marks,
        bands,
        ticks,
        now_x,
        now_label,
        earlier_hidden,
        view_left,
        origin,
        pane,
    }
}

/// The pinned lane names' column: as wide as the longest name needs (15 px bold: about
/// 9.6 px a character), at least the label column's cut and at most 320 px.
fn pane_width(lanes: &[LaneVm]) -> f64 {
    let longest = lanes
        .iter()
        .map(|l| l.label.chars().count())
        .max()
        .unwrap_or(0);
    (longest as f64 * 9.6 + 24.0).clamp(LABEL_WIDTH - 6.0, 320.0)
}

fn push_band(
    bands: &mut Vec<BandVm>,
    scale: &TimeScale,
    y: Option<f64>,
    from: SimTime,
    until: Option<SimTime>,
    length: SimTime,
    lang: Lang,
) {
    let title = format!(
        "{}{}",
        S::FrozenBand.f(lang, &[&duration(from, lang), &duration(length, lang)]),
        if until.is_none() {
            S::StillFrozen.get(lang)
        } else {
            ""
        }
    );
    push_span(bands, scale, y, from, until, "freeze", title);
}

/// A link cut from `from` until it heals (or now): a band on each end's lane, naming the
/// other end.
fn push_cut(
    bands: &mut Vec<BandVm>,
    scale: &TimeScale,
    (a, b): (NodeId, NodeId),
    y_of: &dyn Fn(NodeId) -> Option<f64>,
    (from, until): (SimTime, Option<SimTime>),
    sim: &Simulation,
    lang: Lang,
) {
    for (me, other) in [(a, b), (b, a)] {
        let other = sim.names.node(other);
        let title = match until {
            Some(t) => S::CutBand.f(
                lang,
                &[
                    &other,
                    &duration(from, lang),
                    &duration(t.saturating_sub(from), lang),
                ],
            ),
            None => S::StillCut.f(lang, &[&other, &duration(from, lang)]),
        };
        push_span(bands, scale, y_of(me), from, until, "cut", title);
    }
}

/// A process down from its crash until its restart (or now).
fn push_down(
    bands: &mut Vec<BandVm>,
    scale: &TimeScale,
    y: Option<f64>,
    from: SimTime,
    until: Option<SimTime>,
    lang: Lang,
) {
    let title = match until {
        Some(t) => S::DownBand.f(
            lang,
            &[
                &duration(from, lang),
                &duration(t.saturating_sub(from), lang),
            ],
        ),
        None => S::StillDown.f(lang, &[&duration(from, lang)]),
    };
    push_span(bands, scale, y, from, until, "down", title);
}

fn push_span(
    bands: &mut Vec<BandVm>,
    scale: &TimeScale,
    y: Option<f64>,
    from: SimTime,
    until: Option<SimTime>,
    kind: &'static str,
    title: String,
) {
    let Some(y) = y else { return };
    let x1 = scale.x(from).unwrap_or(scale.left());
    let x2 = match until {
        Some(t) => match scale.x(t) {
            Some(x) => x,
            None => return, // over before the window
        },
        None => scale.now_x(),
    };
    bands.push(BandVm {
        kind,
        x1,
        x2: x2.max(x1 + 6.0),
        y,
        title,
    });
}

#[cfg(test)]
mod tests {
    use super::super::inspector::tests::step_until;
    use super::*;
    use eos_core::{builtin, RunLimit};

    /// A cut link is a band on both its ends' lanes, from the cut to the heal (or now),
    /// naming the other end.
    #[test]
    fn a_cut_link_is_a_band_on_both_lanes() {
        let mut sim = builtin::get("network-partition-isr-shrink")
            .expect("built-in")
            .simulation(None);
        sim.run(RunLimit::Steps(7));
        let d = diagram(&sim, 40, Lang::En);
        let cuts: Vec<&BandVm> = d.bands.iter().filter(|b| b.kind == "cut").collect();
        assert_eq!(cuts.len(), 2, "{:?}", d.bands);
        assert!(
            cuts.iter().all(|b| b.title.contains("since 500 ms")),
            "{cuts:?}"
        );
        assert!(cuts[0].title.contains("broker 1") && cuts[1].title.contains("broker 0"));
        assert!((cuts[0].x2 - d.now_x).abs() < 0.5, "still open: up to now");
        sim.run(RunLimit::Completion);
        let d = diagram(&sim, 40, Lang::Ru);
        let cuts: Vec<&BandVm> = d.bands.iter().filter(|b| b.kind == "cut").collect();
        assert!(
            cuts.len() == 2 && cuts.iter().all(|b| b.x2 > b.x1 && b.x2 < d.now_x),
            "{cuts:?}"
        );
        assert!(cuts[0].title.contains("затем восстановлена"), "{cuts:?}");
    }

    /// A label is never written across a crash's band (the browser review found
    /// "replicate response" over broker 0's).
    #[test]
    fn labels_keep_off_the_down_and_freeze_bands() {
        for steps in [20, 22, 30] {
            let mut sim = builtin::get("unclean-election-loss")
                .expect("built-in")
                .simulation(None);
            sim.run(RunLimit::Steps(steps));
            let d = diagram(&sim, 40, Lang::En);
            assert!(!d.bands.is_empty(), "broker 0's down band at step {steps}");
            for a in d.arrows.iter().filter(|a| a.labelled) {
                let label = super::super::arrow_labels::LabelBox::of(a, a.label_x, a.label_y);
                for b in &d.bands {
                    let band = super::super::arrow_labels::LabelBox {
                        x0: b.x1,
                        x1: b.x2,
                        y0: b.y - 11.0,
                        y1: b.y + 11.0,
                    };
                    assert!(
                        !(label.x0 < band.x1
                            && band.x0 < label.x1
                            && label.y0 < band.y1
                            && band.y0 < label.y1),
                        "step {steps}: {} over the band {:?}",
                        a.kind,
                        (b.x1, b.x2, b.y)
                    );
                }
            }
        }
    }

    fn at_step(name: &str, steps: u64) -> Simulation {
        let mut sim = builtin::get(name).expect("built-in").simulation(None);
        sim.run(RunLimit::Steps(steps));
        sim
    }

    #[test]
    fn one_lane_per_process_in_order_evenly_spaced() {
        let sim = at_step("seed-frozen-broker", 0);
        let l = lanes(&sim, Lang::En);
        let labels: Vec<&str> = l.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels, vec!["producer app", "broker 0", "consumer reader"]);
        assert_eq!(l[1].y - l[0].y, LANE_GAP);
        assert_eq!(l[2].y - l[1].y, LANE_GAP);
    }

    #[test]
    fn the_scale_gives_one_column_per_distinct_time_and_interpolates_between() {
        let sim = at_step("seed-frozen-broker", 8);
        // Steps at 0, 0, 1, 2, 5, 5, 6 ms and 2.005 s: six distinct times.
        let s = TimeScale::of(&sim, 50);
        assert_eq!(s.times.len(), 6);
        let x0 = s.x(0).expect("in the window");
        let x1 = s.x(eos_core::time::ms(1)).expect("in the window");
        assert_eq!(x1 - x0, COLUMN_WIDTH);
        let mid = s.x(eos_core::time::ms(1_005)).expect("in the window");
        let (a, b) = (s.x(eos_core::time::ms(6)).unwrap(), s.now_x());
        assert!(a < mid && mid < b, "{a} < {mid} < {b}");
        assert_eq!(s.x(eos_core::time::ms(9_999)), Some(s.now_x()));
        // A window of three columns: earlier moments are left of it.
        let narrow = TimeScale::of(&sim, 3);
        assert_eq!(narrow.times.len(), 3);
        assert_eq!(narrow.x(0), None);
    }

    /// A message the network duplicated arrives twice: an arrow for each copy, each current
    /// at its own arrival, and the first stays drawn while the copy is on the wire (the late
    /// EndTxn of txn-v2-delayed-endtxn used to vanish from the diagram when it arrived).
    #[test]
    fn each_copy_of_a_duplicated_message_has_its_own_arrow() {
        let mut sim = builtin::get("txn-v2-delayed-endtxn")
            .expect("built-in")
            .simulation(None);
        let is_end_txn = |a: &&ArrowVm| a.kind == "end txn";
        // The first copy has arrived; the second is on the wire.
        step_until(&mut sim, "a step after the first copy", |r| {
            (r.time > eos_core::time::ms(100)).then_some(())
        });
        let d = diagram(&sim, WINDOW_COLUMNS, Lang::En);
        let ends: Vec<&ArrowVm> = d.arrows.iter().filter(is_end_txn).collect();
        assert!(
            ends.iter().any(|a| !a.in_flight && !a.copy)
                && ends.iter().any(|a| a.in_flight && a.copy),
            "{ends:?}"
        );
        // The copy arrives (and is refused): both drawn, only the copy current.
        step_until(&mut sim, "the copy's refusal", |r| {
            r.notes
                .iter()
                .any(|n| {
                    matches!(n, Note::TxnRequestRefused { request, .. } if request.starts_with("EndTxn"))
                })
                .then_some(())
        });
        let d = diagram(&sim, WINDOW_COLUMNS, Lang::En);
        let ends: Vec<&ArrowVm> = d.arrows.iter().filter(is_end_txn).collect();
        assert_eq!(ends.len(), 2, "{ends:?}");
        assert!(ends.iter().all(|a| !a.in_flight));
        assert_eq!(
            ends.iter().map(|a| a.copy).collect::<Vec<_>>(),
            [false, true]
        );
        assert_eq!(
            ends.iter().map(|a| a.current).collect::<Vec<_>>(),
            [false, true]
        );
    }

    /// A broker's AddPartitionsToTxn to the coordinator it hosts (protocol 2) is an arch
    /// above its lane, labelled above the arch; a message between two lanes is a line.
    #[test]
    fn a_message_to_its_own_process_is_an_arch_labelled_above_it() {
        let mut sim = at_step("seed-commit-abort", 0);
        step_until(&mut sim, "a broker's message to itself", |r| {
            matches!(&r.what, StepKind::Deliver { from, .. } if Some(*from) == r.node).then_some(())
        });
        let d = diagram(&sim, WINDOW_COLUMNS, Lang::En);
        let own = d
            .arrows
            .iter()
            .find(|a| a.current && a.y1 == a.y2)
            .expect("the current arrow is to its own lane");
        let [c1x, c1y, c2x, c2y] = own.arch().expect("an arch");
        let lift = own.arch_lift();
        assert!((ARCH_LIFT..=ARCH_LIFT + ARCH_GROWTH).contains(&lift));
        assert_eq!((c1y, c2y), (own.y1 - lift, own.y1 - lift));
        assert!(c1x <= own.x1 && own.x2 <= c2x && c2x - c1x >= ARCH_MIN_SPAN);
        assert!(own.labelled, "{own:?}");
        assert!(
            own.label_y + 4.0 <= own.y1 - lift * 0.75,
            "the label clears the arch: {own:?}"
        );
        assert!(d
            .arrows
            .iter()
            .filter(|a| a.y1 != a.y2)
            .all(|a| a.arch().is_none()));
    }

    #[test]
    fn delivered_messages_are_arrows_from_sender_to_receiver_the_current_one_marked() {
        let sim = at_step("seed-frozen-broker", 3);
        let d = diagram(&sim, WINDOW_COLUMNS, Lang::En);
        let delivered: Vec<&ArrowVm> = d.arrows.iter().filter(|a| !a.in_flight).collect();
        assert_eq!(delivered.len(), 1, "{:?}", d.arrows);
        let a = delivered[0];
        assert_eq!(a.kind, "init producer id");
        assert_eq!(a.y1, d.lanes[0].y, "from the producer lane");
        assert_eq!(a.y2, d.lanes[1].y, "to the broker lane");
        assert!(a.x2 > a.x1, "time flows right");
        assert!(a.current, "step 3 delivered it");
        // Its answer is on the wire, dashed, right of the now line.
        let wire: Vec<&ArrowVm> = d.arrows.iter().filter(|a| a.in_flight).collect();
        assert_eq!(wire.len(), 1);
        assert!(wire[0].x2 > d.now_x && wire[0].y2 == d.lanes[0].y);
        assert!(wire[0].title.starts_with("on the wire"));
        assert!(
            a.labelled && wire[0].labelled,
            "current and quiet-wire arrows are named"
        );
    }

    #[test]
    fn a_held_message_is_one_arrow_and_the_freeze_is_a_band_on_the_broker_lane() {
        let sim = at_step("seed-frozen-broker", 20);
        let d = diagram(&sim, 40, Lang::En);
        let mut ids: Vec<u64> = d.arrows.iter().map(|a| a.msg_id).collect();
        eos_core::order::sort(&mut ids);
        let before = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), before, "no message drawn twice");
        assert_eq!(d.bands.len(), 1);
        assert_eq!(d.bands[0].y, d.lanes[1].y);
        assert!(d.bands[0].x2 > d.bands[0].x1);
        assert!(d.bands[0].title.contains("6.000 s"));
    }

    #[test]
    fn the_window_follows_now_and_clips_older_messages() {
        let sim = at_step("seed-frozen-broker", 38);
        let d = diagram(&sim, 6, Lang::En);
        assert!(d.earlier_hidden);
        // Six columns at most, moving two at a time: five or six shown, now the last.
        assert!(
            [4.5, 5.5].contains(&((d.now_x - LABEL_WIDTH) / COLUMN_WIDTH)),
            "{}",
            d.now_x
        );
        assert!(d
            .arrows
            .iter()
            .all(|a| a.x1 >= LABEL_WIDTH && a.x2 <= d.width));
        assert!(!d.ticks.is_empty());
        assert!(d.ticks.iter().all(|t| t.x < d.now_x - NOW_LABEL_ROOM));
        assert!(d.now_label.starts_with("now · 10.308 s"));
    }

    /// Between two moves of the window nothing drawn shifts: an arrow keeps its geometry from
    /// step to step (so it is not drawn again), the now line walks right, and the window's
    /// first moment moves in whole strides.
    #[test]
    fn the_window_moves_in_strides_and_arrows_keep_their_places_between() {
        let mut sim = builtin::get("lost-ack-idempotence-on")
            .expect("built-in")
            .simulation(None);
        let columns = 6;
        let mut previous: Option<DiagramVm> = None;
        let (mut kept, mut moves) = (0, 0);
        for _ in 0..400 {
            if sim.step() != eos_core::sim::simulation::StepOutcome::Stepped {
                break;
            }
            let d = diagram(&sim, columns, Lang::En);
            let scale = TimeScale::paged(&sim, columns, stride(columns));
            let all = TimeScale::of(&sim, usize::MAX);
            let first = all.times.len() - scale.times.len();
            assert_eq!(first % stride(columns), 0, "the window starts on a stride");
            assert!(scale.times.len() + stride(columns) > columns.min(all.times.len()));
            assert!(d.arrows.iter().all(|a| a.x2 <= d.width && a.x1 < a.x2));
            assert!(
                d.width >= d.now_x + WIRE_WIDTH,
                "the wire zone is right of now"
            );
            if let Some(p) = &previous {
                if d.now_x >= p.now_x {
                    // Same window: every delivered arrow drawn before and still drawn is
                    // where it was (those on the wire point into the zone right of now,
                    // which moves with it).
                    for a in &d.arrows {
                        if let Some(b) = p.arrows.iter().find(|b| b.msg_id == a.msg_id) {
                            if !a.in_flight && !b.in_flight {
                                assert_eq!((a.x1, a.x2, a.y1, a.y2), (b.x1, b.x2, b.y1, b.y2));
                                kept += 1;
                            }
                        }
                    }
                } else {
                    moves += 1;
                }
            }
            previous = Some(d);
        }
        assert!(kept > 20, "arrows compared across steps: {kept}");
        assert!(moves > 0, "the window moved at least once");
    }

    /// On a busy run the window holds at most the cap of delivered messages, starting at a
    /// delivery on a stride, so it still moves in strides.
    #[test]
    fn the_window_holds_at_most_the_capped_number_of_deliveries() {
        let mut sim = builtin::get("lost-ack-idempotence-on")
            .expect("built-in")
            .simulation(None);
        let (max_arrows, arrow_stride) = (6, 2);
        let mut bound = 0;
        for _ in 0..400 {
            if sim.step() != eos_core::sim::simulation::StepOutcome::Stepped {
                break;
            }
            let scale = TimeScale::capped(&sim, 1_000, 1, max_arrows, arrow_stride);
            let first = *scale.times.first().expect("a moment");
            let deliveries = |from: SimTime| {
                sim.trace()
                    .iter()
                    .filter(|r| r.time >= from && matches!(r.what, StepKind::Deliver { .. }))
                    .count()
            };
            let total = deliveries(0);
            let kept = deliveries(first);
            if total > max_arrows {
                bound += 1;
                // The first delivery kept is the first on a stride that leaves at most the
                // cap; the window starts at its moment (whole moments are kept).
                let first_kept = (total - max_arrows).div_ceil(arrow_stride) * arrow_stride;
                let before = total - kept;
                let in_first_moment = kept - deliveries(first + 1);
                assert!(before <= first_kept, "{before} > {first_kept}");
                assert!(
                    before + in_first_moment > first_kept,
                    "starts at its moment"
                );
            } else {
                assert_eq!(
                    first,
                    sim.trace()[0].time,
                    "under the cap the whole run is kept"
                );
            }
        }
        assert!(bound > 5, "the cap bound on {bound} steps");
    }

    /// The three answers to three retries land at the same moments: three lines, not one.
    #[test]
    fn copies_of_one_arrow_are_fanned_out_and_ticks_do_not_repeat() {
        let mut sim = builtin::get("seed-frozen-broker")
            .expect("built-in")
            .simulation(None);
        sim.run(RunLimit::Steps(10_000));
        let d = diagram(&sim, WINDOW_COLUMNS, Lang::En);
        let answers: Vec<&ArrowVm> = d
            .arrows
            .iter()
            .filter(|a| a.kind == "produce response")
            .collect();
        assert!(answers.len() >= 3, "{}", answers.len());
        let mut starts: Vec<i64> = answers.iter().map(|a| a.x1.round() as i64).collect();
        starts.sort_unstable();
        starts.dedup();
        assert_eq!(starts.len(), answers.len(), "each answer its own line");
        let labels: Vec<&str> = d.ticks.iter().map(|t| t.label.as_str()).collect();
        assert!(labels.windows(2).all(|w| w[0] != w[1]), "{labels:?}");
        assert!(d.ticks.iter().all(|t| {
            let column = ((t.x - LABEL_WIDTH) / COLUMN_WIDTH - 0.5).round() as usize;
            column % TICK_EVERY == 0
        }));
    }

    #[test]
    fn the_russian_diagram_has_the_same_geometry_and_russian_words() {
        let sim = at_step("seed-frozen-broker", 20);
        let (en, ru) = (diagram(&sim, 40, Lang::En), diagram(&sim, 40, Lang::Ru));
        assert_eq!(en.arrows.len(), ru.arrows.len());
        assert_eq!(en.now_x, ru.now_x);
        assert_ne!(en.now_label, ru.now_label);
        assert!(ru.now_label.starts_with("сейчас · "), "{}", ru.now_label);
        assert!(
            ru.bands[0].title.contains("6,000 с"),
            "{}",
            ru.bands[0].title
        );
        assert_eq!(ru.lanes[0].label, "продюсер app");
    }

    #[test]
    fn a_lost_ack_is_a_stub_from_the_broker_toward_the_producer() {
        let mut sim = builtin::get("lost-ack-idempotence-off")
            .expect("built-in")
            .simulation(None);
        step_until(&mut sim, "an acknowledgement is lost", |r| {
            r.notes
                .iter()
                .any(|n| matches!(n, Note::AckLost { .. }))
                .then_some(())
        });
        let d = diagram(&sim, WINDOW_COLUMNS, Lang::En);
        let lane = |name: &str| {
            d.lanes
                .iter()
                .find(|l| l.label.contains(name))
                .map(|l| l.y)
                .expect("a lane")
        };
        let (broker, producer) = (lane("broker 0"), lane("app"));
        let lost = d.marks.iter().find(|m| m.kind == "lost").expect("marked");
        assert_eq!(lost.y, broker, "it starts on the broker's lane");
        let (x2, y2) = lost.stub.expect("a stub");
        assert!(x2 > lost.x);
        assert!(
            (y2 - (broker + producer) / 2.0).abs() < 0.5,
            "half way toward the producer: {y2} between {broker} and {producer}"
        );
    }

    /// Runs `sim` to its end and checks every loss at the step it happens (the step a fault
    /// added by click acts): its cross is never right of the now line, its stub runs from
    /// the sending to the loss, and the mark names the message a click opens. Counts the
    /// losses of messages sent before that step, and of messages lost as they were sent.
    fn check_losses(name: &str, mut sim: Simulation, seen: &mut (usize, usize)) {
        while !sim.is_finished() && sim.steps() < 3_000 {
            sim.step();
            let Some(rec) = sim.trace().last() else {
                continue;
            };
            let lost: Vec<(u64, SimTime)> = rec
                .notes
                .iter()
                .filter_map(|n| match n {
                    Note::MessageDropped { msg, sent_at, .. }
                    | Note::AckLost { msg, sent_at, .. } => Some((*msg, *sent_at)),
                    _ => None,
                })
                .collect();
            if lost.is_empty() {
                continue;
            }
            let now = rec.time;
            let d = diagram(&sim, WINDOW_COLUMNS, Lang::En);
            for (msg, sent_at) in lost {
                let m = d
                    .marks
                    .iter()
                    .find(|m| m.msg == Some(msg))
                    .unwrap_or_else(|| panic!("{name}: message {msg} lost, not marked"));
                // Between two processes on one lane (a coordinator's marker to its own
                // broker): a cross at the moment, no stub.
                let Some((x2, _)) = m.stub else {
                    assert!(m.x <= d.now_x + 0.5, "{name}: cross past now");
                    continue;
                };
                assert!(
                    x2 <= d.now_x + 0.5,
                    "{name}: cross at {x2}, now at {}",
                    d.now_x
                );
                assert!(m.x < x2, "{name}: the stub runs left to right");
                if sent_at < now {
                    seen.0 += 1;
                    assert!(
                        m.x <= x2 - COLUMN_WIDTH + 0.5,
                        "{name}: it starts at its sending, a column before its loss"
                    );
                } else {
                    seen.1 += 1;
                }
            }
        }
    }

    #[test]
    fn a_lost_message_is_drawn_from_its_sending_to_its_loss_never_past_now() {
        let mut seen = (0, 0);
        for name in builtin::names() {
            let sim = builtin::get(&name).expect("built-in").simulation(None);
            check_losses(&name, sim, &mut seen);
        }
        assert!(
            seen.1 > 0,
            "built-ins lose messages as they are sent: {seen:?}"
        );
        // "Drop it" in the inspector: the produce sent at 5 ms, dropped on the wire at 6 ms.
        let dropped = builtin::get("seed-frozen-broker")
            .and_then(|s| {
                s.with_fault(eos_core::scenario::schema::FaultSpec {
                    at_ms: 6,
                    action: "drop_on_wire".into(),
                    from: Some("app".into()),
                    to: Some("broker-0".into()),
                    message: Some("produce".into()),
                    count: 1,
                    ..Default::default()
                })
            })
            .expect("a valid fault");
        let before = seen.0;
        check_losses("dropped on the wire", dropped.simulation(None), &mut seen);
        assert!(
            seen.0 > before,
            "a message on the wire was dropped: {seen:?}"
        );
    }

    #[test]
    fn a_message_that_reaches_a_crashed_process_is_drawn_lost_not_delivered() {
        let mut sim = builtin::get("acks1-leader-crash-loss")
            .expect("built-in")
            .simulation(None);
        let msg = step_until(
            &mut sim,
            "a message reaches the crashed leader",
            |rec| match &rec.what {
                StepKind::Deliver { msg_id, .. }
                    if rec
                        .notes
                        .iter()
                        .any(|n| matches!(n, Note::LostAtCrashedNode { .. })) =>
                {
                    Some(*msg_id)
                }
                _ => None,
            },
        );
        let d = diagram(&sim, WINDOW_COLUMNS, Lang::En);
        let a = d.arrows.iter().find(|a| a.msg_id == msg).expect("drawn");
        assert!(a.lost && a.current);
        assert_eq!(d.arrows.iter().filter(|a| a.lost).count(), 1);
        let vm = super::super::inspector::inspect(
            &sim,
            &crate::state::Selection::Message(msg),
            Lang::En,
        );
        assert!(
            vm.rows
                .iter()
                .any(|(k, v)| k == "status" && v == "lost: its receiver was down"),
            "{:?}",
            vm.rows
        );
    }

    /// Where "on the wire" is written: at the wire zone's foot, 8 px in.
    fn zone_label(d: &DiagramVm) -> super::super::arrow_labels::LabelBox {
        super::super::arrow_labels::LabelBox {
            x0: d.width - 8.0 - "on the wire".len() as f64 * 8.6,
            x1: d.width - 8.0,
            y0: d.height - 21.0,
            y1: d.height - 4.0,
        }
    }

    /// At every step of every built-in: no two labels overlap, each lies inside the drawing,
    /// and the first current arrow is named.
    #[test]
    fn labels_never_overlap_and_stay_inside_the_drawing() {
        use super::super::arrow_labels::LabelBox;
        let (mut labels, mut across_now) = (0, 0);
        for name in builtin::names() {
            // A frame of its own and a 1280 px window's, where a short drawing spreads.
            for viewport in [None, Some(1185.0)].map(|frame| Viewport::Wide { frame }) {
                let mut sim = builtin::get(&name).expect("built-in").simulation(None);
                while !sim.is_finished() && sim.steps() < 400 {
                    sim.step();
                    let d = diagram_in(&sim, WINDOW_COLUMNS, Lang::En, viewport);
                    let boxes: Vec<LabelBox> = d
                        .arrows
                        .iter()
                        .filter(|a| a.labelled)
                        .map(|a| LabelBox::of(a, a.label_x, a.label_y))
                        .collect();
                    labels += boxes.len();
                    // A tick's label (centred on its line) ends short of the now label
                    // (ending 6 px before the now line): "5.002 s" ran under "now · 5.103 s".
                    let now_left = d.now_x - 6.0 - d.now_label.chars().count() as f64 * 8.6;
                    for t in &d.ticks {
                        let right = t.x + t.label.chars().count() as f64 * 8.6 / 2.0;
                        assert!(
                            right < now_left,
                            "{name} step {}: tick {} under the now label",
                            sim.steps(),
                            t.label
                        );
                    }
                    across_now += boxes
                        .iter()
                        .filter(|b| b.x0 < d.now_x && d.now_x < b.x1)
                        .count();
                    // Nor over "on the wire" at the wire zone's foot.
                    let zone = zone_label(&d);
                    assert!(
                        boxes.iter().all(|b| !b.overlaps(&zone)),
                        "{name} step {}: a label over \"on the wire\"",
                        sim.steps()
                    );
                    for (i, b) in boxes.iter().enumerate() {
                        assert!(
                            b.x0 >= LABEL_WIDTH && b.x1 <= d.width,
                            "{name} step {}: a label outside the drawing: {b:?}",
                            sim.steps()
                        );
                        assert!(
                            boxes[i + 1..].iter().all(|o| !o.overlaps(b)),
                            "{name} step {}: labels overlap",
                            sim.steps()
                        );
                    }
                    if let Some(first) = d.arrows.iter().find(|a| a.current) {
                        assert!(
                            d.arrows.iter().any(|a| a.current && a.labelled),
                            "{name} step {}: no current arrow named ({})",
                            sim.steps(),
                            first.kind
                        );
                    }
                }
            }
        }
        assert!(labels > 2_000, "labels were drawn: {labels}");
        // A label goes across the now line only when no place beside it is free.
        assert!(
            across_now * 50 < labels,
            "{across_now} of {labels} labels across the now line"
        );
    }

    /// Early in a run a wide frame is filled: the columns spread (never narrower than
    /// `COLUMN_WIDTH`, never wider than `MAX_COLUMN_WIDTH`), and the drawing ends at the
    /// frame's right edge once they need no more than that; a long drawing is unchanged.
    #[test]
    fn a_short_drawing_spreads_to_fill_a_wide_frame() {
        let frame = 1185.0;
        let wide = Viewport::Wide { frame: Some(frame) };
        let mut sim = builtin::get("lost-ack-idempotence-off")
            .expect("built-in")
            .simulation(None);
        let (mut spread, mut filled, mut unchanged) = (0, 0, 0);
        while !sim.is_finished() && sim.steps() < 300 {
            sim.step();
            let d = diagram_in(&sim, WINDOW_COLUMNS, Lang::En, wide);
            let plain = diagram(&sim, WINDOW_COLUMNS, Lang::En);
            let columns = TimeScale::paged(&sim, WINDOW_COLUMNS, stride(WINDOW_COLUMNS))
                .times
                .len();
            let column = (d.now_x - LABEL_WIDTH) / (columns as f64 - 0.5);
            assert!(
                (COLUMN_WIDTH - 1e-6..=MAX_COLUMN_WIDTH + 1e-6).contains(&column),
                "step {}: a column {column} px wide",
                sim.steps()
            );
            // The box shows the drawing from the label column's cut, right of the pane.
            let shown = d.width - (LABEL_WIDTH - 6.0);
            if column > COLUMN_WIDTH + 1e-6 {
                spread += 1;
                assert!(
                    shown <= frame - d.pane + 0.5,
                    "step {}: spread wider than the frame",
                    sim.steps()
                );
                assert!(
                    d.width > plain.width,
                    "step {}: spread, not wider",
                    sim.steps()
                );
                // Columns at their widest: the wire zone takes more of the frame.
                let wire = d.width - d.now_x - 10.0;
                assert!(
                    column < MAX_COLUMN_WIDTH - 1e-6 || wire > WIRE_WIDTH,
                    "step {}: the wire zone stayed {wire} px",
                    sim.steps()
                );
                if column < MAX_COLUMN_WIDTH - 1e-6 {
                    filled += 1;
                    assert!(
                        (shown - (frame - d.pane)).abs() < 0.5,
                        "step {}: {shown} px of {frame}",
                        sim.steps()
                    );
                }
            } else {
                unchanged += 1;
                // A long drawing is drawn as without a frame; only what the box cuts at its
                // left edge is known (its tick labels there start at their line).
                let edge = (d.width - (frame - d.pane)).max(LABEL_WIDTH - 6.0);
                assert_eq!(d.view_left, edge, "step {}", sim.steps());
                assert_eq!(
                    DiagramVm {
                        view_left: plain.view_left,
                        ..d
                    },
                    plain,
                    "step {}: a long drawing changed",
                    sim.steps()
                );
            }
        }
        assert!(
            spread > 3 && filled > 0 && unchanged > 3,
            "{spread} {filled} {unchanged}"
        );
    }

    /// A phone writes the now label right of the now line, so a time tick may come up to the
    /// line: its few hundred pixels show when the arrows in view were sent. (With the wide
    /// rule, which keeps ticks clear of a now label left of the line, they showed none.)
    #[test]
    fn a_phone_shows_a_time_in_view() {
        let phone = Viewport::Phone { visible: 317.0 };
        let (mut steps, mut timed) = (0, 0);
        for name in [
            "rpw-crash-exactly-once",
            "seed-frozen-broker",
            "zombie-fencing",
        ] {
            let mut sim = builtin::get(name).expect("built-in").simulation(None);
            while !sim.is_finished() && sim.steps() < 200 {
                sim.step();
                let d = diagram_in(&sim, WINDOW_COLUMNS, Lang::En, phone);
                if d.now_x - d.view_left < 3.0 * COLUMN_WIDTH {
                    continue;
                }
                steps += 1;
                let in_view = |t: &&TickVm| t.x >= d.view_left && t.x < d.now_x;
                if let Some(t) = d.ticks.iter().rfind(in_view) {
                    timed += 1;
                    // Its label (centred, 8.6 px a character) ends before the now line.
                    let half = t.label.chars().count() as f64 * 8.6 / 2.0;
                    assert!(t.x + half + 10.0 <= d.now_x, "{name} step {}", sim.steps());
                }
            }
        }
        assert!(steps > 100, "{steps}");
        assert!(
            timed * 10 >= steps * 9,
            "{timed} of {steps} steps show a time"
        );
    }

    /// On a phone the wire zone is narrower, and no label goes over a lane's name, which
    /// sits over the visible drawing's left end.
    #[test]
    fn a_phone_keeps_labels_off_the_lane_names() {
        use super::super::arrow_labels::LabelBox;
        let phone = Viewport::Phone { visible: 317.0 };
        let (mut labels, mut kept_clear) = (0, 0);
        for name in [
            "rpw-crash-exactly-once",
            "seed-frozen-broker",
            "zombie-fencing",
            "acks1-leader-crash-loss",
        ] {
            let mut sim = builtin::get(name).expect("built-in").simulation(None);
            while !sim.is_finished() && sim.steps() < 300 {
                sim.step();
                let d = diagram_in(&sim, WINDOW_COLUMNS, Lang::En, phone);
                assert_eq!(d.width, d.now_x + PHONE_WIRE_WIDTH + 10.0);
                assert_eq!(d.view_left, (d.width - 317.0).max(0.0));
                // The screen is filled from the now line's left: a short drawing starts
                // left of the label column's cut, and the names stand left of now.
                assert_eq!(d.origin, d.view_left.min(LABEL_WIDTH - 6.0));
                assert!(
                    d.width - d.origin >= 317.0,
                    "step {}: the screen is filled",
                    sim.steps()
                );
                let names = names_over(&d.lanes, d.view_left);
                let longest = names.iter().map(|n| n.x1).fold(0.0, f64::max);
                assert!(
                    longest + 4.0 <= d.now_x,
                    "{name} step {}: a lane's name ends at {longest}, over the now line at {}",
                    sim.steps(),
                    d.now_x
                );
                let wide = diagram(&sim, WINDOW_COLUMNS, Lang::En);
                for a in d.arrows.iter().filter(|a| a.labelled) {
                    let b = LabelBox::of(a, a.label_x, a.label_y);
                    labels += 1;
                    // A delivered arrow's label stays left of the now line: while the drawing
                    // is short it has the room left of the cut; a long one is cut short, as
                    // short as the room beside the lane names needs once the drawing is
                    // wider than the screen ("write…").
                    if !a.in_flight {
                        assert!(
                            b.x1 <= d.now_x,
                            "{name} step {}: \"{}\" crosses the now line",
                            sim.steps(),
                            a.kind
                        );
                    }
                    assert!(
                        !zone_label(&d).overlaps(&b),
                        "{name} step {}: \"{}\" over \"on the wire\"",
                        sim.steps(),
                        a.kind
                    );
                    assert!(
                        names.iter().all(|n| !n.overlaps(&b)),
                        "{name} step {}: \"{}\" over a lane's name",
                        sim.steps(),
                        a.kind
                    );
                    // Where the wide layout's label would sit on a name, it moved.
                    let at = wide
                        .arrows
                        .iter()
                        .find(|w| w.msg_id == a.msg_id && w.labelled);
                    if at.is_some_and(|w| {
                        let wb = LabelBox::of(w, w.label_x, w.label_y);
                        names.iter().any(|n| n.overlaps(&wb))
                    }) {
                        kept_clear += 1;
                    }
                }
            }
        }
        assert!(labels > 200, "labels were drawn: {labels}");
        assert!(kept_clear > 0, "some label had to move off a name");
    }

    /// On a phone a label in view keeps off other arrows and the now line when it can:
    /// over a few built-ins, fewer labels cross a line than when placed as on a wide screen
    /// in the same room (many cannot help it: the lines are dense, and a label stays between
    /// its arrow's two lanes before it looks for a clear place elsewhere).
    #[test]
    fn a_phone_keeps_labels_off_the_lines_when_it_can() {
        use super::super::arrow_labels::{crossings, place};
        let phone = Viewport::Phone { visible: 317.0 };
        let (mut preferred, mut plain) = (0, 0);
        for name in [
            "rpw-crash-exactly-once",
            "zombie-fencing",
            "seed-commit-abort",
        ] {
            let mut sim = builtin::get(name).expect("built-in").simulation(None);
            while !sim.is_finished() && sim.steps() < 200 {
                sim.step();
                let d = diagram_in(&sim, WINDOW_COLUMNS, Lang::En, phone);
                preferred += crossings(&d.arrows, d.view_left, d.now_x);
                let mut arrows = d.arrows.clone();
                for a in arrows.iter_mut() {
                    a.labelled = d.arrows.iter().any(|b| b.msg_id == a.msg_id && b.labelled);
                }
                let names = names_over(&d.lanes, d.view_left);
                let room = [LABEL_WIDTH, d.view_left.max(LABEL_WIDTH), d.width - 4.0];
                place(&mut arrows, room, d.now_x, &names, false);
                plain += crossings(&arrows, d.view_left, d.now_x);
            }
        }
        assert!(
            preferred * 10 < plain * 19 / 2,
            "labels over lines: {preferred} preferring clear places, {plain} not"
        );
    }

    /// On a phone, a message on the wire is labelled beside the now line, not across it: a
    /// word wider than the room there is cut short ("AddPartitio…").
    #[test]
    fn a_phone_labels_messages_on_the_wire_off_the_now_line() {
        use super::super::arrow_labels::LabelBox;
        let phone = Viewport::Phone { visible: 317.0 };
        let (mut on_wire, mut shortened) = (0, 0);
        for name in [
            "rpw-crash-exactly-once",
            "zombie-fencing",
            "seed-commit-abort",
            "txn-coordinator-crash-after-prepare-commit",
        ] {
            let mut sim = builtin::get(name).expect("built-in").simulation(None);
            while !sim.is_finished() && sim.steps() < 300 {
                sim.step();
                for lang in [Lang::En, Lang::Ru] {
                    let d = diagram_in(&sim, WINDOW_COLUMNS, lang, phone);
                    for a in d.arrows.iter().filter(|a| a.labelled && a.in_flight) {
                        let b = LabelBox::of(a, a.label_x, a.label_y);
                        on_wire += 1;
                        shortened += usize::from(a.kind.ends_with('…'));
                        assert!(
                            !(b.x0 < d.now_x && d.now_x < b.x1),
                            "{name} step {} ({lang:?}): \"{}\" crosses the now line",
                            sim.steps(),
                            a.kind
                        );
                    }
                }
            }
        }
        assert!(
            on_wire > 100 && shortened > 0,
            "{on_wire} labels on the wire, {shortened} cut short"
        );
    }

    #[test]
    fn arrows_alike_carry_one_label_with_their_number() {
        let mut sim = builtin::get("seed-frozen-broker")
            .expect("built-in")
            .simulation(None);
        let mut grouped = 0;
        while !sim.is_finished() && sim.steps() < 400 {
            sim.step();
            let d = diagram(&sim, WINDOW_COLUMNS, Lang::En);
            let labelled: Vec<&ArrowVm> = d.arrows.iter().filter(|a| a.labelled).collect();
            for (i, a) in labelled.iter().enumerate() {
                assert!(
                    labelled[i + 1..].iter().all(|b| !alike(a, b)),
                    "step {}: two labels for arrows alike ({})",
                    sim.steps(),
                    a.kind
                );
            }
            let spoken_for: usize = labelled.iter().map(|a| a.also).sum();
            let unlabelled_current = d.arrows.iter().filter(|a| a.current && !a.labelled).count();
            assert!(
                unlabelled_current <= spoken_for,
                "every current arrow is named"
            );
            grouped += spoken_for;
        }
        assert!(
            grouped > 0,
            "the frozen broker answers three produces at once"
        );
    }

    #[test]
    fn a_lost_message_s_cross_sits_between_lanes_never_on_a_third_process() {
        for gaps in 1..=6 {
            for sign in [1.0, -1.0] {
                let depth = stub_depth(sign * LANE_GAP * f64::from(gaps));
                let in_gaps = depth.abs() / LANE_GAP;
                assert!(
                    (in_gaps.fract() - 0.5).abs() < 1e-9,
                    "{gaps} gaps: {in_gaps}"
                );
                assert!(in_gaps < f64::from(gaps) && depth.signum() == sign);
            }
        }
        assert_eq!(stub_depth(LANE_GAP), LANE_GAP / 2.0, "next lanes: half way");
    }

    #[test]
    fn a_crash_is_a_mark_on_its_lane() {
        let mut sim = builtin::get("rpw-crash-exactly-once")
            .expect("built-in")
            .simulation(None);
        sim.run(RunLimit::Completion);
        let crash_step = sim
            .trace()
            .iter()
            .find(|r| r.notes.iter().any(|n| matches!(n, Note::Crashed { .. })))
            .map(|r| r.step)
            .expect("a crash");
        let mut sim = builtin::get("rpw-crash-exactly-once")
            .expect("built-in")
            .simulation(None);
        sim.run(RunLimit::Steps(crash_step));
        let d = diagram(&sim, WINDOW_COLUMNS, Lang::En);
        let crash = d.marks.iter().find(|m| m.kind == "crash").expect("marked");
        assert_eq!(crash.x, d.now_x);
        assert!(d.lanes.iter().any(|l| l.y == crash.y));
        // Down from the crash: a band on its lane, open until now, then closed at the restart.
        let down = d
            .bands
            .iter()
            .find(|b| b.kind == "down")
            .expect("a down band");
        assert_eq!((down.x1, down.y), (crash.x, crash.y));
        assert!(down.title.contains("down since"), "{}", down.title);
        sim.run(RunLimit::Completion);
        let d = diagram(&sim, WINDOW_COLUMNS, Lang::En);
        let crash = d.marks.iter().find(|m| m.kind == "crash").expect("marked");
        let restart = d
            .marks
            .iter()
            .find(|m| m.kind == "restart")
            .expect("restarted");
        let down = d
            .bands
            .iter()
            .find(|b| b.kind == "down")
            .expect("a down band");
        assert_eq!((down.x1, down.x2), (crash.x, restart.x));
        assert!(down.title.contains("then restarted"), "{}", down.title);
    }

    /// A Flink task is back when the job restores: its band closes there, with a mark.
    #[test]
    fn a_flink_task_is_down_until_the_job_restores() {
        let mut sim = builtin::get("flink-2pc-crash-recovery")
            .expect("built-in")
            .simulation(None);
        sim.run(RunLimit::Completion);
        let d = diagram(&sim, WINDOW_COLUMNS, Lang::En);
        let down = d
            .bands
            .iter()
            .find(|b| b.kind == "down")
            .expect("a down band");
        assert!(down.title.contains("then restarted"), "{}", down.title);
        assert!(down.x2 < d.now_x, "closed before the end");
        let restart = d
            .marks
            .iter()
            .find(|m| m.kind == "restart")
            .expect("a restart mark");
        assert_eq!((restart.x, restart.y), (down.x2, down.y));
    }

    /// A wire busy with a few kinds between a few lanes keeps its labels, one per kind and
    /// lanes with its number: the zombie leader's catch-up puts 11 messages on the wire.
    #[test]
    fn a_busy_wire_of_few_kinds_is_labelled_by_kind() {
        let sim = at_step("paused-leader-fenced-loss", 42);
        let d = diagram(&sim, WINDOW_COLUMNS, Lang::En);
        let on_wire = d.arrows.iter().filter(|a| a.in_flight).count();
        assert!(on_wire > QUIET_WIRE, "{on_wire} on the wire");
        let labels: Vec<String> = d
            .arrows
            .iter()
            .filter(|a| a.in_flight && a.labelled)
            .map(super::super::arrow_labels::text)
            .collect();
        assert!(
            !labels.is_empty() && labels.len() <= QUIET_WIRE / 2,
            "{labels:?}"
        );
        let spoken_for: usize = d
            .arrows
            .iter()
            .filter(|a| a.in_flight && a.labelled)
            .map(|a| a.also + 1)
            .sum();
        assert_eq!(spoken_for, on_wire, "{labels:?}");
    }

    /// A label sits between its arrow's two lanes, where there is room: one under the lane
    /// its arrow leaves reads as another lane's message. Over a few built-ins, on a phone and
    /// on a wide screen, nearly every current arrow's label does.
    #[test]
    fn labels_sit_between_their_arrows_lanes() {
        use super::super::arrow_labels::LabelBox;
        let (mut inside, mut all) = (0, 0);
        for name in [
            "lost-ack-idempotence-off",
            "paused-leader-fenced-loss",
            "rpw-crash-exactly-once",
            "seed-frozen-broker",
        ] {
            let mut sim = builtin::get(name).expect("built-in").simulation(None);
            while !sim.is_finished() && sim.steps() < 150 {
                sim.step();
                for viewport in [
                    Viewport::Phone { visible: 317.0 },
                    Viewport::Wide { frame: None },
                ] {
                    let d = diagram_in(&sim, WINDOW_COLUMNS, Lang::En, viewport);
                    for a in d.arrows.iter().filter(|a| a.labelled && a.current) {
                        let (top, bottom) = (a.y1.min(a.y2), a.y1.max(a.y2));
                        if bottom - top < 30.0 {
                            continue;
                        }
                        let b = LabelBox::of(a, a.label_x, a.label_y);
                        all += 1;
                        inside += usize::from(b.y0 >= top && b.y1 <= bottom);
                    }
                }
            }
        }
        assert!(
            all > 200 && inside * 10 >= all * 9,
            "{inside} of {all} inside"
        );
    }
}
