#!/bin/sh
# Smoke test of a deployment of the site and the image host, with curl and a POSIX
# shell only (no jq). Run it after every deployment, against the public URLs:
#
#   SITE_URL=https://launcher.example.com IMGHOST_URL=https://img.example.com sh scripts/smoke.sh
#
# Optional:
#   SESSION_COOKIE        a logged-in session cookie, as `name=value` (e.g. "sid=..."
#                         or "__Host-sid=..." under https): adds an upload through the site
#   PLUGIN_ID             an approved plugin: adds its detail, manifest and install link
#   IMGHOST_UPLOAD_TOKEN  when the image host requires it for direct uploads
#   SMOKE_TIMEOUT         seconds each request may take (default 20)
#
# One line per step: ok or FAIL, the step, the HTTP status, the time. Stops with a
# non-zero exit at the first failure. Leaves one tiny PNG on the image host (the
# same bytes every run, stored once).

set -u

if [ -z "${SITE_URL:-}" ] || [ -z "${IMGHOST_URL:-}" ]; then
  echo "usage: SITE_URL=https://site IMGHOST_URL=https://images [SESSION_COOKIE=sid=...] [PLUGIN_ID=id] sh scripts/smoke.sh" >&2
  exit 2
fi
SITE_URL=${SITE_URL%/}
IMGHOST_URL=${IMGHOST_URL%/}
TIMEOUT=${SMOKE_TIMEOUT:-20}

command -v curl >/dev/null 2>&1 || { echo "FAIL curl is not installed" >&2; exit 2; }

work=$(mktemp -d 2>/dev/null || mktemp -d -t smoke) || { echo "FAIL cannot make a temporary folder" >&2; exit 2; }
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# A 2x2 orange PNG, written with printf's octal escapes (no file to ship).
printf '\211\120\116\107\015\012\032\012\000\000\000\015\111\110\104\122\000\000\000\002\000\000\000\002\010\002\000\000\000\375\324\232\163\000\000\000\011\160\110\131\163\000\000\003\350\000\000\003\350\001\265\173\122\153\000\000\000\020\111\104\101\124\010\327\143\370\337\301\000\104\014\020\012\000\056\316\006\035\040\007\207\153\000\000\000\000\111\105\116\104\256\102\140\202' >"$work/smoke.png"

STEP=''
STATUS=''
TIME=''

report() { # report ok|FAIL [reason]
  printf '%-4s  %-44s  %s  %ss%s\n' "$1" "$STEP" "$STATUS" "$TIME" "${2:+  ($2)}"
}

fail() { # fail reason: reports the step as failed and stops
  report FAIL "$1"
  exit 1
}

# call STEP EXPECTED_STATUS curl-arguments...
# One request; its body lands in $work/body and its headers in $work/headers.
call() {
  STEP=$1
  want=$2
  shift 2
  : >"$work/body"
  : >"$work/headers"
  out=$(curl -sS --max-time "$TIMEOUT" -o "$work/body" -D "$work/headers" -w '%{http_code} %{time_total}' "$@" 2>"$work/error")
  STATUS=${out%% *}
  TIME=${out#* }
  # curl prints six decimals; milliseconds are enough.
  case $TIME in *.??????) TIME=${TIME%???} ;; esac
  [ -n "$STATUS" ] || STATUS=000
  if [ "$STATUS" = 000 ]; then
    fail "$(tr '\n' ' ' <"$work/error" | sed 's/ *$//')"
  fi
  [ "$STATUS" = "$want" ] || fail "expected $want; body: $(head -c 200 "$work/body" | tr '\n' ' ')"
}

# expect_body EXTENDED-REGEX: the last call's body matches.
expect_body() {
  grep -Eq -- "$1" "$work/body" || fail "body does not match $1: $(head -c 200 "$work/body" | tr '\n' ' ')"
}

# expect_header NAME EXTENDED-REGEX: the last call's header NAME has a value matching.
expect_header() {
  value=$(tr -d '\r' <"$work/headers" | grep -i "^$1:" | tail -n 1 | sed 's/^[^:]*:[[:space:]]*//')
  printf '%s' "$value" | grep -Eq -- "$2" || fail "$1 is \"$value\", expected $2"
}

