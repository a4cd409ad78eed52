import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Raised when a secret cannot be stored or read back; the message never contains the secret. */
export class SecretBoxError extends Error {}

/**
 * AES-256-GCM for secrets at rest (provider API keys). The 256-bit key is derived with HKDF from
 * PARLEY_SECRET_KEY, so any accepted form of that variable (hex, base64, long passphrase) works.
 * Each ciphertext is bound to its row by the associated data (`context`): a ciphertext copied to
 * another row or project does not decrypt.
 */
export class SecretBox {
  private readonly key: Buffer | null;

  /** `secret` null: no key is configured, so secrets cannot be stored (see `available`). */
  constructor(secret: string | null) {
    this.key = secret === null ? null : Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'parley', 'parley secrets v1', 32));
  }

  get available(): boolean {
    return this.key !== null;
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, base64url each. */
  encrypt(plaintext: string, context: string): string {
    const key = this.requireKey();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  decrypt(sealed: string, context: string): string {
    const key = this.requireKey();
    const [format, iv, tag, body] = sealed.split('.');
    if (format !== FORMAT || body === undefined) throw new SecretBoxError('Stored secret has an unknown format');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('Stored secret cannot be decrypted: PARLEY_SECRET_KEY is not the key it was stored with');
    }
  }

  private requireKey(): Buffer {
    if (!this.key) {
      throw new SecretBoxError('PARLEY_SECRET_KEY is not set, so API keys cannot be stored; set it, or reference the key by apiKeyEnv');
    }
    return this.key;
  }
}
