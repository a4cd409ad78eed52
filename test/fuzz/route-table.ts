/**
 * The routes to fuzz: every route of the running application's express router (what actually
 * answers), with its parameters and body schema from the OpenAPI document (GET /docs-json) where
 * it documents the route. A route added tomorrow is fuzzed tomorrow, documented or not, with no
 * list here to keep up to date.
 */

export type SchemaObject = Record<string, any>;

/** Which documented error body an endpoint answers with (see expectations.ts). */
export type EndpointGroup = 'invoke' | 'v2' | 'openai' | 'anthropic' | 'scim' | 'other';

export interface FuzzRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** As documented, e.g. `/v2/threads/{threadId}/messages`. */
  path: string;
  pathParams: string[];
  queryParams: Array<{ name: string; schema: SchemaObject }>;
  body?: SchemaObject;
  group: EndpointGroup;
  /** The document says the admin key is the credential (the admin API: workspaces, keys, limits). */
  admin?: boolean;
  /** The scopes the route needs, any one of them (`x-parley-scopes`; `any`: any key); none for a public route. */
  scopes?: string[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** One route as express registered it: `/v2/threads/:threadId`. */
export interface RouterRoute {
  method: string;
  path: string;
}

/** The routes of an express 5 application's router (Nest registers every controller route there). */
export function routerRoutesOf(expressApp: {
  router: { stack: Array<{ route?: { path: unknown; methods: Record<string, boolean> } }> };
}): RouterRoute[] {
  return expressApp.router.stack.flatMap((layer) =>
    layer.route && typeof layer.route.path === 'string'
      ? Object.keys(layer.route.methods).map((method) => ({ method: method.toUpperCase(), path: layer.route!.path as string }))
      : [],
  );
}

/** The Swagger UI's own files: static, served by swagger-ui-express, not the application's. */
const SWAGGER_UI = /^\/docs($|[/-])/;

/**
 * Every router route (the Swagger UI's files aside), as documented where the document has it;
 * a route the document lacks is fuzzed with its path parameters and hostile bodies.
 */
export function fuzzRoutesOf(document: SchemaObject, router: RouterRoute[]): FuzzRoute[] {
  const documented = new Map(routesOf(document).map((route) => [`${route.method} ${route.path}`, route]));
  const routes: FuzzRoute[] = [];
  for (const { method, path: expressPath } of router) {
    if (SWAGGER_UI.test(expressPath) || !(METHODS as readonly string[]).includes(method.toLowerCase())) continue;
    const path = expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    routes.push(
      documented.get(`${method} ${path}`) ?? {
        method: method as FuzzRoute['method'],
        path,
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]),
        queryParams: [],
        group: groupOf(path, {}),
      },
    );
  }
  return routes;
}

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
        admin: (operation.security ?? []).some((requirement: SchemaObject) => 'admin-key' in requirement),
        ...(Array.isArray(operation['x-parley-scopes']) ? { scopes: operation['x-parley-scopes'] } : {}),
      });
    }
  }
  return routes;
}

function groupOf(path: string, operation: SchemaObject): EndpointGroup {
  if (path === '/v1/messages' || path.startsWith('/v1/messages/')) return 'anthropic';
  if (path.startsWith('/v1/')) return 'openai';
  if (path.startsWith('/scim/')) return 'scim';
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
