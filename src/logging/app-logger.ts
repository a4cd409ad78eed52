import type { LoggerService } from '@nestjs/common';
import pino, { Level, Logger as Pino } from 'pino';

/**
 * Structured JSON lines on stdout (docs/operations.md, "Logs"); `silent` writes nothing. Lines are
 * not bound to the request they were written in: that takes an AsyncLocalStorage, whose promise
 * hooks cost 7 % of the CPU of every invoke (docs/performance.md). The request line and the line of
 * an unexpected error carry the request id instead.
 */
export function createPino(level: string): Pino {
  return pino({ level });
}

/**
 * Nest's LoggerService on pino: `new Logger('Context').warn(...)` anywhere in the app becomes one
 * JSON line with `context`. Nest passes the context last, and `error(message, stack, context)`.
 */
export class PinoNestLogger implements LoggerService {
  constructor(readonly pino: Pino) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const rest = [...params];
    const context = typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    const fields: Record<string, unknown> = context === undefined ? {} : { context };
    const stack = rest.find((p): p is string => typeof p === 'string');
    if (stack !== undefined && level === 'error') fields.stack = stack;
    if (message instanceof Error) return this.pino[level]({ ...fields, err: message }, message.message);
    if (message !== null && typeof message === 'object') return this.pino[level]({ ...fields, ...(message as object) });
    this.pino[level](fields, String(message));
  }
}
