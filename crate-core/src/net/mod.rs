//! The network between simulated processes.

pub mod network;

pub use network::{ArmedFault, Network, NetworkConfig};
