import { groupThousands } from './quota';

/**
 * A count with its noun in English: "1 currency", "2 currencies", "1,000 units". The plural is the
 * noun with "s" unless given; every English count a client or an operator reads goes through here.
 */
export function counted(n: number, one: string, other = `${one}s`): string {
  return `${groupThousands(n)} ${n === 1 ? one : other}`;
}
