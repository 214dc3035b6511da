//! Every string of the page's chrome, in English and Russian, in one list. The page carries
//! the English; the Russian ships in the worker `eos-lessons-ru` (see `russian.rs`). Lessons
//! and scenario titles carry their own two languages; the simulation's narration (the event
//! log's sentences, the core's notes in the inspector, the fault schedule) stays English.
//!
//! A string with `{0}`, `{1}`, ... is a template: `S::f` fills it in, and each language may
//! put the values in its own order.

pub use eos_core::lesson::Lang;
use eos_core::time::{format_duration, SimTime};
use std::fmt::{Display, Write as _};
use yew::Callback;

/// The language and a way to change it, shared with every component through a context.
#[derive(Clone, PartialEq)]
pub struct I18n {
    pub lang: Lang,
    /// Whether the Russian texts are here (`russian.rs`): the page draws again when they
    /// arrive.
    pub russian: bool,
    pub set: Callback<Lang>,
}

impl Default for I18n {
    fn default() -> Self {
        I18n {
            lang: Lang::En,
            russian: false,
            set: Callback::noop(),
        }
    }
}

impl I18n {
    pub fn t(&self, s: S) -> &'static str {
        s.get(self.lang)
    }

    pub fn f(&self, s: S, args: &[&dyn Display]) -> String {
        s.f(self.lang, args)
    }
}

impl S {
    /// The template in `lang` with `{N}` replaced by `args[N]` (left as is if there is no
    /// such argument).
    pub fn f(self, lang: Lang, args: &[&dyn Display]) -> String {
        fill(self.get(lang), args)
    }
}

