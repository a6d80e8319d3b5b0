/**
 * What an operator reads when the server cannot listen, and the line it prints once it does: one
 * line each, naming the variables to change (PORT, HOST) and the URLs to open, never a stack.
 */

/** The one-line reason `listen` failed, or undefined for an error that is not about the address. */
export function listenErrorMessage(error: NodeJS.ErrnoException, host: string, port: number): string {
  const where = `PORT ${port} on HOST ${host}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return `${where} is already in use: stop the other server or set PORT to a free port.`;
    case 'EACCES':
      return `${where} needs privileges this process does not have: set PORT to 1024 or above.`;
    case 'EADDRNOTAVAIL':
      return `HOST ${host} is not an address of this machine: set HOST to one of its addresses (127.0.0.1 for this machine only, 0.0.0.0 for every interface).`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST ${host} does not resolve to an address: set HOST to an IP address or a resolvable name.`;
    default:
      return `Cannot listen on ${where}: ${error.code ?? error.message}.`;
  }
}

/** The start line: where the API, GraphiQL, the account page and the OpenAPI document are. */
export function startLine(host: string, port: number, options: { graphiql: boolean }): string {
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const graphiql = options.graphiql ? `GraphiQL ${base}/graphql, ` : '';
  return `Measurement API listening on ${base} — ${graphiql}account ${base}/account, OpenAPI ${base}/openapi.json`;
}
