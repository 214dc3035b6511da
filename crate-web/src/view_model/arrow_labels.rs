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
/// The least room between two labels side by side on one line, in pixels.
const GAP: f64 = 14.0;
/// Where along its arrow a label is tried, from its middle outwards.
const ALONG: [f64; 5] = [0.5, 0.35, 0.65, 0.2, 0.8];

/// A label's text: the kind, and how many arrows alike it speaks for.
pub fn text(a: &ArrowVm) -> String {
    // "3× produce response": the number of arrows first, unlike a message's own count
    // ("replicate ×2", two records).
    if a.also > 0 {
        format!("{}× {}", a.also + 1, a.kind)
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

    /// Closer than `GAP` side by side counts too: two labels on one line with no room
    /// between them read as one ("produce response produce response").
    pub fn overlaps(&self, o: &LabelBox) -> bool {
        self.x0 < o.x1 + GAP && o.x0 < self.x1 + GAP && self.y0 < o.y1 && o.y0 < self.y1
    }
}

/// A label's place at `t` along its arrow: above a line that goes down, below one that goes
/// up (a request and its answer between two lanes cross, and their words would meet), or
/// on the other side when `flip`.
fn spot(a: &ArrowVm, t: f64, flip: bool) -> (f64, f64) {
    let (x, y) = (a.x1 + (a.x2 - a.x1) * t, a.y1 + (a.y2 - a.y1) * t);
    let above = (a.y2 >= a.y1) != flip;
    // Above a message's arch to its own lane, not across it.
    let rise = if a.y1 == a.y2 {
        a.arch_lift() * 0.75
    } else {
        0.0
    };
    (x, if above { y - 6.0 - rise } else { y + 17.0 })
}

/// The place of a label centred at `x`, on its side of the arrow where the arrow is at
/// `x` (at its nearer end past either end): a label moved sideways, into the wire zone or
/// off the now line, stays as close to its own arrow as at `spot`.
fn spot_at_x(a: &ArrowVm, x: f64, flip: bool) -> (f64, f64) {
    let t = if (a.x2 - a.x1).abs() < 1.0 {
        0.5
    } else {
        ((x - a.x1) / (a.x2 - a.x1)).clamp(0.0, 1.0)
    };
    (x, spot(a, t, flip).1)
}

/// Whether the segment `[x1, y1, x2, y2]` passes through the box (Liang–Barsky clipping,
/// the box shrunk by a pixel so that a line that only touches it does not count).
fn crosses(b: &LabelBox, [x1, y1, x2, y2]: [f64; 4]) -> bool {
    let (dx, dy) = (x2 - x1, y2 - y1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, x1 - (b.x0 + 1.0)),
        (dx, (b.x1 - 1.0) - x1),
        (-dy, y1 - (b.y0 + 1.0)),
        (dy, (b.y1 - 1.0) - y1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let r = q / p;
            if p < 0.0 {
                t0 = t0.max(r);
            } else {
                t1 = t1.min(r);
            }
            if t0 > t1 {
                return false;
            }
        }
    }
    true
}

/// Sets every arrow's label place (`label_x`, `label_y`: its centre and baseline) and
/// leaves out the labels that find no free place. Current arrows choose first, then those
/// on the wire, then the rest; `[left, shown_from, right]` bound the drawing and the part
/// of it in view when it opens (a phone shows its right end): an arrow that reaches into
/// that part is labelled inside it. `now_x` is the now line, and no label goes over an
/// `obstacle` (a phone's lane names). With `clear_of_lines` (a phone, where room is short
/// and a label over a line is hard to read), a place in view that crosses no other arrow and
/// not the now line is preferred to one that does.
pub fn place(
    arrows: &mut [ArrowVm],
    [drawing_left, shown_from, right]: [f64; 3],
    now_x: f64,
    obstacles: &[LabelBox],
    clear_of_lines: bool,
) {
    for a in arrows.iter_mut() {
        (a.label_x, a.label_y) = spot(a, 0.5, false);
    }
    let mut order: Vec<usize> = (0..arrows.len()).filter(|&i| arrows[i].labelled).collect();
    eos_core::order::sort_by_key(&mut order, |&i| {
        (!arrows[i].current, !arrows[i].in_flight, i)
    });
    let mut placed: Vec<LabelBox> = obstacles.to_vec();
    // The lines in view, which a label on a phone keeps off when it can.
    let lines: Vec<[f64; 4]> = if clear_of_lines {
        arrows
            .iter()
            .filter(|a| a.x1.max(a.x2) >= shown_from)
            .map(|a| [a.x1, a.y1, a.x2, a.y2])
            .collect()
    } else {
        Vec::new()
    };
    for i in order {
        let a = &arrows[i];
        let left = if a.x1.max(a.x2) > shown_from + 20.0 {
            shown_from
        } else {
            drawing_left
        };
        let bounds = [left, right, now_x];
        let mut found = find_place(a, bounds, &placed, &lines);
        // On a phone a label wider than the room on its side of the now line (right of it
        // for a message on the wire, left of it for one delivered) is cut short
        // ("AddPartitio…"; the tooltip and inspector name it in full) rather than written
        // across the line.
        let across = |b: &LabelBox| b.x0 < now_x && now_x < b.x1;
        if clear_of_lines && found.is_none_or(|(_, _, b)| across(&b)) {
            let side = if a.in_flight {
                right - now_x
            } else {
                now_x - left
            };
            // Characters that fit, less the "3× " a label for several arrows carries.
            let chars = a.kind.chars().count();
            let room = (((side - 10.0) / CHAR_WIDTH).floor().max(0.0) as usize)
                .saturating_sub(text(a).chars().count() - chars);
            // The room on the side may be taken in part (the lane names at a phone's left
            // edge): shorter cuts are tried down to four characters and the "…".
            let mut short = a.clone();
            for keep in (4..room.min(chars)).rev() {
                short.kind = a.kind.chars().take(keep).collect::<String>() + "…";
                if let Some(f) =
                    find_place(&short, bounds, &placed, &lines).filter(|(_, _, b)| !across(b))
                {
                    arrows[i].kind = std::mem::take(&mut short.kind);
                    found = Some(f);
                    break;
                }
            }
        }
        match found {
            Some((x, y, b)) => {
                placed.push(b);
                (arrows[i].label_x, arrows[i].label_y) = (x, y);
            }
            None => arrows[i].labelled = false,
        }
    }
}

