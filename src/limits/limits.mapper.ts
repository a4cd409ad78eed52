import { LimitSettingEntity } from './limit-setting.entity';
import { LimitsDto, LimitValuesDto } from './dto/limits.dto';
import { LimitValues, NO_LIMITS } from './limits.types';

export function toLimitsDto(values: LimitValues | undefined): LimitsDto {
  const { requestsPerMinute, concurrentInvokes, tokensPerDay } = values ?? NO_LIMITS;
  return { requestsPerMinute, concurrentInvokes, tokensPerDay };
}

export function toLimitValues(entity: LimitSettingEntity): LimitValues {
  return { requestsPerMinute: entity.requestsPerMinute, concurrentInvokes: entity.concurrentInvokes, tokensPerDay: entity.tokensPerDay };
}

export function fromLimitValuesDto(dto: LimitValuesDto | null | undefined): LimitValues {
  return { requestsPerMinute: dto?.requestsPerMinute ?? null, concurrentInvokes: dto?.concurrentInvokes ?? null, tokensPerDay: dto?.tokensPerDay ?? null };
}
