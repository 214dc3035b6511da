//! A chart's legend: a strip under the plot, its entries in rows as the width allows. Kept
//! off the plot, it never hides a line and never makes the y axis taller than the data.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// How an entry is drawn: a short line in a series' colour, or a ring.
#[derive(Clone, Copy)]
pub enum Sample {
    Line(RGBColor),
    Ring(RGBColor),
}

/// The sample's width, the space after an entry, a row's height and the strip's margins.
const SAMPLE: i32 = 26;
const SPACING: i32 = 18;
const ROW: i32 = 24;
const LEFT: i32 = 12;
const TOP: i32 = 2;
const BOTTOM: i32 = 8;

/// Each entry's place in a strip `width` px wide: `(x, row)`, and the number of rows.
pub fn layout(widths: &[i32], width: i32) -> (Vec<(i32, i32)>, i32) {
    let mut at = Vec::with_capacity(widths.len());
    let (mut x, mut row) = (LEFT, 0);
    for &w in widths {
        let entry = SAMPLE + w;
        if x > LEFT && x + entry > width - LEFT {
            x = LEFT;
            row += 1;
        }
        at.push((x, row));
        x += entry + SPACING;
    }
    let rows = if widths.is_empty() { 0 } else { row + 1 };
    (at, rows)
}

/// The strip's height for `rows` rows.
pub fn height(rows: i32) -> u32 {
    if rows == 0 {
        0
    } else {
        (TOP + rows * ROW + BOTTOM) as u32
    }
}

/// Each label's width in `font`, as plotters estimates it.
pub fn widths(labels: &[(&str, Sample)], font: &TextStyle) -> Vec<i32> {
    labels
        .iter()
        .map(|(l, _)| font.font.box_size(l).map_or(0, |s| s.0 as i32))
        .collect()
}

/// Draws the entries on `area` (the strip), placed by [`layout`].
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    labels: &[(&str, Sample)],
    at: &[(i32, i32)],
    font: &TextStyle,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let font = font.pos(Pos::new(HPos::Left, VPos::Center));
    for ((label, sample), &(x, row)) in labels.iter().zip(at) {
        let y = TOP + row * ROW + ROW / 2;
        match *sample {
            Sample::Line(c) => {
                area.draw(&PathElement::new(
                    vec![(x, y), (x + 18, y)],
                    c.stroke_width(3),
                ))?;
            }
            Sample::Ring(c) => area.draw(&Circle::new((x + 9, y), 6, c.stroke_width(3)))?,
        }
        area.draw(&Text::new(*label, (x + SAMPLE, y), font.clone()))?;
    }
    Ok(())
}
