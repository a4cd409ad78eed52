import 'reflect-metadata';

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { ConfigError, loadAppConfig } from './config/app-config';
import { DataDirLockedError, lockDataDir } from './database/data-dir-lock';
import { DatabaseConnectError } from './database/database-connect';
import { limitHeapGrowth } from './setup/heap-growth';
import { checkPortFree, diagnoseListen, ListenError } from './setup/listen-check';

async function bootstrap(): Promise<void> {
  limitHeapGrowth();
  const config = loadAppConfig();
  // A port in use fails the start at once, before the database is opened (docs/operations.md, "Start-up failures").
  await checkPortFree(config.port, config.host);
  if (config.embedded && !config.inMemory) await lockDataDir(config.dataDir);

  // The application's modules load only now (1–2 s of CPU): a port in use is reported before that.
  const { NestFactory } = await import('@nestjs/core');
  const { AppModule } = await import('./app.module');
  const { configureApp } = await import('./app.setup');
  const { ApiKeysService } = await import('./auth/api-keys.service');
  const { ExpressHttpAdapter } = await import('./common/http/express-http-adapter');
  const { describeDatabaseUrl, EMBEDDED_DATABASE, generateServerToken, writeServerInfo } = await import('./database/server-info');
  const { printFirstRunBanner } = await import('./setup/first-run-banner');
  const { shutDownGracefully } = await import('./setup/graceful-shutdown');
  const { InitService } = await import('./setup/init.service');

  // abortOnError: false, so a failure reaches the catch below (Nest would log it and exit); the
  // buffered boot logs are flushed once listening (or, for a failure not diagnosed, in the catch).
  const app = await NestFactory.create(AppModule, new ExpressHttpAdapter(), {
    bodyParser: false,
    bufferLogs: true,
    autoFlushLogs: false,
    abortOnError: false,
  });
  configureApp(app);
  // Every engine seeds an empty database on first start; on PostgreSQL replicas take turns (docs/operations.md).
  const firstRun = await app.get(InitService).initIfEmpty();
  const server = app.getHttpServer() as Server;
  // Longer than a load balancer's idle timeout, so the balancer never reuses a socket Node just closed.
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  server.headersTimeout = config.keepAliveTimeoutMs + 1000;
  shutDownGracefully(app, (line) => console.log(`Parley: ${line}`));
  await diagnoseListen(config.port, config.host, () => app.listen(config.port, config.host));
  app.flushLogs();

  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  if (config.embedded && !config.inMemory) {
    // Lets `parley apply` on this machine go through this server while it holds DATA_DIR.
    const adminToken = generateServerToken();
    app.get(ApiKeysService).registerEphemeralAdminKey(adminToken);
    writeServerInfo(config.dataDir, { url, pid: process.pid, adminToken, database: EMBEDDED_DATABASE });
  } else if (config.databaseUrl !== undefined && !config.dataDir.startsWith('memory://')) {
    // A CLI run here without DATABASE_URL goes through this server (apply, export, keys, import,
    // eval) instead of opening DATA_DIR's embedded database, which this server does not use.
    try {
      const adminToken = generateServerToken();
      writeServerInfo(config.dataDir, { url, pid: process.pid, adminToken, database: describeDatabaseUrl(config.databaseUrl) });
      app.get(ApiKeysService).registerEphemeralAdminKey(adminToken);
    } catch (err) {
      console.warn(
        `Parley: could not write ${config.dataDir}/server.json (${(err as Error).message}); the CLI cannot tell that this server uses PostgreSQL`,
      );
    }
  }
  if (firstRun.created) printFirstRunBanner(firstRun, url);
  else console.log(`Parley listening on ${url} (console: ${url}/console, Swagger UI: ${url}/docs)`);
}

bootstrap().catch(async (err) => {
  if (err instanceof ConfigError || err instanceof DataDirLockedError) {
    console.error(err.message);
  } else if (err instanceof ListenError || err instanceof DatabaseConnectError) {
    // One line naming the cause and the fix; no stack trace, no secret (docs/operations.md, "Start-up failures").
    console.error(`parley: ${err.message}`);
  } else {
    // What Nest logged while starting (held back until listening), then the error.
    (await import('@nestjs/common')).Logger.flush();
    console.error('Parley failed to start:', err);
  }
  process.exit(1);
});
