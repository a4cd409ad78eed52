import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { AppConfig } from '../../config/app-config';

export const SECRET_KEY_FILE = 'secret.key';

/**
 * The key secrets are encrypted with: PARLEY_SECRET_KEY when set. Without it, the embedded mode
 * generates one once into DATA_DIR/secret.key (mode 0600) and reuses it, so a newcomer can store
 * provider keys without configuring anything; an in-memory database (tests) gets a key for this
 * process only. On PostgreSQL several instances must share the key, so none is invented: null.
 */
export function resolveSecretKey(config: AppConfig): string | null {
  if (config.secretKey) return config.secretKey;
  if (!config.embedded) return null;
  if (config.inMemory) return randomBytes(32).toString('base64url');
  const file = path.join(config.dataDir, SECRET_KEY_FILE);
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    // 'wx': never overwrite a key that exists (secrets stored under it would be lost).
    fs.writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as { code?: string }).code !== 'EEXIST') throw err;
  }
  const key = fs.readFileSync(file, 'utf8').trim();
  if (key.length < 32) throw new Error(`${file} does not hold a usable key (expected at least 32 characters)`);
  return key;
}
