/**
 * The routes to fuzz, read from the running application's OpenAPI document (GET /docs-json), which
 * Nest generates from the controllers themselves: a route added tomorrow is fuzzed tomorrow, with
 * no list here to keep up to date.
 */

export type SchemaObject = Record<string, any>;

/** Which documented error body an endpoint answers with (see expectations.ts). */
export type EndpointGroup = 'invoke' | 'v2' | 'openai' | 'other';

export interface FuzzRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** As documented, e.g. `/v2/threads/{threadId}/messages`. */
  path: string;
  pathParams: string[];
  queryParams: Array<{ name: string; schema: SchemaObject }>;
  body?: SchemaObject;
  group: EndpointGroup;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export function routesOf(document: SchemaObject): FuzzRoute[] {
  const routes: FuzzRoute[] = [];
  for (const [path, item] of Object.entries<SchemaObject>(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const parameters: SchemaObject[] = [...(item.parameters ?? []), ...(operation.parameters ?? [])];
      routes.push({
        method: method.toUpperCase() as FuzzRoute['method'],
        path,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        body: operation.requestBody?.content?.['application/json']?.schema,
        group: groupOf(path, operation),
      });
    }
  }
  return routes;
}

function groupOf(path: string, operation: SchemaObject): EndpointGroup {
  if (path.startsWith('/v1/')) return 'openai';
  if ((operation.tags ?? []).includes('Invoke')) return 'invoke';
  if (path.startsWith('/v2/')) return 'v2';
  return 'other';
}

/** Resolves `$ref: '#/components/schemas/X'` against the document. */
export function deref(document: SchemaObject, schema: SchemaObject | undefined): SchemaObject {
  let current = schema ?? {};
  for (let hops = 0; typeof current.$ref === 'string' && hops < 10; hops++) {
    const name = current.$ref.split('/').pop() as string;
    current = document.components?.schemas?.[name] ?? {};
  }
  return current;
}
