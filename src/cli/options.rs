//! From flags to the phases' options: defaults, ranges and the crawl's
//! saved settings (`crawl.json`) merged with what the command line gives.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::args::*;
use super::fetch_args::FetchArgs;
use crate::error::{Error, Result};
use crate::fetch::{client::ClientOptions, sitemap::SitemapOptions, FetchOptions, MAX_CONCURRENCY};
use crate::generate::GenerateOptions;
use crate::lang::TargetLang;
use crate::store::schema::LINK_FEATURES;
use crate::store::{CrawlConfig, CrawlLimits, StrategyParams};
use crate::strategy::LinkSelection;

impl LimitArgs {
    /// Sets the limits given on the command line.
    pub fn apply(&self, limits: &mut CrawlLimits) {
        set(&mut limits.max_depth, self.max_depth);
        set(&mut limits.max_url_length, self.max_url_length);
        set(&mut limits.max_repeated_segment, self.max_repeated_segment);
        set(&mut limits.host_budget, self.host_budget);
        set(&mut limits.max_outlinks, self.max_outlinks);
        set(&mut limits.max_redirects, self.max_redirects);
        set(&mut limits.allow_private, self.guard.allow_private);
    }
}

pub(super) fn missing_lang() -> Error {
    Error::Usage("--lang is required: the crawl has no target language yet (e.g. --lang ja)".into())
}

impl GenerateArgs {
    pub(super) fn options(&self) -> GenerateOptions {
        GenerateOptions {
            top_n: self.top_n,
            max_per_host: self.max_per_host,
            max_retries: self.max_retries,
            partitions: self.partitions,
            schedule: self.recrawl.change(),
            refetch_ahead: self.recrawl.refetch_ahead.unwrap_or_default(),
        }
    }
}

impl FetchArgs {
    pub(super) fn options(&self, quiet: bool) -> Result<FetchOptions> {
        // A week at most: a deadline past the clock's range would panic.
        let most = crate::fetch::client::MAX_TIMEOUT;
        let seconds = |name: &str, value: f64| {
            Duration::try_from_secs_f64(value)
                .ok()
                .filter(|d| !d.is_zero() && d.as_secs() <= most.as_secs())
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "--{name} {value}: must be a positive number of seconds, at most {} (a week)",
                        most.as_secs()
                    ))
                })
        };
        if self.concurrency == 0 {
            return Err(Error::Usage("--concurrency 0: must be at least 1".into()));
        }
        if self.concurrency > MAX_CONCURRENCY {
            return Err(Error::Usage(format!(
                "--concurrency {}: at most {MAX_CONCURRENCY}",
                self.concurrency
            )));
        }
        if self.max_host_failures == 0 {
            return Err(Error::Usage(
                "--max-host-failures 0: must be at least 1".into(),
            ));
        }
        if self.max_content_bytes > crate::fetch::rows::MAX_CONTENT_CAP {
            return Err(Error::Usage(format!(
                "--max-content-bytes {}: must be at most 1GiB",
                self.max_content_bytes
            )));
        }
        let millis = |name: &str, value: u64, max: u64| {
            (value <= max)
                .then(|| Duration::from_millis(value))
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "--{name} {value}: must be at most {max} milliseconds"
                    ))
                })
        };
        Ok(FetchOptions {
            client: ClientOptions {
                user_agent: self.user_agent.clone(),
                proxy: self.proxy.clone(),
                connect_timeout: seconds("connect-timeout", self.connect_timeout)?,
                timeout: seconds("timeout", self.timeout)?,
                max_content_bytes: self.max_content_bytes,
                accept_language: None,
                resolve: Vec::new(),
            },
            concurrency: self.concurrency,
            delay: millis("delay-ms", self.delay_ms, 60_000)?,
            max_crawl_delay: millis("max-crawl-delay-ms", self.max_crawl_delay_ms, 600_000)?,
            max_host_failures: self.max_host_failures,
            host_time_budget: seconds("host-time-budget", self.host_time_budget)?,
            max_fetch_time: self
                .max_fetch_time
                .map(|t| seconds("max-fetch-time", t))
                .transpose()?,
            max_fetch_time_reason: crate::fetch::FETCH_TIME_REACHED,
            allow_private: false,
            page_memory: self.page_memory,
            sitemaps: SitemapOptions::default(),
            queue_by: Default::default(),
            delay_factor: 0.0,
            stop: crate::shutdown::StopHandle::default(),
            quiet,
        })
    }
}

