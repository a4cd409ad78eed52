import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';

import { fastInsert } from '../database/fast-insert';
import { ResponseEntity } from './response.entity';

/** Stored responses, scoped by project; "live" means not deleted. */
@Injectable()
export class ResponsesRepository {
  constructor(@InjectRepository(ResponseEntity) private readonly responses: Repository<ResponseEntity>) {}

  async insert(row: ResponseEntity): Promise<void> {
    await fastInsert(this.responses.manager, ResponseEntity, [row]);
  }

  findLive(projectId: string, id: string): Promise<ResponseEntity | null> {
    return this.responses.findOne({ where: { projectId, id, deletedAt: IsNull() } });
  }

  /**
   * The chain ending at `id`, oldest first, in one recursive query (at most `maxDepth` links);
   * a deleted link ends the chain there. Empty when `id` names no live response.
   */
  async chain(projectId: string, id: string, maxDepth: number): Promise<Pick<ResponseEntity, 'id' | 'input' | 'output'>[]> {
    const rows: { id: string; input: ResponseEntity['input']; output: ResponseEntity['output'] }[] = await this.responses.query(
      `WITH RECURSIVE chain AS (
         SELECT id, previous_response_id, input, output, 1 AS depth FROM responses
          WHERE project_id = $1 AND id = $2 AND deleted_at IS NULL AND status IN ('completed', 'incomplete')
         UNION ALL
         SELECT r.id, r.previous_response_id, r.input, r.output, c.depth + 1 FROM responses r
           JOIN chain c ON r.project_id = $1 AND r.id = c.previous_response_id AND r.deleted_at IS NULL AND r.status IN ('completed', 'incomplete')
          WHERE c.depth < $3)
       SELECT id, input, output FROM chain ORDER BY depth DESC`,
      [projectId, id, maxDepth],
    );
    return rows;
  }

  async softDelete(projectId: string, id: string): Promise<boolean> {
    const result = await this.responses.update({ projectId, id, deletedAt: IsNull() }, { deletedAt: new Date() });
    return (result.affected ?? 0) > 0;
  }
}
