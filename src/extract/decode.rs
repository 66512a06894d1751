//! Turning page bytes into text: BOM, then the page's own `<meta>`
//! declaration, then statistical detection (chardetng) when there is none
//! or it lies. Chinese sites still serve GBK, often undeclared.

use encoding_rs::{Encoding, UTF_8};

/// What decided the encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EncodingSource {
    Bom,
    Meta,
    /// chardetng's guess (no declaration, or one the bytes contradict).
    Detected,
}

#[derive(Debug, Clone)]
pub struct Decoded {
    pub text: String,
    pub encoding: &'static Encoding,
    pub source: EncodingSource,
    /// Bytes that no decoding could map (replaced by U+FFFD).
    pub had_errors: bool,
}

/// How far into the page a `<meta>` declaration is looked for (the HTML
/// standard's prescan reads 1024 bytes; real pages put comments and
/// scripts first, so we read further).
const PRESCAN_BYTES: usize = 4096;

pub fn decode_html(bytes: &[u8]) -> Decoded {
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        let (text, had_errors) = encoding.decode_without_bom_handling(&bytes[bom_len..]);
        return Decoded {
            text: text.into_owned(),
            encoding,
            source: EncodingSource::Bom,
            had_errors,
        };
    }
    // Before the declaration: a UTF-16 page's `<meta>` is not ASCII.
    if let Some(encoding) = utf16_without_bom(bytes) {
        let (text, had_errors) = encoding.decode_without_bom_handling(bytes);
        return Decoded {
            text: text.into_owned(),
            encoding,
            source: EncodingSource::Detected,
            had_errors,
        };
    }
    if let Some(declared) = meta_charset(&bytes[..bytes.len().min(PRESCAN_BYTES)]) {
        // Any byte sequence decodes in a single-byte charset, so such a
        // declaration never fails by itself: bytes that are valid
        // multi-byte text say more than it does.
        if declared.is_single_byte() {
            if let Some(decoded) = multi_byte_despite(bytes) {
                return decoded;
            }
        }
        let (text, had_errors) = declared.decode_without_bom_handling(bytes);
        if !had_errors {
            return Decoded {
                text: text.into_owned(),
                encoding: declared,
                source: EncodingSource::Meta,
                had_errors,
            };
        }
    }
    // chardetng answers UTF-8 for any valid UTF-8 (unless it is ASCII with
    // escapes, which may be ISO-2022-JP): checking validity first skips
    // its statistics on most pages.
    let valid_utf8 =
        std::str::from_utf8(bytes).is_ok() && !(bytes.is_ascii() && bytes.contains(&0x1b));
    let encoding = if valid_utf8 {
        UTF_8
    } else {
        let mut detector = chardetng::EncodingDetector::new();
        detector.feed(bytes, true);
        detector.guess(None, true)
    };
    let (text, had_errors) = encoding.decode_without_bom_handling(bytes);
    Decoded {
        text: text.into_owned(),
        encoding,
        source: EncodingSource::Detected,
        had_errors,
    }
}

/// How many leading bytes [`utf16_without_bom`] looks at.
const UTF16_SAMPLE_BYTES: usize = 4096;

/// UTF-16LE or BE when `bytes` (no BOM) look like it: text and markup
/// hold ASCII, which UTF-16 stores as a NUL beside each character, so a
/// quarter or more of the code units have a NUL on one side and almost
/// none on the other. No 8-bit encoding of text holds NULs like that
/// (chardetng would take such bytes for windows-1252 and keep the NULs).
pub fn utf16_without_bom(bytes: &[u8]) -> Option<&'static Encoding> {
    let sample = &bytes[..bytes.len().min(UTF16_SAMPLE_BYTES) & !1];
    let units = sample.len() / 2;
    if units < 2 {
        return None;
    }
    let (mut first_nul, mut second_nul) = (0usize, 0usize);
    for unit in sample.chunks_exact(2) {
        first_nul += usize::from(unit[0] == 0);
        second_nul += usize::from(unit[1] == 0);
    }
    let looks =
        |nul_side: usize, other_side: usize| nul_side * 4 >= units && other_side * 20 <= nul_side;
    // ASCII in little-endian UTF-16 is the byte, then the NUL.
    if looks(second_nul, first_nul) {
        Some(encoding_rs::UTF_16LE)
    } else if looks(first_nul, second_nul) {
        Some(encoding_rs::UTF_16BE)
    } else {
        None
    }
}

