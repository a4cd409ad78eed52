import OpenAI from 'openai';
import { bulkInsertMessages, createProject, TestProject } from './support/factories';
import { INVOKE_APP_ENV, listen } from './support/invoke-factories';
import { createTestApp, TestApp } from './support/test-app';

const MESSAGES = 10_000;

/**
 * `truncation: "auto"` on a 10,000-message conversation must not stall the instance: the
 * truncation measures each message once and yields to the event loop between chunks
 * (docs/openai-conversations.md, "Responses"). Serial: it asserts latencies.
 */
describe('responses truncation on a long conversation', () => {
  // A latency bound measured inside the jest process, which also runs the app: on this 2-core
  // machine one poll in ~15 has been seen at 240-390 ms in a full run (13-47 ms alone), which a
  // collection of the runner's own heap explains as well as the app. A truncation that held the
  // event loop would do so on every attempt: each failure is printed before the next attempt
  // (docs/testing.md, "Timing tests").
  jest.retryTimes(2, { logErrorsBeforeRetry: true });

  let t: TestApp;
  let p: TestProject;
  let base: string;
  let openai: OpenAI;

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    base = await listen(t);
    p = await createProject(t);
    openai = new OpenAI({ baseURL: `${base}/v1`, apiKey: p.key, maxRetries: 0 });
  });
  afterAll(() => t.close());

  /** 10,000 turns of about 60 estimated tokens each, inserted in one statement (as the API would store them). */
  async function seedConversation(conversationId: string): Promise<void> {
    await t.dataSource.transaction(async (manager) => {
      await manager.query('UPDATE threads SET last_seq = last_seq + $3 WHERE project_id = $1 AND id = $2', [p.projectId, conversationId, MESSAGES]);
      await manager.query(
        `INSERT INTO thread_messages (project_id, id, thread_id, seq, content, metadata, request_log_id, created_at)
         SELECT $1, uuid_in(overlay(overlay(md5(random()::text || g::text) placing '7' from 13) placing '8' from 17)::cstring), $2, g,
                jsonb_build_array(jsonb_build_object('role', CASE WHEN g % 2 = 0 THEN 'assistant' ELSE 'user' END, 'content', 'turn ' || g || ' ' || repeat('words ', 40))),
                '{}', NULL, now()
           FROM generate_series(1, $3) AS g`,
        [p.projectId, conversationId, MESSAGES],
      );
    });
  }

  it('answers while /health stays under 100 ms, and drops the oldest turns to fit the budget', async () => {
    const conversation = await openai.conversations.create();
    await seedConversation(conversation.id);

    let done = false;
    const healthMs: number[] = [];
    const poll = (async () => {
      while (!done) {
        const started = performance.now();
        const res = await fetch(`${base}/health`);
        await res.text();
        healthMs.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const started = performance.now();
    try {
      const response = await openai.responses.create({ model: 'local/echo', input: 'the last question', conversation: conversation.id, truncation: 'auto' });
      expect(response.status).toBe('completed');
      expect(response.output_text).toBe('the last question');
      // local/echo counts the words it was sent: far fewer than 10,000 turns of 42 words, yet some history came along.
      expect(response.usage!.input_tokens).toBeLessThan(MESSAGES * 42 / 2);
      expect(response.usage!.input_tokens).toBeGreaterThan(1000);
    } finally {
      done = true;
      await poll;
    }
    const elapsed = performance.now() - started;
    expect(healthMs.length).toBeGreaterThan(3);
    // eslint-disable-next-line no-console
    console.log(`truncation of ${MESSAGES} messages: ${elapsed.toFixed(0)} ms; /health max ${Math.max(...healthMs).toFixed(1)} ms over ${healthMs.length} polls`);
    expect(Math.max(...healthMs)).toBeLessThan(100);
  }, 120_000);

  it('a history longer than one page of the history read reaches the model whole and in order', async () => {
    const conversation = await openai.conversations.create();
    await bulkInsertMessages(t, p.projectId, conversation.id, 1234);
    const response = await openai.responses.create({ model: 'local/echo', input: 'three more words', conversation: conversation.id });
    // local/echo counts the words it was sent: 1,234 turns of "bulk <n>", then the input.
    expect(response.usage!.input_tokens).toBe(1234 * 2 + 3);
    const [log] = await t.dataSource.query(`SELECT thread_range FROM request_logs WHERE project_id = $1 ORDER BY id DESC LIMIT 1`, [p.projectId]);
    // The log refers to the turns sent (sequence numbers 1..1234, none skipped) instead of copying them.
    expect(log.thread_range).toMatchObject({ threadId: conversation.id, fromSeq: 1, toSeq: 1234 });
  });
});
