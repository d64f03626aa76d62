//! Distils lingua-rs's character n-gram models (one `ngrams.fst` per
//! language: every n-gram of 1 to 5 letters seen in its training text, with
//! ln P(last letter | the letters before)) into one compact file: for each
//! language and order, the n-grams of highest joint probability, their
//! conditional log-probabilities quantized to 1/16 nat.
//!
//! Usage: langid-model REGISTRY_SRC OUT [KEEP...]
//!   REGISTRY_SRC  cargo's registry/src folder (its index folders are searched)
//!   KEEP          n-grams kept per language for orders 1, 2, ... (default below)
//!
//! The file layout is `src/lang/ngram_model/format.rs`.

use std::collections::{BTreeMap, HashMap};

use std::path::{Path, PathBuf};

/// The file layout, shared with the reader in langcrawl.
#[path = "../../../src/lang/ngram_model/format.rs"]
mod format;

/// lingua's model crate name → the code langcrawl names the language by
/// (ISO 639-3 as whatlang has it: Chinese `cmn`, Persian `pes`).
const LANGUAGES: &[(&str, &str)] = &[
    ("afrikaans", "afr"), ("albanian", "sqi"), ("arabic", "ara"), ("armenian", "hye"),
    ("azerbaijani", "aze"), ("basque", "eus"), ("belarusian", "bel"), ("bengali", "ben"),
    ("bokmal", "nob"), ("bosnian", "bos"), ("bulgarian", "bul"), ("catalan", "cat"),
    ("chinese", "cmn"), ("croatian", "hrv"), ("czech", "ces"), ("danish", "dan"),
    ("dutch", "nld"), ("english", "eng"), ("esperanto", "epo"), ("estonian", "est"),
    ("finnish", "fin"), ("french", "fra"), ("ganda", "lug"), ("georgian", "kat"),
    ("german", "deu"), ("greek", "ell"), ("gujarati", "guj"), ("hebrew", "heb"),
    ("hindi", "hin"), ("hungarian", "hun"), ("icelandic", "isl"), ("indonesian", "ind"),
    ("irish", "gle"), ("italian", "ita"), ("japanese", "jpn"), ("kazakh", "kaz"),
    ("korean", "kor"), ("latin", "lat"), ("latvian", "lav"), ("lithuanian", "lit"),
    ("macedonian", "mkd"), ("malay", "msa"), ("maori", "mri"), ("marathi", "mar"),
    ("mongolian", "mon"), ("nynorsk", "nno"), ("persian", "pes"), ("polish", "pol"),
    ("portuguese", "por"), ("punjabi", "pan"), ("romanian", "ron"), ("russian", "rus"),
    ("serbian", "srp"), ("shona", "sna"), ("slovak", "slk"), ("slovene", "slv"),
    ("somali", "som"), ("sotho", "sot"), ("spanish", "spa"), ("swahili", "swa"),
    ("swedish", "swe"), ("tagalog", "tgl"), ("tamil", "tam"), ("telugu", "tel"),
    ("thai", "tha"), ("tsonga", "tso"), ("tswana", "tsn"), ("turkish", "tur"),
    ("ukrainian", "ukr"), ("urdu", "urd"), ("vietnamese", "vie"), ("welsh", "cym"),
    ("xhosa", "xho"), ("yoruba", "yor"), ("zulu", "zul"),
];

/// N-grams kept per language, for orders 1 to 5 (0: all of that order).
const KEEP: &[usize] = &[0, 3000, 8000, 12000, 12000];

/// The lowest log-probability stored: rarer continuations count as unseen.
const MIN_LN_P: f64 = -255.0 / 16.0;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: langid-model REGISTRY_SRC OUT [KEEP...]");
        std::process::exit(2);
    }
    let keep: Vec<usize> = if args.len() > 3 {
        args[3..].iter().map(|k| k.parse().expect("KEEP is a number")).collect()
    } else {
        KEEP.to_vec()
    };
    let registry = Path::new(&args[1]);
    // ngram → [(language, quantized -16 ln P)]
    let mut table: BTreeMap<String, Vec<(u8, u8)>> = BTreeMap::new();
    for (index, (name, code)) in LANGUAGES.iter().enumerate() {
        let path = model_path(registry, name);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let kept = prune(&bytes, &keep);
        eprintln!("{code}: {} n-grams kept", kept.len());
        for (ngram, ln_p) in kept {
            let q = (-ln_p * format::QUANTUM as f64).round().clamp(0.0, 255.0) as u8;
            table.entry(ngram).or_default().push((index as u8, q));
        }
    }
    let out = encode(&table, keep.len());
    std::fs::write(&args[2], &out).unwrap_or_else(|e| panic!("{}: {e}", args[2]));
    eprintln!("{} n-grams, {} bytes", table.len(), out.len());
}

