import { ROUTES } from '../../http/routes';
import { API_TITLE, API_VERSION } from '../../version';
import { html, type SafeHtml } from '../html';

/** The places the front door points to; GraphiQL only where it is served (GRAPHIQL). */
export interface FrontLinks {
  readonly graphiql: boolean;
  /** Hashed asset paths the pages name. */
  readonly stylesheet: string;
  readonly favicon: string;
}

const DESCRIPTION =
  'Exact conversion between 154 units of measurement and between currencies at the European Central Bank reference rates, over GraphQL and REST.';

/** The JSON index of `/`: what this is and where everything is, the REST routes from the route table. */
export function frontIndex(links: FrontLinks): string {
  const data = {
    name: API_TITLE,
    version: API_VERSION,
    description: DESCRIPTION,
    links: {
      graphql: '/graphql',
      ...(links.graphiql ? { graphiql: '/graphql' } : {}),
      reference: '/docs',
      openapi: '/openapi.json',
      account: '/account',
      health: '/v1/health',
    },
    routes: ROUTES.map((route) => ({ method: route.method, path: route.path, access: route.access, summary: route.summary })),
  };
  return JSON.stringify({ data });
}

function page(title: string, links: FrontLinks, bodyClass: string, body: SafeHtml, scripts: readonly string[] = []): string {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${title}</title>
    <link rel="icon" href="${links.favicon}" type="image/svg+xml">
    <link rel="stylesheet" href="${links.stylesheet}">
  </head>
  <body class="${bodyClass}">
${body}
${scripts.map((src) => html`    <script src="${src}"></script>\n`)}  </body>
</html>
`.text;
}

/** `/` for a browser: what this is, and one line per way in. */
export function homePage(links: FrontLinks, origin: string): string {
  const graphiql = links.graphiql
    ? html`<li><a href="/graphql">GraphiQL</a><p>Write and run GraphQL queries in the browser, with the schema's documentation and completion.</p></li>`
    : html`<li><code>POST /graphql</code><p>The GraphQL endpoint (GraphiQL is turned off on this server).</p></li>`;
  return page(
    API_TITLE,
    links,
    'home',
    html`    <h1><img src="${links.favicon}" alt="">${API_TITLE}</h1>
    <p>${DESCRIPTION}</p>
    <ul class="doors">
      ${graphiql}
      <li><a href="/docs">API reference</a><p>Every REST route under <code>/v1</code>: parameters, answers, errors and examples.</p></li>
      <li><a href="/account">Your account</a><p>Sign up, create and revoke API keys, and see this month's quota.</p></li>
      <li><a href="/openapi.json">OpenAPI document</a><p>The OpenAPI 3.1 description of the REST routes, for client generators.</p></li>
    </ul>
    <h2>Try it</h2>
    <p>Units and the latest rates are public; conversions need a key (<code>Authorization: Bearer msr_…</code>) from the account page.</p>
    <pre>curl '${origin}/v1/units/ft'
curl '${origin}/v1/currency/rates/latest'
curl -H 'Authorization: Bearer msr_test_…' \\
  '${origin}/v1/convert?value=100&amp;from=USD&amp;to=EUR'</pre>
    <p class="muted">Version ${API_VERSION} · <a href="/v1/health">health</a></p>`,
  );
}

/** `/docs`: Redoc renders /openapi.json into #redoc; without JavaScript the page says where the document is. */
export function referencePage(links: FrontLinks, scripts: readonly string[]): string {
  return page(
    `${API_TITLE} — API reference`,
    links,
    'reference',
    html`    <noscript>The reference needs JavaScript. The document it shows is <a href="/openapi.json">/openapi.json</a>; the home page is <a href="/">/</a>.</noscript>
    <div id="redoc"></div>`,
    scripts,
  );
}
