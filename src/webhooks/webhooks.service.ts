import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { SecretBox, SecretBoxError } from '../common/crypto/secret-box';
import { badRequest, notFound } from '../common/errors';
import { newId } from '../common/ids';
import { CreateTransaction } from '../idempotency/create-transaction';
import { CreateWebhookDto, RESPONSE_EVENTS, WebhookCreatedDto, WebhookDto } from './webhook.dto';
import { newWebhookSecret } from './webhook-signature';
import { WebhookRow, WebhooksRepository } from './webhooks.repository';

const contextOf = (projectId: string, id: string) => `webhook:${projectId}:${id}`;
const eventIdOf = (uuid: string) => `evt_${uuid.replace(/-/g, '')}`;
const toDto = (row: WebhookRow): WebhookDto => ({
  id: row.id,
  object: 'webhook',
  url: row.url,
  events: row.events,
  createdAt: row.createdAt.toISOString(),
});

/**
 * Webhooks per project (docs/openai-conversations.md, "Webhooks"): a URL and the events it wants
 * (responses' final ones by default; a split's tripped guard when named); its signing secret is
 * shown once, at creation, and stored encrypted. `enqueue` writes one delivery per subscribed
 * webhook in the caller's transaction (the response's end, the guard's trip), so an event is
 * delivered at least once, with its event id as `webhook-id` for de-duplication.
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly box: SecretBox,
  ) {}

  /** In the route's CreateTransaction: an Idempotency-Key's outcome commits with the row (docs/security.md). */
  async create(projectId: string, dto: CreateWebhookDto, tx?: CreateTransaction): Promise<WebhookCreatedDto> {
    const id = newId();
    const secret = newWebhookSecret();
    let sealed: string;
    try {
      sealed = this.box.encrypt(secret, contextOf(projectId, id));
    } catch (err) {
      if (err instanceof SecretBoxError)
        throw badRequest('Invalid request body', [`secret: ${err.message.replace('API keys', 'webhook secrets')}`]);
      throw err;
    }
    const row: WebhookRow = { id, url: dto.url, events: dto.events ?? [...RESPONSE_EVENTS], secret: sealed, createdAt: new Date() };
    const create = async (manager?: EntityManager) => {
      await this.webhooks.insert(projectId, row, manager);
      return { ...toDto(row), secret };
    };
    return tx ? tx.run(create) : create();
  }

  async list(projectId: string): Promise<WebhookDto[]> {
    return (await this.webhooks.list(projectId)).map(toDto);
  }

  async delete(projectId: string, id: string): Promise<{ id: string; object: 'webhook'; deleted: true }> {
    if (!/^[0-9a-f-]{36}$/i.test(id) || !(await this.webhooks.delete(projectId, id))) throw notFound('Webhook not found');
    return { id, object: 'webhook', deleted: true };
  }

  /** The plaintext secret of a webhook (for signing), or null when it is gone. */
  async signingTarget(projectId: string, id: string): Promise<{ url: string; secret: string } | null> {
    const row = await this.webhooks.find(projectId, id);
    return row ? { url: row.url, secret: this.box.decrypt(row.secret, contextOf(projectId, id)) } : null;
  }

  /** One delivery of `type` (`response.completed`, ...) about `data` per webhook of the project that wants it, in `manager`'s transaction. */
  async enqueue(manager: EntityManager, projectId: string, type: string, data: Record<string, unknown>): Promise<void> {
    const targets = (await this.webhooks.list(projectId, manager)).filter((webhook) => webhook.events.includes(type));
    if (targets.length === 0) return;
    const createdAt = Math.floor(Date.now() / 1000);
    await this.webhooks.insertDeliveries(
      manager,
      projectId,
      targets.map((webhook) => {
        const id = newId();
        return {
          id,
          webhookId: webhook.id,
          type,
          payload: JSON.stringify({ id: eventIdOf(id), object: 'event', type, created_at: createdAt, data }),
        };
      }),
    );
  }
}
