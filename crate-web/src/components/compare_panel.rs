use crate::i18n::{I18n, S};
use crate::view_model::inspector::Selection;
use crate::view_model::CompareVm;
use eos_core::kafka::processor::Guarantee;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ComparePanelProps {
    pub compare: CompareVm,
    /// What the inspector shows: a cell is lit when it is open there.
    pub selected: Option<Selection>,
    /// A click on a cell: that input in that lane's whole run (`Selection::LaneInput`).
    pub on_select: Callback<Selection>,
}

/// The same scenario and faults under the three guarantees: per input record, how many
/// copies of its output a read_committed reader sees. 0 is a loss, 2 or more a duplicate.
/// Each count opens in the inspector: where the copies are, and what caused a loss.
#[function_component(ComparePanel)]
pub fn compare_panel(props: &ComparePanelProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let t = |s: S| i18n.t(s);
    let c = &props.compare;
    // One tab stop per lane's column (rove.rs), all three on one row, so that Tab goes
    // from column to column and then out of the table: the row of the cell last focused,
    // else the one open in the inspector, else the first. ↑/↓ move in a column. Keys are
    // "lane:input".
    let rove = super::rove::use_rove();
    let listed = |id: u32| c.rows.iter().any(|r| r.id == id);
    let chosen = match props.selected {
        Some(Selection::LaneInput { input, .. }) => Some(input),
        _ => None,
    };
    let row = rove
        .last()
        .and_then(|k| k.split_once(':'))
        .and_then(|(_, id)| id.parse::<u32>().ok())
        .filter(|id| listed(*id))
        .or(chosen.filter(|id| listed(*id)))
        .or(c.rows.first().map(|r| r.id));
    let cell = |input: &str, id: u32, lane: &'static str, n: u32, unread: bool| {
        let (class, text) = match n {
            // Arrived after the processor stopped: no output, but nothing skipped it.
            0 if unread => ("unread", t(S::Unread0).to_string()),
            0 => ("lost", t(S::Lost0).to_string()),
            1 => ("once", "1".to_string()),
            k => ("dup", i18n.f(S::DuplicateN, &[&k])),
        };
        let Some(guarantee) = Guarantee::parse(lane) else {
            return html! { <td class={classes!("copies", class)}>{ text }</td> };
        };
        let sel = Selection::LaneInput {
            guarantee,
            input: id,
        };
        let lit = props.selected == Some(sel);
        let key = format!("{lane}:{id}");
        let is_stop = row == Some(id);
        let onclick = props.on_select.reform(move |_: MouseEvent| sel);
        let tip = i18n.f(S::CompareCellTip, &[&input, &lane, &text]);
        html! {
            <td class={classes!("copies", class, lit.then_some("selected"))}>
                // Named in full (input, lane, copies), not by its digit alone.
                <button class="cell-open" aria-pressed={lit.to_string()} {onclick}
                    tabindex={super::rove::tabindex(is_stop)} data-rove={key}
                    aria-label={tip.clone()} title={tip}>{ text.clone() }</button>
            </td>
        }
    };
    html! {
        <section class="card compare" aria-label={t(S::Compared)} data-veil={t(S::Veiled)}>
            <h2>{ t(S::CompareHeading) }</h2>
            <p class="quiet">{ t(S::CompareNote) }</p>
            if !c.stages.is_empty() {
                <p class="quiet stages">{ i18n.f(S::CompareStages, &[&c.stages]) }</p>
            }
            <table id="compare-table" data-roves="" ref={rove.container.clone()} onfocusin={rove.onfocusin.clone()} onkeydown={rove.onkeydown.clone()}>
                <thead>
                    <tr>
                        <th scope="col">{ t(S::Input) }</th>
                        { for c.lanes.iter().map(|l| html! { <th scope="col" class={classes!("lane", *l)}>{ *l }</th> }) }
                    </tr>
                </thead>
                <tbody>
                    { for c.rows.iter().map(|r| html! {
                        <tr>
                            <th scope="row">{ &r.input }</th>
                            { for r.copies.iter().zip(&r.unread).zip(&c.lanes).map(|((n, unread), lane)| cell(&r.input, r.id, lane, *n, *unread)) }
                        </tr>
                    }) }
                </tbody>
                <tfoot>
                    <tr>
                        <th scope="row">{ t(S::Totals) }</th>
                        { for c.totals.iter().map(|(processed, visible, dups, lost, unread)| html! {
                            <td class="totals">
                                { i18n.f(S::TotalsLine, &[visible, dups, lost, processed]) }
                                if *unread > 0 { { " · " }{ i18n.f(S::UnreadN, &[unread]) } }
                            </td>
                        }) }
                    </tr>
                </tfoot>
            </table>
            if c.unlisted > 0 {
                <p class="quiet unlisted">{ i18n.f(S::UnlistedRecords, &[&c.unlisted, &crate::view_model::COMPARE_ROWS]) }</p>
            }
            if !c.offline.is_empty() {
                <p class="quiet offline" id="compare-offline">{ i18n.f(S::CompareOffline, &[&c.offline]) }</p>
            }
        </section>
    }
}
