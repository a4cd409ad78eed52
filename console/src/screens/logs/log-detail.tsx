import { useQuery } from '@tanstack/react-query';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { Link, useParams } from 'react-router';

import { api, unwrap } from '../../api/client';
import { ButtonLink } from '../../components/button';
import { ChatTranscript } from '../../components/chat';
import { ErrorNote, formatTime, JsonBlock, Loading, Notice } from '../../components/ui';
import { AddToDataset } from '../evals/add-to-dataset';
import { LogAttempts } from './log-attempts';
import { LogFeedback } from './log-feedback';

/** One call: the request sent to the provider and its answer (as chat and as JSON), timings, tokens, links. */
export function LogDetailScreen() {
  const id = useParams().id!;
  const log = useQuery({ queryKey: ['log', id], queryFn: () => unwrap(api.GET('/v2/logs/{logId}', { params: { path: { logId: id } } })) });
  if (log.isPending) return <Loading />;
  if (log.error) return <ErrorNote error={log.error} />;
  const l = log.data;
  const request = l.request as { messages?: unknown[] } | null;
  const response = l.response as { choices?: { message?: unknown }[] } | null;
  const reply = response?.choices?.map((c) => c.message).filter(Boolean) ?? [];
  const slug = l.promptSlug ?? '';
  const deployed = l.version !== null && !slug.includes('/');
  return (
    <>
      <h1>Log {id.slice(0, 8)}…</h1>
      <dl className="facts">
        <dt>Prompt</dt>
        <dd>{deployed ? <Link to={`/prompts/${encodeURIComponent(slug)}`}>{slug}</Link> : slug}</dd>
        <dt>Version</dt>
        <dd>{deployed ? <Link to={`/prompts/${encodeURIComponent(slug)}/playground?from=${l.version}`}>v{l.version}</Link> : '—'}</dd>
        <dt>Environment</dt>
        <dd>{l.environment || '—'}</dd>
        <dt>Provider and model</dt>
        <dd>
          {l.provider ? (
            <Link to={`/logs?provider=${encodeURIComponent(l.provider)}`} aria-label={`Logs of provider ${l.provider}`}>
              {l.provider}
            </Link>
          ) : (
            '—'
          )}
          /
          {l.model ? (
            <Link to={`/logs?model=${encodeURIComponent(l.model)}`} aria-label={`Logs of model ${l.model}`}>
              {l.model}
            </Link>
          ) : (
            '—'
          )}
        </dd>
        <dt>Key</dt>
        <dd>
          {l.projectAPIKeyId ? (
            <Link to={`/logs?keyId=${l.projectAPIKeyId}`}>Logs of this key ({l.projectAPIKeyId.slice(0, 8)}…)</Link>
          ) : (
            '—'
          )}
        </dd>
        <dt>Status</dt>
        <dd>
          {l.status}
          {l.error ? ` — ${l.error}` : ''}
        </dd>
        <dt>Started</dt>
        <dd>{formatTime(l.startedAt)}</dd>
        <dt>Latency</dt>
        <dd>
          {l.latencyMs} ms{l.timeToFirstTokenMs !== null ? `, first token after ${l.timeToFirstTokenMs} ms` : ''}
        </dd>
        <dt>Tokens</dt>
        <dd>
          {l.usage.prompt_tokens ?? '—'} in, {l.usage.completion_tokens ?? '—'} out, {l.usage.total_tokens ?? '—'} total
        </dd>
        <dt>Cost</dt>
        <dd>{l.costUsd !== null ? `$${l.costUsd}` : l.usage.total_tokens ? 'no known price for this model' : '—'}</dd>
        <dt>Thread</dt>
        <dd>{l.threadId ? <Link to={`/threads/${l.threadId}`}>{l.threadId}</Link> : '—'}</dd>
        <dt>Trace</dt>
        <dd>
          {l.traceId ? (
            <>
              <Link to={`/logs?traceId=${l.traceId}`} aria-label={`Logs of trace ${l.traceId}`}>
                <code>{l.traceId}</code>
              </Link>
              {l.traceUrl ? (
                <>
                  {' '}
                  <a href={l.traceUrl} target="_blank" rel="noreferrer">
                    Open in the trace viewer
                  </a>
                </>
              ) : null}
            </>
          ) : (
            '—'
          )}
        </dd>
        <dt>Metadata</dt>
        <dd>{l.metadata && l.metadata !== '{}' ? <code>{l.metadata}</code> : '—'}</dd>
      </dl>
      <LogAttempts log={l} />
      {deployed || !l.doNotRecord ? (
        <p className="row">
          {deployed ? <ButtonLink to={`/prompts/${encodeURIComponent(slug)}/playground?log=${id}`}>Open in playground</ButtonLink> : null}
          {l.doNotRecord ? null : <AddToDataset source={{ logId: id }} />}
        </p>
      ) : null}
      {l.doNotRecord ? (
        <Notice>This call asked not to be recorded (doNotRecord): its request and answer were not stored.</Notice>
      ) : (
        <Tabs>
          <TabList aria-label="View" className="tabs">
            <Tab id="chat">As chat</Tab>
            <Tab id="json">As JSON</Tab>
          </TabList>
          <TabPanel id="chat">
            <h2>Request</h2>
            {request?.messages ? (
              <ChatTranscript label="Rendered request" messages={request.messages} />
            ) : (
              <p className="muted">No request was sent to a provider.</p>
            )}
            <h2>Response</h2>
            {reply.length ? <ChatTranscript label="Response" messages={reply} /> : <p className="muted">No answer was recorded.</p>}
          </TabPanel>
          <TabPanel id="json">
            <h2>Request</h2>
            <JsonBlock label="Request JSON" value={l.request} />
            <h2>Response</h2>
            <JsonBlock label="Response JSON" value={l.response} />
          </TabPanel>
        </Tabs>
      )}
      <LogFeedback logId={id} />
    </>
  );
}
