//! `websim generate` (write a calibrated web graph) and `websim serve`
//! (serve the procedural web or a web graph on loopback).

use std::path::Path;

use super::super::websim_args::{GenerateWebArgs, WebKind, WebsimArgs};
use super::Context;
use crate::error::{Error, Result};
use crate::lang::TargetLang;
use crate::websim::calibrated::Shape;

/// The largest calibrated web: its ~13 links a page stay under the 2^32
/// links a topology counts.
const MAX_PAGES: usize = 200_000_000;

/// The largest university web (its plan is kept in memory while written).
const MAX_UNIVERSITY_PAGES: usize = 1_000_000;

pub(in crate::cli) async fn generate(ctx: &Context, args: &GenerateWebArgs) -> Result<()> {
    let lang = match (args.kind, &args.lang) {
        (WebKind::University, _) => return generate_university(ctx, args),
        (WebKind::Calibrated, Some(lang)) => lang,
        (WebKind::Calibrated, None) => {
            return Err(Error::Usage("--lang: required for a calibrated web".into()))
        }
    };
    let target = TargetLang::parse(lang)?;
    // English is the language of a calibrated web's fronts and tunnels
    let known: Vec<&str> = crate::websim::corpus::LANGS
        .iter()
        .map(|l| l.code)
        .filter(|&code| code != "eng")
        .collect();
    let index = crate::websim::corpus::lang_index(target.code());
    let Some(index) = index.filter(|_| known.contains(&target.code())) else {
        let why = match target.code() {
            "eng" => "a calibrated web's other pages are English".to_string(),
            code => format!("the synthetic web has no text in {code}"),
        };
        return Err(Error::Usage(format!(
            "--lang {lang}: {why} (its target is one of {})",
            known.join(", ")
        )));
    };
    if !(100..=MAX_PAGES).contains(&args.pages) {
        return Err(Error::Usage(format!(
            "--pages {}: at least 100 and at most {MAX_PAGES}",
            args.pages
        )));
    }
    let spec = crate::websim::calibrated::CalibratedSpec {
        target: index,
        pages: args.pages,
        seed: args.seed,
        shape: args.shape_seed.map_or(Shape::TAMURA, Shape::drawn),
        shape_seed: args.shape_seed,
    };
    let started = std::time::Instant::now();
    let info =
        crate::websim::web_stats::generate_into(&ctx.engine, spec, &target, &args.out).await?;
    if ctx.quiet {
        return Ok(());
    }
    println!(
        "websim: wrote a web of {} pages and {} links for {} to {} in {:.1} s; seeds: {}\n",
        info.pages,
        info.links,
        target.code(),
        args.out.display(),
        started.elapsed().as_secs_f64(),
        info.seeds.join(" ")
    );
    print!("{}", crate::websim::web_stats::table(&info.stats));
    Ok(())
}

fn generate_university(ctx: &Context, args: &GenerateWebArgs) -> Result<()> {
    use crate::websim::university;
    if !(100..=MAX_UNIVERSITY_PAGES).contains(&args.pages) {
        return Err(Error::Usage(format!(
            "--pages {}: at least 100 and at most {MAX_UNIVERSITY_PAGES} for a university web",
            args.pages
        )));
    }
    if args.shape_seed.is_some() {
        return Err(Error::Usage(
            "--shape-seed: only a calibrated web has a shape to draw".into(),
        ));
    }
    if let Some(lang) = &args.lang {
        return Err(Error::Usage(format!(
            "--lang {lang}: a university web is English and Hindi; its target is class {}",
            university::TARGET_CLASS
        )));
    }
    let started = std::time::Instant::now();
    let web = crate::webgraph::WebDir::create(&args.out)?;
    let spec = university::UniversitySpec {
        pages: args.pages,
        seed: args.seed,
    };
    let generated = university::generate_into(spec, &web)?;
    web.save_info(&crate::webgraph::WebInfo {
        target_lang: "eng".into(),
        target_class: Some(university::TARGET_CLASS.into()),
        seeds: generated.seeds.clone(),
        made_by: format!(
            "langcrawl websim generate --kind university --pages {} --seed {}",
            args.pages, args.seed
        ),
        pages: generated.pages,
        links: generated.links,
        stats: Vec::new(),
    })?;
    ctx.say(format!(
        "websim: wrote a university web of {} pages and {} links (target: class {}) to {} in {:.1} s; seeds: {}",
        generated.pages,
        generated.links,
        university::TARGET_CLASS,
        args.out.display(),
        started.elapsed().as_secs_f64(),
        generated.seeds.join(" ")
    ));
    Ok(())
}

pub(in crate::cli) async fn serve(args: &WebsimArgs) -> Result<()> {
    if let Some(dir) = &args.web {
        return serve_graph(args, dir).await;
    }
    if args.hosts == 0 || args.pages < args.hosts {
        return Err(Error::Usage(format!(
            "--hosts {} --pages {}: at least one host, and a page for each",
            args.hosts, args.pages
        )));
    }
    let web = crate::websim::Web::generate(crate::websim::WebSpec {
        seed: args.seed,
        hosts: args.hosts,
        pages: args.pages,
        chrome: args.chrome,
        discovery: args.discovery,
        changes: args.changes,
    });
    let listener = crate::websim::server::bind(args.listen)?;
    let addr = listener.local_addr().map_err(Error::io("listener"))?;
    println!(
        "websim: {} hosts, {} pages (seed {}) on http://{addr}; crawl it with --proxy http://{addr}",
        web.hosts.len(),
        web.hosts.iter().map(|h| h.pages as usize).sum::<usize>(),
        args.seed
    );
    println!(
        "seeds (Japanese front pages): {}",
        web.seeds("jpn", 3).join(" ")
    );
    crate::websim::server::serve_std(std::sync::Arc::new(web), listener, None).await
}

async fn serve_graph(args: &WebsimArgs, dir: &Path) -> Result<()> {
    let web = crate::webgraph::WebDir::open(dir)?;
    let site = crate::websim::graph_site::GraphSite::load(&web)?;
    let listener = crate::websim::server::bind(args.listen)?;
    let addr = listener.local_addr().map_err(Error::io("listener"))?;
    println!(
        "websim: the web graph {} ({} pages) on http://{addr}; crawl it with --proxy http://{addr}",
        dir.display(),
        site.graph().pages.len()
    );
    println!("seeds: {}", site.info().seeds.join(" "));
    crate::websim::server::serve_std(std::sync::Arc::new(site), listener, None).await
}
