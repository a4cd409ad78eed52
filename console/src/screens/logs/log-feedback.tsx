import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Form } from 'react-aria-components';

import { api, type Schemas, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { Choices, TextInput } from '../../components/fields';
import { DataTable } from '../../components/table';
import { ErrorNote, formatTime, Loading, Notice } from '../../components/ui';
import { useCan } from '../../session';

type Feedback = Schemas['FeedbackDto'];
type Kind = 'number' | 'boolean' | 'category';

const feedbackKey = (logId: string) => ['feedback', 'log', logId] as const;
const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const valueText = (value: Feedback['value']) => (typeof value === 'boolean' ? (value ? 'true' : 'false') : String(value));
const sourceText = (source: string) => (source === 'console' ? 'the console' : `key ${source.slice(0, 8)}…`);

/**
 * A call's feedback (docs/experiments.md, "Feedback"): every score on this log (given on it, or on its
 * thread or response), and a form to score it from the console (source `console`: sending the same
 * name again replaces the console's score, never the application's).
 */
export function LogFeedback({ logId }: { logId: string }) {
  const canWrite = useCan('feedback:write');
  const list = useQuery({
    queryKey: feedbackKey(logId),
    queryFn: () => unwrap(api.GET('/v2/feedback', { params: { query: { logId, limit: 100 } } })),
  });
  return (
    <section aria-labelledby="feedback">
      <h2 id="feedback">Feedback</h2>
      <ErrorNote error={list.error} />
      {list.isPending ? (
        <Loading />
      ) : list.data && list.data.data.length > 0 ? (
        <DataTable label="Feedback on this call" columns={['Name', 'Value', 'Comment', 'From', 'On', 'Updated']}>
          {list.data.data.map((f) => (
            <tr key={f.id}>
              <td>{f.name}</td>
              <td>{valueText(f.value)}</td>
              <td className="pre-wrap">{f.comment ?? <span className="muted">—</span>}</td>
              <td>{sourceText(f.source)}</td>
              <td>{f.target.type === 'log' ? 'this call' : `its ${f.target.type}`}</td>
              <td>{formatTime(f.updatedAt)}</td>
            </tr>
          ))}
        </DataTable>
      ) : list.data ? (
        <p className="muted">No feedback on this call yet.</p>
      ) : null}
      {list.data?.has_more ? <p className="muted small">The 100 newest are shown.</p> : null}
      {canWrite ? <FeedbackForm logId={logId} /> : <Notice>This key cannot give feedback: it needs the feedback:write scope.</Notice>}
    </section>
  );
}

function FeedbackForm({ logId }: { logId: string }) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('number');
  const [number, setNumber] = useState('');
  const [flag, setFlag] = useState<'true' | 'false'>('true');
  const [category, setCategory] = useState('');
  const [comment, setComment] = useState('');
  const client = useQueryClient();
  const value = kind === 'number' ? (number.trim() === '' ? NaN : Number(number)) : kind === 'boolean' ? flag === 'true' : category;
  const problem = !NAME.test(name.trim())
    ? 'The name: lower-case letters, digits, "-" or "_" (helpful, csat, tone).'
    : kind === 'number' && !Number.isFinite(value)
      ? 'The value: a number.'
      : kind === 'category' && category.trim() === ''
        ? 'The value: a category.'
        : null;
  const send = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/v2/feedback', {
          body: { logId, name: name.trim(), value: typeof value === 'string' ? value.trim() : value, comment: comment.trim() || null },
        }),
      ),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: feedbackKey(logId) });
      // The per-arm results read the feedback rollups: their means change with it.
      void client.invalidateQueries({ queryKey: ['prompt'] });
    },
  });
  return (
    <Form
      className="panel"
      aria-labelledby="score-this-call"
      onSubmit={(event) => {
        event.preventDefault();
        if (!problem) send.mutate();
      }}
    >
      <h3 id="score-this-call">Score this call</h3>
      <p className="muted small">
        Given from the console (a reviewer&apos;s score, kept apart from the application&apos;s): the same name again replaces it.
      </p>
      <div className="row">
        <TextInput label="Name" value={name} onChange={setName} isRequired placeholder="helpful" />
        <Choices
          label="Kind of value"
          items={[
            { id: 'number', label: 'number' },
            { id: 'boolean', label: 'true or false' },
            { id: 'category', label: 'category' },
          ]}
          value={kind}
          onChange={setKind}
        />
      </div>
      <div className="row">
        {kind === 'number' ? (
          <TextInput label="Value" value={number} onChange={setNumber} inputMode="decimal" placeholder="4" />
        ) : kind === 'boolean' ? (
          <Choices
            label="Value"
            items={[
              { id: 'true', label: 'true' },
              { id: 'false', label: 'false' },
            ]}
            value={flag}
            onChange={setFlag}
          />
        ) : (
          <TextInput label="Value" value={category} onChange={setCategory} placeholder="friendly" />
        )}
      </div>
      <TextInput label="Comment (optional)" value={comment} onChange={setComment} rows={2} />
      {name && problem ? <p className="error-text small">{problem}</p> : null}
      <ErrorNote error={send.error} />
      {send.isSuccess && !send.isPending ? (
        <p role="status" className="success">
          Saved {send.data.name} = {valueText(send.data.value)}
          {send.data.version !== null ? ` for v${send.data.version}${send.data.environment ? ` in ${send.data.environment}` : ''}` : ''}.
        </p>
      ) : null}
      <Button type="submit" isDisabled={!!problem || send.isPending}>
        Save the score
      </Button>
    </Form>
  );
}
