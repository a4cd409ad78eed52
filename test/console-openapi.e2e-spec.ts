import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { openApiDocument } from '../src/app.setup';
import { createTestApp, TestApp } from './support/test-app';

/**
 * The console's API types are generated from console/src/api/openapi.json (docs/console.md, "API
 * types"). This fails when the server's OpenAPI document changed and the file was not regenerated
 * with `npm run console:api`; regenerating then makes `npm run typecheck` fail wherever the change
 * breaks the console.
 */
describe('console API types', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('console/src/api/openapi.json is the server’s current OpenAPI document', () => {
    const committed = JSON.parse(readFileSync(path.resolve(__dirname, '..', 'console', 'src', 'api', 'openapi.json'), 'utf8'));
    const current = JSON.parse(JSON.stringify(openApiDocument(t.app)));
    expect(committed).toEqual(current);
  });
});