/// A corpus file's text when it is UTF-16, with or without a BOM, as
/// UTF-8; `None` when it is not UTF-16.
pub fn utf16_text(bytes: &[u8]) -> Option<String> {
    let (encoding, skip) = match Encoding::for_bom(bytes) {
        Some((e, n)) if e == encoding_rs::UTF_16LE || e == encoding_rs::UTF_16BE => (e, n),
        Some(_) => return None,
        None => (utf16_without_bom(bytes)?, 0),
    };
    let (text, _) = encoding.decode_without_bom_handling(&bytes[skip..]);
    Some(text.into_owned())
}

/// Multi-byte encodings chardetng may overrule a single-byte declaration
/// with, when it is confident and the bytes decode cleanly.
const MULTI_BYTE: [&Encoding; 6] = [
    encoding_rs::GBK,
    encoding_rs::GB18030,
    encoding_rs::BIG5,
    encoding_rs::SHIFT_JIS,
    encoding_rs::EUC_JP,
    encoding_rs::EUC_KR,
];

/// The page decoded as valid non-ASCII UTF-8, or as the CJK encoding
/// chardetng is confident of, instead of the single-byte charset it
/// declares; `None` keeps the declaration.
fn multi_byte_despite(bytes: &[u8]) -> Option<Decoded> {
    let detected = |text: String, encoding| Decoded {
        text,
        encoding,
        source: EncodingSource::Detected,
        had_errors: false,
    };
    if !bytes.is_ascii() {
        if let Ok(text) = std::str::from_utf8(bytes) {
            return Some(detected(text.to_string(), UTF_8));
        }
    }
    let mut detector = chardetng::EncodingDetector::new();
    detector.feed(bytes, true);
    let (guess, confident) = detector.guess_assess(None, false);
    if !confident || !MULTI_BYTE.contains(&guess) {
        return None;
    }
    let (text, had_errors) = guess.decode_without_bom_handling(bytes);
    (!had_errors).then(|| detected(text.into_owned(), guess))
}

