//! Permalinks: the page's state in its URL query, and back. Pure: parsing never panics on
//! any string, every limit is explicit, and every refusal says what was wrong. A link whose
//! scenario cannot be read is refused (the page shows the default view and why); a step,
//! seed, guarantee, message or fault that is not one is left out, with a notice, and the rest
//! opens.
//!
//! `?s=NAME` names a built-in scenario; `?x=PAYLOAD` carries an imported one (its JSON,
//! deflated and base64url-encoded by the import worker). Then `seed=N`, `g=GUARANTEE` (the
//! processor's guarantee, when the header changed it), one `f=FAULT` per
//! fault added by click (in order), `step=N`, `msg=N` (the message open in the inspector),
//! `fork=CHANGE@N` (the fork on screen: a flipped setting or a guarantee, taken at step N)
//! and `embed` (the stage alone, for an iframe).
//!
//! In lesson mode the link names the lesson instead: `?lesson=ID&ls=N` (narration step N,
//! from 0), and `&try=K&step=S` while its try-it prompt K runs at step S. An imported lesson
//! travels whole, as `lx=PAYLOAD` (its TOML text, deflated and base64url-encoded).
//!
//! In the address bar and in copied links, `share.js` moves the payload (`x=` or `lx=`) into
//! the fragment (`?ls=2#lx=...`), which browsers never send to the server (static hosts refuse
//! request lines past about 8 KB); the page reads the query and the fragment as one, so links
//! with the payload in the query open too.

use crate::state::{Playground, Selection};
use eos_core::kafka::processor::Guarantee;
use eos_core::lesson::try_it::{Flip, TryAction};
use eos_core::scenario::schema::FaultSpec;
use eos_core::{Scenario, ScenarioError};
use std::fmt;

/// The longest query accepted, in bytes.
pub const MAX_QUERY_BYTES: usize = 24 * 1024;
/// The longest scenario payload accepted, in characters (an imported scenario is at most a
/// few kilobytes once deflated).
pub const MAX_PAYLOAD_CHARS: usize = 8 * 1024;
/// The most faults added by click that a link may carry.
pub const MAX_FAULTS: usize = 64;
/// The furthest step a link may ask for (every built-in run is far shorter).
pub const MAX_STEP: u64 = 1_000_000;
/// The longest lesson id a link may carry.
pub const MAX_LESSON_ID: usize = 64;
/// The longest imported lesson's payload accepted, in characters (lessons carry prose, in
/// two languages: a long one is about 10 KB once deflated). Within `MAX_QUERY_BYTES`.
pub const MAX_LESSON_PAYLOAD_CHARS: usize = 20 * 1024;

/// The fork on screen: the change it was made with and the step it was taken at.
#[derive(Clone, Debug, PartialEq)]
pub struct ForkAt {
    pub change: TryAction,
    pub step: u64,
}

impl ForkAt {
    /// `unaligned@57`, `exactly-once@12`: a flip's or a guarantee's name (a fault is not a
    /// fork's change), then the step.
    pub fn format(&self) -> Option<String> {
        let name = match &self.change {
            TryAction::Flip(f) => f.name(),
            TryAction::Guarantee(g) => g.name(),
            TryAction::Inject(_) => return None,
        };
        Some(format!("{name}@{}", self.step))
    }

    pub fn parse(text: &str) -> Result<ForkAt, String> {
        let (name, step) = text
            .split_once('@')
            .ok_or("it is not a change and a step, as in fork=unaligned@57")?;
        let change = Flip::parse(name)
            .map(TryAction::Flip)
            .or_else(|| Guarantee::parse(name).map(TryAction::Guarantee))
            .ok_or_else(|| {
                let flips: Vec<&str> = Flip::ALL.iter().map(|f| f.name()).collect();
                let guarantees: Vec<&str> = Guarantee::ALL.iter().map(|g| g.name()).collect();
                format!(
                    "{} is not a setting to flip ({}) or a guarantee ({})",
                    shorten(name),
                    flips.join(", "),
                    guarantees.join(", ")
                )
            })?;
        let step = step
            .parse::<u64>()
            .ok()
            .filter(|s| *s <= MAX_STEP)
            .ok_or_else(|| format!("{} is not a step number", shorten(step)))?;
        Ok(ForkAt { change, step })
    }
}

