import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

import type { OidcProviderOptions, OidcTestAccount } from './oidc-provider';

/**
 * The test OpenID provider (./oidc-provider.ts) as a process of its own, for tests that cannot load
 * ES modules in their own process (the browser tests run in jest's module sandbox). Its options
 * and accounts go in as JSON; it prints `oidc provider: <issuer>` once it listens.
 */
export interface ProviderProcessConfig extends OidcProviderOptions {
  accounts: Record<string, OidcTestAccount>;
}

export interface ProviderProcess {
  issuer: string;
  stop(): Promise<void>;
}

const CONFIG_VARIABLE = 'PARLEY_TEST_OIDC_PROVIDER';

export function spawnOidcProvider(config: ProviderProcessConfig): Promise<ProviderProcess> {
  const loader = pathToFileURL(path.join(__dirname, 'typescript.mjs')).href;
  const child: ChildProcess = spawn(process.execPath, ['--import', loader, __filename], {
    env: { ...process.env, [CONFIG_VARIABLE]: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const issuer = /oidc provider: (http:\/\/\S+)\n/.exec(output)?.[1];
      if (issuer) {
        resolve({
          issuer,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the OIDC provider exited (${code}) before listening:\n${output}`)));
  });
}

async function main(): Promise<void> {
  const { startOidcProvider } = await import('./oidc-provider');
  const config = JSON.parse(process.env[CONFIG_VARIABLE]!) as ProviderProcessConfig;
  const provider = await startOidcProvider(config);
  for (const [login, account] of Object.entries(config.accounts)) provider.accounts.set(login, account);
  process.once('SIGTERM', () => void provider.close().then(() => process.exit(0)));
  process.stdout.write(`oidc provider: ${provider.issuer}\n`);
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  });
}
