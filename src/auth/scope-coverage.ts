import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';

import { Access, ACCESS_KEY, SCOPES_KEY } from './auth.decorators';

type ControllerClass = { name: string; prototype: object };

/** The route handlers of `controllers` that are not @Public() and declare neither @RequireScope() nor @AnyScope(). */
export function routesWithoutScope(controllers: ControllerClass[], scanner = new MetadataScanner()): string[] {
  const missing: string[] = [];
  for (const controller of controllers) {
    for (const name of scanner.getAllMethodNames(controller.prototype)) {
      const handler = (controller.prototype as Record<string, unknown>)[name] as object;
      if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
      const access: Access | undefined = Reflect.getMetadata(ACCESS_KEY, handler) ?? Reflect.getMetadata(ACCESS_KEY, controller);
      if (access === 'public') continue;
      const scopes: unknown[] | string | undefined =
        Reflect.getMetadata(SCOPES_KEY, handler) ?? Reflect.getMetadata(SCOPES_KEY, controller);
      if (!scopes || scopes.length === 0) missing.push(`${controller.name}.${name}`);
    }
  }
  return missing;
}

/**
 * Every route a key reaches declares the scope it needs (docs/security.md, "Scopes"). A route
 * without one would admit no key at all (the guard fails closed), so the app refuses to start.
 */
@Injectable()
export class ScopeCoverage implements OnApplicationBootstrap {
  constructor(private readonly discovery: DiscoveryService) {}

  onApplicationBootstrap(): void {
    const controllers = this.discovery
      .getControllers()
      .map((wrapper) => wrapper.metatype as ControllerClass | null)
      .filter((metatype): metatype is ControllerClass => !!metatype);
    const missing = routesWithoutScope(controllers);
    if (missing.length > 0) throw new Error(`Routes without @RequireScope() or @Public(): ${missing.join(', ')}`);
  }
}
