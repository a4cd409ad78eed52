import { SchedulerRegistry } from '@nestjs/schedule';

/**
 * Periodic work runs in the application's SchedulerRegistry (docs/architecture.md, "House rules"),
 * not in hand-kept timers. Unref'd: periodic work never keeps a process alive on its own. Not
 * `@Interval()`: its timer is not unref'd and runs until beforeApplicationShutdown, after the
 * services' onModuleDestroy, so a service stops its own work here instead, in onModuleDestroy.
 */
export function startPeriodic(schedule: SchedulerRegistry, name: string, everyMs: number, work: () => void): void {
  schedule.addInterval(name, setInterval(work, everyMs).unref());
}

/** Stops `name`; nothing to do when it never started (or already stopped). */
export function stopPeriodic(schedule: SchedulerRegistry, name: string): void {
  if (schedule.doesExist('interval', name)) schedule.deleteInterval(name);
}
