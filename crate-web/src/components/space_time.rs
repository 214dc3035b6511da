use super::activate;
use crate::i18n::{I18n, S};
use crate::state::Selection;
use crate::view_model::diagram::{ArrowVm, DiagramVm, MarkVm};
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Where the lanes begin: the width of the pinned label column.
const CUT: f64 = crate::view_model::diagram::LABEL_WIDTH - 6.0;
/// A tick closer than this to the diagram's left edge has its label start at its line.
const EDGE_TICK: f64 = 48.0;
use crate::view_model::diagram::NOW_LABEL_ROOM;

/// The diagram grows at its right end (now) at every step, so an arrow or mark that has the
/// focus moves left, out of the box's view: the box scrolls sideways to keep it in view, its
/// right end (where the message arrives) first. Only the box scrolls, never the page (a
/// reader may have scrolled it elsewhere), and only while the focus is in the diagram: that
/// is the one time this reads the layout.
fn keep_focus_in_view(scroller: &NodeRef) {
    let Some(el) = scroller.cast::<web_sys::Element>() else {
        return;
    };
    let Some(active) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element())
    else {
        return;
    };
    if active == el || !el.contains(Some(&active)) {
        return;
    }
    let (item, view) = (
        active.get_bounding_client_rect(),
        el.get_bounding_client_rect(),
    );
    const ROOM: f64 = 24.0;
    let (lo, hi) = (view.left() + ROOM, view.right() - ROOM);
    // How far the content must move left (positive) or right (negative).
    let by = if item.right() > hi {
        item.right() - hi
    } else if item.right() < lo || (item.left() < lo && item.width() <= hi - lo) {
        (item.right() - item.width().min(hi - lo)) - lo
    } else {
        0.0
    };
    if by.abs() >= 1.0 {
        el.set_scroll_left(el.scroll_left() + by.round() as i32);
    }
}

#[derive(Properties, PartialEq)]
pub struct SpaceTimeProps {
    pub diagram: DiagramVm,
    pub selected: Option<Selection>,
    pub on_select: Callback<Selection>,
}