/// The `ngrams.fst` of lingua's model crate for `name`.
fn model_path(registry: &Path, name: &str) -> PathBuf {
    let crate_dir = format!("lingua-{name}-language-model-1.3.0");
    std::fs::read_dir(registry)
        .unwrap_or_else(|e| panic!("{}: {e}", registry.display()))
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path().join(&crate_dir).join("models/ngrams.fst"))
        .find(|path| path.exists())
        .unwrap_or_else(|| panic!("{crate_dir} is not in {}", registry.display()))
}

/// The n-grams of one language's model kept under `keep`: per order, those
/// of highest joint probability (the chain of their conditional ones), each
/// with its conditional ln P.
fn prune(fst_bytes: &[u8], keep: &[usize]) -> Vec<(String, f64)> {
    let map = fst::Map::new(fst_bytes.to_vec()).expect("a lingua ngrams.fst");
    let mut by_order: Vec<Vec<(String, f64)>> = vec![Vec::new(); keep.len()];
    let mut stream = map.stream();
    use fst::Streamer;
    while let Some((key, value)) = stream.next() {
        let ngram = String::from_utf8(key.to_vec()).expect("UTF-8 n-grams");
        let order = ngram.chars().count();
        if order <= keep.len() {
            by_order[order - 1].push((ngram, f64::from_bits(value)));
        }
    }
    let mut joint: HashMap<String, f64> = HashMap::new();
    let mut kept = Vec::new();
    for (order, mut ngrams) in by_order.into_iter().enumerate() {
        let mut scored: Vec<(f64, String, f64)> = ngrams
            .drain(..)
            .filter(|(_, ln_p)| *ln_p >= MIN_LN_P)
            .filter_map(|(ngram, ln_p)| {
                let prefix: String = ngram.chars().take(order).collect();
                let before = if order == 0 { Some(0.0) } else { joint.get(&prefix).copied() };
                before.map(|b| (b + ln_p, ngram, ln_p))
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        if keep[order] > 0 {
            scored.truncate(keep[order]);
        }
        joint = scored.iter().map(|(j, ngram, _)| (ngram.clone(), *j)).collect();
        kept.extend(scored.into_iter().map(|(_, ngram, ln_p)| (ngram, ln_p)));
    }
    kept
}

/// The file langcrawl reads ([`format`]), its hash table at most 4/5 full.
fn encode(table: &BTreeMap<String, Vec<(u8, u8)>>, orders: usize) -> Vec<u8> {
    use format::SLOT_BYTES;
    let mut out = format::MAGIC.to_vec();
    out.push(LANGUAGES.len() as u8);
    for (_, code) in LANGUAGES {
        out.push(code.len() as u8);
        out.extend_from_slice(code.as_bytes());
    }
    out.push(orders as u8);
    let n_slots = table.len() * 5 / 4 + 1;
    out.extend_from_slice(&(n_slots as u32).to_le_bytes());
    let mut slots = vec![0u8; n_slots * SLOT_BYTES];
    let mut entries = Vec::new();
    for (ngram, pairs) in table {
        let h = format::hash(ngram.as_bytes());
        let mut slot = format::first_slot(h, n_slots);
        while slots[slot * SLOT_BYTES + 2..(slot + 1) * SLOT_BYTES] != [0; 4] {
            slot = (slot + 1) % n_slots;
        }
        let at = slot * SLOT_BYTES;
        slots[at..at + 2].copy_from_slice(&(h as u16).to_le_bytes());
        slots[at + 2..at + SLOT_BYTES].copy_from_slice(&(entries.len() as u32 + 1).to_le_bytes());
        entries.push(pairs.len() as u8);
        for (lang, q) in pairs {
            entries.push(*lang);
            entries.push(*q);
        }
    }
    out.extend_from_slice(&slots);
    out.extend_from_slice(&entries);
    out
}
