import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsNumber, Max, Min } from 'class-validator';

import { Nested, Optional } from '../../common/validation';
import { MAX_BUDGET_USD } from '../limits.types';

/** null (or absent) = no limit of that kind here; a positive whole number otherwise. */
const LimitField = (description: string, example: number): PropertyDecorator =>
  function (target: object, property: string | symbol) {
    ApiProperty({ type: Number, minimum: 1, maximum: 1_000_000_000, example, description })(target, property);
    // null is a documented value here: "no limit".
    Optional({ nullable: true })(target, property);
    IsInt()(target, property as string);
    Min(1)(target, property as string);
    Max(1_000_000_000)(target, property as string);
  };

/** null (or absent) = no budget; USD, 0 (nothing may be spent) to 1,000,000. */
const BudgetField = (description: string, example: number): PropertyDecorator =>
  function (target: object, property: string | symbol) {
    ApiProperty({ type: Number, minimum: 0, maximum: MAX_BUDGET_USD, example, description })(target, property);
    Optional({ nullable: true })(target, property);
    IsNumber({ allowNaN: false, allowInfinity: false })(target, property as string);
    Min(0)(target, property as string);
    Max(MAX_BUDGET_USD)(target, property as string);
  };

export class LimitValuesDto {
  @LimitField('invokes per minute (fixed one-minute windows)', 600)
  requestsPerMinute?: number | null;

  @LimitField('invokes running at the same time', 32)
  concurrentInvokes?: number | null;

  @LimitField('prompt + completion tokens per UTC day, from the usage providers report', 2_000_000)
  tokensPerDay?: number | null;

  @BudgetField('budget in USD per UTC day, charged with the cost of each call (docs/usage.md, "Budgets")', 25)
  budgetUsdPerDay?: number | null;

  @BudgetField('budget in USD per UTC calendar month (docs/usage.md, "Budgets")', 500)
  budgetUsdPerMonth?: number | null;
}

export class SetProjectLimitsDto {
  @Nested(() => LimitValuesDto, { description: 'limits of the whole project (all keys together); null or absent removes them' })
  @Optional({ nullable: true })
  project?: LimitValuesDto | null;

  @Nested(() => LimitValuesDto, { description: 'the default of each key without limits of its own; null or absent removes them' })
  @Optional({ nullable: true })
  keys?: LimitValuesDto | null;
}

export class LimitsDto {
  @ApiProperty({ type: Number, nullable: true }) requestsPerMinute: number | null;
  @ApiProperty({ type: Number, nullable: true }) concurrentInvokes: number | null;
  @ApiProperty({ type: Number, nullable: true }) tokensPerDay: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'USD per UTC day' }) budgetUsdPerDay: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'USD per UTC calendar month' }) budgetUsdPerMonth: number | null;
}

export class KeyLimitsDto extends LimitsDto {
  @ApiProperty({ format: 'uuid' }) keyId: string;
}

export class ProjectLimitsDto {
  @ApiProperty({ enum: ['project.limits'] }) object: 'project.limits';
  @ApiProperty({ type: LimitsDto }) project: LimitsDto;
  @ApiProperty({ type: LimitsDto }) keys: LimitsDto;
  @ApiProperty({ type: [KeyLimitsDto], description: 'keys with limits of their own' }) perKey: KeyLimitsDto[];
}

export class ApiKeyLimitsDto {
  @ApiProperty({ enum: ['api_key.limits'] }) object: 'api_key.limits';
  @ApiProperty({ format: 'uuid' }) keyId: string;
  @ApiProperty({ type: LimitsDto, description: "the key's own limits (null: the project's default for keys applies)" }) limits: LimitsDto;
  @ApiProperty({ type: LimitsDto, description: 'what applies to the key: its own limits, else the default for keys' }) effective: LimitsDto;
}
