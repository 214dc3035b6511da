use crate::i18n::{group, I18n, Lang, S};
use eos_core::scenario::builtin::BuiltinInfo;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    pub scenarios: Vec<BuiltinInfo>,
    pub current: String,
    /// An imported scenario on screen: the picker lists it, selected, above the built-ins.
    #[prop_or_default]
    pub imported: Option<BuiltinInfo>,
    /// A lesson's try-it run on screen: the built-in changed, so the picker and the summary
    /// say so rather than name the built-in as it is.
    #[prop_or_default]
    pub trying: bool,
    pub seed: u64,
    pub on_select: Callback<String>,
    /// A new seed for the same scenario and faults.
    pub on_seed: Callback<u64>,
    /// The read-process-write processors' guarantee; `None` when the scenario has none.
    pub guarantee: Option<String>,
    /// Whether the guarantee was picked here rather than written in the scenario.
    pub guarantee_picked: bool,
    pub on_guarantee: Callback<String>,
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
    // The arrows browse the pickers; Enter or a click loads (browse_select.rs).
    let scenario_pick = {
        let cb = props.on_select.clone();
        // The try-it's own entry (value "") is the run on screen already.
        let on_pick = Callback::from(move |name: String| {
            if !name.is_empty() {
                cb.emit(name);
            }
        });
        let shown = if props.trying && props.imported.is_none() {
            String::new()
        } else {
            props.current.clone()
        };
        super::browse_select::use_browse_select(on_pick, shown)
    };
    let guarantee_pick = super::browse_select::use_browse_select(
        props.on_guarantee.clone(),
        props.guarantee.clone().unwrap_or_default(),
    );
    let seed_error = use_state(|| None::<String>);
    {
        // Another scenario or seed on screen: an old complaint about a typed seed goes.
        let seed_error = seed_error.clone();
        use_effect_with((props.current.clone(), props.seed), move |_| {
            seed_error.set(None)
        });
    }
    let on_seed = {
        let (cb, error, lang) = (props.on_seed.clone(), seed_error.clone(), i18n.lang);
        Callback::from(move |e: Event| {
            if let Some(input) = e.target_dyn_into::<HtmlInputElement>() {
                match crate::view_model::parse_seed(&input.value(), lang) {
                    Ok(seed) => {
                        error.set(None);
                        cb.emit(seed);
                    }
                    Err(message) => error.set(Some(message)),
                }
            }
        })
    };
    let mut groups: Vec<&str> = Vec::new();
    for s in &props.scenarios {
        if !groups.contains(&s.group.as_str()) {
            groups.push(&s.group);
        }
    }
    // The current scenario's whole title heads its summary: the picker cuts a long one
    // (at 1280 px it holds about 40 characters).
    let (title, summary) = props
        .imported
        .iter()
        .chain(&props.scenarios)
        .find(|s| s.name == props.current)
        .map(|s| {
            let title = s.title_in(i18n.lang).trim();
            let title = if title.is_empty() {
                s.name.as_str()
            } else {
                title
            };
            (title.to_string(), s.summary_in(i18n.lang).to_string())
        })
        .unwrap_or_default();
    html! {
        <header class="header">
            <div class="brand">
                <span class="logo" aria-hidden="true">{"1×"}</span>
                <h1>{ i18n.t(S::Brand) }</h1>
            </div>
            <label class="picker">
                <span class="label">{ i18n.t(S::Scenario) }</span>
                <select id="scenario-picker" onchange={scenario_pick.onchange}
                    onkeydown={scenario_pick.onkeydown} onblur={scenario_pick.onblur}
                    onmousedown={scenario_pick.onmousedown} aria-label={i18n.t(S::Scenario)} title={title.clone()}>
                    if let Some(s) = &props.imported {
                        <optgroup label={i18n.t(S::YourScenario)}>
                            <option value={s.name.clone()} selected=true>
                                { if s.title_in(i18n.lang).trim().is_empty() { s.name.as_str() } else { s.title_in(i18n.lang) } }
                            </option>
                        </optgroup>
                    }
                    if props.trying && props.imported.is_none() {
                        <optgroup label={i18n.t(S::ChangedByLesson)}>
                            // Its own value: picking the built-in below loads it as it is.
                            <option value="" selected=true>{ i18n.f(S::TitleChanged, &[&title]) }</option>
                        </optgroup>
                    }
                    { for groups.iter().map(|g| html! {
                        <optgroup label={group(g, i18n.lang).to_string()}>
                            { for props.scenarios.iter().filter(|s| s.group == *g).map(|s| html! {
                                <option value={s.name.clone()} selected={props.imported.is_none() && !props.trying && s.name == props.current}>
                                    { s.title_in(i18n.lang) }
                                </option>
                            }) }
                        </optgroup>
                    }) }
                </select>
            </label>
            <label class="seed" title={i18n.t(S::SeedTip)}>
                <span class="label">{ i18n.t(S::Seed) }</span>
                <input id="seed" type="text" inputmode="numeric" autocomplete="off" spellcheck="false"
                    value={props.seed.to_string()} onchange={on_seed}
                    aria-invalid={seed_error.is_some().to_string()} aria-describedby="seed-error" />
            </label>
            if let Some(current) = &props.guarantee {
                <label class={classes!("guarantee-pick", current.clone())} title={i18n.t(S::GuaranteeTip)}>
                    <span class="label">{ i18n.t(S::Guarantee) }</span>
                    <select id="guarantee" onchange={guarantee_pick.onchange}
                        onkeydown={guarantee_pick.onkeydown} onblur={guarantee_pick.onblur}
                        onmousedown={guarantee_pick.onmousedown} aria-label={i18n.t(S::Guarantee)}>
                        { for eos_core::kafka::processor::Guarantee::ALL.iter().map(|g| html! {
                            <option value={g.name()} selected={g.name() == current.as_str()}>{ g.name() }</option>
                        }) }
                    </select>
                </label>
            }
            if let Some(message) = &*seed_error {
                <p id="seed-error" class="field-error seed-error" role="alert">{ message }</p>
            }
            <div class="langs" role="group" aria-label={i18n.t(S::Language)} title={i18n.t(S::NarrationNote)}>
                { lang_button(Lang::En, "EN", "lang-en") }
                { lang_button(Lang::Ru, "RU", "lang-ru") }
            </div>
            <div class="langs themes">
                <super::theme_button::ThemeButton />
            </div>
            <p class="summary">
                if props.trying {
                    // The built-in's summary describes the run before the lesson changed it.
                    <strong class="summary-title">{ i18n.f(S::TitleChanged, &[&title]) }</strong>
                    {". "}{ i18n.t(S::ChangedByLesson) }{"."}
                } else {
                    if !title.is_empty() {
                        <strong class="summary-title">{ title }</strong>{ if summary.is_empty() { "" } else { ". " } }
                    }
                    {summary}
                }
                if let (true, Some(g)) = (props.guarantee_picked, &props.guarantee) {
                    {" "}<em class="picked">{ i18n.f(S::GuaranteePicked, &[g]) }</em>
                }
            </p>
        </header>
    }
}
