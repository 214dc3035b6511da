//! The cost chart's view: the sweep's points (`eos_core::cost`) as two line charts, one
//! line per guarantee in the guarantee's colour, and the rows of the table under them.

use crate::charts::{LineChart, Series};
use crate::i18n::{Lang, S};
use eos_core::cost::CostPoint;

/// The guarantees in the order and colours the page uses everywhere.
pub const GUARANTEES: [(&str, &str); 3] = [
    ("at-most-once", "--g-amo"),
    ("at-least-once", "--g-alo"),
    ("exactly-once", "--g-eos"),
];

fn series(points: &[CostPoint], y: impl Fn(&CostPoint) -> f64) -> Vec<Series> {
    GUARANTEES
        .iter()
        .map(|(g, colour)| Series {
            label: (*g).to_string(),
            colour,
            points: points
                .iter()
                .filter(|p| p.guarantee == *g)
                .map(|p| (p.commit_interval_ms as f64, y(p)))
                .collect(),
            // The runs that stored duplicates or lost records: a cheaper point that is
            // wrong is not a saving.
            marked: points
                .iter()
                .filter(|p| p.guarantee == *g && (p.duplicates > 0 || p.lost > 0))
                .map(|p| (p.commit_interval_ms as f64, y(p)))
                .collect(),
        })
        .filter(|s| !s.points.is_empty())
        .collect()
}

/// (latency chart, messages chart).
pub fn charts(points: &[CostPoint], lang: Lang) -> (LineChart, LineChart) {
    let [latency, messages, x, ms, per, ringed] = [
        S::CostLatency,
        S::CostMessages,
        S::CostX,
        S::Ms,
        S::CostPer,
        S::CostRinged,
    ]
    .map(|s| s.get(lang));
    (
        LineChart {
            title: latency.into(),
            x_label: x.into(),
            y_label: ms.into(),
            series: series(points, |p| p.mean_latency_us as f64 / 1000.0),
            mark_label: Some(ringed.into()),
        },
        LineChart {
            title: messages.into(),
            x_label: x.into(),
            y_label: per.into(),
            series: series(points, |p| p.messages_per_record_milli as f64 / 1000.0),
            mark_label: Some(ringed.into()),
        },
    )
}

/// One table row: guarantee, interval, mean and p95 latency, messages per record,
/// duplicates, losses (the ringed points' reason).
pub fn rows(points: &[CostPoint], lang: Lang) -> Vec<[String; 7]> {
    let decimal = |milli: u64, places| crate::i18n::decimal(milli as f64 / 1000.0, places, lang);
    points
        .iter()
        .map(|p| {
            [
                p.guarantee.clone(),
                p.commit_interval_ms.to_string(),
                decimal(p.mean_latency_us, 1),
                decimal(p.p95_latency_us, 1),
                decimal(p.messages_per_record_milli, 2),
                p.duplicates.to_string(),
                p.lost.to_string(),
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cost_of_rpw_cost_draws_three_lines_per_chart_in_the_guarantee_colours() {
        let scenario = crate::builtins::get("rpw-cost").expect("built-in");
        let points =
            eos_core::cost::sweep_commit_interval(&scenario, &[10, 100], None).expect("sweeps");
        let (latency, messages) = charts(&points, Lang::En);
        assert_eq!(latency.series.len(), 3);
        assert_eq!(messages.series.len(), 3);
        let eos = &latency.series[2];
        assert_eq!(
            (eos.label.as_str(), eos.colour),
            ("exactly-once", "--g-eos")
        );
        assert_eq!(eos.points.len(), 2);
        assert!(eos.points[1].1 > eos.points[0].1, "latency grows: {eos:?}");
        let en_rows = rows(&points, Lang::En);
        assert_eq!(en_rows.len(), 6);
        assert!(en_rows[0][2].contains('.'), "{:?}", en_rows[0]);
        let ru_rows = rows(&points, Lang::Ru);
        assert_eq!(ru_rows[0][2], en_rows[0][2].replace('.', ","));
        assert!(ru_rows[0][4].contains(','), "{:?}", ru_rows[0]);
        let (ru, _) = charts(&points, Lang::Ru);
        assert_ne!(ru.title, latency.title);
        let svg = crate::charts::svg(&latency).expect("draws");
        assert!(svg.contains("var(--g-eos)"));
        // No run of this sweep duplicates or loses: nothing ringed, no legend for rings.
        assert!(latency.series.iter().all(|s| s.marked.is_empty()));
        assert!(!svg.contains("var(--dup)"));
    }

    #[test]
    fn runs_that_duplicate_or_lose_are_ringed() {
        // rpw-crash-at-least-once: at-most-once loses one record at every interval;
        // at-least-once duplicates at 10 ms; exactly-once does neither.
        let scenario = crate::builtins::get("rpw-crash-at-least-once").expect("built-in");
        let points = eos_core::cost::sweep_commit_interval(&scenario, &[10], None).expect("sweeps");
        let (latency, _) = charts(&points, Lang::En);
        let marked: Vec<usize> = latency.series.iter().map(|s| s.marked.len()).collect();
        assert_eq!(marked, [1, 1, 0]);
        let svg = crate::charts::svg(&latency).expect("draws");
        assert!(svg.contains("ringed: duplicates or losses"));
    }
}
