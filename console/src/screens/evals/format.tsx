import { Link } from 'react-router';

import { contentText } from '../../components/chat';
import { Badge } from '../../components/ui';
import type { DatasetItem, Run, RunItem } from './queries';

/** A score in [0, 1], two decimals; a dash when nothing was graded. */
export const score = (value: number | null | undefined) => (value === null || value === undefined ? '—' : value.toFixed(2));

export const percent = (value: number | null | undefined) => (value === null || value === undefined ? '—' : `${Math.round(value * 100)} %`);

/** Dollars, to the millionth, without trailing zeros. */
export const usd = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : `$${value.toFixed(6).replace(/\.?0+$/, '') || '0'}`;

/** What a run measured: a saved version (and the environment it was live in), or a draft. */
export function targetLabel(target: Run['target']): string {
  const t = target as { type?: string; prompt?: string | null; version?: number; environment?: string };
  if (t.type === 'version') return `${t.prompt} v${t.version}${t.environment ? ` (live in ${t.environment})` : ''}`;
  return t.prompt ? `draft of ${t.prompt}` : 'draft';
}

/** The expected output as the item holds it: text, or JSON shown as JSON. */
export const expectedText = (expected: unknown) =>
  expected === null || expected === undefined ? '' : typeof expected === 'string' ? expected : JSON.stringify(expected);

/** A run item's answer: its text, and the tools it called. */
export function outputText(output: RunItem['output']): string {
  const o = output as { text?: string; toolCalls?: { name: string; arguments: string }[] } | null;
  if (!o) return '';
  const calls = (o.toolCalls ?? []).map((call) => `→ ${call.name}(${call.arguments})`);
  return [o.text ?? '', ...calls].filter(Boolean).join('\n');
}

/** A run's status as a pill: completed ok, failed or cancelled danger, queued or running still going. */
export function StatusBadge({ status }: { status: string }) {
  const tone =
    status === 'completed'
      ? 'ok'
      : status === 'failed' || status === 'cancelled'
        ? 'danger'
        : status === 'running' || status === 'queued'
          ? 'warn'
          : undefined;
  return <Badge tone={tone}>{status}</Badge>;
}

/** What a dataset item asks: its last message and its variables (as text). */
export function ItemInput({ item }: { item: DatasetItem | undefined }) {
  if (!item) return <span className="muted">(item not shown)</span>;
  const last = [...item.messages].reverse()[0] as { role?: string; content?: unknown } | undefined;
  const variables = Object.entries(item.variables);
  return (
    <div className="item-input">
      {last ? <div>{contentText(last.content)}</div> : <span className="muted">no messages</span>}
      {variables.length ? <div className="muted small">{variables.map(([k, v]) => `${k}=${v}`).join(', ')}</div> : null}
    </div>
  );
}

/** Each grader's score on one item, passed or not, with its reason. */
export function Scores({ scores }: { scores: RunItem['scores'] }) {
  return (
    <ul className="scores">
      {scores.map((s) => (
        <li key={s.grader} className={s.passed ? 'success' : 'error-text'}>
          <strong>{s.grader}</strong> {score(s.score)} {s.passed ? '✓ passed' : '✗ failed'}
          <span className="muted small"> — {s.reason}</span>
        </li>
      ))}
    </ul>
  );
}

/** One run item's answer (or error), its scores and a link to its call's log. */
export function ItemResult({ item }: { item: RunItem }) {
  return (
    <div className="item-result">
      {item.status === 'error' ? (
        <p className="error-text">Call failed: {item.error}</p>
      ) : (
        <div className="bubble assistant">{outputText(item.output) || <span className="muted">(empty answer)</span>}</div>
      )}
      <Scores scores={item.scores} />
      <p className="muted small">
        {item.latencyMs} ms · {(item.promptTokens ?? 0) + (item.completionTokens ?? 0)} tokens · {usd(item.costUsd)}
        {item.logId ? (
          <>
            {' · '}
            <Link to={`/logs/${item.logId}`}>log of this call</Link>
          </>
        ) : null}
      </p>
    </div>
  );
}
