import type { BudgetPeriodState } from './budgets';
import { usdText } from './budgets';
import { BudgetPeriodDto, BudgetStateDto } from './dto/budgets.dto';
import { LimitsDto, LimitValuesDto } from './dto/limits.dto';
import { LimitSettingEntity } from './limit-setting.entity';
import { LIMIT_FIELDS, LimitValues, NO_LIMITS } from './limits.types';

function pick(source: Partial<Record<keyof LimitValues, number | null | undefined>> | null | undefined): LimitValues {
  return Object.fromEntries(LIMIT_FIELDS.map((field) => [field, source?.[field] ?? null])) as unknown as LimitValues;
}

export function toLimitsDto(values: LimitValues | undefined): LimitsDto {
  return pick(values ?? NO_LIMITS);
}

export function toLimitValues(entity: LimitSettingEntity): LimitValues {
  return pick(entity);
}

export function fromLimitValuesDto(dto: LimitValuesDto | null | undefined): LimitValues {
  return pick(dto);
}

function toBudgetPeriodDto(state: BudgetPeriodState): BudgetPeriodDto {
  return {
    limitUsd: state.limitNano === null ? null : usdText(state.limitNano),
    spentUsd: usdText(state.spentNano),
    remainingUsd: state.limitNano === null ? null : usdText(Math.max(0, state.limitNano - state.spentNano)),
    resetsAt: state.resetsAt.toISOString(),
  };
}

export function toBudgetStateDto(state: Record<'day' | 'month', BudgetPeriodState>): BudgetStateDto {
  return { day: toBudgetPeriodDto(state.day), month: toBudgetPeriodDto(state.month) };
}
