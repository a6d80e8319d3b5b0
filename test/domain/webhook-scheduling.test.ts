import { describe, expect, it } from 'vitest';
import {
  circuitAfter,
  circuitState,
  pickDeliveries,
  type Circuit,
  type CircuitPolicy,
  type DueDelivery,
  type SlotLimits,
} from '../../src/domain/webhook-scheduling';

/** `a1:e1` is a delivery of account a1 to endpoint a1-e1, with a running number for its event. */
function due(...specs: string[]): DueDelivery[] {
  return specs.map((spec, i) => {
    const [accountId, endpoint] = spec.split(':') as [string, string];
    return { eventId: `msg_${i}`, endpointId: `${accountId}-${endpoint}`, accountId };
  });
}

/** In-flight attempts as `a1:e1` entries, one per attempt. */
function inFlight(...specs: string[]) {
  const endpoints = new Map<string, number>();
  const accounts = new Map<string, number>();
  for (const spec of specs) {
    const [accountId, endpoint] = spec.split(':') as [string, string];
    endpoints.set(`${accountId}-${endpoint}`, (endpoints.get(`${accountId}-${endpoint}`) ?? 0) + 1);
    accounts.set(accountId, (accounts.get(accountId) ?? 0) + 1);
  }
  return { endpoints, accounts, total: specs.length };
}

const NOW = 1_000_000;
const open: Circuit = { failures: 5, openUntil: NOW + 30_000, cooldownMs: 30_000 };
const halfOpen: Circuit = { failures: 5, openUntil: NOW - 1, cooldownMs: 30_000 };
const limits: SlotLimits = { perEndpoint: 2, perAccount: 4, total: 6 };

/** The picks as `account:endpoint` again. */
const named = (picked: DueDelivery[]) => picked.map((d) => `${d.accountId}:${d.endpointId.slice(d.accountId.length + 1)}`);

describe('picking due deliveries', () => {
  const cases: {
    rule: string;
    due: string[];
    inFlight?: string[];
    circuits?: [string, Circuit][];
    limits?: SlotLimits;
    last?: string;
    picked: string[];
  }[] = [
    { rule: 'nothing due, nothing picked', due: [], picked: [] },
    { rule: 'at most perEndpoint attempts to one endpoint', due: ['a:e1', 'a:e1', 'a:e1'], picked: ['a:e1', 'a:e1'] },
    { rule: 'attempts in flight count against the endpoint', due: ['a:e1', 'a:e1'], inFlight: ['a:e1'], picked: ['a:e1'] },
    {
      rule: 'an endpoint at its limit leaves its turn to the next endpoint of the account',
      due: ['a:e1', 'a:e2'],
      inFlight: ['a:e1', 'a:e1'],
      picked: ['a:e2'],
    },
    {
      rule: 'accounts take turns: a second account is served second, however many the first has due',
      due: ['a:e1', 'a:e2', 'a:e3', 'a:e4', 'a:e5', 'b:e1'],
      picked: ['a:e1', 'b:e1', 'a:e2', 'a:e3', 'a:e4'],
      limits: { perEndpoint: 2, perAccount: 4, total: 5 },
    },
    {
      rule: 'an account holds at most perAccount slots; the rest stay free for others',
      due: ['a:e1', 'a:e2', 'a:e3', 'a:e4', 'a:e5', 'a:e6'],
      picked: ['a:e1', 'a:e2', 'a:e3', 'a:e4'],
    },
    {
      rule: 'ten busy endpoints of one account: a free slot goes to the other account at once',
      due: ['a:e1', 'a:e2', 'b:e1'],
      inFlight: ['a:e3', 'a:e4', 'a:e5', 'a:e6', 'a:e7'],
      limits: { perEndpoint: 2, perAccount: 8, total: 6 },
      picked: ['b:e1'],
    },
    {
      rule: 'the turn starts after the account served last',
      due: ['a:e1', 'b:e1', 'c:e1'],
      last: 'a',
      limits: { ...limits, total: 2 },
      picked: ['b:e1', 'c:e1'],
    },
    {
      rule: 'after the last account in order, the turn wraps to the first',
      due: ['a:e1', 'b:e1', 'c:e1'],
      last: 'c',
      limits: { ...limits, total: 1 },
      picked: ['a:e1'],
    },
    {
      rule: 'within an account, the endpoint with fewer in flight goes first',
      due: ['a:e1', 'a:e2'],
      inFlight: ['a:e1'],
      limits: { ...limits, total: 2 },
      picked: ['a:e2'],
    },
    { rule: 'an open circuit starts nothing', due: ['a:e1', 'a:e1', 'a:e2'], circuits: [['a-e1', open]], picked: ['a:e2'] },
    { rule: 'a half-open circuit starts one probe', due: ['a:e1', 'a:e1', 'a:e1'], circuits: [['a-e1', halfOpen]], picked: ['a:e1'] },
    {
      rule: 'a half-open circuit with its probe in flight starts nothing more',
      due: ['a:e1', 'b:e1'],
      inFlight: ['a:e1'],
      circuits: [['a-e1', halfOpen]],
      picked: ['b:e1'],
    },
    {
      rule: 'the instance never exceeds its total',
      due: ['a:e1', 'b:e1', 'c:e1'],
      inFlight: ['d:e1', 'd:e2', 'd:e3', 'e:e1', 'e:e2'],
      picked: ['a:e1'],
    },
    { rule: 'a full instance picks nothing', due: ['a:e1'], inFlight: ['d:e1', 'd:e2', 'd:e3', 'e:e1', 'e:e2', 'e:e3'], picked: [] },
  ];
  it.each(cases)('$rule', (c) => {
    const { picked } = pickDeliveries(
      due(...c.due),
      inFlight(...(c.inFlight ?? [])),
      new Map(c.circuits ?? []),
      c.limits ?? limits,
      NOW,
      c.last,
    );
    expect(named(picked)).toEqual(c.picked);
  });

  it('names the account served last, so the next call goes on from there', () => {
    expect(pickDeliveries(due('a:e1', 'b:e1'), inFlight(), new Map(), { ...limits, total: 1 }, NOW).lastAccount).toBe('a');
    expect(pickDeliveries([], inFlight(), new Map(), limits, NOW, 'b').lastAccount).toBe('b');
  });
});

