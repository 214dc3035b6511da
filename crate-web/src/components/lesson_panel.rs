use crate::i18n::{I18n, S};
use crate::markdown;
use crate::view_model::lesson::{StepVm, Verdict};
use eos_core::lesson::Answer;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// A step text longer than this (in characters) is taller than its question and answer.
const LONG_TEXT: usize = 300;

#[derive(Properties, PartialEq)]
pub struct LessonPanelProps {
    pub vm: StepVm,
    pub choice: Option<Answer>,
    pub on_prev: Callback<()>,
    pub on_next: Callback<()>,
    pub on_choose: Callback<Option<Answer>>,
    /// Answers: with the answer given (Enter on a choice), or with the one chosen (`None`).
    pub on_reveal: Callback<Option<Answer>>,
    /// At the last step, with a lesson after this one: Next opens it.
    #[prop_or_default]
    pub next_lesson: bool,
    /// The step lights an element of the page: a link under the text scrolls to it.
    #[prop_or_default]
    pub spotlight: bool,
    pub on_show: Callback<()>,
    pub on_try_again: Callback<()>,
    pub on_try_it: Callback<usize>,
}

/// The open lesson: title, the narration step (Markdown), its question and try-it prompts,
/// and previous/next.
#[function_component(LessonPanel)]
pub fn lesson_panel(props: &LessonPanelProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let vm = &props.vm;
    // The chart's scenario, decoded once per scenario named (the chart compares it by
    // pointer).
    let chart_scenario = use_memo(vm.chart.as_ref().map(|c| c.scenario.clone()), |name| {
        name.as_deref()
            .and_then(|n| crate::builtins::get(n).ok())
            .map(|s| crate::components::SharedScenario(std::rc::Rc::new(s)))
    });
    let emit = |cb: &Callback<()>| {
        let cb = cb.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let question = vm.question.as_ref().map(|q| {
        let answer_input = if q.choices.is_empty() {
            let cb = props.on_choose.clone();
            // Enter answers, as in any form: the number typed is the prediction.
            let on_enter = {
                let reveal = props.on_reveal.clone();
                Callback::from(move |e: KeyboardEvent| {
                    if e.key() != "Enter" {
                        return;
                    }
                    e.prevent_default();
                    let typed = e
                        .target_dyn_into::<HtmlInputElement>()
                        .and_then(|i| crate::lesson_state::parse_number(&i.value()));
                    if let Some(n) = typed {
                        reveal.emit(Some(Answer::Number(n)));
                    }
                })
            };
            let value = match props.choice {
                Some(Answer::Number(n)) => n.to_string(),
                _ => String::new(),
            };
            html! {
                <label class="number-answer">
                    <span class="label">{ i18n.t(S::YourAnswer) }</span>
                    <input id="answer-number" type="number" inputmode="numeric" value={value}
                        disabled={!q.asking} onkeydown={on_enter}
                        oninput={Callback::from(move |e: InputEvent| {
                            if let Some(i) = e.target_dyn_into::<HtmlInputElement>() {
                                let n = crate::lesson_state::parse_number(&i.value());
                                cb.emit(n.map(Answer::Number));
                            }
                        })} />
                </label>
            }
        } else {
            // Short choices ("1", "2", "3") go side by side: a row, not a column of rows,
            // keeps the stage in view below the lesson at 720 px.
            let short = q.choices.iter().all(|c| c.chars().count() <= 16);
            html! {
                <fieldset class={classes!("choices", short.then_some("short"))}>
                    <legend class="visually-hidden">{ i18n.t(S::YourAnswer) }</legend>
                    { for q.choices.iter().enumerate().map(|(k, label)| {
                        let k32 = u32::try_from(k).unwrap_or(u32::MAX);
                        let cb = props.on_choose.clone();
                        let checked = props.choice == Some(Answer::Choice(k32));
                        let right = q.feedback.as_ref().and_then(|f| f.right) == Some(k32);
                        // Enter answers with the choice in focus, as it does in the number field.
                        let on_enter = {
                            let reveal = props.on_reveal.clone();
                            Callback::from(move |e: KeyboardEvent| {
                                if e.key() == "Enter" {
                                    e.prevent_default();
                                    reveal.emit(Some(Answer::Choice(k32)));
                                }
                            })
                        };
                        html! {
                            <label class={classes!("choice", checked.then_some("checked"), right.then_some("right"))}>
                                <input type="radio" name="choice" id={format!("choice-{k}")} value={k.to_string()} checked={checked}
                                    disabled={!q.asking} onkeydown={on_enter}
                                    onchange={Callback::from(move |_| cb.emit(Some(Answer::Choice(k32))))} />
                                <span>{ markdown::inline_text(label) }</span>
                            </label>
                        }
                    }) }
                </fieldset>
            }
        };
        // The answer goes under the step's text, beside the question: the left column has
        // the room, and at 720 px the stage stays in view below the lesson.
        let feedback = q.feedback.as_ref().map(|f| html! {
                <div id="feedback" role="status" tabindex="-1" class={classes!("feedback", match f.verdict {
                    Verdict::Correct => "correct",
                    Verdict::Incorrect => "incorrect",
                    Verdict::Shown => "shown",
                })}>
                    // "The answer. The right answer: …" would say it twice.
                    if f.verdict != Verdict::Shown || f.right.is_none() {
                        <strong class="verdict">{ match f.verdict {
                            Verdict::Correct => i18n.t(S::Correct),
                            Verdict::Incorrect => i18n.t(S::Incorrect),
                            Verdict::Shown => i18n.t(S::Revealed),
                        } }</strong>{" "}
                    }
                    <span class="actual">{ markdown::inline_text(&f.actual) }</span>
                    if let Some(e) = &f.explanation {
                        <div class="explanation">{ markdown::render(e) }</div>
                    }
                    // Another go makes sense only after a wrong answer.
                    if f.verdict == Verdict::Incorrect {
                        <button id="try-again" onclick={emit(&props.on_try_again)}>{ i18n.t(S::TryAgain) }</button>
                    }
                </div>
        });
        (html! {
            <section id="question" class={classes!("question", q.asking.then_some("asking"))}>
                <h3>{ i18n.t(S::Predict) }</h3>
                <div class="prompt">{ markdown::render(&q.prompt) }</div>
                // An empty number field has nothing to say once the answer is shown.
                if q.asking || !q.choices.is_empty() || props.choice.is_some() {
                    { answer_input }
                }
                if q.asking {
                    <div class="question-actions">
                        <button id="reveal" class="primary" disabled={props.choice.is_none()}
                            onclick={{
                                let reveal = props.on_reveal.clone();
                                Callback::from(move |_: MouseEvent| reveal.emit(None))
                            }}>{ i18n.t(S::Reveal) }</button>
                        <button id="show-answer" onclick={emit(&props.on_show)} title={format!("{} (PageDown)", i18n.t(S::ShowAnswer))}>{ i18n.t(S::ShowAnswer) }</button>
                    </div>
                }
            </section>
        }, feedback)
    });
    let answered = question.as_ref().is_some_and(|(_, f)| f.is_some());
    let try_its = (!vm.try_its.is_empty()).then(|| html! {
        <div class="try-its">
            <h3>{ i18n.t(S::TryIt) }</h3>
            { for vm.try_its.iter().enumerate().map(|(k, text)| {
                let cb = props.on_try_it.clone();
                html! {
                    <div class="try-it">
                        <div class="try-text" id={format!("try-text-{k}")}>{ markdown::render(text) }</div>
                        // Several try-its: each button says which change it makes.
                        <button id={format!("try-it-{k}")} onclick={Callback::from(move |_| cb.emit(k))}
                            aria-describedby={format!("try-text-{k}")}>
                            { i18n.t(S::TryIt) }{" ▶"}
                        </button>
                    </div>
                }
            }) }
        </div>
    });
    // An answered question's try-its go under it, beside the answer (which is under the
    // text): at 720 px the stage stays in view, not pushed down by a full-width row.
    let (side_try_its, foot_try_its) = if answered {
        (try_its, None)
    } else {
        (None, try_its)
    };
    // Beside a long text with nothing under its question, the answer goes under the
    // question: under the text it made the panel taller still, with the stage pushed off a
    // 720 px screen and room left empty beside it.
    let aside = answered && side_try_its.is_none() && vm.text.chars().count() > LONG_TEXT;
    html! {
        <section id="lesson-panel" class="lesson-panel" aria-label={i18n.t(S::Lesson)}>
            <div class="lesson-head">
                <h2 id="lesson-title" tabindex="-1">{ &vm.title }</h2>
                <span id="lesson-step" class="lesson-step">{ &vm.position }</span>
                <nav class="lesson-steps" aria-label={i18n.t(S::Lesson)}>
                    <button id="lesson-prev" disabled={!vm.can_prev} onclick={emit(&props.on_prev)}
                        aria-keyshortcuts="PageUp" title={format!("{} (PageUp)", i18n.t(S::PreviousStep))}>
                        {"◀ "}{ i18n.t(S::PreviousStep) }
                    </button>
                    <button id="lesson-next" class="primary" disabled={!vm.can_next && !props.next_lesson}
                        onclick={emit(&props.on_next)} aria-keyshortcuts="PageDown"
                        title={format!("{} (PageDown)", i18n.t(if props.next_lesson { S::NextLesson } else { S::NextStep }))}>
                        { i18n.t(if props.next_lesson { S::NextLesson } else { S::NextStep }) }{" ▶"}
                    </button>
                </nav>
            </div>
            if vm.first {
                <p class="lesson-summary">{ markdown::inline_text(&vm.summary) }</p>
            }
            <div class={classes!("lesson-body", answered.then_some("answered"), aside.then_some("aside"))}>
                // Focused when the step changes, so that a screen reader reads it.
                <div id="lesson-text" class="narration" tabindex="-1">
                    if props.spotlight {
                        // What the text names may be far down the page (on a phone, a
                        // screen or two): one click brings it into view, below the sticky bar.
                        // Floated right at the text's top: no line of its own, so the stage
                        // stays in the top half at 720 px.
                        <button id="show-spotlight" onclick={Callback::from(|_: MouseEvent| {
                            let lit = web_sys::window()
                                .and_then(|w| w.document())
                                .and_then(|d| d.query_selector(".spotlight").ok().flatten());
                            if let Some(el) = lit {
                                el.scroll_into_view();
                                // And the focus with it, so that Tab goes on from there (a
                                // card is a button; a partition or a broker gets a place in
                                // the focus order for it, not in the Tab order).
                                if let Ok(el) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el) {
                                    if !el.has_attribute("tabindex") {
                                        let _ = el.set_attribute("tabindex", "-1");
                                    }
                                    let _ = el.focus();
                                }
                            }
                        })}>{ i18n.t(S::ShowSpotlight) }{" ↓"}</button>
                    }
                    { markdown::render(&vm.text) }
                </div>
                // The answer before the question's column in the page's order (the grid places
                // it under the text): the focus it takes on a reveal goes on, by Tab, to the
                // question and its try-its, not past them to the controls.
                if let Some((question, feedback)) = question {
                    { feedback.unwrap_or_default() }
                    <div class="lesson-side">
                        { question }
                        { side_try_its.unwrap_or_default() }
                    </div>
                }
            </div>
            if let (Some(chart), Some(scenario)) = (&vm.chart, &*chart_scenario) {
                <crate::components::cost_chart::CostChart scenario={scenario.clone()}
                    intervals={chart.commit_intervals_ms.clone()} />
            }
            { foot_try_its.unwrap_or_default() }
        </section>
    }
}
