//! A response body as received and as parse reads it: the payload keeps the
//! server's `Content-Encoding` (what WARC stores); the content is decoded
//! (gzip, deflate, br; stacked encodings in reverse order) and capped, so a
//! gzip bomb stops at the cap whatever it expands to.

use std::io::Read;

/// The encodings the client asks for (`Accept-Encoding`) and decodes.
pub const ACCEPT_ENCODING: &str = "gzip, deflate, br";

/// A payload decoded under a cap.
#[derive(Debug, Default, PartialEq)]
pub struct Decoded {
    pub content: Vec<u8>,
    /// The decoded bytes went past the cap (the content is cut there).
    pub capped: bool,
    /// Why decoding stopped early (the content holds what came before).
    pub error: Option<String>,
}

/// Decodes `payload` sent with `Content-Encoding: encoding` (`None` or
/// `identity`: the payload is the content), keeping at most `cap` bytes.
pub fn decode(payload: &[u8], encoding: Option<&str>, cap: usize) -> Decoded {
    let codings = codings(encoding);
    if codings.is_empty() {
        let capped = payload.len() > cap;
        return Decoded {
            content: payload[..payload.len().min(cap)].to_vec(),
            capped,
            error: None,
        };
    }
    let mut bytes = payload.to_vec();
    let mut capped = false;
    for coding in codings.iter().rev() {
        let (out, stage_capped, error) = match decoder(coding, &bytes) {
            Some(reader) => read_capped(reader, cap),
            None => return unsupported(coding),
        };
        capped |= stage_capped;
        bytes = out;
        if let Some(e) = error {
            let error = Some(format!("Content-Encoding {coding}: {e}"));
            return Decoded {
                content: bytes,
                capped,
                error,
            };
        }
    }
    Decoded {
        content: bytes,
        capped,
        error: None,
    }
}

/// Whether a payload sent with `Content-Encoding: encoding` is the content
/// itself (no header, `identity`).
pub fn is_identity(encoding: Option<&str>) -> bool {
    codings(encoding).is_empty()
}

/// The codings applied, in the order the server applied them.
fn codings(encoding: Option<&str>) -> Vec<String> {
    encoding
        .unwrap_or("")
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty() && c != "identity")
        .collect()
}

fn unsupported(coding: &str) -> Decoded {
    Decoded {
        error: Some(format!("unsupported Content-Encoding {coding:?}")),
        ..Decoded::default()
    }
}

/// A reader that decodes `coding`; `deflate` is zlib-wrapped by the
/// standard, but some servers send raw deflate.
fn decoder<'a>(coding: &str, bytes: &'a [u8]) -> Option<Box<dyn Read + 'a>> {
    Some(match coding {
        "gzip" | "x-gzip" => Box::new(flate2::read::MultiGzDecoder::new(bytes)),
        "deflate" if bytes.first().is_some_and(|b| b & 0x0f == 8) => {
            Box::new(flate2::read::ZlibDecoder::new(bytes))
        }
        "deflate" => Box::new(flate2::read::DeflateDecoder::new(bytes)),
        "br" => Box::new(brotli_decompressor::Decompressor::new(bytes, 4096)),
        _ => return None,
    })
}

/// Reads at most `cap` bytes; whether there was more; the error that
/// stopped it early, if any.
fn read_capped(reader: impl Read, cap: usize) -> (Vec<u8>, bool, Option<String>) {
    let mut out = Vec::new();
    let mut limited = reader.take(cap as u64 + 1);
    let error = loop {
        let mut chunk = [0u8; 16 * 1024];
        match limited.read(&mut chunk) {
            Ok(0) => break None,
            Ok(n) => out.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => break Some(e.to_string()),
        }
    };
    let capped = out.len() > cap;
    out.truncate(cap);
    // grown chunk by chunk, it waits in memory until its row is written
    crate::memory::fit(&mut out);
    (out, capped, error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::{GzEncoder, ZlibEncoder};
    use flate2::Compression;
    use proptest::prelude::*;
    use std::io::Write;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn gzip_deflate_and_identity_decode_to_the_page() {
        let page = "<p>日本語のページ</p>".repeat(50);
        let zipped = gzip(page.as_bytes());
        assert_eq!(
            decode(&zipped, Some("gzip"), 1 << 20).content,
            page.as_bytes()
        );
        let mut zlib = ZlibEncoder::new(Vec::new(), Compression::fast());
        zlib.write_all(page.as_bytes()).unwrap();
        let zlib = zlib.finish().unwrap();
        assert_eq!(
            decode(&zlib, Some("Deflate"), 1 << 20).content,
            page.as_bytes()
        );
        assert_eq!(
            decode(page.as_bytes(), None, 1 << 20).content,
            page.as_bytes()
        );
        let twice = gzip(&zipped);
        let decoded = decode(&twice, Some("gzip, gzip"), 1 << 20);
        assert_eq!(
            (decoded.content.as_slice(), decoded.error),
            (page.as_bytes(), None)
        );
    }

    #[test]
    fn a_bomb_stops_at_the_cap_and_a_cut_payload_keeps_what_came_before() {
        let zeros = vec![0u8; 10 << 20];
        let bomb = gzip(&zeros);
        let decoded = decode(&bomb, Some("gzip"), 4096);
        assert_eq!((decoded.content.len(), decoded.capped), (4096, true));

        let page = "<p>x</p>".repeat(5000);
        let zipped = gzip(page.as_bytes());
        let cut = decode(&zipped[..zipped.len() / 2], Some("gzip"), 1 << 20);
        assert!(cut.error.is_some(), "a cut gzip stream is an error");
        assert!(!cut.content.is_empty() && page.as_bytes().starts_with(&cut.content));
        assert!(decode(b"abc", Some("zstd"), 10)
            .error
            .unwrap()
            .contains("zstd"));
    }

    proptest! {
        #[test]
        fn any_payload_and_encoding_decodes_without_panicking(
            payload in proptest::collection::vec(any::<u8>(), 0..512),
            encoding in "(gzip|deflate|br|identity|x-gzip|zstd|, ){0,3}",
            cap in 0usize..600,
        ) {
            let decoded = decode(&payload, Some(&encoding), cap);
            prop_assert!(decoded.content.len() <= cap);
        }
    }
}
