//! The client against servers this test starts on 127.0.0.1.

use super::*;

#[tokio::test]
async fn a_name_of_a_blocked_address_is_never_connected() {
    if !super::super::guard::proxies(None).is_empty() {
        return; // a proxy from the environment resolves names itself
    }
    // A listener that would see the connection if the guard let it through.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let client = build(&ClientOptions::default(), false).unwrap();
    let response = get(&client, &format!("http://localhost:{port}/"), 1024).await;
    assert!(response.refused, "{response:?}");
    assert!(response
        .error
        .unwrap()
        .contains("private-address: loopback"));
    assert!(listener.accept().is_err(), "nothing connected");
    drop(listener);

    let open = build(&ClientOptions::default(), true).unwrap();
    let response = get(&open, &format!("http://localhost:{port}/"), 1024).await;
    assert!(!response.refused, "--allow-private connects: {response:?}");
    assert!(response
        .error
        .is_some_and(|e| !e.contains("private-address")));
}

#[tokio::test]
async fn an_https_url_through_a_closed_proxy_is_deferred_not_failed() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let options = ClientOptions {
        proxy: Some(proxy),
        ..ClientOptions::default()
    };
    let client = build(&options, true).unwrap();
    for url in ["https://127.0.0.1:9/", "http://127.0.0.1:9/"] {
        let response = get(&client, url, 1024).await;
        let row = super::super::rows::classify(url.into(), "127.0.0.1".into(), response);
        assert_eq!(row.status, "deferred", "{url}: {:?}", row.response.error);
    }
}

/// A server that answers the first `answers` requests of each connection
/// (0 or 1), keeps it open without `Connection: close`, and closes it on
/// the next request without answering: the kept-alive race, every time.
fn closing_after(answers: usize) -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let connections = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = connections.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                if answers == 0 || !matches!(stream.read(&mut buf), Ok(n) if n > 0) {
                    let _ = stream.read(&mut buf);
                    return;
                }
                let body = "<p>ok</p>";
                let head = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n", body.len());
                let _ = stream.write_all(format!("{head}{body}").as_bytes());
                // the next request on this connection is read, then dropped
                let _ = stream.read(&mut buf);
            });
        }
    });
    (url, connections)
}

#[tokio::test]
async fn a_get_on_a_connection_the_server_closed_is_sent_again_once() {
    let (url, connections) = closing_after(1);
    let client = build(&ClientOptions::default(), true).unwrap();
    for page in 0..4 {
        let response = get(&client, &url, 1024).await;
        assert_eq!(response.http_status, Some(200), "page {page}: {response:?}");
        assert_eq!(response.content, b"<p>ok</p>");
    }
    // each page after the first went out on the kept-alive connection, was
    // dropped there, and was sent again on a new one
    assert_eq!(connections.load(std::sync::atomic::Ordering::SeqCst), 4);
}

#[tokio::test]
async fn a_server_that_drops_every_request_is_asked_twice_not_more() {
    let (url, connections) = closing_after(0);
    let client = build(&ClientOptions::default(), true).unwrap();
    let response = get(&client, &url, 1024).await;
    assert!(
        response.error.is_some() && response.http_status.is_none(),
        "{response:?}"
    );
    assert_eq!(connections.load(std::sync::atomic::Ordering::SeqCst), 2);
}
