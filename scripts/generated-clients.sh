#!/usr/bin/env bash
# Generated clients against a running server: orval (its fetch client), openapi-fetch with
# openapi-typescript, and @hey-api/openapi-ts, each generated from the committed
# schema/openapi.json into a temporary directory outside the project (never the project's
# dependencies), compiled with tsc --strict, and run against `node dist/main.js` on the real ECB
# history, to fetch the series as JSON, CSV and NDJSON (one operation each) and a batch, with no
# cast, no hand-written fetch and no type override; then the same series by curl (format=, a
# signed link, its earlier form's redirect). Not part of `npm test` (it installs packages
# and builds): run it by hand, `scripts/generated-clients.sh`. CLIENTS_DIR reuses an install.
set -euo pipefail

PROJECT="$(cd "$(dirname "$0")/.." && pwd)"
HISTORY="${HISTORY:-$PROJECT/../shared/ecb/eurofxref-hist.zip}"
WORK="$(mktemp -d /tmp/generated-clients.XXXXXX)"
CLIENTS="${CLIENTS_DIR:-$WORK/clients}"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# shellcheck source=lib/serve-history.sh
. "$PROJECT/scripts/lib/serve-history.sh"

echo "== generators (into $CLIENTS)"
mkdir -p "$CLIENTS"
cd "$CLIENTS"
if [ ! -d node_modules/orval ]; then
  echo '{"name":"generated-clients","private":true,"type":"module"}' >package.json
  npm install --silent --no-audit --no-fund \
    orval@8.38.0 @hey-api/openapi-ts@0.99.0 openapi-fetch@0.17.0 openapi-typescript@7.13.0 typescript@5.9.3 tsx@4 @types/node@24
fi
SPEC="$PROJECT/schema/openapi.json"
rm -rf orval hey-api openapi-fetch && mkdir -p openapi-fetch
cat >orval.config.mjs <<EOF
export default { api: { input: { target: '$SPEC' }, output: { target: './orval/api.ts', client: 'fetch', mode: 'single', baseUrl: '$BASE_URL' } } };
EOF
npx orval --config orval.config.mjs >/dev/null
npx @hey-api/openapi-ts -i "$SPEC" -o hey-api >/dev/null
npx openapi-typescript "$SPEC" -o openapi-fetch/schema.d.ts >/dev/null

# The same questions in each client: a month of USD and JPY, per publication.
cat >orval-client.ts <<'EOF'
import { batch, rateSeries, rateSeriesCsv, rateSeriesNdjson } from './orval/api';

const query = { start: '2024-03-01', end: '2024-03-31', symbols: 'USD,JPY' };
const options = { headers: { Authorization: `Bearer ${process.env['KEY']}` } };

const json = await rateSeries(query, options);
if (json.status !== 200) throw new Error(`JSON ${json.status}`);
const csv = await rateSeriesCsv(query, options);
if (csv.status !== 200) throw new Error(`CSV ${csv.status}`);
const ndjson = await rateSeriesNdjson(query, options);
if (ndjson.status !== 200) throw new Error(`NDJSON ${ndjson.status}`);
const lines = (await ndjson.stream.text()).trimEnd().split('\n');
const items = { items: [{ value: '12.5', from: 'in', to: 'cm' }, { value: '100', from: 'USD', to: 'JPY', date: '2024-03-28' }] };
const batched = await batch(items, options);
if (batched.status !== 200) throw new Error(`batch ${batched.status}`);
const usd: string | undefined = json.data.data.entries[0]?.rates['USD'];
const header: string = csv.data.split('\r\n')[0]!;
console.log(
  `orval         JSON ${json.data.data.entries.length} entries (USD ${usd}) | CSV ${csv.data.split('\r\n').length - 2} rows (${header}) | NDJSON ${lines.length} lines | batch ${batched.data.data.succeeded} of ${batched.data.data.results.length}`,
);
EOF

cat >hey-api-client.ts <<'EOF'
import { client } from './hey-api/client.gen';
import { batch, rateSeries, rateSeriesCsv, rateSeriesNdjson } from './hey-api/sdk.gen';

client.setConfig({ baseUrl: process.env['BASE_URL']!, auth: () => process.env['KEY'] });
const query = { start: '2024-03-01', end: '2024-03-31', symbols: 'USD,JPY' };

