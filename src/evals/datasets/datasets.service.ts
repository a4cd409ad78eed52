import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { z } from 'zod';

import { AuditLog } from '../../audit/audit-log';
import { hasScope, ProjectPrincipal } from '../../auth/principal';
import { chatMessageSchema } from '../../common/chat';
import { badRequest, conflict, forbidden, invalidBody, notFound } from '../../common/errors';
import { isUniqueViolation } from '../../common/errors/database-errors';
import { newId } from '../../common/ids';
import { pageLimit, PageQuery, toPage } from '../../common/pagination';
import { isSlugLike } from '../../common/validation/slug';
import { CreateTransaction, plainTransaction } from '../../idempotency/create-transaction';
import { MessageStore } from '../../messages/message-store';
import { RequestLogsService } from '../../request-logs/request-logs.service';
import {
  CreateDatasetDto,
  DatasetChangeDto,
  DatasetDeletedDto,
  DatasetDto,
  DatasetItemDto,
  DatasetItemListDto,
  DatasetItemsQuery,
  DatasetListDto,
  DatasetVersionListDto,
} from './dataset.dto';
import { parseItemsFile } from './dataset-files';
import { addItemsSchema, DatasetItemInput, importItemsSchema, itemFromSourceSchema, itemPatchSchema } from './dataset-item.schema';
import { DatasetRow, DatasetsRepository, ItemRow, NewItem } from './datasets.repository';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const toDatasetDto = (row: DatasetRow): DatasetDto => ({
  id: row.id,
  object: 'dataset',
  name: row.name,
  description: row.description,
  version: Number(row.version),
  itemCount: Number(row.item_count),
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
});

export const toItemDto = (row: ItemRow): DatasetItemDto => ({
  id: row.id,
  object: 'dataset.item',
  sinceVersion: Number(row.since_version),
  variables: row.variables,
  messages: row.messages,
  expected: row.expected ?? null,
  metadata: row.metadata,
  source: row.source,
  createdAt: new Date(row.created_at).toISOString(),
});

const messagesSchema = z.array(chatMessageSchema).max(100);

/**
 * Datasets per project (docs/evals.md, "Datasets"). Every change to the items is one transaction
 * that takes the dataset's row lock, makes the next version and records it (with its audit event),
 * so versions are gapless and a run names exactly the items it used.
 */
