import OpenAI, { BadRequestError, NotFoundError, PermissionDeniedError } from 'openai';
import type { EvalCreateParams } from 'openai/resources/evals/evals';
import type { OutputItemListResponse } from 'openai/resources/evals/runs/output-items';
import type { RunRetrieveResponse } from 'openai/resources/evals/runs/runs';

import { createProject, TestProject } from './support/factories';
import { deploy, INVOKE_APP_ENV, listen, sleep } from './support/invoke-factories';
import { createTestApp, TEST_ADMIN_KEY, TestApp } from './support/test-app';

/**
 * OpenAI's Evals API through the official `openai` SDK, by base URL only (docs/evals.md, "OpenAI's
 * Evals API"): an eval with one criterion of each kind Parley grades, runs over a deployed prompt,
 * over `local/echo` and over given samples (jsonl), polled until completed, their output items
 * checked item by item; what does not map is OpenAI's 400, unknown ids its 404, scopes its 403.
 * Every output is local/echo's (deterministic): the deployed prompt answers with the item's
 * `answer`, the judges with the message the criterion renders.
 */
describe('/v1/evals through the openai SDK', () => {
  let t: TestApp;
  let p: TestProject;
  let baseUrl: string;
  let client: OpenAI;
  let evalId: string;
  let criterionIds: string[];

  const ROWS = [
    { question: 'Capital of France?', answer: 'Paris', expected: 'Paris', confidence: 9 },
    { question: 'Capital of Italy?', answer: 'Rome', expected: 'Rome', confidence: 8 },
    { question: 'Capital of Spain?', answer: 'Barcelona', expected: 'Madrid', confidence: 2 },
    { question: 'Capital of Germany?', answer: 'berlin', expected: 'Berlin', confidence: 6 },
  ];
  const ITEM_SCHEMA = {
    type: 'object',
    properties: {
      question: { type: 'string' },
      answer: { type: 'string' },
      expected: { type: 'string' },
      confidence: { type: 'integer', minimum: 0, maximum: 10 },
    },
    required: ['question', 'answer', 'expected', 'confidence'],
  };
  const CRITERIA: EvalCreateParams['testing_criteria'] = [
    { type: 'string_check', name: 'Exact', input: '{{sample.output_text}}', reference: '{{item.expected}}', operation: 'eq' },
    {
      type: 'text_similarity',
      name: 'Close',
      input: '{{sample.output_text}}',
      reference: '{{item.expected}}',
      evaluation_metric: 'fuzzy_match',
      pass_threshold: 0.8,
    },
    {
      type: 'label_model',
      name: 'Is a capital',
      model: 'local/echo',
      input: [
        { role: 'system', content: 'Label the city.' },
        { role: 'user', content: '{{sample.output_text}}' },
      ],
      labels: ['Paris', 'Rome', 'Madrid', 'Berlin', 'Barcelona'],
      passing_labels: ['Paris', 'Rome', 'Madrid', 'Berlin'],
    },
    {
      type: 'score_model',
      name: 'Confidence',
      model: 'judge@production',
      input: [{ role: 'user', content: '{{item.confidence}}' }],
      range: [0, 10],
      pass_threshold: 6,
    },
  ];
  const TYPES = ['string_check', 'text_similarity', 'label_model', 'score_model'];

  /** Polls the run through the SDK until it has ended. */
  async function finished(runId: string): Promise<RunRetrieveResponse> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const run = await client.evals.runs.retrieve(runId, { eval_id: evalId });
      if (['completed', 'failed', 'canceled'].includes(run.status)) return run;
      if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status}`);
      await sleep(50);
    }
  }

  /** Every output item, through the SDK's auto-pagination (two per page: the cursor is exercised). */
  async function outputItems(runId: string, status?: 'pass' | 'fail'): Promise<OutputItemListResponse[]> {
    const items: OutputItemListResponse[] = [];
    for await (const item of client.evals.runs.outputItems.list(runId, { eval_id: evalId, limit: 2, ...(status ? { status } : {}) }))
      items.push(item);
    return items;
  }

  /** Each item's results as [passed, score] per criterion, in the criteria's order. */
  const verdicts = (items: OutputItemListResponse[]) =>
    items.map((item) => {
      expect(item.results.map((r) => r.name)).toEqual(criterionIds);
      expect(item.results.map((r) => r.type)).toEqual(TYPES);
      for (const r of item.results)
        expect(r).toEqual({ name: r.name, type: r.type, score: r.score, passed: r.passed, sample: null, reason: expect.any(String) });
      return item.results.map((r) => [r.passed, r.score]);
    });

  const perCriterion = (counts: [number, number][]) =>
    counts.map(([passed, failed], i) => ({ testing_criteria: criterionIds[i], passed, failed }));

  beforeAll(async () => {
    t = await createTestApp(INVOKE_APP_ENV);
    baseUrl = await listen(t);
    p = await createProject(t);
    client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: p.key, maxRetries: 0 });
    // local/echo answers with the last user message: the prompt answers with the item's `answer`, the judge with the criterion's message.
    await deploy(t, p, { slug: 'capitals', template: [{ role: 'user', content: '{{answer}}' }] });
    await deploy(t, p, { slug: 'judge', template: [{ role: 'system', content: 'Score the confidence from 0 to 10.' }] });
  });
  afterAll(() => t.close());

  it('creates an eval, which is retrieved, listed and updated in OpenAI’s shape', async () => {
    const created = await client.evals.create({
      name: 'capitals',
      data_source_config: { type: 'custom', item_schema: ITEM_SCHEMA, include_sample_schema: true },
      testing_criteria: CRITERIA,
      metadata: { team: 'geo' },
    });
    evalId = created.id;
    criterionIds = created.testing_criteria.map((c) => (c as { id?: string }).id!);
    expect(created).toEqual({
      object: 'eval',
      id: expect.stringMatching(/^eval_[0-9a-f]{32}$/),
      name: 'capitals',
      created_at: expect.any(Number),
      metadata: { team: 'geo' },
      data_source_config: {
        type: 'custom',
        schema: {
          type: 'object',
          properties: { item: ITEM_SCHEMA, sample: expect.objectContaining({ type: 'object' }) },
          required: ['item', 'sample'],
        },
      },
      testing_criteria: CRITERIA.map((c) => ({ ...c, id: expect.stringMatching(new RegExp(`^${c.name}-[0-9a-f-]{36}$`)) })),
    });
    expect(Math.abs(created.created_at - Date.now() / 1000)).toBeLessThan(60);
    expect(await client.evals.retrieve(evalId)).toEqual(created);

    const second = await client.evals.create({
      data_source_config: { type: 'custom', item_schema: { type: 'object' } },
      testing_criteria: [CRITERIA[0]],
    });
    const listed: string[] = [];
    for await (const e of client.evals.list({ limit: 1 })) listed.push(e.id);
    expect(listed).toEqual([evalId, second.id]);
    expect((await client.evals.list({ order: 'desc' })).data.map((e) => e.id)).toEqual([second.id, evalId]);

    const updated = await client.evals.update(second.id, { name: 'renamed', metadata: { v: '2' } });
    expect(updated).toMatchObject({ id: second.id, name: 'renamed', metadata: { v: '2' } });
    expect(await client.evals.delete(second.id)).toEqual({ object: 'eval.deleted', deleted: true, eval_id: second.id });
    await expect(client.evals.retrieve(second.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('runs the eval over a deployed prompt (<slug>@production) on the job queue: result counts and every item as worked out', async () => {
    const started = await client.evals.runs.create(evalId, {
      name: 'capitals v1',
      data_source: {
        type: 'completions',
        model: 'capitals@production',
        source: { type: 'file_content', content: ROWS.map((item) => ({ item })) },
      },
    });
    expect(started).toMatchObject({
      object: 'eval.run',
      id: expect.stringMatching(/^evalrun_[0-9a-f]{32}$/),
      eval_id: evalId,
      name: 'capitals v1',
      status: 'queued',
      model: 'capitals@production',
      result_counts: { total: 0, errored: 0, failed: 0, passed: 0 },
      error: null,
    });
    const run = await finished(started.id);
    expect(run).toMatchObject({
      status: 'completed',
      result_counts: { total: 4, errored: 0, failed: 2, passed: 2 },
      per_testing_criteria_results: perCriterion([
        [2, 2],
        [3, 1],
        [3, 1],
        [3, 1],
      ]),
      per_model_usage: [
        {
          model_name: 'capitals@production',
          invocation_count: 4,
          prompt_tokens: 4,
          completion_tokens: 4,
          total_tokens: 8,
          cached_tokens: 0,
        },
      ],
      report_url: expect.stringMatching(/^\/console\/evals\/runs\/[0-9a-f-]{36}$/),
      data_source: { type: 'completions', model: 'capitals@production' },
    });

    const items = await outputItems(run.id);
    expect(items.map((item) => [item.datasource_item_id, item.status])).toEqual([
      [0, 'pass'],
      [1, 'pass'],
      [2, 'fail'],
      [3, 'fail'],
    ]);
    expect(items.map((item) => item.datasource_item)).toEqual(ROWS);
    expect(verdicts(items)).toEqual([
      [
        [true, 1],
        [true, 1],
        [true, 1],
        [true, 9],
      ],
      [
        [true, 1],
        [true, 1],
        [true, 1],
        [true, 8],
      ],
      [
        [false, 0],
        [false, 0.266667],
        [false, 0],
        [false, 2],
      ],
      [
        [false, 0],
        [true, 0.833333],
        [true, 1],
        [true, 6],
      ],
    ]);
    expect(items[3].sample).toEqual({
      input: [{ role: 'user', content: 'berlin' }],
      output: [{ role: 'assistant', content: 'berlin' }],
      finish_reason: 'stop',
      model: 'echo',
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, cached_tokens: 0 },
      error: null,
      temperature: null,
      max_completion_tokens: null,
      top_p: null,
      seed: null,
    });
    expect((await outputItems(run.id, 'pass')).map((item) => item.datasource_item_id)).toEqual([0, 1]);
    expect((await outputItems(run.id, 'fail')).map((item) => item.datasource_item_id)).toEqual([2, 3]);
    expect(await client.evals.runs.outputItems.retrieve(items[2].id, { eval_id: evalId, run_id: run.id })).toEqual(items[2]);

    // The experiment run behind it, on /v2: the criteria are its graders, its items the rows' dataset.
    const experiment = run.report_url.split('/').pop();
    const v2 = await t.http().get(`/v2/evals/runs/${experiment}`).set('X-API-Key', p.key).expect(200);
    expect(v2.body).toMatchObject({
      status: 'completed',
      dataset: { name: run.id, version: 1 },
      target: { prompt: 'capitals', version: 1 },
    });
    expect(v2.body.graders.map((g: { name: string; type: string }) => [g.name, g.type])).toEqual(criterionIds.map((id) => [id, 'openai']));
  });

  it('runs a local/echo completions run: input_messages as a draft template, sampling params on every call', async () => {
    const run = await finished(
      (
        await client.evals.runs.create(evalId, {
          data_source: {
            type: 'completions',
            model: 'local/echo',
            input_messages: {
              type: 'template',
              template: [
                { role: 'developer', content: 'Answer with the capital only.' },
                { role: 'user', content: '{{item.expected}}' },
              ],
            },
            sampling_params: { temperature: 0.2, max_completion_tokens: 5 },
            source: { type: 'file_content', content: ROWS.map((item) => ({ item })) },
          },
        })
      ).id,
    );
    expect(run).toMatchObject({
      status: 'completed',
      model: 'local/echo',
      result_counts: { total: 4, errored: 0, failed: 1, passed: 3 },
      per_testing_criteria_results: perCriterion([
        [4, 0],
        [4, 0],
        [4, 0],
        [3, 1],
      ]),
    });
    const items = await outputItems(run.id);
    expect(items.map((item) => item.status)).toEqual(['pass', 'pass', 'fail', 'pass']);
    expect(verdicts(items).map((item) => item.map(([passed]) => passed))).toEqual([
      [true, true, true, true],
      [true, true, true, true],
      [true, true, true, false],
      [true, true, true, true],
    ]);
    expect(items[2].sample).toMatchObject({
      input: [
        { role: 'system', content: 'Answer with the capital only.' },
        { role: 'user', content: 'Madrid' },
      ],
      output: [{ role: 'assistant', content: 'Madrid' }],
      model: 'echo',
      usage: { prompt_tokens: 6, completion_tokens: 1, total_tokens: 7, cached_tokens: 0 },
      temperature: 0.2,
      max_completion_tokens: 5,
    });
  });

  it('grades the samples of a jsonl run as given: no model is called for them', async () => {
    const samples = ['Paris', 'Roma', 'Madrid ', 'Berlin'];
    const run = await finished(
      (
        await client.evals.runs.create(evalId, {
          data_source: {
            type: 'jsonl',
            source: {
              type: 'file_content',
              content: ROWS.map((item, i) => ({ item, sample: { output_text: samples[i], model: 'gpt-4o-mini' } })),
            },
          },
        })
      ).id,
    );
    expect(run).toMatchObject({
      status: 'completed',
      model: null,
      per_model_usage: [],
      result_counts: { total: 4, errored: 0, failed: 2, passed: 2 },
    });
    const items = await outputItems(run.id);
    expect(verdicts(items)).toEqual([
      [
        [true, 1],
        [true, 1],
        [true, 1],
        [true, 9],
      ],
      [
        [false, 0],
        [false, 0.75],
        [false, 0],
        [true, 8],
      ],
      [
        [false, 0],
        [true, 0.923077],
        [true, 1],
        [false, 2],
      ],
      [
        [true, 1],
        [true, 1],
        [true, 1],
        [true, 6],
      ],
    ]);
    expect(items[1].sample).toMatchObject({ output: [{ role: 'assistant', content: 'Roma' }], model: 'gpt-4o-mini', error: null });

    // Rows without a sample: criteria over the item alone.
    const itemsOnly = await client.evals.create({
      data_source_config: { type: 'custom', item_schema: ITEM_SCHEMA },
      testing_criteria: [
        { type: 'string_check', name: 'Answered', input: '{{item.answer}}', reference: '{{item.expected}}', operation: 'ilike' },
      ],
    });
    const plain = await client.evals.runs.create(itemsOnly.id, {
      data_source: { type: 'jsonl', source: { type: 'file_content', content: ROWS.map((item) => ({ item })) } },
    });
    let ended = plain;
    while (!['completed', 'failed', 'canceled'].includes(ended.status)) {
      await sleep(50);
      ended = await client.evals.runs.retrieve(plain.id, { eval_id: itemsOnly.id });
    }
    expect(ended.result_counts).toEqual({ total: 4, errored: 0, failed: 1, passed: 3 });
    const plainItems = (await client.evals.runs.outputItems.list(plain.id, { eval_id: itemsOnly.id })).data;
    expect(plainItems.map((item) => [item.status, item.sample])).toEqual([
      ['pass', null],
      ['pass', null],
      ['fail', null],
      ['pass', null],
    ]);
  });

  it("refuses what does not map with OpenAI's 400, unknown ids with its 404, and keys without the scopes with its 403", async () => {
    const bleu = await client.evals
      .create({
        data_source_config: { type: 'custom', item_schema: ITEM_SCHEMA },
        testing_criteria: [{ ...(CRITERIA[1] as object), evaluation_metric: 'bleu' } as EvalCreateParams.TextSimilarity],
      })
      .catch((e) => e);
    expect(bleu).toBeInstanceOf(BadRequestError);
    expect(bleu.status).toBe(400);
    expect(bleu.error).toEqual({
      message: 'evaluation_metric "bleu" is not supported: Parley computes fuzzy_match only',
      type: 'invalid_request_error',
      param: 'testing_criteria[0].evaluation_metric',
      code: null,
    });

    const badRow = await client.evals.runs
      .create(evalId, {
        data_source: { type: 'completions', model: 'local/echo', source: { type: 'file_content', content: [{ item: { question: 1 } }] } },
      })
      .catch((e) => e);
    expect(badRow).toBeInstanceOf(BadRequestError);
    expect(badRow.param).toBe('data_source.source.content[0].item');
    const fileId = await client.evals.runs
      .create(evalId, { data_source: { type: 'jsonl', source: { type: 'file_id', id: 'file-1' } } })
      .catch((e) => e);
    expect(fileId).toMatchObject({ status: 400, param: 'data_source.source.type' });

    const missing = await client.evals.retrieve('eval_00000000000000000000000000000000').catch((e) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing.error).toEqual({
      message: "Eval with id 'eval_00000000000000000000000000000000' not found.",
      type: 'invalid_request_error',
      param: 'eval_id',
      code: 'not_found',
    });
    await expect(client.evals.runs.retrieve('evalrun_0', { eval_id: evalId })).rejects.toBeInstanceOf(NotFoundError);

    const keyWith = async (scopes: string[]) =>
      (
        await t
          .http()
          .post(`/v2/workspaces/${p.workspace}/projects/${p.project}/api-keys`)
          .set('X-API-Key', TEST_ADMIN_KEY)
          .send({ name: scopes.join('+'), scopes })
          .expect(200)
      ).body.key as string;
    const reader = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: await keyWith(['registry:read']), maxRetries: 0 });
    expect((await reader.evals.retrieve(evalId)).id).toBe(evalId);
    await expect(
      reader.evals.create({ data_source_config: { type: 'custom', item_schema: {} }, testing_criteria: [CRITERIA[0]] }),
    ).rejects.toBeInstanceOf(PermissionDeniedError);
    const writer = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: await keyWith(['registry:read', 'registry:write']), maxRetries: 0 });
    const noInvoke = await writer.evals.runs
      .create(evalId, {
        data_source: { type: 'jsonl', source: { type: 'file_content', content: [{ item: ROWS[0], sample: { output_text: 'x' } }] } },
      })
      .catch((e) => e);
    expect(noInvoke).toBeInstanceOf(PermissionDeniedError);
    expect(noInvoke.error).toMatchObject({ type: 'permission_error', message: 'This API key lacks the invoke scope a run needs' });
  });

  it('lists, cancels and deletes runs; deleting the eval deletes its runs', async () => {
    const runs = (await client.evals.runs.list(evalId)).data;
    expect(runs.length).toBe(3);
    expect((await client.evals.runs.list(evalId, { status: 'completed', order: 'desc' })).data.map((r) => r.id)).toEqual(
      runs.map((r) => r.id).reverse(),
    );
    expect((await client.evals.runs.list(evalId, { status: 'in_progress' })).data).toEqual([]);
    const done = await client.evals.runs.cancel(runs[0].id, { eval_id: evalId });
    expect(done.status).toBe('completed');
    expect(await client.evals.runs.delete(runs[0].id, { eval_id: evalId })).toEqual({
      object: 'eval.run.deleted',
      deleted: true,
      run_id: runs[0].id,
    });
    await expect(client.evals.runs.retrieve(runs[0].id, { eval_id: evalId })).rejects.toBeInstanceOf(NotFoundError);
    await t.http().get(`/v2/datasets/${runs[0].id}`).set('X-API-Key', p.key).expect(404);
    await client.evals.delete(evalId);
    await expect(client.evals.runs.list(evalId)).rejects.toBeInstanceOf(NotFoundError);
    await t.http().get(`/v2/datasets/${runs[1].id}`).set('X-API-Key', p.key).expect(404);
  });
});
