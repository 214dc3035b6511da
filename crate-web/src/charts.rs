//! Line charts drawn with plotters into SVG text: pure, so they are tested natively and
//! exported as they are. Colours are the page's (CSS variables, one per guarantee), so a
//! chart follows the dark and light themes: plotters draws with placeholder colours, which
//! become `style="stroke: var(--…)"` afterwards.

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

mod legend;

/// One line: its label, its CSS colour variable, its points.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label: String,
    /// A CSS custom property, like `--g-eos`.
    pub colour: &'static str,
    pub points: Vec<(f64, f64)>,
    /// Points ringed in the duplicate colour (a sweep's runs that stored duplicates).
    pub marked: Vec<(f64, f64)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    /// The legend's words for a ringed point, when any is.
    pub mark_label: Option<String>,
}

/// Small, with large text: a chart is drawn scaled to its column (about 400 px at 1280 px
/// wide, 330 px on a phone), and its text must stay readable at projector distance
/// (plotters writes a font's size at 0.8 of what it is given: 18 is 14.5 px).
pub const WIDTH: u32 = 400;
/// Series with more points than this are drawn without a dot per point.
pub const DOTS_UP_TO: usize = 24;
pub const HEIGHT: u32 = 290;

/// Placeholder colours: the axes and labels, the rings of marked points, then one per
/// series (at most 8).
const INK: RGBColor = RGBColor(1, 2, 3);
const MARK: RGBColor = RGBColor(1, 2, 4);
fn placeholder(i: usize) -> RGBColor {
    RGBColor(1, 2, 10 + i as u8)
}
fn hex(c: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// The chart as SVG text.
pub fn svg(chart: &LineChart) -> Result<String, String> {
    let points = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().chain(&s.marked));
    let (mut x_max, mut y_max) = (0f64, 0f64);
    let mut x_min = f64::MAX;
    for &(x, y) in points {
        x_min = x_min.min(x);
        x_max = x_max.max(x);
        y_max = y_max.max(y);
    }
    if x_min > x_max {
        return Err("nothing to draw".into());
    }
    if x_max <= x_min {
        x_max = x_min + 1.0;
    }
    // Counts (every value whole) get whole ticks: "1, 2", not "0.5, 1.5" of a duplicate.
    let counts = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().chain(&s.marked))
        .all(|p| p.1.fract() == 0.0);
    let y_top_at = |headroom: f64| match (counts, y_max > 0.0) {
        (true, _) => (y_max * headroom).ceil().max(4.0),
        (false, true) => y_max * headroom,
        (false, false) => 1.0,
    };
    let series = &chart.series[..chart.series.len().min(8)];
    let n = series.len();
    let widths: Vec<u32> = (0..n).map(|i| line_width(&series[i], i, n)).collect();
    let marks = series.iter().any(|s| !s.marked.is_empty());
    let mut labels: Vec<&str> = series.iter().map(|s| s.label.as_str()).collect();
    if let (true, Some(label)) = (marks, &chart.mark_label) {
        labels.push(label);
    }
    let legend_font = ("sans-serif", 17).into_font().color(&INK);
    // The least headroom that leaves an upper corner free for the legend: a scratch frame
    // tells where every point lands.
    let mut placed = None;
    for headroom in legend::HEADROOMS {
        let y_top = y_top_at(headroom);
        let mut scratch = String::new();
        let root = SVGBackend::with_string(&mut scratch, (WIDTH, HEIGHT)).into_drawing_area();
        let c = frame(&root, &chart.title, x_min..x_max, y_top)?;
        if let Some(corner) =
            legend::Drawn::of(&c, series, &widths).free_corner(&labels, &legend_font)
        {
            placed = Some((y_top, corner));
            break;
        }
    }
    let (y_top, corner) = placed.unwrap_or((
        y_top_at(legend::HEADROOMS[legend::HEADROOMS.len() - 1]),
        SeriesLabelPosition::UpperLeft,
    ));
    // Whole numbers once the axis runs past 10: "4000", not "4000.0" crowding its title.
    let whole = counts || y_top >= 10.0;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH, HEIGHT)).into_drawing_area();
        let mut c = frame(&root, &chart.title, x_min..x_max, y_top)?;
        c.configure_mesh()
            .x_desc(&chart.x_label)
            .y_desc(&chart.y_label)
            .axis_style(INK)
            .light_line_style(INK.mix(0.08))
            .bold_line_style(INK.mix(0.16))
            .label_style(("sans-serif", 18).into_font().color(&INK))
            .axis_desc_style(("sans-serif", 17).into_font().color(&INK))
            .x_labels(5)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_labels(5)
            .y_label_formatter(&|v| {
                if whole {
                    format!("{v:.0}")
                } else {
                    format!("{v:.1}")
                }
            })
            .draw()
            .map_err(e)?;
        for (i, (s, &width)) in series.iter().zip(&widths).enumerate() {
            let colour = placeholder(i);
            let dense = s.points.len() > DOTS_UP_TO;
            c.draw_series(LineSeries::new(
                s.points.iter().copied(),
                colour.stroke_width(width),
            ))
            .map_err(e)?
            .label(&s.label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(3))
            });
            if !dense {
                c.draw_series(s.points.iter().map(|&p| Circle::new(p, 4, colour.filled())))
                    .map_err(e)?;
            }
            // A ring, with the series' own dot inside (a marked point need not be on its
            // line: an expired checkpoint has no duration to draw).
            c.draw_series(
                s.marked
                    .iter()
                    .map(|&p| Circle::new(p, 10, MARK.stroke_width(3))),
            )
            .map_err(e)?;
            // An inner ring in the series' colour says whose mark it is where points of
            // two series meet.
            c.draw_series(
                s.marked
                    .iter()
                    .map(|&p| Circle::new(p, 6, colour.stroke_width(2))),
            )
            .map_err(e)?;
            c.draw_series(s.marked.iter().map(|&p| Circle::new(p, 4, colour.filled())))
                .map_err(e)?;
        }
        if let (true, Some(label)) = (marks, &chart.mark_label) {
            c.draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
                .map_err(e)?
                .label(label)
                .legend(|(x, y)| Circle::new((x + 9, y), 6, MARK.stroke_width(3)));
        }
        c.configure_series_labels()
            .position(corner)
            .margin(legend::MARGIN)
            .legend_area_size(legend::SAMPLE)
            .background_style(INK.mix(0.0))
            .border_style(INK.mix(0.0))
            .label_font(legend_font)
            .draw()
            .map_err(e)?;
        root.present().map_err(e)?;
    }
    Ok(themed(&out, chart))
}

