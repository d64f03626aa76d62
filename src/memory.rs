//! Memory sizes: `--memory-limit` values (`512MiB`, `2GiB`, `1.5G`, `none`),
//! the default (none), the process's peak resident memory, and trimming
//! the spare room of buffers that wait.

/// Gives back a vector's spare room when it is more than an eighth of
/// what it holds (and more than 4 KiB): for buffers grown item by item
/// (to up to twice their length) that then wait in memory, such as a
/// fetched body until its row is written or a page's link rows.
pub fn fit<T>(items: &mut Vec<T>) {
    let spare = (items.capacity() - items.len()) * std::mem::size_of::<T>();
    let used = items.len() * std::mem::size_of::<T>();
    if spare > used / 8 + 4096 {
        items.shrink_to_fit();
    }
}

/// The smallest limit accepted: below it DataFusion cannot run a join.
pub const MIN_LIMIT: usize = 16 << 20;

/// Parses a size: a number with an optional unit. `KiB`, `MiB`, `GiB`,
/// `TiB` and the single letters `K`, `M`, `G`, `T` are powers of 1024; `KB`,
/// `MB`, `GB`, `TB` powers of 1000; `B` or no unit, bytes. Case-insensitive.
pub fn parse_size(text: &str) -> Result<usize, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a size (e.g. 512MiB, 2GiB)"))?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024f64.powi(2),
        "g" | "gib" => 1024f64.powi(3),
        "t" | "tib" => 1024f64.powi(4),
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        other => {
            return Err(format!(
                "{other:?} is not a size unit (B, KiB, MiB, GiB, TiB)"
            ))
        }
    };
    let bytes = number * scale;
    if !bytes.is_finite() || bytes >= usize::MAX as f64 {
        return Err(format!("{text:?} is too large"));
    }
    Ok(bytes as usize)
}

/// [`parse_size`] of a size that must hold something: above 0 bytes (a
/// content cap, a page budget, a file size).
pub fn parse_nonzero_size(text: &str) -> Result<usize, String> {
    match parse_size(text)? {
        0 => Err(format!("{text:?}: give a size above 0 bytes")),
        bytes => Ok(bytes),
    }
}

/// `--memory-limit none`: no pool limit (the OS decides).
pub const UNLIMITED: usize = usize::MAX;

/// Parses a `--memory-limit`: a size of at least [`MIN_LIMIT`].
pub fn parse_limit(text: &str) -> Result<usize, String> {
    if matches!(text.trim(), "none" | "unlimited") {
        return Ok(UNLIMITED);
    }
    let bytes = parse_size(text)?;
    if bytes < MIN_LIMIT {
        return Err(format!("{text:?}: must be at least 16MiB"));
    }
    Ok(bytes)
}

/// The default memory limit: none. The pool counts DataFusion's estimates,
/// which run far above what a query really holds: an updatedb of a
/// 10M-URL crawldb peaks at 1.9 GiB resident without a pool, but does not
/// fit a pool of 17.7 GiB (three quarters of a 23 GiB machine), so any
/// default pool would stop crawls that fit the machine. A user who wants
/// sorts to spill sets one.
pub fn default_limit() -> usize {
    UNLIMITED
}

/// `bytes` as a short size: `512 MiB`, `2.0 GiB`.
pub fn format_size(bytes: usize) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    let bytes = bytes as f64;
    if bytes >= GIB {
        format!("{:.1} GiB", bytes / GIB)
    } else {
        format!("{:.0} MiB", bytes / (1u64 << 20) as f64)
    }
}

/// This process's peak resident memory (`VmHWM` of `/proc/self/status`), in
/// bytes, where it can be read.
pub fn peak_rss() -> Option<usize> {
    proc_kib("/proc/self/status", "VmHWM:")
}

/// A `Key:   123 kB` line of a `/proc` file, in bytes.
fn proc_kib(file: &str, key: &str) -> Option<usize> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: usize = line[key.len()..].split_whitespace().next()?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grown_buffer_keeps_little_more_room_than_its_bytes() {
        // As a chunked body of 1 MiB + 1 byte grows: room for 2 MiB.
        let mut grown = Vec::with_capacity(2 << 20);
        grown.resize((1 << 20) + 1, b'x');
        fit(&mut grown);
        assert!(
            grown.capacity() < (1 << 20) + (1 << 17),
            "{}",
            grown.capacity()
        );
        let mut sized = Vec::with_capacity(1 << 20);
        sized.resize((1 << 20) - 10_000, b'x');
        fit(&mut sized);
        assert_eq!(
            sized.capacity(),
            1 << 20,
            "a little slack is kept, not copied"
        );
    }

    #[test]
    fn sizes_parse_with_binary_and_decimal_units() {
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("512m"), Ok(512 << 20));
        assert_eq!(parse_size("1.5G"), Ok(3 << 29));
        assert_eq!(parse_size("2GB"), Ok(2_000_000_000));
        assert_eq!(parse_size(" 4096 "), Ok(4096));
        assert_eq!(parse_nonzero_size("1KiB"), Ok(1024));
        assert!(parse_nonzero_size("0").is_err() && parse_nonzero_size("0.0001").is_err());
        assert_eq!(parse_size("100 kb"), Ok(100_000));
        assert!(parse_size("lots").unwrap_err().contains("not a size"));
        assert!(parse_size("2 parsecs")
            .unwrap_err()
            .contains("not a size unit"));
        assert!(parse_size("").is_err());
        assert!(parse_size("1e400").is_err());
        assert!(parse_size("99999999999TiB")
            .unwrap_err()
            .contains("too large"));
    }

    #[test]
    fn a_limit_is_at_least_16_mib_and_there_is_none_by_default() {
        assert!(parse_limit("1MiB").unwrap_err().contains("at least 16MiB"));
        assert!(parse_limit("0").is_err());
        assert_eq!(parse_limit("16MiB"), Ok(MIN_LIMIT));
        assert_eq!(parse_limit("none"), Ok(UNLIMITED));
        assert_eq!(default_limit(), UNLIMITED);
        assert_eq!(format_size(2 << 30), "2.0 GiB");
        assert_eq!(format_size(512 << 20), "512 MiB");
    }

    #[test]
    fn peak_memory_is_read_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(peak_rss().unwrap() > 1 << 20);
        }
    }
}
