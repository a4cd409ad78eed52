import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';

import { api, type Schemas, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { TextInput } from '../../components/fields';
import { ErrorNote, Loading } from '../../components/ui';

const FIELDS = [
  ['requestsPerMinute', 'Invokes per minute'],
  ['concurrentInvokes', 'Concurrent invokes'],
  ['tokensPerDay', 'Tokens per day'],
  // Budgets in USD (docs/usage.md, "Budgets"): on the same form, so saving it keeps them.
  ['budgetUsdPerDay', 'Budget USD per UTC day'],
  ['budgetUsdPerMonth', 'Budget USD per UTC month'],
] as const;
type Values = Record<(typeof FIELDS)[number][0], string>;

const toValues = (limits: Schemas['LimitsDto']): Values =>
  Object.fromEntries(FIELDS.map(([name]) => [name, limits[name] === null ? '' : String(limits[name])])) as Values;

function toLimits(values: Values): Schemas['LimitValuesDto'] | null {
  const entries = FIELDS.map(([name]) => [name, values[name].trim() === '' ? null : Number(values[name])] as const);
  return entries.every(([, v]) => v === null) ? null : Object.fromEntries(entries);
}

/** The project's limits and budgets, and the default of each key (docs/security.md, "Limits"); empty means no limit. */
export function LimitsPanel({ workspace, project }: { workspace: string; project: string }) {
  const path = { workspace, project };
  const queryKey = ['limits', workspace, project];
  const limits = useQuery({
    queryKey,
    queryFn: () => unwrap(api.GET('/v2/workspaces/{workspace}/projects/{project}/limits', { params: { path } })),
  });
  if (limits.isPending) return <Loading />;
  if (limits.error) return <ErrorNote error={limits.error} />;
  return <LimitsForm key={JSON.stringify(limits.data)} path={path} queryKey={queryKey} current={limits.data} />;
}

function LimitsForm({
  path,
  queryKey,
  current,
}: {
  path: { workspace: string; project: string };
  queryKey: string[];
  current: Schemas['ProjectLimitsDto'];
}) {
  const [project, setProject] = useState(toValues(current.project));
  const [keys, setKeys] = useState(toValues(current.keys));
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/v2/workspaces/{workspace}/projects/{project}/limits', {
          params: { path },
          body: { project: toLimits(project), keys: toLimits(keys) },
        }),
      ),
    onSuccess: () => void client.invalidateQueries({ queryKey }),
  });
  return (
    <section aria-labelledby="limits">
      <h2 id="limits">Limits</h2>
      <Form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        {(
          [
            ['Whole project', project, setProject],
            ['Each key (default)', keys, setKeys],
          ] as const
        ).map(([title, values, set]) => (
          <fieldset key={title} className="row">
            <legend>{title}</legend>
            {FIELDS.map(([name, label]) => (
              <TextInput
                label={`${label} (${title.toLowerCase()})`}
                key={name}
                value={values[name]}
                onChange={(v) => set({ ...values, [name]: v })}
                inputMode="decimal"
                placeholder="no limit"
              />
            ))}
          </fieldset>
        ))}
        <Button type="submit" isDisabled={save.isPending}>
          Save limits
        </Button>
        {save.isSuccess ? <span role="status"> Saved.</span> : null}
        <ErrorNote error={save.error} />
      </Form>
    </section>
  );
}
