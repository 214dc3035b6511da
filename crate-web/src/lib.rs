//! `eos-web`: the Yew app over `eos-core`. The core simulates; this crate keeps a reducer of
//! playback state, turns simulation state into what is drawn (`view_model`, pure and tested
//! natively), and draws it with small components.

pub mod app;
pub mod builtins;
pub mod charts;
pub mod codec;
pub mod components;
pub mod export;
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
pub mod share;
pub mod state;
pub mod storage;
pub mod view_model;
pub mod wire;

/// Mounts the playground on `<body>`.
pub fn start() {
    yew::Renderer::<app::App>::new().render();
}
