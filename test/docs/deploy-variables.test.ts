import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../../src/config';

/** docs/deploy.md's "Every variable" table names exactly the variables the configuration reads. */
const DEPLOY = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');

function tableVariables(markdown: string, heading: string): string[] {
  const section = markdown.slice(markdown.indexOf(`\n## ${heading}\n`));
  const table = section.slice(0, section.indexOf('\n## ', 4));
  return table
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...line.split('|')[1]!.matchAll(/`([A-Za-z][A-Za-z0-9_]+)`/g)].map((match) => match[1]!));
}

describe('docs/deploy.md', () => {
  it('lists every variable the server and the CLI read, and no other', () => {
    const listed = tableVariables(DEPLOY, 'Every variable');
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('names REDIS_URL and the CLI among the variables of several instances', () => {
    const several = tableVariables(DEPLOY, 'Variables');
    expect(several).toEqual(expect.arrayContaining(['DATABASE_URL', 'REDIS_URL', 'API_ENV', 'TRUST_PROXY']));
    expect(DEPLOY).toMatch(/`API_ENV`[^\n]*\*\*and for the CLI\*\*/);
  });
});
