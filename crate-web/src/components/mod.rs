//! Small presentational components: props in, callbacks out.

pub mod compare_panel;
pub mod consumer_card;
pub mod controls;
pub mod event_log;
pub mod fault_panel;
pub mod flights;
pub mod flink_stage;
pub mod header;
pub mod icon;
pub mod partition_log;
pub mod processor_card;
pub mod producer_card;
pub mod transactions;
