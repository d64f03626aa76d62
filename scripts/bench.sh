#!/usr/bin/env bash
# Pipeline benchmark (release build): fetch pages/s against the in-process
# synthetic web at concurrency 64 and delay 0, parse pages/s, the seconds
# an updatedb takes to add 1,000,000 links, and the seconds simulate takes to
# replay bfs over a generated 1,000,000-page, ~10,000,000-link web (set
# LANGCRAWL_BENCH_SIM_PAGES for another size), with peak memory. Prints a table.
# A clean release build takes about 25 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --locked --bench pipeline "$@"
