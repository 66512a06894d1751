//! The floor every layer may use: file errors and atomic writes, YAML
//! reading, the stage clock and progress bars, one union-find, one seeded generator, and the
//! text of percentages and thresholds. Nothing here imports another room of
//! the crate.

pub mod fmt;
pub mod io;
pub mod progress;
pub mod rng;
pub mod stage;
pub mod unionfind;
pub mod yaml;
