//! Where the inspector opens: away from what was clicked, so as not to hide it, and clear of
//! the playback bar when it can be.
//!
//! On a wide screen the panel sits in a bottom corner, on the side away from the selected
//! thing, no taller than the room below the playback bar; a selection it would still cover (a
//! Flink channel's row spans the stage) has it above or below instead, where there is more
//! room; on a narrow one it spans the width,
//! at the bottom or, when the selected thing is in the lower half of the screen, at the top:
//! below the playback bar when there is room between it and the selection.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/placement.js")]
extern "C" {
    #[wasm_bindgen(js_name = selectedBoxNextFrame)]
    fn selected_box_next_frame(done: &JsValue);
    #[wasm_bindgen(js_name = tabAroundPanel)]
    fn tab_around_panel(panel: &web_sys::Element, opener: &JsValue, backwards: bool) -> bool;
    #[wasm_bindgen(js_name = onFocusUnder)]
    fn on_focus_under(panel: &web_sys::Element, done: &JsValue) -> js_sys::Function;
    #[wasm_bindgen(js_name = onTabFromOpener)]
    fn on_tab_from_opener(panel: &web_sys::Element, opener: &web_sys::Element) -> js_sys::Function;
    #[wasm_bindgen(js_name = trackBarHeight)]
    fn track_bar_height(bar: &web_sys::Element) -> js_sys::Function;
}

/// Below this viewport width the inspector spans the screen (as `style.css` says).
pub const NARROW_PX: f64 = 720.0;

/// The least height worth giving the panel to keep the playback bar in view; with less room it
/// goes over the bar as it always did (it can be folded or closed).
pub const MIN_ROOM_PX: f64 = 180.0;

/// The panel's margin from the screen's edge (1rem wide, 0.5rem narrow: `style.css`) and its
/// gap to the bar and the selection.
const GAP_PX: f64 = 8.0;

/// The panel's width on a wide screen (`style.css`: 31rem).
const PANEL_PX: f64 = 496.0;

/// Where the inspector docks: its side (`data-dock`) and, to keep the playback bar in view,
/// the top of a top-docked panel and the height it may take (`--dock-top`, `--dock-room`).
#[derive(Debug, PartialEq)]
pub struct Dock {
    pub side: &'static str,
    pub top: Option<f64>,
    pub room: Option<f64>,
}

/// `b`: the selection's left, top, right and bottom, the viewport's width and height, and the
/// playback bar's bottom, in CSS pixels.
pub fn dock_for(b: &[f64]) -> Dock {
    let [left, top, right, bottom, width, height, bar] = b else {
        return Dock {
            side: "right",
            top: None,
            room: None,
        };
    };
    // The bar counts when it is on screen in the top half (stuck at the top, or the page
    // scrolled to where it sits); lower down the panel cannot keep clear of it anyway.
    let bar = Some(*bar).filter(|b| *b > 0.0 && *b < height * 0.5);
    if *width > NARROW_PX {
        let side = if (left + right) / 2.0 > width / 2.0 {
            "left"
        } else {
            "right"
        };
        // The panel's span in that corner. A selection it would still cover there (one as wide
        // as the screen is covered in either corner) has the panel above it (below the bar, at
        // the right) or below it, whichever leaves more room, when that room is enough.
        let (from, to) = match side {
            "right" => (width - 2.0 * GAP_PX - PANEL_PX, width - 2.0 * GAP_PX),
            _ => (2.0 * GAP_PX, 2.0 * GAP_PX + PANEL_PX),
        };
        if *left < to && *right > from {
            let above_from = bar.map_or(2.0 * GAP_PX, |bar| bar + GAP_PX);
            let above = top - GAP_PX - above_from;
            let below = height - 2.0 * GAP_PX - bottom - GAP_PX;
            if above >= below && above >= MIN_ROOM_PX {
                return Dock {
                    side: "above",
                    top: Some(above_from),
                    room: Some(above),
                };
            }
            if below >= MIN_ROOM_PX {
                return Dock {
                    side,
                    top: None,
                    room: Some(below),
                };
            }
        }
        // Docked at the bottom (1rem up), it stops a gap below the bar.
        let room = bar
            .map(|bar| height - 2.0 * GAP_PX - bar - GAP_PX)
            .filter(|room| *room >= MIN_ROOM_PX);
        return Dock {
            side,
            top: None,
            room,
        };
    }
    // The panel takes up to 45% of the height, from the bottom or from the top.
    if (top + bottom) / 2.0 <= height * 0.5 {
        return Dock {
            side: "bottom",
            top: None,
            room: None,
        };
    }
    let below_bar = bar.map(|bar| bar + GAP_PX);
    let room = below_bar
        .map(|from| top - GAP_PX - from)
        .filter(|room| *room >= MIN_ROOM_PX);
    Dock {
        side: "top",
        top: room.and(below_bar),
        room,
    }
}

