import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';
import { Link, useParams, useSearchParams } from 'react-router';

import { api, type Schemas, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { ChatTranscript } from '../../components/chat';
import { TextInput } from '../../components/fields';
import { DataTable } from '../../components/table';
import { EmptyState, ErrorNote, formatTime, Loading } from '../../components/ui';
import { AddToDataset } from '../evals/add-to-dataset';

/**
 * Threads, newest first, keyset-paged (`after` in the URL), filtered by a metadata value
 * (`metadata=key:value`, in the URL too); each previews its first and last message, its message
 * count and its calls' cost, read with the page (`include=preview`: one API request).
 */
export function ThreadsScreen() {
  const [params, setParams] = useSearchParams();
  const after = params.get('after') ?? undefined;
  const metadata = params.get('metadata') ?? undefined;
  const [filter, setFilter] = useState(metadata ?? '');
  const threads = useQuery({
    queryKey: ['threads', metadata, after],
    queryFn: () =>
      unwrap(
        api.GET('/v2/threads', {
          params: { query: { limit: 50, include: 'preview', ...(metadata ? { metadata } : {}), ...(after ? { after } : {}) } },
        }),
      ),
  });
  const more = (last: string) => `?${new URLSearchParams({ ...(metadata ? { metadata } : {}), after: last }).toString()}`;
  return (
    <>
      <h1>Threads</h1>
      <Form
        className="filters"
        aria-label="Filters"
        onSubmit={(event) => {
          event.preventDefault();
          setParams(filter.trim() ? { metadata: filter.trim() } : {});
        }}
      >
        <TextInput label="Metadata" value={filter} onChange={setFilter} placeholder="customer:c_42" />
        <Button type="submit">Filter</Button>
      </Form>
      <ErrorNote error={threads.error} />
      {threads.isPending ? (
        <Loading />
      ) : threads.data && threads.data.data.length > 0 ? (
        <>
          <DataTable label="Threads, newest first" columns={['Conversation', 'Messages', 'Cost', 'Created', 'Metadata', 'Thread']}>
            {threads.data.data.map((thread) => (
              <tr key={thread.id}>
                <td className="said">
                  <Conversation preview={thread.preview} />
                </td>
                <td>{thread.preview ? `${thread.preview.messageCount}${thread.preview.messageCountCapped ? '+' : ''}` : '—'}</td>
                <td>
                  {thread.preview?.costUsd ? (
                    `$${thread.preview.costUsd}`
                  ) : (
                    <span className="muted">{thread.preview?.calls ? 'no price' : '—'}</span>
                  )}
                </td>
                <td>{formatTime(thread.createdAt)}</td>
                <td>
                  <code>{JSON.stringify(thread.metadata)}</code>
                </td>
                <td>
                  <Link to={`/threads/${thread.id}`} className="thread-id">
                    {thread.id}
                  </Link>
                </td>
              </tr>
            ))}
          </DataTable>
          {threads.data.has_more && threads.data.last_id ? <Link to={more(threads.data.last_id)}>Older</Link> : null}
        </>
      ) : metadata ? (
        <EmptyState title="No threads match this filter">
          <p>No live thread has that metadata value: check the key and value (key:value), or clear the filter.</p>
        </EmptyState>
      ) : (
        <EmptyState title="No threads yet">
          <p>
            An assistant keeps each conversation in a thread. Call an assistant (for example from its playground) and its thread appears
            here.
          </p>
        </EmptyState>
      )}
    </>
  );
}

/**
 * The thread's first and last message (the API's `include=preview`, each cut at 160 characters),
 * as text, never as markup; one when the thread holds one.
 */
function Conversation({ preview }: { preview: Schemas['ThreadPreviewDto'] | undefined }) {
  if (!preview || (!preview.first && !preview.last)) return <span className="muted">no messages</span>;
  const same = preview.first && preview.last && preview.messageCount <= 1 && preview.first.text === preview.last.text;
  return (
    <>
      {preview.first ? (
        <span className="said-line">
          <span className="said-label">{preview.first.role}</span> {preview.first.text}
        </span>
      ) : null}
      {preview.last && !same ? (
        <span className="said-line">
          <span className="said-label">{preview.first ? `… ${preview.last.role}` : preview.last.role}</span> {preview.last.text}
        </span>
      ) : null}
    </>
  );
}

/** A thread as a transcript: each turn's messages, tool calls and results, linked to the call (log) that added them. */
export function ThreadScreen() {
  const id = useParams().id!;
  const thread = useQuery({
    queryKey: ['thread', id],
    queryFn: () => unwrap(api.GET('/v2/threads/{threadId}', { params: { path: { threadId: id } } })),
  });
  const messages = useQuery({
    queryKey: ['thread', id, 'messages'],
    queryFn: () =>
      unwrap(api.GET('/v2/threads/{threadId}/messages', { params: { path: { threadId: id }, query: { limit: 100, order: 'asc' } } })),
  });
  // The call that started the thread names the assistant and version to continue it with.
  const firstLogId = (messages.data?.data.find((row) => row.requestLogId)?.requestLogId as string | null | undefined) ?? null;
  const firstLog = useQuery({
    queryKey: ['log', firstLogId],
    queryFn: () => unwrap(api.GET('/v2/logs/{logId}', { params: { path: { logId: firstLogId! } } })),
    enabled: !!firstLogId,
  });
  if (thread.isPending || messages.isPending) return <Loading />;
  if (thread.error || messages.error) return <ErrorNote error={thread.error ?? messages.error} />;
  const rows = messages.data.data;
  // Each turn's first message carries the turn's links: its call's log, and "Add to dataset" when the turn asks something.
  const flat = rows.flatMap((row) =>
    (row.content as { role?: string }[]).map((message, index) => ({
      message,
      logId: row.requestLogId as string | null,
      turn: index === 0 && row.content.some((m) => m.role === 'user') ? row.id : null,
    })),
  );
  return (
    <>
      <h1>Thread {id.slice(0, 8)}…</h1>
      <p className="muted">
        Created {formatTime(thread.data.createdAt)} · metadata <code>{JSON.stringify(thread.data.metadata)}</code>
      </p>
      <p className="row">
        <Link to={`/logs?threadId=${id}`}>Calls in this thread</Link>
        {firstLog.data?.kind === 'assistant' && firstLog.data.version ? (
          <Link to={`/prompts/${encodeURIComponent(firstLog.data.promptSlug ?? '')}/playground?from=${firstLog.data.version}&thread=${id}`}>
            Continue in the playground ({firstLog.data.promptSlug})
          </Link>
        ) : null}
      </p>
      {flat.length === 0 ? (
        <p className="muted">This thread has no messages yet.</p>
      ) : (
        <ChatTranscript
          label="Transcript"
          messages={flat.map((m) => m.message)}
          links={(index) => (
            <>
              {flat[index].logId ? <Link to={`/logs/${flat[index].logId}`}>call log</Link> : null}
              {flat[index].turn ? (
                <AddToDataset source={{ threadId: id, messageId: flat[index].turn! }} label="Add turn to dataset" small />
              ) : null}
            </>
          )}
        />
      )}
      {messages.data.has_more ? <p className="muted">Showing the first 100 messages.</p> : null}
    </>
  );
}
