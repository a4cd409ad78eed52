import type { RequestLogDetail } from '../../api/client';
import { DataTable } from '../../components/table';

const dash = (value: number | string | null | undefined, unit = '') => (value === null || value === undefined ? '—' : `${value}${unit}`);

/** The targets a routed call tried, in order (docs/routing.md, "Every attempt recorded"); nothing for a log without attempts. */
export function LogAttempts({ log }: { log: RequestLogDetail }) {
  const attempts = log.attempts;
  if (!attempts?.length) return null;
  return (
    <section aria-labelledby="attempts">
      <h2 id="attempts">Attempts</h2>
      <DataTable
        label="Attempts"
        columns={['#', 'Provider and model', 'Status', 'Latency', 'First token', 'Tokens (in / out)', 'Cost', 'Error']}
      >
        {attempts.map((attempt, index) => (
          <tr key={index}>
            <td>{index + 1}</td>
            <td>
              {attempt.provider}/{attempt.model}
            </td>
            <td>{attempt.status}</td>
            <td>{dash(attempt.latencyMs, ' ms')}</td>
            <td>{dash(attempt.ttftMs, ' ms')}</td>
            <td>
              {dash(attempt.inputTokens)} / {dash(attempt.outputTokens)}
            </td>
            <td>{attempt.costUsd === null || attempt.costUsd === undefined ? '—' : `$${attempt.costUsd}`}</td>
            <td>{attempt.error ?? '—'}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
