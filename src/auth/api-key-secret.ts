import { hash, randomBytes } from 'node:crypto';

export type KeyKind = 'project' | 'admin';

const PREFIX: Record<KeyKind, string> = { project: 'pk_', admin: 'ak_' };

/**
 * SHA-256 hex: keys are long random strings, so a fast unsalted hash is enough and lookups stay
 * indexed. One-shot crypto.hash: a third of createHash's cost, on every authenticated request.
 */
export function hashApiKey(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** 192 random bits, URL-safe; the short prefix is kept to tell keys apart in listings. */
export function generateApiKey(kind: KeyKind): { secret: string; hash: string; prefix: string } {
  const secret = PREFIX[kind] + randomBytes(24).toString('base64url');
  return { secret, hash: hashApiKey(secret), prefix: secret.slice(0, 10) };
}
