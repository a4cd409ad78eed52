import type { ProjectPrincipal } from '../auth/principal';
import { ApiException } from '../common/errors';
import type { Admission, LimitsService } from '../limits/limits.service';
import type { PreparedInvocation } from './invocation.types';
import type { InvocationRecorder } from './invocation-recorder';

/**
 * The caller's limits and budgets (docs/security.md, "Limits"), for every call of the core (chat
 * and embeddings alike); a call they refuse is logged with its 429, then thrown.
 */
export async function admitOrLog(
  limits: LimitsService,
  recorder: InvocationRecorder,
  caller: ProjectPrincipal,
  prepared: PreparedInvocation,
  startedAt: Date,
  signal?: AbortSignal,
): Promise<Admission> {
  try {
    return await limits.admit(caller, signal);
  } catch (err) {
    if (err instanceof ApiException && err.getStatus() === 429) {
      const message = (err.body as { message?: string }).message ?? 'Too Many Requests';
      await recorder.recordFailure(caller, prepared, { status: 429, error: message, startedAt, ttftMs: null });
    }
    throw err;
  }
}