impl FetchArgs {
    /// The fetch options over the crawl's settings: the flags given are
    /// saved into `config` (the caller saves it), the rest come from it.
    pub(super) fn resolve(&self, config: &mut CrawlConfig, quiet: bool) -> Result<FetchOptions> {
        if let Some(value) = &self.accept_language {
            let value = value.trim();
            if value.is_empty() || reqwest::header::HeaderValue::from_str(value).is_err() {
                return Err(Error::Usage(format!(
                    "--accept-language {value:?}: give a header value (th, en;q=0.5) or off"
                )));
            }
            config.fetch.accept_language = Some(value.to_string());
        }
        let target = config
            .target_lang
            .as_deref()
            .map(TargetLang::parse)
            .transpose()?;
        if let Some(target) = &target {
            config.fetch.follow_target(Some(target), target);
        }
        set(&mut config.fetch.sitemaps, self.sitemaps);
        set(&mut config.fetch.guess_sitemap, self.guess_sitemap);
        set(&mut config.fetch.queue_by, self.queue_by);
        if let Some(factor) = self.delay_factor {
            if !(0.0..=1000.0).contains(&factor) {
                return Err(Error::Usage(format!(
                    "--delay-factor {factor}: must be between 0 (off) and 1000"
                )));
            }
            config.fetch.delay_factor = factor;
        }
        let mut options = self.options(quiet)?;
        options.client.accept_language = config.fetch.accept_language_header();
        options.sitemaps = SitemapOptions {
            read: config.fetch.sitemaps,
            guess: config.fetch.guess_sitemap,
        };
        options.allow_private = config.limits.allow_private;
        options.queue_by = config.fetch.queue_by;
        options.delay_factor = config.fetch.delay_factor;
        for (name, addr) in &self.resolve {
            let blocked = crate::address::blocked_ip(addr.ip());
            if let Some(why) = blocked.filter(|_| !options.allow_private) {
                return Err(Error::Usage(format!(
                    "--resolve {name}={addr}: a {why} address; add --allow-private to fetch it"
                )));
            }
        }
        options.client.resolve.clone_from(&self.resolve);
        Ok(options)
    }
}

impl UpdateArgs {
    /// The link selection the flags ask for, over the crawl's settings;
    /// `config` takes the result (the caller saves it, or not).
    pub fn resolve(&self, config: &mut CrawlConfig) -> Result<LinkSelection> {
        let lang = match &self.lang {
            Some(lang) => TargetLang::parse(lang)?,
            None => TargetLang::parse(config.target_lang.as_deref().ok_or_else(missing_lang)?)?,
        };
        let strategy = crate::strategy::find(self.strategy.as_deref().unwrap_or(&config.strategy))?;
        if strategy.simulation_only {
            return Err(Error::Usage(format!(
                "--strategy {}: needs the whole web graph; replay a crawl with `langcrawl graph export` and `langcrawl simulate`",
                strategy.name
            )));
        }
        if config.target_lang.as_deref() != Some(lang.code()) {
            config.params.target_tlds = lang.default_tlds();
            let old = config
                .target_lang
                .as_deref()
                .and_then(|t| TargetLang::parse(t).ok());
            config.fetch.follow_target(old.as_ref(), &lang);
            config.target_lang = Some(lang.code().to_string());
        }
        config.strategy = strategy.name.to_string();
        self.params.apply(&mut config.params)?;
        self.limits.apply(&mut config.limits);
        Ok(LinkSelection {
            strategy,
            target_lang: lang,
            params: config.params.clone(),
            limits: config.limits.clone(),
        })
    }
}

