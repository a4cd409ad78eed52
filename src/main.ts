import { NestFactory } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { ApiKeysService } from './auth/api-keys.service';
import { ConfigError, loadAppConfig } from './config/app-config';
import { DataDirLockedError, lockDataDir } from './database/data-dir-lock';
import { generateServerToken, writeServerInfo } from './database/server-info';
import { printFirstRunBanner } from './setup/first-run-banner';
import { InitService } from './setup/init.service';

async function bootstrap(): Promise<void> {
  const config = loadAppConfig();
  if (config.embedded && !config.inMemory) await lockDataDir(config.dataDir);

  const app = await NestFactory.create(AppModule, { bodyParser: false, bufferLogs: true });
  configureApp(app);
  const firstRun = config.embedded ? await app.get(InitService).initIfEmpty() : undefined;
  await app.listen(config.port, config.host);

  const port = (app.getHttpServer().address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  if (config.embedded && !config.inMemory) {
    // Lets `parley apply` on this machine go through this server while it holds DATA_DIR.
    const adminToken = generateServerToken();
    app.get(ApiKeysService).registerEphemeralAdminKey(adminToken);
    writeServerInfo(config.dataDir, { url, pid: process.pid, adminToken });
  }
  if (firstRun?.created) printFirstRunBanner(firstRun, url);
  else console.log(`Parley listening on ${url} (Swagger UI: ${url}/docs)`);
}

bootstrap().catch((err) => {
  if (err instanceof ConfigError || err instanceof DataDirLockedError) {
    console.error(err.message);
  } else {
    console.error('Parley failed to start:', err);
  }
  process.exit(1);
});
