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
/// The plot's height; the legend's strip under it adds a row (24 px) per line of entries.
pub const HEIGHT: u32 = 290;
/// Room above the highest point, as a factor on it: the top dot and ring stay inside.
const HEADROOM: f64 = 1.08;

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
    svg_in(chart, crate::i18n::Lang::En)
}

/// As `svg`, its axes' decimals written as `lang` writes them (`2.5` / `2,5`).
pub fn svg_in(chart: &LineChart, lang: crate::i18n::Lang) -> Result<String, String> {
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
    // Dots and rings at either end stay clear of the axis and its labels.
    let dotted = chart
        .series
        .iter()
        .any(|s| s.points.len() <= DOTS_UP_TO || !s.marked.is_empty());
    let pad = if dotted { (x_max - x_min) * 0.04 } else { 0.0 };
    let x_range = (x_min - pad)..(x_max + pad);
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
    let mut labels: Vec<(&str, legend::Sample)> = series
        .iter()
        .enumerate()
        .map(|(i, s)| (s.label.as_str(), legend::Sample::Line(placeholder(i))))
        .collect();
    if let (true, Some(label)) = (marks, &chart.mark_label) {
        labels.push((label, legend::Sample::Ring(MARK)));
    }
    let legend_font = ("sans-serif", 17).into_font().color(&INK);
    // The legend is a strip under the plot, so the axis stops just above the highest point.
    let (at, rows) = legend::layout(&legend::widths(&labels, &legend_font), WIDTH as i32);
    let y_top = y_top_at(HEADROOM);
    // Whole numbers once the axis runs past 10: "4000", not "4000.0" crowding its title.
    let whole = counts || y_top >= 10.0;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH, HEIGHT + legend::height(rows)))
            .into_drawing_area();
        let (plot, strip) = root.split_vertically(HEIGHT);
        let mut c = frame(&plot, &chart.title, x_range, y_top)?;
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
            .y_label_formatter(&|v| crate::i18n::decimal(*v, if whole { 0 } else { 1 }, lang))
            .draw()
            .map_err(e)?;
        for (i, (s, &width)) in series.iter().zip(&widths).enumerate() {
            let colour = placeholder(i);
            let dense = s.points.len() > DOTS_UP_TO;
            c.draw_series(LineSeries::new(
                s.points.iter().copied(),
                colour.stroke_width(width),
            ))
            .map_err(e)?;
            if !dense {
                let r = dot_radius(i, n);
                c.draw_series(s.points.iter().map(|&p| Circle::new(p, r, colour.filled())))
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
        legend::draw(&strip, &labels, &at, &legend_font).map_err(e)?;
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
        3 + 2 * (n - 1 - i) as u32
    }
}

/// A point's dot: the earlier series' a little larger, so that two series with equal values
/// (an aligned and an unaligned run that never had to wait) both show, one around the other.
fn dot_radius(i: usize, n: usize) -> u32 {
    4 + 2 * (n - 1 - i) as u32
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

    /// Two series with equal values (aligned and unaligned runs that never waited): the
    /// first is drawn wider, its dots larger, so it shows around the second.
    #[test]
    fn equal_series_both_show() {
        let same = [(1.0, 5.0), (2.0, 7.0)];
        let mut second = series("unaligned", &same);
        second.colour = "--g-alo";
        let svg = svg(&LineChart {
            series: vec![series("aligned", &same), second],
            mark_label: None,
            ..chart()
        })
        .expect("draws");
        let dots = |colour: &str, r: u32| {
            svg.split("<circle")
                .skip(1)
                .any(|c| c.contains(&format!("r=\"{r}\"")) && c.contains(&format!("var({colour})")))
        };
        assert!(dots("--g-eos", 6) && dots("--g-alo", 4), "{svg}");
    }

    #[test]
    fn a_russian_chart_writes_its_decimals_with_a_comma() {
        let mut small = chart();
        small.series.truncate(1);
        small.series[0].points = vec![(10.0, 0.5), (50.0, 2.5)];
        let en = svg(&small).expect("draws");
        let ru = svg_in(&small, crate::i18n::Lang::Ru).expect("draws");
        assert!(en.contains("\n1.0\n") && en.contains("\n2.0\n"), "{en}");
        assert!(ru.contains("\n1,0\n") && ru.contains("\n2,0\n"), "{ru}");
        assert!(!ru.contains("\n1.0\n"));
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
    fn the_legend_sits_under_the_plot_and_the_axis_stops_just_above_the_data() {
        let flat = LineChart {
            series: vec![
                series("exactly-once", &[(0.0, 100.0), (100.0, 100.0)]),
                series("at-least-once", &[(0.0, 95.0), (100.0, 95.0)]),
                series("at-most-once", &[(0.0, 90.0), (100.0, 90.0)]),
            ],
            mark_label: None,
            ..chart()
        };
        let drawn = svg(&flat).expect("draws");
        // No headroom for a legend: the highest tick is the data's own.
        assert!(drawn.contains(">\n100\n<"), "{drawn}");
        assert!(!drawn.contains(">\n120\n<"), "no legend headroom: {drawn}");
        // Every entry lies below the x axis's title, which lies below the plot.
        let (_, axis_title) = text_at(&drawn, "commit interval (ms)");
        for label in ["exactly-once", "at-least-once", "at-most-once"] {
            let (x, y) = text_at(&drawn, label);
            assert!(
                y > axis_title + 10.0,
                "{label} at {y}, axis title at {axis_title}"
            );
            assert!(x > 0.0 && x < f64::from(WIDTH), "{label} at x = {x}");
        }
        // The SVG is taller than the plot by the legend's rows.
        assert!(
            drawn.contains(&format!("height=\"{}\"", HEIGHT + 2 + 24 * 2 + 8))
                || drawn.contains(&format!("height=\"{}\"", HEIGHT + 2 + 24 + 8)),
            "{}",
            &drawn[..200]
        );
    }

    #[test]
    fn dots_at_the_ends_stay_clear_of_the_axis() {
        let svg = svg(&chart()).expect("draws");
        // Every circle's centre: the leftmost (a dot at the first x) sits a ring's radius
        // right of the y axis (the plot starts at the 12 px margin plus the 62 px label area).
        // (The legend's ring, under the plot, is not one.)
        let xs: Vec<f64> = svg
            .split("<circle cx=\"")
            .skip(1)
            .filter_map(|c| {
                let mut attrs = c.split('"');
                let x: f64 = attrs.next()?.parse().ok()?;
                let y: f64 = attrs.nth(1)?.parse().ok()?;
                (y < f64::from(HEIGHT)).then_some(x)
            })
            .collect();
        assert!(!xs.is_empty(), "{svg}");
        let left = xs.iter().copied().fold(f64::MAX, f64::min);
        assert!(left >= 74.0 + 10.0, "leftmost dot at {left}");
        assert!(
            xs.iter()
                .all(|x| *x <= f64::from(WIDTH) - 20.0 - 10.0 + 0.5),
            "{xs:?}"
        );
    }

    #[test]
    fn legend_entries_wrap_to_the_width() {
        let (at, rows) = legend::layout(&[100, 100, 100], 300);
        assert_eq!(rows, 2);
        assert_eq!(at[0].1, 0);
        assert_eq!(at[2], (12, 1), "the third starts a new row at the margin");
        // An entry wider than the strip still gets a row of its own, not an empty one.
        let (at, rows) = legend::layout(&[500, 20], 300);
        assert_eq!((at[0], at[1], rows), ((12, 0), (12, 1), 2));
        assert_eq!(legend::layout(&[], 300).1, 0);
        assert_eq!(legend::height(0), 0);
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
