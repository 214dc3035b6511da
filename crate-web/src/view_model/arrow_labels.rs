//! Where the diagram writes its arrows' kinds: each label near its own arrow, never over
//! another label, inside the drawing, and off the now line when it fits beside it. A label
//! with no free place is left out (the arrow's tooltip and the inspector still name it).

use super::diagram::ArrowVm;

/// About the width of one character of a label (14 px bold sans), in pixels: a little
/// generous, so that two labels estimated apart are apart on screen.
const CHAR_WIDTH: f64 = 8.6;
/// A label's box around its baseline: this far above it, and this far below.
const ASCENT: f64 = 13.0;
const DESCENT: f64 = 4.0;
/// Where along its arrow a label is tried, from its middle outwards.
const ALONG: [f64; 5] = [0.5, 0.35, 0.65, 0.2, 0.8];

/// A label's text: the kind, and how many arrows alike it speaks for.
pub fn text(a: &ArrowVm) -> String {
    if a.also > 0 {
        format!("{} ×{}", a.kind, a.also + 1)
    } else {
        a.kind.clone()
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabelBox {
    pub x0: f64,
    pub x1: f64,
    pub y0: f64,
    pub y1: f64,
}

impl LabelBox {
    /// The box of a label centred on `x` with its baseline at `y`.
    pub fn of(a: &ArrowVm, x: f64, y: f64) -> LabelBox {
        let half = text(a).chars().count() as f64 * CHAR_WIDTH / 2.0 + 2.0;
        LabelBox {
            x0: x - half,
            x1: x + half,
            y0: y - ASCENT,
            y1: y + DESCENT,
        }
    }

    pub fn overlaps(&self, o: &LabelBox) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
}

/// A label's place at `t` along its arrow: above a line that goes down, below one that goes
/// up (a request and its answer between two lanes cross, and their words would meet), or
/// on the other side when `flip`.
fn spot(a: &ArrowVm, t: f64, flip: bool) -> (f64, f64) {
    let (x, y) = (a.x1 + (a.x2 - a.x1) * t, a.y1 + (a.y2 - a.y1) * t);
    let above = (a.y2 >= a.y1) != flip;
    (x, if above { y - 6.0 } else { y + 17.0 })
}

/// Sets every arrow's label place (`label_x`, `label_y`: its centre and baseline) and
/// leaves out the labels that find no free place. Current arrows choose first, then those
/// on the wire, then the rest; `[left, shown_from, right]` bound the drawing and the part
/// of it in view when it opens (a phone shows its right end): an arrow that reaches into
/// that part is labelled inside it. `now_x` is the now line, and no label goes over an
/// `obstacle` (a phone's lane names).
pub fn place(
    arrows: &mut [ArrowVm],
    [drawing_left, shown_from, right]: [f64; 3],
    now_x: f64,
    obstacles: &[LabelBox],
) {
    for a in arrows.iter_mut() {
        (a.label_x, a.label_y) = spot(a, 0.5, false);
    }
    let mut order: Vec<usize> = (0..arrows.len()).filter(|&i| arrows[i].labelled).collect();
    eos_core::order::sort_by_key(&mut order, |&i| {
        (!arrows[i].current, !arrows[i].in_flight, i)
    });
    let mut placed: Vec<LabelBox> = obstacles.to_vec();
    for i in order {
        let a = &arrows[i];
        let left = if a.x1.max(a.x2) > shown_from + 20.0 {
            shown_from
        } else {
            drawing_left
        };
        let fits = |x: f64, y: f64| {
            let b = LabelBox::of(a, x, y);
            (b.x0 >= left && b.x1 <= right && placed.iter().all(|p| !p.overlaps(&b))).then_some(b)
        };
        let found = ALONG
            .iter()
            .flat_map(|&t| [spot(a, t, false), spot(a, t, true)])
            .find_map(|(x, y)| {
                let b = LabelBox::of(a, x, y);
                let half = (b.x1 - b.x0) / 2.0;
                // Kept inside the drawing, and beside the now line rather than across it
                // (on its side of the line) when there is room there.
                let x = x.clamp(left + half, (right - half).max(left + half));
                let beside = if x < now_x {
                    x.min(now_x - half - 3.0)
                } else {
                    x.max(now_x + half + 3.0)
                };
                [beside, x]
                    .into_iter()
                    .find_map(|x| fits(x, y).map(|b| (x, y, b)))
            });
        match found {
            Some((x, y, b)) => {
                placed.push(b);
                (arrows[i].label_x, arrows[i].label_y) = (x, y);
            }
            None => arrows[i].labelled = false,
        }
    }
}
