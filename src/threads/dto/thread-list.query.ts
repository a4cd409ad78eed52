import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches } from 'class-validator';

import { PageQuery } from '../../common/pagination';

/** GET /v2/threads: the spec's page parameters, a metadata filter and the previews (the console's thread list). */
export class ThreadListQuery extends PageQuery {
  @ApiProperty({
    required: false,
    example: 'customer:c_42',
    description:
      'metadata filter "key:value" (value compared as text, so a stored number matches its digits); applied while walking the newest-first index',
  })
  @IsOptional()
  @Matches(/^[^:]{1,64}:.{0,512}$/, { message: 'metadata must be "key:value"' })
  metadata?: string;

  @ApiProperty({
    required: false,
    enum: ['preview'],
    description:
      "`preview` adds each thread's `preview`: its first and last message, how many messages it has, its calls and their cost (a Parley addition; without it, the spec's fields only)",
  })
  @IsOptional()
  @IsIn(['preview'], { message: 'include must be "preview"' })
  include?: 'preview';
}
