import { ApiProperty } from '@nestjs/swagger';

import { IntervalDto } from '../feedback/feedback.dto';

export class ArmLatencyDto {
  @ApiProperty({ type: Number, nullable: true, description: 'from the latency histogram: within a bucket (±19 %) of the exact value' })
  p50: number | null;
  @ApiProperty({ type: Number, nullable: true }) p95: number | null;
}

export class ArmTokensDto {
  @ApiProperty({ description: 'uncached input, cache reads and cache writes' }) input: number;
  @ApiProperty({ description: 'output and reasoning' }) output: number;
  @ApiProperty() total: number;
}

export class ArmFeedbackDto {
  @ApiProperty({ example: 'helpful' }) name: string;
  @ApiProperty({
    enum: ['boolean', 'number', 'category'],
    description: 'boolean: the mean is the share of true; number: a mean of numbers; category: none scored (see categories)',
  })
  kind: 'boolean' | 'number' | 'category';
  @ApiProperty({ description: 'every feedback of this name on this version' }) count: number;
  @ApiProperty({ description: 'the values in the mean' }) n: number;
  @ApiProperty({ type: Number, nullable: true }) mean: number | null;
  @ApiProperty({ type: IntervalDto, nullable: true, description: 'the 95 % interval of the mean' }) interval: IntervalDto | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' }, description: 'counts per category' })
  categories: Record<string, number>;
}

export class ArmResultDto {
  @ApiProperty({ example: 8 }) version: number;
  @ApiProperty({ example: 10, description: "the arm's weight in the split (a plain deployment: one arm of weight 1)" }) weight: number;
  @ApiProperty({ description: "the split's first arm, which the others are compared with" }) control: boolean;
  @ApiProperty() calls: number;
  @ApiProperty({ description: 'calls answered with a status of 400 or more' }) errors: number;
  @ApiProperty({ type: Number, nullable: true, description: 'errors / calls; null without calls' }) errorRate: number | null;
  @ApiProperty({ type: IntervalDto, nullable: true, description: "the error rate's 95 % Wilson interval" })
  errorRateInterval: IntervalDto | null;
  @ApiProperty({ type: ArmLatencyDto }) latencyMs: ArmLatencyDto;
  @ApiProperty({ type: ArmTokensDto }) tokens: ArmTokensDto;
  @ApiProperty({ example: '0.4125', description: 'USD, exact decimal: the priced calls' }) costUsd: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '0.00165',
    description: 'costUsd / (calls - unpricedCalls), 12 decimals at most (a call without usage costs 0); null when no call is priced',
  })
  costPerCallUsd: string | null;
  @ApiProperty({ description: 'calls with usage but no known price (docs/usage.md)' }) unpricedCalls: number;
  @ApiProperty({ type: [ArmFeedbackDto], description: "this version's feedback in this environment, by name" })
  feedback: ArmFeedbackDto[];
  @ApiProperty({
    description: 'a deployment replaced during the first counted hour also served this version: its calls of that hour are counted here',
  })
  firstHourShared: boolean;
  @ApiProperty({ description: 'an earlier deployment in this environment served this version: its feedback is counted here too' })
  servedBefore: boolean;
}

export class VerdictDifferenceDto {
  @ApiProperty({ description: "the arm's value minus the control's (a share for error rates and true/false scores)" })
  estimate: number;
  @ApiProperty() low: number;
  @ApiProperty() high: number;
}

export class VerdictDto {
  @ApiProperty({ example: 8, description: 'the arm compared' }) version: number;
  @ApiProperty({ example: 7, description: "the control's version" }) control: number;
  @ApiProperty({ enum: ['error_rate', 'feedback'] }) metric: 'error_rate' | 'feedback';
  @ApiProperty({ type: String, nullable: true, example: 'helpful', description: "the feedback's name; null for the error rate" })
  name: string | null;
  @ApiProperty({ enum: ['lower', 'higher'], description: 'which way is better: lower for the error rate, higher for a feedback score' })
  better: 'lower' | 'higher';
  @ApiProperty({
    type: VerdictDifferenceDto,
    nullable: true,
    description: "95 % interval of the difference: Newcombe's for shares, Welch's for means; null when one side has too few values",
  })
  difference: VerdictDifferenceDto | null;
  @ApiProperty({ type: Number, nullable: true, description: 'the better version, only when the interval excludes 0' })
  winner: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: "v8's error rate is higher than v7's: +2.1 points (95 % interval +0.4 to +3.8)",
  })
  verdict: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'not enough evidence yet', description: 'why there is no verdict' })
  reason: string | null;
}

export class ExperimentResultsDto {
  @ApiProperty({ enum: ['experiment.results'] }) object: 'experiment.results';
  @ApiProperty({ example: 'support-reply' }) prompt: string;
  @ApiProperty({ example: 'production' }) environment: string;
  @ApiProperty({ format: 'uuid' }) deploymentId: string;
  @ApiProperty({ example: 4 }) deploymentVersion: number;
  @ApiProperty({ format: 'date-time', description: "the deployment's deployedAt" }) since: string;
  @ApiProperty({
    format: 'date-time',
    description: 'the start of the UTC hour holding `since`: usage is kept per hour, so calls are counted from there',
  })
  countedFrom: string;
  @ApiProperty({ type: [ArmResultDto], description: 'in the order of the split, the control first' }) arms: ArmResultDto[];
  @ApiProperty({
    type: [VerdictDto],
    description: 'per arm other than the control: the error rate, then each feedback score both have, by name',
  })
  verdicts: VerdictDto[];
}
