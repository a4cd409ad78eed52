import { Injectable } from '@nestjs/common';

import { badRequest } from '../../common/errors';
import { isPlainObject } from '../../common/errors/request-body';
import { WorkspacesService } from '../../workspaces/workspaces.service';
import { PricesDto } from './dto/prices.dto';
import { priceOverridesSchema, toOverrideValues } from './price-overrides.schema';
import { PRICE_TABLE_VERSION } from './price-table';
import { PriceOverrideValues, PricesService } from './prices.service';

/** The admin API of price overrides (docs/usage.md, "Overriding prices"). */
@Injectable()
export class PriceSettingsService {
  constructor(
    private readonly prices: PricesService,
    private readonly workspaces: WorkspacesService,
  ) {}

  async get(workspace: string, project: string): Promise<PricesDto> {
    const { project: found } = await this.workspaces.requireProject(workspace, project);
    return this.describe(found.id);
  }

  async set(workspace: string, project: string, body: unknown): Promise<PricesDto> {
    const { project: found } = await this.workspaces.requireProject(workspace, project);
    if (!isPlainObject(body) || Object.keys(body).some((key) => key !== 'prices'))
      throw badRequest('Invalid request body', ['expected {"prices": [...]}']);
    const parsed = priceOverridesSchema.safeParse(body.prices);
    if (!parsed.success) {
      throw badRequest(
        'Invalid request body',
        parsed.error.issues.map((issue) => `${['prices', ...issue.path].join('.')}: ${issue.message}`),
      );
    }
    // The answer shows what this request stored, not a concurrent replace that followed it.
    return this.view(await this.prices.replaceOverrides(found.id, toOverrideValues(parsed.data)));
  }

  private async describe(projectId: string): Promise<PricesDto> {
    return this.view(await this.prices.listOverrides(projectId));
  }

  private view(overrides: PriceOverrideValues[]): PricesDto {
    return { object: 'project.prices', prices: overrides, priceTable: PRICE_TABLE_VERSION };
  }
}