/// Named by kind, not formatted: the backend's error is an `io::Error`, whose `Display`
/// would ship every I/O error message in the page.
fn e<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> String {
    match e {
        DrawingAreaErrorKind::BackendError(_) => "the SVG backend failed",
        DrawingAreaErrorKind::SharingError => "the drawing area is in use",
        DrawingAreaErrorKind::LayoutError => "the chart has no room to draw in",
    }
    .to_string()
}

/// A long series (a run sampled over time) is a plain line, and the lines are layered,
/// wider first: where two runs agree, both still show (9, 6 and 3 px for three: a band of
/// the one below on each side of the one above, wide enough for a projector).
fn line_width(s: &Series, i: usize, n: usize) -> u32 {
    if s.points.len() > DOTS_UP_TO {
        3 + 3 * (n - 1 - i) as u32
    } else {
        3
    }
}

type Frame<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The title, the margins and the axes' ranges: everything that decides where a point lands.
fn frame<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    title: &str,
    x: std::ops::Range<f64>,
    y_top: f64,
) -> Result<Frame<'a, 'b>, String> {
    ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20).into_font().color(&INK))
        .margin(12)
        .margin_right(20)
        .x_label_area_size(46)
        .y_label_area_size(62)
        .build_cartesian_2d(x, 0f64..y_top)
        .map_err(e)
}

