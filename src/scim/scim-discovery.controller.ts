import { All, Get, Param } from '@nestjs/common';

import { scimError } from '../common/errors';
import { Scim, ScimClient, ScimController } from './scim-http';
import { listResponse, resourceTypes, schemas, serviceProviderConfig } from './scim-schemas';

/**
 * SCIM's discovery endpoints (RFC 7644 §4): what this service provider supports, its resource
 * types and their schemas. Behind the SCIM token like the rest (identity providers send it).
 */
@ScimController('')
export class ScimDiscoveryController {
  @Get('ServiceProviderConfig')
  config(@Scim() client: ScimClient): Record<string, unknown> {
    return serviceProviderConfig(client.baseUrl);
  }

  @Get('ResourceTypes')
  resourceTypes(@Scim() client: ScimClient): Record<string, unknown> {
    const all = resourceTypes(client.baseUrl);
    return listResponse(all, all.length, 1);
  }

  @Get('ResourceTypes/:id')
  resourceType(@Scim() client: ScimClient, @Param('id') id: string): Record<string, unknown> {
    return found(resourceTypes(client.baseUrl), id, 'ResourceType');
  }

  @Get('Schemas')
  schemas(@Scim() client: ScimClient): Record<string, unknown> {
    const all = schemas(client.baseUrl);
    return listResponse(all, all.length, 1);
  }

  @Get('Schemas/:id')
  schema(@Scim() client: ScimClient, @Param('id') id: string): Record<string, unknown> {
    return found(schemas(client.baseUrl), id, 'Schema');
  }
}

function found(items: Record<string, unknown>[], id: string, kind: string): Record<string, unknown> {
  const item = items.find((candidate) => candidate.id === id);
  if (!item) throw scimError(404, `${kind} ${id.slice(0, 200)} not found`);
  return item;
}

/**
 * Any other path under `/scim/v2` (or another method on one): SCIM's 404, registered after every
 * SCIM route, and before the invoke catch-alls that would take a four-segment path otherwise.
 */
@ScimController('')
export class ScimFallbackController {
  @All('*path')
  unknown(@Scim() _client: ScimClient): never {
    throw scimError(
      404,
      'No such SCIM endpoint: this service provider serves /Users, /Groups, /ServiceProviderConfig, /ResourceTypes and /Schemas',
    );
  }
}
