//! Site boilerplate by repetition: a line (a paragraph of a page's main
//! text) found on `min_pages` or more pages of the same host is the site's
//! menu, footer or notice, and is removed — what Readability leaves of a
//! site's chrome on short or link-heavy pages. The first pass counts each
//! host's lines while the texts wait in a spill file beside the output; the
//! second reads them back without those lines. Pages with the same text
//! count once, so a page served under several URLs does not make its own
//! paragraphs look repeated.

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader, BufWriter, Seek, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;
use twox_hash::XxHash64;

use super::text::TextRecord;
use crate::error::{Error, Result};

/// The texts of the first pass and their hosts' line counts.
pub struct SiteLines {
    min_pages: usize,
    counts: HashMap<u64, u32>,
    texts_seen: HashSet<u64>,
    spill: BufWriter<NamedTempFile>,
    path: PathBuf,
    /// Lines removed in the second pass.
    pub removed: usize,
}

impl SiteLines {
    /// Spills into a temporary file in `dir` (removed when done);
    /// `min_pages` 0 keeps every line.
    pub fn create(dir: &Path, min_pages: usize) -> Result<Self> {
        let file =
            NamedTempFile::with_prefix_in(".langcrawl-text-", dir).map_err(Error::io(dir))?;
        let path = file.path().to_path_buf();
        Ok(SiteLines {
            min_pages,
            counts: HashMap::new(),
            texts_seen: HashSet::new(),
            spill: BufWriter::new(file),
            path,
            removed: 0,
        })
    }

    /// Keeps `record` (its `text` the page's main text) for the second
    /// pass and counts its lines.
    pub fn add(&mut self, record: &TextRecord) -> Result<()> {
        if self.min_pages > 0
            && self
                .texts_seen
                .insert(XxHash64::oneshot(0, record.text.as_bytes()))
        {
            let host = host_of(&record.url);
            let lines: HashSet<&str> = record.text.lines().collect();
            for line in lines {
                *self.counts.entry(line_key(host, line)).or_default() += 1;
            }
        }
        serde_json::to_writer(&mut self.spill, record)
            .map_err(std::io::Error::from)
            .and_then(|_| self.spill.write_all(b"\n"))
            .map_err(Error::io(&self.path))
    }

    /// The records of the first pass, without their hosts' repeated lines,
    /// handed to `each` in order.
    pub fn finish(mut self, mut each: impl FnMut(TextRecord) -> Result<()>) -> Result<usize> {
        let mut file = self
            .spill
            .into_inner()
            .map_err(|e| Error::io(&self.path)(e.into_error()))?;
        file.rewind().map_err(Error::io(&self.path))?;
        for line in BufReader::new(file.as_file()).lines() {
            let line = line.map_err(Error::io(&self.path))?;
            let mut record: TextRecord =
                serde_json::from_str(&line).map_err(|e| Error::io(&self.path)(e.into()))?;
            let host = host_of(&record.url).to_string();
            let kept: Vec<&str> = record
                .text
                .lines()
                .filter(|l| {
                    let keep = self.min_pages == 0
                        || self.counts.get(&line_key(&host, l)).copied().unwrap_or(0)
                            < self.min_pages as u32;
                    self.removed += usize::from(!keep);
                    keep
                })
                .collect();
            record.text = kept.join("\n");
            each(record)?;
        }
        Ok(self.removed)
    }
}

fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split(['/', '?', '#']).next().unwrap_or(rest)
}

fn line_key(host: &str, line: &str) -> u64 {
    XxHash64::oneshot(XxHash64::oneshot(0, host.as_bytes()), line.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &str, text: &str) -> TextRecord {
        TextRecord {
            url: url.into(),
            text: text.into(),
            ..TextRecord::default()
        }
    }

    #[test]
    fn a_line_on_three_pages_of_a_host_is_removed_and_only_there() {
        let dir = tempfile::tempdir().unwrap();
        let mut lines = SiteLines::create(dir.path(), 3).unwrap();
        for (url, body) in [
            ("http://a.jp/1", "Home | News\nfirst story"),
            ("http://a.jp/2", "Home | News\nsecond story"),
            ("http://a.jp/2?from=menu", "Home | News\nsecond story"),
            ("http://a.jp/3", "Home | News\nthird story"),
            ("http://b.jp/1", "Home | News\nother site"),
        ] {
            lines.add(&page(url, body)).unwrap();
        }
        let mut out = Vec::new();
        let removed = lines
            .finish(|r| {
                out.push(r.text);
                Ok(())
            })
            .unwrap();
        assert_eq!(
            out,
            [
                "first story",
                "second story",
                "second story",
                "third story",
                "Home | News\nother site"
            ]
        );
        assert_eq!(removed, 4);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "the spill is gone"
        );
    }
}
