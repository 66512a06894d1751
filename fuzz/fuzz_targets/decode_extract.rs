//! Arbitrary bytes through charset decoding and both extractions: no
//! panic, no stack overflow, and extracted text is always valid for the
//! structure's sentence offsets.
#![no_main]

use libfuzzer_sys::fuzz_target;
use neardup::extract::{decode::decode_html, extract_html, Extraction};

fuzz_target!(|data: &[u8]| {
    let decoded = decode_html(data);
    for extraction in [Extraction::Main, Extraction::FullText] {
        let page = extract_html(&decoded.text, extraction);
        let text = page.text();
        for s in &page.structure.sentences {
            assert_eq!(&text[s.start..s.end], s.text);
        }
    }
});
