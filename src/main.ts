import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { NestFactory } from '@nestjs/core';

import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { ApiKeysService } from './auth/api-keys.service';
import { ExpressHttpAdapter } from './common/http/express-http-adapter';
import { ConfigError, loadAppConfig } from './config/app-config';
import { DataDirLockedError, lockDataDir } from './database/data-dir-lock';
import { describeDatabaseUrl, EMBEDDED_DATABASE, generateServerToken, writeServerInfo } from './database/server-info';
import { printFirstRunBanner } from './setup/first-run-banner';
import { shutDownGracefully } from './setup/graceful-shutdown';
import { limitHeapGrowth } from './setup/heap-growth';
import { InitService } from './setup/init.service';

async function bootstrap(): Promise<void> {
  limitHeapGrowth();
  const config = loadAppConfig();
  if (config.embedded && !config.inMemory) await lockDataDir(config.dataDir);

  const app = await NestFactory.create(AppModule, new ExpressHttpAdapter(), { bodyParser: false, bufferLogs: true });
  configureApp(app);
  // Every engine seeds an empty database on first start; on PostgreSQL replicas take turns (docs/operations.md).
  const firstRun = await app.get(InitService).initIfEmpty();
  const server = app.getHttpServer() as Server;
  // Longer than a load balancer's idle timeout, so the balancer never reuses a socket Node just closed.
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  server.headersTimeout = config.keepAliveTimeoutMs + 1000;
  shutDownGracefully(app, (line) => console.log(`Parley: ${line}`));
  await app.listen(config.port, config.host);

  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  if (config.embedded && !config.inMemory) {
    // Lets `parley apply` on this machine go through this server while it holds DATA_DIR.
    const adminToken = generateServerToken();
    app.get(ApiKeysService).registerEphemeralAdminKey(adminToken);
    writeServerInfo(config.dataDir, { url, pid: process.pid, adminToken, database: EMBEDDED_DATABASE });
  } else if (config.databaseUrl !== undefined && !config.dataDir.startsWith('memory://')) {
    // Tells a CLI run here without DATABASE_URL that this server does not use DATA_DIR's embedded database.
    try {
      writeServerInfo(config.dataDir, { url, pid: process.pid, database: describeDatabaseUrl(config.databaseUrl) });
    } catch (err) {
      console.warn(
        `Parley: could not write ${config.dataDir}/server.json (${(err as Error).message}); the CLI cannot tell that this server uses PostgreSQL`,
      );
    }
  }
  if (firstRun.created) printFirstRunBanner(firstRun, url);
  else console.log(`Parley listening on ${url} (console: ${url}/console, Swagger UI: ${url}/docs)`);
}

bootstrap().catch((err) => {
  if (err instanceof ConfigError || err instanceof DataDirLockedError) {
    console.error(err.message);
  } else {
    console.error('Parley failed to start:', err);
  }
  process.exit(1);
});
