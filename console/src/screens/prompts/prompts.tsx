import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link, useNavigate, useSearchParams } from 'react-router';

import { api, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { Choices, TextInput } from '../../components/fields';
import { DataTable } from '../../components/table';
import { Badge, Card, EmptyState, ErrorNote, formatTime, Loading } from '../../components/ui';
import { ArchivedPrompts } from './prompts-archived';

export function usePrompts() {
  return useQuery({ queryKey: ['prompts'], queryFn: () => unwrap(api.GET('/v2/prompts', { params: { query: { limit: 100 } } })) });
}

/** Prompts and assistants: kind, the version live in each environment, the last change; or the archived ones (`?archived=true`). */
export function PromptsScreen() {
  const prompts = usePrompts();
  const [params, setParams] = useSearchParams();
  const showing = params.get('archived') === 'true' ? 'archived' : 'live';
  return (
    <>
      <h1>Prompts and assistants</h1>
      <Choices
        label="Show"
        items={[
          { id: 'live', label: 'live' },
          { id: 'archived', label: 'archived' },
        ]}
        value={showing}
        onChange={(next) => setParams(next === 'archived' ? { archived: 'true' } : {}, { replace: true })}
      />
      {showing === 'archived' ? (
        <ArchivedPrompts />
      ) : (
        <>
          <LivePrompts prompts={prompts} />
          <NewPrompt />
        </>
      )}
    </>
  );
}

function LivePrompts({ prompts }: { prompts: ReturnType<typeof usePrompts> }) {
  return (
    <>
      <ErrorNote error={prompts.error} />
      {prompts.isPending ? (
        <Loading />
      ) : prompts.data && prompts.data.data.length > 0 ? (
        <DataTable label="Prompts and assistants" columns={['Slug', 'Kind', 'Live versions', 'Latest version', 'Last change']}>
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
                    <Badge key={d.environment}>
                      {d.environment}: v{d.version}
                    </Badge>
                  ))
                )}
              </td>
              <td>{prompt.latestVersion ? `v${prompt.latestVersion}` : '—'}</td>
              <td>{formatTime(prompt.updatedAt)}</td>
            </tr>
          ))}
        </DataTable>
      ) : (
        <EmptyState title="No prompts yet">
          <p>
            A prompt is a template with a model; an assistant also keeps a conversation thread. Create one below, then write its first
            version in the playground, or describe the whole project in a <code>parley.yaml</code> and run <code>parley apply</code>.
          </p>
        </EmptyState>
      )}
      {prompts.data?.has_more ? <p className="muted">Showing the first 100.</p> : null}
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
    <Card title="New prompt or assistant">
      <Form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <TextInput label="Slug" value={slug} onChange={setSlug} isRequired placeholder="support-reply" />
        <Choices
          label="Kind"
          items={[
            { id: 'prompt', label: 'prompt' },
            { id: 'assistant', label: 'assistant' },
          ]}
          value={kind}
          onChange={setKind}
        />
        <Button type="submit" isDisabled={create.isPending}>
          Create
        </Button>
      </Form>
      <ErrorNote error={create.error} />
    </Card>
  );
}
