#!/usr/bin/env node
// Part of `npm run build` (and `npm run console:api`): writes Parley's OpenAPI document (as /docs-json
// serves it) to console/src/api/openapi.json from the compiled server, in Nest's preview mode (modules
// and routes only: no provider is made, no database opened); openapi-typescript then generates the
// console's API types from it (docs/console.md, "API types").
const fs = require('node:fs');
const path = require('node:path');

async function main() {
  const { NestFactory } = require('@nestjs/core');
  const { AppModule } = require('../dist/app.module');
  const { openApiDocument } = require('../dist/app.setup');
  const app = await NestFactory.create(AppModule, { logger: false, bodyParser: false, preview: true });
  const document = openApiDocument(app);
  await app.close();
  const target = path.resolve(__dirname, '..', 'console', 'src', 'api', 'openapi.json');
  fs.writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
  console.error(`wrote ${path.relative(process.cwd(), target)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