/// The encoding a `<meta charset>` or `<meta http-equiv content>` names.
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let lower: Vec<u8> = head.iter().map(u8::to_ascii_lowercase).collect();
    let mut from = 0;
    while let Some(at) = find(&lower[from..], b"<meta").map(|i| from + i) {
        let end = lower[at..]
            .iter()
            .position(|&b| b == b'>')
            .map(|i| at + i)
            .unwrap_or(lower.len());
        let tag = &lower[at..end];
        if let Some(c) = find(tag, b"charset") {
            let rest = &tag[c + 7..];
            let rest = skip_while(rest, |b| b.is_ascii_whitespace());
            if let Some(rest) = rest.strip_prefix(b"=") {
                let rest = skip_while(rest, |b| b.is_ascii_whitespace() || b == b'"' || b == b'\'');
                let label_end = rest
                    .iter()
                    .position(|&b| {
                        b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b';' | b'/' | b'>')
                    })
                    .unwrap_or(rest.len());
                if let Some(encoding) = Encoding::for_label(&rest[..label_end]) {
                    // The standard: a page cannot declare UTF-16 in itself
                    // (it would not be ASCII-readable); it means UTF-8.
                    let utf16 =
                        encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE;
                    return Some(if utf16 { UTF_8 } else { encoding });
                }
            }
        }
        from = end.max(at + 5);
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn skip_while(s: &[u8], f: impl Fn(u8) -> bool) -> &[u8] {
    let n = s.iter().position(|&b| !f(b)).unwrap_or(s.len());
    &s[n..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{BIG5, GBK, SHIFT_JIS, WINDOWS_1252};

    const ARTICLE: &str = "<html><head><title>江城地铁五号线今日开通</title></head><body>\
        <p>本报讯 经过四年建设，江城地铁五号线今天上午九时正式开通试运营。这条线路全长三十二公里，\
        设车站二十四座，连接城市东部新区和西部老城。据地铁公司介绍，五号线采用六节编组列车，\
        高峰时段行车间隔为四分钟。</p></body></html>";

    #[test]
    fn gbk_without_a_declaration_round_trips() {
        let (bytes, _, unmappable) = GBK.encode(ARTICLE);
        assert!(!unmappable);
        assert!(
            std::str::from_utf8(&bytes).is_err(),
            "the bytes really are not UTF-8"
        );
        let decoded = decode_html(&bytes);
        assert_eq!(decoded.text, ARTICLE);
        assert_eq!(decoded.source, EncodingSource::Detected);
        assert!(!decoded.had_errors);
    }

    #[test]
    fn a_meta_declaration_is_followed() {
        let page = format!(
            "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=gb2312\">{ARTICLE}"
        );
        let (bytes, _, _) = GBK.encode(&page);
        let decoded = decode_html(&bytes);
        assert_eq!(
            (decoded.text.as_str(), decoded.source),
            (page.as_str(), EncodingSource::Meta)
        );
        let page = "<meta charset='big5'><p>臺灣的天氣很好，今天適合出門走走。</p>";
        let (bytes, _, _) = BIG5.encode(page);
        assert_eq!(decode_html(&bytes).text, page);
    }

    #[test]
    fn a_lying_declaration_is_overruled() {
        // Declared UTF-8, served as GBK, as misconfigured servers do.
        let page = format!("<meta charset=\"utf-8\">{ARTICLE}");
        let (bytes, _, _) = GBK.encode(&page);
        let decoded = decode_html(&bytes);
        assert_eq!(decoded.text, page);
        assert_eq!(decoded.source, EncodingSource::Detected);
    }

    #[test]
    fn a_lying_single_byte_declaration_loses_to_multi_byte_text() {
        for label in ["iso-8859-1", "windows-1252", "latin1", "koi8-r"] {
            let page = format!("<meta charset=\"{label}\">{ARTICLE}");
            let decoded = decode_html(page.as_bytes());
            assert_eq!(decoded.text, page, "UTF-8 declared {label}");
            assert_eq!(decoded.encoding, UTF_8);
            assert_eq!(decoded.source, EncodingSource::Detected);

            let (gbk, _, _) = GBK.encode(&page);
            let decoded = decode_html(&gbk);
            assert_eq!(decoded.text, page, "GBK declared {label}");
            assert_eq!(decoded.source, EncodingSource::Detected);
        }
        let page = "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=ISO-8859-1\">\
            <p>臺灣的天氣很好，今天適合出門走走。台北的夜市很熱鬧，小吃也很好吃。</p>";
        let (big5, _, _) = BIG5.encode(page);
        assert_eq!(decode_html(&big5).text, page);
        let page = "<meta charset=windows-1252><p>日本語のページです。今日はいい天気ですね。東京の桜が満開になりました。</p>";
        let (sjis, _, _) = SHIFT_JIS.encode(page);
        assert_eq!(decode_html(&sjis).text, page);
    }

    #[test]
    fn a_true_single_byte_declaration_still_wins() {
        let page =
            "<meta charset=windows-1252><p>Déjà vu: café, naïve, façade — the old résumé again, \
            and the crème brûlée at the hôtel in Zürich.</p>";
        let (bytes, _, _) = WINDOWS_1252.encode(page);
        let decoded = decode_html(&bytes);
        assert_eq!(
            (decoded.text.as_str(), decoded.encoding, decoded.source),
            (page, WINDOWS_1252, EncodingSource::Meta)
        );
        let page = "<meta charset=iso-8859-1><p>Plain ASCII only.</p>";
        assert_eq!(decode_html(page.as_bytes()).source, EncodingSource::Meta);
    }

    #[test]
    fn boms_win_and_other_encodings_decode() {
        let mut bytes = vec![0xEF, 0xBB, 0xBF];
        bytes.extend_from_slice("<p>héllo</p>".as_bytes());
        let decoded = decode_html(&bytes);
        assert_eq!(
            (decoded.text.as_str(), decoded.source),
            ("<p>héllo</p>", EncodingSource::Bom)
        );
        let page = "<p>日本語のページです。今日はいい天気ですね。東京の桜が満開になりました。</p>";
        let (bytes, _, _) = SHIFT_JIS.encode(page);
        assert_eq!(decode_html(&bytes).text, page);
        let page = "<p>Déjà vu: café, naïve, façade — the old résumé again.</p>";
        let (bytes, _, _) = WINDOWS_1252.encode(page);
        assert_eq!(decode_html(&bytes).text, page);
    }

    #[test]
    fn binary_junk_decodes_to_something_without_panicking() {
        let junk: Vec<u8> = (0..5000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let _ = decode_html(&junk);
        let _ = decode_html(&[]);
    }
}
