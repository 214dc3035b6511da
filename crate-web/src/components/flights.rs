use crate::view_model::FlightVm;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FlightsProps {
    pub flights: Vec<FlightVm>,
}

/// Messages on the wire right now.
#[function_component(Flights)]
pub fn flights(props: &FlightsProps) -> Html {
    html! {
        <section class="flights" aria-label="On the wire">
            <h2>{"On the wire"}</h2>
            if props.flights.is_empty() {
                <p class="quiet">{"nothing in flight"}</p>
            } else {
                <ul>
                    { for props.flights.iter().map(|f| html! {
                        <li key={f.id}>
                            <span class="route">{ &f.route }</span>
                            <span class="label">{ &f.label }</span>
                            <span class="eta">{ &f.arrives }</span>
                        </li>
                    }) }
                </ul>
            }
        </section>
    }
}
