use crate::i18n::{I18n, S};
use crate::view_model::lesson::ContentsEntry;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LessonNavProps {
    pub entries: Vec<ContentsEntry>,
    pub current: usize,
    pub open: bool,
    pub on_toggle: Callback<()>,
    pub on_open: Callback<usize>,
    pub on_clear: Callback<()>,
    pub on_leave: Callback<()>,
    /// The Share menu, last in the bar: it is seen there, so Tab reaches it there.
    #[prop_or_default]
    pub share: Html,
}

/// The course: contents with progress, previous/next lesson, clear progress, and the way
/// out to the free playground.
#[function_component(LessonNav)]
pub fn lesson_nav(props: &LessonNavProps) -> Html {
    let i18n = use_context::<I18n>().unwrap_or_default();
    let n = props.entries.len();
    let open_at = |i: Option<usize>| {
        let cb = props.on_open.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(i) = i {
                cb.emit(i);
            }
        })
    };
    let unit = |cb: &Callback<()>| {
        let cb = cb.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let prev = props.current.checked_sub(1);
    let next = (props.current + 1 < n).then_some(props.current + 1);
    // Escape closes the contents and gives the focus back to their button.
    let on_key = {
        let (open, toggle) = (props.open, props.on_toggle.clone());
        Callback::from(move |e: KeyboardEvent| {
            if open && e.key() == "Escape" {
                e.prevent_default();
                e.stop_propagation();
                toggle.emit(());
                crate::components::focus_by_id("lesson-contents-toggle");
            }
        })
    };
    // Opened, the contents take the focus on the lesson open now: the list is the next thing
    // Tab reaches, not five buttons later.
    let open_contents = {
        let (open, toggle) = (props.open, props.on_toggle.clone());
        Callback::from(move |_: MouseEvent| {
            toggle.emit(());
            if !open {
                crate::components::focus_soon("toc-current");
            }
        })
    };
    html! {
        <nav class="lesson-nav" aria-label={i18n.t(S::Lessons)} onkeydown={on_key}>
            <div class="lesson-nav-bar">
                <button id="lesson-contents-toggle" aria-expanded={props.open.to_string()}
                    aria-controls="lesson-contents" onclick={open_contents}>
                    {"☰ "}{ i18n.t(S::Lessons) }{ format!(" {}/{n}", props.current + 1) }
                </button>
                // On a wide screen in a lesson the bar sits in the header's row and these two
                // keep their arrows (the words stay for screen readers and the tooltip).
                <button id="prev-lesson" disabled={prev.is_none()} onclick={open_at(prev)}
                    title={i18n.t(S::PreviousLesson)}>
                    <span aria-hidden="true">{"«"}</span><span class="nav-word">{" "}{ i18n.t(S::PreviousLesson) }</span>
                </button>
                <button id="next-lesson" disabled={next.is_none()} onclick={open_at(next)}
                    title={i18n.t(S::NextLesson)}>
                    <span class="nav-word">{ i18n.t(S::NextLesson) }{" "}</span><span aria-hidden="true">{"»"}</span>
                </button>
                <button id="leave-lesson" class="leave" onclick={unit(&props.on_leave)}>
                    <span class="nav-word">{ i18n.t(S::FreePlayground) }</span>
                    <span class="nav-short" aria-hidden="true">{ i18n.t(S::PlaygroundShort) }</span>
                </button>
                { props.share.clone() }
            </div>
            if props.open {
                <div id="lesson-contents" class="lesson-contents">
                    <h2>{ i18n.t(S::Contents) }</h2>
                    <ol>
                        { for props.entries.iter().enumerate().map(|(i, e)| html! {
                            <li class={classes!(e.current.then_some("current"), e.done.then_some("done"))}>
                                <button class="toc-open" onclick={open_at(Some(i))}
                                    id={e.current.then_some("toc-current")}
                                    aria-current={e.current.then_some("true")}>
                                    <span class="toc-title">{ &e.title }</span>
                                    <span class="toc-progress">
                                        { &e.progress }
                                        if e.done { { format!(" · ✓ {}", i18n.t(S::Done)) } }
                                    </span>
                                </button>
                            </li>
                        }) }
                    </ol>
                    <button id="clear-progress" onclick={unit(&props.on_clear)}>{ i18n.t(S::ClearProgress) }</button>
                </div>
            }
        </nav>
    }
}
