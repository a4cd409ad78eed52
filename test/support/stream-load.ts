import * as path from 'node:path';
import { Worker } from 'node:worker_threads';

/** One streamed invoke as a cheap client sees it: status, bytes, whether it ended with [DONE]. */
export interface StreamOutcome {
  status: number;
  bytes: number;
  done: boolean;
  /** The body of an answer that was not a 200 (its error). */
  text: string;
}

export interface StreamLoad {
  /** Resolves once every stream got its first bytes (or ended). */
  started: Promise<void>;
  /** Every stream's outcome, once all ended. */
  finished: Promise<StreamOutcome[]>;
  /** How many answers are still arriving. */
  running: () => number;
  /** Stops the worker (its sockets close). */
  close: () => Promise<void>;
}

/**
 * `count` streamed invokes of `body` at once, opened and read on a worker thread
 * (stream-load.worker.js) without parsing the events: the test's own event loop stays free for
 * the latencies it measures, as if the load came from another client machine.
 */
export function streamLoad(url: string, key: string, body: object, count: number): StreamLoad {
  const worker = new Worker(path.join(__dirname, 'stream-load.worker.js'), { workerData: { url, key, body, count } });
  const outcomes: StreamOutcome[] = new Array(count);
  let startedCount = 0;
  let finishedCount = 0;
  let markStarted: () => void = () => undefined;
  let markFinished: (outcomes: StreamOutcome[]) => void = () => undefined;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const finished = new Promise<StreamOutcome[]>((resolve, reject) => {
    markFinished = resolve;
    worker.on('error', reject);
  });
  worker.on('message', (message: { type: 'started' | 'finished'; i: number; outcome?: StreamOutcome }) => {
    if (message.type === 'started' && ++startedCount === count) markStarted();
    if (message.type === 'finished') {
      outcomes[message.i] = message.outcome!;
      if (++finishedCount === count) markFinished(outcomes);
    }
  });
  return {
    started,
    finished,
    running: () => count - finishedCount,
    close: async () => {
      worker.postMessage('abort');
      await worker.terminate();
    },
  };
}

/** A request's wall time in milliseconds, with its status. */
export async function timed(run: () => Promise<{ status: number }>): Promise<{ ms: number; status: number }> {
  const start = performance.now();
  const { status } = await run();
  return { ms: performance.now() - start, status };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
