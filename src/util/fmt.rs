//! Percentages and thresholds as every view prints them.
