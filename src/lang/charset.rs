//! Charset decoding: the HTTP header's charset, then `<meta charset>` /
//! `http-equiv`, then detection with chardetng, then UTF-8. A declared
//! charset that does not decode the bytes cleanly loses to the next source.

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{Encoding, UTF_8};

/// How many bytes of the document are searched for a `<meta>` charset.
const META_PRESCAN_BYTES: usize = 4096;

/// Text decoded from a page's bytes, and how its charset was chosen.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub text: String,
    /// WHATWG name of the encoding used (`Shift_JIS`, `EUC-KR`, `windows-874`).
    pub charset: &'static str,
    /// Which source decided: `bom`, `http`, `meta`, `detected`, `default`.
    pub source: &'static str,
    /// The charset named by a `<meta>` tag, as written, if any.
    pub meta_charset: Option<String>,
}

/// Decodes `bytes`; `http_charset` is the header's `charset=` label and
/// `tld` (e.g. `jp`) helps the detector.
pub fn decode(bytes: &[u8], http_charset: Option<&str>, tld: Option<&str>) -> Decoded {
    let meta_charset = meta_charset(bytes);
    let finish = |encoding: &'static Encoding, source: &'static str, text: String| Decoded {
        text,
        charset: encoding.name(),
        source,
        meta_charset: meta_charset.clone(),
    };
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        let (text, _) = encoding.decode_without_bom_handling(&bytes[bom_len..]);
        return finish(encoding, "bom", text.into_owned());
    }
    let declared = [(http_charset, "http"), (meta_charset.as_deref(), "meta")];
    for (label, source) in declared {
        let Some(encoding) = label.and_then(|l| Encoding::for_label(l.trim().as_bytes())) else {
            continue;
        };
        if let Some(text) = decode_cleanly(encoding, bytes) {
            return finish(encoding, source, text);
        }
    }
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Allow);
    detector.feed(bytes, true);
    let tld = tld.map(str::as_bytes);
    let detected = detector.guess(tld, Utf8Detection::Allow);
    if let Some(text) = decode_cleanly(detected, bytes) {
        return finish(detected, "detected", text);
    }
    let (text, _) = UTF_8.decode_without_bom_handling(bytes);
    finish(UTF_8, "default", text.into_owned())
}

/// Decodes with `encoding` if the bytes are (nearly) valid in it: a few
/// malformed sequences are tolerated, e.g. a character cut by a size cap.
fn decode_cleanly(encoding: &'static Encoding, bytes: &[u8]) -> Option<String> {
    let (text, had_errors) = encoding.decode_without_bom_handling(bytes);
    if !had_errors {
        return Some(text.into_owned());
    }
    let replacements = text.chars().filter(|&c| c == '\u{FFFD}').count();
    (replacements <= 1 + bytes.len() / 4000).then(|| text.into_owned())
}

/// The charset named by `<meta charset=..>` or `<meta http-equiv ... content="..; charset=..">`
/// in the first bytes of the document.
pub fn meta_charset(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(META_PRESCAN_BYTES)];
    let lower: Vec<u8> = head.iter().map(u8::to_ascii_lowercase).collect();
    let mut from = 0;
    while let Some(start) = find(&lower[from..], b"<meta").map(|i| i + from) {
        let end = find(&lower[start..], b">").map_or(lower.len(), |i| i + start);
        if let Some(label) = charset_in_tag(&lower[start..end]) {
            return Some(label);
        }
        from = end;
    }
    None
}

fn charset_in_tag(tag: &[u8]) -> Option<String> {
    let at = find(tag, b"charset")? + b"charset".len();
    let rest = &tag[at..];
    let rest = rest.strip_prefix(b" ").unwrap_or(rest);
    let rest = rest.strip_prefix(b"=")?;
    let rest: &[u8] = match rest.iter().position(|b| !b" \"'".contains(b)) {
        Some(i) => &rest[i..],
        None => return None,
    };
    let len = rest
        .iter()
        .position(|b| b" \"';>/\t\n\r".contains(b))
        .unwrap_or(rest.len());
    (len > 0).then(|| String::from_utf8_lossy(&rest[..len]).into_owned())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The `charset=` parameter of a `Content-Type` header value.
pub fn header_charset(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|param| {
        let (key, value) = param.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches('"'))
    })
}

/// The language a legacy charset implies, for pages whose text is too short.
pub fn charset_language(charset: &str) -> Option<&'static str> {
    match charset {
        "Shift_JIS" | "EUC-JP" | "ISO-2022-JP" => Some("jpn"),
        "EUC-KR" => Some("kor"),
        "windows-874" => Some("tha"),
        "GBK" | "gb18030" | "Big5" => Some("cmn"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(text: &str, label: &str) -> Vec<u8> {
        let encoding = Encoding::for_label(label.as_bytes()).unwrap();
        encoding.encode(text).0.into_owned()
    }

    const JA: &str =
        "すべての人間は、生まれながらにして自由であり、かつ、尊厳と権利とについて平等である。";

    #[test]
    fn http_charset_wins_when_it_decodes() {
        let bytes = encode(JA, "shift_jis");
        let decoded = decode(&bytes, Some("Shift_JIS"), None);
        assert_eq!((decoded.text.as_str(), decoded.source), (JA, "http"));
    }

    #[test]
    fn a_wrong_declaration_loses_to_detection() {
        let bytes = encode(JA, "euc-jp");
        let decoded = decode(&bytes, Some("utf-8"), Some("jp"));
        assert_eq!(decoded.text, JA);
        assert_eq!((decoded.charset, decoded.source), ("EUC-JP", "detected"));
    }

    #[test]
    fn meta_charset_is_found_in_both_forms() {
        let html = br#"<html><head><META http-equiv="Content-Type" content="text/html; charset=EUC-KR"></head>"#;
        assert_eq!(meta_charset(html).as_deref(), Some("euc-kr"));
        assert_eq!(
            meta_charset(b"<meta charset='tis-620'>").as_deref(),
            Some("tis-620")
        );
        assert_eq!(meta_charset(b"<meta name=x content=y>"), None);
    }

    #[test]
    fn header_charset_parameter() {
        assert_eq!(
            header_charset("text/html; charset=\"EUC-KR\""),
            Some("EUC-KR")
        );
        assert_eq!(header_charset("text/html"), None);
    }
}
