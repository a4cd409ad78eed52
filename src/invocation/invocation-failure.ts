import { Logger } from '@nestjs/common';

import type { ProjectPrincipal } from '../auth/principal';
import { type ApiException, serviceError } from '../common/errors';
import { ProviderError, type TokenCounts } from '../providers';
import type { PreparedInvocation } from './invocation.types';
import type { InvocationRecorder } from './invocation-recorder';
import { providerFailure } from './invoke-errors';
import { servedTargetHeaders } from './invoke-http';

const logger = new Logger('Invocation');

/**
 * Records a failed call (a routed one with all its attempts) and returns the error to answer
 * with, which names the target tried last and how many were (docs/routing.md).
 */
export async function recordedFailure(
  recorder: Pick<InvocationRecorder, 'recordFailure'>,
  caller: ProjectPrincipal,
  prepared: PreparedInvocation,
  err: unknown,
  startedAt: Date,
  ttftMs: number | null,
  partial?: { tokens: TokenCounts | undefined },
): Promise<ApiException> {
  // Anything else is a bug in an adapter: answered as a provider failure, logged with its stack.
  if (!(err instanceof ProviderError)) logger.error(`provider call failed unexpectedly: ${err instanceof Error ? err.stack : String(err)}`);
  const failure = err instanceof ProviderError ? providerFailure(err) : serviceError(502, 'Bad Gateway', 'The provider call failed');
  const message = (failure.body as { message: string }).message;
  // The upstream's own words may quote the prompt: the caller sees them, a doNotRecord log does not.
  const error = prepared.input.doNotRecord && err instanceof ProviderError ? err.recordableMessage : message;
  const usage = partial ? { ...(partial.tokens ? { tokens: partial.tokens } : {}), usagePartial: true } : {};
  const route = prepared.route;
  await recorder.recordFailure(caller, prepared, {
    status: failure.getStatus(),
    error,
    startedAt,
    ttftMs,
    ...usage,
    ...(route ? { route } : {}),
  });
  Object.assign(failure.headers, servedTargetHeaders(prepared));
  return failure;
}
