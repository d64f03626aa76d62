#!/usr/bin/env bash
# A multi-round crawl of the built-in synthetic web, phase by phase, as a
# batch job would run it. Usage: scripts/crawl.sh [CRAWL_DIR] [ROUNDS] [LANG]
# Everything stays on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
crawl="${1:-segments/websim}"
rounds="${2:-3}"
lang="${3:-ja}"
bin="$(scripts/release-bin)"

# Start the synthetic web on a free loopback port and read its address.
log="$(mktemp)"
"$bin" websim serve --listen 127.0.0.1:0 > "$log" &
websim=$!
trap 'kill $websim 2>/dev/null; rm -f "$log"' EXIT
until grep -q '^websim:' "$log"; do sleep 0.1; done
proxy="$(grep -o 'with --proxy [^ ]*' "$log" | cut -d' ' -f3)"
grep '^seeds' "$log" | cut -d: -f2- | tr ' ' '\n' | grep . > "$crawl.seeds.txt" || true

"$bin" inject --crawl "$crawl" --lang "$lang" "$crawl.seeds.txt"
for _ in $(seq "$rounds"); do
  "$bin" generate --crawl "$crawl"
  "$bin" fetch    --crawl "$crawl" --proxy "$proxy" --delay-ms 0
  "$bin" parse    --crawl "$crawl"
  "$bin" updatedb --crawl "$crawl" --strategy bfs
done
"$bin" report --crawl "$crawl"
