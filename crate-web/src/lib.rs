//! `eos-web`: the Yew app over `eos-core`. The core simulates; this crate keeps a reducer of
//! playback state, turns simulation state into what is drawn (`view_model`, pure and tested
//! natively), and draws it with small components.

pub mod app;
pub mod builtins;
pub mod charts;
pub mod codec;
pub mod components;
pub mod export;
pub mod flink_channel;
pub mod flink_checkpoint;
pub mod flink_view;
pub mod i18n;
pub mod i18n_hook;
pub mod lesson_mode;
pub mod lesson_state;
pub mod lessons;
pub mod markdown;
pub mod permalink;
pub mod placement;
pub mod playback;
pub mod russian;
pub mod share;
pub mod spot;
pub mod state;
pub mod storage;
pub mod view_model;
pub mod wire;

/// Mounts the playground on `<body>`. A page read in Russian first waits for its Russian
/// texts (`russian.rs`), so as not to flash English, for at most `RUSSIAN_WAIT_MS`: then it
/// draws in English and switches when they arrive.
pub fn start() {
    let lang = i18n::initial(
        storage::get(i18n::LANG_KEY).as_deref(),
        storage::browser_language().as_deref(),
    );
    if lang == i18n::Lang::En {
        return mount();
    }
    let mounted = std::rc::Rc::new(std::cell::Cell::new(false));
    let once = move || {
        if !mounted.replace(true) {
            mount();
        }
    };
    let early = once.clone();
    russian::load(Box::new(move |_| early()));
    let _ = gloo_timers::callback::Timeout::new(RUSSIAN_WAIT_MS, once).forget();
}

/// How long a page that opens in Russian waits for its texts before it draws.
const RUSSIAN_WAIT_MS: u32 = 1_500;

fn mount() {
    yew::Renderer::<app::App>::new().render();
}