/// Where a reader is in a lesson: what a lesson link carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LessonPlace {
    pub id: String,
    /// The narration step, from 0.
    pub step: usize,
    /// The try-it prompt of that step whose changed run is on screen.
    pub trying: Option<usize>,
    /// An imported lesson's payload (`lx`): the link carries the lesson itself. Its `id` is
    /// empty until the import worker has read it.
    pub payload: Option<std::rc::Rc<str>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Builtin(String),
    /// An imported scenario: its payload, as it appears in the link.
    Custom(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub source: Source,
    pub seed: Option<u64>,
    /// The read-process-write processors' guarantee, when it was changed from the file's.
    pub guarantee: Option<Guarantee>,
    pub faults: Vec<FaultSpec>,
    pub step: u64,
    pub message: Option<u64>,
    pub fork: Option<ForkAt>,
    pub embed: bool,
    /// Whether the link names a scenario (`s` or `x`), rather than leaving the default.
    pub named: bool,
    pub lesson: Option<LessonPlace>,
    /// What was left out or changed while reading the link (a step, seed or fault that is
    /// not one): the page opens the rest and says so.
    pub notices: Vec<String>,
}

impl Link {
    pub fn builtin(name: &str) -> Link {
        Link {
            source: Source::Builtin(name.to_string()),
            seed: None,
            guarantee: None,
            faults: Vec::new(),
            step: 0,
            message: None,
            fork: None,
            embed: false,
            named: false,
            lesson: None,
            notices: Vec::new(),
        }
    }

    /// What the page shows now, as a link.
    pub fn of(state: &Playground, embed: bool) -> Link {
        let sim = state.sim.borrow();
        Link {
            source: state.source.clone(),
            seed: Some(sim.seed),
            guarantee: state.guarantee,
            faults: state.added.as_ref().clone(),
            step: sim.steps(),
            message: match state.selection {
                Some(Selection::Message(id)) => Some(id),
                _ => None,
            },
            fork: state.fork.clone(),
            embed,
            named: true,
            lesson: None,
            notices: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    TooLong { bytes: usize, max: usize },
    BadEncoding { key: String },
    TooManyFaults { count: usize },
    PayloadTooLong { chars: usize },
    LessonTooLong { chars: usize },
    BadPayload,
    TwoScenarios,
    BadLessonId,
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "This link cannot be opened: ")?;
        match self {
            LinkError::TooLong { bytes, max } => {
                write!(f, "it is {bytes} bytes long; the limit is {max}")
            }
            LinkError::BadEncoding { key } => {
                write!(f, "\"{key}\" is not valid percent-encoded UTF-8")
            }
            LinkError::TooManyFaults { count } => {
                write!(f, "it adds {count} faults; the limit is {MAX_FAULTS}")
            }
            LinkError::PayloadTooLong { chars } => write!(
                f,
                "its scenario is {chars} characters; the limit is {MAX_PAYLOAD_CHARS}"
            ),
            LinkError::LessonTooLong { chars } => write!(
                f,
                "its lesson is {chars} characters; the limit is {MAX_LESSON_PAYLOAD_CHARS}"
            ),
            LinkError::BadPayload => write!(f, "its scenario or lesson is not base64url"),
            LinkError::TwoScenarios => write!(f, "it names two scenarios"),
            LinkError::BadLessonId => write!(
                f,
                "its lesson id is not a name of at most {MAX_LESSON_ID} letters, digits and dashes"
            ),
        }?;
        write!(f, ". Showing the default scenario instead.")
    }
}

/// A value short enough to quote in a message.
fn shorten(value: &str) -> String {
    let mut out: String = value.chars().take(24).collect();
    if out.len() < value.len() {
        out.push('…');
    }
    out
}

