import { ApiProperty } from '@nestjs/swagger';
import { IsIn, Matches } from 'class-validator';

import { Optional, Text } from '../validation/field-decorators';

export const PAGE_LIMIT_DEFAULT = 100;
export const PAGE_LIMIT_MAX = 100;

/** `limit` (1–100, default 100) and `after`, shared by every cursor-paginated list. */
export class PageQuery {
  @Optional()
  @ApiProperty({ type: Number, minimum: 1, maximum: PAGE_LIMIT_MAX, default: PAGE_LIMIT_DEFAULT })
  @Matches(/^(100|[1-9][0-9]?)$/, { message: 'limit must be an integer from 1 to 100' })
  limit?: string;

  @Optional()
  @Text({ max: 64, description: 'id of the last item of the previous page' })
  after?: string;
}

export class OrderedPageQuery extends PageQuery {
  @Optional()
  @ApiProperty({ enum: ['asc', 'desc'], default: 'asc' })
  @IsIn(['asc', 'desc'])
  order?: 'asc' | 'desc';
}

export function pageLimit(query: PageQuery): number {
  return query.limit === undefined ? PAGE_LIMIT_DEFAULT : Number(query.limit);
}

export interface Page<T extends { id?: string | null }> {
  data: T[];
  has_more: boolean;
  first_id: string | null;
  last_id: string | null;
}

/** Repositories fetch `limit + 1` rows; the extra row only tells that another page exists. */
export function toPage<T extends { id?: string | null }>(rows: T[], limit: number): Page<T> {
  const data = rows.slice(0, limit);
  return {
    data,
    has_more: rows.length > limit,
    first_id: data.length > 0 ? (data[0].id ?? null) : null,
    last_id: data.length > 0 ? (data[data.length - 1].id ?? null) : null,
  };
}
