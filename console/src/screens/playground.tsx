import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Button, Input, Label, Text, TextField } from 'react-aria-components';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';

import { api, unwrap } from '../api/client';
import { invokeStream } from '../api/stream';
import { CodeEditor } from '../components/code-editor';
import { Choices, Picker } from '../components/fields';
import { ErrorNote, Loading } from '../components/ui';
import { useProject } from '../session';
import { ExperimentLauncher } from './evals/launcher';
import {
  declaredVariables,
  type Draft,
  draftContent,
  draftOf,
  EMPTY_DRAFT,
  inputFromLog,
  runBody,
  savedRunBody,
  versionBody,
} from './playground-draft';
import { promptKey, useEnvironments, usePrompt, useVersions } from './prompt-queries';
import { TemplateEditor } from './template-editor';
import { forkThread } from './thread-fork';

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
 * version N, `?log=<id>` from a logged call's version, variables and messages; for an assistant,
 * `?thread=<id>` (a transcript's "Continue in the playground") runs on a copy of that thread
 * unless the person chooses to continue the real one.
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
  // `?thread=<id>` (from a thread's transcript): an assistant's runs go to a copy of that thread
  // (made at the first run), or to the thread itself when the person explicitly chooses it; an
  // unsaved draft's turns never land in a real conversation by default.
  const [source, setSource] = useState<string | null>(params.get('thread'));
  const [onThread, setOnThread] = useState<'copy' | 'real'>('copy');
  const [fork, setFork] = useState<string | null>(null);
  // Without a source thread: the thread the first run started, continued until "New thread".
  const [ownThread, setOwnThread] = useState<string | null>(null);
  const threadId = source ? (onThread === 'real' ? source : fork) : ownThread;

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
      setParams({ from: String(version.version), saved: '1', ...(source ? { thread: source } : {}) }, { replace: true });
      setDraft({ ...draft!, note: '' });
    },
  });

  if (prompt.isPending || versions.isPending || (logId && log.isPending) || !draft) return <Loading />;
  if (prompt.error || versions.error || log.error) return <ErrorNote error={prompt.error ?? versions.error ?? log.error} />;
  const assistant = prompt.data.kind === 'assistant';
  const declared = declaredVariables(draft);
  const saved = compareWith ? (versions.data.data.find((v) => String(v.version) === compareWith) ?? null) : null;
  // A field for each variable the draft uses, and for those only the compared version uses.
  const onlySaved = (saved?.declaredVariables ?? []).filter((name) => !declared.includes(name));
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
    let thread = threadId;
    if (assistant && source && onThread === 'copy' && !thread) {
      // The first run from a transcript copies its thread; the copy takes this run and the next ones.
      setOutput({ ...IDLE, running: true });
      try {
        thread = await forkThread(source);
      } catch (error) {
        setOutput({ ...IDLE, error });
        return;
      }
      setFork(thread);
    }
    const runs: Promise<unknown>[] = [
      stream(invokeUrl(base.version), { ...body, ...(assistant && thread ? { threadId: thread } : {}) }, setOutput).then((outcome) => {
        if (assistant && !source && outcome?.threadId) setOwnThread(outcome.threadId);
      }),
    ];
    if (saved) {
      // The same input, on the saved version as it is, with only the variables it declares.
      runs.push(stream(invokeUrl(saved.version), savedRunBody(body, variables, saved), setCompared));
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
          {declared.length === 0 && onlySaved.length === 0 ? <p className="muted">The template declares no variables.</p> : null}
          {[...declared, ...onlySaved].map((name) => (
            <TextField
              key={name}
              value={variables[name] ?? ''}
              onChange={(value) => setVariables({ ...variables, [name]: value })}
              className="field"
            >
              <Label>{`Variable ${name}`}</Label>
              <Input />
              {onlySaved.includes(name) ? (
                <Text slot="description" className="muted small">
                  only saved v{saved!.version} uses it
                </Text>
              ) : null}
            </TextField>
          ))}
          <h3>Messages after the template</h3>
          <CodeEditor label="Messages (JSON)" value={messages} onChange={setMessages} />
          <div className="row">
            <Picker
              label="Run in environment"
              placeholder="Choose an environment"
              items={envs}
              value={environment}
              onChange={setEnvironment}
            />
            <Picker
              label="Compare with"
              items={[
                { id: 'none', label: 'nothing' },
                ...versions.data.data.map((v) => ({ id: String(v.version), label: `saved v${v.version}` })),
              ]}
              value={compareWith || 'none'}
              onChange={(key) => setCompareWith(key === 'none' ? '' : key)}
            />
          </div>
          {assistant && source ? (
            <Choices
              label="Run on"
              items={[
                { id: 'copy', label: `a copy of thread ${source.slice(0, 8)}… (the thread itself is not changed)` },
                { id: 'real', label: `the real thread ${source.slice(0, 8)}… (this run's turns are added to it)` },
              ]}
              value={onThread}
              onChange={setOnThread}
            />
          ) : null}
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
                {threadId === fork ? <span className="muted small">(the copy the runs go to)</span> : null}
                <Button
                  className="button secondary"
                  onPress={() => {
                    setSource(null);
                    setFork(null);
                    setOwnThread(null);
                  }}
                >
                  New thread
                </Button>
              </>
            ) : null}
          </div>
          <div className={saved ? 'columns' : undefined}>
            <RunOutput title="Draft" output={output} />
            {saved ? <RunOutput title={`Saved v${saved.version}`} output={compared} /> : null}
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
