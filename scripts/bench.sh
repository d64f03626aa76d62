#!/usr/bin/env bash
# Pipeline benchmark (release build): fetch pages/s against the in-process
# synthetic web at concurrency 64 and delay 0, parse pages/s, and the seconds
# an updatedb takes to add 1,000,000 links. Prints a table.
# A clean release build takes about 25 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --locked --bench pipeline "$@"
