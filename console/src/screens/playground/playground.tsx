import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';

import { api, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { TextInput } from '../../components/fields';
import { ErrorNote, Loading } from '../../components/ui';
import { ExperimentLauncher } from '../evals/launcher';
import { promptKey, useEnvironments, usePrompt, useVersions } from '../prompts/prompt-queries';
import { type Draft, draftContent, draftOf, EMPTY_DRAFT, inputFromLog, versionBody } from './playground-draft';
import { type RunInput, RunPanel } from './playground-run';
import { TemplateEditor } from './template-editor';

/**
 * Edit a prompt's template (chat-style or as JSON) and settings, run the draft without saving it
 * (streamed), side by side with saved versions and with the draft on other models, and save it as
 * a new version. `?from=N` starts from version N, `?log=<id>` from a logged call's version,
 * variables and messages; for an assistant, `?thread=<id>` (a transcript's "Continue in the
 * playground") runs on a copy of that thread unless the person chooses to continue the real one.
 */
export default function PlaygroundScreen() {
  const slug = useParams().slug!;
  const [params, setParams] = useSearchParams();
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
  const thread = params.get('thread');

  const [draft, setDraft] = useState<Draft | null>(null);
  const [input, setInput] = useState<RunInput | null>(null);
  // What is wrong with the template's JSON view, while it is: a run or a save would use the last valid messages.
  const [templateProblem, setTemplateProblem] = useState<string | null>(null);

  const ready = versions.isSuccess && (!logId || log.isSuccess);
  useEffect(() => {
    if (!ready || draft) return;
    setDraft(base ? draftOf(base) : EMPTY_DRAFT);
    const fromLog = log.data ? inputFromLog(log.data) : null;
    setInput({
      variables: fromLog?.variables ?? {},
      messages: fromLog?.messages ?? '[\n  { "role": "user", "content": "Hello!" }\n]',
      environment: log.data?.environment ?? null,
    });
  }, [ready, draft, base, log.data]);

  const client = useQueryClient();
  const navigate = useNavigate();
  const save = useMutation({
    mutationFn: (d: Draft) => {
      if (templateProblem) throw new Error(`The template's JSON has a problem: ${templateProblem}`);
      return unwrap(api.POST('/v2/prompts/{slug}/versions', { params: { path: { slug } }, body: versionBody(d) }));
    },
    onSuccess: (version) => {
      void client.invalidateQueries({ queryKey: promptKey(slug) });
      void client.invalidateQueries({ queryKey: ['prompts'] });
      setParams({ from: String(version.version), saved: '1', ...(thread ? { thread } : {}) }, { replace: true });
      setDraft({ ...draft!, note: '' });
    },
  });

  if (prompt.isPending || versions.isPending || (logId && log.isPending) || !draft || !input) return <Loading />;
  if (prompt.error || versions.error || log.error) return <ErrorNote error={prompt.error ?? versions.error ?? log.error} />;
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
      <RunPanel
        slug={slug}
        assistant={prompt.data.kind === 'assistant'}
        draft={draft}
        base={base}
        versions={versions.data.data}
        environments={environments.data?.data.map((e) => e.slug) ?? []}
        initial={input}
        thread={thread}
        templateProblem={templateProblem}
        editor={<TemplateEditor draft={draft} onChange={setDraft} onTemplateProblem={setTemplateProblem} />}
      />
      <section aria-labelledby="save" className="panel">
        <h2 id="save">Save</h2>
        <TextInput label="What changed (optional)" value={draft.note} onChange={(note) => setDraft({ ...draft, note })} />
        <Button onPress={() => save.mutate(draft)} isDisabled={save.isPending}>
          Save as a new version
        </Button>
        <ErrorNote error={save.error} />
        {save.isSuccess ? (
          <p>
            <Button tone="secondary" onPress={() => navigate(`/prompts/${encodeURIComponent(slug)}`)}>
              Deploy it from {slug}
            </Button>
          </p>
        ) : null}
        <h2>Experiment</h2>
        <p className="muted small">Grade the draft on a dataset before saving it: the run sends each item to the draft as it is now.</p>
        <ExperimentLauncher label="Run an experiment on this draft" target={{ prompt: slug, draft: () => draftContent(draft) }} />
      </section>
    </>
  );
}
