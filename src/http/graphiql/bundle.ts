import { staticAsset, type StaticAsset } from './static-asset';
import { FAVICON_SVG } from '../answer/favicon';

/** Where the assets are served; the page and the stylesheet name them by absolute path. */
export const ASSETS_PATH = '/graphql/assets';

export interface GraphiQLOptions {
  title: string;
  /** The document GraphiQL opens with. */
  defaultQuery: string;
  /** Where GraphiQL sends its requests. */
  endpoint: string;
}

export interface GraphiQLBundle {
  /** The HTML page at GET /graphql: small, and naming its assets by hash. */
  readonly page: string;
  readonly assets: ReadonlyMap<string, StaticAsset>;
}

const DATA_URI = /url\((['"]?)data:([\w/+.-]+);base64,([A-Za-z0-9+/=]+)\1\)/g;
const EXTENSIONS: Record<string, string> = {
  'font/ttf': 'ttf',
  'font/woff': 'woff',
  'font/woff2': 'woff2',
  'image/png': 'png',
  'image/svg+xml': 'svg',
};

const asset = (a: StaticAsset) => `${ASSETS_PATH}/${a.name}`;

/**
 * The GraphiQL that @graphql-yoga/render-graphiql ships (its `js`, `css` and Monaco worker bundles),
 * taken apart into hashed same-origin files so that the page needs no inline script and loads
 * nothing from anywhere else: the stylesheet's base64 fonts and images become files (fetched only
 * when used), the workers are served as scripts instead of blob: URLs, and a small boot script
 * does what render-graphiql's inline one did (MonacoEnvironment, then renderYogaGraphiQL). That
 * copy follows @graphql-yoga/render-graphiql 5.24.1 (pinned exactly in package.json);
 * test/e2e/graphiql-browser.test.ts (GraphiQL rendered and used in Chromium) and
 * test/http/graphiql/graphiql.test.ts fail when it changes.
 *
 * The module is imported here, on the first GraphiQL request, not at start-up: its 9 MB of source
 * text and the asset copies (about 35 MiB of RSS) are never loaded by a server nobody opens it on.
 */
export async function buildGraphiQLBundle(options: GraphiQLOptions): Promise<GraphiQLBundle> {
  const { css, editorWorkerService, graphqlWorker, js, jsonWorker } = await import('@graphql-yoga/render-graphiql/graphiql');
  const assets: StaticAsset[] = [];
  const add = (a: StaticAsset) => (assets.push(a), a);

  let embedded = 0;
  const stylesheet = css.replace(DATA_URI, (whole, _quote: string, type: string, base64: string) => {
    const extension = EXTENSIONS[type];
    if (!extension) return whole;
    return `url(${asset(add(staticAsset(`graphiql-${++embedded}`, extension, type, Buffer.from(base64, 'base64'))))})`;
  });
  const styles = add(staticAsset('graphiql', 'css', 'text/css; charset=utf-8', stylesheet));
  const script = add(staticAsset('graphiql', 'js', 'text/javascript; charset=utf-8', js));
  const workers = {
    editorWorkerService: asset(add(staticAsset('editor.worker', 'js', 'text/javascript; charset=utf-8', editorWorkerService))),
    json: asset(add(staticAsset('json.worker', 'js', 'text/javascript; charset=utf-8', jsonWorker))),
    graphql: asset(add(staticAsset('graphql.worker', 'js', 'text/javascript; charset=utf-8', graphqlWorker))),
  };
  // Runs before the bundle (Monaco reads MonacoEnvironment when it starts), renders once the page is parsed.
  const boot = add(
    staticAsset(
      'boot',
      'js',
      'text/javascript; charset=utf-8',
      `'use strict';
(function () {
  var workers = ${JSON.stringify(workers)};
  self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: function (moduleId, label) { return workers[label]; } };
  document.addEventListener('DOMContentLoaded', function () {
    YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), ${JSON.stringify(options)});
  });
})();
`,
    ),
  );
  const favicon = add(staticAsset('favicon', 'svg', 'image/svg+xml', FAVICON_SVG));

  const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(options.title)}</title>
    <link rel="icon" href="${asset(favicon)}" type="image/svg+xml">
    <link rel="stylesheet" href="${asset(styles)}">
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>GraphiQL needs JavaScript. Without it, send GraphQL requests with POST /graphql.</noscript>
    <div id="root"></div>
    <script src="${asset(boot)}"></script>
    <script src="${asset(script)}"></script>
  </body>
</html>
`;
  return { page, assets: new Map(assets.map((a) => [a.name, a])) };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
