import { Injectable } from '@nestjs/common';

import { ResponseEventStore, TERMINAL_EVENTS } from './response-event-store';
import type { ResponseEvent } from './response-events';
import { ResponseSignals } from './response-signals';
import { ResponseStatesRepository } from './response-states.repository';

/** The longest a follower waits for a notification before reading again (a lost NOTIFY costs at most this). */
const POLL_MS = 1000;

/**
 * A response's stored stream events after a sequence number, then the live ones as they are
 * stored, until its final event: each exactly once and in order, on any instance
 * (`GET /v1/responses/{id}?stream=true&starting_after=N`, and a background stream's own POST).
 */
@Injectable()
export class ResponseResume {
  constructor(
    private readonly store: ResponseEventStore,
    private readonly states: ResponseStatesRepository,
    private readonly signals: ResponseSignals,
  ) {}

  async *follow(projectId: string, responseId: string, after: number, signal?: AbortSignal): AsyncGenerator<ResponseEvent> {
    let cursor = after;
    let notified: boolean;
    let wake: (() => void) | null = null;
    const poke = () => {
      notified = true;
      wake?.();
    };
    const off = this.signals.onEvents(responseId, poke);
    signal?.addEventListener('abort', poke);
    try {
      let finalSeen = false;
      for (;;) {
        if (signal?.aborted) return;
        notified = false;
        const events = await this.store.after(projectId, responseId, cursor);
        for (const stored of events) {
          const event = JSON.parse(stored.json) as ResponseEvent;
          cursor = stored.sequence;
          yield event;
          if (TERMINAL_EVENTS.has(event.type)) finalSeen = true;
        }
        // The terminal event's batch may carry an `error` event after it: that batch was sent whole.
        if (finalSeen) return;
        if (events.length > 0) continue;
        // Final without a terminal event left to read (its events pruned, say): nothing more will come.
        if (await this.states.isFinished(projectId, responseId)) {
          if ((await this.store.after(projectId, responseId, cursor)).length === 0) return;
          continue;
        }
        if (!notified) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, POLL_MS);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = null;
        }
      }
    } finally {
      off();
      signal?.removeEventListener('abort', poke);
    }
  }
}
