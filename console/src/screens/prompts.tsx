import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { Link, useNavigate } from 'react-router';

import { api, unwrap } from '../api/client';
import { Choices } from '../components/fields';
import { EmptyState, ErrorNote, formatTime, Loading } from '../components/ui';

export function usePrompts() {
  return useQuery({ queryKey: ['prompts'], queryFn: () => unwrap(api.GET('/v2/prompts', { params: { query: { limit: 100 } } })) });
}

/** Prompts and assistants: kind, the version live in each environment, the last change. */
export function PromptsScreen() {
  const prompts = usePrompts();
  return (
    <>
      <h1>Prompts and assistants</h1>
      <ErrorNote error={prompts.error} />
      {prompts.isPending ? (
        <Loading />
      ) : prompts.data && prompts.data.data.length > 0 ? (
        <table className="table">
          <caption className="sr-only">Prompts and assistants</caption>
          <thead>
            <tr>
              <th scope="col">Slug</th>
              <th scope="col">Kind</th>
              <th scope="col">Live versions</th>
              <th scope="col">Latest version</th>
              <th scope="col">Last change</th>
            </tr>
          </thead>
          <tbody>
            {prompts.data.data.map((prompt) => (
              <tr key={prompt.id}>
                <td>
                  <Link to={`/prompts/${encodeURIComponent(prompt.slug)}`}>{prompt.slug}</Link>
                </td>
                <td>{prompt.kind}</td>
                <td>
                  {prompt.deployments.length === 0 ? (
                    <span className="muted">not deployed</span>
                  ) : (
                    prompt.deployments.map((d) => (
                      <span key={d.environment} className="badge">
                        {d.environment}: v{d.version}
                      </span>
                    ))
                  )}
                </td>
                <td>{prompt.latestVersion ? `v${prompt.latestVersion}` : '—'}</td>
                <td>{formatTime(prompt.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <EmptyState title="No prompts yet">
          <p>
            A prompt is a template with a model; an assistant also keeps a conversation thread. Create one below, then write its first
            version in the playground, or describe the whole project in a <code>parley.yaml</code> and run <code>parley apply</code>.
          </p>
        </EmptyState>
      )}
      {prompts.data?.has_more ? <p className="muted">Showing the first 100.</p> : null}
      <NewPrompt />
    </>
  );
}

function NewPrompt() {
  const [slug, setSlug] = useState('');
  const [kind, setKind] = useState<'prompt' | 'assistant'>('prompt');
  const client = useQueryClient();
  const navigate = useNavigate();
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/v2/prompts', { body: { slug, kind } })),
    onSuccess: (prompt) => {
      void client.invalidateQueries({ queryKey: ['prompts'] });
      navigate(`/prompts/${encodeURIComponent(prompt.slug)}/playground`);
    },
  });
  return (
    <section className="panel" aria-labelledby="new-prompt">
      <h2 id="new-prompt">New prompt or assistant</h2>
      <Form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <TextField value={slug} onChange={setSlug} isRequired className="field">
          <Label>Slug</Label>
          <Input placeholder="support-reply" />
        </TextField>
        <Choices
          label="Kind"
          items={[
            { id: 'prompt', label: 'prompt' },
            { id: 'assistant', label: 'assistant' },
          ]}
          value={kind}
          onChange={setKind}
        />
        <Button type="submit" className="button" isDisabled={create.isPending}>
          Create
        </Button>
      </Form>
      <ErrorNote error={create.error} />
    </section>
  );
}