/// The query (with its leading `?`) for a link.
pub fn format_query(link: &Link) -> String {
    let mut parts = Vec::new();
    if let Some(place) = &link.lesson {
        match &place.payload {
            Some(payload) => parts.push(format!("lx={payload}")),
            None => parts.push(format!("lesson={}", encode(&place.id))),
        }
        parts.push(format!("ls={}", place.step));
        if let Some(k) = place.trying {
            parts.push(format!("try={k}"));
            parts.push(format!("step={}", link.step));
        }
        if link.embed {
            parts.push("embed".to_string());
        }
        return format!("?{}", parts.join("&"));
    }
    match &link.source {
        Source::Builtin(name) => parts.push(format!("s={}", encode(name))),
        Source::Custom(payload) => parts.push(format!("x={}", encode(payload))),
    }
    if let Some(seed) = link.seed {
        parts.push(format!("seed={seed}"));
    }
    if let Some(g) = link.guarantee {
        parts.push(format!("g={}", g.name()));
    }
    for fault in &link.faults {
        parts.push(format!("f={}", format_fault(fault)));
    }
    parts.push(format!("step={}", link.step));
    if let Some(id) = link.message {
        parts.push(format!("msg={id}"));
    }
    if let Some(fork) = link.fork.as_ref().and_then(ForkAt::format) {
        parts.push(format!("fork={fork}"));
    }
    if link.embed {
        parts.push("embed".to_string());
    }
    format!("?{}", parts.join("&"))
}

