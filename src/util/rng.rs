//! One seeded generator (SplitMix64), the same on every platform.
