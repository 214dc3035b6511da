//! Every limit a scenario is held to, in one place.

pub const MAX_FILE_BYTES: usize = 256 * 1024;
pub const MAX_NAME_CHARS: usize = 64;
pub const MAX_TEXT_CHARS: usize = 2_000;
pub const MAX_BROKERS: u8 = 3;
pub const MAX_TOPICS: usize = 8;
pub const MAX_PARTITIONS: u16 = 64;
pub const MAX_PRODUCERS: usize = 8;
pub const MAX_CONSUMERS: usize = 8;
pub const MAX_PROCESSORS: usize = 3;
pub const MAX_SENDS_PER_PRODUCER: usize = 64;
pub const MAX_RECORDS: u64 = 2_000_000;
/// Record numbers in all (inputs and every stage's outputs) when stages chain, each taking
/// as many as all before it (`stages.rs`); unchained, 2,000,000 records and four stages
/// take 10,000,000.
pub const MAX_RECORD_IDS: u64 = 10_000_000;
pub const MAX_FAULTS: usize = 256;
pub const MAX_STEPS: u64 = 100_000_000;
pub const DEFAULT_MAX_STEPS: u64 = 5_000_000;
/// One simulated day.
pub const MAX_TIME_MS: u64 = 86_400_000;
pub const MAX_TIMEOUT_MS: u64 = 3_600_000;
pub const MAX_LATENCY_US: u64 = 10_000_000;
pub const MAX_BATCH_RECORDS: u32 = 10_000;
pub const MAX_IN_FLIGHT: u32 = 1_000_000;
pub const MAX_FAULT_COUNT: u32 = 10_000;
