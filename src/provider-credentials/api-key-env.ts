/** `apiKeyEnv`: the name of an environment variable of the server that holds a provider key. */
export const API_KEY_ENV_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,199}$/;

/**
 * Parley's own secrets. A credential's key goes to the credential's baseUrl, which any project key
 * may set: naming one of these would hand the admin key, the database URL or the key of every
 * stored secret to whatever server that project points at.
 */
const SERVER_SECRETS = ['PARLEY_ADMIN_KEY', 'PARLEY_SECRET_KEY', 'PARLEY_KEY', 'DATABASE_URL'];

/** Case-insensitive, as environment variable names are on some systems. */
export const isServerSecret = (name: string): boolean => SERVER_SECRETS.includes(name.toUpperCase());

export const SERVER_SECRETS_TEXT = SERVER_SECRETS.join(', ');
