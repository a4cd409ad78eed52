/** `apiKeyEnv`: the name of an environment variable of the server that holds a provider key. */
export const API_KEY_ENV_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,199}$/;

/**
 * Parley's own secrets. A credential's key goes to the credential's baseUrl, which any project key
 * may set: naming one of these would hand the admin key, the database URL or the key of every
 * stored secret to whatever server that project points at. Refused even when the operator's
 * prefix would cover them (PROVIDER_API_KEY_ENV_PREFIX=PARLEY_).
 */
const SERVER_SECRETS = ['PARLEY_ADMIN_KEY', 'PARLEY_SECRET_KEY', 'PARLEY_KEY', 'DATABASE_URL'];

/** Case-insensitive, as environment variable names are on some systems. */
export const isServerSecret = (name: string): boolean => SERVER_SECRETS.includes(name.toUpperCase());

export const SERVER_SECRETS_TEXT = SERVER_SECRETS.join(', ');

/**
 * Why `name` may not be read for a provider key, or undefined when it may. Only variables under the
 * operator's prefix (PROVIDER_API_KEY_ENV_PREFIX, default PARLEY_PROVIDER_) are provider keys; any
 * other (HOME, AWS_SECRET_ACCESS_KEY, ...) would be sent as a Bearer token to a URL the caller chose.
 */
export function apiKeyEnvProblem(name: string, prefix: string): string | undefined {
  if (isServerSecret(name)) return `apiKeyEnv must not name one of Parley's own secrets (${SERVER_SECRETS_TEXT})`;
  if (!name.startsWith(prefix) || name.length === prefix.length) {
    return `apiKeyEnv must start with "${prefix}": the server only lends variables under that prefix (PROVIDER_API_KEY_ENV_PREFIX) as provider keys`;
  }
  return undefined;
}