impl StrategyArgs {
    /// Sets the parameters given on the command line.
    pub(super) fn apply(&self, params: &mut StrategyParams) -> Result<()> {
        if let Some(tlds) = &self.tld {
            params.target_tlds = tlds
                .iter()
                .map(|t| t.trim().trim_start_matches('.').to_ascii_lowercase())
                .filter(|t| !t.is_empty())
                .collect();
        }
        for (flag, value) in [
            ("min-ont-rel", self.min_ont_rel),
            ("min-la-rel", self.min_la_rel),
        ] {
            if value.is_some_and(|v| !v.is_finite()) {
                return Err(Error::Usage(format!("--{flag}: must be a number")));
            }
        }
        if self.min_yield.is_some_and(|p| !(0.0..=1.0).contains(&p)) {
            return Err(Error::Usage("--min-yield: must be a share, 0 to 1".into()));
        }
        if self
            .explore_share
            .is_some_and(|p| !(0.0..=0.9).contains(&p))
        {
            return Err(Error::Usage("--explore-share: must be 0 to 0.9".into()));
        }
        if self.round_floor.is_some_and(|f| !(0.0..=1.0).contains(&f)) {
            return Err(Error::Usage(
                "--round-floor: must be a share, 0 to 1".into(),
            ));
        }
        if let Some(unknown) = self
            .leave_out
            .iter()
            .flatten()
            .find(|f| !LINK_FEATURES.contains(&f.as_str()))
        {
            return Err(Error::Usage(format!(
                "--leave-out {unknown}: no such feature (known: {})",
                LINK_FEATURES.join(", ")
            )));
        }
        for (flag, file) in [
            ("importance", &self.importance),
            ("dictionary", &self.dictionary),
            ("class-rules", &self.class_rules),
            ("stop-words", &self.stop_words),
        ] {
            if let Some(file) = file.as_ref().filter(|f| !f.is_file()) {
                return Err(Error::Usage(format!(
                    "--{flag} {}: no such file",
                    file.display()
                )));
            }
        }
        set(&mut params.tolerance, self.tolerance);
        set(&mut params.han_matches, self.han_matches);
        set(&mut params.min_ont_rel, self.min_ont_rel);
        set(&mut params.min_la_rel, self.min_la_rel);
        set(&mut params.explore_share, self.explore_share);
        set(&mut params.round_floor, self.round_floor);
        set_some(&mut params.min_yield, &self.min_yield);
        set_some(&mut params.max_pages, &self.max_pages);
        set(&mut params.rule_depth, self.rule_depth);
        set(&mut params.leave_out, self.leave_out.clone());
        set_some(&mut params.target_class, &self.target_class);
        set_some(
            &mut params.importance,
            &self.importance.as_deref().map(absolute),
        );
        set_some(
            &mut params.dictionary,
            &self.dictionary.as_deref().map(absolute),
        );
        set_some(
            &mut params.class_rules,
            &self.class_rules.as_deref().map(absolute),
        );
        set_some(
            &mut params.stop_words,
            &self.stop_words.as_deref().map(absolute),
        );
        Ok(())
    }
}

pub(super) fn set<T>(slot: &mut T, value: Option<T>) {
    if let Some(value) = value {
        *slot = value;
    }
}

pub(super) fn set_some<T: Clone>(slot: &mut Option<T>, value: &Option<T>) {
    if value.is_some() {
        slot.clone_from(value);
    }
}

/// A table file's path as crawl.json keeps it: absolute, so later phases
/// find it from any working directory.
pub(super) fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
#[path = "options_tests.rs"]
mod tests;
