//! Shared test helpers: a synthetic web on 127.0.0.1:0, a crawl directory
//! in a temp folder, and the `langcrawl` binary run against them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::SystemTime;

use std::collections::BTreeMap;

use langcrawl::websim::corpus;
use langcrawl::websim::render::{text_response, SimResponse};
use langcrawl::websim::server::Site;
use langcrawl::websim::{spawn_background, Web, WebSpec, Websim};

/// The small web the tests crawl: a few dozen hosts, quick to serve.
pub fn small_web() -> Websim {
    spawn_background(Web::generate(small_spec()), 0).expect("synthetic web starts")
}

/// The small web's shape.
pub fn small_spec() -> WebSpec {
    WebSpec {
        seed: 7,
        hosts: 120,
        pages: 2_400,
        chrome: false,
        discovery: false,
        changes: false,
    }
}

/// A web of fixed answers, keyed by `http://host/path`; anything else
/// (robots.txt too) is a 404.
pub struct Handmade(pub BTreeMap<String, SimResponse>);

impl Site for Handmade {
    fn respond(&self, host: &str, path: &str) -> SimResponse {
        self.0
            .get(&format!("http://{host}{path}"))
            .cloned()
            .unwrap_or_else(|| text_response(404, "not found"))
    }
}

pub fn html(page: &str) -> SimResponse {
    SimResponse {
        status: 200,
        content_type: Some("text/html; charset=utf-8".into()),
        location: None,
        headers: Vec::new(),
        body: page.as_bytes().to_vec(),
    }
}

/// Paragraphs of sentences `from..from + n` of the corpus in `code`.
pub fn text(code: &str, from: usize, n: usize) -> String {
    let sentences = corpus::sentences(corpus::lang_index(code).unwrap());
    (from..from + n)
        .map(|k| format!("<p>{}</p>\n", sentences[k % sentences.len()]))
        .collect()
}

/// A crawl directory in a temp folder, and the web it crawls.
pub struct Crawl<S: Site = Web> {
    pub tmp: tempfile::TempDir,
    pub web: Websim<S>,
}

impl Crawl {
    pub fn new() -> Self {
        Crawl::on(small_web())
    }

    /// A crawl of [`japanese_seeds`](Self::japanese_seeds) with its first
    /// round generated, to fetch.
    pub fn generated() -> Self {
        let crawl = Crawl::injected();
        crawl.ok(&["generate"]);
        crawl
    }

    /// A crawl of Japanese with [`japanese_seeds`](Self::japanese_seeds)
    /// injected.
    pub fn injected() -> Self {
        let crawl = Crawl::new();
        let seeds = crawl.japanese_seeds();
        crawl.ok(&["inject", seeds.to_str().unwrap(), "--lang", "ja"]);
        crawl
    }

    /// [`generated`](Self::generated), its first round fetched and parsed,
    /// to update.
    pub fn parsed() -> Self {
        let crawl = Crawl::generated();
        crawl.ok(&["fetch"]);
        crawl.ok(&["parse"]);
        crawl
    }

    /// The arguments of `fetch` of this crawl through `proxy`, without a
    /// delay, and `flags`.
    pub fn fetch_args(&self, proxy: &str, flags: &[&str]) -> Vec<String> {
        let dir = self.dir().display().to_string();
        let mut args: Vec<String> = [
            "fetch",
            "--crawl",
            &dir,
            "--proxy",
            proxy,
            "--delay-ms",
            "0",
        ]
        .map(String::from)
        .to_vec();
        args.extend(flags.iter().map(|f| f.to_string()));
        args
    }

    /// Seeds: front pages of Japanese hosts and two English ones.
    pub fn japanese_seeds(&self) -> PathBuf {
        let mut seeds = self.web.web.seeds("jpn", 6);
        seeds.extend(self.web.web.seeds("eng", 2));
        self.seeds_file(&seeds)
    }

    /// Injects [`japanese_seeds`](Self::japanese_seeds) and crawls `rounds` rounds with bfs.
    pub fn crawl_japanese(&self, rounds: u32) {
        self.crawl_seeds(&self.japanese_seeds(), "ja", rounds);
    }
}

impl<S: Site> Crawl<S> {
    /// A crawl of `web`.
    pub fn on(web: Websim<S>) -> Self {
        Crawl {
            tmp: tempfile::tempdir().unwrap(),
            web,
        }
    }

    pub fn dir(&self) -> PathBuf {
        self.tmp.path().join("crawl")
    }

    /// Writes a seeds file with `lines` and returns its path.
    pub fn seeds_file(&self, lines: &[String]) -> PathBuf {
        let path = self.tmp.path().join("seeds.txt");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        path
    }

