//! Every Arrow schema of the crawl, in one place. SQL outputs are cast to
//! these before they are written, so a segment's schema never drifts.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};

mod web;
pub use web::*;

fn utf8(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Utf8, nullable)
}

fn int32(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Int32, nullable)
}

fn int64(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Int64, nullable)
}

fn float64(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Float64, nullable)
}

fn boolean(name: &str, nullable: bool) -> Field {
    Field::new(name, DataType::Boolean, nullable)
}

fn timestamp(name: &str, nullable: bool) -> Field {
    Field::new(
        name,
        DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
        nullable,
    )
}

/// One row per known URL: the current state of the crawl.
pub static CRAWLDB: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("url", false),
        utf8("host", false),
        utf8("domain", false),
        utf8("tld", false),
        utf8("dir", false),
        utf8("status", false),
        int32("retries", false),
        int32("depth", false),
        float64("priority", false),
        int32("discovered_round", false),
        int32("fetched_round", true),
        int32("http_status", true),
        utf8("redirect_to", true),
        utf8("lang", true),
        float64("lang_confidence", true),
        // what decided `lang` (parse's lang_source): `no-text`, `not-html`
        // and `parse-failed` explain a NULL lang
        utf8("lang_source", true),
        boolean("relevant", true),
        utf8("digest", true),
        utf8("found_from", true),
        utf8("found_anchor", true),
        // redirects followed to reach this URL (NULL or 0: reached by a link)
        int32("redirect_hops", true),
        // a failed or deferred URL is not generated before this round
        int32("retry_round", true),
        // Recrawl (NULL before a page is fetched, or in crawldbs written
        // before recrawl existed): the validators of its last answer,
        utf8("etag", true),
        utf8("last_modified", true),
        // when it was last fetched (200 or 304), when it is due again
        // (NULL: not scheduled; `--refetch-after` is off), the interval
        // that gave that time,
        timestamp("fetched_at", true),
        timestamp("next_fetch", true),
        int64("refetch_ms", true),
        // how often it was fetched, and how often a fetch found it changed
        int32("fetches", true),
        int32("changes", true),
    ]))
});

/// generate's output: the URLs one round will fetch.
pub static FETCHLIST: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("url", false),
        utf8("host", false),
        int32("depth", false),
        float64("priority", false),
        // why generate chose it: `rank` (its priority), `explore` (a
        // learning strategy's exploration share) or `refetch` (a fetched
        // page due again); NULL in older lists
        utf8("pick", true),
        // a due page's validators, sent as If-None-Match and
        // If-Modified-Since
        utf8("etag", true),
        utf8("last_modified", true),
    ]))
});

/// fetch's output: one row per fetch-list URL.
pub static FETCH: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("url", false),
        utf8("host", false),
        // fetched | not-modified | redirect | gone | error | robots_denied |
        // deferred | refused (| unrecorded, in a simulation)
        utf8("status", false),
        int32("http_status", true),
        utf8("redirect_to", true),
        utf8("content_type", true),
        utf8("headers", true),
        Field::new("content", DataType::Binary, true),
        Field::new("content_length", DataType::Int64, false),
        boolean("truncated", false),
        timestamp("fetched_at", false),
        Field::new("fetch_ms", DataType::Int64, false),
        utf8("error", true),
        // What WARC records need (NULL in segments written before them):
        // the request head as sent, the HTTP version, the server's address,
        utf8("request", true),
        utf8("http_version", true),
        utf8("remote_ip", true),
        // the body as received when `content` does not hold those bytes (a
        // Content-Encoding, or an answer that is not a fetched page),
        Field::new("payload", DataType::Binary, true),
        // and why that body is incomplete: length | time | disconnect.
        utf8("payload_truncated", true),
        // the answer's Vary header (`Accept-Language`: the site negotiates
        // the language; NULL in segments written before it was kept)
        utf8("vary", true),
        // the answer's validators (ETag, Last-Modified), sent back when
        // the page is fetched again
        utf8("etag", true),
        utf8("last_modified", true),
    ]))
});

