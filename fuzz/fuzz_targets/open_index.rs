//! A small index damaged as the input says (a file truncated, bytes
//! flipped, a file replaced, or bytes flipped with the manifest's checksum
//! rewritten to match), then opened and queried: an error naming the file,
//! never a panic, and never damaged files accepted under old checksums.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    neardup::index::open_damaged(data);
});