fn fill(template: &str, args: &[&dyn Display]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let hole = after
            .find('}')
            .and_then(|close| Some((close, after[..close].parse::<usize>().ok()?)))
            .and_then(|(close, n)| Some((close, args.get(n)?)));
        match hole {
            Some((close, value)) => {
                let _ = write!(out, "{value}");
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A simulated duration as the chrome shows it: `6.005 s` / `6,005 с`, `250 ms` / `250 мс`.
pub fn duration(t: SimTime, lang: Lang) -> String {
    let en = format_duration(t);
    match lang {
        Lang::En => en,
        Lang::Ru => match en.strip_suffix(" ms") {
            Some(n) => format!("{} мс", n.replace('.', ",")),
            None => match en.strip_suffix(" s") {
                Some(n) => format!("{} с", n.replace('.', ",")),
                None => en,
            },
        },
    }
}

/// A number with `places` decimals in `lang`: `6.5` / `6,5`.
pub fn decimal(value: f64, places: usize, lang: Lang) -> String {
    let en = format!("{value:.places$}");
    match lang {
        Lang::En => en,
        Lang::Ru => en.replace('.', ","),
    }
}

/// A picker group of the built-in scenarios in `lang` (an unknown group as it is written).
pub fn group(name: &str, lang: Lang) -> &str {
    if lang == Lang::En {
        return name;
    }
    match name {
        "Idempotent producer" => "Идемпотентный продюсер",
        "Replication" => "Репликация",
        "Consumers" => "Потребители",
        "Transactions" => "Транзакции",
        other => other,
    }
}

/// `yes`/`no`, `on`/`off` and the like: one of two strings by a flag.
pub fn either(flag: bool, yes: S, no: S, lang: Lang) -> &'static str {
    if flag {
        yes.get(lang)
    } else {
        no.get(lang)
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

        /// The chrome in English, a table, not a `match`: the match compiled to 11 KB of
        /// code that loads each string's address; the table is two words per string.
        const ENGLISH: &[&str] = &[$($en),*];

        /// The chrome in Russian, in the order of `S`. Only the worker `eos-lessons-ru`
        /// refers to it, so only it carries it (`russian.rs`): a page read in English does
        /// not load these bytes.
        pub static RUSSIAN: &[&str] = &[$($ru),*];

        impl S {
            pub const ALL: &'static [S] = &[$(S::$key),*];
        }
    };
}

impl S {
    /// The string in `lang`. Russian is the worker's (`russian.rs`): until it is here, the
    /// English one.
    pub fn get(self, lang: Lang) -> &'static str {
        let en = ENGLISH.get(self as usize).copied().unwrap_or("");
        match lang {
            Lang::En => en,
            Lang::Ru => crate::russian::chrome(self as usize).unwrap_or(en),
        }
    }
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
    OutcomeSoFar => "The oracle at this step", "Оракул на этом шаге";
    OutcomeVerdict => "The oracle's verdict", "Вердикт оракула";
    LostAtEnd => "lost: known at the end", "потеряно: видно в конце";
    LostSoFar => "lost: {0} so far, the rest known at the end", "потеряно: пока {0}, остальное видно в конце";
    DuplicatesN => "duplicates: {0}", "дубликаты: {0}";
    LostN => "lost: {0}", "потеряно: {0}";
    AbortedReadsN => "aborted reads: {0}", "прочитано откаченных: {0}";
    Footer => "Keyboard: → step · ← back · Shift+→/← next/previous event · Space play/pause · Home reset · End run to the end · PageDown/PageUp next/previous lesson step (outside a lesson: step, back) · Tab to a record, message or process, ↓/↑ to the next/previous in its log, list, column or the diagram, Enter to inspect it, Esc to close. Follows Apache Kafka 4.x.",
        "Клавиши: → шаг · ← назад · Shift+→/← следующее/предыдущее событие · Пробел пуск/пауза · Home сброс · End до конца · PageDown/PageUp следующий/предыдущий шаг урока (вне урока: шаг, назад) · Tab к записи, сообщению или процессу, ↓/↑ — к следующей/предыдущей в логе, списке, столбце или на диаграмме, Enter — открыть, Esc — закрыть. Следует Apache Kafka 4.x.";
    NarrationNote => "The simulation's own sentences (the event log, the core's notes in the inspector, the fault schedule, the oracle's findings) are in English; everything else is translated.",
        "Собственные фразы симуляции (журнал событий, заметки ядра в инспекторе, расписание сбоев, находки оракула) — на английском; всё остальное переведено.";
    Language => "Language", "Язык";
    Lessons => "Lessons", "Уроки";
    Lesson => "Lesson", "Урок";
    StepOf => "Step", "Шаг";
    Of => "of", "из";
    PreviousStep => "Previous", "Предыдущий";
    NextStep => "Next", "Далее";
    Predict => "Predict, then reveal", "Предскажите, затем проверьте";
    YourAnswer => "Your answer", "Ваш ответ";
    Reveal => "Reveal", "Проверить";
    ShowAnswer => "Show the answer", "Показать ответ";
    TryAgain => "Try again", "Ещё раз";
    Correct => "Correct.", "Верно.";
    Incorrect => "Not quite.", "Неверно.";
    Revealed => "The answer.", "Ответ.";
    SimulationReads => "The simulation reads", "Симуляция показывает";
    RightChoice => "The right answer", "Правильный ответ";
    RightIsReading => "The right answer: {0}, as the simulation shows.", "Правильный ответ: {0} — столько показывает симуляция.";
    TryIt => "Try it", "Попробуйте";
    Trying => "Trying a changed scenario:", "Изменённый сценарий:";
    BackToLesson => "Back to the lesson", "Вернуться к уроку";
    StartLessons => "Take the lessons, starting with “{0}”", "Пройти уроки, начиная с «{0}»";
    FreePlayground => "Free playground", "Свободная песочница";
    PlaygroundShort => "Playground", "Песочница";
    Contents => "Contents", "Содержание";
    ClearProgress => "Clear progress", "Сбросить прогресс";
    PreviousLesson => "Previous lesson", "Предыдущий урок";
    NextLesson => "Next lesson", "Следующий урок";
    // The fork.
    ForkFork => "Fork", "Развилка";
    ForkForkChangeOneThing => "Fork: change one thing, see both futures", "Развилка: измените одно и сравните два варианта будущего";
    ForkChange => "Change", "Изменить";
    ForkForkAtStep => "Fork at step", "Развилка на шаге";
    ForkStale => "Forked at step {0}; the page is at step {1} now. “Fork at step {2}” forks here.", "Развилка сделана на шаге {0}, а страница теперь на шаге {1}. «Развилка на шаге {2}» сделает её здесь.";
    ForkTheChangedScenarioRuns => "The changed scenario runs from the start with the same seed and faults; the runs are the same until the change first matters.", "Изменённый сценарий идёт с начала с тем же сидом и сбоями; прогоны совпадают, пока изменение не скажется.";
    ForkThisChangeMakesNo => "This change makes no difference to this run.", "В этом прогоне изменение ничего не меняет.";
    ForkTheRunsPartAt => "The runs part at step", "Прогоны расходятся на шаге";
    ForkBeforeTheForkAt => "before the fork at step", "раньше развилки на шаге";
    ForkAClientOrJob => "the changed run has this setting from its start, as a client, job or topic takes it when it is created.", "в изменённом прогоне эта настройка действует с самого начала: клиент, задание или топик получает её при создании.";
    ForkAtTheForksStep => "the fork's own step", "на самом шаге развилки";
    ForkSoIdempotenceOff => ", so idempotence off (it needs acks=all)", ", поэтому идемпотентность выкл. (ей нужен acks=all)";
    ForkSoIdempotenceOn => ", so idempotence on (its default with acks=all)", ", поэтому идемпотентность вкл. (по умолчанию при acks=all)";
    ForkTheRunsAreThe => "The runs are the same up to step", "Прогоны совпадают до шага";
    ForkTheyPartAtStep => "they part at step", "расходятся на шаге";
    ForkNothingNotableAfter => "Nothing notable happens on either side after step {0}: the counts are each run's whole outcome.", "После шага {0} ни с одной стороны не происходит ничего заметного; счётчики — итог каждого прогона целиком.";
    ForkAsIsListsWhat => "“As is” lists what happens after its step", "«Как есть» перечисляет, что происходит после его шага";
    ForkTheChangedSideFrom => "the changed side, from the same moment: after its step", "сторона с изменением — с того же момента: после её шага";
    ForkTheChangeMovedIts => "(the change moved its steps in time).", "(изменение сдвинуло её шаги во времени).";
    ForkEachSideListsWhat => "Each side lists what happens after step", "Каждая сторона перечисляет, что происходит после шага";
    ForkAsIs => "As is", "Как есть";
    ForkChanged => "Changed:", "С изменением:";
    ForkEveryRecordEndsThe => "Every record ends the same way in both futures.", "Каждая запись заканчивается одинаково в обоих вариантах будущего.";
    ForkRecordOrKey => "record or key", "запись или ключ";
    ForkAsIs2 => "as is", "как есть";
    ForkChanged2 => "changed", "с изменением";
    ForkDuplicates => "duplicates", "дубликаты";
    ForkLost => "lost", "потеряно";
    ForkAbortedReads => "aborted reads", "прочитано откаченных";
    ForkKeysWrong => "keys wrong", "неверных ключей";
    ForkSteps => "steps", "шагов";
    ForkCheckpoints => "checkpoints", "чекпоинты";
    ForkCompleted => "completed", "завершено";
    ForkExpired => "expired", "истекло";
    ForkFailovers => "failovers", "перезапуски";
    ForkMoreNotableEvents => "… more notable events: {0}", "… ещё заметных событий: {0}";
    ForkNotListed => "… and more not listed: {0}", "… и ещё не показанных: {0}";
    ShowSpotlight => "Show where", "Показать где";
    Seen => "{0}/{1} steps seen", "пройдено шагов: {0} из {1}";
    Right => "{0}/{1} right answers", "верных ответов: {0} из {1}";
    Done => "done", "пройден";
    // Controls and embed bar.
    Playback => "Playback", "Воспроизведение";
    PlaybackSpeed => "Playback speed", "Скорость воспроизведения";
    Scrub => "Scrub through the run", "Перемотка прогона";
    TraceHashTip => "Trace hash: the same scenario and seed give the same hash on every machine, in the browser and in eos-sim",
        "Хеш трассы: тот же сценарий и сид дают тот же хеш на любой машине, в браузере и в eos-sim";
    OpenInPlayground => "Open in the playground ↗", "Открыть в песочнице ↗";
    ClockStep => "step {0} · {1}", "шаг {0} · {1}";
    ClockFinished => " · finished", " · завершён";
    ClockCut => " · stopped at its step limit", " · остановлен на пределе шагов";
    StepLimit => "This run stops at step {0}, its step limit here (limits.max_steps, at most {1} in the page): it has not ended there.",
        "Прогон останавливается на шаге {0} — здесь это предел шагов (limits.max_steps, в странице не больше {1}), а не конец прогона.";
    // Fault panel.
    Faults => "Faults", "Сбои";
    InjectFault => "Inject a fault", "Внедрить сбой";
    Process => "Process", "Процесс";
    For => "for", "на";
    FreezeSeconds => "Freeze length in seconds", "Длительность заморозки в секундах";
    FreezeLength => "Freeze length", "Длительность заморозки";
    SecondsUnit => "s", "с";
    SecondsN => "{0} s", "{0} с";
    Freeze => "Freeze", "Заморозить";
    FreezeN => "Freeze {0} s", "Заморозить на {0} с";
    Crash => "Crash", "Уронить";
    AlreadyDown => "It is down now: restart it first", "Он сейчас не работает: сначала перезапустите";
    NotDown => "It is running: there is nothing to restart", "Он работает: перезапускать нечего";
    CrashTip => "Crash the process: it stays down until restarted", "Аварийно остановить процесс: он не работает до перезапуска";
    CrashTaskTip => "Crash it: the JobManager fails the job over and restarts every subtask from the latest completed checkpoint", "Аварийно остановить: JobManager перезапустит задание, и все подзадачи восстановятся из последнего завершённого чекпоинта";
    RestartedByJobManager => "The JobManager restarts it itself, after the restart delay", "Его перезапускает сам JobManager после задержки перезапуска";
    WorkerOnlyCrashes => "A TaskManager can only crash here", "TaskManager здесь можно только аварийно остановить";
    Restart => "Restart", "Перезапустить";
    FaultSchedule => "Fault schedule", "Расписание сбоев";
    ByClick => " (+{0} by click)", " (+{0} вручную)";
    AddedByClick => "Added by click (× takes one out)", "Добавлены вручную (× убирает)";
    RemoveFault => "Remove: {0}", "Убрать: {0}";
    AlreadyScheduled => "{0} is already in the fault schedule.", "{0}: такой сбой уже есть в расписании.";
    NoFaults => "no faults", "сбоев нет";
    ScheduleAt => "at {0}: {1}", "{0}: {1}";
    FreezeOutOfRange => "A freeze of {0} s is out of range: choose 1 to {1} seconds.",
        "Заморозка на {0} с вне диапазона: выберите от 1 до {1} секунд.";
    SeedEmpty => "Type a seed: a whole number from 0 to {0}.", "Введите сид: целое число от 0 до {0}.";
    SeedNotNumber => "\"{0}\" is not a seed: type a whole number from 0 to {1}.",
        "«{0}» — не сид: введите целое число от 0 до {1}.";
    FreezeEmpty => "Type how many seconds the freeze lasts (1 to {0}).",
        "Введите, сколько секунд длится заморозка (от 1 до {0}).";
    FreezeNotNumber => "\"{0}\" is not a number of seconds: type a whole number from 1 to {1}.",
        "«{0}» — не число секунд: введите целое число от 1 до {1}.";
    // Inspector.
    ThisMessage => "This message", "Это сообщение";
    FaultScheduled => "Added to the fault schedule: it acts at the next step (→).", "Добавлено в расписание сбоев: сработает на следующем шаге (→).";
    DropIt => "Drop it", "Отбросить";
    DropItTip => "Lose this message on the wire (the first of its kind on this link)",
        "Потерять это сообщение в пути (первое такого типа на этой связи)";
    DelayMs => "Delay in milliseconds", "Задержка в миллисекундах";
    MsUnit => "ms", "мс";
    DelayIt => "Delay it", "Задержать";
    DelayItN => "Delay it {0} ms", "Задержать на {0} мс";
    DelayItTip => "Deliver it later; later messages on the link may overtake it",
        "Доставить позже; более поздние сообщения по этой связи могут его обогнать";
    LoseAck => "Lose the ack after the append", "Потерять ответ после записи";
    LoseAckTip => "The batch is appended; the producer never hears so",
        "Батч записан, но продюсер так об этом и не узнает";
    TheLink => "The link {0}", "Связь {0}";
    DropNext => "Drop the next {0}", "Отбросить следующее сообщение: {0}";
    DropNextTip => "Lose the next message of this kind sent on this link",
        "Потерять следующее сообщение этого типа на этой связи";
    CutLink => "Cut the link", "Разорвать связь";
    CutLinkTip => "Cut the link both ways until healed", "Разорвать связь в обе стороны до восстановления";
    Close => "Close (Esc)", "Закрыть (Esc)";
    CloseInspector => "Close the inspector (Esc)", "Закрыть инспектор (Esc)";
    FoldInspector => "Fold the inspector to its title, to see what is under it", "Свернуть инспектор до заголовка, чтобы видеть то, что под ним";
    UnfoldInspector => "Unfold the inspector", "Развернуть инспектор";
    DelayOutOfRange => "A delay of {0} ms is out of range: choose {1} to {2} ms.",
        "Задержка {0} мс вне диапазона: выберите от {1} до {2} мс.";
    DelayNotNumber => "\"{0}\" is not a delay: type a whole number of milliseconds, {1} to {2}.",
        "«{0}» — не задержка: введите целое число миллисекунд, от {1} до {2}.";
    // Inspector rows and titles.
    MessageTitle => "Message #{0}: {1}", "Сообщение #{0}: {1}";
    MessageN => "Message #{0}", "Сообщение #{0}";
    Kind => "kind", "тип";
    Content => "content", "содержимое";
    From => "from", "от";
    To => "to", "кому";
    Sent => "sent", "отправлено";
    Arrives => "arrives", "прибудет";
    ArrivesIn => "{0} (in {1})", "{0} (через {1})";
    Arrived => "arrived", "прибыло";
    AtStep => "{0} (step {1})", "{0} (шаг {1})";
    // A record's story: the kind of event at each step (`view_model/gist.rs`), in English the
    // core's own words for it.
    GistAckLost => "ack lost", "потерян ответ";
    GistAppendRejected => "append rejected", "запись отклонена";
    GistAppended => "appended", "дописана в лог";
    GistBatchSent => "batch sent", "пакет отправлен";
    GistConnectionClosed => "connection closed", "соединение закрыто";
    GistCrashed => "crashed", "сбой";
    GistRestarted => "restarted", "перезапуск";
    GistDelivered => "delivered", "доставка подтверждена";
    GistDeliveryFailed => "delivery failed", "доставка не удалась";
    GistDuplicateDetected => "duplicate detected", "дубликат распознан";
    GistLeaderElected => "leader elected", "выбран лидер";
    GistUncleanLeaderElected => "unclean leader elected", "«нечистые» выборы лидера";
    GistLogTruncated => "log truncated", "лог усечён";
    GistMessageDropped => "message dropped", "сообщение потеряно";
    GistMessageDelayed => "message delayed", "сообщение задержано";
    GistMessageDuplicated => "message duplicated", "сообщение продублировано";
    GistLostAtCrashedNode => "lost at crashed node", "пропало на упавшем узле";
    GistMetadataCaughtUp => "metadata caught up", "метаданные обновлены";
    GistOffsetsCommitted => "offsets committed", "смещения зафиксированы";
    GistProcessed => "processed", "обработана";
    GistProducerFenced => "producer fenced", "продюсер отсечён";
    GistProducerIdAssigned => "producer id assigned", "получен producer id";
    GistRead => "read", "прочитана";
    GistRecordAccepted => "record accepted", "принята продюсером";
    GistRequestTimedOut => "request timed out", "тайм-аут запроса";
    GistRetryScheduled => "retry scheduled", "повтор запланирован";
    GistSinkWrote => "sink wrote", "приёмник записал";
    GistSinkCommitted => "sink committed", "приёмник зафиксировал";
    GistSinkCommitRejected => "sink commit rejected", "фиксация приёмника отклонена";
    GistTxnEnded => "txn ended", "транзакция завершена";
    GistTxnPartitionCheck => "txn partition check", "проверка партиции транзакции";
    GistTxnPartitionCheckFailed => "txn partition check failed", "проверка партиции не прошла";
    GistTxnTimedOut => "txn timed out", "тайм-аут транзакции";
    GistMarkerWritten => "marker written", "маркер записан";
    GistFrozen => "frozen", "заморозка";
    GistThawed => "thawed", "разморозка";
    GistBrokerFenced => "broker fenced", "брокер отсечён";
    GistEpochBumped => "epoch bumped", "эпоха увеличена";
    Status => "status", "статус";
    OnTheWireValue => "on the wire", "в пути";
    Delivered => "delivered", "доставлено";
    PartitionRow => "partition", "партиция";
    TooLateToHit => "It arrives before the next millisecond, when a fault injected now would act: step once and choose a later message.",
        "Оно прибудет раньше следующей миллисекунды, когда сработал бы внедрённый сейчас сбой: сделайте шаг и выберите более позднее сообщение.";
    NotOnTheWire => "Not on the wire at this step: not sent yet, or lost on the way.",
        "На этом шаге его нет в пути: ещё не отправлено или потеряно по дороге.";
    RecordAt => "{0} offset {1} on broker {2}", "{0}, смещение {1} на брокере {2}";
    RecordTitle => "Record {0} · {1}", "Запись {0} · {1}";
    NoReplica => "No such replica.", "Такой реплики нет.";
    Marker => "marker", "маркер";
    ProducerId => "producer id", "id продюсера";
    Epoch => "epoch", "эпоха";
    MarkerNote => "A transaction marker: it ends the producer's transaction on this partition and is never given to applications.",
        "Маркер транзакции: он завершает транзакцию продюсера в этой партиции и никогда не выдаётся приложениям.";
    NotInLog => "Not in this log at this step (not appended yet, or truncated).",
        "На этом шаге этой записи нет в логе (ещё не записана или усечена).";
    Value => "value", "значение";
    Key => "key", "ключ";
    PidEpochSeq => "producer id · epoch · seq", "id продюсера · эпоха · seq";
    Transactional => "transactional", "транзакционная";
    Yes => "yes", "да";
    No => "no", "нет";
    LedgerStatus => "ledger status", "статус доставки";
    DeliveryPending => "pending", "ожидает";
    DeliveryDelivered => "delivered", "доставлена";
    DeliveryFailed => "failed", "не доставлена";
    DeliveryIndeterminate => "indeterminate", "исход неизвестен";
    DeliveryNeverSent => "never sent", "не отправлена";
    SentBy => "sent by", "отправитель";
    SendAttempts => "send attempts", "попыток отправки";
    HandedOverTimes => "handed over by the application", "передана приложением";
    HandOversN => "{0} times: each a new send (a replay), not a producer retry", "передач: {0}; каждая — новая отправка (повторная обработка), а не повтор продюсера";
    HandedOverAt => "handed over at", "передана в";
    Appends => "appends", "записана в лог";
    NoneAtAll => "none", "нет";
    Acknowledged => "acknowledged", "подтверждена";
    OffsetAt => "offset {0} at {1}", "смещение {0} в {1}";
    OffsetN => "offset {0}", "смещение {0}";
    SinkCountedRefused => "no: {1} counts offset {0} as done, but Kafka refused its commit", "нет: {1} считает смещение {0} готовым, но Kafka отказала в фиксации";
    NotYet => "not yet", "пока нет";
    NotYetSink => "not yet: at the answer to its checkpoint's commit", "пока нет: при ответе на фиксацию его контрольной точки";
    TxnDecidedUnheard => "Kafka has {0} this transaction (its marker is in the log), but {1} has not heard yet: the ledger's rows say what {2} knows.", "Kafka уже {0} эту транзакцию (маркер в логе), но {1} об этом ещё не знает: строки журнала — то, что знает {2}.";
    DecidedAborted => "aborted", "откатила";
    DecidedCommitted => "committed", "зафиксировала";
    Reads => "reads", "прочтения";
    Transaction => "transaction", "транзакция";
    TxnOpen => "open", "открыта";
    TxnCommitted => "committed", "зафиксирована";
    TxnAborted => "aborted", "откачена";
    Error => "error", "ошибка";
    Story => "story (steps)", "история (шаги)";
    LaterInRun => "later in this run", "позже в этом прогоне";
    LaterInRunTip => "Later in this run · {0}", "Позже в этом прогоне · {0}";
    BeforeCell => "Before this copy was in the log: the panel has no step to show it at", "До того как эта копия попала в лог: показать её на этом шаге нельзя";
    Anomaly => "Anomaly {0}: {1}", "Аномалия {0}: {1}";
    NoAnomaly => "No anomaly names this record.", "Ни одна аномалия не касается этой записи.";
    ProducerState => "producer state", "состояние продюсеров";
    NoProducerState => "no producer id has written here", "сюда не писал ни один id продюсера";
    ProducerStateOf => "producer id {0} · epoch {1}, last batches", "id продюсера {0} · эпоха {1}, последние батчи";
    SeqAtOffset => "seq {0} @{1}", "seq {0} @{1}";
    PartitionTitle => "Partition {0} on broker {1}", "Партиция {0} на брокере {1}";
    Role => "role", "роль";
    Leader => "leader", "лидер";
    Follower => "follower", "фолловер";
    LeaderDeposed => "deposed, thinks it still leads", "низложен, но считает себя лидером";
    FollowerOf => "follower of broker {0}", "фолловер брокера {0}";
    NoLeader => "no leader: offline", "нет лидера: офлайн";
    LeaderEpoch => "leader epoch", "эпоха лидера";
    Replicas => "replicas", "реплики";
    PartitionsHeld => "partition replicas held", "реплик разделов";
    StoryCrashed => "crashed", "упал";
    StoryRestarted => "restarted", "перезапущен";
    StoryFrozen => "frozen", "заморожен";
    StoryThawed => "thawed", "разморожен";
    StoryFenced => "fenced by the controller", "изолирован контроллером";
    StoryLeads => "leads {0}", "лидер {0}";
    StoryTruncated => "truncated {0} to offset {1}", "усёк {0} до смещения {1}";
    StoryLeftIsr => "out of the ISR of {0} (lagged)", "выбыл из ISR {0} (отстал)";
    StoryDroppedFromIsr => "took broker {1} out of the ISR of {0}", "исключил брокер {1} из ISR {0}";
    StoryTookBackIsr => "took broker {1} back into the ISR of {0}", "вернул брокер {1} в ISR {0}";
    StoryRejoinedIsr => "back in the ISR of {0}", "вернулся в ISR {0}";
    Isr => "in-sync replicas", "синхронные реплики (ISR)";
    MinInsync => "min.insync.replicas (acks=all)", "min.insync.replicas (для acks=all)";
    UncleanElection => "unclean leader election (unclean.leader.election.enable)", "«нечистые» выборы лидера (unclean.leader.election.enable)";
    LogEndOffset => "log end offset", "log end offset";
    HighWatermark => "high watermark", "high watermark";
    LastStableOffset => "last stable offset", "last stable offset";
    AcksWaiting => "acks waiting", "ждут подтверждения";
    HeldForCoordinator => "writes held for the transaction coordinator", "записи ждут координатора транзакций";
    MarkerAnswersHeld => "marker answers waiting for replicas", "ответы о маркерах ждут реплик";
    Crashed => "crashed", "упал";
    RestartRefused => "restarted · the controller refuses its registration until the session of the instance that crashed expires, {0} ms after the crash (broker.session.timeout.ms): it serves nothing until then", "перезапущен · контроллер отклоняет его регистрацию, пока не истечёт сессия упавшего экземпляра — через {0} мс после сбоя (broker.session.timeout.ms): до тех пор он ничего не обслуживает";
    CrashedUnfenced => "crashed · the metadata still names it until the controller fences it, {0} ms after the crash (broker.session.timeout.ms)", "упал · в метаданных он остаётся, пока контроллер его не отсечёт — через {0} мс после сбоя (broker.session.timeout.ms)";
    FrozenHolding => "frozen, holding {0} event(s)", "заморожен, удерживает событий: {0}";
    FrozenFenced => "frozen, holding {0} event(s) · fenced by the controller, which it cannot hear: when it thaws it serves them on its old metadata (a zombie leader of what it led), then learns the new metadata and heartbeats again", "заморожен, удерживает событий: {0} · отсечён контроллером, которого не слышит: оттаяв, обслужит их по старым метаданным (лидер-зомби там, где был лидером), затем узнает новые метаданные и снова начнёт слать heartbeat";
    UpStale => "up · serving what waited while it was frozen, on the metadata it had then: it applies what it missed next", "работает · обслуживает то, что ждало, пока он был заморожен, по тогдашним метаданным: пропущенное применит следом";
    Up => "up", "работает";
    Unknown => "unknown", "неизвестно";
    ProducerTitle => "Producer {0}", "Продюсер {0}";
    NoProducer => "No such producer.", "Такого продюсера нет.";
    State => "state", "состояние";
    Ready => "ready", "готов";
    Idle => "idle", "простаивает";
    AskingForPid => "asking broker {0} for a producer id", "запрашивает id продюсера у брокера {0}";
    IdempotenceAcks => "idempotence · acks", "идемпотентность · acks";
    On => "on", "вкл.";
    Off => "off", "выкл.";
    NextSequences => "next sequences", "следующие номера seq";
    NoneYet => "none yet", "пока нет";
    AwaitingAnswer => "records not yet acknowledged", "записей без подтверждения";
    BatchDetail => "batch {0} to broker {1} for {2}: {3} record(s), base seq {4}, attempt {5}, sent {6}",
        "батч {0} брокеру {1} для {2}: записей {3}, base seq {4}, попытка {5}, отправлен {6}";
    BatchTo => "batch {0} to broker {1}", "батч {0} брокеру {1}";
    InFlightBatches => "in-flight batches", "батчей в полёте";
    ConsumerTitle => "Consumer {0}", "Потребитель {0}";
    NoConsumer => "No such consumer.", "Такого потребителя нет.";
    Isolation => "isolation", "изоляция";
    OffsetReset => "auto.offset.reset", "auto.offset.reset";
    Positions => "positions", "позиции";
    RecordsRead => "records read", "прочитано записей";
    LastReads => "last reads", "последние чтения";
    Group => "group", "группа";
    Committed => "committed", "зафиксировано";
    ProcessorTitle => "Processor {0}", "Обработчик {0}";
    NoProcessor => "No such processor.", "Такого обработчика нет.";
    Guarantee => "guarantee", "гарантия";
    GuaranteePicked => "(Running under {0}, picked here: the description is the scenario's own.)",
        "(Запущено с {0}, выбранной здесь: описание — от исходного сценария.)";
    GuaranteeTip => "The processor's delivery guarantee: the same scenario and faults run again under the one you pick",
        "Гарантия доставки процессора: тот же сценарий с теми же сбоями запускается заново с выбранной";
    Phase => "phase", "фаза";
    Processed => "processed", "обработано";
    InputPositions => "input positions", "позиции во входе";
    OutputClient => "output client", "выходной клиент";
    PidEpoch => "pid {0} · epoch {1}", "pid {0} · эпоха {1}";
    // A log cell's producer line: "e" (epoch) is "э" in Russian.
    CellMeta => "pid {0} · e{1} · seq {2}", "pid {0} · э{1} · seq {2}";
    MarkerMeta => "pid {0} · e{1}", "pid {0} · э{1}";
    BatchInWork => "batch being processed", "в обработке";
    BrokerTitle => "Broker {0}", "Брокер {0}";
    BrokerN => "broker {0}", "брокер {0}";
    NoBroker => "No such broker.", "Такого брокера нет.";
    ReplicaLine => "{0} ({1}, LEO {2}, HW {3})", "{0} ({1}, LEO {2}, HW {3})";
    TxnsCoordinated => "transactions coordinated", "транзакций координирует";
    // Cards.
    InspectProducer => "Inspect producer {0} (Enter)", "Открыть продюсер {0} в инспекторе (Enter)";
    InspectConsumer => "Inspect consumer {0} (Enter)", "Открыть потребителя {0} в инспекторе (Enter)";
    InspectProcessor => "Inspect processor {0} (Enter)", "Открыть обработчик {0} в инспекторе (Enter)";
    InspectThing => "Inspect {0} (Enter)", "Открыть {0} в инспекторе (Enter)";
    Inspect => "Inspect {0}", "Открыть {0}";
    ConnectionStuck => "connection to {0} stuck behind a lost message: nothing more arrives on it until a request times out", "{0}: соединение застряло за потерянным сообщением: по нему ничего не придёт, пока не истечёт таймаут запроса";
    ProducerCounts => "{0} in flight · {1} not yet acknowledged", "в полёте {0} · без подтверждения {1}";
    ProducerSettings => "{0} · idempotence {1} · acks={2} · request.timeout {3} ms",
        "{0} · идемпотентность {1} · acks={2} · request.timeout {3} мс";
    IdempotenceOff => "idempotence off: no producer id", "идемпотентность выкл.: нет id продюсера";
    NextSeq => "{0} next seq {1}", "{0}: след. seq {1}";
    WaitingForPid => "waiting for a producer id", "ждёт id продюсера";
    ProducerClosedGaveUp => "closed: EndTxn went unanswered for max.block.ms (60 s)", "закрыт: EndTxn без ответа дольше max.block.ms (60 с)";
    ProducerClosedInitGaveUp => "closed: InitProducerId went unanswered for max.block.ms (60 s)", "закрыт: InitProducerId без ответа дольше max.block.ms (60 с)";
    ProducerClosedFenced => "closed: fenced (pid {0} · epoch {1} is over)", "закрыт: отсечён (pid {0} · эпоха {1} в прошлом)";
    ProducerDown => "crashed: its producer id, epoch and batches were only in memory",
        "упал: его id продюсера, эпоха и батчи были только в памяти";
    GroupNothing => "group {0} · nothing committed", "группа {0} · ничего не зафиксировано";
    GroupCommitted => "group {0} · committed {1}", "группа {0} · зафиксировано {1}";
    NothingRead => "nothing read yet", "пока ничего не прочитано";
    ReadN => "{0} read: {1}", "прочитано {0}: {1}";
    PhaseN => "phase: {0}", "фаза: {0}";
    PhaseIdle => "idle", "простаивает";
    PhaseResuming => "reading its group's committed offsets", "читает зафиксированные смещения группы";
    PhasePolling => "polling its input", "опрашивает вход";
    PhaseCommittingFirst => "committing offsets before its outputs", "фиксирует смещения до записи результатов";
    PhaseProducing => "waiting for its outputs to be acknowledged", "ждёт подтверждения своих результатов";
    PhaseCommittingAfter => "committing offsets after its outputs", "фиксирует смещения после записи результатов";
    PhaseTransacting => "in a transaction: outputs and offsets commit together", "в транзакции: результаты и смещения фиксируются вместе";
    PhaseStopped => "stopped", "остановлен";
    ProcessedInput => "{0} processed · input {1}", "обработано {0} · вход {1}";
    ProcessedAgainInput => "{0} processed, {1} of them again · input {2}", "обработано {0}, из них повторно {1} · вход {2}";
    ProcessedAgainRepeatsInput => "{0} processed, {1} of them again ({2} repeats) · input {3}", "обработано {0}, из них повторно {1} ({2} повторов) · вход {3}";
    NotStarted => "not started", "не начат";
    StartsAt => "not started yet: the application starts it at {0}", "ещё не запущен: приложение запустит его в {0}";
    ResumesFromCommitted => "resumes from the group's committed offsets", "продолжит с зафиксированных смещений группы";
    PhaseAwaitingPid => "initTransactions: getting a producer id before it reads", "initTransactions: получает id продюсера, прежде чем читать";
    KindResponse => "{0} response", "ответ {0}";
    KindCheckpointTrigger => "checkpoint trigger", "запуск чекпоинта";
    KindCheckpointAck => "checkpoint ack", "подтверждение чекпоинта";
    KindCheckpointNotify => "checkpoint notify", "чекпоинт завершён";
    KindCheckpointAbort => "checkpoint abort", "отмена чекпоинта";
    MsgDupAck => "dup ack @{0}", "подтв. дубля @{0}";
    MsgAck => "ack @{0}", "подтв. @{0}";
    MsgEntries => "{0} entries", "записей: {0}";
    MsgEntry => "{0} entry", "записей: {0}";
    MsgMarkersWritten => "markers written", "маркеры записаны";
    MsgMarker => "marker {0}", "маркер {0}";
    MsgCommitOk => "commit ok", "фиксация: ок";
    MsgCommitted => "committed {0}", "зафиксировано {0}";
    MsgOffset => "offset {0}", "смещение {0}";
    MsgCommit => "commit {0}", "фиксация {0}";
    MsgTxnOk => "txn ok", "txn: ок";
    MsgReplicate => "replicate ×{0}", "репликация ×{0}";
    MsgLeader => "leader: broker {0}", "лидер: брокер {0}";
    MsgLeadersAll => "leaders: broker {0}", "лидеры: брокер {0}";
    MsgLeaders => "leaders: brokers {0}", "лидеры: брокеры {0}";
    MsgLeadersAsk => "leaders?", "лидеры?";
    MsgTriggerFinal => "trigger savepoint {0}", "запуск точки сохранения {0}";
    MsgTrigger => "trigger cp {0}", "запуск чекпоинта {0}";
    MsgAckCp => "ack cp {0}", "подтв. чекпоинта {0}";
    MsgCpComplete => "cp {0} complete", "чекпоинт {0} завершён";
    MsgCpAborted => "cp {0} aborted", "чекпоинт {0} отменён";
    OutputNoPid => "output client: no producer id", "выходной клиент: нет id продюсера";
    OutputPid => "output client: pid {0} · epoch {1}", "выходной клиент: pid {0} · эпоха {1}";
    // On the wire.
    OnTheWire => "On the wire", "В пути";
    NothingInFlight => "nothing in flight", "в пути ничего нет";
    MoreOnTheWire => "… and {0} more on the wire (all in the space-time diagram)", "… и ещё {0} в пути (все — на пространственно-временной диаграмме)";
    InspectMessageTip => "Inspect this message (Enter): drop it, delay it, lose its ack",
        "Открыть сообщение (Enter): отбросить, задержать, потерять ответ";
    InN => "in {0}", "через {0}";
    // Event log.
    WhatHappened => "What happened", "Что произошло";
    Show => "Show", "Показать";
    ShowEventsOf => "Show the events of", "Показать события";
    EveryProcess => "every process", "все процессы";
    PressStep => "Press Step (→) to run the first event.", "Нажмите «Шаг» (→), чтобы выполнить первое событие.";
    NothingForProcess => "Nothing yet for this process.", "У этого процесса пока ничего нет.";
    EarlierEvents => "Earlier events (up to {0} more)", "Более ранние события (ещё до {0})";
    EventsCapped => "The log holds the latest {0} lines; the scrub bar reaches earlier steps.", "Журнал хранит последние {0} строк; более ранние шаги доступны через ползунок.";
    GoToStep => "Go to step {0}", "Перейти к шагу {0}";
    NowLineTip => "What this step did (the full log is “What happened”)", "Что сделал этот шаг (весь журнал — «Что произошло»)";
    StepOfTotal => "step {0} of {1}", "шаг {0} из {1}";
    // Transactions.
    TxnCoordinator => "Transaction coordinator", "Координатор транзакций";
    TxnDetail => "coordinator broker {0} · pid {1} · epoch {2}", "координатор — брокер {0} · pid {1} · эпоха {2}";
    TxnTimesOut => "times out at {0}; if still open, aborted at the coordinator's look at {1}", "таймаут в {0}; если ещё открыта, откат при проверке координатора в {1}";
    TxnTimedOutAwaiting => "timed out at {0}; the coordinator's look at {1} aborts it", "таймаут истёк в {0}; проверка координатора в {1} её откатит";
    // Partition logs.
    InspectPartition => "Inspect partition {0} on broker {1}", "Открыть партицию {0} на брокере {1}";
    InspectBroker => "Inspect broker {0}", "Открыть брокер {0}";
    Frozen => "frozen", "заморожен";
    HeldBadge => "{0} held: asking the coordinator", "ждут координатора: {0}";
    HeldTip => "The leader holds a transaction's first write here until the transaction coordinator adds this partition to the transaction (protocol 2) or confirms it is in it (protocol 1): AddPartitionsToTxn from the leader, KIP-890", "Лидер придерживает здесь первую запись транзакции, пока координатор транзакций не добавит партицию в транзакцию (протокол 2) или не подтвердит, что она в ней (протокол 1): AddPartitionsToTxn от лидера, KIP-890";
    LsoTip => "Last stable offset: read_committed readers stop here", "Last stable offset: читатели read_committed останавливаются здесь";
    OpeningLink => "Opening the linked scenario…", "Открываем сценарий из ссылки…";
    InLane => "{0} lane · {1}", "дорожка {0} · {1}";
    HwTip => "High watermark: what every in-sync replica holds; consumers read below it", "High watermark: то, что есть у всех синхронных реплик; потребители читают ниже";
    EmptyLog => "empty log", "лог пуст";
    EarlierCells => "… {0} earlier records", "… ещё записей раньше: {0}";
    BrokerLeader => "broker {0} · leader", "брокер {0} · лидер";
    BrokerDeposed => "broker {0} · deposed, thinks it still leads", "брокер {0} · низложен, но считает себя лидером";
    BrokerFollower => "broker {0} · follower of broker {1}", "брокер {0} · фолловер брокера {1}";
    BrokerDownLog => "broker {0} · down, its log on disk", "брокер {0} · лежит, лог на диске";
    BrokerLeaderIsr => "broker {0} · leader · ISR {1}", "брокер {0} · лидер · ISR {1}";
    BrokerLeaderIsrShort => "broker {0} · leader · ISR {1}, under min.insync.replicas={2}: high watermark held", "брокер {0} · лидер · ISR {1}, в нём меньше min.insync.replicas={2}: high watermark удерживается";
    BrokerFollowerOutOfSync => "broker {0} · follower of broker {1} · out of sync", "брокер {0} · фолловер брокера {1} · не в ISR";
    BrokerFollowerCutOff => "broker {0} · follower of broker {1} · cut off from it", "брокер {0} · фолловер брокера {1} · связь с ним разорвана";
    BrokerFollowerOutOfSyncCutOff => "broker {0} · follower of broker {1} · out of sync, cut off", "брокер {0} · фолловер брокера {1} · не в ISR, связь разорвана";
    BrokerOffline => "broker {0} · no leader: offline", "брокер {0} · нет лидера: офлайн";
    NoPid => "no pid", "нет pid";
    MarkerCellTip => "offset {0}: the {1} marker for producer {2} (epoch {3}); never given to applications",
        "смещение {0}: маркер {1} продюсера {2} (эпоха {3}); приложениям не выдаётся";
    RecordCellTip => "offset {0}: record {1} key {2} ({3}){4}{5}",
        "смещение {0}: запись {1}, ключ {2} ({3}){4}{5}";
    PidEpochSeqWords => "producer id {0}, epoch {1}, sequence {2}", "id продюсера {0}, эпоха {1}, номер последовательности {2}";
    InTransaction => ", transaction {0}", ", транзакция {0}";
    ADuplicate => " — a DUPLICATE copy", " — ДУБЛИКАТ";
    AZombieCopy => " — this copy is only in the deposed leader's log, above its high watermark: no consumer reads it, so the oracle does not count it, and the broker truncates it once it learns it was deposed",
        " — эта копия есть только в логе низложенного лидера, выше его high watermark: её не читает ни один потребитель, поэтому оракул её не считает, а брокер обрежет её, как только узнает, что низложен";
    ZombieCopyTag => "ZOMBIE", "ЗОМБИ";
    DuplicateTag => "DUPLICATE", "ДУБЛИКАТ";
    // Compare panel.
    Compared => "The three guarantees compared", "Три гарантии в сравнении";
    CompareHeading => "The same faults under the three guarantees", "Те же сбои при трёх гарантиях";
    CompareNote => "Visible output copies per input record, read with read_committed after the run.",
        "Сколько копий результата каждой входной записи видно с read_committed после прогона.";
    // Charts.
    ChartsDownloaded => "Downloaded", "Скачано:";
    ColSteps => "steps", "шагов";
    ColWithOutput => "with output", "с результатом";
    OutcomesTitle => "Outcomes over time", "Исходы во времени";
    OutcomesSub => "the same faults under each guarantee, headless runs", "те же сбои при каждой гарантии, фоновые прогоны";
    OutcomesLostNote => "A lost input is one the processor has moved past and whose output nobody will see; an output lost after it was handed to the producer shows only at the end of the run.",
        "Потерянный вход — тот, мимо которого процессор прошёл и результата которого никто не увидит; потеря после передачи результата продюсеру видна лишь в конце прогона.";
    OutcomesX => "time (ms)", "время (мс)";
    OutcomesY => "inputs", "входы";
    OutcomesVisible => "Inputs with visible output", "Входы с видимым результатом";
    OutcomesDuplicates => "Duplicates (extra copies)", "Дубликаты (лишние копии)";
    OutcomesLost => "Inputs lost", "Потерянные входы";
    CkptTitle => "Checkpoints, aligned vs unaligned", "Чекпоинты: выровненные и невыровненные";
    CkptSub => "two headless runs", "два фоновых прогона";
    CkptSubOne => "one headless run", "один фоновый прогон";
    CkptOneRun => "One line: under AT_LEAST_ONCE barriers are only tracked and no channel is blocked; unaligned checkpoints exist only under EXACTLY_ONCE.",
        "Одна линия: при AT_LEAST_ONCE барьеры только отслеживаются, каналы не блокируются, а невыровненные чекпоинты бывают лишь при EXACTLY_ONCE.";
    CkptAloRun => "AT_LEAST_ONCE (barrier spread, nothing blocked)", "AT_LEAST_ONCE (без блокировки)";
    CkptAligned => "aligned", "выровненные";
    CkptUnaligned => "unaligned", "невыровненные";
    CkptAlignedThenUnaligned => "unaligned after {0} ms", "невыровненные через {0} мс";
    CkptFailovers => "The {0} run failed over (failovers: {1})", "Прогон «{0}» перезапускался (перезапусков: {1})";
    CkptCancelled => ", and its job was cancelled: the stop's savepoints kept expiring", ", и его задание отменено: точки сохранения для остановки истекали раз за разом";
    CkptOnlyCancelled => "The {0} run's job was cancelled: the stop's savepoints kept expiring", "В прогоне «{0}» задание отменено: точки сохранения для остановки истекали раз за разом";
    CkptFailed => "{0} ({1} expired or aborted)", "{0} (неудачных: {1})";
    CkptDuration => "Checkpoint duration", "Длительность чекпоинта";
    CkptStartDelay => "Start delay", "Задержка старта";
    CkptAlignment => "Alignment time", "Время выравнивания";
    CkptChannelState => "Channel state stored", "Состояние каналов в снимке";
    CkptX => "checkpoint", "чекпоинт";
    Ms => "ms", "мс";
    CkptInFlight => "in-flight records", "записей в пути";
    CkptFinalRun => "{0}: savepoint {1}", "{0}: точка сохранения {1}";
    CkptFinalLead => "The savepoint that stops the job (always aligned, so it waits behind the buffered records; one that expires is tried again):",
        "Точка сохранения, с которой задание останавливается (stop-with-savepoint; всегда выровненная, поэтому ждёт за записями в буферах; истёкшая повторяется):";
    CkptRinged => "ringed: expired at the timeout", "в кольце: истёк по таймауту";
    CkptExplain => "Start delay: from the trigger until the last task's first barrier arrives; under backpressure an aligned barrier waits behind the queued records, an unaligned one overtakes them. Alignment: from a task's first barrier to its last (under EXACTLY_ONCE its other inputs wait meanwhile; under AT_LEAST_ONCE none does).",
        "Задержка старта: от запуска чекпоинта до прихода первого барьера в последнюю задачу; при обратном давлении выровненный барьер ждёт за записями в очереди, невыровненный их обгоняет. Выравнивание: от первого барьера задачи до последнего (при EXACTLY_ONCE остальные её входы тем временем ждут, при AT_LEAST_ONCE — нет).";
    CostLatency => "End-to-end latency (mean)", "Сквозная задержка (среднее)";
    CostMessages => "Write-path messages per record", "Сообщений на пути записи, на одну запись";
    CostX => "commit interval, ms", "интервал фиксации, мс";
    CostPer => "messages", "сообщений";
    CostRinged => "ringed: duplicates or losses", "в кольце: дубликаты или потери";
    LanesTitle => "The three guarantees at this moment", "Три гарантии в этот момент";
    LanesNote => "The same faults under each guarantee, each run to the moment on screen (the lane under the run's own guarantee is the run itself, step for step): the processor, its messages on the wire, its output log and the counts so far.",
        "Те же сбои при каждой гарантии, каждый прогон доведён до момента на экране (прогон с гарантией самого сценария совпадает с ним шаг в шаг): процессор, его сообщения в пути, выходной журнал и счёт на этот момент.";
    LaneWithOutput => "inputs with output", "входов с результатом";
    LaneMissing => "Never in the log:", "Не будет в журнале:";
    CompareOffline => "No live leader after the run for: {0} (the brokers holding them are down). The table counts what read_committed readers can read, and they read nothing there; the oracle names those records unavailable.", "После прогона нет живого лидера у партиций: {0} (брокеры, где они лежат, упали). Таблица считает то, что могут прочитать читатели в read_committed, а там они не прочитают ничего; оракул называет эти записи недоступными.";
    LaneMissingOutput => "{0} (its input {1} was committed, not processed)", "{0} (вход {1} закоммичен, но не обработан)";
    // The event log's line for a current step that narrates nothing.
    QuietDeliver => "{0} receives {1} from {2}.", "{0} получает {1} от {2}.";
    QuietMetadata => "{0} answers {1}'s Metadata request with the partition leaders it knows.",
        "{0} отвечает на запрос Metadata от {1}: называет известных ему лидеров партиций.";
    MetadataRequestFailed => "At step {0} the client closed this connection (its request timed out): this Metadata request failed with it, and the broker's late answer will not be taken.",
        "На шаге {0} клиент закрыл это соединение (его запрос не дождался ответа): этот запрос Metadata пропал вместе с ним, и запоздалый ответ брокера не будет принят.";
    QuietStart => "{0} starts.", "{0} запускается.";
    QuietPoll => "{0}'s poll timer fires.", "Срабатывает таймер опроса {0}.";
    QuietBackoff => "{0}'s retry backoff ends.", "У {0} кончается пауза перед повтором.";
    QuietTimer => "A timer of {0} fires.", "Срабатывает таймер {0}.";
    QuietUploaded => "{0} finishes uploading its snapshot.", "{0} заканчивает выгружать свой снимок.";
    QuietFault => "A fault on {0} takes effect.", "Сбой на {0} вступает в силу.";
    QuietThawCrashed => "{0}'s freeze would end now, but it has crashed meanwhile: nothing happens.", "Заморозка {0} закончилась бы сейчас, но он тем временем упал: ничего не происходит.";
    QuietRestartUp => "The scheduled restart of {0} finds it running: nothing happens.", "Запланированный перезапуск {0} застаёт его работающим: ничего не происходит.";
    // The fork's change and fates in Russian (English comes from the core's `describe`).
    ForkGuaranteeN => "guarantee {0}", "гарантия {0}";
    ForkAFault => "a fault", "сбой";
    SetIdempotence => "idempotence", "идемпотентность";
    SetIsolation => "isolation", "изоляция";
    SetProtocol => "transaction protocol", "протокол транзакций";
    SetCheckpoints => "checkpoints", "чекпоинты";
    SetCheckpointing => "checkpointing", "режим чекпоинтов";
    ForkReaderN => "consumer {0}", "потребитель {0}";
    ForkKeyN => "key {0}", "ключ {0}";
    FateNoCopy => "{0}, no copy readable", "{0}, читаемых копий нет";
    FateCopies => "{0}, {1} copies in {2}", "{0}, копий: {1} в {2}";
    FateRead => "read {0}", "прочитана {0}";
    FateCounted => "counted {0}", "учтена {0}";
    FateCommitted => "committed {0}", "закоммичена {0}";
    FateAppended => "appended {0}", "дописана {0}";
    FateReadRecords => "{0}: read {1}", "{0}: прочитано {1}";
    FateState => "state {0}", "состояние {0}";
    CostTitle => "What each guarantee costs", "Стоимость каждой гарантии";
    CostSub => "headless runs", "фоновые прогоны";
    TheNumbers => "The numbers", "Числа";
    ColInterval => "interval, ms", "интервал, мс";
    ColLatency => "latency, ms", "задержка, мс";
    ColP95 => "p95, ms", "p95, мс";
    ColMsgs => "msgs/record", "сообщ./запись";
    CostAmoFlat => "At-most-once commits each batch's offsets before it processes the batch, so the commit interval does not apply to it: its line is flat. The other two commit once per interval: at-least-once after its outputs are acknowledged, exactly-once with its transaction.",
        "At-most-once фиксирует смещения каждой пачки до её обработки, поэтому интервал фиксации к нему не относится: его линия ровная. Две другие гарантии фиксируют раз в интервал: at-least-once — после подтверждения результатов, exactly-once — вместе со своей транзакцией.";
    CompareStages => "End to end through the chain {0}: each input's output from the last stage.",
        "Сквозной счёт по цепочке {0}: результат каждой входной записи на выходе последнего этапа.";
    Input => "input", "вход";
    Lost0 => "0 · lost", "0 · потеряна";
    Unread0 => "0 · unread", "0 · не прочитана";
    UnreadN => "{0} unread", "не прочитано {0}";
    UnreadInput => "Not lost: no stage committed past {0} before the run ended (it arrived after the processor stopped polling, or the processor crashed and never restarted). A restarted processor would read it.", "Не потеряна: ни одна стадия не зафиксировала смещение дальше {0} до конца прогона (запись пришла, когда обработчик уже перестал опрашивать, или он упал и не перезапустился). Перезапущенный обработчик её прочитает.";
    DuplicateN => "{0} · duplicate", "{0} · дубликат";
    Totals => "totals", "итого";
    UnlistedRecords => "{0} more input records are not listed. The table shows at most {1}: every record lost or duplicated under some guarantee first, then records delivered once under all three.",
        "Ещё {0} входных записей не показано. В таблице не больше {1}: сначала все записи, потерянные или задублированные хотя бы при одной гарантии, затем доставленные ровно один раз при всех трёх.";
    CompareCellTip => "{0} under {1}: {2}. Open in the inspector", "{0} при {1}: {2}. Открыть в инспекторе";
    InputCopies => "input {0}: {1} visible copies of {2}", "вход {0}: видимых копий {2} — {1}";
    InputOneCopy => "input {0}: 1 visible copy of {1}", "вход {0}: видна 1 копия {1}";
    VisibleCopies => "visible copies (read_committed)", "видимые копии (read_committed)";
    OutputHandedOver => "output handed to the producer", "результат передан продюсеру";
    NoVisibleOutput => "No copy of {0}, the output of {1}, is visible to a read_committed reader at the end of this lane's run. The record below is the input.",
        "Ни одна копия {0}, результата {1}, не видна читателю read_committed в конце прогона этой дорожки. Ниже — входная запись.";
    TotalsLine => "{0} visible outputs · {1} dup · {2} lost ({3}\u{a0}processed)", "видимых результатов {0} · дублей {1} · потеряно {2} (обработано\u{a0}{3})";
    // Flink.
    FlinkJob => "Flink job", "Задание Flink";
    InspectJobManager => "Inspect the JobManager (checkpoint coordinator)", "Открыть JobManager (координатор чекпоинтов)";
    // A count stays with its word on a narrow card (no-break spaces).
    TaskProcessed => "{0} · {1}\u{a0}processed", "{0} · обработано\u{a0}{1}";
    TaskProcessedSinceRestore => "{0} · {1} processed since the restore ({2} in all)", "{0} · обработано\u{a0}{1} после восстановления (всего\u{a0}{2})";
    ProcessedSinceRestore => "{0} since the restore, {1} in all", "{0} после восстановления, всего {1}";
    RecordsNotDrawn => "{0} more records in this channel, not drawn", "ещё записей в этом канале, не показанных: {0}";
    RestartStrategyRow => "restart strategy", "стратегия перезапуска";
    FixedDelayN => "fixed-delay, {0}", "fixed-delay, {0}";
    ExponentialDelayN => "exponential-delay: {0}, × 1.5 per failure within an hour, up to {1}; ± 10 %", "exponential-delay: {0}, × 1,5 за каждый сбой в течение часа, до {1}; ± 10 %";
    RestoredFromCp => "↺ restored cp {0} at {1}", "↺ восстановлено из №{0} на {1}";
    RestartedFromScratch => "↺ restarted from scratch at {0}", "↺ перезапуск с нуля на {0}";
    SnapshotTip => "the last checkpoint this task snapshotted (a source's: the positions it saved); a restore uses it only if that checkpoint completes", "последний чекпоинт, в который задача сделала снимок (у источника — сохранённые позиции); восстановление возьмёт его, только если этот чекпоинт завершится";
    SnapshotN => "snapshot {0}", "снимок {0}";
    Veiled => "— hidden while the lesson's question waits for your answer: it would give the answer away.", "— скрыто до ответа на вопрос урока: иначе ответ был бы виден здесь.";
    SnapshotSaved => "saved {0}", "сохранено {0}";
    SnapshotSavedRow => "{0}, saved {1} (where a restore resumes)", "{0}, сохранено {1} (отсюда продолжит восстановление)";
    SourcePosition => "reading at {0}", "читает с {0}";
    StoreHolds => "store: keys\u{a0}{0} · writes\u{a0}{1}", "хранилище: ключей\u{a0}{0} · записей\u{a0}{1}";
    LogHolds => "log: records\u{a0}{0} · written more than once\u{a0}{1}", "журнал: записей\u{a0}{0} · записанных не раз\u{a0}{1}";
    StateN => "state: {0}", "состояние: {0}";
    Blocked => " blocked", " заблокирован";
    LoopEdge => " loop edge", " обратное ребро";
    Checkpoints => "Checkpoints", "Чекпоинты";
    CpN => "cp {0}", "№{0}";
    AcksN => "acks {0}", "подтв. {0}";
    Running => "running", "работает";
    Restarting => "restarting", "перезапуск";
    Finished => "finished", "завершено";
    Cancelled => "cancelled", "отменено";
    TaskCancelled => "cancelled", "отменена";
    TaskCrashed => "crashed", "упала";
    TaskFinished => "finished", "завершена";
    InspectCheckpoint => "Inspect checkpoint {0}", "Открыть чекпоинт {0}";
    NoCheckpointYet => "No such checkpoint at this step: it may be triggered later in the run.", "На этом шаге такого чекпоинта нет: он может появиться позже.";
    BarrierSpread => "first to last barrier (no blocking)", "от первого до последнего барьера (без блокировки)";
    SnapSpread => "barriers over {0}", "барьеры за {0}";
    CpCommits => "The two-phase-commit sink now commits the transactions this checkpoint's barrier pre-committed.",
        "Приёмник с двухфазной фиксацией теперь фиксирует транзакции, предварительно зафиксированные по барьеру этого чекпоинта.";
    SnapshotsDiscarded => "The snapshots its subtasks took were discarded with it.", "Снимки, сделанные подзадачами, отброшены вместе с ним.";
    SpSnapshotsDiscarded => "The snapshots its subtasks took were discarded with it.", "Снимки, сделанные подзадачами, отброшены вместе с ней.";
    Outcome => "outcome", "исход";
    TriggeredAt => "triggered at", "запущен в";
    FinishedAt => "finished at", "закончен в";
    SpTriggeredAt => "triggered at", "запущена в";
    SpFinishedAt => "finished at", "закончена в";
    Duration => "duration", "длительность";
    AckedBy => "acknowledged by {0} of {1}", "подтвердили {0} из {1}";
    NotAckedBy => "not acknowledged by", "не подтвердили";
    LongestAlignment => "longest alignment", "самое долгое выравнивание";
    AligningSoFar => "{0} so far (still aligning)", "{0} на данный момент (выравнивание идёт)";
    NoSnapshotYet => "none yet", "пока нет";
    UnalignedTasks => "subtasks that snapshotted unaligned", "подзадачи с невыровненным снимком";
    ChannelStateRecords => "in-flight records stored", "сохранено записей в пути";
    SnapshotOf => "snapshot of {0}", "снимок {0}";
    SnapshotsDropped => "The coordinator no longer keeps this checkpoint's snapshots: a later one is the one a restart restores.",
        "Координатор больше не хранит снимки этого чекпоинта: при перезапуске восстанавливается более поздний.";
    SnapOffsets => "offsets {0}", "смещения {0}";
    SnapState => "state {0}", "состояние {0}";
    SnapTxn => "transaction {0} (pid {1}, epoch {2}) with {3} records, pre-committed", "транзакция {0} (pid {1}, эпоха {2}), записей: {3}, предварительно зафиксирована";
    SnapChannelState => "{0} in-flight records", "записей в пути: {0}";
    SnapAligned => "aligned {0}", "выравнивание {0}";
    SnapEmpty => "nothing to keep", "хранить нечего";
    CpPendingWhy => "Running: the coordinator waits for every subtask to acknowledge it.", "Идёт: координатор ждёт подтверждения от каждой подзадачи.";
    CpCompletedWhy => "Every subtask acknowledged it: a restart can restore the job from it.",
        "Все подзадачи подтвердили его: при перезапуске задание может из него восстановиться.";
    CpExpiredWhy => "It timed out before every subtask acknowledged it, and was discarded: a restart cannot use it.",
        "Истёк таймаут раньше, чем все подзадачи его подтвердили, и он отброшен: при перезапуске его не использовать.";
    CpAbortedWhy => "A failover abandoned it before it completed: the cancelled subtasks could not finish it.", "Его прервал перезапуск задания: отменённые подзадачи не смогли его завершить.";
    CpSubsumedWhy => "A later checkpoint completed first and subsumed it: the coordinator keeps only the newest.", "Более поздний чекпоинт завершился раньше и заменил его: координатор хранит только самый новый.";
    SpCompletedWhy => "Every subtask acknowledged it: the job stopped with it (stop-with-savepoint), and a new run of the job can start from it.",
        "Все подзадачи подтвердили её: задание остановилось на ней (stop-with-savepoint), и следующий запуск задания может начаться с неё.";
    SpExpiredWhy => "It timed out before every subtask acknowledged it: the stop failed and the job kept running (the run tries the stop again with a new savepoint).",
        "Истёк таймаут раньше, чем все подзадачи её подтвердили: остановка не удалась, и задание продолжило работу (прогон повторяет остановку с новой точкой сохранения).";
    CpPending => "pending", "идёт";
    CpCompleted => "completed", "завершён";
    CpExpired => "expired", "истёк";
    CpAborted => "aborted", "прерван";
    SpCompleted => "completed", "завершена";
    SpExpired => "expired", "истекла";
    SpAborted => "aborted", "прервана";
    OpSource => "source", "источник";
    Op2pcSink => "2pc sink", "приёмник 2PC";
    OpUpsertSink => "upsert sink", "upsert-приёмник";
    OpAppendSink => "append sink", "append-приёмник";
    SinkOpen => "open: {0}", "открыта: {0}";
    SinkCommitting => "committing: {0}", "фиксация: {0}";
    SinkRecovered => "{0} (restored from cp {1})", "{0} (восстановлена из №{1})";
    SinkOpenPending => "open: {0} · pending: {1}", "открыта: {0} · ждут: {1}";
    SinkWritten => "{0} ({1} written)", "{0} (записано {1})";
    SinkWrittenUnacked => "{0} ({1} written, {2} not yet acknowledged)", "{0} (записано {1}, не подтверждено {2})";
    Checkpoint => "checkpoint {0}", "чекпоинт {0}";
    Savepoint => "savepoint {0}", "точка сохранения {0}";
    Aligning => "aligning cp\u{a0}{0} ({1}/{2}\u{a0}channels)", "выравнивание чекпоинта\u{a0}{0} (каналов\u{a0}{1}/{2})";
    TrackingBarriers => "tracking cp {0}'s barriers ({1}/{2} channels), blocking none",
        "барьеры чекпоинта {0}: {1}/{2} каналов, без блокировки";
    Unaligned => "unaligned cp\u{a0}{0} ({1}/{2}\u{a0}channels)", "невыровненный чекпоинт\u{a0}{0} (каналов\u{a0}{1}/{2})";
    AlignN => "{0} · align {1}", "{0} · выравнивание {1}";
    // AT_LEAST_ONCE blocks no channel: the time from a task's first barrier to its last.
    BarriersN => "{0} · barriers {1}", "{0} · барьеры {1}";
    SinceN => "since {0}", "с {0}";
    ModeAtLeastOnce => "AT_LEAST_ONCE checkpoints", "чекпоинты AT_LEAST_ONCE";
    ModeUnaligned => "EXACTLY_ONCE, unaligned", "EXACTLY_ONCE, невыровненные";
    ModeAlignedTimeout => "EXACTLY_ONCE, aligned (unaligned after {0})", "EXACTLY_ONCE, выровненные (невыровненные после {0})";
    ModeAligned => "EXACTLY_ONCE, aligned", "EXACTLY_ONCE, выровненные";
    FlinkSummary => "every {0} · checkpoints completed: {1} · failovers: {2}",
        "каждые {0} · завершено чекпоинтов: {1} · перезапусков: {2}";
    VersusFailureFree => "against a failure-free run: {0}", "против прогона без сбоев: {0}";
    NLost => "{0} lost", "потеряно {0}";
    DuplicatedN => "{0} duplicated", "дублей {0}";
    KeysDifferN => "{0} keys differ", "ключей с другим значением: {0}";
    KeyWasNot => "key {0}: {1}, not {2}", "ключ {0}: {1}, а не {2}";
    SameAsFailureFree => "the same output as a failure-free run", "тот же вывод, что без сбоев";
    // The theme button's label: the theme now, and what a click chooses (`theme_button::next`).
    ThemeNow => "Theme: {0} (click for {1})", "Тема: {0} (нажмите — {1})";
    ThemeAuto => "as the system's", "как в системе";
    ThemeToAuto => "the system's", "как в системе";
    ThemeLight => "light", "светлая";
    ThemeDark => "dark", "тёмная";
    SkipToControls => "Skip to the playback controls", "К управлению воспроизведением";
    SkipToStage => "Skip to the stage", "К сцене";
    SkipToDiagram => "Skip to the space-time diagram", "К пространственно-временной диаграмме";
    SkipToLanes => "Skip to the three guarantees", "К трём гарантиям";
    SkipToCharts => "Skip to the charts", "К графикам";
    SkipToFork => "Skip to the fork", "К развилке";
    Operator => "operator", "оператор";
    LastSnapshot => "last snapshot", "последний снимок";
    Detail => "detail", "подробности";
    InputFrom => "input from {0}", "вход от {0}";
    ChannelFill => "{0}/{1} records", "записей {0}/{1}";
    CommaBlocked => ", blocked", ", заблокирован";
    // A Flink channel in the inspector.
    Channel => "Channel", "Канал";
    NoChannel => "No such channel in this job.", "В этом задании нет такого канала.";
    InspectChannel => "Inspect the channel {0} → {1}: {2}", "Открыть канал {0} → {1}: {2}";
    InTheChannel => "in the channel", "в канале";
    PlusBarriers => ", barriers: {0}", ", барьеров: {0}";
    SoFar => "so far", "пока";
    SentTaken => "{0} records sent, {1} taken (since the start or the last restore)", "записей отправлено {0}, принято {1} (с начала или с последнего восстановления)";
    BlockedRow => "blocked", "заблокирован";
    BlockedBy => "by barrier {0}, in since {1}; inputs still without it: {2}", "барьером {0}, пришедшим в {1}; входов ещё без него: {2}";
    ArrivedAt => "in the input buffer since {0}", "во входном буфере с {0}";
    ArrivesAt => "on the wire, arrives at {0}", "в пути, прибудет в {0}";
    RecordN => "record {0}", "запись {0}";
    KeyN => "key {0}", "ключ {0}";
    CountN => "count {0}", "счёт {0}";
    PassesN => "passes around the loop to go: {0}", "ещё проходов по циклу: {0}";
    BarrierOf => "barrier {0} (triggered at {1})", "барьер {0} (запущен в {1})";
    MoreItems => "records not listed: {0}", "записей не показано: {0}";
    ChannelWhat => "A channel stands for the sender's output buffer, the wire ({1}) and the receiver's input buffer. It holds at most {0} records (credit-based flow control): a full channel makes the sender wait. What goes in comes out in order; only an unaligned checkpoint's barrier overtakes records.",
        "Канал — это выходной буфер отправителя, сеть ({1}) и входной буфер получателя. В нём не больше {0} записей (управление потоком на кредитах): полный канал заставляет отправителя ждать. Что вошло, выходит по порядку; записи обгоняет только барьер невыровненного чекпоинта.";
    BlockedWhy => "An aligned (exactly-once) checkpoint: the receiver took this channel's barrier and takes none of its later records until the barrier is in on every input, so they stay out of the snapshot.",
        "Выровненный (exactly-once) чекпоинт: получатель принял барьер этого канала и не берёт его следующие записи, пока барьер не придёт на все входы, — так они не попадут в снимок.";
    NotBlockedAtLeastOnce => "AT_LEAST_ONCE blocks no channel: records behind this channel's barrier are processed before the snapshot, and counted again after a restore.",
        "AT_LEAST_ONCE не блокирует каналы: записи за барьером этого канала обрабатываются до снимка и после восстановления будут посчитаны снова.";
    LoopEdgeWhy => "A feedback edge of the iteration: it carries no barriers, so what is in it at a failure is in no snapshot and is lost.",
        "Обратное ребро итерации: барьеров по нему нет, поэтому то, что в нём во время сбоя, не попадает ни в один снимок и теряется.";
    ChannelEmpty => "Empty now.", "Сейчас пуст.";
    // A record in a Flink job's channels, in the inspector.
    FlinkRecordTitle => "Record {0} in the job", "Запись {0} в задании";
    WhereNow => "where", "где";
    ItemNOf => "record\u{a0}{0}\u{a0}of\u{a0}{1}", "запись\u{a0}{0}\u{a0}из\u{a0}{1}";
    WhenRow => "when", "когда";
    Carries => "content", "содержимое";
    BehindBarrier => "In {0} it is behind barrier {1}: it comes after that checkpoint's cut, so none of its snapshots includes it.",
        "В канале {0} она за барьером {1}: она после среза этого чекпоинта, и ни один его снимок её не включает.";
    BehindBarrierAtLeastOnce => "In {0} it is behind barrier {1}. AT_LEAST_ONCE does not hold it back: if {2} takes it before that barrier is in on all its inputs, the checkpoint's snapshot includes it, and a restore from that checkpoint processes it again.",
        "В канале {0} она за барьером {1}. AT_LEAST_ONCE её не задерживает: если {2} возьмёт её раньше, чем этот барьер придёт на все его входы, снимок чекпоинта её включит, и после восстановления из него она будет обработана ещё раз.";
    InNoChannel => "{0} is in no channel at this step: a task holds it, or it has left the job through a sink.",
        "{0} сейчас нет ни в одном канале: она у задачи или уже вышла из задания через приёмник.";
    InNoChannelSinceFailover => "{0} is in no channel at this step: a task holds it, it has left the job through a sink, or a failover dropped it with the channels' contents, and a source reads it again from the restored offsets.",
        "{0} сейчас нет ни в одном канале: она у задачи, уже вышла из задания через приёмник, или перезапуск сбросил её вместе с содержимым каналов, и источник прочитает её снова с восстановленных смещений.";
    NotReadYet => "No source has read {0} yet.", "Ни один источник ещё не прочитал {0}.";
    ReadBySource => "read by a source", "прочитана источником";
    CountedInState => "counted into keyed state", "учтена в состоянии по ключу";
    TimesN => "{0}×", "{0}×";
    InspectRecordInJob => "Inspect record {0}: where it is in the job", "Открыть запись {0}: где она в задании";
    NoTask => "No such task.", "Такой задачи нет.";
    Checkpointing => "checkpointing", "чекпоинты";
    Job => "job", "задание";
    Summary => "summary", "сводка";
    CheckpointLine => "{0} · acks {1} · {2}", "{0} · подтв. {1} · {2}";
    NoFlinkJob => "This scenario has no Flink job.", "В этом сценарии нет задания Flink.";
    // Space-time diagram.
    SpaceTime => "Space-time diagram", "Пространственно-временная диаграмма";
    MessagesOverTime => "Messages over time", "Сообщения во времени";
    SpaceTimeNote => "One lane per process; time runs right, one column per moment something happened. Scroll sideways for the past; click an arrow to inspect it.",
        "По дорожке на процесс; время идёт вправо, по столбцу на каждый момент, когда что-то произошло. Прокрутите вбок, чтобы увидеть прошлое; нажмите на стрелку, чтобы открыть её в инспекторе.";
    EarlierHidden => "← earlier moments not drawn (the diagram keeps the latest 400 moments and 400 messages)", "← более ранние моменты не нарисованы (диаграмма хранит последние 400 моментов и 400 сообщений)";
    SpaceTimeSvg => "Messages between processes over time", "Сообщения между процессами во времени";
    WireZone => "on the wire", "в пути";
    BackToNow => "Back to now", "К текущему моменту";
    InspectMessage => "Inspect message {0}: {1}", "Открыть сообщение {0}: {1}";
    ArrowTip => "{0} {1} → {2}: sent {3}, arrived {4} (step {5}). {6}",
        "{0} {1} → {2}: отправлено {3}, прибыло {4} (шаг {5}). {6}";
    WireArrowTip => "on the wire: {0} ({1} → {2}), sent {3}, arrives {4}",
        "в пути: {0} ({1} → {2}), отправлено {3}, прибудет {4}";
    FrozenBand => "frozen at {0} for {1}", "заморожен в {0} на {1}";
    StillFrozen => " (still frozen)", " (всё ещё заморожен)";
    DownBand => "down from {0} for {1} (crashed, then restarted)", "не работает с {0} в течение {1} (упал, затем перезапущен)";
    StillDown => "down since {0} (crashed)", "не работает с {0} (упал)";
    CutBand => "cut off from {0} at {1} for {2} (the link healed then)", "связь с {0} разорвана в {1} на {2} (затем восстановлена)";
    StillCut => "cut off from {0} since {1}", "связь с {0} разорвана с {1}";
    NowN => "now · {0}", "сейчас · {0}";
    LaneProducer => "producer", "продюсер";
    LaneConsumer => "consumer", "потребитель";
    LaneProcessor => "processor", "обработчик";
    LaneTask => "task", "задача";
    // Share menu, import errors.
    ShareTip => "Share, import and export", "Поделиться, импорт и экспорт";
    Share => "Share", "Поделиться";
    LinkHere => "Link to this moment", "Ссылка на этот момент";
    CopyLink => "Copy link", "Копировать ссылку";
    Files => "Files", "Файлы";
    DownloadScenario => "Download scenario (.toml)", "Скачать сценарий (.toml)";
    DownloadTrace => "Download trace (.json)", "Скачать трассу (.json)";
    ImportScenario => "Import a scenario or lesson… (.toml or .json, or drop it on the page)",
        "Импорт сценария или урока… (.toml или .json, или перетащите файл на страницу)";
    Images => "Images", "Изображения";
    DiagramSvg => "Diagram SVG", "Диаграмма SVG";
    DiagramPng => "Diagram PNG", "Диаграмма PNG";
    LogsSvg => "Logs SVG", "Логи SVG";
    LogsPng => "Logs PNG", "Логи PNG";
    Reading => "Reading {0}…", "Читаю {0}…";
    Imported => "Imported {0}", "Импортирован {0}";
    YourScenario => "Your scenario", "Ваш сценарий";
    ChangedByLesson => "Changed by the lesson", "Изменён уроком";
    TitleChanged => "{0} (changed)", "{0} (изменён)";
    PreparingScenario => "Preparing the scenario…", "Готовлю сценарий…";
    PreparingTrace => "Preparing the trace…", "Готовлю трассу…";
    Downloaded => "Downloaded {0}", "Скачан {0}";
    CouldNotExport => "Could not export: {0}", "Не удалось экспортировать: {0}";
    LinkCopied => "Link copied", "Ссылка скопирована";
    CouldNotCopy => "Could not copy: select the link above and copy it", "Не удалось скопировать: выделите ссылку выше и скопируйте её";
    NotImported => "{0} was not imported; nothing changed.", "{0} не импортирован; ничего не изменилось.";
    Dismiss => "Dismiss", "Закрыть";
    Empty => "empty", "пусто";
    MoreN => "+{0} more", "ещё {0}";
    TimerLabel => "{0} · {1} · try\u{a0}{2}", "{0} · {1} · попытка\u{a0}{2}";
    TimerRequestTip => "A produce request to {0}, attempt {1}, is on the wire: it times out in {2} (request.timeout.ms) unless an answer comes", "Запрос записи в {0}, попытка {1}, в сети: без ответа истечёт через {2} (request.timeout.ms)";
    TimerBackoffTip => "A batch for {0} waits out its retry backoff: attempt {1} goes out in {2}", "Пакет для {0} выжидает паузу перед повтором: попытка {1} уйдёт через {2}";
    Timers => "Timers", "Таймеры";
    AckFor => "ack for {0}", "подтверждение для {0}";
    LostOnTheWire => "lost", "потеряно";
    CompareTooBig => "This scenario sends {0} records: the page compares the three guarantees, and charts their outcomes and costs, for up to {1} (they run it a dozen times over). Run them on the file with eos-sim compare, eos-sim outcomes and eos-sim cost.",
        "Этот сценарий отправляет записей: {0}. Страница сравнивает три гарантии и строит графики их исходов и стоимости не более чем для {1} (для этого сценарий прогоняется десяток раз). Для файла запустите eos-sim compare, eos-sim outcomes и eos-sim cost.";
    LostNeverArrives => "lost: it never arrives", "потеряно: не прибудет никогда";
    LostReceiverDown => "lost: its receiver was down", "потеряно: получатель был недоступен";
    DedupFlash => "duplicate recognised: seq {0}–{1} is already at offset {2}", "дубликат распознан: seq {0}–{1} уже на смещении {2}";
    DedupFlashOne => "duplicate recognised: seq {0} is already at offset {1}", "дубликат распознан: seq {0} уже на смещении {1}";
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
            let no_words = !ru.chars().any(char::is_alphabetic);
            assert!(cyrillic || en == ru || no_words, "{s:?}: {ru}");
        }
    }

    fn holes(template: &str) -> Vec<usize> {
        let mut found: Vec<usize> = template
            .split('{')
            .skip(1)
            .filter_map(|rest| rest.split_once('}')?.0.parse().ok())
            .collect();
        eos_core::order::sort(&mut found);
        found
    }

    #[test]
    fn a_template_has_the_same_holes_in_both_languages() {
        for s in S::ALL {
            let en = holes(s.get(Lang::En));
            assert_eq!(en, holes(s.get(Lang::Ru)), "{s:?}");
            assert!(
                en.iter().enumerate().all(|(i, n)| i == *n),
                "{s:?}: holes 0, 1, ..."
            );
        }
    }

    #[test]
    fn templates_fill_in_each_language_order() {
        assert_eq!(S::FreezeN.f(Lang::En, &[&6]), "Freeze 6 s");
        assert_eq!(S::FreezeN.f(Lang::Ru, &[&6]), "Заморозить на 6 с");
        assert_eq!(
            S::ProducerCounts.f(Lang::Ru, &[&1, &2]),
            "в полёте 1 · без подтверждения 2"
        );
        assert_eq!(fill("{0} {x} {1} {9}", &[&"a"]), "a {x} {1} {9}");
        assert_eq!(fill("{", &[]), "{");
    }

    #[test]
    fn durations_take_the_language_units() {
        let ms = eos_core::time::ms;
        assert_eq!(duration(ms(6_005), Lang::En), "6.005 s");
        assert_eq!(duration(ms(6_005), Lang::Ru), "6,005 с");
        assert_eq!(duration(ms(250), Lang::Ru), "250 мс");
        assert_eq!(duration(500, Lang::Ru), "0,500 мс");
        assert_eq!(group("Transactions", Lang::Ru), "Транзакции");
        assert_eq!(group("Flink", Lang::Ru), "Flink");
        assert_eq!(group("Transactions", Lang::En), "Transactions");
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
