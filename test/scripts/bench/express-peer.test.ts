import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expressPeer } from '../../../scripts/bench/express-peer';
import { checkPeerAnswer, PEER_PATH } from '../../../scripts/bench/targets';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer(expressPeer());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const answer = (value: unknown) => ({ data: { input: { value: 12.5, unit: 'in' }, result: { value, unit: 'cm' }, category: 'length' } });

describe('Express peer', () => {
  it('answers the bench request with a float within a relative 1e-6 of 31.75, not exactly it', async () => {
    const response = await fetch(base + PEER_PATH);
    expect(response.status).toBe(200);
    const json = (await response.json()) as { data: { result: { value: number } } };
    expect(() => checkPeerAnswer(json)).not.toThrow();
    // convert-units goes through 1 ft = 1/3.28084 m: more than 1e-6 away from the exact 31.75.
    expect(Math.abs(json.data.result.value - 31.75)).toBeGreaterThan(1e-6);
  });

  it('refuses a bad value with 400 rather than answering NaN', async () => {
    const response = await fetch(`${base}/v1/convert?value=abc&from=in&to=cm`);
    expect(response.status).toBe(400);
  });

  it('check refuses a result off by more than the tolerance, or sent as a string', () => {
    expect(() => checkPeerAnswer(answer(31.75))).not.toThrow();
    expect(() => checkPeerAnswer(answer(31.76))).toThrow(/relative 1e-6/);
    expect(() => checkPeerAnswer(answer('31.75'))).toThrow(/JSON number/);
  });
});