/// The first free place for the arrow's label inside `[left, right]`: on a phone (`lines`
/// given) one that crosses no arrow, its own included, and not the now line if there is one.
fn find_place(
    a: &ArrowVm,
    [left, right, now_x]: [f64; 3],
    placed: &[LabelBox],
    lines: &[[f64; 4]],
) -> Option<(f64, f64, LabelBox)> {
    let fits = |x: f64, y: f64| {
        let b = LabelBox::of(a, x, y);
        (b.x0 >= left && b.x1 <= right && placed.iter().all(|p| !p.overlaps(&b))).then_some(b)
    };
    let clear =
        |b: &LabelBox| !(b.x0 < now_x && now_x < b.x1) && lines.iter().all(|l| !crosses(b, *l));
    // Each place twice: at the arrow's height where the label's centre is (first: beside
    // its own arrow), then at the height of the spot it was moved from (a label moved
    // sideways that finds no room beside its arrow may still find it there).
    let mut candidates: Vec<(f64, f64)> = Vec::with_capacity(ALONG.len() * 12);
    let mut level: Vec<(f64, f64)> = Vec::with_capacity(ALONG.len() * 6);
    for &t in &ALONG {
        for flip in [false, true] {
            let (x, y) = spot(a, t, flip);
            let b = LabelBox::of(a, x, y);
            let half = (b.x1 - b.x0) / 2.0;
            // Kept inside the drawing, and beside the now line rather than across it (on its
            // side of the line) when there is room there.
            let x = x.clamp(left + half, (right - half).max(left + half));
            let (before, after) = (x.min(now_x - half - 3.0), x.max(now_x + half + 3.0));
            // A message on the wire is named in the wire zone if it fits there, else just
            // left of the now line; a delivered one on its side of the line.
            let moved: &[f64] = if a.in_flight {
                &[after, before]
            } else if x < now_x {
                &[before]
            } else {
                &[after]
            };
            for &m in moved.iter().chain([&x]) {
                candidates.push(spot_at_x(a, m, flip));
                level.push((m, y));
            }
        }
    }
    candidates.extend(level);
    // Places between the arrow's two lanes first, even over lines: a label past the lane it
    // starts from reads as another lane's (a response's label under the broker it leaves).
    // Only when none fits there, the rest.
    let (top, bottom) = (a.y1.min(a.y2), a.y1.max(a.y2));
    let banded = bottom - top >= ASCENT + DESCENT + 4.0;
    let inside = |y: f64| !banded || (y - ASCENT >= top && y + DESCENT <= bottom);
    let off_now = |b: &LabelBox| !(b.x0 < now_x && now_x < b.x1);
    for in_band in [true, false] {
        let group: Vec<(f64, f64)> = candidates
            .iter()
            .copied()
            .filter(|&(_, y)| inside(y) == in_band)
            .collect();
        // A clear place first (a phone); it may sit a little further off the arrow.
        if !lines.is_empty() {
            for &(x, y) in &group {
                for y in [y, y - 10.0, y + 10.0] {
                    if inside(y) != in_band {
                        continue;
                    }
                    if let Some(b) = fits(x, y).filter(clear) {
                        return Some((x, y, b));
                    }
                }
            }
        }
        // Off the now line if any place is, else across it.
        let found = group
            .iter()
            .find_map(|&(x, y)| fits(x, y).filter(off_now).map(|b| (x, y, b)))
            .or_else(|| {
                group
                    .iter()
                    .find_map(|&(x, y)| fits(x, y).map(|b| (x, y, b)))
            });
        if found.is_some() {
            return found;
        }
    }
    None
}

/// How many labels in view (right of `view_left`) cross another arrow or the now line.
#[cfg(test)]
pub fn crossings(arrows: &[ArrowVm], view_left: f64, now_x: f64) -> usize {
    let boxes = arrows
        .iter()
        .enumerate()
        .filter(|(_, a)| a.labelled && a.label_x > view_left)
        .map(|(i, a)| (i, LabelBox::of(a, a.label_x, a.label_y)));
    boxes
        .filter(|(i, b)| {
            (b.x0 < now_x && now_x < b.x1)
                || arrows.iter().enumerate().any(|(j, o)| {
                    j != *i && o.x1.max(o.x2) >= view_left && crosses(b, [o.x1, o.y1, o.x2, o.y2])
                })
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_crosses_a_box_it_passes_through_and_not_one_it_misses() {
        let b = LabelBox {
            x0: 10.0,
            x1: 50.0,
            y0: 10.0,
            y1: 20.0,
        };
        assert!(crosses(&b, [0.0, 0.0, 60.0, 30.0]), "diagonally through");
        assert!(
            crosses(&b, [30.0, 0.0, 30.0, 40.0]),
            "straight down through"
        );
        assert!(!crosses(&b, [0.0, 30.0, 60.0, 30.0]), "below it");
        assert!(!crosses(&b, [0.0, 0.0, 9.0, 40.0]), "left of it");
        assert!(!crosses(&b, [0.0, 10.0, 60.0, 10.0]), "along its edge only");
    }
}
