//! Every string of the page's chrome, in English and Russian, in one table. Lessons carry
//! their own two languages; the simulation's narration (event log, inspector) stays English.

pub use eos_core::lesson::Lang;
use yew::Callback;

/// The language and a way to change it, shared with every component through a context.
#[derive(Clone, PartialEq)]
pub struct I18n {
    pub lang: Lang,
    pub set: Callback<Lang>,
}

impl Default for I18n {
    fn default() -> Self {
        I18n {
            lang: Lang::En,
            set: Callback::noop(),
        }
    }
}

impl I18n {
    pub fn t(&self, s: S) -> &'static str {
        s.get(self.lang)
    }
}

/// Where the chosen language is remembered.
pub const LANG_KEY: &str = "eos.lang";

pub fn code(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "en",
        Lang::Ru => "ru",
    }
}

/// The stored choice if there is a valid one, else the browser's language (`ru*` → Russian).
pub fn initial(stored: Option<&str>, navigator: Option<&str>) -> Lang {
    match stored {
        Some("ru") => Lang::Ru,
        Some("en") => Lang::En,
        _ => match navigator {
            Some(n) if n.to_ascii_lowercase().starts_with("ru") => Lang::Ru,
            _ => Lang::En,
        },
    }
}

macro_rules! strings {
    ($($key:ident => $en:literal, $ru:literal;)*) => {
        /// A string of the chrome.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum S { $($key),* }

        impl S {
            pub const ALL: &'static [S] = &[$(S::$key),*];

            pub fn get(self, lang: Lang) -> &'static str {
                match (self, lang) {
                    $((S::$key, Lang::En) => $en, (S::$key, Lang::Ru) => $ru,)*
                }
            }
        }
    };
}

strings! {
    Brand => "Exactly-Once Playground", "Exactly-Once: песочница";
    Scenario => "Scenario", "Сценарий";
    Seed => "seed", "сид";
    SeedTip => "The run's seed: same scenario and seed, same run, everywhere",
        "Сид прогона: тот же сценарий и сид дают тот же прогон везде";
    Reset => "Reset", "Сброс";
    PreviousEvent => "Previous event", "Пред. событие";
    Back => "Back", "Назад";
    Play => "Play", "Пуск";
    Pause => "Pause", "Пауза";
    Step => "Step", "Шаг";
    NextEvent => "Next event", "След. событие";
    End => "End", "В конец";
    Speed => "Speed", "Скорость";
    PartitionLogs => "Partition logs", "Логи партиций";
    Footer => "Keyboard: → step · ← back · Shift+→/← next/previous event · Space play/pause · Home reset · End run to the end · PageDown/PageUp next/previous lesson step · Tab to a record, message or process and Enter to inspect it, Esc to close. Follows Apache Kafka 4.x.",
        "Клавиши: → шаг · ← назад · Shift+→/← следующее/предыдущее событие · Пробел пуск/пауза · Home сброс · End до конца · PageDown/PageUp следующий/предыдущий шаг урока · Tab к записи, сообщению или процессу и Enter — открыть, Esc — закрыть. Следует Apache Kafka 4.x.";
    NarrationNote => "The simulation's event log and inspector speak English; lessons and controls are translated.",
        "Журнал событий и инспектор симуляции — на английском; уроки и элементы управления переведены.";
    Language => "Language", "Язык";
    Lessons => "Lessons", "Уроки";
    Lesson => "Lesson", "Урок";
    StepOf => "Step", "Шаг";
    Of => "of", "из";
    PreviousStep => "Previous", "Назад";
    NextStep => "Next", "Далее";
    Predict => "Predict, then reveal", "Предскажите, затем проверьте";
    YourAnswer => "Your answer", "Ваш ответ";
    Reveal => "Reveal", "Проверить";
    ShowAnswer => "Show the answer", "Показать ответ";
    TryAgain => "Try again", "Ещё раз";
    Correct => "Correct.", "Верно.";
    Incorrect => "Not quite.", "Не совсем.";
    Revealed => "The answer.", "Ответ.";
    SimulationReads => "The simulation reads", "Симуляция показывает";
    RightChoice => "The right answer", "Правильный ответ";
    TryIt => "Try it", "Попробуйте";
    Trying => "Trying a changed scenario:", "Изменённый сценарий:";
    BackToLesson => "Back to the lesson", "Вернуться к уроку";
    FreePlayground => "Free playground", "Свободная песочница";
    Contents => "Contents", "Содержание";
    ClearProgress => "Clear progress", "Сбросить прогресс";
    PreviousLesson => "Previous lesson", "Предыдущий урок";
    NextLesson => "Next lesson", "Следующий урок";
    Seen => "steps seen", "шагов пройдено";
    Right => "right answers", "верных ответов";
    Done => "done", "пройден";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_string_exists_in_both_languages_and_russian_is_russian() {
        for s in S::ALL {
            let (en, ru) = (s.get(Lang::En), s.get(Lang::Ru));
            assert!(!en.trim().is_empty() && !ru.trim().is_empty(), "{s:?}");
            let cyrillic = ru.chars().any(|c| ('\u{0400}'..='\u{04FF}').contains(&c));
            assert!(cyrillic || en == ru, "{s:?}: {ru}");
        }
    }

    #[test]
    fn the_stored_choice_wins_then_the_browser_language() {
        assert_eq!(initial(Some("ru"), Some("en-US")), Lang::Ru);
        assert_eq!(initial(Some("en"), Some("ru-RU")), Lang::En);
        assert_eq!(initial(Some("garbage"), Some("ru-RU")), Lang::Ru);
        assert_eq!(initial(None, Some("RU")), Lang::Ru);
        assert_eq!(initial(None, Some("de-DE")), Lang::En);
        assert_eq!(initial(None, None), Lang::En);
        assert_eq!(code(Lang::Ru), "ru");
    }
}
