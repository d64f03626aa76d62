//! `export warc` and `export text` on crawls of the synthetic web (with its
//! sites' menus and footers, and pages reachable under two URLs), and the
//! hostile web's answers as WARC keeps them. WARC files are read back with
//! an independent reader (the `warc` crate), every digest recomputed.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

use data_encoding::BASE32;
use sha1::{Digest, Sha1};
use warc::{BufferedBody, Record, RecordType, WarcHeader, WarcReader};

use crate::util::{langcrawl, succeeded, Crawl};
use langcrawl::export::dedup::simhash;
use langcrawl::websim::{spawn_background, Web, WebSpec};

/// A crawl of 3 rounds of a web whose pages carry their site's menu and
/// footer.
fn crawl_with_chrome() -> Crawl {
    let spec = WebSpec {
        seed: 7,
        hosts: 120,
        pages: 2_400,
        chrome: true,
        discovery: false,
        changes: false,
    };
    let crawl = Crawl::on(spawn_background(Web::generate(spec), 0).unwrap());
    crawl.crawl_japanese(3);
    crawl
}

fn sha1(bytes: &[u8]) -> String {
    format!("sha1:{}", BASE32.encode(&Sha1::digest(bytes)))
}

fn header(record: &Record<BufferedBody>, name: WarcHeader) -> String {
    record
        .header(name)
        .map(|v| v.to_string())
        .unwrap_or_default()
}

/// Every record of every `.warc.gz` in `dir`, file by file.
fn read_warcs(dir: &Path) -> BTreeMap<PathBuf, Vec<Record<BufferedBody>>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.to_string_lossy().ends_with(".warc.gz") {
            let reader = WarcReader::from_path_gzip(&path).unwrap();
            let records: Vec<_> = reader.iter_records().map(|r| r.unwrap()).collect();
            files.insert(path, records);
        }
    }
    files
}

/// The payload of a response block: what follows the HTTP head.
fn payload(block: &[u8]) -> &[u8] {
    let end = block.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    &block[end + 4..]
}

#[test]
fn every_warc_record_reads_back_with_its_digests() {
    let crawl = crawl_with_chrome();
    let out = crawl.tmp.path().join("warc");
    let out_arg = out.to_str().unwrap();
    crawl.ok(&["export", "warc", "-o", out_arg, "--max-file-size", "150KB"]);
    let answered = crawl.number("SELECT count(*) FROM fetch WHERE http_status IS NOT NULL");
    assert!(answered > 100, "{answered} answers");

    let files = read_warcs(&out);
    assert!(files.len() >= 2, "rotated at 150 KB: {} files", files.len());
    let mut count: HashMap<String, i64> = HashMap::new();
    let mut payloads = HashMap::new();
    for (path, records) in &files {
        assert_eq!(records[0].warc_type(), &RecordType::WarcInfo, "{path:?}");
        let mut indexed = 0;
        for record in records {
            *count.entry(record.warc_type().to_string()).or_default() += 1;
            let block = record.body();
            assert_eq!(
                header(record, WarcHeader::BlockDigest),
                sha1(block),
                "{path:?}"
            );
            let digest = header(record, WarcHeader::PayloadDigest);
            match record.warc_type() {
                RecordType::Response => {
                    assert_eq!(digest, sha1(payload(block)));
                    payloads.insert(record.warc_id().to_string(), digest);
                    indexed += 1;
                }
                RecordType::Revisit => {
                    let original = header(record, WarcHeader::RefersTo);
                    assert_eq!(
                        payloads.get(&original),
                        Some(&digest),
                        "revisit of {original}"
                    );
                    assert!(
                        block.ends_with(b"\r\n\r\n"),
                        "a revisit keeps the head only"
                    );
                    indexed += 1;
                }
                RecordType::Request => {
                    assert!(block.starts_with(b"GET "));
                    assert!(!header(record, WarcHeader::ConcurrentTo).is_empty());
                }
                _ => {}
            }
        }
        check_cdxj(path, indexed);
    }
    let kind = |k: RecordType| count.get(&k.to_string()).copied().unwrap_or(0);
    assert_eq!(kind(RecordType::WarcInfo), files.len() as i64);
    assert_eq!(kind(RecordType::Request), answered);
    assert_eq!(
        kind(RecordType::Response) + kind(RecordType::Revisit),
        answered
    );
    assert!(
        kind(RecordType::Revisit) > 0,
        "pages under two URLs are revisits"
    );

    let target = crawl.number(
        "SELECT count(*) FROM fetch f JOIN parse p ON p.url = f.url AND p.round = f.round WHERE p.lang = 'jpn'",
    );
    let only = crawl.tmp.path().join("only");
    crawl.ok(&[
        "export",
        "warc",
        "-o",
        only.to_str().unwrap(),
        "--only-target",
        "--rounds",
        "1..3",
    ]);
    let requests: usize = read_warcs(&only)
        .values()
        .flatten()
        .filter(|r| r.warc_type() == &RecordType::Request)
        .count();
    assert_eq!(requests as i64, target, "--only-target: the Japanese pages");
}