/// The space-time diagram: a lane per process, an arrow per message, the current step's
/// arrow lit, messages on the wire dashed right of the now line. The geometry comes from
/// `view_model::diagram`; this only draws it.
#[function_component(SpaceTime)]
pub fn space_time(props: &SpaceTimeProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let tr = |s: S| i18n.t(s);
    let d = &props.diagram;
    // Whole pixels: crisp lines, and no float formatting code in the shipped wasm.
    let f = |v: f64| (v.round() as i64).to_string();
    let bottom = d.height - 4.0;
    let pane = d.pane;
    let pane_px = format!("margin-left: {}px", f(pane));
    // Scrolled back into the past: a button returns to now. Read only when the reader
    // scrolls (never at a step), so it costs no layout while the run plays.
    let scroller = use_node_ref();
    let away = use_state_eq(|| false);
    let on_scroll = {
        let (scroller, away) = (scroller.clone(), away.setter());
        Callback::from(move |_: Event| {
            if let Some(el) = scroller.cast::<web_sys::Element>() {
                // The origin is the right end: scrolled left is negative.
                away.set(el.scroll_left() < -40);
            }
        })
    };
    // The button goes once the box is back at now: the focus goes to the diagram's card
    // (Tab then reaches its arrows), not to the page's body.
    let to_now = {
        let scroller = scroller.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(el) = scroller.cast::<web_sys::Element>() {
                el.set_scroll_left(0);
                if let Some(card) = el
                    .closest("#diagram")
                    .ok()
                    .flatten()
                    .and_then(|c| c.dyn_into::<web_sys::HtmlElement>().ok())
                {
                    let options = web_sys::FocusOptions::new();
                    options.set_prevent_scroll(true);
                    let _ = card.focus_with_options(&options);
                }
            }
        })
    };
    {
        let scroller = scroller.clone();
        use_effect(move || keep_focus_in_view(&scroller));
    }
    // One tab stop for the arrows and marks (rove.rs): the one last focused, else the
    // selected message's, else the current step's arrow, else the newest.
    let rove = super::rove::use_rove();
    let chosen = match props.selected {
        Some(Selection::Message(id)) => vec![format!("a{id}"), format!("k{id}")],
        _ => Vec::new(),
    };
    let mut preferred = chosen;
    preferred.extend(
        [d.arrows.iter().rev().find(|a| a.current), d.arrows.last()]
            .into_iter()
            .flatten()
            .map(|a| format!("a{}", a.msg_id)),
    );
    let stop = rove.stop(&preferred, &|k| match (
        k.get(..1),
        k.get(1..).and_then(|n| n.parse::<u64>().ok()),
    ) {
        (Some("a"), Some(id)) => d.arrows.iter().any(|a| a.msg_id == id),
        (Some("k"), Some(id)) => d.marks.iter().any(|m| m.msg == Some(id)),
        _ => false,
    });
    let is_stop = |k: String| stop.as_deref() == Some(k.as_str());
    html! {
        <section class="card space-time" id="diagram" tabindex="-1" aria-label={tr(S::SpaceTime)}>
            <div class="space-time-head">
                <h2>{ tr(S::MessagesOverTime) }</h2>
                <p class="quiet">
                    { tr(S::SpaceTimeNote) }
                </p>
            </div>
            // The diagram scrolls sideways beside the pinned lane labels. Its box's scroll
            // origin is its right end (`.space-time-scroll` is a reversed row around one
            // child), so it shows now and keeps to it as the run grows, with no script
            // reading the layout at every step. On screen the SVG's own label column is cut
            // off by its view box; the exported picture (`data-export-viewbox`) keeps it.
            <div class="space-time-frame">
            <div class="space-time-scroll" style={pane_px} ref={scroller} onscroll={on_scroll}><div class="space-time-track">
                <svg id="space-time" width={f(d.width - d.origin)} height={f(d.height)}
                    viewBox={format!("{} 0 {} {}", f(d.origin), f(d.width - d.origin), f(d.height))}
                    data-export-viewbox={format!("0 0 {} {}", f(d.width), f(d.height))}
                    role="group" aria-label={tr(S::SpaceTimeSvg)}
                    data-roves="" ref={rove.container.clone()} onfocusin={rove.onfocusin.clone()} onkeydown={rove.onkeydown.clone()}>
                    <rect class="wire-zone" x={f(d.now_x)} y="0" width={f(d.width - d.now_x)} height={f(d.height)} />
                    // "On the wire" at the zone's foot, so the now label can sit right of the
                    // now line when there is no room left of it (early in a run).
                    // Said inside the picture, at its left end, so the caption above keeps
                    // its height when the window starts to move.
                    if d.earlier_hidden {
                        <text class="earlier-note" x={f(CUT + 6.0)} y={f(d.height - 8.0)}>{ tr(S::EarlierHidden) }</text>
                    }
                    <text class="zone-label" x={f(d.width - 8.0)} y={f(d.height - 8.0)} text-anchor="end">{ tr(S::WireZone) }</text>
                    // A tick near the left edge in view starts at its line: centred, its
                    // first characters went under the pinned lane labels ("ms" for "0 ms"),
                    // or off a phone's screen.
                    { for d.ticks.iter().map(|t| {
                        let edge = t.x - d.view_left < EDGE_TICK;
                        // A tick left of what a phone shows at first would show a cut label.
                        let shown = t.x >= d.view_left;
                        html! {
                            <g class="tick">
                                <line x1={f(t.x)} x2={f(t.x)} y1="24" y2={f(bottom)} />
                                if shown {
                                    <text x={f(if edge { t.x - 3.0 } else { t.x })} y="18"
                                        text-anchor={if edge { "start" } else { "middle" }}>{ &t.label }</text>
                                }
                            </g>
                        }
                    }) }
                    // The labels are drawn here for the exported picture; on screen the
                    // column pinned over them (below) is the one to read and click.
                    { for d.lanes.iter().map(|l| html! {
                        <g class="lane">
                            <line x1={f(d.origin)} x2={f(d.width)} y1={f(l.y)} y2={f(l.y)} />
                            <text class="lane-label" x="8" y={f(l.y + 5.0)} aria-hidden="true" data-export-only="">{ &l.label }</text>
                        </g>
                    }) }
                    { for d.bands.iter().map(|b| html! {
                        <rect class={classes!(match b.kind { "down" => "down-band", "cut" => "cut-band", _ => "freeze-band" })} x={f(b.x1)} y={f(b.y - 11.0)} width={f(b.x2 - b.x1)} height="22" rx="5">
                            <title>{ &b.title }</title>
                        </rect>
                    }) }
                    <line class="now" x1={f(d.now_x)} x2={f(d.now_x)} y1="24" y2={f(bottom)} />
                    // Left of the now line when there is room; right of it early in a run,
                    // and on a phone, whose narrow box shows little left of now.
                    if d.now_x - NOW_LABEL_ROOM >= CUT {
                        <text class="now-label left" x={f(d.now_x - 6.0)} y="16" text-anchor="end">{ &d.now_label }</text>
                        <text class="now-label narrow" x={f(d.now_x + 5.0)} y="16" aria-hidden="true">{ &d.now_label }</text>
                    } else {
                        <text class="now-label" x={f(d.now_x + 8.0)} y="16">{ &d.now_label }</text>
                    }
                    // Keyed by message, in a list of their own: an arrow already drawn is
                    // patched (it slides left as time moves on), not rebuilt.
                    <>{ for d.arrows.iter().map(|a| html! {
                        <Arrow key={a.key()} arrow={a.clone()} on_select={props.on_select.clone()}
                            selected={props.selected == Some(Selection::Message(a.msg_id))}
                            tab_stop={!a.copy && is_stop(format!("a{}", a.msg_id))} />
                    }) }</>
                    // The current step's arches take a click over any arch drawn after them
                    // from the same moment (the list keeps its order, so a focused arrow is
                    // never moved and never loses the focus).
                    { for d.arrows.iter().filter(|a| a.current && a.arch().is_some()).map(|a| {
                        let (click, _) = activate(&props.on_select, Selection::Message(a.msg_id));
                        html! { <path class="hit top-hit" d={shaft_path(a).0} onclick={click} aria-hidden="true" /> }
                    }) }
                    { for d.marks.iter().map(|m| mark(m, &props.on_select, props.selected, &i18n, &is_stop)) }
                    <g class="arrow-labels">{ for d.arrows.iter()
                        .filter(|a| a.labelled || props.selected == Some(Selection::Message(a.msg_id)))
                        .map(|a| arrow_label(a, &props.on_select)) }</g>
                </svg>
            </div></div>
            if *away {
                <button id="space-time-now" class="to-now" onclick={to_now}>{ tr(S::BackToNow) }{" ⟶"}</button>
            }
            // The lane labels, pinned left of the diagram as it scrolls.
            <svg class="lane-labels" width={f(pane)} height={f(d.height)} role="group"
                aria-label={tr(S::SpaceTimeSvg)}>
                { for d.lanes.iter().map(|l| {
                    let (click, key) = activate(&props.on_select, Selection::Node(l.node));
                    // The whole width of the names' pane and most of the lane's height take
                    // the click: a finger, not only a mouse, finds it.
                    let gap = crate::view_model::diagram::LANE_GAP;
                    html! {
                        <g class="lane-label" tabindex="0" role="button"
                            aria-label={i18n.f(S::Inspect, &[&l.label])} onclick={click} onkeydown={key}>
                            <rect class="lane-hit" x="0" y={f(l.y - gap / 2.0 + 2.0)} width={f(pane)} height={f(gap - 4.0)} />
                            // The role is left out on a phone (style.css): the name is what tells lanes apart.
                            <text x="8" y={f(l.y + 5.0)}>
                                if !l.role.is_empty() { <tspan class="role">{ l.role }{" "}</tspan> }
                                { l.label.strip_prefix(l.role).map_or(l.label.as_str(), str::trim_start) }
                            </text>
                        </g>
                    }
                }) }
            </svg>
            </div>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct ArrowProps {
    arrow: ArrowVm,
    selected: bool,
    /// The diagram's one tab stop (rove.rs); ↑ and ↓ reach the others.
    tab_stop: bool,
    on_select: Callback<Selection>,
}

/// One message's arrow: a wide invisible line to click, the shaft with its head, and the
/// message's kind written over it when it is current, on the wire or selected.
#[function_component(Arrow)]
fn arrow(props: &ArrowProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let (a, selected) = (&props.arrow, props.selected);
    let f = |v: f64| (v.round() as i64).to_string();
    let (click, key) = activate(&props.on_select, Selection::Message(a.msg_id));
    // The head drawn as its own small triangle, not an SVG marker: a marker is painted as a
    // separate picture per arrow, which cost a fifth of the frame on a busy diagram.
    let (shaft, from) = shaft_path(a);
    let head = classes!(
        "head",
        a.current.then_some("current"),
        a.in_flight.then_some("wire")
    );
    html! {
        <g class={classes!("arrow", a.in_flight.then_some("wire"), a.current.then_some("current"), a.lost.then_some("lost"), selected.then_some("selected"))}
            tabindex={super::rove::tabindex(props.tab_stop)} data-rove={format!("a{}", a.msg_id)}
            data-at={f(a.x1.min(a.x2))}
            role="button" data-msg={a.msg_id.to_string()}
            aria-label={i18n.f(S::InspectMessage, &[&a.msg_id, &a.title])}
            onclick={click} onkeydown={key}>
            <title>{ &a.title }</title>
            <path class="hit" d={shaft.clone()} />
            <path class="shaft" d={shaft} />
            if a.lost {
                // Lost at a crashed receiver: a cross where it arrived, no head.
                <path class="cross" d={format!("M{} {} l12 12 m0 -12 l-12 12", f(a.x2 - 6.0), f(a.y2 - 6.0))} />
            } else {
                <path class={head} d={head_path(from.0, from.1, a.x2, a.y2)} />
            }
        </g>
    }
}

/// An arrow's kind written over it where `arrow_labels` placed it, drawn after every arrow
/// and mark so none crosses it; a click on it selects its arrow.
fn arrow_label(a: &ArrowVm, on_select: &Callback<Selection>) -> Html {
    let f = |v: f64| (v.round() as i64).to_string();
    let (click, _) = activate(on_select, Selection::Message(a.msg_id));
    let class = classes!(
        "arrow-label",
        a.in_flight.then_some("wire"),
        a.current.then_some("current")
    );
    html! {
        <text key={a.key()} class={class} x={f(a.label_x)} y={f(a.label_y)}
            text-anchor="middle" aria-hidden="true" onclick={click}>
            { crate::view_model::arrow_labels::text(a) }
        </text>
    }
}

/// A crash's cross, a restart's ring, or a lost message's stub ending in a cross, which a
/// click (or Enter) opens in the inspector.
fn mark(
    m: &MarkVm,
    on_select: &Callback<Selection>,
    selected: Option<Selection>,
    i18n: &I18n,
    is_stop: &dyn Fn(String) -> bool,
) -> Html {
    let f = |v: f64| (v.round() as i64).to_string();
    let cross = |x: f64, y: f64| format!("M{} {} l12 12 m0 -12 l-12 12", f(x - 6.0), f(y - 6.0));
    let body = if m.kind == "restart" {
        html! { <circle cx={f(m.x)} cy={f(m.y)} r="8" /> }
    } else if let Some((x2, y2)) = m.stub {
        html! { <>
            <line class="hit" x1={f(m.x)} y1={f(m.y)} x2={f(x2)} y2={f(y2)} />
            <line class="stub" x1={f(m.x)} y1={f(m.y)} x2={f(x2)} y2={f(y2)} />
            <path d={cross(x2, y2)} />
        </> }
    } else {
        html! { <path d={cross(m.x, m.y)} /> }
    };
    let Some(id) = m.msg else {
        return html! { <g class={classes!("mark", m.kind)}><title>{ &m.title }</title>{ body }</g> };
    };
    let (click, key) = activate(on_select, Selection::Message(id));
    let chosen = selected == Some(Selection::Message(id));
    html! {
        <g class={classes!("mark", m.kind, chosen.then_some("selected"))} role="button"
            tabindex={super::rove::tabindex(is_stop(format!("k{id}")))} data-rove={format!("k{id}")}
            data-at={f(m.x)}
            data-msg={id.to_string()} aria-label={i18n.f(S::InspectMessage, &[&id, &m.title])}
            onclick={click} onkeydown={key}>
            <title>{ &m.title }</title>
            { body }
        </g>
    }
}

/// An arrow's shaft as an SVG path, and the point its head points from: a straight line
/// between two lanes; an arch above the lane for a message a process sends itself, its head
/// along the curve's end (from its second control point).
fn shaft_path(a: &ArrowVm) -> (String, (f64, f64)) {
    let f = |v: f64| (v.round() as i64).to_string();
    match a.arch() {
        Some([c1x, c1y, c2x, c2y]) => (
            format!(
                "M{} {}C{} {} {} {} {} {}",
                f(a.x1),
                f(a.y1),
                f(c1x),
                f(c1y),
                f(c2x),
                f(c2y),
                f(a.x2),
                f(a.y2)
            ),
            (c2x, c2y),
        ),
        None => (
            format!("M{} {}L{} {}", f(a.x1), f(a.y1), f(a.x2), f(a.y2)),
            (a.x1, a.y1),
        ),
    }
}

/// An arrowhead 12 px long and 10 px wide with its tip at (x2, y2), along the line from
/// (x1, y1), in whole pixels.
fn head_path(x1: f64, y1: f64, x2: f64, y2: f64) -> String {
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ux, uy) = (dx / len, dy / len);
    let (bx, by) = (x2 - 12.0 * ux, y2 - 12.0 * uy);
    let r = |v: f64| v.round() as i64;
    format!(
        "M{} {}L{} {}L{} {}Z",
        r(x2),
        r(y2),
        r(bx - 5.0 * uy),
        r(by + 5.0 * ux),
        r(bx + 5.0 * uy),
        r(by - 5.0 * ux)
    )
}
