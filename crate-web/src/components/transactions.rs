use crate::i18n::{I18n, S};
use crate::view_model::TxnVm;
use yew::prelude::*;

/// Kafka's `TransactionState`s, in the order a transaction meets them (PrepareEpochFence:
/// an Ongoing transaction whose producer's epoch is being fenced, before it aborts).
const STATES: [&str; 8] = [
    "Empty",
    "Ongoing",
    "PrepareEpochFence",
    "PrepareCommit",
    "PrepareAbort",
    "CompleteCommit",
    "CompleteAbort",
    "Dead",
];

#[derive(Properties, PartialEq)]
pub struct TransactionsProps {
    pub transactions: Vec<TxnVm>,
}

/// The transaction coordinator's view: each transactional id with its state machine, the
/// current state lit.
#[function_component(Transactions)]
pub fn transactions(props: &TransactionsProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let spot = crate::spot::use_spot();
    if props.transactions.is_empty() {
        return html! {};
    }
    html! {
        <section class={classes!("card", "coordinator", spot.class("coordinator"))} data-spot="coordinator" aria-label={i18n.t(S::TxnCoordinator)}>
            <h2>{ i18n.t(S::TxnCoordinator) }</h2>
            { for props.transactions.iter().map(|t| html! {
                <div class="txn">
                    <div class="txn-id">{ &t.id }</div>
                    <ol class="states">
                        { for STATES.iter().map(|s| html! {
                            <li class={classes!("state", (*s == t.state).then_some("lit"), s.to_lowercase())}
                                aria-current={(*s == t.state).then_some("step")}>{ *s }</li>
                        }) }
                    </ol>
                    <div class="settings">{ &t.detail }</div>
                    if let Some(clock) = &t.clock {
                        <div class="settings txn-clock">{ clock }</div>
                    }
                </div>
            }) }
        </section>
    }
}