describe("an endpoint's circuit", () => {
  const policy: CircuitPolicy = { failuresToOpen: 3, cooldownMs: 1_000, maxCooldownMs: 4_000 };
  type Step = 'ok' | 'fail';
  const run = (steps: [Step, number][]) => {
    let circuit: Circuit | undefined;
    for (const [step, at] of steps) circuit = circuitAfter(circuit, step === 'ok', at, policy);
    return circuit;
  };
  it.each<{ rule: string; steps: [Step, number][]; at: number; state: string; openUntil?: number | null }>([
    {
      rule: 'closed after failures below the threshold',
      steps: [
        ['fail', 0],
        ['fail', 1],
      ],
      at: 2,
      state: 'closed',
      openUntil: null,
    },
    {
      rule: 'opens at the threshold, for the cool-down',
      steps: [
        ['fail', 0],
        ['fail', 1],
        ['fail', 2],
      ],
      at: 3,
      state: 'open',
      openUntil: 1_002,
    },
    {
      rule: 'a success in between starts the count again',
      steps: [
        ['fail', 0],
        ['fail', 1],
        ['ok', 2],
        ['fail', 3],
        ['fail', 4],
      ],
      at: 5,
      state: 'closed',
      openUntil: null,
    },
    {
      rule: 'half-open once the cool-down is over',
      steps: [
        ['fail', 0],
        ['fail', 1],
        ['fail', 2],
      ],
      at: 1_002,
      state: 'half-open',
      openUntil: 1_002,
    },
    {
      rule: 'a failed probe opens it again for twice the cool-down',
      steps: [
        ['fail', 0],
        ['fail', 1],
        ['fail', 2],
        ['fail', 1_500],
      ],
      at: 1_500,
      state: 'open',
      openUntil: 3_500,
    },
    {
      rule: 'the cool-down doubles up to its maximum',
      steps: [
        ['fail', 0],
        ['fail', 1],
        ['fail', 2],
        ['fail', 1_500],
        ['fail', 3_500],
        ['fail', 7_500],
      ],
      at: 7_500,
      state: 'open',
      openUntil: 11_500,
    },
    {
      rule: 'a successful probe closes it',
      steps: [
        ['fail', 0],
        ['fail', 1],
        ['fail', 2],
        ['ok', 1_500],
      ],
      at: 1_500,
      state: 'closed',
      openUntil: undefined,
    },
    {
      rule: 'failures of attempts in flight while open do not extend it',
      steps: [
        ['fail', 0],
        ['fail', 1],
        ['fail', 2],
        ['fail', 500],
      ],
      at: 600,
      state: 'open',
      openUntil: 1_002,
    },
  ])('$rule', ({ steps, at, state, openUntil }) => {
    const circuit = run(steps);
    expect(circuitState(circuit, at)).toBe(state);
    expect(circuit?.openUntil).toBe(openUntil);
  });
});
