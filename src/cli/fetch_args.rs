//! The fetch phase's flags (`fetch` and `crawl` share them): politeness,
//! timeouts, the content cap and page memory, and what fetch asks servers
//! for besides pages (Accept-Language, sitemaps).

use clap::Args;

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// Requests in flight across all hosts (at most 65536)
    #[arg(long, default_value_t = 32, value_name = "N")]
    pub concurrency: usize,
    /// Pause between two requests to one host, in milliseconds (0 for a local web; at most 60000)
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub delay_ms: u64,
    /// The longest robots.txt Crawl-delay honoured, in milliseconds: a host asking
    /// for more (or for an unreadable value such as inf) is fetched at this delay (at most 600000)
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    pub max_crawl_delay_ms: u64,
    /// After N timeouts or connection errors in a row on one host, the rest of
    /// its queue waits for the next round
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub max_host_failures: u32,
    /// The longest one host may take in a round, in seconds; its URLs left
    /// then wait for the next round (status deferred)
    #[arg(long, default_value_t = 300.0, value_name = "SECS")]
    pub host_time_budget: f64,
    /// End the fetch phase after this many seconds; URLs not fetched by then
    /// wait for the next round (status deferred) [default: no limit]
    #[arg(long, value_name = "SECS")]
    pub max_fetch_time: Option<f64>,
    /// Send all requests through this HTTP proxy; http:// URLs share its kept-alive connections, whatever their host (default: the proxy variables as reqwest reads them, http_proxy, https_proxy, all_proxy and no_proxy; plain-http URLs share its connections too)
    #[arg(long, value_name = "URL")]
    pub proxy: Option<String>,
    /// The User-Agent header; its first word is the robots.txt agent name
    #[arg(long, default_value = concat!("langcrawl/", env!("CARGO_PKG_VERSION")), value_name = "S")]
    pub user_agent: String,
    /// Give up connecting after this many seconds
    #[arg(long, default_value_t = 10.0, value_name = "SECS")]
    pub connect_timeout: f64,
    /// Give up on a request (connect, headers and body) after this many seconds
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    pub timeout: f64,
    /// Keep at most this many bytes of a page (the row records the truncation);
    /// a size: 1048576, 1MiB, 64MiB (at most 1GiB)
    #[arg(long, default_value = "8MiB", value_name = "SIZE", value_parser = crate::memory::parse_nonzero_size)]
    pub max_content_bytes: usize,
    /// Page bytes held in memory at once: each request reserves
    /// --max-content-bytes of it until its page is written, so a large cap
    /// lowers the requests in flight instead of raising memory
    #[arg(long, default_value = "512MiB", value_name = "SIZE", value_parser = crate::memory::parse_nonzero_size)]
    pub page_memory: usize,
    /// The Accept-Language header, so that a site that negotiates answers in
    /// the target: a crawl sends its target first (th, en;q=0.5); give a
    /// value to send that, or `off` to send none; saved in crawl.json
    #[arg(long, value_name = "VALUE")]
    pub accept_language: Option<String>,
    /// Read the sitemaps robots.txt names (indexes, .xml.gz, text, RSS and
    /// Atom): their URLs become links of kind `sitemap`, their hreflang
    /// alternates of kind `sitemap-alternate`; saved in crawl.json [default: true]
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub sitemaps: Option<bool>,
    /// Where robots.txt names no sitemap, try /sitemap.xml; saved in
    /// crawl.json [default: false]
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub guess_sitemap: Option<bool>,
    /// Which hosts share one politeness queue (one request at a time, the
    /// delay between any two): each host, each registrable domain, or each
    /// address a name resolves to (shared hosting; through a proxy names are
    /// not resolved here, so each host); saved in crawl.json [default: host]
    #[arg(long, value_name = "BY")]
    pub queue_by: Option<crate::fetch::politeness::QueueBy>,
    /// Make a host's delay at least F times its server's last response time
    /// (a slow server is asked less often), up to --max-crawl-delay-ms; 0
    /// turns it off; saved in crawl.json [default: 0]
    #[arg(long, value_name = "F")]
    pub delay_factor: Option<f64>,
    /// Connect to NAME at IP instead of resolving it, as curl's --resolve
    /// (repeatable): NAME=IP or NAME=IP:PORT; a private address needs
    /// --allow-private
    #[arg(long, value_name = "NAME=IP", value_parser = parse_resolve)]
    pub resolve: Vec<(String, std::net::SocketAddr)>,
}

/// `NAME=IP` or `NAME=IP:PORT` (port 80 when none is given).
fn parse_resolve(text: &str) -> Result<(String, std::net::SocketAddr), String> {
    let (name, addr) = text
        .split_once('=')
        .ok_or_else(|| format!("{text}: give NAME=IP or NAME=IP:PORT"))?;
    let addr = addr.trim();
    let addr = addr
        .parse::<std::net::SocketAddr>()
        .or_else(|_| {
            addr.trim_matches(['[', ']'])
                .parse()
                .map(|ip| std::net::SocketAddr::new(ip, 80))
        })
        .map_err(|_| format!("{text}: {addr} is not an IP address"))?;
    let name = name.trim().to_ascii_lowercase();
    if name.is_empty() {
        return Err(format!("{text}: no name"));
    }
    Ok((name, addr))
}
