//! The stage clock: time and bytes per pipeline stage, below the algorithms that report to it.
