import { useState } from 'react';
import { Checkbox, CheckboxGroup, Label } from 'react-aria-components';
import { Link } from 'react-router';

import type { Version } from '../../api/client';
import { Button } from '../../components/button';
import { ErrorNote } from '../../components/ui';
import { ModelField, ProviderField } from './parameter-controls';
import { addModel, type Column, type ModelChoice, modelLabel, type RunStats, statsText } from './playground-compare';

/** One column's run: the streamed answer, then the figures of its log. */
export interface Output {
  text: string;
  tools: { name: string; args: string }[];
  error: unknown;
  running: boolean;
  threadId: string | null;
  logId: string | null;
  /** The variables this column sent (its version's own only). */
  sent: string[] | null;
  stats: RunStats | null;
}
export const IDLE: Output = { text: '', tools: [], error: null, running: false, threadId: null, logId: null, sent: null, stats: null };

/** What to run beside the draft: saved versions as they are, and the draft on other providers and models. */
export function ComparePicker({
  versions,
  chosen,
  onChosen,
  models,
  onModels,
  provider,
}: {
  versions: Version[];
  chosen: number[];
  onChosen: (versions: number[]) => void;
  models: ModelChoice[];
  onModels: (models: ModelChoice[]) => void;
  /** The draft's provider: where a new model starts. */
  provider: string;
}) {
  const [next, setNext] = useState<ModelChoice>({ provider, model: '' });
  return (
    <fieldset className="compare-picker">
      <legend>Compare side by side (same messages and variables)</legend>
      <CheckboxGroup value={chosen.map(String)} onChange={(values) => onChosen(values.map(Number))} className="field">
        <Label>Saved versions, as they are</Label>
        {versions.map((v) => (
          <Checkbox key={v.version} value={String(v.version)} className="checkbox">
            <span className="box" aria-hidden="true" />
            saved v{v.version}{' '}
            <span className="muted small">
              {v.provider}/{v.model}
            </span>
          </Checkbox>
        ))}
      </CheckboxGroup>
      <p className="field-label">The draft on another model</p>
      <div className="row">
        <ProviderField label="Compare on provider" value={next.provider} onChange={(p) => setNext({ ...next, provider: p })} />
        <ModelField label="Compare on model" provider={next.provider} value={next.model} onChange={(m) => setNext({ ...next, model: m })} />
        <Button
          tone="secondary"
          isDisabled={!next.provider.trim() || !next.model.trim()}
          onPress={() => {
            onModels(addModel(models, next));
            setNext({ ...next, model: '' });
          }}
        >
          Add this model
        </Button>
      </div>
      {models.length > 0 ? (
        <ul className="plain compared-models" aria-label="Models compared">
          {models.map((m) => (
            <li key={modelLabel(m)}>
              <span>Draft on {modelLabel(m)}</span>{' '}
              <Button
                tone="secondary"
                small
                aria-label={`Remove ${modelLabel(m)} from the comparison`}
                onPress={() => onModels(models.filter((other) => modelLabel(other) !== modelLabel(m)))}
              >
                Remove
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
    </fieldset>
  );
}

/** The columns side by side: each one's answer as it streams, the variables it sent, then latency, tokens and cost. */
export function ResultColumns({ columns, outputs }: { columns: Column[]; outputs: Record<string, Output> }) {
  return (
    <section aria-labelledby="results" className="results">
      <h2 id="results">{columns.length > 1 ? `Results side by side (${columns.length})` : 'Result'}</h2>
      <div className="compare-grid">
        {columns.map((column) => (
          <RunOutput key={column.id} column={column} output={outputs[column.id] ?? IDLE} />
        ))}
      </div>
    </section>
  );
}

function RunOutput({ column, output }: { column: Column; output: Output }) {
  const what =
    column.kind === 'version'
      ? `v${column.version.version} as saved: ${column.version.provider}/${column.version.model}`
      : column.kind === 'model'
        ? "the draft's template and parameters"
        : 'everything the draft holds';
  const figures = output.stats ? statsText(output.stats) : null;
  return (
    <section aria-label={`${column.title} output`} className="output column">
      <h3>{column.title}</h3>
      <p className="muted small">{what}</p>
      <ErrorNote error={output.error} />
      <div className="bubble assistant" aria-live="polite" aria-busy={output.running}>
        {output.text || (output.running ? '…' : <span className="muted">Run to see the answer.</span>)}
      </div>
      {output.tools.map((tool, i) => (
        <div key={i} className="tool-call">
          <span className="muted">calls</span> <code>{tool.name}</code>
          <pre className="code small">{tool.args}</pre>
        </div>
      ))}
      {output.sent ? (
        <p className="small">
          <span className="muted">Variables sent: </span>
          {output.sent.length ? output.sent.join(', ') : 'none'}
        </p>
      ) : null}
      {figures ? (
        <dl className="facts small" aria-label={`${column.title} figures`}>
          <dt>Served by</dt>
          <dd>{output.stats!.served}</dd>
          <dt>Latency</dt>
          <dd>{figures.latency}</dd>
          <dt>Tokens</dt>
          <dd>{figures.tokens}</dd>
          <dt>Cost</dt>
          <dd>{figures.cost}</dd>
        </dl>
      ) : null}
      {output.logId && !output.running ? <Link to={`/logs/${output.logId}`}>Its log</Link> : null}
    </section>
  );
}
