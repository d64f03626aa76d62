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
/// `tld` (e.g. `jp`) helps the detector. A declared charset loses to
/// detection when the bytes are not valid in it, or when it is a one-byte
/// charset and the detector finds a charset of another script (a page
/// declared windows-1252 whose bytes are Shift_JIS).
pub fn decode(bytes: &[u8], http_charset: Option<&str>, tld: Option<&str>) -> Decoded {
    let meta_charset = meta_charset(bytes);
    let finish = |charset: &'static str, source: &'static str, text: String| Decoded {
        text,
        charset,
        source,
        meta_charset: meta_charset.clone(),
    };
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        let (text, _) = encoding.decode_without_bom_handling(&bytes[bom_len..]);
        return finish(encoding.name(), "bom", text.into_owned());
    }
    if let Some(text) = decode_hz(bytes) {
        return finish(HZ, "detected", text);
    }
    if looks_like_iso_2022_jp(bytes) {
        let joined = join_iso_2022_jp_segments(bytes);
        if let Some(text) = decode_cleanly(encoding_rs::ISO_2022_JP, &joined) {
            return finish(encoding_rs::ISO_2022_JP.name(), "detected", text);
        }
    }
    // The detector reads every byte: run it only when a declaration needs
    // checking against it or none decodes the page.
    let detected = std::cell::OnceCell::new();
    let detected = || *detected.get_or_init(|| detect(bytes, tld));
    let declared = [(http_charset, "http"), (meta_charset.as_deref(), "meta")];
    for (label, source) in declared {
        let Some(encoding) = label.and_then(|l| Encoding::for_label(l.trim().as_bytes())) else {
            continue;
        };
        if may_be_overruled(encoding, bytes) && overruled(encoding, detected(), bytes) {
            continue;
        }
        if let Some(text) = decode_cleanly(encoding, bytes) {
            return finish(encoding.name(), source, text);
        }
    }
    let detected = detected();
    if let Some(text) = decode_cleanly(detected, bytes) {
        return finish(detected.name(), "detected", text);
    }
    let (text, _) = UTF_8.decode_without_bom_handling(bytes);
    finish(UTF_8.name(), "default", text.into_owned())
}

/// The name recorded for HZ-GB-2312 text (which encoding_rs does not decode).
pub const HZ: &str = "HZ-GB-2312";

/// chardetng's guess; `tld` is used only if it is one plain lower-case label.
/// Bytes valid in UTF-8 are UTF-8 to chardetng (`Utf8Detection::Allow`),
/// unless they are 7-bit with escape sequences: that answer is given
/// without its scoring of every byte by every candidate (a tenth of
/// parse's time on pages that declare no charset).
fn detect(bytes: &[u8], tld: Option<&str>) -> &'static Encoding {
    if !bytes.contains(&0x1b) && std::str::from_utf8(bytes).is_ok() {
        return UTF_8;
    }
    chardetng_guess(bytes, tld)
}

fn chardetng_guess(bytes: &[u8], tld: Option<&str>) -> &'static Encoding {
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Allow);
    detector.feed(bytes, true);
    let tld = tld.filter(|t| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    });
    detector.guess(tld.map(str::as_bytes), Utf8Detection::Allow)
}

/// 7-bit text with the escape sequences that switch ISO-2022-JP into JIS X
/// 0208 (chardetng gives up on a file cut inside an escape sequence).
fn looks_like_iso_2022_jp(bytes: &[u8]) -> bool {
    bytes.is_ascii() && (find(bytes, b"\x1b$B").is_some() || find(bytes, b"\x1b$@").is_some())
}

