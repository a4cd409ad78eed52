import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';

import { api, unwrap } from '../../api/client';
import { DataTable } from '../../components/table';
import { ConfirmButton, EmptyState, ErrorNote, formatTime, Loading } from '../../components/ui';
import { useCan } from '../../session';

/**
 * The archived prompts and assistants (docs/console.md, "Archiving and undeploying"): when each was
 * archived, and a confirmed Restore. `GET /v2/prompts?archived=true`; the live list hides them.
 */
export function ArchivedPrompts() {
  const canWrite = useCan('registry:write');
  const client = useQueryClient();
  const archived = useQuery({
    queryKey: ['prompts', 'archived'],
    queryFn: () => unwrap(api.GET('/v2/prompts', { params: { query: { limit: 100, archived: 'true' } } })),
  });
  const restore = useMutation({
    mutationFn: (slug: string) => unwrap(api.POST('/v2/prompts/{slug}/restore', { params: { path: { slug } } })),
    onSuccess: (prompt) => {
      void client.invalidateQueries({ queryKey: ['prompts'] });
      void client.invalidateQueries({ queryKey: ['prompt', prompt.slug] });
    },
  });
  if (archived.isPending) return <Loading />;
  if (archived.error) return <ErrorNote error={archived.error} />;
  const rows = archived.data.data;
  if (rows.length === 0)
    return (
      <EmptyState title="Nothing archived">
        <p>A prompt or assistant that is no longer needed can be archived from its page once it is deployed nowhere.</p>
      </EmptyState>
    );
  return (
    <>
      <ErrorNote error={restore.error} />
      <DataTable label="Archived prompts and assistants" columns={['Slug', 'Kind', 'Latest version', 'Archived', 'Restore']}>
        {rows.map((prompt) => (
          <tr key={prompt.id}>
            <td>
              <Link to={`/prompts/${encodeURIComponent(prompt.slug)}`}>{prompt.slug}</Link>
            </td>
            <td>{prompt.kind}</td>
            <td>{prompt.latestVersion ? `v${prompt.latestVersion}` : '—'}</td>
            <td>{formatTime(prompt.archivedAt)}</td>
            <td>
              {canWrite ? (
                <ConfirmButton
                  label={`Restore ${prompt.slug}`}
                  title={`Restore ${prompt.slug}?`}
                  confirmLabel="Restore"
                  tone="secondary"
                  onConfirm={() => restore.mutate(prompt.slug)}
                >
                  <p>It is listed, versioned and deployable again. It comes back deployed nowhere.</p>
                </ConfirmButton>
              ) : (
                <span className="muted">—</span>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
      {archived.data.has_more ? <p className="muted">Showing the first 100.</p> : null}
    </>
  );
}
