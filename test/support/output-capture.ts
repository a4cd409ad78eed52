// The module object itself (not an __importStar copy), so that replacing its functions reaches every user.
// eslint-disable-next-line @typescript-eslint/no-require-imports
import fs = require('node:fs');

type Callback = (...args: unknown[]) => void;

const text = (chunk: unknown, encoding?: unknown) =>
  typeof chunk === 'string'
    ? chunk
    : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array
      ? Buffer.from(chunk).toString(typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
      : String(chunk);
const bytes = (chunk: unknown) => (typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Uint8Array).length);

/**
 * Everything the process writes to its standard output and error while active, kept instead of
 * printed: pino's destination (sonic-boom writes fd 1 with fs.write / fs.writeSync, not through
 * process.stdout), process.stdout / process.stderr, and the console. What is captured is exactly
 * what an operator's log collector would receive.
 */
export function captureOutput() {
  const chunks: string[] = [];
  const original = {
    write: fs.write,
    writeSync: fs.writeSync,
    stdout: process.stdout.write,
    stderr: process.stderr.write,
    console: { log: console.log, info: console.info, warn: console.warn, error: console.error, debug: console.debug },
  };
  const isStd = (fd: unknown) => fd === 1 || fd === 2 || fd === process.stdout.fd || fd === process.stderr.fd;

  (fs as { writeSync: unknown }).writeSync = function (fd: number, chunk: unknown, ...rest: unknown[]) {
    if (!isStd(fd)) return (original.writeSync as (...a: unknown[]) => number).call(fs, fd, chunk, ...rest);
    chunks.push(
      text(
        chunk,
        rest.find((r) => typeof r === 'string'),
      ),
    );
    return bytes(chunk);
  };
  (fs as { write: unknown }).write = function (fd: number, chunk: unknown, ...rest: unknown[]) {
    if (!isStd(fd)) return (original.write as (...a: unknown[]) => void).call(fs, fd, chunk, ...rest);
    chunks.push(
      text(
        chunk,
        rest.find((r) => typeof r === 'string'),
      ),
    );
    const callback = rest.find((r): r is Callback => typeof r === 'function');
    if (callback) process.nextTick(callback, null, bytes(chunk), chunk);
  };
  const stream = (chunk: unknown, encoding?: unknown, callback?: unknown) => {
    chunks.push(text(chunk, encoding));
    const done = [encoding, callback].find((r): r is Callback => typeof r === 'function');
    if (done) process.nextTick(done);
    return true;
  };
  process.stdout.write = stream as typeof process.stdout.write;
  process.stderr.write = stream as typeof process.stderr.write;
  for (const name of Object.keys(original.console) as Array<keyof typeof original.console>) {
    console[name] = (...args: unknown[]) =>
      void chunks.push(`${args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}\n`);
  }

  return {
    text: () => chunks.join(''),
    restore() {
      (fs as { write: unknown }).write = original.write;
      (fs as { writeSync: unknown }).writeSync = original.writeSync;
      process.stdout.write = original.stdout;
      process.stderr.write = original.stderr;
      Object.assign(console, original.console);
    },
  };
}
