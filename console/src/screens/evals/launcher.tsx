import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Dialog, DialogTrigger, Form, Heading, type Key, ListBox, ListBoxItem, Modal } from 'react-aria-components';
import { useNavigate } from 'react-router';

import { api, type Schemas, unwrap, type Version } from '../../api/client';
import { Button } from '../../components/button';
import { Picker, TextInput } from '../../components/fields';
import { ErrorNote } from '../../components/ui';
import { score } from './format';
import { evalKeys, useDatasets, useGraders } from './queries';

type DraftContent = Extract<Schemas['CreateRunBodyDto']['target'], { draft: unknown }>['draft'];

/**
 * What an experiment runs: on the prompt page, a saved version or an environment's live version
 * (picked in the form); from the playground, the draft as it is (`draft()` throws when a JSON
 * field of the draft is invalid, and the form says so).
 */
export type LaunchTarget =
  | { prompt: string; versions: Version[]; deployments: { environment: string; version: number }[] }
  | { prompt: string; draft: () => DraftContent };

/** "Run an experiment": a dialog that starts a run (`POST /v2/evals/runs`) and opens its screen. */
export function ExperimentLauncher({ target, label = 'Run an experiment' }: { target: LaunchTarget; label?: string }) {
  return (
    <DialogTrigger>
      <Button>{label}</Button>
      <Modal className="modal" isDismissable>
        <Dialog className="dialog wide">{({ close }) => <LaunchForm target={target} close={close} />}</Dialog>
      </Modal>
    </DialogTrigger>
  );
}

function LaunchForm({ target, close }: { target: LaunchTarget; close: () => void }) {
  const datasets = useDatasets();
  const graders = useGraders();
  const navigate = useNavigate();
  const client = useQueryClient();
  const saved = 'versions' in target ? target : null;
  const choices = saved
    ? [
        ...saved.deployments.map((d) => ({ id: `env:${d.environment}`, label: `live in ${d.environment} (v${d.version})` })),
        ...saved.versions.map((v) => ({ id: `v:${v.version}`, label: `v${v.version}${v.message ? ` — ${v.message}` : ''}` })),
      ]
    : [];
  const datasetList = datasets.data?.pages.flatMap((page) => page.data) ?? [];
  const [what, setWhat] = useState('');
  const [dataset, setDataset] = useState('');
  const [chosen, setChosen] = useState<Set<Key> | null>(null);
  const [concurrency, setConcurrency] = useState('4');
  const [name, setName] = useState('');
  const pickedWhat = what || choices.find((c) => c.id.startsWith('v:'))?.id || '';
  const pickedDataset = dataset || datasetList[0]?.name || '';
  const graderNames = graders.data?.data.map((g) => g.name) ?? [];
  const pickedGraders = chosen ?? new Set<Key>(graderNames);

  const start = useMutation({
    mutationFn: () => {
      const runTarget: Schemas['CreateRunBodyDto']['target'] = saved
        ? pickedWhat.startsWith('env:')
          ? { prompt: target.prompt, environment: pickedWhat.slice(4) }
          : { prompt: target.prompt, version: Number(pickedWhat.slice(2)) }
        : { prompt: target.prompt, draft: (target as { draft: () => DraftContent }).draft() };
      return unwrap(
        api.POST('/v2/evals/runs', {
          body: {
            dataset: pickedDataset,
            target: runTarget,
            graders: graderNames.filter((g) => pickedGraders.has(g)),
            concurrency: Number(concurrency) || 4,
            ...(name.trim() ? { name: name.trim() } : {}),
            metadata: { source: 'console' },
          },
        }),
      );
    },
    onSuccess: (run) => {
      void client.invalidateQueries({ queryKey: evalKeys.runs });
      close();
      navigate(`/evals/runs/${run.id}`);
    },
  });

  const missing = !pickedDataset
    ? 'Create a dataset first (Datasets).'
    : graderNames.length === 0
      ? 'Create a grader first (Graders).'
      : pickedGraders.size === 0
        ? 'Pick at least one grader.'
        : null;
  return (
    <Form
      onSubmit={(event) => {
        event.preventDefault();
        if (!missing) start.mutate();
      }}
    >
      <Heading slot="title">
        {saved ? `Run an experiment on ${target.prompt}` : `Run an experiment on this draft of ${target.prompt}`}
      </Heading>
      <p className="muted small">
        Every item of the dataset is sent to {saved ? 'the version' : 'the draft'} (its calls are logged under their own environment, with
        the project&apos;s limits and budgets), and each answer graded. The run goes on in the background; its page follows it.
      </p>
      {saved ? (
        <Picker label="Run" placeholder="Choose what to run" items={choices} value={pickedWhat} onChange={setWhat} />
      ) : (
        <p>Runs the draft as it is now in the editor (template, provider, model, parameters, tools), without saving it.</p>
      )}
      <Picker
        label="Dataset"
        placeholder="Choose a dataset"
        items={datasetList.map((d) => ({ id: d.name, label: `${d.name} (v${d.version}, ${d.itemCount} items)` }))}
        value={pickedDataset}
        onChange={setDataset}
      />
      <p className="field-label" id="graders-label">
        Graders
      </p>
      {graderNames.length ? (
        <ListBox
          aria-labelledby="graders-label"
          selectionMode="multiple"
          selectedKeys={pickedGraders}
          onSelectionChange={(keys) => setChosen(keys === 'all' ? new Set(graderNames) : new Set(keys))}
          className="listbox inline"
        >
          {(graders.data?.data ?? []).map((g) => (
            <ListBoxItem key={g.name} id={g.name} className="option" textValue={g.name}>
              {({ isSelected }) => (
                <>
                  <span aria-hidden="true">{isSelected ? '☑' : '☐'}</span> {g.name}{' '}
                  <span className="small">
                    ({g.type}, passes at {score(g.threshold)})
                  </span>
                </>
              )}
            </ListBoxItem>
          ))}
        </ListBox>
      ) : null}
      <div className="row">
        <TextInput label="Concurrency (items at once, 1-64)" value={concurrency} onChange={setConcurrency} type="number" min={1} max={64} />
        <TextInput
          label="Name (optional)"
          value={name}
          onChange={setName}
          className="grow"
          placeholder="named after the target and dataset"
        />
      </div>
      {missing ? <p className="muted">{missing}</p> : null}
      <ErrorNote error={start.error ?? datasets.error ?? graders.error} />
      <div className="row end">
        <Button tone="secondary" onPress={close}>
          Cancel
        </Button>
        <Button type="submit" isDisabled={!!missing || start.isPending}>
          Start the run
        </Button>
      </div>
    </Form>
  );
}
