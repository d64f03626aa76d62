//! A proxy that answers but lets nothing through loses no URL: a 407
//! (credentials wanted) is the proxy's failure, not every page's `gone`.

use std::io::{Read, Write};
use std::net::TcpListener;

use crate::errors::assert_one_line_error;
use crate::util::Crawl;

/// A proxy on 127.0.0.1 that answers every request 407; its URL.
fn proxy_wanting_credentials() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut head = [0u8; 4096];
            let _ = stream.read(&mut head);
            let _ = stream.write_all(
                b"HTTP/1.1 407 Proxy Authentication Required\r\n\
                  Proxy-Authenticate: Basic realm=\"p\"\r\n\
                  Content-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    url
}

#[test]
fn a_proxy_wanting_credentials_loses_no_url() {
    let proxy = proxy_wanting_credentials();
    let crawl = Crawl::generated();
    let out = crate::util::langcrawl(&crawl.fetch_args(&proxy, &[]));
    assert_one_line_error(&out, &format!("no request got through the proxy {proxy}"));
    assert!(
        crate::util::stderr(&out).contains("asked for credentials"),
        "{out:?}"
    );
    assert_eq!(
        crawl.number("SELECT count(*) FROM fetch"),
        0,
        "nothing written"
    );
    let listed = crawl.number("SELECT count(*) FROM fetchlist");
    crawl.ok(&["fetch"]);
    let fetched = "SELECT count(*) FROM fetch WHERE status = 'fetched'";
    assert_eq!(crawl.number(fetched), listed, "every URL still there");
}