/// `export text`'s output: one row per page in the language.
pub static TEXT: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("url", false),
        utf8("title", true),
        // the main text, one paragraph per line (menus, footers removed)
        utf8("text", false),
        utf8("lang", false),
        float64("lang_confidence", true),
        utf8("charset", true),
        timestamp("fetched_at", false),
        // sha1 of the text, base32 (`sha1:...`, as WARC digests)
        utf8("digest", false),
        Field::new("chars", DataType::Int64, false),
    ]))
});

/// parse's output: one row per fetched page.
pub static PARSE: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("url", false),
        utf8("host", false),
        // false only when parsing failed (a bug, logged with the URL)
        boolean("parsed", false),
        utf8("content_type", true),
        utf8("title", true),
        utf8("text_sample", true),
        Field::new("text_chars", DataType::Int64, false),
        utf8("lang", true),
        float64("lang_confidence", true),
        utf8("lang_source", false),
        utf8("script", true),
        float64("target_share", true),
        utf8("charset", true),
        utf8("charset_source", true),
        utf8("html_lang", true),
        utf8("meta_charset", true),
        utf8("digest", true),
        int32("outlinks", false),
        utf8("error", true),
        // a clearly bilingual page's second language (its letters in
        // another script) and that language's share of the letters
        utf8("lang2", true),
        float64("lang2_share", true),
        // the visible text (capped at 50,000 characters; NULL in segments
        // written before it was kept)
        utf8("text", true),
        // a simulated page's class as its web records it (a topic web's
        // replay counts the pages of its `target_class` as relevant); NULL
        // in a live crawl
        utf8("class", true),
        // the limits that cut the page, comma-separated: `nesting`
        // (containers nested deeper than parse's bound lost their tags, not
        // their text or links), `size` (only the first 8 MiB was parsed),
        // `link_text` (its links spent the page's 4 MiB of anchors and
        // contexts: the later ones kept a short anchor and no context); NULL
        // for a page parsed whole
        utf8("limits", true),
        // the Content-Language header, else <meta http-equiv=
        // "content-language">: a hint beside html_lang (NULL in segments
        // written before it was kept)
        utf8("content_language", true),
    ]))
});

/// parse's other output: one row per outlink of a page and distinct text
/// it is linked with (every kind a browser follows, plus alternates and
/// canonical; `sql/views/page_links.sql` takes one per destination), plus
/// one per redirect (kind `redirect`).
pub static LINKS: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("src_url", false),
        utf8("src_host", false),
        utf8("src_lang", true),
        utf8("dst_url", false),
        utf8("dst_host", false),
        utf8("dst_domain", false),
        utf8("dst_tld", false),
        utf8("dst_dir", false),
        utf8("anchor", false),
        utf8("anchor_lang", false),
        utf8("context", false),
        boolean("nofollow", false),
        // a | area | frame | iframe | refresh | redirect | alternate |
        // header-alternate | canonical | sitemap | sitemap-alternate (the
        // last two from the `sitemaps` segment: src_url is the sitemap)
        utf8("kind", false),
        // ISO 639-3 of the link's hreflang (`x-default` as is)
        utf8("hreflang", true),
        // the link's place among its page's links (0 first; NULL: not known)
        int32("position", true),
        // the heading (h1–h6) the link appears under; NULL: not known
        utf8("heading", true),
        // a sitemap's <lastmod> for the URL, as written (NULL otherwise)
        utf8("lastmod", true),
        // true: the page's first row for its destination (the one link
        // selection reads), false: a later text it is linked with; NULL:
        // not marked (redirects, sitemaps, segments written before), left
        // to `sql/views/page_links.sql` to pick
        boolean("first_link_to_dst", true),
        // where the anchor is from: text (the link's own), or the attribute
        // that names a link without text: alt (its own or an image's in
        // it), title, aria-label; NULL: no anchor, or not recorded
        // (simulated rounds of webs that do not, segments written before)
        utf8("anchor_source", true),
    ]))
});

