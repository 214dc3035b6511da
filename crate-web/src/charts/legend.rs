//! Where a chart's legend goes: in an upper corner of the plot that no line, dot or ring
//! crosses, with as little headroom above the data as that takes.

use plotters::element::MultiLineText;
use plotters::prelude::*;

/// Headroom above the highest point (a factor on it), tried in order until a corner is free.
pub const HEADROOMS: [f64; 9] = [1.08, 1.2, 1.35, 1.5, 1.7, 1.9, 2.2, 2.6, 3.0];

/// The legend box: `SAMPLE` px for the line sample, `MARGIN` px all round (the chart sets
/// both on plotters' legend).
pub const SAMPLE: u32 = 26;
pub const MARGIN: u32 = 4;
/// Clear space kept between the box and anything drawn.
const GAP: i32 = 2;

/// What a chart drew, in the root's pixels: each series' line (with half its width) and its
/// dots or rings (with their radius).
pub struct Drawn {
    base: (i32, i32),
    size: (i32, i32),
    lines: Vec<(Vec<(i32, i32)>, i32)>,
    dots: Vec<((i32, i32), i32)>,
}

impl Drawn {
    /// `widths[i]` is series i's line width; marked points get a ring of radius 10.
    pub fn of(c: &super::Frame, series: &[super::Series], widths: &[u32]) -> Drawn {
        let area = c.plotting_area();
        let (w, h) = area.dim_in_pixel();
        let mut lines = Vec::new();
        let mut dots = Vec::new();
        for (s, width) in series.iter().zip(widths) {
            let px: Vec<(i32, i32)> = s.points.iter().map(|p| c.backend_coord(p)).collect();
            dots.extend(px.iter().map(|p| (*p, 4)));
            lines.push((px, (*width as i32 + 1) / 2));
            dots.extend(s.marked.iter().map(|p| (c.backend_coord(p), 12)));
        }
        Drawn {
            base: area.get_base_pixel(),
            size: (w as i32, h as i32),
            lines,
            dots,
        }
    }

    /// The first upper corner whose legend box for `labels` nothing crosses.
    pub fn free_corner(&self, labels: &[&str], font: &TextStyle) -> Option<SeriesLabelPosition> {
        let mut text = MultiLineText::<_, &str>::new((0, 0), font);
        for l in labels {
            text.push_line(*l);
        }
        let (tw, th) = text.estimate_dimension().ok()?;
        let (w, h) = (
            tw + SAMPLE as i32 + 2 * MARGIN as i32,
            th + 2 * MARGIN as i32,
        );
        let corners = [
            (SeriesLabelPosition::UpperLeft, 5),
            (SeriesLabelPosition::UpperRight, self.size.0 - w - 5),
        ];
        corners.into_iter().find_map(|(pos, x)| {
            let (x0, y0) = (self.base.0 + x, self.base.1 + 5);
            let rect = (x0 - GAP, y0 - GAP, x0 + w + GAP, y0 + h + GAP);
            (x >= 0 && !self.crosses(rect)).then_some(pos)
        })
    }

    fn crosses(&self, (x0, y0, x1, y1): (i32, i32, i32, i32)) -> bool {
        let inside = |(x, y): (i32, i32), pad: i32| {
            x >= x0 - pad && x <= x1 + pad && y >= y0 - pad && y <= y1 + pad
        };
        let dot = self.dots.iter().any(|&(p, r)| inside(p, r));
        dot || self.lines.iter().any(|(px, pad)| {
            px.windows(2).any(|ab| {
                let (a, b) = (ab[0], ab[1]);
                // Sampled every 2 px: enough against a box tens of pixels tall.
                let n = ((b.0 - a.0).abs().max((b.1 - a.1).abs()) / 2).max(1);
                (0..=n).any(|k| {
                    let t = |u: i32, v: i32| u + (v - u) * k / n;
                    inside((t(a.0, b.0), t(a.1, b.1)), *pad)
                })
            }) || px.first().is_some_and(|p| inside(*p, *pad))
        })
    }
}
