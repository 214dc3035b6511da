//! The fork: pick one change (a flipped setting or another guarantee), fork at the current
//! step, and see both futures side by side: where the runs part, what each holds after the
//! fork, and every record whose fate differs (`eos_core::fork`).

use crate::flink_view::describe_diff;
use crate::i18n::{I18n, Lang, S};
use crate::permalink::ForkAt;
use eos_core::fork::{
    change_label, change_setting, changes, fork, Fate, Fork, ForkSide, Subject, EVENTS_SHOWN,
};
use eos_core::lesson::try_it::TryAction;
use eos_core::scenario::Scenario;
use eos_core::sim::names::Names;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ForkPanelProps {
    pub scenario: super::SharedScenario,
    pub seed: u64,
    /// The step the fork is taken at: the one on screen.
    pub step: u64,
    /// The fork on screen (the page's state, so a link carries it).
    pub fork: Option<ForkAt>,
    pub on_fork: Callback<Option<ForkAt>>,
}

#[function_component(ForkPanel)]
pub fn fork_panel(props: &ForkPanelProps) -> Html {
    let lang = use_context::<I18n>().unwrap_or_default().lang;
    let options = use_memo(props.scenario.clone(), |s| changes(s));
    let index_of = |fork: &Option<ForkAt>, options: &[TryAction]| {
        fork.as_ref()
            .and_then(|f| options.iter().position(|o| *o == f.change))
            .unwrap_or(0)
    };
    let choice = use_state(|| index_of(&props.fork, &options));
    {
        // A new scenario or seed starts with the first change, a fork opened by a link with
        // its own.
        let (choice, options) = (choice.clone(), options.clone());
        use_effect_with(
            (props.scenario.clone(), props.seed, props.fork.clone()),
            move |(_, _, fork)| choice.set(index_of(fork, &options)),
        );
    }
    // The fork on screen, run again only when it, the scenario or the seed changes.
    let result = use_memo(
        (props.scenario.clone(), props.seed, props.fork.clone()),
        |(scenario, seed, at)| {
            at.as_ref().map(|f| {
                (
                    f.change.clone(),
                    fork(scenario, Some(*seed), &f.change, f.step),
                )
            })
        },
    );
    if options.is_empty() {
        return html! {};
    }
    let on_choose = {
        let (choice, options, shown, on_fork) = (
            choice.clone(),
            options.clone(),
            props.fork.clone(),
            props.on_fork.clone(),
        );
        Callback::from(move |e: Event| {
            let v = e
                .target_unchecked_into::<web_sys::HtmlSelectElement>()
                .value();
            let i = v.parse().unwrap_or(0);
            choice.set(i);
            // With a fork on screen, another change is forked at the same step at once:
            // the two futures on screen are always those of the change the select shows.
            if let (Some(at), Some(change)) = (&shown, options.get(i)) {
                on_fork.emit(Some(ForkAt {
                    change: change.clone(),
                    step: at.step,
                }));
            }
        })
    };
    let on_fork = {
        let (options, choice, step) = (options.clone(), choice.clone(), props.step);
        props.on_fork.reform(move |_: MouseEvent| {
            options.get(*choice).map(|change| ForkAt {
                change: change.clone(),
                step,
            })
        })
    };
    let chosen = change_in(
        lang,
        &props.scenario,
        &options[(*choice).min(options.len() - 1)],
    );
    html! {
        <section class="fork card" id="fork" tabindex="-1" aria-label={S::ForkFork.get(lang)}>
            <h2>{ S::ForkForkChangeOneThing.get(lang) }</h2>
            <div class="fork-controls">
                <label>{ S::ForkChange.get(lang) }
                    <select id="fork-change" onchange={on_choose}>
                        { for options.iter().enumerate().map(|(i, c)| html! {
                            <option value={i.to_string()} selected={i == *choice}>{ change_in(lang, &props.scenario, c) }</option>
                        }) }
                    </select>
                </label>
                // A phone's select cuts a long change short; its whole text under it.
                // It breaks after a slash first ("read_committed/read_uncommitted").
                <p class="fork-chosen" aria-hidden="true">{ chosen.replace('/', "/\u{200b}") }</p>
                <button id="fork-here" onclick={on_fork}>{ format!("{} {}", S::ForkForkAtStep.get(lang), props.step) }</button>
            </div>
            { match result.as_ref() {
                None => html! { <p class="quiet">{ S::ForkTheChangedScenarioRuns.get(lang) }</p> },
                Some((_, Err(e))) => html! { <div class="error" role="alert">{ e.clone() }</div> },
                Some((made_with, Ok(f))) => html! { <>
                    // The page has moved on since: say which step this fork is of.
                    if f.at != props.step {
                        <p class="fork-stale">{ S::ForkStale.f(lang, &[&f.at, &props.step, &props.step]) }</p>
                    }
                    { view_fork(f, &change_in(lang, &props.scenario, made_with), &f.names, lang) }
                </> },
            } }
        </section>
    }
}

