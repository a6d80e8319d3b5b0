/** What both server children of scripts/bench.ts (servers.ts, bare-servers.ts) do alike. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on a free loopback port, keeps the server in `servers` (to close it at the end) and gives the port. */
export async function listen(servers: Server[], server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Closes every server and drops its connections. */
export function closeAll(servers: readonly Server[]): void {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
}

/** Answers the parent's 'cpu': the CPU time this process spent so far (µs), asked around each measured load. */
export function sendCpu(): void {
  const usage = process.cpuUsage();
  process.send?.({ cpu: usage.user + usage.system });
}
