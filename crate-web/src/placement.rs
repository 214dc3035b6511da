//! Where the inspector opens: away from what was clicked, so as not to hide it.
//!
//! On a wide screen the panel sits in a bottom corner, on the side away from the selected
//! thing; on a narrow one it spans the width, at the bottom or, when the selected thing is
//! in the lower half of the screen, at the top.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/placement.js")]
extern "C" {
    #[wasm_bindgen(js_name = selectedBoxNextFrame)]
    fn selected_box_next_frame(done: &JsValue);
}

/// Below this viewport width the inspector spans the screen (as `style.css` says).
pub const NARROW_PX: f64 = 720.0;

/// The inspector's dock, the value of its `data-dock` attribute.
pub fn dock_for(b: &[f64]) -> &'static str {
    let [left, top, right, bottom, width, height] = b else {
        return "right";
    };
    if *width <= NARROW_PX {
        // The panel takes up to 45% of the height, from the bottom or from the top.
        if (top + bottom) / 2.0 > height * 0.5 {
            "top"
        } else {
            "bottom"
        }
    } else if (left + right) / 2.0 > width / 2.0 {
        "left"
    } else {
        "right"
    }
}

/// Docks `panel` away from the selected thing, at the next frame, when every part of the
/// page has drawn the selection (one layout read; a write of one attribute).
pub fn dock_away(panel: web_sys::Element) {
    let done = Closure::once_into_js(move |l: f64, t: f64, r: f64, b: f64, w: f64, h: f64| {
        // Nothing selected (all zeros) docks where the panel always was.
        let found = w > 0.0;
        let at = [l, t, r, b, w, h];
        let _ = panel.set_attribute("data-dock", dock_for(if found { &at } else { &[] }));
    });
    selected_box_next_frame(&done);
}

#[cfg(test)]
mod tests {
    use super::dock_for;

    #[test]
    fn opens_on_the_side_away_from_the_selection() {
        // 1280×720: an arrow near now, at the right end of the diagram, and a producer card
        // on the left.
        assert_eq!(
            dock_for(&[1100.0, 400.0, 1180.0, 420.0, 1280.0, 720.0]),
            "left"
        );
        assert_eq!(
            dock_for(&[40.0, 300.0, 400.0, 500.0, 1280.0, 720.0]),
            "right"
        );
        // A phone: a cell low on the screen sends the panel to the top, one high keeps it low.
        assert_eq!(dock_for(&[20.0, 600.0, 60.0, 640.0, 390.0, 844.0]), "top");
        assert_eq!(
            dock_for(&[20.0, 100.0, 60.0, 140.0, 390.0, 844.0]),
            "bottom"
        );
        // Nothing selected (or no layout): where it always was.
        assert_eq!(dock_for(&[]), "right");
        assert_eq!(dock_for(&[1.0, 2.0]), "right");
    }
}