/// The change in the reader's language: the setting's name and its on/off values are
/// translated; configuration values (`read_committed`, `EXACTLY_ONCE`, `at-least-once`, the
/// protocol's version) stay as the systems spell them.
pub(crate) fn change_in(lang: Lang, s: &Scenario, a: &TryAction) -> String {
    if lang == Lang::En {
        return change_label(s, a);
    }
    let Some(c) = change_setting(s, a) else {
        return match a {
            TryAction::Guarantee(g) => S::ForkGuaranteeN.f(lang, &[&g.name()]),
            _ => S::ForkAFault.get(lang).to_string(),
        };
    };
    let setting = match c.setting {
        "idempotence" => S::SetIdempotence.get(lang),
        "isolation" => S::SetIsolation.get(lang),
        "transaction protocol" => S::SetProtocol.get(lang),
        "checkpoints" => S::SetCheckpoints.get(lang),
        "checkpointing" => S::SetCheckpointing.get(lang),
        "guarantee" => S::Guarantee.get(lang),
        other => other,
    };
    let values = |v: &str| {
        v.split('/')
            .map(|part| match part {
                "on" => S::On.get(lang),
                "off" => S::Off.get(lang),
                "aligned" => S::CkptAligned.get(lang),
                "unaligned" => S::CkptUnaligned.get(lang),
                other => other,
            })
            .collect::<Vec<_>>()
            .join("/")
    };
    let of = if c.of.is_empty() {
        String::new()
    } else {
        format!(" ({})", c.of)
    };
    let so = match c.idempotence {
        Some(false) => S::ForkSoIdempotenceOff.get(lang),
        Some(true) => S::ForkSoIdempotenceOn.get(lang),
        None => "",
    };
    format!("{setting}{of}: {} → {}{so}", values(&c.from), values(&c.to))
}

/// A fate row's subject in the reader's language (names stay as the run names them).
fn subject_in(lang: Lang, s: &Subject) -> String {
    match (lang, s) {
        (Lang::En, _) | (Lang::Ru, Subject::Record(_)) => s.describe(),
        (Lang::Ru, Subject::Reader(r)) => S::ForkReaderN.f(lang, &[r]),
        (Lang::Ru, Subject::Key(k)) => S::ForkKeyN.f(lang, &[k]),
    }
}

/// What a future holds, in the reader's language.
fn fate_in(lang: Lang, f: &Fate) -> String {
    if lang == Lang::En {
        return f.describe();
    }
    match f {
        Fate::Delivery {
            status,
            copies,
            partitions,
        } => {
            let status = match status.as_str() {
                "delivered" => S::DeliveryDelivered,
                "failed" => S::DeliveryFailed,
                "pending" => S::DeliveryPending,
                "never sent" => S::DeliveryNeverSent,
                _ => S::DeliveryIndeterminate,
            }
            .get(lang);
            match copies {
                0 => S::FateNoCopy.f(lang, &[&status]),
                n => S::FateCopies.f(lang, &[&status, n, &partitions.join(", ")]),
            }
        }
        Fate::Flink(l) => [
            (l.read, S::FateRead),
            (l.counted, S::FateCounted),
            (l.committed, S::FateCommitted),
            (l.appended, S::FateAppended),
        ]
        .into_iter()
        .enumerate()
        .filter(|(i, (n, _))| *i == 0 || *n > 0)
        .map(|(_, (n, what))| what.f(lang, &[&n]))
        .collect::<Vec<_>>()
        .join(", "),
        Fate::Read { isolation, records } => S::FateReadRecords.f(lang, &[isolation, records]),
        Fate::State(v) => S::FateState.f(lang, &[v]),
    }
}

