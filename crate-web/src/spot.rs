//! The lesson spotlight: the stage element a lesson step points at, by its `data-spot` name.
//! Lesson mode says which name is lit; the stage's components read it from context and
//! render the `spotlight` class themselves, so a redraw (a card keyed anew, a scenario
//! loaded after the step) never loses it.

use std::rc::Rc;
use yew::prelude::*;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Spot(pub Option<Rc<str>>);

impl Spot {
    /// `spotlight` when one of `names` (the element's `data-spot`, names apart by spaces)
    /// is the one lit.
    pub fn class(&self, names: &str) -> Option<&'static str> {
        let lit = self.0.as_deref()?;
        names.split(' ').any(|n| n == lit).then_some("spotlight")
    }
}

/// The spot lesson mode lights (none outside a lesson).
#[hook]
pub fn use_spot() -> Spot {
    use_context::<Spot>().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spot_lights_the_element_with_its_name_among_its_names() {
        let spot = Spot(Some("orders-0".into()));
        assert_eq!(spot.class("orders-0 broker-0"), Some("spotlight"));
        assert_eq!(spot.class("orders-01 broker-0"), None);
        assert_eq!(
            Spot(Some("broker-0".into())).class("orders-0 broker-0"),
            Some("spotlight")
        );
        assert_eq!(Spot::default().class("orders-0"), None);
    }
}
