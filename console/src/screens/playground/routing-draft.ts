// The schema alone (not the client): test/console-playground.spec.ts imports this file without a browser.
import type { components } from '../../api/schema';

type Schemas = components['schemas'];
type Version = Schemas['VersionDto'];

/** A version's routing block (docs/routing.md, "The routing block"), as the API takes it. */
export type Routing = NonNullable<Schemas['CreateVersionDto']['routing']>;
export type RoutingStrategy = Routing['strategy'];
export type ResponseCache = NonNullable<Version['cache']>;

export const STRATEGIES: readonly { id: RoutingStrategy; label: string }[] = [
  { id: 'priority', label: 'Priority (in order)' },
  { id: 'weighted', label: 'Weighted' },
  { id: 'least-latency', label: 'Least latency' },
];

/** What may fall back to the next target (the caller's own 4xx never does); the API's default is all five. */
export const FALLBACK_REASONS = [
  { id: 'rate_limit', label: 'Rate limited (429)' },
  { id: 'server_error', label: 'Server error (5xx, overloaded)' },
  { id: 'timeout', label: 'Timeout' },
  { id: 'connection', label: 'Connection failure' },
  { id: 'first_token_timeout', label: 'No first token in time' },
] as const;
export type FallbackReason = (typeof FALLBACK_REASONS)[number]['id'];

/** One target as the editor shows it: text fields, checked when the version is saved. */
export interface TargetDraft {
  provider: string;
  model: string;
  weight: string;
  parameters: string;
}

export interface RoutingDraft {
  strategy: RoutingStrategy;
  targets: TargetDraft[];
  fallbackOn: FallbackReason[];
  firstTokenTimeoutMs: string;
}

export const newTarget = (provider = 'local', model = 'echo'): TargetDraft => ({ provider, model, weight: '', parameters: '{}' });

/** A routing block to start from: the version's own provider and model as its only target. */
export const newRouting = (provider: string, model: string): RoutingDraft => ({
  strategy: 'priority',
  targets: [newTarget(provider, model)],
  fallbackOn: FALLBACK_REASONS.map((reason) => reason.id),
  firstTokenTimeoutMs: '',
});

export function routingDraftOf(routing: Version['routing']): RoutingDraft | null {
  if (!routing) return null;
  return {
    strategy: routing.strategy,
    targets: routing.targets.map((t) => ({
      provider: t.provider,
      model: t.model,
      weight: t.weight === undefined ? '' : String(t.weight),
      parameters: JSON.stringify(t.parameters ?? {}),
    })),
    fallbackOn: [...routing.fallbackOn],
    firstTokenTimeoutMs: routing.firstTokenTimeoutMs === undefined ? '' : String(routing.firstTokenTimeoutMs),
  };
}

function number(text: string, field: string): number | undefined {
  if (text.trim() === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new Error(`${field} is not a number`);
  return value;
}

/** The block the API takes, or an Error naming the field; the API checks the rest (providers, what a target can honour). */
export function routingBody(draft: RoutingDraft): Routing {
  const firstTokenTimeoutMs = number(draft.firstTokenTimeoutMs, 'First token timeout');
  return {
    strategy: draft.strategy,
    targets: draft.targets.map((target, index) => {
      let parameters: unknown;
      try {
        parameters = JSON.parse(target.parameters || '{}');
      } catch {
        throw new Error(`Parameters of target ${index + 1} are not valid JSON`);
      }
      if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters))
        throw new Error(`Parameters of target ${index + 1} must be a JSON object`);
      // A weight is the weighted strategy's only: the API refuses one on the others.
      const weight = draft.strategy === 'weighted' ? number(target.weight, `Weight of target ${index + 1}`) : undefined;
      return {
        provider: target.provider.trim(),
        model: target.model.trim(),
        ...(weight === undefined ? {} : { weight }),
        ...(Object.keys(parameters).length > 0 ? { parameters: parameters as Routing['targets'][number]['parameters'] } : {}),
      };
    }),
    fallbackOn: FALLBACK_REASONS.map((reason) => reason.id).filter((id) => draft.fallbackOn.includes(id)),
    ...(firstTokenTimeoutMs === undefined ? {} : { firstTokenTimeoutMs }),
  };
}

/** The block as one line per fact (the diff, the version list). */
export function routingLines(routing: Version['routing'], cache: Version['cache']): string[] {
  const lines: string[] = [];
  if (routing) {
    lines.push(`routing: ${routing.strategy}`);
    for (const t of routing.targets)
      lines.push(
        `  target: ${t.provider}/${t.model}${t.weight === undefined ? '' : ` weight ${t.weight}`}${t.parameters ? ` ${JSON.stringify(t.parameters)}` : ''}`,
      );
    lines.push(`  fallbackOn: ${routing.fallbackOn.join(', ') || '(nothing)'}`);
    if (routing.firstTokenTimeoutMs !== undefined) lines.push(`  firstTokenTimeoutMs: ${routing.firstTokenTimeoutMs}`);
  }
  if (cache) lines.push(`cache: ttlSeconds ${cache.ttlSeconds}`);
  return lines;
}