fn view_fork(f: &Fork, change: &str, names: &Names, lang: Lang) -> Html {
    let parted = match f.diverged_at {
        None => S::ForkThisChangeMakesNo.get(lang).to_string(),
        Some(d) if d == f.at => format!(
            "{} {d}, {}: {}",
            S::ForkTheRunsPartAt.get(lang),
            S::ForkAtTheForksStep.get(lang),
            S::ForkAClientOrJob.get(lang)
        ),
        Some(d) if d < f.at => format!(
            "{} {d}, {} {}: {}",
            S::ForkTheRunsPartAt.get(lang),
            S::ForkBeforeTheForkAt.get(lang),
            f.at,
            S::ForkAClientOrJob.get(lang)
        ),
        Some(d) => format!(
            "{} {}; {} {d}.",
            S::ForkTheRunsAreThe.get(lang),
            d.saturating_sub(1),
            S::ForkTheyPartAtStep.get(lang),
        ),
    };
    html! {
        <div class="fork-result" role="status">
            <p class="fork-parted">{ parted }</p>
            if f.as_is.events.is_empty() && f.changed.events.is_empty() && f.as_is.more == 0 && f.changed.more == 0 {
                <p class="quiet">{ S::ForkNothingNotableAfter.f(lang, &[&f.events_after]) }</p>
            } else if f.changed_after != f.events_after {
                // The change acted before the fork step: the same moment is another step.
                <p class="quiet">{ format!("{} {}; {} {} {}",
                    S::ForkAsIsListsWhat.get(lang), f.events_after,
                    S::ForkTheChangedSideFrom.get(lang), f.changed_after,
                    S::ForkTheChangeMovedIts.get(lang)) }</p>
            } else {
                <p class="quiet">{ format!("{} {}.", S::ForkEachSideListsWhat.get(lang), f.events_after) }</p>
            }
            <div class="fork-sides">
                { side(S::ForkAsIs.get(lang), &f.as_is, &f.changed, "as-is", names, lang) }
                { side(&format!("{} {change}", S::ForkChanged.get(lang)), &f.changed, &f.as_is, "changed", names, lang) }
            </div>
            if f.fates.is_empty() {
                <p class="quiet">{ S::ForkEveryRecordEndsThe.get(lang) }</p>
            } else {
                <div class="table-scroll">
                <table class="fork-fates">
                    <thead><tr>
                        <th>{ S::ForkRecordOrKey.get(lang) }</th><th>{ S::ForkAsIs2.get(lang) }</th><th>{ S::ForkChanged2.get(lang) }</th>
                    </tr></thead>
                    <tbody>
                        { for f.fates.iter().map(|d| html! {
                            <tr><td>{ subject_in(lang, &d.subject) }</td><td>{ fate_in(lang, &d.as_is) }</td><td>{ fate_in(lang, &d.changed) }</td></tr>
                        }) }
                    </tbody>
                </table>
                </div>
            }
        </div>
    }
}

/// Whether each of `s`'s listed events has no like (the same sentence) among `other`'s: the
/// lines where the futures differ, drawn apart from those both sides share.
fn differs(s: &ForkSide, other: &ForkSide) -> Vec<bool> {
    s.events
        .iter()
        .map(|(_, text)| !other.events.iter().any(|(_, t)| t == text))
        .collect()
}

/// What a side's counts row says.
#[derive(Debug, PartialEq)]
struct Counts {
    duplicates: u64,
    lost: u64,
    /// Keys whose state or upserted value differs from the failure-free run's.
    keys: usize,
}

/// A Flink job's loss and over-count show against its failure-free twin (a record the
/// failure-free run wrote and this one did not is lost, though Kafka saw no lost write):
/// each count is the larger of the two measures.
fn counts(s: &ForkSide) -> Counts {
    let o = &s.report.outcome;
    let versus = s
        .report
        .flink
        .as_ref()
        .and_then(|f| f.versus_failure_free.as_ref());
    let at_least = |kafka: u64, n: Option<usize>| kafka.max(n.unwrap_or(0) as u64);
    Counts {
        duplicates: at_least(o.duplicates, versus.map(|d| d.duplicated.len())),
        lost: at_least(o.lost, versus.map(|d| d.lost.len())),
        keys: versus.map_or(0, |d| d.state_differs.len()),
    }
}

