import { randomBytes } from 'node:crypto';
import { TEST_ADMIN_KEY, TestApp } from './test-app';

export interface TestProject {
  workspace: string;
  project: string;
  projectId: string;
  key: string;
  keyId: string;
}

export const uniqueSlug = (prefix: string) => `${prefix}-${randomBytes(5).toString('hex')}`;

/** A workspace, project and key made through the admin API, as an operator would. */
export async function createProject(t: TestApp): Promise<TestProject> {
  const admin = { 'X-API-Key': TEST_ADMIN_KEY };
  const workspace = uniqueSlug('ws');
  const project = uniqueSlug('proj');
  await t.http().post('/v2/workspaces').set(admin).send({ slug: workspace }).expect(200);
  const created = await t.http().post(`/v2/workspaces/${workspace}/projects`).set(admin).send({ slug: project }).expect(200);
  const key = await t.http().post(`/v2/workspaces/${workspace}/projects/${project}/api-keys`).set(admin).send({ name: 'test' }).expect(200);
  return { workspace, project, projectId: created.body.id, key: key.body.key, keyId: key.body.id };
}

export async function createThread(t: TestApp, p: TestProject, body: object = {}): Promise<{ id: string } & Record<string, unknown>> {
  const res = await t.http().post('/v2/threads').set('X-API-Key', p.key).send(body).expect(200);
  return res.body;
}

export async function createMessage(t: TestApp, p: TestProject, threadId: string, content: string, metadata?: object) {
  const res = await t
    .http()
    .post(`/v2/threads/${threadId}/messages`)
    .set('X-API-Key', p.key)
    .send({ message: { role: 'user', content }, ...(metadata ? { metadata } : {}) })
    .expect(200);
  return res.body as { id: string; content: unknown[] } & Record<string, unknown>;
}

/** Inserts many threads in one statement, for pagination and index tests that need volume. */
export async function bulkInsertThreads(t: TestApp, projectId: string, count: number): Promise<void> {
  await t.dataSource.query(
    `INSERT INTO threads (project_id, id, metadata, create_log, last_seq, created_at)
     SELECT $1, uuid_in(overlay(overlay(md5(random()::text || g::text) placing '7' from 13) placing '8' from 17)::cstring),
            jsonb_build_object('n', g), '{}', 0, now()
       FROM generate_series(1, $2) AS g`,
    [projectId, count],
  );
}
