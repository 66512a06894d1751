//! neardup: a workbench for evaluating near-duplicate web page detection.
//!
//! The modules follow the pipeline (seed 000, section 2), top-down:
//! a [`corpus`] of labelled pages is decoded and its text [`extract`]ed,
//! normalised and tokenised by [`text`], turned into signatures, candidate
//! pairs and scores by an [`algo`], judged and scored against the labels by
//! [`eval`]; an [`experiment`] wires these together from a YAML file and
//! writes the results; the [`tui`] workbench is a view over them.

pub mod algo;
pub mod bench;
pub mod bench_scale;
pub mod corpus;
pub mod dist;
pub mod eval;
pub mod experiment;
pub mod extract;
pub mod index;
pub mod progress;
pub mod report;
pub mod text;
pub mod tui;
pub mod util;
