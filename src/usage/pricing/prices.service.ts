import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

import { TtlCache } from '../../common/cache/ttl-cache';
import { newId } from '../../common/ids';
import type { ProviderType, TokenCounts } from '../../providers';
import { costOf, Price } from './price';
import { PriceOverrideEntity } from './price-override.entity';
import { PriceOverridesRepository } from './price-overrides.repository';
import { PriceTable } from './price-table';

/** Overrides are read again after this long (a change made on this instance applies at once). */
const OVERRIDES_TTL_MS = 5000;

export interface PricedProvider {
  name: string;
  type: ProviderType;
  baseUrl?: string;
}

/** What a call cost and which price that used; both null when no price is known (docs/usage.md). */
export interface CallCost {
  costUsd: string | null;
  priceRef: string | null;
}

/** One override as set through the admin API or parley.yaml: USD per million tokens, as decimal strings. */
export interface PriceOverrideValues {
  provider: string;
  model: string;
  inputPerMTok: string;
  cacheReadPerMTok: string | null;
  cacheWritePerMTok: string | null;
  outputPerMTok: string;
}

/** Prices: the project's overrides first, then the price table (docs/usage.md, "Where prices come from"). */
@Injectable()
export class PricesService {
  private readonly table = new PriceTable();
  private readonly overrides = new TtlCache<string, Map<string, Price>>(OVERRIDES_TTL_MS);

  constructor(private readonly repo: PriceOverridesRepository) {}

  async priceFor(projectId: string, provider: PricedProvider, model: string): Promise<Price | null> {
    const own = await this.overrides.getOrLoad(projectId, () => this.loadOverrides(projectId));
    return own?.get(`${provider.name}/${model}`) ?? this.table.priceOf(provider.type, provider.baseUrl, model);
  }

  /** The cost of a call's tokens; no tokens reported means no cost to tell. */
  async costOf(projectId: string, provider: PricedProvider, model: string, tokens: TokenCounts | undefined): Promise<CallCost> {
    if (!tokens) return { costUsd: null, priceRef: null };
    const price = await this.priceFor(projectId, provider, model);
    return price ? { costUsd: costOf(tokens, price), priceRef: price.ref } : { costUsd: null, priceRef: null };
  }

  async listOverrides(projectId: string): Promise<PriceOverrideValues[]> {
    return (await this.repo.listOf(projectId)).map(toValues);
  }

  /** Returns the overrides as this replace stored them (a concurrent one may have followed). */
  async replaceOverrides(projectId: string, values: PriceOverrideValues[], manager?: EntityManager): Promise<PriceOverrideValues[]> {
    const now = new Date();
    const rows = values.map((v) =>
      Object.assign(new PriceOverrideEntity(), {
        projectId,
        id: newId(),
        providerName: v.provider,
        model: v.model,
        inputPerMTok: v.inputPerMTok,
        cacheReadPerMTok: v.cacheReadPerMTok,
        cacheWritePerMTok: v.cacheWritePerMTok,
        outputPerMTok: v.outputPerMTok,
        updatedAt: now,
      }),
    );
    const stored = await this.repo.replace(projectId, rows, manager);
    this.overrides.delete(projectId);
    return stored.map(toValues);
  }

  private async loadOverrides(projectId: string): Promise<Map<string, Price>> {
    const rows = await this.repo.listOf(projectId);
    return new Map(
      rows.map((row) => [
        `${row.providerName}/${row.model}`,
        {
          input: row.inputPerMTok,
          output: row.outputPerMTok,
          ...(row.cacheReadPerMTok !== null ? { cacheRead: row.cacheReadPerMTok } : {}),
          ...(row.cacheWritePerMTok !== null ? { cacheWrite: row.cacheWritePerMTok } : {}),
          ref: `override: ${row.providerName}/${row.model}`,
        },
      ]),
    );
  }
}

function toValues(row: PriceOverrideEntity): PriceOverrideValues {
  return {
    provider: row.providerName,
    model: row.model,
    inputPerMTok: row.inputPerMTok,
    cacheReadPerMTok: row.cacheReadPerMTok,
    cacheWritePerMTok: row.cacheWritePerMTok,
    outputPerMTok: row.outputPerMTok,
  };
}
