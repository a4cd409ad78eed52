// The schema alone (not the client): test/console-playground.spec.ts imports this file without a browser.
import type { components } from '../../api/schema';
import { runBody, savedRunBody } from './playground-draft';

type Version = components['schemas']['VersionDto'];
type RequestLogDetail = components['schemas']['RequestLogDetailDto'];

/**
 * What the playground runs side by side on the same input: the draft, saved versions as they are,
 * and the draft on other providers and models. Pure: the screen streams each column's body.
 */
export type Column =
  | { kind: 'draft'; id: 'draft'; title: string }
  | { kind: 'version'; id: string; title: string; version: Version }
  | { kind: 'model'; id: string; title: string; provider: string; model: string };

export interface ModelChoice {
  provider: string;
  model: string;
}

export const modelLabel = (choice: ModelChoice) => `${choice.provider}/${choice.model}`;

/** The draft's column first, then the saved versions chosen (newest first, as listed), then the models in the order added. */
export function columnsOf(versions: readonly Version[], chosen: readonly number[], models: readonly ModelChoice[]): Column[] {
  return [
    { kind: 'draft', id: 'draft', title: 'Draft' },
    ...versions
      .filter((v) => chosen.includes(v.version))
      .map((version): Column => ({ kind: 'version', id: `v${version.version}`, title: `Saved v${version.version}`, version })),
    ...models.map((m): Column => ({ kind: 'model', id: `m:${modelLabel(m)}`, title: `Draft on ${modelLabel(m)}`, ...m })),
  ];
}

/** A model to add, unless it is blank or already compared. */
export function addModel(models: readonly ModelChoice[], choice: ModelChoice): ModelChoice[] {
  const next = { provider: choice.provider.trim(), model: choice.model.trim() };
  if (!next.provider || !next.model || models.some((m) => modelLabel(m) === modelLabel(next))) return [...models];
  return [...models, next];
}

type DraftBody = ReturnType<typeof runBody>;

/**
 * The invoke body of one column. The draft's; a saved version's with only the variables it
 * declares (savedRunBody); the draft's on another provider and model, the provider named only when
 * it is not the base version's (a key limited to some environments may not name another).
 */
export function columnBody(column: Column, draftBody: DraftBody, typed: Record<string, string>, base: Version | null): object {
  if (column.kind === 'draft') return draftBody;
  if (column.kind === 'version') return savedRunBody(draftBody, typed, column.version);
  const { provider: _provider, ...rest } = draftBody as DraftBody & { provider?: string };
  return { ...rest, model: column.model, ...(column.provider !== (base?.provider ?? '') ? { provider: column.provider } : {}) };
}

/** The names of the variables a body sends, for the column's caption. */
export const sentVariables = (body: object) => Object.keys((body as { variables?: object }).variables ?? {}).sort();

/** What a column shows under its answer, from the call's log. */
export interface RunStats {
  latencyMs: number;
  ttftMs: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  costUsd: string | null;
  served: string;
}

export function statsOf(log: RequestLogDetail): RunStats {
  return {
    latencyMs: log.latencyMs,
    ttftMs: log.timeToFirstTokenMs,
    promptTokens: log.usage.prompt_tokens,
    completionTokens: log.usage.completion_tokens,
    costUsd: log.costUsd,
    served: `${log.version ? `v${log.version} · ` : ''}${log.provider ?? '?'}/${log.model ?? '?'}`,
  };
}

/** "1,234 ms", "$0.00042", "no price known": the figures as a person reads them. */
export function statsText(stats: RunStats): { latency: string; tokens: string; cost: string } {
  const n = (value: number | null) => (value === null ? '—' : value.toLocaleString('en-US'));
  return {
    latency: `${n(stats.latencyMs)} ms${stats.ttftMs !== null ? ` (first token ${n(stats.ttftMs)} ms)` : ''}`,
    tokens: `${n(stats.promptTokens)} in, ${n(stats.completionTokens)} out`,
    cost: stats.costUsd === null ? 'no price known' : `$${stats.costUsd}`,
  };
}
