//! Tests of the crawl directory: round ids and ranges, the crawldb swap
//! undone on open, readers that move nothing, the lock.

use super::*;

#[test]
fn round_ranges() {
    let range: RoundRange = "2..4".parse().unwrap();
    assert!(range.contains(RoundId(2)) && range.contains(RoundId(4)));
    assert!(!range.contains(RoundId(1)) && !range.contains(RoundId(5)));
    let open: RoundRange = "3..".parse().unwrap();
    assert!(open.contains(RoundId(99)) && !open.contains(RoundId(2)));
    assert_eq!("3".parse::<RoundRange>().unwrap().last, Some(3));
    assert!("4..2".parse::<RoundRange>().is_err());
    assert!("x..2".parse::<RoundRange>().is_err());
}

#[test]
fn round_ids_sort_lexically_and_parse_back() {
    assert_eq!(RoundId(3).to_string(), "00003");
    assert!(RoundId(9).to_string() < RoundId(10).to_string());
    assert_eq!(RoundId::from_dir_name("00012"), Some(RoundId(12)));
    assert_eq!(RoundId::from_dir_name("crawldb"), None);
    assert_eq!(RoundId::from_dir_name("0001"), None);
}

/// A crawl of the layout before versions whose crawldb swap was cut
/// short, with the temp folder `temp`.
fn crawl_mid_swap(temp: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join(CRAWL_JSON), "{}").unwrap();
    std::fs::create_dir(tmp.path().join(CRAWLDB_OLD)).unwrap();
    std::fs::write(tmp.path().join(CRAWLDB_OLD).join("part-0.parquet"), "").unwrap();
    std::fs::create_dir_all(tmp.path().join(temp)).unwrap();
    tmp
}

#[test]
fn an_interrupted_swap_is_undone_on_open() {
    let tmp = crawl_mid_swap("fetch.tmp-1");
    let crawl = CrawlDir::open(tmp.path()).unwrap();
    assert!(crawl.has_crawldb().unwrap());
    assert!(!tmp.path().join("fetch.tmp-1").exists());
}

#[test]
fn a_reader_moves_and_deletes_nothing_and_may_not_replace_the_crawldb() {
    let tmp = crawl_mid_swap("00001/fetch.tmp-1");
    let reader = CrawlDir::open_read_only(tmp.path()).unwrap();
    assert!(reader.is_read_only());
    assert_eq!(
        reader.crawldb().unwrap(),
        None,
        "the crawldb is in crawldb.old"
    );
    // another process's leftover, offered as the new crawldb
    let staged = Staged::found(
        tmp.path().join("00001/fetch.tmp-1"),
        tmp.path().join(CRAWLDB),
    );
    assert!(reader.swap_crawldb(staged, RoundId(1)).is_err());
    assert!(tmp.path().join("00001/fetch.tmp-1").exists());
    assert!(!tmp.path().join(CRAWLDB).exists());
    assert!(!tmp.path().join(lock::LOCK_FILE).exists(), "no lock taken");
}

#[test]
fn a_crawl_held_by_another_process_is_not_recovered() {
    let tmp = crawl_mid_swap("fetch.tmp-1");
    let other = std::fs::File::create(tmp.path().join(lock::LOCK_FILE)).unwrap();
    fs4::FileExt::try_lock(&other).unwrap();
    let err = CrawlDir::open(tmp.path()).unwrap_err();
    assert!(matches!(err, Error::Locked { .. }), "{err}");
    assert!(tmp.path().join("fetch.tmp-1").exists());
}
