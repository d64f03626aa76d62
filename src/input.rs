//! Files the user hands langcrawl (a page to `detect`, a seeds file, a
//! query), read up to a bound: `/dev/zero` or a mistaken multi-gigabyte
//! file is refused with one line, not read until memory runs out.

use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};

/// The largest page `detect` reads: eight times fetch's default cap.
pub const MAX_PAGE_BYTES: u64 = 8 << 20;

/// The largest seeds file `inject` reads (about two million URLs).
pub const MAX_SEEDS_BYTES: u64 = 128 << 20;

/// Reads `path` (`-`: standard input) whole, refusing it with one line if
/// it holds more than `limit` bytes; `what` names it in errors.
pub fn read_capped(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>> {
    let unreadable =
        |e: std::io::Error| Error::Usage(format!("reading {what} {}: {e}", path.display()));
    let mut bytes = Vec::new();
    if path == Path::new("-") {
        std::io::stdin()
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(unreadable)?;
    } else {
        std::fs::File::open(path)
            .and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
            .map_err(unreadable)?;
    }
    if bytes.len() as u64 > limit {
        return Err(Error::Usage(format!(
            "{what} {} is larger than {}, the most langcrawl reads",
            path.display(),
            size(limit)
        )));
    }
    Ok(bytes)
}

/// `bytes` in the largest binary unit that divides it (`8 MiB`, `64 KiB`).
fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_past_the_bound_is_refused_after_reading_one_byte_more() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("page.html");
        std::fs::write(&path, vec![b'x'; 2 << 20]).unwrap();
        assert_eq!(read_capped(&path, 2 << 20, "page").unwrap().len(), 2 << 20);
        let err = read_capped(&path, 1 << 20, "page").unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("larger than 1 MiB"), "{err}");
        let missing = read_capped(&tmp.path().join("none"), 1 << 20, "page").unwrap_err();
        assert_eq!(missing.exit_code(), 2);
    }

    #[test]
    fn an_endless_file_is_refused_within_the_bound() {
        let err = read_capped(Path::new("/dev/zero"), 1 << 20, "seeds file").unwrap_err();
        assert!(err.to_string().contains("/dev/zero"), "{err}");
    }
}
