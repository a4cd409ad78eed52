import { Injectable, OnApplicationBootstrap, RequestMethod } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';

import { CREATE_TRANSACTION_PARAM } from './create-transaction';
import { IdempotencyInterceptor, IDEMPOTENT_WITHOUT_CREATE, IN_CORE } from './idempotency.interceptor';

/** The POST handlers of `controllers` that have neither `@Idempotent()` nor `@IdempotencyInCore()`. */
export function uncoveredPostRoutes(controllers: { name: string; prototype: object }[], scanner = new MetadataScanner()): string[] {
  const missing: string[] = [];
  for (const controller of controllers) {
    for (const name of scanner.getAllMethodNames(controller.prototype)) {
      const handler = (controller.prototype as Record<string, unknown>)[name] as object;
      if (Reflect.getMetadata(METHOD_METADATA, handler) !== RequestMethod.POST) continue;
      const interceptors: unknown[] = Reflect.getMetadata(INTERCEPTORS_METADATA, handler) ?? [];
      const inCore = Reflect.getMetadata(IN_CORE, handler) ?? Reflect.getMetadata(IN_CORE, controller);
      if (!inCore && !interceptors.includes(IdempotencyInterceptor)) missing.push(`${controller.name}.${name}`);
    }
  }
  return missing;
}

/**
 * The `@Idempotent()` creating POST handlers that take no `@InCreateTransaction()` parameter: their
 * key's outcome would be stored after their create committed, in a separate statement.
 */
export function createsOutsideTransaction(controllers: { name: string; prototype: object }[], scanner = new MetadataScanner()): string[] {
  const missing: string[] = [];
  for (const controller of controllers) {
    for (const name of scanner.getAllMethodNames(controller.prototype)) {
      const handler = (controller.prototype as Record<string, unknown>)[name] as object;
      if (Reflect.getMetadata(METHOD_METADATA, handler) !== RequestMethod.POST) continue;
      const interceptors: unknown[] = Reflect.getMetadata(INTERCEPTORS_METADATA, handler) ?? [];
      if (!interceptors.includes(IdempotencyInterceptor) || Reflect.getMetadata(IDEMPOTENT_WITHOUT_CREATE, handler)) continue;
      if (Reflect.getMetadata(CREATE_TRANSACTION_PARAM, handler) === undefined) missing.push(`${controller.name}.${name}`);
    }
  }
  return missing;
}

/**
 * Every POST route takes an Idempotency-Key (docs/security.md). The interceptor is bound per route
 * for speed, so a new POST route without `@Idempotent()` would silently lack it: the app refuses to
 * start instead.
 */
@Injectable()
export class IdempotencyCoverage implements OnApplicationBootstrap {
  constructor(private readonly discovery: DiscoveryService) {}

  onApplicationBootstrap(): void {
    const controllers = this.discovery
      .getControllers()
      .map((wrapper) => wrapper.metatype as { name: string; prototype: object } | null)
      .filter((metatype): metatype is { name: string; prototype: object } => !!metatype);
    const missing = uncoveredPostRoutes(controllers);
    if (missing.length > 0) throw new Error(`POST routes without @Idempotent() or @IdempotencyInCore(): ${missing.join(', ')}`);
    const outside = createsOutsideTransaction(controllers);
    if (outside.length > 0)
      throw new Error(`@Idempotent() creating POST routes without an @InCreateTransaction() parameter: ${outside.join(', ')}`);
  }
}