/// The index beside a WARC file: one sorted line per response or revisit,
/// each offset and length one gzip member holding that URL's record.
fn check_cdxj(warc: &Path, indexed: usize) {
    let name = warc
        .file_name()
        .unwrap()
        .to_string_lossy()
        .replace(".warc.gz", ".cdxj");
    let lines = std::fs::read_to_string(warc.with_file_name(name)).unwrap();
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines.len(), indexed, "{warc:?}");
    assert!(lines.windows(2).all(|w| w[0] <= w[1]), "sorted");
    let bytes = std::fs::read(warc).unwrap();
    for line in lines.iter().step_by(7) {
        let json: serde_json::Value =
            serde_json::from_str(line.splitn(3, ' ').nth(2).unwrap()).unwrap();
        let field = |k: &str| json[k].as_str().unwrap().to_string();
        let (offset, length): (usize, usize) = (
            field("offset").parse().unwrap(),
            field("length").parse().unwrap(),
        );
        let mut record = Vec::new();
        flate2::read::GzDecoder::new(&bytes[offset..offset + length])
            .read_to_end(&mut record)
            .unwrap();
        let uri = format!("WARC-Target-URI: {}\r\n", field("url"));
        assert!(
            record.windows(uri.len()).any(|w| w == uri.as_bytes()),
            "{line}"
        );
    }
}

