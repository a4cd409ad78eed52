import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';

import { api, type Schemas, unwrap } from '../../api/client';
import { formatTime, Notice } from '../../components/ui';

export type DeploymentRequest = Schemas['DeploymentRequestDto'];
type Deployment = Schemas['DeploymentDto'];

/** The key of every deployment-request query: invalidated after a deploy or a decision. */
export const REQUESTS_KEY = 'deployment-requests';

/** A deploy's answer: the deployment, or (202) the request waiting for approval in a protected environment. */
export function isDeploymentRequest(answer: Deployment | DeploymentRequest): answer is DeploymentRequest {
  return (answer as DeploymentRequest).object === 'deployment_request';
}

/** What a request would deploy: "v4 to production", or a split's arms; an undeploy: "undeploy from production". */
export function requestSummary(request: DeploymentRequest): string {
  if (request.action === 'undeploy') return `undeploy from ${request.environment}`;
  const split = request.request.split;
  const what = split ? `the split ${split.map((arm) => `v${arm.version} (${arm.weight})`).join(', ')}` : `v${request.request.version}`;
  return `${what} to ${request.environment}`;
}

/** Who asked or decided: a person's e-mail, a key's name (said to be a key), or the CLI. */
export function actorText(actor: DeploymentRequest['requestedBy']): string {
  if (actor.kind === 'user') return actor.name;
  return actor.kind === 'key' ? `the key "${actor.name}"` : 'the CLI on the database';
}

/** The project's pending deployment requests (of one prompt, when given), newest first. */
export function usePendingRequests(prompt?: string) {
  return useQuery({
    queryKey: [REQUESTS_KEY, 'pending', prompt ?? null],
    queryFn: () =>
      unwrap(api.GET('/v2/deployment-requests', { params: { query: { status: 'pending', ...(prompt ? { prompt } : {}), limit: 100 } } })),
  });
}

/**
 * A prompt's deploys and rollbacks waiting for approval (docs/console.md, "Approvals"): what each
 * would deploy where, who asked and when; another person with the deploy role decides on the
 * Approvals page. Nothing when none waits.
 */
export function WaitingForApproval({ slug }: { slug: string }) {
  const pending = usePendingRequests(slug);
  const requests = pending.data?.data ?? [];
  if (requests.length === 0) return null;
  return (
    <section aria-labelledby="waiting">
      <h3 id="waiting">Waiting for approval</h3>
      <ul aria-label="Deploys waiting for approval">
        {requests.map((request) => (
          <li key={request.id}>
            {requestSummary(request)}, asked by {actorText(request.requestedBy)} at {formatTime(request.createdAt)}{' '}
            <span className="muted">(request {request.id.slice(0, 8)})</span>
          </li>
        ))}
      </ul>
      <p className="muted">
        {requests.length === 1 ? 'It is' : 'They are'} deployed once another person with the deploy role approves on the{' '}
        <Link to="/approvals">Approvals</Link> page.
      </p>
    </section>
  );
}

/** What the screen says right after a deploy answered 202. */
export function WaitingNote({ request }: { request: DeploymentRequest }) {
  return (
    <Notice live>
      Waiting for approval:{' '}
      {request.action === 'undeploy'
        ? `${request.environment} is protected, so nothing is undeployed yet.`
        : `${requestSummary(request)} is protected, so nothing is deployed yet.`}{' '}
      Another person with the deploy role approves it on the <Link to="/approvals">Approvals</Link> page (request {request.id.slice(0, 8)}).
    </Notice>
  );
}
