import { setFlagsFromString } from 'node:v8';

/**
 * V8 lets the old generation grow to up to 4× what the last full collection kept before it
 * collects again. Under load Parley promotes many short-lived objects (a call's objects outlive
 * two young-generation collections while it waits on the provider and PostgreSQL), so its resident
 * memory climbed to 320-330 MB with a live heap of 55 MB. A fixed factor of 2 keeps it near 220 MB
 * for no measurable CPU (docs/performance.md, "Memory"). A `--heap-growing-percent` given by the
 * operator (NODE_OPTIONS or the node command line) wins.
 */
export function limitHeapGrowth(setFlags: (flags: string) => void = setFlagsFromString): void {
  const given = `${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`;
  if (/--heap[-_]growing[-_]percent/.test(given)) return;
  setFlags('--heap-growing-percent=100');
}
