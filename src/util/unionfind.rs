//! One union-find over dense u32 ids.