/// Reads a query (`?` optional). An empty query is the default scenario at step 0; keys it
/// does not know are ignored, as other sites' tracking parameters would be.
pub fn parse_query(query: &str) -> Result<Link, LinkError> {
    if query.len() > MAX_QUERY_BYTES {
        return Err(LinkError::TooLong {
            bytes: query.len(),
            max: MAX_QUERY_BYTES,
        });
    }
    let query = query.strip_prefix('?').unwrap_or(query);
    let mut link = Link::builtin(eos_core::builtin::DEFAULT);
    let mut named = false;
    let mut fault_texts = Vec::new();
    let (mut lesson, mut lesson_step, mut trying) = (None::<String>, 0usize, None::<usize>);
    let mut lesson_payload = None::<std::rc::Rc<str>>;
    let mut seen: Vec<&str> = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, raw) = pair.split_once('=').unwrap_or((pair, ""));
        const ONCE: [&str; 10] = [
            "seed", "g", "step", "msg", "fork", "lesson", "lx", "ls", "try", "embed",
        ];
        if ONCE.contains(&key) {
            if seen.contains(&key) {
                link.notices.push(format!(
                    "{key}= appears more than once: the last one ({key}={}) is used.",
                    shorten(raw)
                ));
            } else {
                seen.push(key);
            }
        }
        match key {
            "s" | "x" => {
                if named {
                    return Err(LinkError::TwoScenarios);
                }
                named = true;
                let value =
                    decode(raw).ok_or_else(|| LinkError::BadEncoding { key: key.into() })?;
                link.source = if key == "s" {
                    Source::Builtin(value)
                } else {
                    check_payload(&value, MAX_PAYLOAD_CHARS)?;
                    Source::Custom(value)
                };
            }
            // A value that is not one is left out, and the page says so: the link's scenario
            // still opens.
            "seed" => match raw.parse::<u64>() {
                Ok(seed) => link.seed = Some(seed),
                Err(_) => link.notices.push(format!(
                    "seed={} is not a seed (a whole number from 0): the scenario's own seed is used.",
                    shorten(raw)
                )),
            },
            "g" => match Guarantee::parse(raw) {
                Some(g) => link.guarantee = Some(g),
                None => link.notices.push(format!(
                    "g={} is not a guarantee (at-most-once, at-least-once or exactly-once): the scenario's own is used.",
                    shorten(raw)
                )),
            },
            "step" => {
                let digits = !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit());
                link.step = match raw.parse::<u64>() {
                    Ok(step) if step <= MAX_STEP => step,
                    // Past the limit: the run's end, which the page says when it opens.
                    _ if digits => MAX_STEP,
                    _ => {
                        link.notices.push(format!(
                            "step={} is not a step number: showing step 0.",
                            shorten(raw)
                        ));
                        0
                    }
                };
            }
            "msg" => match raw.parse::<u64>() {
                Ok(id) => link.message = Some(id),
                Err(_) => link.notices.push(format!(
                    "msg={} is not a message number: nothing is selected.",
                    shorten(raw)
                )),
            },
            "fork" => match ForkAt::parse(raw) {
                Ok(fork) => link.fork = Some(fork),
                Err(why) => link
                    .notices
                    .push(format!("The link's fork is left out: {why}.")),
            },
            "lesson" => {
                let id = decode(raw).ok_or_else(|| LinkError::BadEncoding { key: key.into() })?;
                let name = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
                if id.is_empty() || id.len() > MAX_LESSON_ID || !id.chars().all(name) {
                    return Err(LinkError::BadLessonId);
                }
                lesson = Some(id);
            }
            "lx" => {
                let chars = raw.chars().count();
                if chars > MAX_LESSON_PAYLOAD_CHARS {
                    return Err(LinkError::LessonTooLong { chars });
                }
                check_payload(raw, MAX_LESSON_PAYLOAD_CHARS)?;
                lesson_payload = Some(raw.into());
            }
            // Small numbers; what a lesson has is checked against the lesson itself.
            "ls" => match raw.parse::<u64>() {
                Ok(n) => lesson_step = n.min(10_000) as usize,
                Err(_) => link.notices.push(format!(
                    "ls={} is not a lesson step: showing the lesson's first step.",
                    shorten(raw)
                )),
            },
            "try" => match raw.parse::<u64>() {
                Ok(n) => trying = Some(n.min(10_000) as usize),
                Err(_) => link.notices.push(format!(
                    "try={} is not a try-it prompt: showing the lesson step.",
                    shorten(raw)
                )),
            },
            "embed" => link.embed = true,
            "f" => {
                fault_texts.push(raw);
                if fault_texts.len() > MAX_FAULTS {
                    return Err(LinkError::TooManyFaults {
                        count: query.split('&').filter(|p| p.starts_with("f=")).count(),
                    });
                }
            }
            _ => {}
        }
    }
    for (index, text) in fault_texts.iter().enumerate() {
        match parse_fault(text) {
            Ok(fault) => link.faults.push(fault),
            Err(reason) => link
                .notices
                .push(format!("fault {} is left out: {reason}.", index + 1)),
        }
    }
    // A lesson opens its own scenario: one named beside it is left out.
    if named && (lesson.is_some() || lesson_payload.is_some()) {
        link.notices.push(
            "A lesson link opens the lesson's own scenario: the scenario it also names is left out."
                .to_string(),
        );
        link.source = Source::Builtin(eos_core::builtin::DEFAULT.to_string());
        named = false;
    }
    link.named = named;
    // A lesson link opens the lesson's own run: what would change that run is left out.
    if lesson.is_some() || lesson_payload.is_some() {
        let mut dropped: Vec<&str> = Vec::new();
        if link.seed.take().is_some() {
            dropped.push("seed=");
        }
        if link.guarantee.take().is_some() {
            dropped.push("g=");
        }
        if link.message.take().is_some() {
            dropped.push("msg=");
        }
        if link.fork.take().is_some() {
            dropped.push("fork=");
        }
        if !link.faults.is_empty() {
            link.faults.clear();
            dropped.push("f=");
        }
        if !dropped.is_empty() {
            link.notices.push(format!(
                "A lesson link opens the lesson's own run: its {} left out.",
                match dropped.as_slice() {
                    [one] => format!("{one} is"),
                    many => format!("{} are", many.join(", ")),
                }
            ));
        }
    }
    link.lesson = match (lesson, lesson_payload) {
        (_, Some(payload)) => Some(LessonPlace {
            id: String::new(),
            step: lesson_step,
            trying,
            payload: Some(payload),
        }),
        (Some(id), None) => Some(LessonPlace {
            id,
            step: lesson_step,
            trying,
            payload: None,
        }),
        (None, None) => None,
    };
    Ok(link)
}

