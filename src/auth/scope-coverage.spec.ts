import { Controller, Get, Post } from '@nestjs/common';

import { Public, RequireScope } from './auth.decorators';
import { routesWithoutScope } from './scope-coverage';

@RequireScope('threads:read')
@Controller()
class ScopedByClass {
  @Get('a')
  list(): void {}

  @RequireScope('threads:write')
  @Post('a')
  create(): void {}

  helper(): void {}
}

@Public()
@Controller()
class Open {
  @Get('health')
  health(): void {}
}

@Controller()
class Forgotten {
  @RequireScope('logs:read')
  @Get('b')
  scoped(): void {}

  @Get('c')
  unscoped(): void {}
}

describe('routesWithoutScope', () => {
  it('names the route handlers that are neither public nor scoped, on the handler or its controller', () => {
    expect(routesWithoutScope([ScopedByClass, Open, Forgotten])).toEqual(['Forgotten.unscoped']);
  });
});
