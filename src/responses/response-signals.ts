import { Injectable } from '@nestjs/common';

import { ChangeNotifier } from '../database/changes';

type Listener = () => void;

/**
 * The responses' notifications from every instance (NOTIFY on PostgreSQL, in-process on PGlite,
 * through the one ChangeNotifier): new stored events of a response, a cancel, a queued job. A
 * listener that reconnected may have missed some: every waiter is woken then, and re-reads the
 * database (docs/openai-conversations.md, "Background responses and resumable streams").
 */
@Injectable()
export class ResponseSignals {
  private readonly events = new Map<string, Set<Listener>>();
  private readonly cancels = new Map<string, Set<Listener>>();
  private readonly jobs = new Set<Listener>();

  constructor(changes: ChangeNotifier) {
    changes.subscribe({
      onChange: (change) => {
        if (change.kind === 'response-events') this.fire(this.events.get(change.responseId));
        else if (change.kind === 'response-cancel') this.fire(this.cancels.get(change.responseId));
        else if (change.kind === 'response-jobs') this.fire(this.jobs);
      },
      onFlush: () => {
        for (const set of [...this.events.values(), ...this.cancels.values()]) this.fire(set);
        this.fire(this.jobs);
      },
    });
  }

  /** Calls `listener` whenever `responseId` stored more events; returns the unsubscribe. */
  onEvents(responseId: string, listener: Listener): () => void {
    return this.add(this.events, responseId, listener);
  }

  onCancel(responseId: string, listener: Listener): () => void {
    return this.add(this.cancels, responseId, listener);
  }

  onJobs(listener: Listener): () => void {
    this.jobs.add(listener);
    return () => void this.jobs.delete(listener);
  }

  private add(map: Map<string, Set<Listener>>, key: string, listener: Listener): () => void {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && map.get(key) === set) map.delete(key);
    };
  }

  private fire(set: Set<Listener> | undefined): void {
    for (const listener of [...(set ?? [])]) listener();
  }
}
