import { Injectable, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';

import { ProjectPrincipal } from '../auth/principal';
import { TtlCache } from '../common/cache/ttl-cache';
import { ApiException, serviceError } from '../common/errors';
import { startPeriodic, stopPeriodic } from '../common/periodic';
import { AppConfig } from '../config/app-config';
import { ChangeNotifier } from '../database/changes';
import { MetricsService } from '../metrics/metrics.service';
import { BudgetPeriodState, Budgets } from './budgets';
import { ConcurrencyLeases } from './concurrency-leases';
import { toLimitValues } from './limits.mapper';
import { LimitsRepository } from './limits.repository';
import { EffectiveLimits, hasAnyLimit, KEY_DEFAULT_SUBJECT, LIMIT_FIELDS, LimitValues, NO_LIMITS, PROJECT_SUBJECT } from './limits.types';
import { ProjectGate } from './project-gate';
import { SharedCounters } from './shared-counters';
import { StreamShares } from './stream-shares';

const MINUTE = 60;
const DAY = 86_400;
/** How often an instance shares its counts; also the staleness bound of another instance's view. */
const SYNC_MS = 100;
const SYNC = 'limits-sync';
/**
 * Limit settings are read again after this long. A change reaches every instance at once through
 * a change notification (docs/scaling.md); this is only the bound when a notification is lost.
 */
const SETTINGS_TTL_MS = 5000;
/**
 * A project's turn at streaming work before the event loop serves everything else (stream-shares.ts):
 * another project's request waits at most this long per turn of the loop it needs.
 */
const STREAM_SLICE_MS = 1;
/** How many of a project's waiting streams one slice lets go on (fewer, larger socket writes). */
const STREAM_SLICE_STREAMS = 4;

/** A call let through: give it back when the call has ended. */
export interface Admission {
  /** x-ratelimit-* headers of the tightest requests-per-minute limit, when there is one. */
  readonly headers: Record<string, string>;
  /** Idempotent; `tokens` (the call's usage) count against tokens per day. */
  release(tokens?: number): void;
}

function tooMany(message: string, retryAfterSeconds: number, headers: Record<string, string> = {}): ApiException {
  return serviceError(429, 'Too Many Requests', message, { ...headers, 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
}

function merged(base: LimitValues, override: LimitValues | undefined): LimitValues {
  if (!override) return base;
  return Object.fromEntries(LIMIT_FIELDS.map((field) => [field, override[field] ?? base[field]])) as unknown as LimitValues;
}

/** What a caller's key counters are kept under: its key id; `PARLEY_ADMIN_KEY` acting in a project (X-Parley-Project) has none. */
const keyCounterOf = (caller: Pick<ProjectPrincipal, 'keyId'>): string => caller.keyId ?? 'PARLEY_ADMIN_KEY';

/**
 * Requests per minute, concurrent invokes, tokens per day and budgets in USD, per key and per
 * project, held across instances through shared counters and concurrency slots (docs/security.md,
 * "Limits"; docs/usage.md, "Budgets"). A project without limits costs one cached lookup per call
 * and its calls are still counted (in memory, sent with the next sync), so a limit set later finds
 * the window's calls already counted.
 */

@Injectable()
export class LimitsService implements OnModuleInit, OnModuleDestroy {
  private readonly settings = new TtlCache<string, Map<string, LimitValues>>(SETTINGS_TTL_MS);
  private readonly leases: ConcurrencyLeases;
  private readonly counters: SharedCounters;
  private readonly budgets: Budgets;
  private ticks = 0;
  /** When a call last met a limit: instances report in-flight counts only while limits are in use. */
  private lastLimitedMs = 0;

  /**
   * Limit settings reads, at most half the pool per project (project-gate.ts). An invoke's other
   * database work is batched across calls and needs no share (docs/security.md, "Database fairness").
   */
  private readonly databaseGate: ProjectGate;
  /** Streaming work, one project's slice per turn of the event loop (stream-shares.ts). */
  readonly streamShares = new StreamShares(STREAM_SLICE_MS, STREAM_SLICE_STREAMS);

  /** Settings read from the database since start: one per project and cache miss, however many calls missed together. */
  private settingsReads = 0;

  constructor(
    private readonly repo: LimitsRepository,
    config: AppConfig,
    changes: ChangeNotifier,
    private readonly schedule: SchedulerRegistry,
    // Absent in the CLI, which serves no calls.
    @Optional() metrics?: MetricsService,
  ) {
    this.leases = new ConcurrencyLeases(repo);
    this.counters = new SharedCounters(repo, () => this.leases.liveInstances());
    this.budgets = new Budgets(this.counters, repo);
    this.databaseGate = new ProjectGate(Math.max(1, Math.floor(config.dbPoolSize / 2)));
    changes.subscribe({
      onChange: (change) => {
        if (change.kind === 'limits') this.settings.delete(change.projectId);
      },
      onFlush: () => this.settings.clear(),
    });
    metrics?.gauge(
      'parley_limits_settings_reads',
      'Limit settings read from the database by this instance since it started (one read per project and cache miss, shared by the calls that missed together)',
      [],
      (gauge) => gauge.set(this.settingsReads),
    );
    metrics?.gauge(
      'parley_stream_projects_waiting',
      'Projects whose streams wait for their slice of streaming work on this instance',
      [],
      (gauge) => gauge.set(this.streamShares.waitingProjects),
    );
  }

  onModuleInit(): void {
    startPeriodic(this.schedule, SYNC, SYNC_MS, () => void this.tick());
  }

  async onModuleDestroy(): Promise<void> {
    stopPeriodic(this.schedule, SYNC);
    await this.counters.sync().catch(() => undefined);
  }

  /** The limits that apply to a key: its own, else the project's default for keys; and the project's. */
  async limitsOf(caller: Pick<ProjectPrincipal, 'projectId' | 'keyId'>): Promise<EffectiveLimits> {
    const { projectId } = caller;
    // One read per project at a time, shared by every call that misses (200 streams arriving
    // together after an idle spell make one lookup), behind the project's share of the pool.
    const bySubject =
      this.settings.get(projectId) ??
      (await this.settings.getOrLoad(projectId, () =>
        this.databaseGate.run(projectId, async () => {
          this.settingsReads++;
          const rows = await this.repo.settingsOf(projectId);
          return new Map(rows.map((r) => [r.subject, toLimitValues(r)]));
        }),
      ))!;
    return {
      key: merged(bySubject.get(KEY_DEFAULT_SUBJECT) ?? NO_LIMITS, bySubject.get(caller.keyId ?? KEY_DEFAULT_SUBJECT)),
      project: bySubject.get(PROJECT_SUBJECT) ?? NO_LIMITS,
    };
  }

  /** Limits changed here (admin API, apply): read them again on the next call, before the notification comes back. */
  forget(projectId: string): void {
    this.settings.delete(projectId);
  }

  /** Lets a call through or throws the 429 to answer with (Retry-After and x-ratelimit-* headers). */
  /** `signal`: the caller's; a cold key's call waiting for its probe stops waiting when it fires. */
  async admit(caller: ProjectPrincipal, signal?: AbortSignal): Promise<Admission> {
    const limits = await this.limitsOf(caller);
    const scopes = [
      { scope: `key:${keyCounterOf(caller)}`, values: limits.key, who: 'this API key' },
      { scope: 'project', values: limits.project, who: 'this project' },
    ];
    const { projectId } = caller;
    if (!hasAnyLimit(limits.key) && !hasAnyLimit(limits.project))
      return this.counted(
        projectId,
        scopes.map((s) => s.scope),
      );
    this.lastLimitedMs = Date.now();

    for (const { scope, values, who } of scopes) {
      if (values.tokensPerDay === null) continue;
      const { used, resetSeconds } = await this.counters.used(projectId, `${scope}:tpd`, DAY);
      if (used >= values.tokensPerDay) throw tooMany(`Token limit reached: ${values.tokensPerDay} tokens per day for ${who}`, resetSeconds);
    }

    // Budgets reserve the call's expected cost first (docs/usage.md, "Budgets"); given back if another limit refuses.
    const budget = await this.budgets.reserve(projectId, keyCounterOf(caller), scopes, Date.now(), signal);
    let rate: { headers: Record<string, string>; entered: string[] };
    try {
      rate = await this.admitRate(projectId, scopes);
    } catch (err) {
      budget.release();
      throw err;
    }

    let released = false;
    return {
      headers: { ...rate.headers, ...budget.headers },
      release: (tokens = 0) => {
        if (released) return;
        released = true;
        budget.release();
        for (const s of rate.entered) this.leases.leave(projectId, s);
        for (const { scope } of scopes) this.counters.add(projectId, `${scope}:tpd`, DAY, tokens);
      },
    };
  }

  /** Requests per minute, then concurrency: the x-ratelimit-* headers and the concurrency slots entered. */
  private async admitRate(
    projectId: string,
    scopes: Array<{ scope: string; values: LimitValues; who: string }>,
  ): Promise<{ headers: Record<string, string>; entered: string[] }> {
    const taken: string[] = [];
    let headers: Record<string, string> = {};
    let tightest = Infinity;
    for (const { scope, values, who } of scopes) {
      if (values.requestsPerMinute === null) {
        // Counted anyway: a limit set meanwhile on another instance finds this call in the window.
        this.counters.add(projectId, `${scope}:rpm`, MINUTE, 1);
        continue;
      }
      const result = await this.counters.take(projectId, `${scope}:rpm`, MINUTE, values.requestsPerMinute);
      const rate = {
        'x-ratelimit-limit': String(values.requestsPerMinute),
        'x-ratelimit-remaining': String(Math.max(0, values.requestsPerMinute - result.used)),
        'x-ratelimit-reset': String(result.resetSeconds),
      };
      if (!result.ok) {
        for (const s of taken) this.counters.untake(projectId, s, MINUTE);
        throw tooMany(`Rate limit reached: ${values.requestsPerMinute} requests per minute for ${who}`, result.resetSeconds, rate);
      }
      taken.push(`${scope}:rpm`);
      if (values.requestsPerMinute - result.used < tightest) {
        tightest = values.requestsPerMinute - result.used;
        headers = rate;
      }
    }

    const entered: string[] = [];
    for (const { scope, values, who } of scopes) {
      if (values.concurrentInvokes === null) continue;
      if (!(await this.leases.tryEnter(projectId, scope, values.concurrentInvokes))) {
        for (const s of entered) this.leases.leave(projectId, s);
        throw tooMany(`Concurrency limit reached: ${values.concurrentInvokes} invokes at a time for ${who}`, 1, headers);
      }
      entered.push(scope);
    }
    return { headers, entered };
  }

  /**
   * A call's cost, as its request log stores it, charged to its key's and project's budgets
   * (counted whether or not a budget is set, like tokens); an unpriced call (null) is not charged.
   */
  charge(caller: Pick<ProjectPrincipal, 'projectId' | 'keyId'>, costUsd: string | null, answered: boolean): void {
    this.budgets.charge(caller.projectId, keyCounterOf(caller), costUsd, answered);
  }

  /** Budgets and spend of the project and of some of its keys (their effective budgets), for the admin API. */
  async budgetStateOf(
    projectId: string,
    keyIds: string[],
  ): Promise<{ project: Record<'day' | 'month', BudgetPeriodState>; keys: Array<Record<'day' | 'month', BudgetPeriodState>> }> {
    // The project's limits do not depend on the key asked with.
    const subjects = [{ scope: 'project', values: (await this.limitsOf({ projectId, keyId: '' })).project }];
    for (const keyId of keyIds) subjects.push({ scope: `key:${keyId}`, values: (await this.limitsOf({ projectId, keyId })).key });
    const [project, ...keys] = await this.budgets.stateOf(projectId, subjects);
    return { project, keys };
  }

  /** A call of a project without limits: counted (requests now, tokens when it ends), never refused. */
  private counted(projectId: string, scopes: string[]): Admission {
    for (const scope of scopes) this.counters.add(projectId, `${scope}:rpm`, MINUTE, 1);
    let released = false;
    return {
      headers: {},
      release: (tokens = 0) => {
        if (released) return;
        released = true;
        for (const scope of scopes) this.counters.add(projectId, `${scope}:tpd`, DAY, tokens);
      },
    };
  }

  private async tick(): Promise<void> {
    await this.counters.sync();
    await this.leases.exchange(Date.now() - this.lastLimitedMs < 10_000);
    // About once a minute: forget windows and instances long gone.
    if (++this.ticks % 600 === 0) await this.repo.deleteExpired().catch(() => undefined);
  }
}
