//! The layout of the models file, shared with the program that writes it
//! (`scripts/langid-model`): a header, a hash table of n-grams (linear
//! probing) and their entries. All numbers little-endian.
//!
//! - [`MAGIC`]; u8 languages, each a u8 length and its ISO 639-3 code;
//!   u8 orders (the longest n-gram); u32 slots;
//! - the slots, [`SLOT_BYTES`] each: u16 hash check (the low bits of
//!   [`hash`]), u32 offset into the entries + 1 (0: an empty slot); an
//!   n-gram is looked for from [`first_slot`] on;
//! - the entries: per n-gram, u8 count, then count × (u8 language index,
//!   u8 -[`QUANTUM`] · ln P(last letter | the letters before)).

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"LCNGRAM3";
/// Bytes of a slot: u16 hash check, u32 offset into the entries + 1.
pub const SLOT_BYTES: usize = 6;
/// Log-probabilities are stored as -16 · ln P in one byte.
pub const QUANTUM: f32 = 16.0;

/// FNV-1a of an n-gram's UTF-8 bytes: its first slot (from the top 32
/// bits, [`first_slot`]) and its check (the low 16 bits) in the table.
pub fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The slot an n-gram of hash `h` is looked for first, of `n_slots`.
pub fn first_slot(h: u64, n_slots: usize) -> usize {
    (((h >> 32) * n_slots as u64) >> 32) as usize
}
