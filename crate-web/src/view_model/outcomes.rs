//! Outcomes over time, per guarantee: three small line charts (inputs with visible output,
//! extra copies, inputs lost), one line per guarantee in its colour, over simulated time:
//! the runs take different numbers of steps for the same span (a transaction's markers and
//! commits are steps), so only time lines them up as the lanes above do.

use super::cost::GUARANTEES;
use crate::charts::{LineChart, Series};
use crate::i18n::{Lang, S};
use eos_core::outcomes::{OutcomeLane, OutcomePoint};

/// Samples per lane the page takes.
pub const SAMPLES: usize = 60;

fn chart(lanes: &[OutcomeLane], title: &str, lang: Lang, y: fn(&OutcomePoint) -> u64) -> LineChart {
    let (x_label, y_label) = (S::OutcomesX.get(lang), S::OutcomesY.get(lang));
    LineChart {
        title: title.to_string(),
        x_label: x_label.into(),
        y_label: y_label.into(),
        series: GUARANTEES
            .iter()
            .filter_map(|(g, colour)| {
                let lane = lanes.iter().find(|l| l.guarantee == *g)?;
                Some(Series {
                    label: (*g).to_string(),
                    colour,
                    points: lane
                        .points
                        .iter()
                        .map(|p| (p.time as f64 / 1_000.0, y(p) as f64))
                        .collect(),
                    marked: Vec::new(),
                })
            })
            .collect(),
        mark_label: None,
    }
}

/// (visible outputs, duplicates, losses).
pub fn charts(lanes: &[OutcomeLane], lang: Lang) -> [LineChart; 3] {
    let titles = [S::OutcomesVisible, S::OutcomesDuplicates, S::OutcomesLost].map(|s| s.get(lang));
    [
        chart(lanes, titles[0], lang, |p| p.visible),
        chart(lanes, titles[1], lang, |p| p.duplicates),
        chart(lanes, titles[2], lang, |p| p.lost),
    ]
}

/// Per guarantee, where its run ends: [guarantee, steps, visible, duplicates, lost].
pub fn final_rows(lanes: &[OutcomeLane]) -> Vec<[String; 5]> {
    lanes
        .iter()
        .filter_map(|l| {
            let p = l.points.last()?;
            Some([
                l.guarantee.clone(),
                p.step.to_string(),
                p.visible.to_string(),
                p.duplicates.to_string(),
                p.lost.to_string(),
            ])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use eos_core::builtin;
    use eos_core::outcomes::outcomes_over_time;

    #[test]
    fn three_charts_one_line_per_guarantee_ending_at_the_comparison() {
        let s = builtin::get("rpw-crash-at-least-once").expect("built-in");
        let lanes = outcomes_over_time(&s, None, SAMPLES).expect("lanes");
        let charts = charts(&lanes, Lang::En);
        for c in &charts {
            let colours: Vec<&str> = c.series.iter().map(|s| s.colour).collect();
            assert_eq!(colours, ["--g-amo", "--g-alo", "--g-eos"], "{}", c.title);
            assert!(c.series.iter().all(|s| s.points.len() == SAMPLES + 1));
            let svg = crate::charts::svg(c).expect("drawn");
            assert!(
                svg.contains("var(--g-alo)") && !svg.contains("<circle"),
                "lines, no dots"
            );
        }
        // Over time, ending where the run ends (its last step's time, as `eos-sim run`
        // reports it), not where a stale timer left the clock.
        let xs: Vec<f64> = charts[0].series[1].points.iter().map(|p| p.0).collect();
        assert!(xs.windows(2).all(|w| w[0] <= w[1]), "{xs:?}");
        let mut run = s.simulation_without_trace(None);
        run.run(eos_core::RunLimit::Completion);
        let end = eos_core::Report::of("rpw", &run).end_time_ms;
        assert_eq!(xs.last().copied(), Some(end as f64));
        let compared = eos_core::compare::compare(&s, None).expect("lanes");
        let rows = final_rows(&lanes);
        for (row, lane) in rows.iter().zip(&compared) {
            assert_eq!(row[0], lane.guarantee);
            assert_eq!(row[3], lane.duplicates.to_string());
            assert_eq!(row[4], lane.lost.to_string());
        }
        assert!(
            rows[1][3] != "0",
            "at-least-once duplicates after the crash: {rows:?}"
        );
    }
}