/// fetch's record of the sitemaps it read: one row per URL a sitemap file
/// lists (an index's child sitemaps too), and one row, with `url` NULL,
/// for a file that listed none (failed, skipped, empty). The file's
/// columns repeat on its rows.
pub static SITEMAPS: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        // the host whose robots.txt (or /sitemap.xml guess) led to the file
        utf8("host", false),
        utf8("sitemap", false),
        // the index that listed the file (NULL: robots.txt named it)
        utf8("parent", true),
        // 0: named by robots.txt (or guessed), 1: in an index, 2: in an index's index
        int32("level", false),
        // how the file was found: robots | guess | index
        utf8("found_by", false),
        // read | cut (bounded: error says why) | failed | skipped
        utf8("status", false),
        int32("http_status", true),
        // urlset | index | text | rss | atom (NULL: not read)
        utf8("format", true),
        utf8("error", true),
        // bytes after decompression
        int64("bytes", true),
        // sitemap | sitemap-alternate | sitemap-index (NULL: no entry)
        utf8("kind", true),
        utf8("url", true),
        // a sitemap-alternate's page (the <loc> it is an alternate of)
        utf8("alternate_of", true),
        utf8("hreflang", true),
        utf8("lastmod", true),
        // why an entry is not followed (NULL: it is a link): other-host
        utf8("dropped", true),
    ]))
});

/// updatedb's record of every link's fate under the strategy, with what
/// the merge needs to add the link's URL to the crawldb (NULL on the rows
/// of URLs pruned from the queue, and in segments written before these
/// columns existed).
pub static DECISIONS: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("src_url", false),
        utf8("url", false),
        boolean("accepted", false),
        float64("priority", false),
        utf8("reason", false),
        utf8("kind", true),
        utf8("anchor", true),
        utf8("dst_host", true),
        utf8("dst_domain", true),
        utf8("dst_tld", true),
        utf8("dst_dir", true),
        // the depth and redirect hops the URL gets if the link adds it
        int32("depth", true),
        int32("redirect_hops", true),
    ]))
});

/// The features of a link the `adaptive` strategy learns from, in the
/// order of `sql/views/link_features.sql`.
pub const LINK_FEATURES: [&str; 10] = [
    "kind",
    "hreflang",
    "url_lang",
    "anchor",
    "tld",
    "hops",
    "inlinks",
    "src_server",
    "dst_server",
    "dst_dir",
];

/// The columns every open link of `adaptive` carries beside its features:
/// the round it was found, its ends, and what later judgements need.
fn open_link_ends() -> Vec<Field> {
    vec![
        int32("found_round", false),
        utf8("src_url", false),
        utf8("url", false),
        utf8("src_host", false),
        utf8("dst_host", false),
        utf8("dir", false),
        float64("src_priority", false),
        boolean("src_relevant", false),
    ]
}

/// The features fixed when a link is found (`sql/views/link_features.sql`);
/// the rest of [`LINK_FEATURES`] are judged each round (`open_links.sql`).
pub const FOUND_FEATURES: [&str; 6] = ["kind", "hreflang", "url_lang", "anchor", "tld", "hops"];

/// `adaptive`'s frontier (`<round>/frontier/`): every link whose
/// destination was not fetched yet, with the features fixed when it was
/// found — what the queue is ranked by, re-scored each round.
pub static FRONTIER: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields = open_link_ends();
    fields.extend(FOUND_FEATURES.iter().map(|f| utf8(f, false)));
    Arc::new(Schema::new(fields))
});

/// `sql/views/open_links.sql`'s rows: the frontier and the round's links,
/// with every feature and the label of those whose destination was
/// fetched; kept while `adaptive` learns and scores (then removed).
pub static OPEN_LINKS: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields = open_link_ends();
    fields.push(boolean("dst_relevant", true));
    fields.extend(LINK_FEATURES.iter().map(|f| utf8(f, false)));
    Arc::new(Schema::new(fields))
});

/// Tamura's per-server counts as link selection reads them
/// (`sql/views/server_stats.sql`; held for the round, not written).
pub static SERVER_STATS: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields = vec![utf8("host", false)];
    fields.extend(tamura_counts());
    Arc::new(Schema::new(fields))
});

/// The same per top-level directory (`sql/views/dir_stats.sql`).
pub static DIR_STATS: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields = vec![utf8("dir", false), utf8("host", false)];
    fields.extend(tamura_counts());
    Arc::new(Schema::new(fields))
});

/// Na, Nr and the state they give.
fn tamura_counts() -> [Field; 3] {
    [int64("na", false), int64("nr", false), utf8("state", false)]
}

