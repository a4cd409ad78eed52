/** Who is calling: resolved from the API key by the global guard and attached to the request. */
export interface ProjectPrincipal {
  kind: 'project';
  keyId: string;
  projectId: string;
  projectSlug: string;
  workspaceId: string;
  workspaceSlug: string;
}

export interface AdminPrincipal {
  kind: 'admin';
  keyId: string | null;
}

export type Principal = ProjectPrincipal | AdminPrincipal;

export interface RequestWithPrincipal {
  principal?: Principal;
  headers: Record<string, string | string[] | undefined>;
}
