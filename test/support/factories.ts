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

/**
 * Appends `count` messages to a thread in one statement, as Create Thread Message would (content
 * `[{role: 'user', content: 'bulk <n>'}]`, consecutive sequence numbers), and moves the thread's
 * counter past them so later appends through the API continue the sequence.
 */
export async function bulkInsertMessages(t: TestApp, projectId: string, threadId: string, count: number): Promise<void> {
  await t.dataSource.transaction(async (manager) => {
    const [rows]: [{ last_seq: number }[], number] = await manager.query(
      'UPDATE threads SET last_seq = last_seq + $3 WHERE project_id = $1 AND id = $2 RETURNING last_seq',
      [projectId, threadId, count],
    );
    const first = Number(rows[0].last_seq) - count;
    await manager.query(
      `INSERT INTO thread_messages (project_id, id, thread_id, seq, content, metadata, request_log_id, created_at)
       SELECT $1, uuid_in(overlay(overlay(md5(random()::text || g::text) placing '7' from 13) placing '8' from 17)::cstring), $2, $3 + g,
              jsonb_build_array(jsonb_build_object('role', 'user', 'content', 'bulk ' || g)), jsonb_build_object('n', g), NULL, now()
         FROM generate_series(1, $4) AS g`,
      [projectId, threadId, first, count],
    );
  });
}

/** Every row of a project's threads and messages, deleted ones included, in a stable order. */
export async function projectRows(t: TestApp, projectId: string): Promise<{ threads: unknown[]; messages: unknown[] }> {
  const threads = await t.dataSource.query('SELECT * FROM threads WHERE project_id = $1 ORDER BY id', [projectId]);
  const messages = await t.dataSource.query('SELECT * FROM thread_messages WHERE project_id = $1 ORDER BY id', [projectId]);
  return { threads, messages };
}
