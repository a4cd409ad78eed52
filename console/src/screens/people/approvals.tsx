import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';

import { api, unwrap } from '../../api/client';
import { TextInput } from '../../components/fields';
import { DataTable } from '../../components/table';
import { ConfirmButton, EmptyState, ErrorNote, formatTime, Loading, Notice } from '../../components/ui';
import { useCan } from '../../session';
import { actorText, type DeploymentRequest, REQUESTS_KEY, requestSummary, usePendingRequests } from './deployment-requests';

type Decision = 'approve' | 'reject' | 'cancel';

const DONE: Record<Decision, string> = { approve: 'Approved and deployed', reject: 'Rejected', cancel: 'Cancelled' };

function decideRequest(id: string, decision: Decision, comment: string) {
  const options = { params: { path: { id } }, body: comment.trim() ? { comment: comment.trim() } : {} };
  if (decision === 'approve') return unwrap(api.POST('/v2/deployment-requests/{id}/approve', options));
  if (decision === 'reject') return unwrap(api.POST('/v2/deployment-requests/{id}/reject', options));
  return unwrap(api.POST('/v2/deployment-requests/{id}/cancel', options));
}

/**
 * Deploys and rollbacks to protected environments waiting for a second person
 * (docs/console.md, "Approvals"; docs/security.md, "Approvals"): approve (which deploys at once,
 * through the environment's deploy gate) or reject, with a comment. The server decides who may: a
 * person with the deploy role who did not ask; the requester may cancel. A refusal is shown on the
 * request's row, with the server's reason. Below, the decided ones.
 */
export function ApprovalsScreen() {
  const canDeploy = useCan('deploy');
  const pending = usePendingRequests();
  const decided = useQuery({
    queryKey: [REQUESTS_KEY, 'all'],
    queryFn: () => unwrap(api.GET('/v2/deployment-requests', { params: { query: { limit: 50 } } })),
  });
  const client = useQueryClient();
  const [outcome, setOutcome] = useState<{ id: string; text: string } | null>(null);
  const decide = useMutation({
    mutationFn: ({ id, decision, comment }: { id: string; decision: Decision; comment: string }) => decideRequest(id, decision, comment),
    onMutate: () => setOutcome(null),
    onSuccess: (request, { decision }) => {
      const done = decision === 'approve' && request.action === 'undeploy' ? 'Approved and undeployed' : DONE[decision];
      setOutcome({ id: request.id, text: `${done}: ${requestSummary(request)} (asked by ${actorText(request.requestedBy)}).` });
      void client.invalidateQueries({ queryKey: [REQUESTS_KEY] });
      void client.invalidateQueries({ queryKey: ['prompt', request.prompt] });
    },
  });

  if (pending.isPending) return <Loading />;
  if (pending.error) return <ErrorNote error={pending.error} />;
  const waiting = pending.data.data;
  const failedOn = decide.isError ? decide.variables?.id : undefined;
  const done = (decided.data?.data ?? []).filter((r) => r.status !== 'pending');

  return (
    <>
      <h1>Approvals</h1>
      <p className="muted">
        Deploys and rollbacks to a protected environment wait here until another person with the deploy role approves them. Whoever asked
        cannot approve their own; they may cancel it.
      </p>
      {outcome ? (
        <p role="status" className="success">
          {outcome.text}
        </p>
      ) : null}
      {!canDeploy ? (
        <Notice>Your role cannot deploy (it lacks the deploy scope): you see the requests, and cannot decide them.</Notice>
      ) : null}
      {waiting.length === 0 ? (
        <EmptyState title="Nothing waits for approval">
          <p>A deploy to a protected environment appears here until someone decides it.</p>
        </EmptyState>
      ) : (
        <DataTable label="Waiting for approval" columns={['Prompt', 'Deploys', 'Asked by', 'Asked', 'Decide']}>
          {waiting.map((request) => (
            <PendingRow
              key={request.id}
              request={request}
              canDeploy={canDeploy}
              busy={decide.isPending}
              error={failedOn === request.id ? decide.error : null}
              onDecide={(decision, comment) => decide.mutate({ id: request.id, decision, comment })}
            />
          ))}
        </DataTable>
      )}

      <section aria-labelledby="decided">
        <h2 id="decided">Decided</h2>
        {done.length === 0 ? (
          <p className="muted">None yet.</p>
        ) : (
          <DataTable label="Decided" columns={['Prompt', 'Deploys', 'Asked by', 'Decision', 'By', 'Comment']}>
            {done.map((request) => (
              <tr key={request.id}>
                <td>
                  <Link to={`/prompts/${encodeURIComponent(request.prompt)}`}>{request.prompt}</Link>
                </td>
                <td>{requestSummary(request)}</td>
                <td>{actorText(request.requestedBy)}</td>
                <td>
                  {request.status} {formatTime(request.decidedAt)}
                </td>
                <td>{request.decidedBy ? actorText(request.decidedBy) : '—'}</td>
                <td>{request.comment ?? <span className="muted">—</span>}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
    </>
  );
}

function PendingRow({
  request,
  canDeploy,
  busy,
  error,
  onDecide,
}: {
  request: DeploymentRequest;
  canDeploy: boolean;
  busy: boolean;
  error: unknown;
  onDecide: (decision: Decision, comment: string) => void;
}) {
  const [comment, setComment] = useState('');
  const what = requestSummary(request);
  return (
    <tr aria-label={`${request.prompt}: ${what}`}>
      <td>
        <Link to={`/prompts/${encodeURIComponent(request.prompt)}`}>{request.prompt}</Link>
      </td>
      <td>{what}</td>
      <td>{actorText(request.requestedBy)}</td>
      <td>{formatTime(request.createdAt)}</td>
      <td>
        {canDeploy ? (
          <div className="row">
            <TextInput label={`Comment on ${request.prompt}`} value={comment} onChange={setComment} maxLength={2000} />
            <ConfirmButton
              label={`Approve ${request.prompt}`}
              title={`Approve ${what}?`}
              confirmLabel={request.action === 'undeploy' ? 'Approve and undeploy' : 'Approve and deploy'}
              isDisabled={busy}
              onConfirm={() => onDecide('approve', comment)}
            >
              <p>
                {request.action === 'undeploy'
                  ? `${request.environment} will stop serving ${request.prompt} at once: its calls answer 404.`
                  : `${request.environment} will run it at once, for every caller (its deploy gate, if any, is checked now).`}{' '}
                Asked by {actorText(request.requestedBy)}.
              </p>
            </ConfirmButton>
            <ConfirmButton
              label={`Reject ${request.prompt}`}
              title={`Reject ${what}?`}
              confirmLabel="Reject"
              tone="secondary"
              danger
              isDisabled={busy}
              onConfirm={() => onDecide('reject', comment)}
            >
              <p>Nothing is deployed; whoever asked sees your comment.</p>
            </ConfirmButton>
            <ConfirmButton
              label={`Cancel ${request.prompt}`}
              title={`Cancel ${what}?`}
              confirmLabel="Cancel the request"
              tone="secondary"
              danger
              isDisabled={busy}
              onConfirm={() => onDecide('cancel', comment)}
            >
              <p>Only whoever asked may cancel a request.</p>
            </ConfirmButton>
          </div>
        ) : (
          <span className="muted">waiting</span>
        )}
        <ErrorNote error={error} />
      </td>
    </tr>
  );
}