/// Docks `panel` away from the box `at` (as `dock_for` takes it; empty: where it always
/// was): writes of two attributes.
fn dock_at(panel: &web_sys::Element, at: &[f64]) {
    let dock = dock_for(at);
    let _ = panel.set_attribute("data-dock", dock.side);
    let px = |name: &str, v: Option<f64>| v.map(|v| format!("{name}:{v:.0}px;"));
    let style: String = [px("--dock-top", dock.top), px("--dock-room", dock.room)]
        .into_iter()
        .flatten()
        .collect();
    let _ = panel.set_attribute("style", &style);
}

/// Docks `panel` away from the selected thing, at the next frame, when every part of the
/// page has drawn the selection (one layout read; writes of two attributes).
pub fn dock_away(panel: web_sys::Element) {
    let done = Closure::once_into_js(
        move |l: f64, t: f64, r: f64, b: f64, w: f64, h: f64, bar: f64| {
            // Nothing selected (all zeros) docks where the panel always was.
            let at = [l, t, r, b, w, h, bar];
            dock_at(&panel, if w > 0.0 { &at } else { &[] });
        },
    );
    selected_box_next_frame(&done);
}

/// Tab from the panel's last stop goes on after `opener` (what opened it), Shift+Tab from its
/// first back to `opener`: true when it moved the focus (the key's default is then not
/// wanted).
pub fn tab_around(
    panel: &web_sys::Element,
    opener: Option<&web_sys::Element>,
    backwards: bool,
) -> bool {
    let opener: JsValue = opener.map_or(JsValue::NULL, |o| o.clone().into());
    tab_around_panel(panel, &opener, backwards)
}

/// While it lives, Tab from `opener` goes into `panel`, as into a popover (the other half of
/// `tab_around`). Dropping it stops that.
pub struct TabInto {
    stop: js_sys::Function,
}

impl TabInto {
    pub fn new(panel: &web_sys::Element, opener: &web_sys::Element) -> Self {
        TabInto {
            stop: on_tab_from_opener(panel, opener),
        }
    }
}

impl Drop for TabInto {
    fn drop(&mut self) {
        let _ = self.stop.call0(&JsValue::NULL);
    }
}

/// While it lives, the page's scroll padding is the playback bar's height as it is
/// (`placement.js` `trackBarHeight`). Dropping it stops that.
pub struct BarHeight {
    stop: js_sys::Function,
}

impl BarHeight {
    pub fn new(bar: &web_sys::Element) -> Self {
        BarHeight {
            stop: track_bar_height(bar),
        }
    }
}

impl Drop for BarHeight {
    fn drop(&mut self) {
        let _ = self.stop.call0(&JsValue::NULL);
    }
}

/// While it lives, an element the keyboard focuses under `panel` has the panel dock away
/// from it, so Tab never goes on out of sight. Dropping it stops that.
pub struct FocusWatch {
    stop: js_sys::Function,
    _done: Closure<BoxSeen>,
}

/// A box as `dock_for` takes it, handed over by JavaScript.
type BoxSeen = dyn FnMut(f64, f64, f64, f64, f64, f64, f64);

impl FocusWatch {
    pub fn new(panel: web_sys::Element) -> Self {
        let target = panel.clone();
        let done = Closure::<BoxSeen>::new(
            move |l: f64, t: f64, r: f64, b: f64, w: f64, h: f64, bar: f64| {
                dock_at(&target, &[l, t, r, b, w, h, bar]);
            },
        );
        let stop = on_focus_under(&panel, done.as_ref());
        FocusWatch { stop, _done: done }
    }
}

impl Drop for FocusWatch {
    fn drop(&mut self) {
        let _ = self.stop.call0(&JsValue::NULL);
    }
}

#[cfg(test)]
mod tests {
    use super::{dock_for, Dock};

