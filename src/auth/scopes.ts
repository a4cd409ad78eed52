/**
 * What a key may do (docs/security.md, "Scopes"). A key stored without scopes (`null`) has every
 * scope: keys made before scopes existed, and keys made without naming any, keep full access.
 */
export const SCOPES = [
  'invoke',
  'threads:read',
  'threads:write',
  'logs:read',
  'feedback:write',
  'registry:read',
  'registry:write',
  'deploy',
  'providers:read',
  'providers:write',
  'keys:manage',
  'usage:read',
  'audit:read',
  'members:manage',
] as const;

export type Scope = (typeof SCOPES)[number];

const READ_ONLY: Scope[] = ['threads:read', 'logs:read', 'registry:read', 'providers:read', 'usage:read', 'audit:read'];

/** Named sets of scopes offered by the admin API and the CLI; `app` is the one for a key an application embeds. */
export const SCOPE_PRESETS = {
  app: ['invoke', 'threads:read', 'threads:write', 'feedback:write'],
  viewer: READ_ONLY,
  // Keys made with `editor` deployed before `deploy` was a scope of its own, and still do.
  editor: ['invoke', 'threads:write', 'feedback:write', 'registry:write', 'deploy', ...READ_ONLY],
  full: [...SCOPES],
} as const satisfies Record<string, readonly Scope[]>;

export type ScopePreset = keyof typeof SCOPE_PRESETS;
export const PRESET_NAMES = Object.keys(SCOPE_PRESETS) as ScopePreset[];

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/** The scopes a key is made with: a preset and/or explicit scopes, deduplicated in SCOPES order; null when neither is named (full access). */
export function scopesFor(preset: ScopePreset | undefined, scopes: readonly Scope[] | undefined): Scope[] | null {
  if (preset === undefined && scopes === undefined) return null;
  const wanted = new Set<Scope>([...(preset ? SCOPE_PRESETS[preset] : []), ...(scopes ?? [])]);
  return SCOPES.filter((scope) => wanted.has(scope));
}

/** Whether a key with `granted` (null: every scope) holds at least one of `anyOf`. */
export function grants(granted: readonly Scope[] | null, anyOf: readonly Scope[]): boolean {
  return granted === null || anyOf.some((scope) => granted.includes(scope));
}

/** The scopes of `requested` (null: all) that a key holding `granted` (null: all) does not hold: a key cannot give more than it has. */
export function scopesBeyond(granted: readonly Scope[] | null, requested: readonly Scope[] | null): Scope[] {
  if (granted === null) return [];
  return (requested ?? SCOPES).filter((scope) => !granted.includes(scope));
}