# json_string KEY: the first "KEY":"value" of the last call's body (plain values only).
json_string() {
  sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" "$work/body" | head -n 1
}

ok() { report ok; }

# ── Both services up ──────────────────────────────────────────────────────────
call 'site /healthz' 200 "$SITE_URL/healthz"; ok
call 'site /readyz (PostgreSQL)' 200 "$SITE_URL/readyz"; ok
call 'image host /healthz' 200 "$IMGHOST_URL/healthz"; ok
call 'image host /readyz (image folder)' 200 "$IMGHOST_URL/readyz"; ok

# ── Launcher endpoints ────────────────────────────────────────────────────────
call 'site /api/info' 200 "$SITE_URL/api/info"
expect_body '"success":true'
expect_body '"latestVersion"'
ok
call 'site /api/fastdownload' 200 "$SITE_URL/api/fastdownload"
expect_body '"enabled":(true|false)'
ok

# ── Plugin store ──────────────────────────────────────────────────────────────
call 'site plugin list' 200 "$SITE_URL/apps/api/plugins?public=1"
expect_body '"plugins":\['
ok
if [ -n "${PLUGIN_ID:-}" ]; then
  call "site plugin $PLUGIN_ID" 200 "$SITE_URL/apps/api/plugins/$PLUGIN_ID"
  expect_body "\"id\":\"$PLUGIN_ID\""
  ok
  call "site plugin $PLUGIN_ID manifest" 200 "$SITE_URL/apps/api/plugins/$PLUGIN_ID/manifest.json"
  expect_header 'Access-Control-Allow-Origin' '^\*$'
  expect_body '"download":"https://'
  ok
  call "site plugin $PLUGIN_ID install link" 200 "$SITE_URL/apps/api/plugins/$PLUGIN_ID/install-link"
  expect_body '"install_url":"[A-Za-z][A-Za-z0-9+.-]*://plugin/install\?download='
  ok
fi

# ── Image host: upload, original, WebP ────────────────────────────────────────
if [ -n "${IMGHOST_UPLOAD_TOKEN:-}" ]; then
  call 'image host upload' 200 -H "Authorization: Bearer $IMGHOST_UPLOAD_TOKEN" -F "image=@$work/smoke.png;type=image/png" "$IMGHOST_URL/api/upload"
else
  call 'image host upload' 200 -F "image=@$work/smoke.png;type=image/png" "$IMGHOST_URL/api/upload"
fi
expect_body '"success":true'
original=$(json_string url)
webp=$(json_string webpUrl)
[ -n "$original" ] && [ -n "$webp" ] || fail 'no data.url / data.webpUrl in the answer'
ok
call 'image host original' 200 "$IMGHOST_URL$original"
expect_header 'Content-Type' '^image/png'
ok
call 'image host WebP preview' 200 "$IMGHOST_URL$webp"
expect_header 'Content-Type' '^image/webp'
ok

# ── Upload through the site (needs a session) ─────────────────────────────────
if [ -n "${SESSION_COOKIE:-}" ]; then
  call 'site media upload' 200 -b "$SESSION_COOKIE" -F "image=@$work/smoke.png;type=image/png" "$SITE_URL/apps/api/media/upload"
  expect_body '"success":true'
  url=$(json_string url)
  case $url in
    http://* | https://*) ;;
    *) fail "data.url \"$url\" is not absolute" ;;
  esac
  ok
  # The URL handed out must work from outside: this checks IMAGE_HOST_PUBLIC_URL.
  call 'site media upload: its URL' 200 "$url"
  expect_header 'Content-Type' '^image/png'
  ok
fi

# ── Icons ─────────────────────────────────────────────────────────────────────
call 'image host icon as SVG' 200 "$IMGHOST_URL/SF/star?color=%23ff8800"
expect_header 'Content-Type' '^image/svg\+xml'
expect_body '<svg'
ok
call 'image host icon as PNG' 200 "$IMGHOST_URL/SF/star?png=true&size=64"
expect_header 'Content-Type' '^image/png'
ok

echo 'all smoke steps passed'
