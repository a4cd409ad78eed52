import * as fs from 'node:fs';
import * as path from 'node:path';

import { createProject } from './support/factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

type LimitValues = Record<string, number | null>;
type ProjectLimitsBody = { project?: LimitValues | null; keys?: LimitValues | null };

/** README.md's `curl -X PUT …/projects/<ws>/<p>/limits … -d '<json>'` examples, in order (a `\` line continuation joined). */
function readmeProjectLimitsBodies(): ProjectLimitsBody[] {
  const text = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8').replace(/\\\n\s*/g, ' ');
  return text
    .split('\n')
    .filter((line) => /curl .*-X PUT .*\/projects\/[^/\s]+\/limits\b/.test(line))
    .map((line) => JSON.parse(/ -d '([^']*)'/.exec(line)![1]) as ProjectLimitsBody);
}

/**
 * The README's limits example sets requests per minute and concurrency, its budgets example later
 * sets budgets on the same project. `PUT …/limits` replaces all of a project's limits (a field left
 * out is removed: docs/security.md, "Limits"), so a later example must repeat what the earlier ones
 * set, or following the README silently clears the limits it just showed.
 */
describe("README's project limits examples, run in order, keep what the earlier ones set", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('the last PUT leaves every limit and budget the examples set', async () => {
    const bodies = readmeProjectLimitsBodies();
    expect(bodies.length).toBeGreaterThanOrEqual(2);
    const p = await createProject(t);
    const url = `/v2/workspaces/${p.workspace}/projects/${p.project}/limits`;
    const expected: { project: LimitValues; keys: LimitValues } = { project: {}, keys: {} };
    for (const body of bodies) {
      await t.http().put(url).set('X-API-Key', TEST_ADMIN_KEY).send(body).expect(200);
      Object.assign(expected.project, body.project ?? {});
      Object.assign(expected.keys, body.keys ?? {});
    }
    const limits = await t.http().get(url).set('X-API-Key', TEST_ADMIN_KEY).expect(200);
    expect({ project: limits.body.project, keys: limits.body.keys }).toMatchObject(expected);
  });
});
