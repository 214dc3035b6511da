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
                    // A TOML error: its message, the line it points at, aligned, and what is
                    // wrong (with the allowed names, often the fix), wrapped to the width.
                    if let Some((head, rest)) = p.split_once('\n') {
                        let (excerpt, why): (Vec<&str>, Vec<&str>) = rest.lines().partition(|l| is_excerpt(l));
                        return html! { <li>{ head }
                            if !excerpt.is_empty() { <pre class="excerpt">{ excerpt.join("\n") }</pre> }
                            { for why.iter().map(|l| html! { <p class="why">{ *l }</p> }) }
                        </li> };
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

/// A line of a TOML error's excerpt: `  |`, `12 | scenario = …` or the carets under it.
fn is_excerpt(line: &str) -> bool {
    line.trim_start()
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start()
        .starts_with('|')
}

#[cfg(test)]
mod tests {
    use super::is_excerpt;

    #[test]
    fn a_toml_errors_excerpt_is_told_from_its_message() {
        let message = "   |\n12 | scenario = \"x\"\n   | ^^^^^^^^\nunknown field `scenario`, expected `en` or `ru`\nhint: write it above";
        let excerpt: Vec<&str> = message.lines().filter(|l| is_excerpt(l)).collect();
        assert_eq!(excerpt, ["   |", "12 | scenario = \"x\"", "   | ^^^^^^^^"]);
    }
}
