'use strict';
/**
 * Preloaded (`node -r`) into every process the benchmark starts, Parley's dist/main.js included:
 * when the harness goes away without stopping its children (killed, crashed), the IPC channel
 * closes and the child exits instead of lingering on its port.
 */
if (typeof process.send === 'function') {
  process.on('disconnect', () => process.exit(1));
  // The channel must not keep an otherwise finished process alive.
  process.channel?.unref();
}
