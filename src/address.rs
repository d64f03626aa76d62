//! The address guard: which hosts and IP addresses a crawler on the open web
//! must not reach — loopback, private, link-local (cloud metadata lives at
//! 169.254.169.254), CGNAT, unspecified, broadcast, multicast, documentation
//! and other special-purpose ranges. `--allow-private` lifts it (the
//! synthetic web and the tests run on loopback).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The decision reason of a link refused by the guard.
pub const PRIVATE_ADDRESS: &str = "private-address";

/// Why `ip` may not be fetched, or `None` if it is a public address.
pub fn blocked_ip(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => blocked_v4(v4),
        IpAddr::V6(v6) => blocked_v6(v6),
    }
}

fn blocked_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        _ if ip.is_unspecified() => "unspecified",
        _ if ip.is_loopback() => "loopback",
        _ if ip.is_private() => "private",
        _ if ip.is_link_local() => "link-local",
        _ if ip.is_broadcast() => "broadcast",
        _ if ip.is_multicast() => "multicast",
        (0, _, _) => "this-network",
        (100, 64..=127, _) => "cgnat",
        (192, 0, 0) => "ietf-protocol",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "documentation",
        (198, 18..=19, _) => "benchmarking",
        (240..=255, _, _) => "reserved",
        _ => return None,
    })
}

fn blocked_v6(ip: Ipv6Addr) -> Option<&'static str> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return blocked_v4(v4);
    }
    let first = ip.segments()[0];
    Some(match first {
        _ if ip.is_unspecified() => "unspecified",
        _ if ip.is_loopback() => "loopback",
        _ if ip.is_multicast() => "multicast",
        0xfc00..=0xfdff => "private",
        0xfe80..=0xfebf => "link-local",
        0xfec0..=0xfeff => "site-local",
        0x2001 if ip.segments()[1] == 0x0db8 => "documentation",
        // 64:ff9b::/96 (NAT64) and 2002::/16 (6to4) embed an IPv4 address.
        0x0064 if ip.segments()[1] == 0xff9b => {
            let [.., a, b] = ip.segments();
            return blocked_v4(Ipv4Addr::from((u32::from(a) << 16) | u32::from(b)));
        }
        0x2002 => {
            let [_, a, b, ..] = ip.segments();
            return blocked_v4(Ipv4Addr::from((u32::from(a) << 16) | u32::from(b)));
        }
        _ => return None,
    })
}

/// Why the host of a URL may not be fetched, judged from its text alone: a
/// literal IP address in a blocked range, or the name `localhost` or a name
/// under `.localhost` (RFC 6761). Names that resolve to blocked addresses are
/// caught at connection time by the fetcher's resolver.
pub fn blocked_host(host: &str) -> Option<&'static str> {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return blocked_ip(ip);
    }
    if host == "localhost" || host.ends_with(".localhost") {
        return Some("loopback");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocked_ranges() {
        for host in [
            "127.0.0.1",
            "127.1.2.3",
            "10.0.0.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "[::1]",
            "::",
            "[fc00::1]",
            "fd12:3456::1",
            "[fe80::1]",
            "ff02::1",
            "[::ffff:127.0.0.1]",
            "[::ffff:169.254.169.254]",
            "64:ff9b::a00:1",
            "localhost",
            "LOCALHOST.",
            "api.localhost",
        ] {
            assert!(blocked_host(host).is_some(), "{host} should be blocked");
        }
    }

    #[test]
    fn public_hosts_pass() {
        for host in [
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "[2606:4700::1111]",
            "example.jp",
            "localhost.example.com",
            "xn--wgv71a.jp",
        ] {
            assert_eq!(blocked_host(host), None, "{host}");
        }
    }

    #[test]
    fn reasons_name_the_range() {
        assert_eq!(blocked_host("169.254.169.254"), Some("link-local"));
        assert_eq!(blocked_host("10.0.0.1"), Some("private"));
        assert_eq!(blocked_host("[::1]"), Some("loopback"));
        assert_eq!(blocked_host("100.64.1.1"), Some("cgnat"));
    }
}
