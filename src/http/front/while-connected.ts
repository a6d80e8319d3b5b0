import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { PausableWork } from '../../loop-delay';

/**
 * Runs each `work` only while at least one client connection is open: started at the first, stopped
 * when the last closes. A server nobody is connected to then has no timer of the front's to wake for.
 */
export function whileConnected(server: Server, works: readonly PausableWork[]): void {
  let open = 0;
  server.on('connection', (socket: Socket) => {
    if (open++ === 0) for (const work of works) work.start();
    socket.once('close', () => {
      if (--open === 0) for (const work of works) work.stop();
    });
  });
}

/** The longest period a timer takes: the checker's interval while no connection is open (24.8 days). */
const PARKED_MS = 2 ** 31 - 1;

/**
 * node:http checks the headers and request timeouts of its connections on an interval it starts at
 * 'listening' and keeps for the server's life, connections or not. Restarting it with another
 * `connectionsCheckingInterval` (node's own 'listening' listener, setupConnectionsTracking, replaces
 * the interval it started) gives it `intervalMs` while started and PARKED_MS while stopped. Where a
 * node version has no such listener, its own interval stays, at `intervalMs`, and this does nothing.
 */
export function connectionsChecker(server: Server, intervalMs: number): PausableWork {
  const setup = server.listeners('listening').find((listener) => listener.name === 'setupConnectionsTracking');
  if (setup === undefined) return { start: () => undefined, stop: () => undefined };
  const every = (ms: number) => {
    // After close(): node cleared its interval, and none is started again.
    if (!server.listening) return;
    (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = ms;
    setup.call(server);
  };
  // After node's own listener (registered by the constructor): parked until the first connection.
  server.on('listening', () => every(PARKED_MS));
  return { start: () => every(intervalMs), stop: () => every(PARKED_MS) };
}
