import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { Agent, request } from 'undici';
import { AppConfig } from '../config/app-config';
import { OutboundPolicy } from '../providers/outbound-policy';
import { signWebhook } from './webhook-signature';
import { DueDelivery, WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Seconds before each retry after a failed attempt; after the last, the delivery is `failed`. */
export const RETRY_SCHEDULE_S = [1, 5, 30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600];
const POLL_MS = 500;
const TIMEOUT_MS = 10_000;
/** A claimed delivery is retried after this if its instance dies mid-send. */
const CLAIM_LEASE_S = 60;
const BATCH = 10;

/**
 * Sends the webhook deliveries (docs/openai-conversations.md, "Webhooks"): every instance claims
 * due ones (`FOR UPDATE SKIP LOCKED`) every half second and POSTs them, signed in the Standard
 * Webhooks format, through the outbound policy (PROVIDER_ALLOWED_HOSTS); a 2xx delivers, anything
 * else is retried on RETRY_SCHEDULE_S. At least once: a receiver de-duplicates by `webhook-id`.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Webhooks');
  private readonly agent: Agent;
  private timer: NodeJS.Timeout | null = null;
  private busy = false;

  constructor(
    private readonly repository: WebhooksRepository,
    private readonly webhooks: WebhooksService,
    config: AppConfig,
  ) {
    const policy = new OutboundPolicy(config.providerAllowedHosts);
    this.agent = new Agent({ connect: policy.connector(TIMEOUT_MS), keepAliveTimeout: 4_000 });
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), POLL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.agent.close().catch(() => undefined);
  }

  /** One pass: claims what is due and sends it. */
  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      for (let due = await this.repository.claimDue(BATCH, CLAIM_LEASE_S); due.length > 0; due = await this.repository.claimDue(BATCH, CLAIM_LEASE_S)) {
        await Promise.all(due.map((delivery) => this.send(delivery)));
      }
    } catch (err) {
      this.logger.warn(`webhook deliveries: ${(err as Error).message}`);
    } finally {
      this.busy = false;
    }
  }

  private async send(delivery: DueDelivery): Promise<void> {
    const target = await this.webhooks.signingTarget(delivery.projectId, delivery.webhookId);
    if (!target) return this.repository.attemptFailed(delivery, null, 'the webhook was deleted', null);
    const eventId = (JSON.parse(delivery.payload) as { id: string }).id;
    const timestamp = Math.floor(Date.now() / 1000);
    let status: number | null = null;
    let error = '';
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
      error = (err as Error).message;
    }
    const retryIn = RETRY_SCHEDULE_S[delivery.attempts - 1] ?? null;
    await this.repository.attemptFailed(delivery, status, error, retryIn);
  }
}