/// Drops the empty segments between two escape sequences (`ESC ( B ESC $ B`),
/// which the WHATWG decoder counts as errors but real files are full of.
fn join_iso_2022_jp_segments(bytes: &[u8]) -> Vec<u8> {
    const TO_ASCII: &[u8] = b"\x1b(B";
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(TO_ASCII) && rest.get(3) == Some(&0x1b) {
            i += TO_ASCII.len();
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// True if the detector could overrule a declared `declared`: only a
/// one-byte charset on bytes that are not all ASCII can be overruled.
fn may_be_overruled(declared: &'static Encoding, bytes: &[u8]) -> bool {
    declared.is_single_byte() && declared != UTF_8 && !bytes.is_ascii()
}

/// True if a declared one-byte charset should give way to the detector's
/// guess of a charset for another script.
fn overruled(declared: &'static Encoding, detected: &'static Encoding, bytes: &[u8]) -> bool {
    may_be_overruled(declared, bytes)
        && script_family(detected) != "latin"
        && script_family(detected) != script_family(declared)
        && decode_cleanly(detected, bytes).is_some()
}

/// The script an encoding is made for, to tell a plausible declaration
/// (windows-1250 for ISO-8859-2) from an impossible one (windows-1252 for Shift_JIS).
fn script_family(encoding: &'static Encoding) -> &'static str {
    match encoding.name() {
        "Shift_JIS" | "EUC-JP" | "ISO-2022-JP" => "jpn",
        "EUC-KR" => "kor",
        "GBK" | "gb18030" | "Big5" => "zh",
        "windows-874" => "tha",
        "windows-1251" | "KOI8-R" | "KOI8-U" | "ISO-8859-5" | "IBM866" | "x-mac-cyrillic" => {
            "cyrillic"
        }
        "windows-1256" | "ISO-8859-6" => "arabic",
        "windows-1253" | "ISO-8859-7" => "greek",
        "windows-1255" | "ISO-8859-8" | "ISO-8859-8-I" => "hebrew",
        "UTF-8" | "UTF-16LE" | "UTF-16BE" => "unicode",
        _ => "latin",
    }
}

/// Decodes HZ-GB-2312 (7-bit text with `~{ ... ~}` runs of GB2312), if the
/// bytes are HZ.
fn decode_hz(bytes: &[u8]) -> Option<String> {
    if !bytes.is_ascii() || find(bytes, b"~{").is_none() || find(bytes, b"~}").is_none() {
        return None;
    }
    let mut text = String::with_capacity(bytes.len());
    let mut gb_run: Vec<u8> = Vec::new();
    let (mut i, mut in_gb) = (0, false);
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1), in_gb) {
            (b'~', Some(b'{'), false) => (in_gb, i) = (true, i + 2),
            (b'~', Some(b'}'), true) => {
                text.push_str(&encoding_rs::GBK.decode_without_bom_handling(&gb_run).0);
                gb_run.clear();
                (in_gb, i) = (false, i + 2);
            }
            (b'~', Some(b'~'), false) => {
                text.push('~');
                i += 2;
            }
            (b'~', Some(b'\n'), false) => i += 2,
            (byte, _, true) => {
                if byte > b' ' {
                    gb_run.push(byte | 0x80);
                }
                i += 1;
            }
            (byte, _, false) => {
                text.push(byte as char);
                i += 1;
            }
        }
    }
    text.push_str(&encoding_rs::GBK.decode_without_bom_handling(&gb_run).0);
    Some(text)
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
        "GBK" | "gb18030" | "Big5" | HZ => Some("cmn"),
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
    fn a_one_byte_declaration_loses_to_a_charset_of_another_script() {
        let bytes = encode(JA, "shift_jis");
        let decoded = decode(&bytes, Some("windows-1252"), None);
        assert_eq!(
            (decoded.text.as_str(), decoded.charset, decoded.source),
            (JA, "Shift_JIS", "detected")
        );
        let latin2 = encode("Příliš žluťoučký kůň úpěl ďábelské ódy", "windows-1250");
        assert_eq!(decode(&latin2, Some("iso-8859-2"), None).source, "http");
    }

    #[test]
    fn hz_is_decoded() {
        let decoded = decode(b"Hi ~{J@=g~} there ~~", None, None);
        assert_eq!(
            (decoded.text.as_str(), decoded.charset),
            ("Hi 世界 there ~", HZ)
        );
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

    proptest::proptest! {
        #[test]
        fn detection_answers_as_chardetng_does(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
            text in "\\PC{0,60}",
            label in proptest::sample::select(vec!["utf-8", "shift_jis", "euc-kr", "windows-874", "iso-2022-jp", "windows-1251", "gbk"]),
            tld in proptest::sample::select(vec![None, Some("jp"), Some("th"), Some("com")]),
        ) {
            let encoded = encode(&text, label);
            for input in [&bytes, text.as_bytes(), &encoded] {
                proptest::prop_assert_eq!(detect(input, tld), chardetng_guess(input, tld));
            }
        }
    }

    #[test]
    fn detection_of_real_pages_is_chardetngs() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/real-html");
        let pages = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|entry| std::fs::read(entry.unwrap().path().join("source.html")).ok());
        let mut checked = 0;
        for bytes in pages {
            for tld in [None, Some("jp")] {
                assert_eq!(detect(&bytes, tld), chardetng_guess(&bytes, tld));
            }
            checked += 1;
        }
        assert!(checked >= 10, "{checked} pages");
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