fn side(
    title: &str,
    s: &ForkSide,
    other: &ForkSide,
    class: &'static str,
    names: &Names,
    lang: Lang,
) -> Html {
    let o = &s.report.outcome;
    let Counts {
        duplicates,
        lost,
        keys,
    } = counts(s);
    let apart = differs(s, other);
    // Shared lines fade only when some line on either side differs.
    let marked = apart.iter().any(|d| *d) || differs(other, s).iter().any(|d| *d);
    // The first lines in view, and past them the oracle's findings (a duplicate, a loss):
    // what a side's counts come from is never folded away.
    let (mut rows, mut folded): (Vec<Html>, Vec<Html>) = (Vec::new(), Vec::new());
    for (i, ((step, text), differs)) in s.events.iter().zip(&apart).enumerate() {
        let finding = eos_core::fork::is_finding(text);
        let row = html! {
            <li class={classes!(marked.then_some(if *differs { "differs" } else { "shared" }), finding.then_some("finding"))}>
                <span class="step">{ format!("#{step}") }</span>{ text }
            </li>
        };
        if i < EVENTS_SHOWN || finding {
            rows.push(row);
        } else {
            folded.push(row);
        }
    }
    html! {
        <article class={classes!("fork-side", class)}>
            <h3>{ crate::components::event_log::breakable(title) }</h3>
            <p class="fork-counts">
                <span class={classes!((duplicates > 0).then_some("bad"))}>{ format!("{}: {duplicates}", S::ForkDuplicates.get(lang)) }</span>
                <span class={classes!((lost > 0).then_some("bad"))}>{ format!("{}: {lost}", S::ForkLost.get(lang)) }</span>
                if keys > 0 {
                    <span class="bad">{ format!("{}: {keys}", S::ForkKeysWrong.get(lang)) }</span>
                }
                <span class={classes!((o.aborted_reads > 0).then_some("bad"))}>{ format!("{}: {}", S::ForkAbortedReads.get(lang), o.aborted_reads) }</span>
                <span>{ format!("{}: {}", S::ForkSteps.get(lang), s.report.steps) }</span>
            </p>
            if let Some(f) = &s.report.flink {
                <p class="fork-flink">
                    <span>{ format!("{}: {} {} · {} {}", S::ForkCheckpoints.get(lang), f.completed, S::ForkCompleted.get(lang), f.expired, S::ForkExpired.get(lang)) }</span>
                    <span class={classes!((f.failovers > 0).then_some("bad"))}>{ format!("{}: {}", S::ForkFailovers.get(lang), f.failovers) }</span>
                    if let Some((text, same)) = f.versus_failure_free.as_ref().map(|d| describe_diff(d, names, lang)) {
                        <span class={classes!("fork-versus", (!same).then_some("bad"))}>{ text }</span>
                    }
                </p>
            }
            <ol class="fork-events">
                { for rows }
            </ol>
            // The rest folded away, opened by a click or the keyboard.
            if !folded.is_empty() {
                <details class="fork-more">
                    <summary>{ S::ForkMoreNotableEvents.f(lang, &[&folded.len()]) }</summary>
                    <ol class="fork-events">{ for folded }</ol>
                </details>
            }
            if s.more > 0 {
                <p class="quiet">{ S::ForkNotListed.f(lang, &[&s.more]) }</p>
            }
        </article>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use eos_core::builtin;

    fn labels(name: &str, lang: Lang) -> Vec<String> {
        let s = builtin::get(name).expect("built-in");
        changes(&s).iter().map(|a| change_in(lang, &s, a)).collect()
    }

    /// A Flink future's over-count is no Kafka duplicate: the counts row says so from the
    /// failure-free comparison (one key wrong at AT_LEAST_ONCE, none at EXACTLY_ONCE).
    #[test]
    fn a_flink_side_counts_what_differs_from_its_failure_free_run() {
        use eos_core::lesson::try_it::Flip;
        let s = builtin::get("flink-at-least-once-overcount").expect("built-in");
        let f = fork(&s, None, &TryAction::Flip(Flip::Checkpointing), 1).expect("applies");
        assert_eq!(f.as_is.report.outcome.duplicates, 0);
        assert_eq!(counts(&f.as_is).keys, 1);
        assert_eq!(
            counts(&f.changed),
            Counts {
                duplicates: 0,
                lost: 0,
                keys: 0
            }
        );
        // A Flink 2PC sink whose transaction timed out lost ten writes both ways.
        let s = builtin::get("flink-2pc-txn-timeout-loss").expect("built-in");
        let f = fork(&s, None, &TryAction::Flip(Flip::Unaligned), 1).expect("applies");
        assert_eq!(counts(&f.as_is).lost, 10);
    }

    /// Forked to AT_LEAST_ONCE checkpointing at step 60, the Flink 2PC job's futures differ
    /// only in the first line (a barrier that blocks its input, or does not): that line is
    /// marked on both sides, the lines they share are not.
    #[test]
    fn the_lines_where_the_futures_differ_are_marked() {
        use eos_core::lesson::try_it::Flip;
        let s = builtin::get("flink-2pc-crash-recovery").expect("built-in");
        let f = fork(&s, None, &TryAction::Flip(Flip::Checkpointing), 60).expect("applies");
        let (a, b) = (differs(&f.as_is, &f.changed), differs(&f.changed, &f.as_is));
        assert!(a.len() > 3 && b.len() > 3, "{a:?} {b:?}");
        assert!(a[0] && b[0], "the barrier lines differ: {a:?} {b:?}");
        assert!(a[1..].iter().chain(&b[1..]).all(|d| !d), "{a:?} {b:?}");
        // A fork against itself shares every line.
        assert!(differs(&f.as_is, &f.as_is).iter().all(|d| !d));
    }

    #[test]
    fn a_fate_reads_in_the_readers_language() {
        let s = builtin::get("rpw-crash-at-least-once").expect("built-in");
        let f = fork(
            &s,
            None,
            &TryAction::Guarantee(eos_core::kafka::processor::Guarantee::ExactlyOnce),
            0,
        )
        .expect("applies");
        let rows = |lang| -> Vec<String> {
            f.fates
                .iter()
                .map(|d| {
                    format!(
                        "{} | {} | {}",
                        subject_in(lang, &d.subject),
                        fate_in(lang, &d.as_is),
                        fate_in(lang, &d.changed)
                    )
                })
                .collect()
        };
        assert_eq!(
            rows(Lang::Ru),
            [
                "v7′ | доставлена, копий: 2 в invoices-0 | доставлена, копий: 1 в invoices-0",
                "потребитель auditor | read_committed: прочитано 13 | read_committed: прочитано 12",
            ]
        );
        assert_eq!(
            rows(Lang::En)[1],
            "consumer auditor | read_committed: read 13 | read_committed: read 12"
        );
        let flink = builtin::get("flink-at-least-once-overcount").expect("built-in");
        let f = fork(
            &flink,
            None,
            &TryAction::Flip(eos_core::lesson::try_it::Flip::Checkpointing),
            0,
        )
        .expect("applies");
        let key = f
            .fates
            .iter()
            .find(|d| matches!(d.subject, Subject::Key(_)))
            .expect("a key row");
        assert!(subject_in(Lang::Ru, &key.subject).starts_with("ключ "));
        assert!(fate_in(Lang::Ru, &key.as_is).starts_with("состояние "));
    }

    #[test]
    fn a_change_is_named_in_the_readers_language() {
        let en = labels("lost-ack-idempotence-on", Lang::En);
        let ru = labels("lost-ack-idempotence-on", Lang::Ru);
        assert!(
            en.contains(&"idempotence (app): on → off".to_string()),
            "{en:?}"
        );
        assert!(
            ru.contains(&"идемпотентность (app): вкл. → выкл.".to_string()),
            "{ru:?}"
        );
        assert_eq!(en.len(), ru.len());
        // Configuration values stay as the systems spell them.
        let flink = labels("flink-2pc-crash-recovery", Lang::Ru);
        assert!(
            flink.contains(&"режим чекпоинтов: EXACTLY_ONCE → AT_LEAST_ONCE".to_string()),
            "{flink:?}"
        );
        // No English setting name is left in Russian.
        for name in builtin::names() {
            for label in labels(&name, Lang::Ru) {
                for word in [
                    "idempotence",
                    "isolation",
                    "guarantee",
                    "checkpoint",
                    ": on",
                    ": off",
                ] {
                    assert!(!label.contains(word), "{name}: {label}");
                }
            }
        }
    }
}
