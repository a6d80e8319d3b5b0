/**
 * The expensive families of requests the stall guard sends: spellings of the costliest expression
 * within the grammar's bounds (every one distinct, so no parse cache answers it), and the bodies
 * built from them. Deterministic: the i-th spelling is always the same text. And a reader that
 * barely reads an answer.
 */
import net from 'node:net';

const RADIANS = ['rad', 'radian', 'radians', 'Radian', 'RADIANS'];
const MILLIRADIANS = ['mrad', 'milliradian', 'milliradians', 'Milliradians'];
const SEPARATORS = ['*', '·', '⋅', '×', ' ', ' * ', ' · ', '\t*\t', '  ×  '];
const POWERS: [string, string][] = [
  ['^12', '^-12'],
  ['¹²', '⁻¹²'],
  ['^+12', '^-12'],
  ['^012', '^-012'],
];

/** The i-th distinct spelling of rad¹²·mrad⁻¹² (or of mrad⁻¹²·rad¹², every other one). */
export function radianSpelling(i: number): string {
  let n = i;
  const pick = <T>(list: readonly T[]): T => {
    const item = list[n % list.length]!;
    n = Math.floor(n / list.length);
    return item;
  };
  const rad = pick(RADIANS);
  const mrad = pick(MILLIRADIANS);
  const separator = pick(SEPARATORS);
  const [up, down] = pick(POWERS);
  const swapped = pick([false, true]);
  const padding = ' '.repeat(pick([0, 1, 2, 3]));
  const text = swapped ? `${mrad}${down}${separator}${rad}${up}` : `${rad}${up}${separator}${mrad}${down}`;
  return `${padding}${text}${padding}`;
}

export const SPELLINGS = 5 * 4 * 9 * 4 * 2 * 4;

/** A 40-digit value (digits varied by i, so no two items share an exact rational). */
export function fortyDigits(i: number): string {
  return `${String(1_000_000_007 + i).padStart(20, '9')}${'31415926535897932384'}`;
}

/** A client that reads an answer very slowly: its status once the head arrived, what it took so far, and a way to hang up. */
export interface SlowReader {
  /** The answer's status, once its head was read. */
  status: Promise<number>;
  /** Bytes taken so far, head included. */
  taken(): number;
  close(): void;
}

/**
 * Sends one GET over a connection of its own, then takes `bytes` of the answer every `everyMs`
 * (the socket paused in between, so the rest waits in the kernel's buffers and the server's): a
 * reader that barely reads, never one that stopped, so a progress timeout does not cut it.
 */
export function slowReader(
  base: string,
  target: string,
  headers: Record<string, string>,
  { bytes, everyMs }: { bytes: number; everyMs: number },
): SlowReader {
  const { hostname, port } = new URL(base);
  const socket = net.connect(Number(port), hostname);
  const lines = [
    `GET ${target} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  let taken = 0;
  let head = '';
  let settle: (status: number) => void = () => undefined;
  const status = new Promise<number>((resolve) => (settle = resolve));
  const take = () => {
    const chunk = (socket.read(bytes) ?? socket.read()) as Buffer | null;
    if (!chunk) return;
    taken += chunk.length;
    if (head.length < 64) {
      head += chunk.toString('latin1', 0, 64);
      const code = /^HTTP\/1\.1 (\d{3})/.exec(head)?.[1];
      if (code) settle(Number(code));
    }
  };
  const timer = setInterval(take, everyMs);
  socket.once('close', () => {
    clearInterval(timer);
    settle(0);
  });
  socket.on('error', () => undefined);
  return { status, taken: () => taken, close: () => socket.destroy() };
}
