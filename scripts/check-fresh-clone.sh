#!/usr/bin/env bash
# A newcomer's first steps, as root like CI: clone this repository below a folder
# only its owner may enter (as /root is) into a folder whose name has a space,
# install, then:
#   npm start           until both /healthz answer; Ctrl-C (SIGINT to its process
#                       group); it must exit 0 and leave no PostgreSQL running
#   npm run migrate     exits 0
#   node dist/site.js   until /healthz answers; SIGTERM; exit 0, no PostgreSQL left
#   the Chromium tests  with CHROMIUM_PATH unset: the browser comes from npm ci alone
# Removes the clone, its /var/tmp cluster and any binaries copy it made.
# Usage: scripts/check-fresh-clone.sh [repository]   (default: this checkout's HEAD)
set -euo pipefail

repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
parent=$(mktemp -d "${TMPDIR:-/tmp}/lw-newcomer-XXXXXX")
chmod 700 "$parent"
clone="$parent/launcher web"
copies_before=$(ls -d /var/tmp/launcher-web-pg-bin-* 2>/dev/null || true)
clusters=()
server_pid=""
# npm itself answers a Ctrl-C with status 130 whatever its script did, so the exit
# status of the node process under it is recorded by a preloaded hook.
exits="$parent/exit-codes"
printf '%s\n' "process.on('exit', (code) => require('fs').appendFileSync(process.env.LW_EXIT_CODES, process.argv[1] + ' ' + code + '\\n'));" >"$parent/record-exit.cjs"

say() { printf '[fresh clone] %s\n' "$*"; }
fail() {
  say "FAILED: $*"
  [ -f "$parent/server.log" ] && tail -n 30 "$parent/server.log"
  exit 1
}

cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then kill -KILL -- "-$server_pid" 2>/dev/null || true; fi
  [ -f "$parent/server.log" ] && clusters+=("$(cluster_of_log)")
  for cluster in "${clusters[@]}"; do
    [ -n "$cluster" ] || continue
    pkill -INT -f -- "-D $cluster " 2>/dev/null && sleep 2
    case "$cluster" in /var/tmp/launcher-web-pg-*/pg) rm -rf "$(dirname "$cluster")" ;; esac
  done
  rm -rf "$parent"
  for copy in /var/tmp/launcher-web-pg-bin-*; do
    [ -e "$copy" ] || continue
    grep -qxF "$copy" <<<"$copies_before" || rm -rf "$copy"
  done
}
trap cleanup EXIT

cluster_of_log() {
  grep -o '"msg":"embedded PostgreSQL started","dir":"[^"]*"' "$parent/server.log" | tail -n 1 | sed 's/.*"dir":"\([^"]*\)"/\1/' || true
}

free_port() {
  node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}

wait_healthy() { # url...
  local url
  for _ in $(seq 1 180); do
    kill -0 "$server_pid" 2>/dev/null || fail "the server exited before answering"
    for url in "$@"; do curl -sf "$url/healthz" >/dev/null || { sleep 1; continue 2; }; done
    return 0
  done
  fail "no answer from $* within 180 s"
}

# Starts "$@" in a process group of its own (as a terminal would), output to server.log.
start_server() {
  LW_EXIT_CODES=$exits NODE_OPTIONS="--require \"$parent/record-exit.cjs\"" setsid "$@" >"$parent/server.log" 2>&1 &
  server_pid=$!
}

# Signals the whole group (as Ctrl-C does), waits; the node process must exit 0
# and no PostgreSQL may be left on its cluster.
stop_server() { # signal entrypoint
  : >"$exits"
  kill "-$1" -- "-$server_pid"
  local status=0
  wait "$server_pid" || status=$?
  server_pid=""
  local code
  code=$(grep -F "$2 " "$exits" | tail -n 1 | awk '{print $NF}')
  [ "$code" = 0 ] || fail "$2 exited with '${code:-no exit recorded}' after SIG$1 (status seen by the shell: $status)"
  exit_status=$status
  cluster=$(cluster_of_log)
  [ -n "$cluster" ] || fail "the log does not say where the embedded PostgreSQL ran"
  clusters+=("$cluster")
  for _ in $(seq 1 50); do pgrep -f -- "-D $cluster " >/dev/null || return 0; sleep 0.2; done
  fail "PostgreSQL still running on $cluster: $(pgrep -af -- "-D $cluster ")"
}

say "cloning $repo into '$clone' (parent folder 0700)"
git clone -q "$repo" "$clone"
cd "$clone"
say "npm ci"
npm ci --no-audit --no-fund --prefer-offline >"$parent/install.log" 2>&1 || { tail -n 30 "$parent/install.log"; fail "npm ci"; }

site_port=$(free_port)
imghost_port=$(free_port)
say "npm start on ports $site_port and $imghost_port"
SITE_PORT=$site_port IMGHOST_PORT=$imghost_port start_server npm start
wait_healthy "http://127.0.0.1:$site_port" "http://127.0.0.1:$imghost_port"
if [ "$(id -u)" = 0 ]; then
  grep -q 'embedded PostgreSQL binaries.*"dir":"/var/tmp/launcher-web-pg-bin-' "$parent/server.log" ||
    fail "as root below a 0700 folder, the binaries should run from a copy under /var/tmp"
fi
stop_server INT dist/dev.js
say "npm start: both /healthz answered; after Ctrl-C node dist/dev.js exited 0 (npm: $exit_status), PostgreSQL stopped ($cluster)"

npm run migrate >"$parent/server.log" 2>&1 || fail "npm run migrate"
grep -q '"msg":"migrations are up to date"' "$parent/server.log" || fail "npm run migrate did not finish"
say "npm run migrate: exit 0"

SITE_PORT=$site_port start_server node dist/site.js
wait_healthy "http://127.0.0.1:$site_port"
stop_server TERM dist/site.js
say "node dist/site.js: /healthz answered, SIGTERM exited 0, PostgreSQL stopped"

# The browser tests need nothing but npm ci: the npm-shipped Chromium, unpacked
# from the clone's node_modules into an empty temp folder (twice at once, and once
# more to drive it against the image host).
mkdir "$parent/tmp"
env -u CHROMIUM_PATH TMPDIR="$parent/tmp" npm run test:only -- browser/chromium- >"$parent/server.log" 2>&1 || fail "the Chromium tests"
tail -n 1 "$parent/server.log" | grep -qE '^[1-9][0-9]* passed, 0 failed$' || fail "the Chromium tests did not pass"
say "the Chromium tests passed with the browser from npm ci alone"
say "ok"
