//! The partition logs as an SVG picture, for export (the space-time diagram is already an
//! SVG on the page). Pure: the same cells the page shows, drawn as rows of boxes; colours
//! come from classes that `share.js` turns into inline styles with the page's theme.

use crate::i18n::{Lang, S};
use crate::view_model::PartitionVm;
use std::fmt::Write as _;

const CELL_W: u32 = 86;
const CELL_H: u32 = 44;
const GAP: u32 = 6;
const LABEL_W: u32 = 220;
const ROW_H: u32 = CELL_H + 30;
const PAD: u32 = 14;
/// Cells drawn per partition; a longer log ends with "+N more".
pub const MAX_CELLS: usize = 16;

pub fn logs_svg(partitions: &[PartitionVm], lang: Lang) -> String {
    let widest = partitions
        .iter()
        .map(|p| p.cells.len().min(MAX_CELLS + 1))
        .max()
        .unwrap_or(0)
        .max(1) as u32;
    let width = PAD * 2 + LABEL_W + widest * (CELL_W + GAP);
    let height = PAD * 2 + (partitions.len().max(1) as u32) * ROW_H;
    let mut out = format!(
        r#"<svg class="export-logs" viewBox="0 0 {width} {height}" width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">"#
    );
    let _ = write!(
        out,
        r#"<rect class="x-bg" x="0" y="0" width="{width}" height="{height}"/>"#
    );
    for (row, p) in partitions.iter().enumerate() {
        let y = PAD + row as u32 * ROW_H;
        let _ = write!(
            out,
            r#"<text class="x-title" x="{PAD}" y="{}">{}</text><text class="x-meta" x="{PAD}" y="{}">{} · HW {}</text>"#,
            y + 20,
            escape(&p.title),
            y + 38,
            escape(&p.role),
            p.high_watermark
        );
        if p.cells.is_empty() {
            let _ = write!(
                out,
                r#"<text class="x-meta" x="{}" y="{}">{}</text>"#,
                PAD + LABEL_W,
                y + 28,
                S::Empty.get(lang)
            );
        }
        for (i, c) in p.cells.iter().take(MAX_CELLS).enumerate() {
            let x = PAD + LABEL_W + i as u32 * (CELL_W + GAP);
            let classes: String = c
                .classes
                .split_whitespace()
                .map(|k| format!(" x-{k}"))
                .collect();
            let label = if c.value.is_empty() { &c.key } else { &c.value };
            let _ = write!(
                out,
                r#"<g class="x-cell{classes}"><title>{}</title><rect x="{x}" y="{}" width="{CELL_W}" height="{CELL_H}" rx="6"/><text class="x-offset" x="{}" y="{}">{}</text><text class="x-value" x="{}" y="{}">{}</text></g>"#,
                escape(&c.title(lang)),
                y + 4,
                x + 6,
                y + 18,
                c.offset,
                x + 6,
                y + 38,
                escape(&shorten(label, 10)),
            );
        }
        if p.cells.len() > MAX_CELLS {
            let x = PAD + LABEL_W + MAX_CELLS as u32 * (CELL_W + GAP);
            let _ = write!(
                out,
                r#"<text class="x-meta" x="{}" y="{}">{}</text>"#,
                x + 4,
                y + 30,
                S::MoreN.f(lang, &[&(p.cells.len() - MAX_CELLS)])
            );
        }
    }
    out.push_str("</svg>");
    out
}

fn shorten(text: &str, chars: usize) -> String {
    let mut out: String = text.chars().take(chars).collect();
    if text.chars().count() > chars {
        out.push('…');
    }
    out
}

/// Text and attribute values for XML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use eos_core::RunLimit;

    #[test]
    fn the_logs_picture_has_a_box_per_record_and_escapes_text() {
        let scenario = crate::builtins::get("lost-ack-idempotence-off").expect("built-in");
        let mut sim = scenario.simulation(None);
        sim.run(RunLimit::Completion);
        let partitions = crate::view_model::partitions(&sim, Lang::En);
        let svg = logs_svg(&partitions, Lang::En);
        let cells: usize = partitions
            .iter()
            .map(|p| p.cells.len().min(MAX_CELLS))
            .sum();
        assert!(cells > 0);
        assert_eq!(svg.matches("<g class=\"x-cell").count(), cells);
        assert!(svg.contains("x-dup"), "the duplicate is marked");
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
        assert!(logs_svg(&[], Lang::En).contains("viewBox"));
    }
}
