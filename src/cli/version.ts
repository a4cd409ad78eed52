import * as fs from 'node:fs';
import * as path from 'node:path';

/** package.json's version: two levels up from both src/cli (ts-node) and dist/cli (built). */
export const PARLEY_VERSION: string = (
  JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }
).version;
