import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button, Input, Label, ListBox, ListBoxItem, Popover, Select, SelectValue, TextField } from 'react-aria-components';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';

import { api, unwrap } from '../api/client';
import { invokeStream } from '../api/stream';
import { CodeEditor } from '../components/code-editor';
import { ErrorNote, Loading } from '../components/ui';
import { useProject } from '../session';
import { ExperimentLauncher } from './evals/launcher';
import { declaredVariables, type Draft, draftContent, draftOf, EMPTY_DRAFT, inputFromLog, runBody, versionBody } from './playground-draft';
import { promptKey, useEnvironments, usePrompt, useVersions } from './prompt-queries';
import { TemplateEditor } from './template-editor';

interface Output {
  text: string;
  tools: { name: string; args: string }[];
  error: unknown;
  running: boolean;
  threadId: string | null;
}
const IDLE: Output = { text: '', tools: [], error: null, running: false, threadId: null };

/**
 * Edit a prompt's template and settings, run the draft without saving it (streamed), compare it
 * with a saved version on the same input, and save it as a new version. `?from=N` starts from
 * version N, `?log=<id>` from a logged call's version, variables and messages.
 */
export default function PlaygroundScreen() {
  const slug = useParams().slug!;
  const [params, setParams] = useSearchParams();
  const scope = useProject()!;
  const prompt = usePrompt(slug);
  const versions = useVersions(slug);
  const environments = useEnvironments();
  const logId = params.get('log');
  const log = useQuery({
    queryKey: ['log', logId],
    queryFn: () => unwrap(api.GET('/v2/logs/{logId}', { params: { path: { logId: logId! } } })),
    enabled: !!logId,
  });
  const fromParam = params.get('from') ?? (log.data?.version ? String(log.data.version) : null);
  const base = versions.data?.data.find((v) => String(v.version) === fromParam) ?? versions.data?.data[0] ?? null;

  const [draft, setDraft] = useState<Draft | null>(null);
  const [variables, setVariables] = useState<Record<string, string>>({});
  const [messages, setMessages] = useState('[\n  { "role": "user", "content": "Hello!" }\n]');
  const [environment, setEnvironment] = useState('');
  const [compareWith, setCompareWith] = useState('');
  const [output, setOutput] = useState<Output>(IDLE);
  const [compared, setCompared] = useState<Output>(IDLE);
  // `?thread=<id>` (from a thread's transcript): an assistant's runs continue that thread.
  const [threadId, setThreadId] = useState<string | null>(params.get('thread'));

  const ready = versions.isSuccess && (!logId || log.isSuccess);
  useEffect(() => {
    if (!ready || draft) return;
    setDraft(base ? draftOf(base) : EMPTY_DRAFT);
    if (log.data) {
      const input = inputFromLog(log.data);
      setVariables(input.variables);
      setMessages(input.messages);
    }
  }, [ready, draft, base, log.data]);
  useEffect(() => {
    const envs = environments.data?.data.map((e) => e.slug) ?? [];
    if (!environment && envs.length)
      setEnvironment(
        log.data?.environment && envs.includes(log.data.environment)
          ? log.data.environment
          : envs.includes('preview')
            ? 'preview'
            : envs[0],
      );
  }, [environments.data, environment, log.data]);

  const client = useQueryClient();
  const navigate = useNavigate();
  const save = useMutation({
    mutationFn: (d: Draft) => unwrap(api.POST('/v2/prompts/{slug}/versions', { params: { path: { slug } }, body: versionBody(d) })),
    onSuccess: (version) => {
      void client.invalidateQueries({ queryKey: promptKey(slug) });
      void client.invalidateQueries({ queryKey: ['prompts'] });
      setParams({ from: String(version.version), saved: '1' }, { replace: true });
      setDraft({ ...draft!, note: '' });
    },
  });

  if (prompt.isPending || versions.isPending || (logId && log.isPending) || !draft) return <Loading />;
  if (prompt.error || versions.error || log.error) return <ErrorNote error={prompt.error ?? versions.error ?? log.error} />;
  const assistant = prompt.data.kind === 'assistant';
  const declared = declaredVariables(draft);
  const invokeUrl = (version: number) =>
    `/${scope.workspace}/${scope.project}/${encodeURIComponent(slug)}/${encodeURIComponent(environment)}?v=${version}`;

  const stream = async (url: string, body: object, set: (update: (o: Output) => Output) => void) => {
    set(() => ({ ...IDLE, running: true }));
    try {
      const outcome = await invokeStream(url, body, {
        onText: (delta) => set((o) => ({ ...o, text: o.text + delta })),
        onToolCall: (name, args) => set((o) => ({ ...o, tools: [...o.tools, { name, args }] })),
      });
      set((o) => ({ ...o, running: false, threadId: outcome.threadId }));
      return outcome;
    } catch (error) {
      set((o) => ({ ...o, running: false, error }));
      return null;
    }
  };

  const run = async () => {
    if (!base) return;
    let body: ReturnType<typeof runBody>;
    try {
      body = runBody(draft, variables, messages, base);
    } catch (error) {
      setOutput({ ...IDLE, error });
      return;
    }
    const thread = assistant && threadId ? { threadId } : {};
    const runs: Promise<unknown>[] = [
      stream(invokeUrl(base.version), { ...body, ...thread }, setOutput).then((outcome) => {
        if (assistant && outcome && (outcome as { threadId: string | null }).threadId)
          setThreadId((outcome as { threadId: string }).threadId);
      }),
    ];
    if (compareWith) {
      // The same input, on the saved version as it is: none of the draft's settings.
      const {
        template: _template,
        model: _model,
        provider: _provider,
        tools: _tools,
        ...sameInput
      } = body as typeof body & { provider?: string; tools?: unknown[] };
      runs.push(stream(invokeUrl(Number(compareWith)), sameInput, setCompared));
    } else {
      setCompared(IDLE);
    }
    await Promise.all(runs);
    // The runs were logged (and an assistant's appended to its thread): those lists are out of date.
    void client.invalidateQueries({ queryKey: ['logs'] });
    void client.invalidateQueries({ queryKey: ['threads'] });
    void client.invalidateQueries({ queryKey: ['thread'] });
  };

  const envs = environments.data?.data.map((e) => e.slug) ?? [];
  return (
    <>
      <h1>{slug}: playground</h1>
      <p>
        {base ? <>Editing a draft based on v{base.version}. </> : <>No version yet: save the first one. </>}
        <Link to={`/prompts/${encodeURIComponent(slug)}`}>Back to {slug}</Link>
      </p>
      {params.get('saved') && base ? (
        <p role="status" className="success">
          Saved as v{base.version}.
        </p>
      ) : null}
      <div className="columns">
        <TemplateEditor draft={draft} onChange={setDraft} />
        <section aria-labelledby="run" className="panel">
          <h2 id="run">Run</h2>
          {declared.length === 0 ? <p className="muted">The template declares no variables.</p> : null}
          {declared.map((name) => (
            <TextField
              key={name}
              value={variables[name] ?? ''}
              onChange={(value) => setVariables({ ...variables, [name]: value })}
              className="field"
            >
              <Label>{`Variable ${name}`}</Label>
              <Input />
            </TextField>
          ))}
          <h3>Messages after the template</h3>
          <CodeEditor label="Messages (JSON)" value={messages} onChange={setMessages} />
          <div className="row">
            <EnvironmentSelect label="Run in environment" environments={envs} value={environment} onChange={setEnvironment} />
            <Select
              aria-label="Compare with"
              selectedKey={compareWith || 'none'}
              onSelectionChange={(key) => setCompareWith(key === 'none' ? '' : String(key))}
              className="field"
            >
              <Label>Compare with</Label>
              <Button className="select-button">
                <SelectValue />
              </Button>
              <Popover className="popover">
                <ListBox className="listbox">
                  <ListBoxItem id="none" className="option">
                    nothing
                  </ListBoxItem>
                  {versions.data.data.map((v) => (
                    <ListBoxItem key={v.version} id={String(v.version)} className="option">{`saved v${v.version}`}</ListBoxItem>
                  ))}
                </ListBox>
              </Popover>
            </Select>
          </div>
          <p className="muted small">
            A run uses everything the draft holds (template, provider, model, parameters, tools) over v{base?.version ?? '—'}, without
            saving it; it is logged like any call (metadata source=console-playground).
          </p>
          <div className="row">
            <Button className="button" onPress={() => void run()} isDisabled={!base || !environment || output.running}>
              Run without saving
            </Button>
            {assistant && threadId ? (
              <>
                <Link to={`/threads/${threadId}`}>Thread {threadId.slice(0, 8)}…</Link>
                <Button className="button secondary" onPress={() => setThreadId(null)}>
                  New thread
                </Button>
              </>
            ) : null}
          </div>
          <div className={compareWith ? 'columns' : undefined}>
            <RunOutput title="Draft" output={output} />
            {compareWith ? <RunOutput title={`Saved v${compareWith}`} output={compared} /> : null}
          </div>
          <h2>Save</h2>
          <TextField value={draft.note} onChange={(note) => setDraft({ ...draft, note })} className="field">
            <Label>What changed (optional)</Label>
            <Input />
          </TextField>
          <Button className="button" onPress={() => save.mutate(draft)} isDisabled={save.isPending}>
            Save as a new version
          </Button>
          <ErrorNote error={save.error} />
          <h2>Experiment</h2>
          <p className="muted small">Grade the draft on a dataset before saving it: the run sends each item to the draft as it is now.</p>
          <ExperimentLauncher label="Run an experiment on this draft" target={{ prompt: slug, draft: () => draftContent(draft) }} />
          {save.isSuccess ? (
            <p>
              <Button className="button secondary" onPress={() => navigate(`/prompts/${encodeURIComponent(slug)}`)}>
                Deploy it from {slug}
              </Button>
            </p>
          ) : null}
        </section>
      </div>
    </>
  );
}

function EnvironmentSelect({
  label,
  environments,
  value,
  onChange,
}: {
  label: string;
  environments: string[];
  value: string;
  onChange: (v: string) => void;
}) {
  return (
    <Select selectedKey={value || null} onSelectionChange={(key) => onChange(String(key))} className="field">
      <Label>{label}</Label>
      <Button className="select-button">
        <SelectValue />
      </Button>
      <Popover className="popover">
        <ListBox className="listbox">
          {environments.map((env) => (
            <ListBoxItem key={env} id={env} className="option">
              {env}
            </ListBoxItem>
          ))}
        </ListBox>
      </Popover>
    </Select>
  );
}

function RunOutput({ title, output }: { title: string; output: Output }) {
  return (
    <section aria-label={`${title} output`} className="output">
      <h3>{title}</h3>
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
    </section>
  );
}
