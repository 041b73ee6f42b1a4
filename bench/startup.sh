#!/usr/bin/env bash
# Start-up: seconds from launch to /healthz ready on an existing data directory (embedded PostgreSQL), for
# `node dist/server/main.js` and for `npm start` (which adds the build check), and idle RSS 2 s after ready.
#   npm run build && bash bench/startup.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
data=$(mktemp -d /tmp/trellis-bench-startup-XXXXXX)
export TRELLIS_DATA_DIR=$data TRELLIS_BOOTSTRAP_API_KEY=bench-bootstrap-key-0123456789 LOG_LEVEL=warn
unset DATABASE_URL
port=$((20000 + RANDOM % 10000))
export PORT=$port

wait_ready() { # seconds since $1 when /healthz answers 200
  local started=$1
  for _ in $(seq 1 1200); do
    if curl -sf -m 2 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then
      echo "$(date +%s.%N) - $started" | bc; return 0
    fi
    sleep 0.05
  done
  echo "not ready after 60 s" >&2; return 1
}
rss_mib() { awk '/VmRSS/ {printf "%.0f", $2/1024}' "/proc/$1/status"; }
stop() { kill -TERM "$1"; wait "$1" 2>/dev/null || true; }

# First start initialises the cluster and migrates: not counted. Then measure RSS on a warm start.
node dist/server/main.js >/dev/null 2>&1 & pid=$!; wait_ready "$(date +%s.%N)" >/dev/null; stop $pid
node dist/server/main.js >/dev/null 2>&1 & pid=$!; wait_ready "$(date +%s.%N)" >/dev/null; sleep 2
node_rss=$(rss_mib $pid)
pg_pids=$(pgrep -f "postgres -D $data/postgres" || true)
pg_rss=0; for p in $pg_pids $(pgrep -P "$(echo $pg_pids | tr ' ' ',')" || true); do pg_rss=$((pg_rss + $(rss_mib $p))); done
stop $pid

node_times=(); npm_times=()
for _ in $(seq 1 "$runs"); do
  started=$(date +%s.%N); node dist/server/main.js >/dev/null 2>&1 & pid=$!
  node_times+=("$(wait_ready "$started")"); stop $pid
  started=$(date +%s.%N); setsid npm start --silent >/dev/null 2>&1 & pid=$!
  npm_times+=("$(wait_ready "$started")"); kill -TERM -- "-$pid"; wait $pid 2>/dev/null || true
  sleep 0.5
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f s (min %.2f, max %.2f)", m, a[1], a[NR]}'; }
echo "start-up to /healthz ready on an existing data directory, $runs runs each:"
echo "  node dist/server/main.js   median $(median "${node_times[@]}")"
echo "  npm start (incl. build check) median $(median "${npm_times[@]}")"
echo "idle RSS 2 s after ready: platform process ${node_rss} MiB, embedded PostgreSQL (all processes) ${pg_rss} MiB"
rm -rf "$data"
