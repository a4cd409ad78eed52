import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { Agent, request } from 'undici';

import { startPeriodic, stopPeriodic } from '../common/periodic';
import { AppConfig } from '../config/app-config';
import { OutboundPolicy, OutboundPolicyError } from '../providers/outbound-policy';
import { signWebhook } from './webhook-signature';
import { DueDelivery, WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Seconds before each retry after a failed attempt; after the last, the delivery is `failed`. */
export const RETRY_SCHEDULE_S = [1, 5, 30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600];
const POLL_MS = 500;
const POLL = 'webhook-deliveries';
const TIMEOUT_MS = 10_000;
/** A claimed delivery is retried after this if its instance dies mid-send. */
const CLAIM_LEASE_S = 60;
/** Deliveries one instance sends at once, in all, and for one project (docs/openai-conversations.md, "Webhooks"). */
const MAX_IN_FLIGHT = 32;
const PER_PROJECT = 2;

/**
 * Sends the webhook deliveries (docs/openai-conversations.md, "Webhooks"): every instance claims
 * due ones (`FOR UPDATE SKIP LOCKED`) every half second and POSTs them, signed in the Standard
 * Webhooks format, through the outbound policy (PROVIDER_ALLOWED_HOSTS); a 2xx delivers, anything
 * else is retried on RETRY_SCHEDULE_S. At least once: a receiver de-duplicates by `webhook-id`.
 * Fair across projects: each delivery is sent on its own (a slow receiver holds only its own), at
 * most PER_PROJECT per project at a time, so one project's hanging receiver delays no other's; a
 * delivery the outbound policy refuses fails at once (retrying cannot make it allowed).
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Webhooks');
  private readonly agent: Agent;
  private claiming = false;
  /** Deliveries being sent by this instance, per project. */
  private readonly inFlight = new Map<string, number>();
  private sending = 0;
  /** The sends under way, awaited at shutdown. */
  private readonly sends = new Set<Promise<void>>();
  /** Shutting down: a send cut by it is not a failed attempt (releaseClaim). */
  private stopping = false;

  constructor(
    private readonly repository: WebhooksRepository,
    private readonly webhooks: WebhooksService,
    config: AppConfig,
    private readonly schedule: SchedulerRegistry,
  ) {
    const policy = new OutboundPolicy(config.providerAllowedHosts);
    this.agent = new Agent({ connect: policy.connector(TIMEOUT_MS), keepAliveTimeout: 4_000 });
  }

  onApplicationBootstrap(): void {
    startPeriodic(this.schedule, POLL, POLL_MS, () => void this.tick());
  }

  async onModuleDestroy(): Promise<void> {
    stopPeriodic(this.schedule, POLL);
    this.stopping = true;
    // Not close(): that would wait for a hanging receiver. A send cut here is not an attempt of the
    // receiver's: its claim is given back uncounted, due at once for another instance.
    await this.agent.destroy().catch(() => undefined);
    // Before the database closes: the cut sends give their claims back, answered ones record their delivery.
    await Promise.allSettled([...this.sends]);
  }

  /**
   * One pass: claims what is due, for projects this instance is not already sending for, while it
   * has room, and starts each send without waiting for it.
   */
  async tick(): Promise<void> {
    if (this.claiming || this.stopping) return;
    this.claiming = true;
    try {
      for (;;) {
        const room = MAX_IN_FLIGHT - this.sending;
        if (room < PER_PROJECT) break;
        const due = await this.repository.claimDue(Math.floor(room / PER_PROJECT), PER_PROJECT, CLAIM_LEASE_S, [...this.inFlight.keys()]);
        if (due.length === 0) break;
        for (const delivery of due) this.start(delivery);
      }
    } catch (err) {
      this.logger.warn(`webhook deliveries: ${(err as Error).message}`);
    } finally {
      this.claiming = false;
    }
  }

  private start(delivery: DueDelivery): void {
    this.sending++;
    this.inFlight.set(delivery.projectId, (this.inFlight.get(delivery.projectId) ?? 0) + 1);
    const sent = this.send(delivery)
      .catch((err: unknown) => this.logger.warn(`webhook delivery ${delivery.id}: ${(err as Error).message}`))
      .finally(() => {
        this.sends.delete(sent);
        this.sending--;
        const left = (this.inFlight.get(delivery.projectId) ?? 1) - 1;
        if (left > 0) this.inFlight.set(delivery.projectId, left);
        else this.inFlight.delete(delivery.projectId);
      });
    this.sends.add(sent);
  }

  private async send(delivery: DueDelivery): Promise<void> {
    const target = await this.webhooks.signingTarget(delivery.projectId, delivery.webhookId);
    if (!target) return this.repository.attemptFailed(delivery, null, 'the webhook was deleted', null);
    const eventId = (JSON.parse(delivery.payload) as { id: string }).id;
    const timestamp = Math.floor(Date.now() / 1000);
    let status: number | null = null;
    let error: string;
    try {
      const res = await request(target.url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Parley-Webhooks',
          'webhook-id': eventId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(target.secret, eventId, timestamp, delivery.payload),
        },
        body: delivery.payload,
        headersTimeout: TIMEOUT_MS,
        bodyTimeout: TIMEOUT_MS,
      });
      status = res.statusCode;
      await res.body.dump().catch(() => undefined);
      if (status >= 200 && status < 300) return this.repository.delivered(delivery, status);
      error = `answered ${status}`;
    } catch (err) {
      if (this.stopping) return this.repository.releaseClaim(delivery);
      error = (err as Error).message;
      // Refused by the outbound policy: no retry can make it allowed.
      if (refusedByPolicy(err)) return this.repository.attemptFailed(delivery, null, error, null);
    }
    const retryIn = RETRY_SCHEDULE_S[delivery.attempts - 1] ?? null;
    await this.repository.attemptFailed(delivery, status, error, retryIn);
  }
}

/** undici wraps what the connector refused; the policy's own error is somewhere in the cause chain. */
function refusedByPolicy(err: unknown): boolean {
  for (let cause = err, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    if (cause instanceof OutboundPolicyError) return true;
  }
  return false;
}
