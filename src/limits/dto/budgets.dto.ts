import { ApiProperty } from '@nestjs/swagger';

export class BudgetPeriodDto {
  @ApiProperty({
    type: String,
    nullable: true,
    example: '25',
    description: 'the budget in USD (null: none is set; the spend is counted anyway)',
  })
  limitUsd: string | null;
  @ApiProperty({ example: '3.0412', description: 'USD charged in this period (exact decimal), plus what the calls running now reserved' })
  spentUsd: string;
  @ApiProperty({ type: String, nullable: true, example: '21.9588', description: 'limitUsd - spentUsd, at least 0; null without a budget' })
  remainingUsd: string | null;
  @ApiProperty({
    format: 'date-time',
    description: 'when the period ends and the spend starts again from 0 (the next UTC midnight, or the first of the next month)',
  })
  resetsAt: string;
}

export class BudgetStateDto {
  @ApiProperty({ type: BudgetPeriodDto, description: 'the UTC day' }) day: BudgetPeriodDto;
  @ApiProperty({ type: BudgetPeriodDto, description: 'the UTC calendar month' }) month: BudgetPeriodDto;
}

export class KeyBudgetStateDto extends BudgetStateDto {
  @ApiProperty({ format: 'uuid' }) keyId: string;
}

export class ProjectBudgetsDto {
  @ApiProperty({ enum: ['project.budgets'] }) object: 'project.budgets';
  @ApiProperty({ type: BudgetStateDto, description: 'the project (all its keys together)' }) project: BudgetStateDto;
  @ApiProperty({
    type: [KeyBudgetStateDto],
    description: 'every key of the project that is not revoked, with the budgets that apply to it (its own, else the default for keys)',
  })
  keys: KeyBudgetStateDto[];
}

export class ApiKeyBudgetDto extends BudgetStateDto {
  @ApiProperty({ enum: ['api_key.budget'] }) object: 'api_key.budget';
  @ApiProperty({ format: 'uuid' }) keyId: string;
}
