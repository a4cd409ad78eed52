import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api, type Prompt, unwrap } from '../../api/client';
import { ConfirmButton, ErrorNote, formatTime } from '../../components/ui';
import { useCan } from '../../session';
import { isDeploymentRequest, REQUESTS_KEY, WaitingNote } from '../people/deployment-requests';
import { promptKey } from './prompt-queries';

/**
 * A prompt's lifecycle on its page (docs/console.md, "Archiving and undeploying"): archive and
 * restore (confirmed), the banner of an archived one, and undeploying an environment (confirmed;
 * a protected environment holds it for approval). Each refreshes the prompt, its history, the
 * prompt lists and the pending requests.
 */
function useRefresh(slug: string) {
  const client = useQueryClient();
  return () => {
    void client.invalidateQueries({ queryKey: promptKey(slug) });
    void client.invalidateQueries({ queryKey: ['prompts'] });
    void client.invalidateQueries({ queryKey: ['deployments'] });
    void client.invalidateQueries({ queryKey: [REQUESTS_KEY] });
  };
}

function useArchiving(slug: string) {
  const refresh = useRefresh(slug);
  return useMutation({
    mutationFn: (archive: boolean) =>
      archive
        ? unwrap(api.POST('/v2/prompts/{slug}/archive', { params: { path: { slug } } }))
        : unwrap(api.POST('/v2/prompts/{slug}/restore', { params: { path: { slug } } })),
    onSuccess: refresh,
  });
}

/** What an archived prompt's page says first, with the way back. Nothing while it is live. */
export function ArchivedBanner({ prompt }: { prompt: Prompt }) {
  const restore = useArchiving(prompt.slug);
  const canWrite = useCan('registry:write');
  if (!prompt.archivedAt) return null;
  return (
    <div className="notice archived-banner" role="note" aria-label="Archived">
      <p>
        <strong>Archived</strong> {formatTime(prompt.archivedAt)}: calls to {prompt.slug} answer 404, and it cannot be deployed or given new
        versions until it is restored. Its versions and history are kept.
      </p>
      {canWrite ? (
        <ConfirmButton
          label={`Restore ${prompt.slug}`}
          title={`Restore ${prompt.slug}?`}
          confirmLabel="Restore"
          tone="secondary"
          onConfirm={() => restore.mutate(false)}
        >
          <p>It is listed, versioned and deployable again. It comes back deployed nowhere: deploy a version to serve calls.</p>
        </ConfirmButton>
      ) : null}
      <ErrorNote error={restore.error} />
    </div>
  );
}

/** Archive, confirmed; disabled, saying why, while the prompt is deployed anywhere (undeploy it there first). */
export function ArchiveButton({ prompt }: { prompt: Prompt }) {
  const archive = useArchiving(prompt.slug);
  const canWrite = useCan('registry:write');
  if (prompt.archivedAt || !canWrite) return null;
  const deployed = prompt.deployments.map((d) => d.environment);
  return (
    <>
      <ConfirmButton
        label={`Archive ${prompt.slug}`}
        title={`Archive ${prompt.slug}?`}
        confirmLabel="Archive"
        danger
        isDisabled={deployed.length > 0}
        onConfirm={() => archive.mutate(true)}
      >
        <p>
          It leaves the list of prompts (shown under &ldquo;Archived&rdquo;), calls to it answer 404, and it cannot be deployed or given new
          versions until someone restores it. Its versions and history are kept.
        </p>
      </ConfirmButton>
      {deployed.length > 0 ? <span className="muted small">To archive it, undeploy it from {deployed.join(', ')} first.</span> : null}
      <ErrorNote error={archive.error} />
    </>
  );
}

/** Undeploy one environment, confirmed: at once, or (a protected environment) as a request waiting for approval. */
export function UndeployButton({ slug, environment }: { slug: string; environment: string }) {
  const refresh = useRefresh(slug);
  const canDeploy = useCan('deploy');
  const undeploy = useMutation({
    mutationFn: () => unwrap(api.DELETE('/v2/prompts/{slug}/deployments/{environment}', { params: { path: { slug, environment } } })),
    onSuccess: refresh,
  });
  if (!canDeploy) return <span className="muted">—</span>;
  return (
    <>
      <ConfirmButton
        label={`Undeploy ${environment}`}
        title={`Undeploy ${slug} from ${environment}?`}
        confirmLabel={`Undeploy ${environment}`}
        danger
        isDisabled={undeploy.isPending}
        onConfirm={() => undeploy.mutate()}
      >
        <p>
          {environment} stops serving {slug} at once: its calls answer 404 until a version is deployed there again. The deployment stays in
          the history. In a protected environment this asks for approval instead.
        </p>
      </ConfirmButton>
      {undeploy.data && isDeploymentRequest(undeploy.data) ? <WaitingNote request={undeploy.data} /> : null}
      <ErrorNote error={undeploy.error} />
    </>
  );
}
