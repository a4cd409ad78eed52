import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches } from 'class-validator';

export const PAGE_LIMIT_DEFAULT = 100;
export const PAGE_LIMIT_MAX = 100;

/** `limit` (1–100, default 100) and `after`, shared by every cursor-paginated list. */
export class PageQuery {
  @ApiProperty({ required: false, type: Number, minimum: 1, maximum: PAGE_LIMIT_MAX, default: PAGE_LIMIT_DEFAULT })
  @IsOptional()
  @Matches(/^(100|[1-9][0-9]?)$/, { message: 'limit must be an integer from 1 to 100' })
  limit?: string;

  @ApiProperty({ required: false, description: 'id of the last item of the previous page' })
  @IsOptional()
  @IsString()
  after?: string;
}

export class OrderedPageQuery extends PageQuery {
  @ApiProperty({ required: false, enum: ['asc', 'desc'], default: 'asc' })
  @IsOptional()
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