/// Placeholder colours → the page's CSS variables.
fn themed(svg: &str, chart: &LineChart) -> String {
    let mut out = svg.to_string();
    let mut swap = |hex: &str, var: &str| {
        for attr in ["stroke", "fill"] {
            out = out.replace(
                &format!("{attr}=\"{hex}\""),
                &format!("style=\"{attr}: var({var})\""),
            );
        }
    };
    swap(&hex(INK), "--muted");
    swap(&hex(MARK), "--dup");
    for (i, s) in chart.series.iter().enumerate().take(8) {
        swap(&hex(placeholder(i)), s.colour);
    }
    out.replacen("<svg ", "<svg class=\"chart\" role=\"img\" ", 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart() -> LineChart {
        LineChart {
            title: "Latency".into(),
            x_label: "commit interval (ms)".into(),
            y_label: "ms".into(),
            series: vec![
                Series {
                    label: "exactly-once".into(),
                    colour: "--g-eos",
                    points: vec![(10.0, 28.0), (50.0, 53.0), (200.0, 137.0)],
                    marked: Vec::new(),
                },
                Series {
                    label: "at-least-once".into(),
                    colour: "--g-alo",
                    points: vec![(10.0, 9.0), (50.0, 8.8), (200.0, 9.6)],
                    marked: vec![(50.0, 8.8)],
                },
            ],
            mark_label: Some("ringed: duplicates".into()),
        }
    }

    #[test]
    fn a_chart_is_svg_in_the_page_colours_with_its_labels() {
        let svg = svg(&chart()).expect("draws");
        assert!(svg.starts_with("<svg class=\"chart\""), "{}", &svg[..80]);
        for text in [
            "Latency",
            "commit interval (ms)",
            "exactly-once",
            "at-least-once",
        ] {
            assert!(svg.contains(text), "{text}");
        }
        assert!(svg.contains("var(--g-eos)") && svg.contains("var(--g-alo)"));
        assert!(svg.contains("var(--muted)"));
        // One ring, in the duplicate colour, and its legend (a ring too).
        assert_eq!(svg.matches("stroke: var(--dup)").count(), 2, "{svg}");
        assert!(svg.contains("ringed: duplicates"));
        assert!(!svg.contains("#01020"), "no placeholder colour left");
        assert!(svg.contains("<polyline") || svg.contains("<path"));
    }

    #[test]
    fn counts_get_whole_ticks() {
        let one_duplicate = LineChart {
            series: vec![Series {
                label: "duplicates".into(),
                colour: "--dup",
                points: vec![(0.0, 0.0), (10.0, 1.0), (20.0, 1.0)],
                marked: Vec::new(),
            }],
            mark_label: None,
            ..chart()
        };
        let svg = svg(&one_duplicate).expect("draws");
        assert!(
            !svg.contains(">\n0.5\n<") && !svg.contains(">\n1.5\n<"),
            "{svg}"
        );
        for tick in [">\n1\n<", ">\n2\n<", ">\n3\n<"] {
            assert!(svg.contains(tick), "{tick}: {svg}");
        }
    }

    /// Where the text `label` is drawn: its `x` and `y` attributes.
    fn text_at(svg: &str, label: &str) -> (f64, f64) {
        let end = svg
            .find(&format!(">\n{label}\n<"))
            .expect("the label is drawn");
        let start = svg[..end].rfind("<text").expect("in a text element");
        let attr = |name: &str| -> f64 {
            let tag = &svg[start..end];
            let at = tag.find(&format!(" {name}=\"")).expect("attribute") + name.len() + 3;
            tag[at..]
                .split('"')
                .next()
                .unwrap_or("")
                .parse()
                .expect("a number")
        };
        (attr("x"), attr("y"))
    }

    fn series(label: &str, points: &[(f64, f64)]) -> Series {
        Series {
            label: label.into(),
            colour: "--g-eos",
            points: points.to_vec(),
            marked: Vec::new(),
        }
    }

    #[test]
    fn the_legend_takes_a_free_upper_corner_and_only_the_headroom_it_needs() {
        let falling = |top: f64| LineChart {
            series: vec![
                series("exactly-once", &[(0.0, top), (50.0, 40.0), (100.0, 10.0)]),
                series("at-least-once", &[(0.0, top - 5.0), (100.0, 5.0)]),
            ],
            mark_label: None,
            ..chart()
        };
        // High on the left, low on the right: the legend goes right, and the data keep
        // nearly the whole height (the axis stops just above the highest point).
        let drawn = svg(&falling(100.0)).expect("draws");
        let (x, _) = text_at(&drawn, "exactly-once");
        assert!(x > f64::from(WIDTH) / 2.0, "legend on the right: x = {x}");
        assert!(!drawn.contains(">\n160\n<"), "no legend headroom: {drawn}");
        // High everywhere: no corner is free until the axis makes room above the lines.
        let flat = LineChart {
            series: vec![
                series("exactly-once", &[(0.0, 100.0), (100.0, 100.0)]),
                series("at-least-once", &[(0.0, 95.0), (100.0, 95.0)]),
            ],
            mark_label: None,
            ..chart()
        };
        let drawn = svg(&flat).expect("draws");
        let (_, legend_y) = text_at(&drawn, "at-least-once");
        // The line at 100 lies below the legend's last row.
        let (_, tick_100) = text_at(&drawn, "100");
        assert!(
            legend_y + 10.0 < tick_100,
            "legend {legend_y}, line at {tick_100}"
        );
    }

    #[test]
    fn nothing_to_draw_is_an_error_not_a_panic() {
        let empty = LineChart {
            series: vec![],
            ..chart()
        };
        assert!(svg(&empty).is_err());
        let one_point = LineChart {
            series: vec![Series {
                label: "x".into(),
                colour: "--g-eos",
                points: vec![(5.0, 0.0)],
                marked: Vec::new(),
            }],
            ..chart()
        };
        assert!(svg(&one_point).is_ok());
    }
}