fn check_payload(payload: &str, max: usize) -> Result<(), LinkError> {
    let chars = payload.chars().count();
    if chars > max {
        return Err(LinkError::PayloadTooLong { chars });
    }
    let base64url = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if payload.is_empty() || !payload.chars().all(base64url) {
        return Err(LinkError::BadPayload);
    }
    Ok(())
}

/// One fault as `at:5,a:freeze,t:broker-0,d:6000`: short keys, percent-encoded values.
pub fn format_fault(fault: &FaultSpec) -> String {
    let mut fields = vec![
        format!("at:{}", fault.at_ms),
        format!("a:{}", encode(&fault.action)),
    ];
    let mut text = |key: &str, value: &Option<String>| {
        if let Some(v) = value {
            fields.push(format!("{key}:{}", encode(v)));
        }
    };
    text("t", &fault.target);
    text("p", &fault.peer);
    text("from", &fault.from);
    text("to", &fault.to);
    text("m", &fault.message);
    text("topic", &fault.topic);
    let numbers = [
        ("d", fault.duration_ms),
        ("r", fault.restart_after_ms),
        ("x", fault.extra_ms),
        ("part", fault.partition.map(u64::from)),
    ];
    for (key, value) in numbers {
        if let Some(v) = value {
            fields.push(format!("{key}:{v}"));
        }
    }
    if fault.count != 1 {
        fields.push(format!("n:{}", fault.count));
    }
    fields.join(",")
}

/// The reverse of `format_fault`. What the fault means is checked later, by the core, like
/// any fault in a scenario file.
pub fn parse_fault(text: &str) -> Result<FaultSpec, String> {
    let mut fault = FaultSpec {
        count: 1,
        ..Default::default()
    };
    let (mut at, mut action) = (false, false);
    for field in text.split(',') {
        let (key, raw) = field
            .split_once(':')
            .ok_or_else(|| format!("\"{}\" is not key:value", shorten(field)))?;
        let value = decode(raw).ok_or_else(|| format!("{key} is not valid percent-encoding"))?;
        let number = || {
            value
                .parse::<u64>()
                .map_err(|_| format!("{key}:{} is not a whole number", shorten(&value)))
        };
        match key {
            "at" => {
                fault.at_ms = number()?;
                at = true;
            }
            "a" => {
                fault.action = value.clone();
                action = true;
            }
            "t" => fault.target = Some(value.clone()),
            "p" => fault.peer = Some(value.clone()),
            "from" => fault.from = Some(value.clone()),
            "to" => fault.to = Some(value.clone()),
            "m" => fault.message = Some(value.clone()),
            "topic" => fault.topic = Some(value.clone()),
            "d" => fault.duration_ms = Some(number()?),
            "r" => fault.restart_after_ms = Some(number()?),
            "x" => fault.extra_ms = Some(number()?),
            "part" => {
                fault.partition = Some(
                    u16::try_from(number()?).map_err(|_| format!("part:{value} is too large"))?,
                )
            }
            "n" => {
                fault.count =
                    u32::try_from(number()?).map_err(|_| format!("n:{value} is too large"))?
            }
            _ => return Err(format!("unknown field \"{}\"", shorten(key))),
        }
    }
    if !at || !action {
        return Err("a fault needs its time (at) and its action (a)".into());
    }
    Ok(fault)
}