@Injectable()
export class DatasetsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly datasets: DatasetsRepository,
    private readonly audit: AuditLog,
    private readonly logs: RequestLogsService,
    private readonly messages: MessageStore,
  ) {}

  async create(
    caller: ProjectPrincipal,
    dto: CreateDatasetDto,
    tx: CreateTransaction = plainTransaction(this.dataSource),
  ): Promise<DatasetDto> {
    const now = new Date();
    const row: DatasetRow = {
      id: newId(),
      name: dto.name,
      description: dto.description ?? '',
      version: 0,
      item_count: 0,
      created_at: now,
      updated_at: now,
    };
    try {
      return await tx.run(async (manager) => {
        await this.datasets.insert(manager, caller.projectId, row);
        await this.audit.record(manager, {
          projectId: caller.projectId,
          action: 'dataset.created',
          resourceType: 'dataset',
          resourceId: row.name,
          after: { name: row.name, description: row.description },
        });
        return toDatasetDto(row);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict(`A dataset named "${dto.name}" already exists`);
      throw err;
    }
  }

  async list(caller: ProjectPrincipal, query: PageQuery): Promise<DatasetListDto> {
    const limit = pageLimit(query);
    const rows = await this.datasets.list(caller.projectId, query.after ?? null, limit + 1);
    const page = toPage(
      rows.map((row) => ({ ...toDatasetDto(row) })),
      limit,
    );
    return { object: 'list', data: page.data, has_more: page.has_more, last_id: page.data.at(-1)?.name ?? null };
  }

  async require(projectId: string, name: string, manager?: EntityManager, lock = false): Promise<DatasetRow> {
    const row = isSlugLike(name) ? await this.datasets.findByName(projectId, name, manager, lock) : null;
    if (!row) throw notFound('Dataset not found');
    return row;
  }

  async get(caller: ProjectPrincipal, name: string): Promise<DatasetDto> {
    return toDatasetDto(await this.require(caller.projectId, name));
  }

  async remove(caller: ProjectPrincipal, name: string): Promise<DatasetDeletedDto> {
    await this.dataSource.transaction(async (manager) => {
      const row = await this.require(caller.projectId, name, manager, true);
      const gates = await this.datasets.gatesUsing(manager, caller.projectId, row.id);
      if (gates.length)
        throw conflict(`Dataset "${name}" is the deploy gate's dataset of ${gates.join(', ')}: remove or change the gate first`);
      await this.datasets.remove(manager, caller.projectId, row.id);
      await this.audit.record(manager, {
        projectId: caller.projectId,
        action: 'dataset.deleted',
        resourceType: 'dataset',
        resourceId: name,
        before: { name, version: row.version, itemCount: row.item_count },
      });
    });
    return { name, object: 'dataset', deleted: true };
  }

  async versions(caller: ProjectPrincipal, name: string): Promise<DatasetVersionListDto> {
    const row = await this.require(caller.projectId, name);
    const versions = await this.datasets.versions(caller.projectId, row.id);
    return {
      object: 'list',
      data: versions.map((v) => ({
        version: Number(v.version),
        itemCount: Number(v.item_count),
        change: v.change,
        createdAt: new Date(v.created_at).toISOString(),
      })),
    };
  }

  /** How many items version `version` holds; null when there is no such version. */
  itemCountAt(projectId: string, datasetId: string, version: number): Promise<number | null> {
    return this.datasets.itemCountAt(projectId, datasetId, version);
  }

  async items(caller: ProjectPrincipal, name: string, query: DatasetItemsQuery): Promise<DatasetItemListDto> {
    const row = await this.require(caller.projectId, name);
    const current = Number(row.version);
    const version = query.version === undefined ? current : Number(query.version);
    if (version > current) throw notFound(`Dataset "${name}" has no version ${version}`);
    const limit = pageLimit(query);
    const after = query.after !== undefined && UUID.test(query.after) ? query.after : null;
    if (query.after !== undefined && after === null) throw badRequest('Invalid request parameters', ['after: expected the id of an item']);
    const rows = await this.datasets.listItems(caller.projectId, row.id, version, after, limit + 1, version === current);
    const page = toPage(rows.map(toItemDto), limit);
    return { object: 'list', version, ...page };
  }

  async item(caller: ProjectPrincipal, name: string, itemId: string): Promise<DatasetItemDto> {
    const row = await this.require(caller.projectId, name);
    const item = UUID.test(itemId) ? await this.datasets.findItem(caller.projectId, row.id, Number(row.version), itemId) : null;
    if (!item) throw notFound('Dataset item not found');
    return toItemDto(item);
  }

  addItems(
    caller: ProjectPrincipal,
    name: string,
    body: z.output<typeof addItemsSchema>,
    tx?: CreateTransaction,
  ): Promise<DatasetChangeDto> {
    return this.insert(
      caller,
      name,
      body.items.map((item) => ({ ...item, id: newId(), source: null })),
      'added',
      tx,
    );
  }

  importItems(
    caller: ProjectPrincipal,
    name: string,
    body: z.output<typeof importItemsSchema>,
    tx?: CreateTransaction,
  ): Promise<DatasetChangeDto> {
    const { items, problems } = parseItemsFile(body.format, body.content);
    if (problems.length) throw invalidBody(problems);
    if (items.length === 0) throw invalidBody(['content: no items']);
    return this.insert(
      caller,
      name,
      items.map((item) => ({ ...item, id: newId(), source: { import: body.format } })),
      `imported (${body.format})`,
      tx,
    );
  }

  /** "Add to dataset" from a request log or a thread turn: its variables and messages as sent, its answer as `expected` if wanted. */
  async addFromSource(
    caller: ProjectPrincipal,
    name: string,
    body: z.output<typeof itemFromSourceSchema>,
    tx?: CreateTransaction,
  ): Promise<DatasetChangeDto> {
    // Copying a log or a thread reads it: the key needs that scope too.
    const reads = body.logId ? 'logs:read' : 'threads:read';
    if (!hasScope(caller, reads)) throw forbidden(`This API key lacks the ${reads} scope`);
    const item = body.logId
      ? await this.itemOfLog(caller.projectId, body.logId, body.includeAnswer)
      : await this.itemOfTurn(caller.projectId, body.threadId!, body.messageId!, body.includeAnswer);
    return this.insert(caller, name, [item], body.logId ? 'added from a log' : 'added from a thread turn', tx);
  }

  async patchItem(
    caller: ProjectPrincipal,
    name: string,
    itemId: string,
    patch: z.output<typeof itemPatchSchema>,
  ): Promise<DatasetItemDto> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.require(caller.projectId, name, manager, true);
      const version = Number(row.version) + 1;
      const old = UUID.test(itemId) ? await this.datasets.closeItem(manager, caller.projectId, row.id, itemId, version) : null;
      if (!old) throw notFound('Dataset item not found');
      const next: NewItem = {
        id: itemId,
        variables: patch.variables ?? old.variables,
        messages: (patch.messages ?? old.messages) as NewItem['messages'],
        expected: 'expected' in patch ? patch.expected : (old.expected ?? undefined),
        metadata: patch.metadata ?? old.metadata,
        source: old.source,
      };
      await this.datasets.insertItems(manager, caller.projectId, row.id, version, [next]);
      await this.datasets.bump(manager, caller.projectId, row.id, version, Number(row.item_count), 'edited 1 item');
      await this.audit.record(manager, {
        projectId: caller.projectId,
        action: 'dataset.item_updated',
        resourceType: 'dataset',
        resourceId: name,
        after: { itemId, version },
      });
      return toItemDto({ ...next, since_version: version, expected: next.expected ?? null, created_at: new Date() });
    });
  }

  async removeItem(caller: ProjectPrincipal, name: string, itemId: string): Promise<DatasetChangeDto> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.require(caller.projectId, name, manager, true);
      const version = Number(row.version) + 1;
      const old = UUID.test(itemId) ? await this.datasets.closeItem(manager, caller.projectId, row.id, itemId, version) : null;
      if (!old) throw notFound('Dataset item not found');
      const itemCount = Number(row.item_count) - 1;
      await this.datasets.bump(manager, caller.projectId, row.id, version, itemCount, 'removed 1 item');
      await this.audit.record(manager, {
        projectId: caller.projectId,
        action: 'dataset.item_removed',
        resourceType: 'dataset',
        resourceId: name,
        after: { itemId, version },
      });
      return { version, itemCount, itemIds: [itemId] };
    });
  }

  private async insert(
    caller: ProjectPrincipal,
    name: string,
    items: NewItem[],
    verb: string,
    tx: CreateTransaction = plainTransaction(this.dataSource),
  ): Promise<DatasetChangeDto> {
    return tx.run(async (manager) => {
      const row = await this.require(caller.projectId, name, manager, true);
      const version = Number(row.version) + 1;
      const itemCount = Number(row.item_count) + items.length;
      await this.datasets.insertItems(manager, caller.projectId, row.id, version, items);
      const change = `${verb}: ${items.length} item${items.length === 1 ? '' : 's'}`;
      await this.datasets.bump(manager, caller.projectId, row.id, version, itemCount, change);
      await this.audit.record(manager, {
        projectId: caller.projectId,
        action: 'dataset.items_added',
        resourceType: 'dataset',
        resourceId: name,
        after: { version, added: items.length },
      });
      return { version, itemCount, itemIds: items.map((item) => item.id) };
    });
  }

  private async itemOfLog(projectId: string, logId: string, includeAnswer: boolean): Promise<NewItem> {
    const log = await this.logs.findStored(projectId, logId);
    if (!log) throw notFound('Request log not found');
    if (log.doNotRecord || !log.requestData) throw invalidBody(['logId: this call was made with doNotRecord: its inputs were not stored']);
    const sent = messagesSchema.safeParse(log.requestData.messages ?? []);
    const answer = includeAnswer ? answerOf(log.providerResponse) : undefined;
    return {
      id: newId(),
      variables: Object.fromEntries(Object.entries(log.variables ?? {}).map(([k, v]) => [k, String(v)])),
      messages: sent.success ? sent.data : [],
      ...(answer !== undefined ? { expected: answer } : {}),
      metadata: {},
      source: { logId, prompt: log.promptSlug, version: log.version },
    };
  }

  private async itemOfTurn(projectId: string, threadId: string, messageId: string, includeAnswer: boolean): Promise<NewItem> {
    const turn = await this.messages.findLiveEntity(projectId, threadId, messageId);
    const turns = turn ? await this.messages.liveTurnsWithSeq(projectId, threadId) : null;
    if (!turn || !turns) throw notFound('Thread message not found');
    const history = turns.filter((t) => t.seq < turn.seq).flatMap((t) => t.messages);
    const own = turn.content.filter((m) => m.role !== 'assistant');
    const reply =
      turn.content.find((m) => m.role === 'assistant') ?? turns.find((t) => t.seq > turn.seq)?.messages.find((m) => m.role === 'assistant');
    const log = turn.requestLogId ? await this.logs.findStored(projectId, turn.requestLogId) : null;
    const sent = messagesSchema.safeParse([...history, ...own]);
    if (!sent.success) throw invalidBody(['messageId: the thread up to this turn holds messages a dataset item cannot keep']);
    const answer = includeAnswer && reply ? (typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content)) : undefined;
    return {
      id: newId(),
      variables: Object.fromEntries(Object.entries(log?.variables ?? {}).map(([k, v]) => [k, String(v)])),
      messages: sent.data,
      ...(answer !== undefined ? { expected: answer } : {}),
      metadata: {},
      source: { threadId, messageId, ...(log ? { logId: log.id } : {}) },
    };
  }
}

function answerOf(response: Record<string, unknown> | null): string | undefined {
  const choices = response?.choices as { message?: { content?: unknown } }[] | undefined;
  const content = choices?.[0]?.message?.content;
  return typeof content === 'string' ? content : undefined;
}

export type { DatasetItemInput };
