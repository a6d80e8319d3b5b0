import { describe, expect, it } from 'vitest';
import { checkPasswordPolicy, hashPassword, verifyPassword } from '../../src/domain/passwords';

describe('password policy', () => {
  it('asks 12 to 256 characters, counted as characters, with no composition rules', () => {
    expect(() => checkPasswordPolicy('a'.repeat(11))).toThrow(/at least 12/);
    expect(() => checkPasswordPolicy('alllowercase')).not.toThrow();
    expect(() => checkPasswordPolicy('😀'.repeat(12))).not.toThrow();
    expect(() => checkPasswordPolicy('😀'.repeat(11))).toThrow(/at least 12/);
    expect(() => checkPasswordPolicy('a'.repeat(256))).not.toThrow();
    expect(() => checkPasswordPolicy('a'.repeat(257))).toThrow(/at most 256/);
  });
});

describe('password hashing', () => {
  it('is Argon2id at the OWASP setting in PHC format, salted, and verifies only the right password', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword(a, 'correct horse battery')).toBe(true);
    expect(await verifyPassword(a, 'correct horse batterY')).toBe(false);
    expect(await verifyPassword('not a phc string', 'correct horse battery')).toBe(false);
  });
});
