//! Why an imported file was refused: one line per problem, the field first. The page keeps
//! what it showed.

use crate::i18n::{Lang, S};
use yew::prelude::*;

pub struct ImportErrorsProps {
    pub lang: Lang,
    pub file: String,
    pub problems: Vec<String>,
    pub on_close: Callback<()>,
}

/// A plain function rather than a component: it has no state of its own, and each
/// component costs the page generic code.
pub fn import_errors(props: &ImportErrorsProps) -> Html {
    let on_close = props.on_close.clone();
    html! {
        <section id="import-errors" class="error import-errors" role="alert">
            <div class="import-errors-head">
                <strong>{ S::NotImported.f(props.lang, &[&props.file]) }</strong>
                <button class="ctl" id="import-errors-close" onclick={Callback::from(move |_| on_close.emit(()))}>{ S::Dismiss.get(props.lang) }</button>
            </div>
            <ul>
                { for props.problems.iter().map(|p| {
                    // A TOML error: its message, then the line it points at, aligned.
                    if let Some((head, excerpt)) = p.split_once('\n') {
                        return html! { <li>{ head }<pre class="excerpt">{ excerpt }</pre></li> };
                    }
                    match p.split_once(": ").filter(|(field, _)| !field.contains(' ')) {
                        Some((field, message)) => html! { <li><code class="field">{ field }</code>{": "}{ message }</li> },
                        None => html! { <li>{ p }</li> },
                    }
                }) }
            </ul>
        </section>
    }
}
