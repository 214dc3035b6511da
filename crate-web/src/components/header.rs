use crate::i18n::{group, I18n, Lang, S};
use eos_core::scenario::builtin::BuiltinInfo;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    pub scenarios: Vec<BuiltinInfo>,
    pub current: String,
    pub seed: u64,
    pub on_select: Callback<String>,
}

/// Title, scenario picker (grouped by topic) and the run's seed.
#[function_component(Header)]
pub fn header(props: &HeaderProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let lang_button = |lang: Lang, label: &'static str, id: &'static str| {
        let set = i18n.set.clone();
        html! {
            <button id={id} class="lang" aria-pressed={(i18n.lang == lang).to_string()}
                onclick={Callback::from(move |_| set.emit(lang))}>{ label }</button>
        }
    };
    let on_change = {
        let cb = props.on_select.clone();
        Callback::from(move |e: Event| {
            if let Some(select) = e.target_dyn_into::<HtmlSelectElement>() {
                cb.emit(select.value());
            }
        })
    };
    let mut groups: Vec<&str> = Vec::new();
    for s in &props.scenarios {
        if !groups.contains(&s.group.as_str()) {
            groups.push(&s.group);
        }
    }
    let summary = props
        .scenarios
        .iter()
        .find(|s| s.name == props.current)
        .map(|s| s.summary_in(i18n.lang).to_string())
        .unwrap_or_default();
    html! {
        <header class="header">
            <div class="brand">
                <span class="logo" aria-hidden="true">{"1×"}</span>
                <h1>{ i18n.t(S::Brand) }</h1>
            </div>
            <label class="picker">
                <span class="label">{ i18n.t(S::Scenario) }</span>
                <select id="scenario-picker" onchange={on_change} aria-label={i18n.t(S::Scenario)}>
                    { for groups.iter().map(|g| html! {
                        <optgroup label={group(g, i18n.lang).to_string()}>
                            { for props.scenarios.iter().filter(|s| s.group == *g).map(|s| html! {
                                <option value={s.name.clone()} selected={s.name == props.current}>
                                    { s.title_in(i18n.lang) }
                                </option>
                            }) }
                        </optgroup>
                    }) }
                </select>
            </label>
            <span class="seed" title={i18n.t(S::SeedTip)}>
                {format!("{} {}", i18n.t(S::Seed), props.seed)}
            </span>
            <div class="langs" role="group" aria-label={i18n.t(S::Language)} title={i18n.t(S::NarrationNote)}>
                { lang_button(Lang::En, "EN", "lang-en") }
                { lang_button(Lang::Ru, "RU", "lang-ru") }
            </div>
            <p class="summary">{summary}</p>
        </header>
    }
}
