use super::*;

#[test]
fn the_web_is_deterministic_and_every_host_resolves() {
    let web = Web::generate(WebSpec::default());
    let again = Web::generate(WebSpec::default());
    assert_eq!(web.hosts[17].name, again.hosts[17].name);
    for (i, host) in web.hosts.iter().enumerate() {
        assert_eq!(
            web.host(&host.name).map(|(h, _)| h),
            Some(i),
            "{}",
            host.name
        );
    }
    let host = &web.hosts[3].name;
    assert_eq!(web.respond(host, "/").body, again.respond(host, "/").body);
}

#[test]
fn routes_answer_as_documented() {
    let web = Web::generate(WebSpec::default());
    let (h, host) = web
        .hosts
        .iter()
        .enumerate()
        .find(|(_, h)| h.pages > 10 && h.robots == RobotsKind::DisallowPrivate)
        .unwrap();
    assert_eq!(web.respond(&host.name, "/").status, 200);
    // Page 7 is behind robots.txt, but the server itself answers it.
    assert_eq!(web.respond(&host.name, "/private/7.html").status, 200);
    let redirect = web.respond(&host.name, "/old/2");
    assert_eq!(
        (redirect.status, redirect.location.as_deref()),
        (301, Some(web.page_path(h, 2).as_str()))
    );
    assert_eq!(web.respond(&host.name, "/nothing.html").status, 404);
    assert_eq!(web.respond("unknown.example", "/").status, 502);
    assert!(
        String::from_utf8_lossy(&web.respond(&host.name, "/robots.txt").body)
            .contains("Disallow: /private/")
    );
}

#[test]
fn most_links_stay_in_their_language() {
    let web = Web::generate(WebSpec::default());
    let (mut same, mut all) = (0, 0);
    for h in 0..50 {
        let lang = web.page_lang(h, 1.min(web.hosts[h].pages - 1));
        let mut rng = Rng::new(&[9, h as u64]);
        for _ in 0..20 {
            let (dh, dj) = web.pick_target(h, web.page_lang_index(h, 0), &mut rng);
            same += usize::from(web.page_lang(dh, dj) == lang);
            all += 1;
        }
    }
    assert!(same * 100 / all > 70, "{same}/{all}");
}
