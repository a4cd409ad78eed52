import { Logger } from '@nestjs/common';

import type { ProjectPrincipal } from '../auth/principal';
import { newId } from '../common/ids';
import type { JobQueue } from '../jobs/job-queue';
import type { LiveGrader } from '../project-settings/live-graders';
import type { ProjectSettingsService } from '../project-settings/project-settings.service';
import type { ResolvedDeployment } from '../registry/resolved-deployment';
import type { RequestLogEntity } from '../request-logs/request-log.entity';
import type { ResolvedTarget } from './invocation.types';
import { LiveGradeSampler } from './live-grade-sampler';

const caller = { projectId: 'p1', workspaceId: 'w1', workspaceSlug: 'acme', projectSlug: 'shop' } as ProjectPrincipal;
const deployment = { environment: 'production', promptSlug: 'reply' } as ResolvedDeployment;
const served: ResolvedTarget = { deployment, kind: 'prompt', slug: 'reply', environment: 'production' } as ResolvedTarget;

const logOf = (fields: Partial<RequestLogEntity> = {}) =>
  ({ id: newId(), promptSlug: 'reply', environment: 'production', status: 200, doNotRecord: false, ...fields }) as RequestLogEntity;

/** A sampler over settings holding `entries` (in the cache or not) and a queue that records what it is given. */
function samplerWith(entries: LiveGrader[], cached = false) {
  const queued: Array<{ projectId: string; id: string; request: object }> = [];
  const stored = { recordEmbeddingInputs: true, liveGraders: entries, updatedAt: null };
  const settings = { of: jest.fn(async () => stored), peek: jest.fn(() => (cached ? stored : undefined)) };
  const queue = { insertQueued: jest.fn(async (_kind: string, jobs: typeof queued) => void queued.push(...jobs)), queuedHere: jest.fn() };
  const sampler = new LiveGradeSampler(settings as unknown as ProjectSettingsService, queue as unknown as JobQueue);
  return { sampler, settings, queue, queued };
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('LiveGradeSampler', () => {
  it("queues a live_grade job named by the log id, with the sampled graders and the project's names, and wakes this instance", async () => {
    const { sampler, queue, queued } = samplerWith([
      { grader: 'json', share: 1 },
      { grader: 'other', share: 1, prompt: 'summary' },
    ]);
    const log = logOf();
    sampler.consider(caller, served, log);
    await settled();
    expect(queue.insertQueued).toHaveBeenCalledWith('live_grade', [
      { projectId: 'p1', id: log.id, request: { graders: ['json'], workspaceId: 'w1', workspaceSlug: 'acme', projectSlug: 'shop' } },
    ]);
    expect(queued).toHaveLength(1);
    expect(queue.queuedHere).toHaveBeenCalledWith('live_grade');
  });

  it('reads no settings and queues nothing for a call that cannot be graded live', async () => {
    const { sampler, settings, queue } = samplerWith([{ grader: 'json', share: 1 }]);
    sampler.consider(caller, served, logOf({ doNotRecord: true }));
    sampler.consider(caller, served, logOf({ status: 502 }));
    sampler.consider(caller, { ...served, kind: 'embedding' }, logOf());
    sampler.consider(caller, { ...served, deployment: null, slug: 'local/echo', environment: '' }, logOf());
    // An experiment's or a judge's call: served by a deployment, logged under another environment.
    sampler.consider(caller, { ...served, environment: 'eval-0198' }, logOf({ environment: 'eval-0198' }));
    sampler.consider(caller, { ...served, environment: 'live-graders' }, logOf({ environment: 'live-graders' }));
    await settled();
    expect(settings.peek).not.toHaveBeenCalled();
    expect(settings.of).not.toHaveBeenCalled();
    expect(queue.insertQueued).not.toHaveBeenCalled();
  });

  it('settings in the cache are read without a promise; they are loaded when not', async () => {
    const warm = samplerWith([{ grader: 'json', share: 1 }], true);
    const log = logOf();
    warm.sampler.consider(caller, served, log);
    expect(warm.settings.of).not.toHaveBeenCalled();
    const cold = samplerWith([{ grader: 'json', share: 1 }]);
    cold.sampler.consider(caller, served, logOf());
    expect(cold.settings.of).toHaveBeenCalledWith('p1');
    await settled();
    expect(warm.queued.map((job) => job.id)).toEqual([log.id]);
    expect(cold.queued).toHaveLength(1);
  });

  it('queues nothing when no entry samples the call; concurrent calls are queued together', async () => {
    const none = samplerWith([]);
    none.sampler.consider(caller, served, logOf());
    const elsewhere = samplerWith([{ grader: 'json', share: 1, environment: 'staging' }]);
    elsewhere.sampler.consider(caller, served, logOf());
    await settled();
    expect(none.queue.insertQueued).not.toHaveBeenCalled();
    expect(elsewhere.queue.insertQueued).not.toHaveBeenCalled();

    const all = samplerWith([{ grader: 'json', share: 1 }]);
    for (let i = 0; i < 10; i++) all.sampler.consider(caller, served, logOf());
    await settled();
    expect(all.queued).toHaveLength(10);
    expect(all.queue.insertQueued.mock.calls.length).toBeLessThan(10);
  });

  it('a failing queue costs the call nothing: consider returns at once, never throws, and the failure is logged', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const { sampler, queue } = samplerWith([{ grader: 'json', share: 1 }]);
    queue.insertQueued.mockRejectedValue(new Error('database down'));
    const log = logOf();
    expect(() => sampler.consider(caller, served, log)).not.toThrow();
    await settled();
    expect(warn).toHaveBeenCalledWith(`could not queue the live grading of log ${log.id}: database down`);
    warn.mockRestore();
  });
});
