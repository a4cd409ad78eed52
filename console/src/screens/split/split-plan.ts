// The schema alone (not the client): the browser test imports this file's formatting to check the screen.
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

/** What the split screen reads and sends (docs/experiments.md, "Splits" and "Per-arm results"). */
export type Deployment = Schemas['DeploymentDto'];
export type DeployBody = Schemas['DeployDto'];
export type Results = Schemas['ExperimentResultsDto'];
export type ArmResult = Results['arms'][number];
export type Verdict = Results['verdicts'][number];
export type ArmFeedback = ArmResult['feedback'][number];
type Rule = NonNullable<Deployment['rules']>[number];

/** An arm as the form holds it: what was typed, checked by `armProblems` before it is sent. */
export interface DraftArm {
  version: string;
  weight: string;
}

export type StickyKind = 'thread' | 'user' | 'metadata' | 'none';
export interface DraftSticky {
  kind: StickyKind;
  /** The metadata field, with `kind` metadata. */
  key: string;
}

/** The server's limits on a split (src/registry/deployments/split.ts), checked here to say what is wrong before sending. */
export const MAX_ARMS = 10;
export const MAX_WEIGHT = 10_000;
const WEIGHT = /^(0|[1-9][0-9]{0,4})$/;
const METADATA_KEY = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** Each problem of the arms as typed, one sentence each; none: the split can be sent. */
export function armProblems(arms: readonly DraftArm[], sticky: DraftSticky): string[] {
  const problems: string[] = [];
  if (arms.length === 0) problems.push('Add at least one arm.');
  if (arms.length > MAX_ARMS) problems.push(`A split has at most ${MAX_ARMS} arms.`);
  arms.forEach((arm, index) => {
    if (!arm.version) problems.push(`Arm ${index + 1}: choose a version.`);
    if (!WEIGHT.test(arm.weight.trim()) || Number(arm.weight) > MAX_WEIGHT)
      problems.push(`Arm ${index + 1}: the weight is a whole number from 0 to ${MAX_WEIGHT}.`);
  });
  const seen = new Set<string>();
  for (const arm of arms) {
    if (arm.version && seen.has(arm.version)) problems.push(`v${arm.version} is in more than one arm: each version once.`);
    seen.add(arm.version);
  }
  if (arms.length > 0 && arms.every((arm) => WEIGHT.test(arm.weight.trim()) && Number(arm.weight) === 0))
    problems.push('At least one arm needs a weight above 0.');
  if (sticky.kind === 'metadata' && !METADATA_KEY.test(sticky.key.trim()))
    problems.push('The metadata field: a letter or "_" first, then letters, digits, "_", "." or "-" (at most 64).');
  return [...new Set(problems)];
}

export function stickyByOf(sticky: DraftSticky): string {
  return sticky.kind === 'metadata' ? `metadata.${sticky.key.trim()}` : sticky.kind;
}

export function draftStickyOf(stickyBy: string | null | undefined): DraftSticky {
  if (stickyBy?.startsWith('metadata.')) return { kind: 'metadata', key: stickyBy.slice('metadata.'.length) };
  if (stickyBy === 'user' || stickyBy === 'none') return { kind: stickyBy, key: '' };
  return { kind: 'thread', key: '' };
}

/**
 * The body of a new split from the form. The form does not edit rules: the current split's rules
 * whose version stays an arm are kept (the server refuses a rule naming a version that is not an arm).
 */
export function splitBody(
  environment: string,
  arms: readonly DraftArm[],
  sticky: DraftSticky,
  current: Deployment | undefined,
): DeployBody {
  const split = arms.map((arm) => ({ version: Number(arm.version), weight: Number(arm.weight) }));
  const versions = new Set(split.map((arm) => arm.version));
  const rules = (current?.rules ?? []).filter((rule) => versions.has(rule.version));
  // Guards are kept as they are: the form does not edit them (docs/console.md, "Splits").
  const guards = current?.split ? (current.guards ?? []) : [];
  return { environment, split, stickyBy: stickyByOf(sticky), ...(rules.length ? { rules } : {}), ...(guards.length ? { guards } : {}) };
}

/** The rules `splitBody` would drop: their version is no longer an arm. */
export function droppedRules(arms: readonly DraftArm[], current: Deployment | undefined): Rule[] {
  const versions = new Set(arms.map((arm) => Number(arm.version)));
  return (current?.rules ?? []).filter((rule) => !versions.has(rule.version));
}

/**
 * "Stop": the same split, the arm's weight at 0 (docs/experiments.md, "Splits"). Everything else of
 * the current deployment is sent as it is, so stopping an arm changes nothing but its weight.
 */