/// A scenario with a link's seed and its faults added by click (in order, as they were
/// added): the same file, so the same run.
pub fn apply(
    base: &Scenario,
    seed: Option<u64>,
    guarantee: Option<Guarantee>,
    faults: &[FaultSpec],
) -> Result<Scenario, ScenarioError> {
    if let Some(g) = guarantee {
        let changed = eos_core::compare::with_guarantee(base, g)?;
        return apply(&changed, seed, None, faults);
    }
    if seed.is_none_or(|s| s == base.seed()) && faults.is_empty() {
        return Ok(base.clone());
    }
    let mut file = base.file.clone();
    if let Some(seed) = seed {
        file.seed = seed;
    }
    file.faults.extend(faults.iter().cloned());
    Scenario::from_file(file)
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Percent-decodes; `None` for a broken escape or bytes that are not UTF-8.
pub fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

// Native only: proptest does not build for wasm32.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn freeze() -> FaultSpec {
        crate::state::process_fault("broker-0", "freeze", 6000)
    }

    #[test]
    fn a_link_round_trips() {
        let link = Link {
            source: Source::Builtin("seed-frozen-broker".into()),
            seed: Some(7),
            guarantee: Some(Guarantee::AtLeastOnce),
            faults: vec![
                FaultSpec {
                    at_ms: 12,
                    ..freeze()
                },
                FaultSpec {
                    at_ms: 30,
                    action: "drop_on_wire".into(),
                    target: None,
                    duration_ms: None,
                    from: Some("app, the producer: ü".into()),
                    to: Some("broker-0".into()),
                    message: Some("produce".into()),
                    partition: Some(2),
                    count: 3,
                    ..Default::default()
                },
            ],
            step: 42,
            message: Some(9),
            fork: Some(ForkAt {
                change: TryAction::Flip(Flip::Isolation),
                step: 17,
            }),
            embed: true,
            named: true,
            lesson: None,
            notices: Vec::new(),
        };
        let query = format_query(&link);
        assert_eq!(parse_query(&query), Ok(link));
        assert!(query.starts_with("?s=seed-frozen-broker&seed=7&g=at-least-once&f=at:12,a:freeze"));
        assert!(
            query.ends_with("&step=42&msg=9&fork=isolation@17&embed"),
            "{query}"
        );
        // Every change a fork can be made with has a name in links.
        for change in Flip::ALL
            .into_iter()
            .map(TryAction::Flip)
            .chain(Guarantee::ALL.into_iter().map(TryAction::Guarantee))
        {
            let fork = ForkAt { change, step: 3 };
            let text = fork.format().expect("named");
            assert_eq!(ForkAt::parse(&text), Ok(fork), "{text}");
        }
    }

    #[test]
    fn a_fork_that_is_not_one_is_left_out_with_the_reason() {
        let said = |q: &str| {
            let link = parse_query(q).unwrap_or_else(|e| panic!("{q}: {e}"));
            assert_eq!(link.fork, None, "{q}");
            link.notices.join(" ")
        };
        assert!(said("?s=a&fork=sometimes@3")
            .contains("sometimes is not a setting to flip (idempotence, isolation"));
        assert!(said("?s=a&fork=unaligned").contains("not a change and a step"));
        assert!(said("?s=a&fork=unaligned@-1").contains("-1 is not a step number"));
        assert!(said(&format!("?s=a&fork=acks@{}", MAX_STEP + 1)).contains("is not a step number"));
        assert!(said("?lesson=a&fork=acks@3").contains("its fork= is left out"));
        assert_eq!(
            parse_query("?s=a&fork=exactly-once@0").expect("valid").fork,
            Some(ForkAt {
                change: TryAction::Guarantee(Guarantee::ExactlyOnce),
                step: 0
            })
        );
    }

    #[test]
    fn an_empty_query_is_the_default_view() {
        assert_eq!(
            parse_query(""),
            Ok(Link::builtin(eos_core::builtin::DEFAULT))
        );
        assert!(parse_query("?embed").expect("valid").embed);
        assert_eq!(
            parse_query("?utm_source=x&s=a").expect("valid").source,
            Source::Builtin("a".into())
        );
    }

    #[test]
    fn hostile_links_are_refused_with_a_reason() {
        let refused = |q: &str| parse_query(q).expect_err(q).to_string();
        assert!(refused("?x=not*base64").contains("not base64url"));
        assert!(refused(&format!("?x={}", "A".repeat(MAX_PAYLOAD_CHARS + 1))).contains("limit"));
        assert!(refused(&format!("?s={}", "a".repeat(MAX_QUERY_BYTES))).contains("bytes long"));
        assert!(refused("?s=%FF").contains("UTF-8"));
        assert!(refused("?s=%4").contains("UTF-8"));
        assert!(refused("?s=a&x=AAAA").contains("two scenarios"));
        assert!(refused(&"&f=at:1,a:crash".repeat(MAX_FAULTS + 1)).contains("faults"));
        assert!(refused("?lesson=a/b").contains("lesson id"));
        assert!(refused("?lesson=").contains("lesson id"));
        assert!(
            refused(&format!("?lesson={}", "a".repeat(MAX_LESSON_ID + 1))).contains("lesson id")
        );
    }

    #[test]
    fn a_value_that_is_not_one_is_left_out_and_the_rest_opens() {
        // (query, what stays of the link, what the notice says)
        let opened = |q: &str| parse_query(q).unwrap_or_else(|e| panic!("{q}: {e}"));
        let said = |q: &str| opened(q).notices.join(" ");
        let link = opened("?s=seed-commit-abort&step=-5&seed=abc&g=sometimes&msg=x");
        assert_eq!(link.source, Source::Builtin("seed-commit-abort".into()));
        assert_eq!(
            (link.step, link.seed, link.guarantee, link.message),
            (0, None, None, None)
        );
        let notice = said("?s=seed-commit-abort&step=-5&seed=abc&g=sometimes&msg=x");
        for part in [
            "step=-5 is not a step number: showing step 0.",
            "seed=abc is not a seed",
            "g=sometimes is not a guarantee",
            "msg=x is not a message number",
        ] {
            assert!(notice.contains(part), "{part}: {notice}");
        }
        // A step past the limit is the run's end (the page says so when it opens).
        assert_eq!(opened("?s=a&step=1000000000000000000").step, MAX_STEP);
        assert_eq!(opened("?s=a&step=99999999999999999999999").step, MAX_STEP);
        // A fault that is not one is left out; the others stay.
        let link = opened(
            "?s=a&f=at:1&f=at:3,a:crash,t:broker-0&f=at:1,a:crash,zz:1&f=at:1,a:crash,part:70000",
        );
        assert_eq!(link.faults.len(), 1);
        let notice = link.notices.join(" ");
        assert!(
            notice.contains("fault 1 is left out")
                && notice.contains("fault 3 is left out: ")
                && notice.contains("unknown field")
                && notice.contains("too large"),
            "{notice}"
        );
        // A lesson link that also names a scenario opens the lesson.
        let link = opened("?lesson=lost-ack&s=seed-frozen-broker");
        assert!(!link.named && link.lesson.is_some());
        assert!(link
            .notices
            .join(" ")
            .contains("the scenario it also names is left out"));
        // A lesson step or try-it prompt that is not a number: the lesson's first step.
        let link = opened("?lesson=a&ls=x&try=y");
        assert_eq!(link.lesson.map(|p| (p.step, p.trying)), Some((0, None)));
        assert!(said("?lesson=a&ls=x").contains("ls=x is not a lesson step"));
        // Long values are shortened in the notice.
        assert!(said(&format!("?seed={}", "9x".repeat(100))).len() < 120);
        // What would change a lesson's own run is left out, and named.
        let link = opened("?lesson=a&ls=1&seed=7&g=exactly-once&msg=3&f=at:1,a:crash,t:app");
        assert_eq!(
            (link.seed, link.guarantee, link.message, link.faults.len()),
            (None, None, None, 0)
        );
        assert!(link
            .notices
            .join(" ")
            .contains("its seed=, g=, msg=, f= are left out"));
        assert!(said("?lesson=a&msg=2").contains("its msg= is left out"));
        assert!(opened("?lesson=a&ls=2&try=0&step=9").notices.is_empty());
        // A key given twice: the last one, and a notice naming it.
        let link = opened("?s=a&step=4&step=9&seed=1&seed=2");
        assert_eq!((link.step, link.seed), (9, Some(2)));
        let notice = link.notices.join(" ");
        assert!(notice.contains("step= appears more than once: the last one (step=9)"));
        assert!(notice.contains("seed= appears more than once"));
        assert!(opened("?s=a&f=at:1,a:crash,t:app&f=at:2,a:crash,t:app")
            .notices
            .is_empty());
    }

    #[test]
    fn a_lesson_link_names_the_lesson_and_step_only() {
        let mut link = Link::builtin("ignored-in-lesson-mode");
        link.step = 12;
        link.lesson = Some(LessonPlace {
            id: "frozen-broker".into(),
            step: 3,
            trying: None,
            payload: None,
        });
        assert_eq!(format_query(&link), "?lesson=frozen-broker&ls=3");
        let back = parse_query("?lesson=frozen-broker&ls=3").expect("valid");
        assert_eq!(back.lesson, link.lesson);
        assert!(!back.named, "no scenario named: the lesson picks it");
        // A try-it run carries its prompt and its step; embed stays.
        link.lesson = Some(LessonPlace {
            id: "frozen-broker".into(),
            step: 5,
            trying: Some(0),
            payload: None,
        });
        link.embed = true;
        let query = format_query(&link);
        assert_eq!(query, "?lesson=frozen-broker&ls=5&try=0&step=12&embed");
        let back = parse_query(&query).expect("valid");
        assert_eq!(
            (back.lesson, back.step, back.embed),
            (link.lesson, 12, true)
        );
        // Absurd step numbers are capped here and refused against the lesson later.
        let far = parse_query("?lesson=x&ls=99999999999").expect("valid");
        assert_eq!(far.lesson.map(|l| l.step), Some(10_000));
    }

    #[test]
    fn an_imported_lesson_travels_whole_in_its_link() {
        let mut link = Link::builtin("ignored-in-lesson-mode");
        link.step = 7;
        link.lesson = Some(LessonPlace {
            id: "my-lesson".into(),
            step: 2,
            trying: Some(1),
            payload: Some("AbC-_9".into()),
        });
        let query = format_query(&link);
        assert_eq!(query, "?lx=AbC-_9&ls=2&try=1&step=7");
        let back = parse_query(&query).expect("valid");
        let place = back.lesson.expect("a lesson place");
        // The id is the lesson's own, known once the worker has read the payload.
        assert_eq!(
            (place.id.as_str(), place.step, place.trying, back.step),
            ("", 2, Some(1), 7)
        );
        assert_eq!(place.payload.as_deref(), Some("AbC-_9"));
        let refused = |q: &str| parse_query(q).expect_err(q).to_string();
        assert!(refused("?lx=not*base64").contains("not base64url"));
        assert!(refused("?lx=").contains("not base64url"));
        let long = format!("?lx={}", "A".repeat(MAX_LESSON_PAYLOAD_CHARS + 1));
        assert!(
            refused(&long).contains("its lesson is"),
            "{}",
            refused(&long)
        );
        // The longest payload allowed fits in a link.
        let longest = format!(
            "?lx={}&ls=99&try=9&step=999999",
            "A".repeat(MAX_LESSON_PAYLOAD_CHARS)
        );
        assert!(parse_query(&longest).is_ok());
    }

    #[test]
    fn percent_encoding_round_trips_any_text() {
        for text in ["", "plain-name_1.2~", "a b&c=d,e:f%g", "ключ/🙂"] {
            assert_eq!(decode(&encode(text)).as_deref(), Some(text));
        }
    }

    proptest! {
        #[test]
        fn any_query_parses_or_is_refused_without_panicking(q in ".{0,300}") {
            let _ = parse_query(&q);
        }

        #[test]
        fn any_fault_text_parses_or_is_refused_without_panicking(q in "[a-z:,%0-9A-F]{0,80}") {
            let _ = parse_fault(&q);
        }

        #[test]
        fn any_fault_round_trips(
            at_ms in any::<u64>(),
            action in ".{0,12}",
            target in proptest::option::of(".{0,12}"),
            duration_ms in proptest::option::of(any::<u64>()),
            partition in proptest::option::of(any::<u16>()),
            count in any::<u32>(),
        ) {
            let fault = FaultSpec { at_ms, action, target, duration_ms, partition, count, ..Default::default() };
            prop_assert_eq!(parse_fault(&format_fault(&fault)), Ok(fault));
        }
    }
}
