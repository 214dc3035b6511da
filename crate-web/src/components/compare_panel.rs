use crate::i18n::{I18n, S};
use crate::view_model::CompareVm;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ComparePanelProps {
    pub compare: CompareVm,
}

/// The same scenario and faults under the three guarantees: per input record, how many
/// copies of its output a read_committed reader sees. 0 is a loss, 2 or more a duplicate.
#[function_component(ComparePanel)]
pub fn compare_panel(props: &ComparePanelProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let t = |s: S| i18n.t(s);
    let c = &props.compare;
    let cell = |n: u32| {
        let (class, text) = match n {
            0 => ("lost", t(S::Lost0).to_string()),
            1 => ("once", "1".to_string()),
            k => ("dup", i18n.f(S::DuplicateN, &[&k])),
        };
        html! { <td class={classes!("copies", class)}>{ text }</td> }
    };
    html! {
        <section class="card compare" aria-label={t(S::Compared)}>
            <h2>{ t(S::CompareHeading) }</h2>
            <p class="quiet">{ t(S::CompareNote) }</p>
            <table id="compare-table">
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
                            { for r.copies.iter().map(|n| cell(*n)) }
                        </tr>
                    }) }
                </tbody>
                <tfoot>
                    <tr>
                        <th scope="row">{ t(S::Totals) }</th>
                        { for c.totals.iter().map(|(processed, visible, dups, lost)| html! {
                            <td class="totals">{ i18n.f(S::TotalsLine, &[visible, dups, lost, processed]) }</td>
                        }) }
                    </tr>
                </tfoot>
            </table>
            if c.unlisted > 0 {
                <p class="quiet unlisted">{ i18n.f(S::UnlistedRecords, &[&c.unlisted, &crate::view_model::COMPARE_ROWS]) }</p>
            }
        </section>
    }
}