    fn side(b: &[f64]) -> &'static str {
        dock_for(b).side
    }

    #[test]
    fn opens_on_the_side_away_from_the_selection() {
        // 1280×720: an arrow near now, at the right end of the diagram, and a producer card
        // on the left (the playback bar out of the picture).
        assert_eq!(
            side(&[1100.0, 400.0, 1180.0, 420.0, 1280.0, 720.0, 0.0]),
            "left"
        );
        assert_eq!(
            side(&[40.0, 300.0, 400.0, 500.0, 1280.0, 720.0, 0.0]),
            "right"
        );
        // A phone: a cell low on the screen sends the panel to the top, one high keeps it low.
        assert_eq!(side(&[20.0, 600.0, 60.0, 640.0, 390.0, 844.0, 0.0]), "top");
        assert_eq!(
            side(&[20.0, 100.0, 60.0, 140.0, 390.0, 844.0, 0.0]),
            "bottom"
        );
        // Nothing selected (or no layout): where it always was.
        let plain = Dock {
            side: "right",
            top: None,
            room: None,
        };
        assert_eq!(dock_for(&[]), plain);
        assert_eq!(dock_for(&[1.0, 2.0]), plain);
    }

    #[test]
    fn keeps_clear_of_the_playback_bar_when_there_is_room() {
        // 1280×720 with the bar stuck at the top (its bottom at 66 px): the panel, docked at
        // the bottom, stops below it.
        let wide = dock_for(&[40.0, 300.0, 400.0, 500.0, 1280.0, 720.0, 66.0]);
        assert_eq!((wide.side, wide.top), ("right", None));
        assert_eq!(wide.room, Some(720.0 - 16.0 - 66.0 - 8.0));
        // The bar low on the screen (the page scrolled to the top of a short window): no
        // limit, the panel cannot keep clear of it anyway.
        assert_eq!(
            dock_for(&[40.0, 300.0, 400.0, 500.0, 1280.0, 720.0, 500.0]).room,
            None
        );
        // A phone, 390×844, the bar stuck at the top (bottom 137 px) and a cell low down: the
        // panel opens below the bar and stops above the cell.
        let phone = dock_for(&[20.0, 600.0, 60.0, 640.0, 390.0, 844.0, 137.0]);
        assert_eq!(phone.side, "top");
        assert_eq!(phone.top, Some(145.0));
        assert_eq!(phone.room, Some(600.0 - 8.0 - 145.0));
        // A cell 114 px below the bar leaves too little room: over the bar, as before.
        let tight = dock_for(&[20.0, 430.0, 60.0, 900.0, 390.0, 844.0, 300.0]);
        assert_eq!((tight.side, tight.top, tight.room), ("top", None, None));
        // Docked at the bottom, a phone's panel is far from a bar at the top.
        let low = dock_for(&[20.0, 100.0, 60.0, 140.0, 390.0, 844.0, 137.0]);
        assert_eq!((low.side, low.top, low.room), ("bottom", None, None));
    }

    #[test]
    fn keeps_above_or_below_a_selection_as_wide_as_the_screen() {
        // 1280×720, the bar stuck at the top (bottom 66 px), a Flink channel's row across the
        // stage low on the screen: the panel opens below the bar and stops above the row.
        let low = dock_for(&[40.0, 645.0, 1230.0, 683.0, 1280.0, 720.0, 66.0]);
        assert_eq!(low.side, "above");
        assert_eq!(low.top, Some(74.0));
        assert_eq!(low.room, Some(645.0 - 8.0 - 74.0));
        // The same row high up: the panel stays at the bottom, under the row.
        let high = dock_for(&[40.0, 120.0, 1230.0, 158.0, 1280.0, 720.0, 66.0]);
        assert_eq!((high.side, high.top), ("right", None));
        assert_eq!(high.room, Some(720.0 - 16.0 - 158.0 - 8.0));
        // No bar in the top half: above starts a margin from the top of the screen.
        let no_bar = dock_for(&[40.0, 500.0, 1230.0, 540.0, 1280.0, 720.0, 0.0]);
        assert_eq!((no_bar.side, no_bar.top), ("above", Some(16.0)));
        // A row in the middle of a short window, too little room either way: the bottom
        // corner, as before.
        let squeezed = dock_for(&[40.0, 200.0, 1230.0, 300.0, 1280.0, 400.0, 0.0]);
        assert_eq!(squeezed.side, "right");
        assert_eq!(squeezed.top, None);
        // A card clear of the panel's corner keeps the corner.
        assert_eq!(
            dock_for(&[40.0, 600.0, 400.0, 700.0, 1280.0, 720.0, 66.0]).top,
            None
        );
    }
}