const json = await rateSeries({ query, throwOnError: true });
const csv = await rateSeriesCsv({ query, throwOnError: true });
const ndjson = await rateSeriesNdjson({ query, throwOnError: true });
const lines = (await ndjson.data.text()).trimEnd().split('\n');
const items = [{ value: '12.5', from: 'in', to: 'cm' }, { value: '100', from: 'USD', to: 'JPY', date: '2024-03-28' }];
const batched = await batch({ body: { items }, throwOnError: true });
const usd: string | undefined = json.data.data.entries[0]?.rates['USD'];
const header: string = csv.data.split('\r\n')[0]!;
console.log(
  `hey-api       JSON ${json.data.data.entries.length} entries (USD ${usd}) | CSV ${csv.data.split('\r\n').length - 2} rows (${header}) | NDJSON ${lines.length} lines | batch ${batched.data.data.succeeded} of ${batched.data.data.results.length}`,
);
EOF

# openapi-fetch parses a body as JSON unless `parseAs` names another reader (its documented
# option, typed: `parseAs: 'text'` makes `data` a string); it does not read Content-Type.
cat >openapi-fetch-client.ts <<'EOF'
import createClient from 'openapi-fetch';
import type { paths } from './openapi-fetch/schema';

const api = createClient<paths>({ baseUrl: process.env['BASE_URL']!, headers: { Authorization: `Bearer ${process.env['KEY']}` } });
const query = { start: '2024-03-01', end: '2024-03-31', symbols: 'USD,JPY' };

const json = await api.GET('/v1/currency/rates/series', { params: { query } });
if (!json.data) throw new Error(`JSON ${json.response.status}`);
const csv = await api.GET('/v1/currency/rates/series.csv', { params: { query }, parseAs: 'text' });
if (csv.data === undefined) throw new Error(`CSV ${csv.response.status}`);
const ndjson = await api.GET('/v1/currency/rates/series.ndjson', { params: { query }, parseAs: 'text' });
if (ndjson.data === undefined) throw new Error(`NDJSON ${ndjson.response.status}`);
const lines = ndjson.data.trimEnd().split('\n');
const items = [{ value: '12.5', from: 'in', to: 'cm' }, { value: '100', from: 'USD', to: 'JPY', date: '2024-03-28' }];
const batched = await api.POST('/v1/batch', { body: { items } });
if (!batched.data) throw new Error(`batch ${batched.response.status}`);
const usd: string | undefined = json.data.data.entries[0]?.rates['USD'];
const header: string = csv.data.split('\r\n')[0]!;
console.log(
  `openapi-fetch JSON ${json.data.data.entries.length} entries (USD ${usd}) | CSV ${csv.data.split('\r\n').length - 2} rows (${header}) | NDJSON ${lines.length} lines | batch ${batched.data.data.succeeded} of ${batched.data.data.results.length}`,
);
EOF

echo "== tsc --strict"
cat >tsconfig.json <<'EOF'
{
  "compilerOptions": {
    "strict": true, "noEmit": true, "target": "ES2022", "module": "ESNext", "moduleResolution": "Bundler",
    "lib": ["ES2022", "DOM", "DOM.Iterable"], "types": ["node"], "skipLibCheck": false, "noUncheckedIndexedAccess": true
  },
  "files": ["orval-client.ts", "hey-api-client.ts", "openapi-fetch-client.ts"]
}
EOF
npx tsc -p tsconfig.json
echo "tsc --strict: 0 errors (generated code included)"

echo "== calls"
for client in orval-client hey-api-client openapi-fetch-client; do
  BASE_URL="$BASE_URL" KEY="$KEY" npx tsx "$client.ts"
done

echo "== the series by curl, as a spreadsheet or a first afternoon asks"
AUTH="Authorization: Bearer $KEY"
Q='start=2024-03-01&end=2024-03-31&symbols=USD,JPY'
echo "?format=csv:    $(curl -s -H "$AUTH" "$BASE_URL/v1/currency/rates/series?$Q&format=csv" | head -1)"
echo "?format=xlsx:   $(curl -s -H "$AUTH" "$BASE_URL/v1/currency/rates/series?$Q&format=xlsx")"
LINK="$(curl -s -H "$AUTH" -H 'Content-Type: application/json' -d '{"start":"2024-03-01","end":"2024-03-31","symbols":["USD","JPY"]}' \
  "$BASE_URL/v1/currency/rates/series/links" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).data.url))')"
echo "link:           ${LINK%%signature=*}signature=…"
echo "link, no key:   $(curl -s "$LINK" | wc -l) lines of CSV"
OLD="$BASE_URL/v1/currency/rates/series?${LINK#*\?}"
echo "earlier form:   $(curl -s -o /dev/null -w '%{http_code} -> %{redirect_url}' "$OLD" | sed 's/signature=.*/signature=…/'); followed: $(curl -sL "$OLD" | wc -l) lines"