    /// Injects `seeds` and crawls `rounds` rounds for `lang` with bfs.
    pub fn crawl_seeds(&self, seeds: &Path, lang: &str, rounds: u32) {
        self.crawl_seeds_with(seeds, lang, rounds, &[]);
    }

    /// Like [`crawl_seeds`](Self::crawl_seeds), with more flags (a strategy, limits).
    pub fn crawl_seeds_with(&self, seeds: &Path, lang: &str, rounds: u32, flags: &[&str]) {
        let rounds = rounds.to_string();
        let seeds = seeds.to_str().unwrap();
        let mut args = vec![
            "crawl", "--seeds", seeds, "--lang", lang, "--rounds", &rounds,
        ];
        args.extend_from_slice(flags);
        self.ok(&args);
    }

    /// Runs `langcrawl <args> --crawl DIR`, with fetch pointed at the web.
    pub fn run(&self, args: &[&str]) -> Output {
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        all.extend(["--crawl".into(), self.dir().display().to_string()]);
        if matches!(args.first(), Some(&"fetch") | Some(&"crawl")) {
            all.extend([
                "--proxy".into(),
                self.web.proxy_url(),
                "--delay-ms".into(),
                "0".into(),
            ]);
        }
        langcrawl(&all)
    }

    /// Like [`run`](Self::run) but the command must succeed; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        succeeded(self.run(args), args)
    }

    /// A query's rows as CSV fields (header dropped).
    pub fn rows(&self, query: &str) -> Vec<Vec<String>> {
        sql_rows(&self.dir(), query)
    }

    /// A query that returns one integer.
    pub fn number(&self, query: &str) -> i64 {
        let rows = self.rows(query);
        assert_eq!(rows.len(), 1, "{query}: {rows:?}");
        rows[0][0]
            .parse()
            .unwrap_or_else(|_| panic!("{query}: not a number: {rows:?}"))
    }
}

/// A query's rows over the crawl directory `crawl` (a crawl, or one
/// strategy's crawl in a simulation's output), as CSV fields, header dropped.
/// The current version's folder of the crawl's `crawldb` or `hosts` table.
pub fn table_version(crawl: &Path, table: &str) -> PathBuf {
    let crawl = langcrawl::store::CrawlDir::open_read_only(crawl).unwrap();
    match table {
        "crawldb" => crawl.crawldb().unwrap(),
        "hosts" => crawl.hosts().unwrap(),
        _ => panic!("{table} has no versions"),
    }
    .unwrap_or_else(|| panic!("no {table} yet"))
}

pub fn sql_rows(crawl: &Path, query: &str) -> Vec<Vec<String>> {
    let crawl = crawl.to_str().unwrap();
    let args = ["sql", query, "--crawl", crawl, "--format", "csv"];
    let out = succeeded(langcrawl(&args), &args);
    out.lines().skip(1).map(csv_fields).collect()
}

/// Writes Kumar & Vig's test web of `pages` pages (`websim generate --kind
/// university`) to `dir`.
pub fn university_web(dir: &Path, pages: u32) {
    let pages = pages.to_string();
    let args = [
        "websim",
        "generate",
        "--kind",
        "university",
        "--pages",
        &pages,
        "-o",
        dir.to_str().unwrap(),
    ];
    succeeded(langcrawl(&args), &args);
}

/// Runs the binary with no proxy settings inherited from the environment.
pub fn langcrawl<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    command(args).output().expect("langcrawl runs")
}

pub fn command<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_langcrawl"));
    command.args(args);
    for var in langcrawl::fetch::guard::PROXY_VARIABLES {
        command.env_remove(var);
    }
    command.env("NO_COLOR", "1");
    command
}

pub fn succeeded(out: Output, args: &[&str]) -> String {
    assert!(
        out.status.success(),
        "langcrawl {args:?} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every parquet file under `dir`.
pub fn parquet_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    files.sort();
    files
}

/// The fields of one CSV line (quoted fields may hold commas and `""`).
pub fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            (c, _) => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

/// Copies the folder `from` (files and folders) to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Every file and folder under `dir` with its size and modification time.
/// A running fetch renames its temp folders into place while this walks,
/// so an entry that vanishes between listing and reading is left out.
pub fn walk(dir: &Path) -> Vec<(PathBuf, u64, SystemTime)> {
    let mut found = Vec::new();
    let Some(entries) = existing(std::fs::read_dir(dir)) else {
        return found;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        let Some(meta) = existing(std::fs::metadata(&path)) else {
            continue;
        };
        found.push((path.clone(), meta.len(), meta.modified().unwrap()));
        if meta.is_dir() {
            found.extend(walk(&path));
        }
    }
    found.sort();
    found
}

/// `Some` of an I/O result, `None` when its file is gone; other errors panic.
fn existing<T>(result: std::io::Result<T>) -> Option<T> {
    match result {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        other => Some(other.unwrap()),
    }
}