/// `adaptive`'s labelled links (`<round>/labels/`, `sql/steps/count_labels.sql`):
/// every combination of segment (`new`: into a server not visited yet;
/// `known`) and feature values seen on a labelled link, with how many such
/// links led to target pages and to others — the model's training set,
/// the last round's plus the links labelled this round.
pub static LABELS: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields = vec![utf8("segment", false)];
    fields.extend(LINK_FEATURES.iter().map(|f| utf8(f, false)));
    fields.push(int64("relevant", false));
    fields.push(int64("other", false));
    Arc::new(Schema::new(fields))
});

/// `adaptive`'s model of a round (`src/strategy/fit.rs`): per feature
/// value, the labelled links that led to target pages and to others, and
/// its weight in the logistic regression fitted on the labels; rows
/// `prior` (each segment's intercept) besides.
pub static MODEL: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("feature", false),
        utf8("value", false),
        int64("relevant", true),
        int64("other", true),
        float64("weight", false),
    ]))
});

/// `adaptive`'s scores of a round's links (`sql/views/link_scores.sql`):
/// each feature's value and weight, the prior, score and probability.
pub static SCORES: LazyLock<SchemaRef> = LazyLock::new(|| {
    let mut fields = vec![
        utf8("src_url", false),
        utf8("url", false),
        utf8("src_host", false),
        utf8("dst_host", false),
        float64("src_priority", false),
    ];
    fields.extend(LINK_FEATURES.iter().map(|f| utf8(f, false)));
    fields.push(float64("w_prior", false));
    fields.extend(
        LINK_FEATURES
            .iter()
            .map(|f| float64(&format!("w_{f}"), false)),
    );
    fields.push(float64("score", false));
    fields.push(float64("probability", false));
    Arc::new(Schema::new(fields))
});

/// `url_scores` (`sql/views/url_scores.sql`): each queued URL at its
/// likeliest link's probability under the round's model (empty for a
/// strategy that does not learn).
pub static URL_SCORES: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("url", false),
        float64("priority", false),
    ]))
});

/// `target_tlds`: the ccTLDs of `tld-anchor` (from crawl.json).
pub static TARGET_TLDS: LazyLock<SchemaRef> =
    LazyLock::new(|| Arc::new(Schema::new(vec![utf8("tld", false)])));

/// `importance` (CSV): Kumar & Vig's importance table, each term with the
/// class it describes.
pub static IMPORTANCE: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("term", false),
        float64("importance", false),
        utf8("class", true),
    ]))
});

/// `stop_words` (CSV): noise words per language (ISO 639-3), dropped from
/// the parts of a context the transcriptor rewrites.
pub static STOP_WORDS: LazyLock<SchemaRef> =
    LazyLock::new(|| Arc::new(Schema::new(vec![utf8("lang", false), utf8("word", false)])));

/// `dictionary` (CSV): a bilingual dictionary of words and phrases.
pub static DICTIONARY: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("source_term", false),
        utf8("target_term", false),
    ]))
});

/// `class_rules` (CSV): class-transition rules `from → to (probability)`.
pub static CLASS_RULES: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("from_class", false),
        utf8("to_class", false),
        float64("probability", false),
    ]))
});

/// `<crawl>/hosts/`: what fetch remembers about a host between runs — its
/// robots.txt answer (reused for 24 hours, RFC 9309 §2.4) and its back-off
/// (429/503 with Retry-After: generate skips the host until
/// `deferred_until`). Rewritten whole by each fetch; rows with nothing
/// current left are dropped.
pub static HOSTS: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("host", false),
        // the robots.txt request: when, the final answer's HTTP status
        // (after redirects), its body (capped at 512 KiB), or why none came
        timestamp("robots_fetched_at", true),
        int32("robots_status", true),
        Field::new("robots_body", DataType::Binary, true),
        utf8("robots_error", true),
        // no request to the host before this time, and why
        timestamp("deferred_until", true),
        utf8("deferred_reason", true),
        // timeouts and connection errors in a row at the end of the last run
        int32("failures", false),
        timestamp("updated_at", false),
        // the round whose fetch read the host's sitemaps (with its
        // robots.txt; NULL: none read, or a table written before)
        int32("sitemaps_round", true),
        // the origin (scheme://host[:port]) the robots.txt answer is for;
        // NULL in a table written before: the answer is fetched again
        utf8("robots_origin", true),
    ]))
});
