//! Every limit a lesson is held to, in one place.

pub const MAX_FILE_BYTES: usize = 256 * 1024;
pub const MAX_ID_CHARS: usize = 64;
/// Titles, choices and other one-line text.
pub const MAX_LINE_CHARS: usize = 200;
/// Narration, prompts, explanations, summaries.
pub const MAX_TEXT_CHARS: usize = 4_000;
pub const MAX_STEPS: usize = 32;
pub const MIN_CHOICES: usize = 2;
pub const MAX_CHOICES: usize = 8;
pub const MAX_TRY_ITS: usize = 4;