/// Called by the hostile test on its crawl: the bomb and the endless body
/// are archived cut at the cap (`WARC-Truncated: length`), the gzipped page
/// compressed as sent.
pub fn hostile_answers_are_archived_as_sent(crawl: &Path) {
    let out = crawl.parent().unwrap().join("warc");
    let args = [
        "export",
        "warc",
        "--crawl",
        crawl.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    succeeded(langcrawl(&args), &args);
    let records: Vec<_> = read_warcs(&out).into_values().flatten().collect();
    let response = |host: &str| {
        records
            .iter()
            .find(|r| {
                r.warc_type() == &RecordType::Response
                    && header(r, WarcHeader::TargetURI).contains(host)
            })
            .unwrap_or_else(|| panic!("no response of {host}"))
    };
    for host in ["bomb.test", "endless.test"] {
        assert_eq!(
            header(response(host), WarcHeader::Truncated),
            "length",
            "{host}"
        );
    }
    let gzip = response("gzip.test");
    let sent = crate::hostile_server::gzip_page();
    assert_eq!(payload(gzip.body()), sent.as_slice());
    assert_eq!(header(gzip, WarcHeader::PayloadDigest), sha1(&sent));
    assert_eq!(header(gzip, WarcHeader::IPAddress), "127.0.0.1");
}

/// The records of a `.jsonl.gz` corpus.
pub fn corpus(path: &Path) -> Vec<serde_json::Value> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_text_corpus_has_each_page_once_and_no_site_menus() {
    let crawl = crawl_with_chrome();
    let export = |name: &str, flags: &[&str]| {
        let path = crawl.tmp.path().join(name);
        let mut args = vec![
            "export",
            "text",
            "-o",
            path.to_str().unwrap(),
            "--min-chars",
            "50",
        ];
        args.extend_from_slice(flags);
        crawl.ok(&args);
        corpus(&path)
    };
    let all = export("all.jsonl.gz", &["--site-boilerplate", "0"]);
    let plain = export("plain.jsonl.gz", &[]);
    let deduped = export("dedup.jsonl.gz", &["--dedup"]);

    // Pages fetched under two URLs (the menu's `?from=menu` links).
    let urls = |records: &[serde_json::Value]| -> Vec<String> {
        records
            .iter()
            .map(|r| r["url"].as_str().unwrap().to_string())
            .collect()
    };
    let twice: Vec<String> = urls(&plain)
        .into_iter()
        .filter(|u| urls(&plain).contains(&format!("{u}?from=menu")))
        .collect();
    assert!(twice.len() >= 3, "pages under two URLs: {twice:?}");
    // Each such page is kept once, or not at all when its text is a near
    // duplicate (the default 3 bits) of another page kept before it.
    let kept = urls(&deduped);
    let fingerprint = |r: &serde_json::Value| simhash(r["text"].as_str().unwrap());
    for url in &twice {
        let copies = kept
            .iter()
            .filter(|k| k.split('?').next() == Some(url))
            .count();
        assert!(copies <= 1, "{url} at most once with --dedup");
        if copies == 0 {
            let page = plain.iter().find(|r| r["url"] == url.as_str()).unwrap();
            let page = fingerprint(page);
            let near = deduped
                .iter()
                .any(|k| (fingerprint(k) ^ page).count_ones() <= 3);
            assert!(near, "{url} left out, yet no kept page is near it");
        }
    }
    let once = twice
        .iter()
        .filter(|u| kept.contains(u) || kept.contains(&format!("{u}?from=menu")));
    assert!(
        once.count() * 2 >= twice.len(),
        "most pages under two URLs are kept once"
    );

    // The menu (its first item is the host's name) is in every page's
    // main text until lines repeated across a host's pages are removed.
    let menu_line = |r: &serde_json::Value| {
        let url = r["url"].as_str().unwrap();
        let host = url.split('/').nth(2).unwrap().to_string();
        let text = r["text"].as_str().unwrap();
        text.lines()
            .find(|l| l.starts_with(&format!("{host} | ")))
            .map(|l| (host, l.to_string()))
    };
    let mut menus: HashMap<(String, String), usize> = HashMap::new();
    for (host, line) in all.iter().filter_map(menu_line) {
        *menus.entry((host, line)).or_default() += 1;
    }
    assert!(
        menus.values().any(|&n| n >= 3),
        "the menu is kept without removal"
    );
    for record in &plain {
        if let Some(found) = menu_line(record) {
            assert!(
                menus[&found] < 3,
                "{found:?} repeated on its host, still in {}",
                record["url"]
            );
        }
        let text = record["text"].as_str().unwrap();
        assert!(!text.contains("© 2026"), "footer in {}", record["url"]);
    }
    assert!(all
        .iter()
        .all(|r| r["lang"] == "jpn" && r["digest"].as_str().unwrap().starts_with("sha1:")));
}

/// The real pages in the repository whose main text Mozilla's Readability
/// extracted (`expected.html`): export text's main text is the same text.
#[test]
fn the_main_text_of_real_pages_is_readabilitys() {
    use langcrawl::export::main_text::{extract, html_text, token_f1};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real-html");
    let mut scores = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let page = entry.unwrap().path();
        let Ok(expected) = std::fs::read_to_string(page.join("expected.html")) else {
            continue;
        };
        let source = std::fs::read(page.join("source.html")).unwrap();
        let found = extract(&String::from_utf8_lossy(&source), "http://fakehost/test/");
        let text = found.map(|m| m.text).unwrap_or_default();
        scores.push((token_f1(&text, &html_text(&expected)), page));
    }
    assert!(scores.len() >= 10, "{} real pages", scores.len());
    let mean = scores.iter().map(|s| s.0).sum::<f64>() / scores.len() as f64;
    assert!(mean >= 0.95, "mean token F1 {mean:.3}");
    for (f1, page) in &scores {
        assert!(*f1 >= 0.85, "{page:?}: F1 {f1:.3}");
    }
}