export function stopBody(current: Deployment, version: number): DeployBody {
  const split = (current.split ?? []).map((arm) => (arm.version === version ? { ...arm, weight: 0 } : arm));
  return {
    environment: current.environment,
    split,
    ...(current.stickyBy ? { stickyBy: current.stickyBy } : {}),
    ...(current.rules?.length ? { rules: current.rules } : {}),
    ...(current.guards?.length ? { guards: current.guards } : {}),
  };
}

/** "Promote": a plain deployment of the arm's version; the split ends (it stays in the history). */
export const promoteBody = (environment: string, version: number): DeployBody => ({ environment, version });

/**
 * What the form starts with: the current split; or, on a plain deployment, its version against the
 * newest other version, 50/50; or, with nothing deployed, the newest version alone.
 */
export function initialArms(current: Deployment | undefined, versions: readonly number[]): DraftArm[] {
  if (current?.split?.length) return current.split.map((arm) => ({ version: String(arm.version), weight: String(arm.weight) }));
  const newest = [...versions].sort((a, b) => b - a);
  if (current) {
    const other = newest.find((v) => v !== current.version);
    return other === undefined
      ? [{ version: String(current.version), weight: '100' }]
      : [
          { version: String(current.version), weight: '50' },
          { version: String(other), weight: '50' },
        ];
  }
  return newest.length ? [{ version: String(newest[0]), weight: '100' }] : [{ version: '', weight: '100' }];
}

/** An arm's share of the calls the weights send: its weight over the total (rules aside). */
export function shareText(weight: number, total: number): string {
  if (total <= 0) return '—';
  return `${trim((weight / total) * 100, 1)} %`;
}

/** A number with at most `digits` decimals, without trailing zeros. */
function trim(value: number, digits: number): string {
  const text = value.toFixed(digits).replace(/\.?0+$/, '');
  return text === '-0' ? '0' : text;
}

const points = (share: number) => `${trim(share * 100, 1)} %`;

/** An error rate and its 95 % interval: "1.2 % (95 % CI 0.4–3.1 %)". */
export function errorRateText(arm: ArmResult): string {
  if (arm.errorRate === null) return '—';
  const interval = arm.errorRateInterval;
  return `${points(arm.errorRate)}${interval ? ` (95 % CI ${trim(interval.low * 100, 1)}–${points(interval.high)})` : ''}`;
}

/** USD with three significant digits, in plain notation: $0.0000597. */
export function costText(usd: string | null): string {
  if (usd === null) return '—';
  return `$${Number(usd).toLocaleString('en-US', { maximumSignificantDigits: 3, useGrouping: false })}`;
}

export const latencyText = (ms: number | null) => (ms === null ? '—' : `${ms} ms`);

/** A feedback name's figures on one arm: the mean and its 95 % interval, or a category's counts. */
export function feedbackText(f: ArmFeedback): string {
  const many = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  if (f.kind === 'category' || f.mean === null) {
    const counts = Object.entries(f.categories).map(([category, count]) => `${category} ${count}`);
    return counts.length ? counts.join(' · ') : many(f.count, 'score');
  }
  if (f.kind === 'boolean') {
    const interval = f.interval ? ` (95 % CI ${trim(f.interval.low * 100, 1)}–${points(f.interval.high)})` : '';
    return `${points(f.mean)} true${interval}, ${many(f.n, 'score')}`;
  }
  const interval = f.interval ? ` ± ${significant((f.interval.high - f.interval.low) / 2)}` : '';
  return `mean ${significant(f.mean)}${interval}, ${many(f.n, 'score')}`;
}

const significant = (value: number) => Number(value.toPrecision(3)).toString();

/** Whether a verdict compares shares (the error rate, or true/false scores on both arms): shown in points. */
export function isShare(verdict: Verdict, arms: readonly ArmResult[]): boolean {
  if (verdict.metric === 'error_rate') return true;
  const kinds = [verdict.version, verdict.control].map(
    (version) => arms.find((arm) => arm.version === version)?.feedback.find((f) => f.name === verdict.name)?.kind,
  );
  return kinds.every((kind) => kind === 'boolean');
}

/** A difference without a verdict yet: "+2.1 points (95 % interval -0.4 to +4.6)", or a mean's difference. */
export function differenceText(verdict: Verdict, share: boolean): string | null {
  const d = verdict.difference;
  if (!d) return null;
  const signed = (value: number) => {
    const text = share ? trim(value * 100, 1) : significant(value);
    return `${value > 0 ? '+' : ''}${text}`;
  };
  return `${signed(d.estimate)}${share ? ' points' : ''} (95 % interval ${signed(d.low)} to ${signed(d.high)})`;
}
