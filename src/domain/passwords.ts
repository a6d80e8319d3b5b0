import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { ApiError } from './errors';

/**
 * Account passwords: 12 to 256 characters, no composition rules (NIST SP 800-63B), hashed
 * with Argon2id at OWASP's first recommended setting (19 MiB, 2 passes, 1 lane) into a PHC string
 * (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`) that carries its own parameters, so they can be
 * raised later without breaking stored hashes.
 */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

// 2 is Algorithm.Argon2id (a const enum, which isolated modules cannot read at run time).
const ARGON2ID = { algorithm: 2 as Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** The policy: length only, counted in characters (code points), so any script or emoji counts fairly. */
export function checkPasswordPolicy(password: string): void {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) {
    throw new ApiError(
      'INVALID_REQUEST',
      `The password must be at least ${MIN_PASSWORD_LENGTH} characters long; a few unrelated words make a good one.`,
      { param: 'password' },
    );
  }
  if (length > MAX_PASSWORD_LENGTH) {
    throw new ApiError('INVALID_REQUEST', `The password must be at most ${MAX_PASSWORD_LENGTH} characters long.`, { param: 'password' });
  }
}

/** A PHC string of the password, with a fresh random salt. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2ID);
}

/** Compares in constant time (inside argon2); a malformed stored hash is simply no match. */
export async function verifyPassword(phc: string, password: string): Promise<boolean> {
  try {
    return await verify(phc, password);
  } catch {
    return false;
  }
}

/**
 * A hash of a password nobody knows, verified when the email is unknown so that a log-in takes
 * as long for an unknown email as for a wrong password (log-in never says which it was).
 */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  return (decoy ??= hashPassword(`decoy-${Math.random()}-${Date.now()}`));
}
