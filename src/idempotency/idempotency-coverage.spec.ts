import { Controller, Get, Post } from '@nestjs/common';

import { CreateTransaction, InCreateTransaction } from './create-transaction';
import { IdempotencyInCore, Idempotent } from './idempotency.interceptor';
import { createsOutsideTransaction, uncoveredPostRoutes } from './idempotency-coverage';

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

@Controller()
class Creates {
  @Idempotent()
  @Post('in-transaction')
  create(@InCreateTransaction() tx: CreateTransaction): CreateTransaction {
    return tx;
  }

  @Idempotent()
  @Post('outside')
  forgot(): void {}

  @Idempotent('repeatable')
  @Post('update')
  update(): void {}
}

describe('createsOutsideTransaction', () => {
  it('names the creating @Idempotent() handlers without an @InCreateTransaction() parameter', () => {
    expect(createsOutsideTransaction([Covered, InCore, Forgotten, Creates])).toEqual([
      'Covered.create',
      'Forgotten.update',
      'Creates.forgot',
    ]);
  });
});
