#!/usr/bin/env bash
# The Postman collection a client makes of the committed schema/openapi.json, run by newman against
# `node dist/main.js` on the real ECB history, with a base URL and a key only. openapi-to-postmanv2
# (parametersResolution=Example: the document's examples, not schema-faked values;
# enableOptionalParameters=false: optional parameters listed, off) converts the document unedited;
# newman runs every request with the key as the collection's bearerToken and the server as its
# origin, and a collection-level test asserts each answers 2xx. The one request whose query no
# document can hold, the signed-link fetch, gets a fresh link first (POST .../series/links) in a
# pre-request script. Tools go into a temporary directory (never the project's dependencies).
# Not part of `npm test`: run it by hand, `scripts/postman-newman.sh`. TOOLS_DIR reuses an install.
set -euo pipefail

PROJECT="$(cd "$(dirname "$0")/.." && pwd)"
HISTORY="${HISTORY:-$PROJECT/../shared/ecb/eurofxref-hist.zip}"
WORK="$(mktemp -d /tmp/postman-newman.XXXXXX)"
TOOLS="${TOOLS_DIR:-$WORK/tools}"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# shellcheck source=lib/serve-history.sh
. "$PROJECT/scripts/lib/serve-history.sh"

echo "== tools (into $TOOLS)"
mkdir -p "$TOOLS"
[ -x "$TOOLS/node_modules/.bin/newman" ] || (cd "$TOOLS" && npm init -y >/dev/null && npm install --no-audit --no-fund openapi-to-postmanv2 newman >/dev/null)

echo "== collection"
"$TOOLS/node_modules/.bin/openapi2postmanv2" -s "$PROJECT/schema/openapi.json" -o "$WORK/collection.json" -p \
  -O parametersResolution=Example,enableOptionalParameters=false
# The harness: a 2xx assertion on every request, and a fresh signed link for the signed-link fetch.
node - "$WORK/collection.json" <<'JS'
const fs = require('node:fs');
const file = process.argv[2];
const collection = JSON.parse(fs.readFileSync(file, 'utf8'));
const script = (listen, exec) => ({ listen, script: { type: 'text/javascript', exec } });
collection.event = [
  script('prerequest', [
    "if (pm.request.url.getPath().endsWith('/series/signed')) {",
    "  pm.sendRequest({ url: pm.variables.get('origin') + '/v1/currency/rates/series/links', method: 'POST',",
    "    header: { Authorization: 'Bearer ' + pm.variables.get('bearerToken'), 'Content-Type': 'application/json' },",
    "    body: { mode: 'raw', raw: JSON.stringify({ start: '2024-03-01', end: '2024-03-28', format: 'csv' }) } },",
    "    (err, res) => { if (!err) pm.request.url.update(res.json().data.url); });",
    '}',
  ]),
  script('test', ["pm.test('answers 2xx', () => pm.expect(pm.response.code).to.be.within(200, 299));"]),
];
fs.writeFileSync(file, JSON.stringify(collection));
JS

echo "== newman"
"$TOOLS/node_modules/.bin/newman" run "$WORK/collection.json" --env-var "origin=$BASE_URL" --env-var "bearerToken=$KEY" \
  --reporters cli --color off
