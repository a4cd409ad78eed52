import { NestFactory } from '@nestjs/core';
import * as fs from 'node:fs';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { AppConfig, ConfigError, loadAppConfig } from './config/app-config';
import { DataDirLockedError, lockDataDir, serverInfoPath } from './database/data-dir-lock';
import { printFirstRunBanner } from './setup/first-run-banner';
import { InitService } from './setup/init.service';

async function bootstrap(): Promise<void> {
  const config = loadAppConfig();
  if (config.embedded && !config.inMemory) await lockDataDir(config.dataDir);

  const app = await NestFactory.create(AppModule, { bodyParser: false, bufferLogs: true });
  configureApp(app);
  const firstRun = config.embedded ? await app.get(InitService).initIfEmpty() : undefined;
  await app.listen(config.port, config.host);

  const url = `http://127.0.0.1:${config.port}`;
  if (config.embedded && !config.inMemory) writeServerInfo(config, url);
  if (firstRun?.created) printFirstRunBanner(firstRun, url);
  else console.log(`Parley listening on ${url} (Swagger UI: ${url}/docs)`);
}

function writeServerInfo(config: AppConfig, url: string): void {
  fs.writeFileSync(serverInfoPath(config.dataDir), JSON.stringify({ url, pid: process.pid }), { mode: 0o600 });
}

bootstrap().catch((err) => {
  if (err instanceof ConfigError || err instanceof DataDirLockedError) {
    console.error(err.message);
  } else {
    console.error('Parley failed to start:', err);
  }
  process.exit(1);
});
