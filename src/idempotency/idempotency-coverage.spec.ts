import { Controller, Get, Post } from '@nestjs/common';
import { uncoveredPostRoutes } from './idempotency-coverage';
import { IdempotencyInCore, Idempotent } from './idempotency.interceptor';

@Controller()
class Covered {
  @Idempotent()
  @Post('a')
  create(): void {}

  @Get('a')
  list(): void {}
}

@IdempotencyInCore()
@Controller()
class InCore {
  @Post('b')
  invoke(): void {}
}

@Controller()
class Forgotten {
  @Post('c')
  create(): void {}

  @Idempotent()
  @Post('d')
  update(): void {}
}

describe('uncoveredPostRoutes', () => {
  it('names the POST handlers that lack both @Idempotent() and @IdempotencyInCore()', () => {
    expect(uncoveredPostRoutes([Covered, InCore, Forgotten])).toEqual(['Forgotten.create']);
  });
});
