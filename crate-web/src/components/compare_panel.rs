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
    let c = &props.compare;
    let cell = |n: u32| {
        let (class, text) = match n {
            0 => ("lost", "0 · lost".to_string()),
            1 => ("once", "1".to_string()),
            k => ("dup", format!("{k} · duplicate")),
        };
        html! { <td class={classes!("copies", class)}>{ text }</td> }
    };
    html! {
        <section class="card compare" aria-label="The three guarantees compared">
            <h2>{"The same faults under the three guarantees"}</h2>
            <p class="quiet">{"Visible output copies per input record, read with read_committed after the run."}</p>
            <table id="compare-table">
                <thead>
                    <tr>
                        <th scope="col">{"input"}</th>
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
                        <th scope="row">{"totals"}</th>
                        { for c.totals.iter().map(|(processed, visible, dups, lost)| html! {
                            <td class="totals">{ format!("{visible} visible · {dups} dup · {lost} lost ({processed} processed)") }</td>
                        }) }
                    </tr>
                </tfoot>
            </table>
        </section>
    }
}
