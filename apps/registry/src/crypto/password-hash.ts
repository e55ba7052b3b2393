import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** Password length bounds (characters). The upper bound keeps a hash request from being a CPU lever. */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 1024;

/**
 * scrypt cost: N = 2^15, r = 8, p = 1 (≈ 32 MiB, tens of ms on one core). Below OWASP's 2^17 to keep
 * a 2-core machine responsive under sign-in bursts; the parameters are stored with every hash, so a
 * later increase applies to new hashes without invalidating old ones.
 */
const COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;
// Ceilings for parameters read back from the database: a corrupted or hostile row must not make one verification allocate gigabytes.
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }, length: number): Promise<Buffer> {
  const options: ScryptOptions = { N: cost.N, r: cost.r, p: cost.p, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** Hashes a password as `scrypt$N=…,r=…,p=…$<salt b64url>$<key b64url>` (random 16-byte salt). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST, KEY_BYTES);
  return `scrypt$N=${COST.N},r=${COST.r},p=${COST.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

interface Parsed {
  cost: { N: number; r: number; p: number };
  salt: Buffer;
  key: Buffer;
}

function parse(stored: string): Parsed | undefined {
  const m = /^scrypt\$N=(\d{1,8}),r=(\d{1,3}),p=(\d{1,3})\$([A-Za-z0-9_-]{16,128})\$([A-Za-z0-9_-]{16,256})$/.exec(stored);
  if (!m) return undefined;
  const cost = { N: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  // N must be a power of two above 1 (scrypt's own rule); bounded so a bad row cannot exhaust memory.
  if (cost.N < 2 || cost.N > MAX_N || (cost.N & (cost.N - 1)) !== 0 || cost.r < 1 || cost.r > MAX_R || cost.p < 1 || cost.p > MAX_P)
    return undefined;
  return { cost, salt: Buffer.from(m[4], 'base64url'), key: Buffer.from(m[5], 'base64url') };
}

/**
 * True when `password` matches `stored`, compared in constant time. A malformed stored value
 * never matches (and still costs a hash, so it is not told apart by timing).
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) {
    await derive(password, randomBytes(SALT_BYTES), COST, KEY_BYTES);
    return false;
  }
  const key = await derive(password, parsed.salt, parsed.cost, parsed.key.length);
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
}

let dummy: Promise<string> | undefined;

/**
 * Spends the same work as a real verification, for unknown tenants and users, so a sign-in
 * attempt does not reveal by its latency whether the account exists. Always false.
 */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummy ??= hashPassword(randomBytes(24).toString('base64url'));
  await verifyPassword(password, await dummy);
  return false;
}
