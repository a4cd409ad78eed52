import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';

import { api, type Schemas, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { Picker, TextInput } from '../../components/fields';
import { DataTable } from '../../components/table';
import { Card, ConfirmButton, EmptyState, ErrorNote, formatTime, Loading } from '../../components/ui';
import { parseField } from '../playground/playground-draft';
import { score } from './format';
import { evalKeys, type Grader, useGraders } from './queries';

type Config = Schemas['PutGraderBodyDto']['config'];

/** Each type's check, as the form starts it (without `type`), and what it does. */
const TYPES: Record<string, { example: object; help: string }> = {
  contains: { example: { ignoreCase: true }, help: 'the answer holds each of `values` (without values: the item’s expected output)' },
  equals: {
    example: { ignoreCase: true },
    help: 'the answer equals `value` (without it: the item’s expected output; JSON compared as JSON)',
  },
  regex: { example: { pattern: '^.{1,400}$' }, help: 'the answer matches the RE2 `pattern`' },
  json_schema: { example: { schema: { type: 'object', required: ['answer'] } }, help: 'the answer is JSON matching `schema`' },
  json_path: {
    example: { path: '$.status', value: 'ok' },
    help: 'the JSONPath `path` of the answer equals `value` (or the expected output)',
  },
  tool_call: { example: { name: 'get_weather' }, help: 'the answer calls the tool `name` (with `arguments` matching a JSON Schema)' },
  latency: { example: { maxMs: 5000 }, help: 'the call took at most `maxMs`' },
  cost: { example: { maxUsd: 0.01 }, help: 'the call cost at most `maxUsd`' },
  model: {
    example: { prompt: 'judge', environment: 'production', labels: { good: 1, bad: 0 } },
    help: 'a deployed judge prompt scores the answer (a label from `labels`, or a number divided by `maxScore`)',
  },
};
const configText = (type: string) => JSON.stringify(TYPES[type].example, null, 2);
const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Graders: name, type, the score that passes, the check; create one or edit one (`PUT /v2/graders/:name`). */
export function GradersScreen() {
  const graders = useGraders();
  const [editing, setEditing] = useState<Grader | null>(null);
  // A saved form starts afresh: a new key each time.
  const [saved, setSaved] = useState(0);
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: (name: string) => unwrap(api.DELETE('/v2/graders/{name}', { params: { path: { name } } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: evalKeys.graders }),
  });
  return (
    <>
      <h1>Graders</h1>
      <p className="muted">
        A grader scores each answer of an experiment from 0 to 1; the answer passes it at its threshold. A run keeps its graders as they
        were when it started.
      </p>
      <ErrorNote error={graders.error ?? remove.error} />
      {graders.isPending ? (
        <Loading />
      ) : graders.data && graders.data.data.length > 0 ? (
        <DataTable label="Graders" columns={['Name', 'Type', 'Passes at', 'Check', 'Changed', 'Actions']}>
          {graders.data.data.map((g) => {
            const { type: _type, ...check } = g.config;
            return (
              <tr key={g.id}>
                <td>{g.name}</td>
                <td>{g.type}</td>
                <td>{score(g.threshold)}</td>
                <td>
                  <code className="small">{JSON.stringify(check)}</code>
                </td>
                <td>{formatTime(g.updatedAt)}</td>
                <td>
                  <div className="row">
                    <Button tone="secondary" onPress={() => setEditing(g)} aria-label={`Edit ${g.name}`}>
                      Edit
                    </Button>
                    <ConfirmButton
                      label={`Delete ${g.name}`}
                      title={`Delete the grader ${g.name}?`}
                      confirmLabel="Delete"
                      danger
                      onConfirm={() => remove.mutate(g.name)}
                    >
                      <p>Runs that used it keep their scores; new runs can no longer name it.</p>
                    </ConfirmButton>
                  </div>
                </td>
              </tr>
            );
          })}
        </DataTable>
      ) : (
        <EmptyState title="No graders yet">
          <p>Create one below: a check of the answer (contains, regex, JSON Schema, a tool call, latency, cost) or a judge prompt.</p>
        </EmptyState>
      )}
      <GraderForm
        key={editing?.id ?? `new-${saved}`}
        editing={editing}
        onDone={() => {
          setEditing(null);
          setSaved((n) => n + 1);
        }}
      />
    </>
  );
}

function GraderForm({ editing, onDone }: { editing: Grader | null; onDone: () => void }) {
  const initialConfig = editing ? (({ type: _type, ...rest }) => JSON.stringify(rest, null, 2))(editing.config) : configText('contains');
  const [name, setName] = useState(editing?.name ?? '');
  const [type, setType] = useState<string>(editing?.type ?? 'contains');
  const [threshold, setThreshold] = useState(editing ? String(editing.threshold) : '');
  const [config, setConfig] = useState(initialConfig);
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: () => {
      const check = parseField<Record<string, unknown>>(config, 'Config', isObject);
      const body: Schemas['PutGraderBodyDto'] = {
        config: { ...check, type } as Config,
        ...(threshold.trim() !== '' ? { threshold: Number(threshold) } : {}),
      };
      return unwrap(api.PUT('/v2/graders/{name}', { params: { path: { name: name.trim() } }, body }));
    },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: evalKeys.graders });
      onDone();
    },
  });
  return (
    <Card title={editing ? `Edit ${editing.name}` : 'New grader'}>
      <Form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <div className="row">
          <TextInput label="Name" value={name} onChange={setName} isRequired isReadOnly={!!editing} placeholder="mentions-expected" />
          <Picker
            label="Type"
            placeholder="Choose a type"
            items={Object.keys(TYPES).map((t) => ({ id: t, label: t }))}
            value={type}
            onChange={(next) => {
              // A check still as the previous type's example is replaced by the new type's.
              if (config.trim() === '' || config === configText(type)) setConfig(configText(next));
              setType(next);
            }}
          />
          <TextInput
            label="Passes at (0-1, optional)"
            value={threshold}
            onChange={setThreshold}
            placeholder={type === 'model' ? '0.5' : '1'}
            inputMode="decimal"
          />
        </div>
        <p className="muted small">
          {type}: {TYPES[type]?.help}
        </p>
        <TextInput label="Config (JSON, without “type”)" value={config} onChange={setConfig} rows={6} json />
        <ErrorNote error={save.error} />
        <div className="row">
          <Button type="submit" isDisabled={save.isPending || !name.trim()}>
            {editing ? 'Save the grader' : 'Create the grader'}
          </Button>
          {editing ? (
            <Button tone="secondary" onPress={onDone}>
              Cancel
            </Button>
          ) : null}
        </div>
      </Form>
    </Card>
  );
}
