import { useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { Link } from 'react-router';

import { api, unwrap, type Version } from '../../api/client';
import { invokeStream } from '../../api/stream';
import { Button } from '../../components/button';
import { CodeEditor } from '../../components/code-editor';
import { Choices, Picker, TextInput } from '../../components/fields';
import { useProject } from '../../session';
import { ComparePicker, IDLE, type Output, ResultColumns } from './compare-columns';
import { type Column, columnBody, columnsOf, type ModelChoice, sentVariables, statsOf } from './playground-compare';
import { declaredVariables, type Draft, runBody, variableDefaults } from './playground-draft';
import { forkThread } from './thread-fork';

export interface RunInput {
  variables: Record<string, string>;
  messages: string;
  /** The environment of the log the playground was opened from, if any. */
  environment: string | null;
}

/**
 * The run side of the playground: a field per variable the draft uses (its default filled in), the
 * messages after the template, the environment, what to compare side by side, and for an assistant
 * opened from a transcript which thread to run on. Every column runs at once on the same input and
 * streams; its log then gives its latency, tokens and cost. Laid out around `editor` (the template
 * editor), with the columns below both at full width.
 */
export function RunPanel(props: {
  slug: string;
  assistant: boolean;
  draft: Draft;
  base: Version | null;
  versions: Version[];
  environments: string[];
  initial: RunInput;
  /** `?thread=<id>`: "Continue in the playground" from a transcript. */
  thread: string | null;
  templateProblem: string | null;
  editor: ReactNode;
}) {
  const { slug, assistant, draft, base, versions, environments, initial, templateProblem } = props;
  const scope = useProject()!;
  const client = useQueryClient();
  const [variables, setVariables] = useState(initial.variables);
  const [messages, setMessages] = useState(initial.messages);
  const [environment, setEnvironment] = useState('');
  const [chosen, setChosen] = useState<number[]>([]);
  const [models, setModels] = useState<ModelChoice[]>([]);
  const [outputs, setOutputs] = useState<Record<string, Output>>({});
  // A transcript's thread: runs go to a copy of it (made at the first run), or to the thread itself
  // when the person explicitly chooses it; an unsaved draft's turns never land in a real conversation by default.
  const [source, setSource] = useState<string | null>(props.thread);
  const [onThread, setOnThread] = useState<'copy' | 'real'>('copy');
  const [fork, setFork] = useState<string | null>(null);
  // Without a source thread: the thread the first run started, continued until "New thread".
  const [ownThread, setOwnThread] = useState<string | null>(null);
  const threadId = source ? (onThread === 'real' ? source : fork) : ownThread;

  const chosenEnvironment =
    environment ||
    (initial.environment && environments.includes(initial.environment)
      ? initial.environment
      : environments.includes('preview')
        ? 'preview'
        : (environments[0] ?? ''));
  const declared = declaredVariables(draft);
  const defaults = variableDefaults(draft);
  const columns = columnsOf(versions, chosen, models);
  // A field for each variable the draft uses, and for those only a compared version uses.
  const onlySaved = [...new Set(columns.flatMap((c) => (c.kind === 'version' ? c.version.declaredVariables : [])))]
    .filter((name) => !declared.includes(name))
    .sort();
  const running = Object.values(outputs).some((o) => o.running);
  const invokeUrl = (version: number) =>
    `/${scope.workspace}/${scope.project}/${encodeURIComponent(slug)}/${encodeURIComponent(chosenEnvironment)}?v=${version}`;

  const set = (id: string, update: (o: Output) => Output) => setOutputs((all) => ({ ...all, [id]: update(all[id] ?? IDLE) }));
  const stream = async (column: Column, url: string, body: object) => {
    set(column.id, () => ({ ...IDLE, running: true, sent: sentVariables(body) }));
    try {
      const outcome = await invokeStream(url, body, {
        onText: (delta) => set(column.id, (o) => ({ ...o, text: o.text + delta })),
        onToolCall: (name, args) => set(column.id, (o) => ({ ...o, tools: [...o.tools, { name, args }] })),
      });
      set(column.id, (o) => ({ ...o, running: false, threadId: outcome.threadId, logId: outcome.logId }));
      // The call is logged before its stream ends: its figures can be read at once.
      if (outcome.logId) {
        const log = await unwrap(api.GET('/v2/logs/{logId}', { params: { path: { logId: outcome.logId } } })).catch(() => null);
        if (log) set(column.id, (o) => ({ ...o, stats: statsOf(log) }));
      }
      return outcome;
    } catch (error) {
      set(column.id, (o) => ({ ...o, running: false, error }));
      return null;
    }
  };

  const run = async () => {
    if (!base) return;
    const fail = (error: unknown) => setOutputs({ draft: { ...IDLE, error } });
    if (templateProblem) return fail(new Error(`The template's JSON has a problem: ${templateProblem}`));
    let body: ReturnType<typeof runBody>;
    try {
      body = runBody(draft, variables, messages, base);
    } catch (error) {
      return fail(error);
    }
    let thread = threadId;
    if (assistant && source && onThread === 'copy' && !thread) {
      // The first run from a transcript copies its thread; the copy takes this run and the next ones.
      setOutputs({ draft: { ...IDLE, running: true } });
      try {
        thread = await forkThread(source);
      } catch (error) {
        return fail(error);
      }
      setFork(thread);
    }
    setOutputs({});
    await Promise.all(
      columns.map((column) => {
        if (column.kind !== 'draft')
          return stream(
            column,
            invokeUrl(column.kind === 'version' ? column.version.version : base.version),
            columnBody(column, body, variables, base),
          );
        return stream(column, invokeUrl(base.version), { ...body, ...(assistant && thread ? { threadId: thread } : {}) }).then(
          (outcome) => {
            if (assistant && !source && outcome?.threadId) setOwnThread(outcome.threadId);
          },
        );
      }),
    );
    // The runs were logged (and an assistant's appended to its thread): those lists are out of date.
    for (const key of ['logs', 'threads', 'thread']) void client.invalidateQueries({ queryKey: [key] });
  };

  return (
    <>
      <div className="columns">
        {props.editor}
        <section aria-labelledby="run" className="panel">
          <h2 id="run">Run</h2>
          {declared.length === 0 && onlySaved.length === 0 ? <p className="muted">The template uses no variables yet.</p> : null}
          {[...declared, ...onlySaved].map((name) => (
            <TextInput
              key={name}
              label={`Variable ${name}`}
              value={variables[name] ?? defaults[name] ?? ''}
              onChange={(value) => setVariables({ ...variables, [name]: value })}
              description={
                onlySaved.includes(name)
                  ? 'only a compared saved version uses it'
                  : defaults[name] !== undefined && variables[name] === undefined
                    ? "the draft's default"
                    : undefined
              }
            />
          ))}
          <h3>Messages after the template</h3>
          <CodeEditor label="Messages (JSON)" value={messages} onChange={setMessages} />
          <Picker
            label="Run in environment"
            placeholder="Choose an environment"
            items={environments}
            value={chosenEnvironment}
            onChange={setEnvironment}
          />
          <ComparePicker
            versions={versions}
            chosen={chosen}
            onChosen={setChosen}
            models={models}
            onModels={setModels}
            provider={draft.provider}
          />
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
            saving it; each column is logged like any call (metadata source=console-playground).
          </p>
          <div className="row">
            <Button onPress={() => void run()} isDisabled={!base || !chosenEnvironment || running}>
              Run without saving
            </Button>
            {assistant && threadId ? (
              <>
                <Link to={`/threads/${threadId}`}>Thread {threadId.slice(0, 8)}…</Link>
                {threadId === fork ? <span className="muted small">(the copy the runs go to)</span> : null}
                <Button
                  tone="secondary"
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
        </section>
      </div>
      <ResultColumns columns={columns} outputs={outputs} />
    </>
  );
}
