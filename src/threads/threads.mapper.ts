import { RequestLogObjectDto } from './dto/request-log-object.dto';
import { ThreadCreatedDto, ThreadDto, ThreadListItemDto } from './dto/thread-response.dto';
import { ThreadEntity } from './thread.entity';

const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);
const createLogOf = (t: ThreadEntity) => (t.createLog ?? {}) as RequestLogObjectDto;

/** Each endpoint returns exactly the spec's fields for it, in its own createdAt format. */
export const toThreadCreatedDto = (t: ThreadEntity): ThreadCreatedDto => ({
  id: t.id,
  createdAt: t.createdAt.toISOString(),
  projectId: t.projectId,
  metadata: t.metadata,
  deletedAt: t.deletedAt ? t.deletedAt.toISOString() : null,
  createLog: createLogOf(t),
});

export const toThreadListItemDto = (t: ThreadEntity): ThreadListItemDto => ({
  id: t.id,
  createdAt: unixSeconds(t.createdAt),
  projectId: t.projectId,
  createLog: createLogOf(t),
  metadata: t.metadata,
});

export const toThreadDto = (t: ThreadEntity): ThreadDto => ({
  ...toThreadListItemDto(t),
  deletedAt: t.deletedAt ? t.deletedAt.toISOString() : null,
});

export const toThreadUpdatedDto = toThreadListItemDto;
