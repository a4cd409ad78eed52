import * as path from 'node:path';

import { plainToInstance, Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength, ValidateBy, validateSync } from 'class-validator';

import { KeyBindings, parseKeyBindings } from '../providers/key-bindings';
import { AllowedHost, parseAllowedHosts } from '../providers/outbound-policy';
import { parseTelemetryConfig, TELEMETRY_OFF, TelemetryConfig } from './otel-config';
import { parseSignInConfig, SIGN_IN_ENV_NAMES, SignInConfig, SignInConfigProblems } from './sign-in-config';

const ENV_NAMES = [
  'PORT',
  'HOST',
  'DATABASE_URL',
  'DATA_DIR',
  'DATA_DIR_TEMPLATE',
  'PARLEY_ADMIN_KEY',
  'PARLEY_SECRET_KEY',
  'BODY_LIMIT',
  'LOG_LEVEL',
  'DB_POOL_SIZE',
  'AUTH_CACHE_TTL_MS',
  'REGISTRY_CACHE_TTL_MS',
  'HISTORY_CACHE_MB',
  'PROVIDER_TIMEOUT_MS',
  'PROVIDER_MAX_RETRIES',
  'PROVIDER_MAX_RETRY_AFTER_S',
  'IDEMPOTENCY_LEASE_MARGIN_S',
  'SCHEMA_MODE',
  'DATABASE_DIRECT_URL',
  'PROVIDER_API_KEY_ENV_PREFIX',
  'LOG_RETENTION_DAYS',
  'AUDIT_RETENTION_DAYS',
  'KEEP_ALIVE_TIMEOUT_MS',
  'METRICS_TOKEN',
  'RESPONSES_CONTEXT_BUDGET_TOKENS',
  'PROVIDER_ALLOWED_HOSTS',
  'PROVIDER_KEY_BINDINGS',
  'TEMPLATE_MAX_RENDERED_CHARS',
  'RESPONSES_JOB_LEASE_MS',
  'RESPONSES_JOB_CONCURRENCY',
  'EVAL_RUNS_CONCURRENCY',
  'RESPONSES_EVENT_FLUSH_MS',
  'RESPONSES_EVENT_RETENTION_S',
  'USAGE_RETENTION_DAYS',
  'RESPONSES_COMPACTION_PROMPT',
  'EMBEDDINGS_RECORD_INPUTS',
  'PARLEY_GUARD_INTERVAL_MS',
  'PARLEY_ROUTING_COOLDOWN_MS',
] as const;
const SCHEMA_MODES = ['plain', 'partitioned'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const toInt = ({ value }: { value: unknown }) => (value === undefined || value === '' ? undefined : Number(value));
const emptyToUndefined = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

function hostListProblem(value: unknown): string | undefined {
  try {
    parseAllowedHosts(String(value));
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
/** PROVIDER_ALLOWED_HOSTS: comma-separated host names, IP addresses or ranges, each with an optional :port. */
const IsAllowedHostList = () =>
  ValidateBy({
    name: 'isAllowedHostList',
    validator: {
      validate: (value) => typeof value === 'string' && hostListProblem(value) === undefined,
      defaultMessage: (args) => `PROVIDER_ALLOWED_HOSTS: ${hostListProblem(args?.value) ?? 'must be a string'}`,
    },
  });

/** The environment variables Parley reads; each is validated at start (README: Configuration). */
class EnvironmentVariables {
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT?: number;

  @IsOptional()
  @IsString()
  HOST?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// or postgresql:// URL' })
  DATABASE_URL?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_DIRECT_URL must be a postgres:// or postgresql:// URL' })
  DATABASE_DIRECT_URL?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  DATA_DIR?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(1)
  DATA_DIR_TEMPLATE?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(24, { message: 'PARLEY_ADMIN_KEY must be at least 24 characters' })
  PARLEY_ADMIN_KEY?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[A-Za-z0-9+/=_-]{32,}$/, { message: 'PARLEY_SECRET_KEY must be at least 32 characters of base64 or hex' })
  PARLEY_SECRET_KEY?: string;

  @IsOptional()
  @Matches(/^\d+(b|kb|mb)?$/i, { message: 'BODY_LIMIT must be a size such as 1mb, 512kb or 1048576' })
  BODY_LIMIT?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS)
  LOG_LEVEL?: (typeof LOG_LEVELS)[number];

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  DB_POOL_SIZE?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  AUTH_CACHE_TTL_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(60_000)
  REGISTRY_CACHE_TTL_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65_536)
  HISTORY_CACHE_MB?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3_600_000)
  PROVIDER_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10)
  PROVIDER_MAX_RETRIES?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3600)
  PROVIDER_MAX_RETRY_AFTER_S?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  IDEMPOTENCY_LEASE_MARGIN_S?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsIn(SCHEMA_MODES)
  SCHEMA_MODE?: SchemaMode;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsIn(['true', 'false'])
  EMBEDDINGS_RECORD_INPUTS?: 'true' | 'false';
  @IsOptional()
  @Matches(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, {
    message: 'PROVIDER_API_KEY_ENV_PREFIX must be the start of an environment variable name, e.g. PARLEY_PROVIDER_',
  })
  PROVIDER_API_KEY_ENV_PREFIX?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(36_500)
  LOG_RETENTION_DAYS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(36_500)
  USAGE_RETENTION_DAYS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(36_500)
  AUDIT_RETENTION_DAYS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  KEEP_ALIVE_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(10_000_000)
  RESPONSES_CONTEXT_BUDGET_TOKENS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(100_000_000)
  TEMPLATE_MAX_RENDERED_CHARS?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @Matches(/^[^@:/\s]+(@[^@:/\s]+(:[1-9][0-9]{0,8})?)?$/, {
    message: 'RESPONSES_COMPACTION_PROMPT must be <slug>[@<environment>[:<version>]]',
  })
  RESPONSES_COMPACTION_PROMPT?: string;
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(600_000)
  RESPONSES_JOB_LEASE_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  RESPONSES_JOB_CONCURRENCY?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  EVAL_RUNS_CONCURRENCY?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1000)
  RESPONSES_EVENT_FLUSH_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(31_536_000)
  RESPONSES_EVENT_RETENTION_S?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  PARLEY_GUARD_INTERVAL_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  PARLEY_ROUTING_COOLDOWN_MS?: number;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(16, { message: 'METRICS_TOKEN must be at least 16 characters' })
  METRICS_TOKEN?: string;
  @IsOptional()
  @IsAllowedHostList()
  PROVIDER_ALLOWED_HOSTS?: string;

  /** Checked with the prefix it depends on, in loadAppConfig. */
  @IsOptional()
  @IsString()
  PROVIDER_KEY_BINDINGS?: string;
}

export type SchemaMode = (typeof SCHEMA_MODES)[number];

export type LogLevel = (typeof LOG_LEVELS)[number];

/** Typed, validated configuration; the only place that reads process.env. */
export class AppConfig {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string | undefined;
  /**
   * A direct connection to PostgreSQL for the change listener's LISTEN when DATABASE_URL goes
   * through a pooler in transaction mode (docs/scaling.md); DATABASE_URL otherwise.
   */
  readonly databaseDirectUrl: string | undefined;
  /** Absolute path, or `memory://` for a throwaway in-memory PGlite (tests). */
  readonly dataDir: string;
  /**
   * A PGlite data-directory dump (tar) an in-memory database starts from instead of an empty one:
   * the test harness migrates one database per run and starts every test app from its dump
   * (docs/testing.md). Only with DATA_DIR=memory://.
   */
  readonly dataDirTemplate: string | undefined;
  readonly adminKey: string | undefined;
  readonly secretKey: string | undefined;
  readonly bodyLimit: string;
  readonly logLevel: LogLevel;
  readonly dbPoolSize: number;
  readonly authCacheTtlMs: number;
  /** How long a resolved deployment may be served from memory: the staleness bound of a deploy on other instances. */
  readonly registryCacheTtlMs: number;
  /**
   * Memory (estimated, bytes) for the thread histories an instance keeps between an assistant's
   * turns; 0 keeps none. Never stale: each read checks it against the thread (messages/history-cache.ts).
   */
  readonly historyCacheBytes: number;
  /**
   * Provider calls: per attempt, the wait for the upstream's response headers, and for a stream also
   * the longest silence between two events; an upstream that exceeds it is a 504.
   */
  readonly providerTimeoutMs: number;
  /** Retries of a provider call on 408/409/429/5xx and connection errors, before any byte was streamed. */
  readonly providerMaxRetries: number;
  /** EMBEDDINGS_RECORD_INPUTS (default true): `false` keeps no `/v1/embeddings` input text in any request log, as if every call sent doNotRecord. */
  readonly embeddingsRecordInputs: boolean;
  /** A longer Retry-After from an upstream is not waited out: the call fails at once as 429. */
  readonly providerMaxRetryAfterSeconds: number;
  /**
   * An Idempotency-Key's claim lasts every provider attempt at its timeout plus this margin, for the
   * rest of the request (docs/security.md, "Idempotency keys").
   */
  readonly idempotencyLeaseMarginSeconds: number;
  /**
   * `partitioned`: every project-scoped table hash-partitioned by project_id after the migrations,
   * proving the schema distributable (docs/scaling.md); `plain` (default): plain tables.
   */
  readonly schemaMode: SchemaMode;
  /** A credential's `apiKeyEnv` may only name variables starting with this (docs/security.md). */
  readonly providerApiKeyEnvPrefix: string;
  /** Request logs older than this are dropped, a whole monthly partition at a time; unset keeps them all. */
  readonly logRetentionDays: number | undefined;
  /** Hourly usage rollups older than this are deleted (docs/usage.md); unset keeps them all. */
  readonly usageRetentionDays: number | undefined;
  /** Audit events older than this are deleted (hourly); its own setting, since an audit trail is usually kept longer. */
  readonly auditRetentionDays: number;
  /** /v1/responses with `truncation: "auto"` drops the oldest items beyond this many (estimated) tokens. */
  readonly responsesContextBudgetTokens: number;
  /**
   * The deployed prompt (`<slug>[@<environment>[:<version>]]`, in the caller's project) that
   * POST /v1/responses/compact summarizes with; without such a deployment, Parley's built-in
   * instructions on the request's `model` (docs/openai-conversations.md, "Compaction").
   */
  readonly responsesCompactionPrompt: string;
  /** A rendered template (static text plus the variable values it reads) may not pass this many characters: 400 (docs/templates.md). */
  readonly templateMaxRenderedChars: number;
  /** Experiment runs one instance runs at once (docs/evals.md, "Experiments"); each runs its own `concurrency` items at a time. */
  readonly evalRunsConcurrency: number;
  /** Background and streamed responses (docs/openai-conversations.md, "Background responses and resumable streams"). */
  readonly responseJobs: {
    /** A running response's lease: another instance takes it over this long after its runner's last sign of life. */
    leaseMs: number;
    /** Background responses one instance runs at once. */
    concurrency: number;
    /** Stream events are stored at most this often per response (0: at each event); they reach clients once stored. */
    eventFlushMs: number;
    /** A finished response's stored stream events are deleted this long after it finished (the response stays). */
    eventRetentionSeconds: number;
  };
  /** How often each instance checks the splits' guards (docs/experiments.md, "Guards"). */
  readonly guardIntervalMs: number;
  /** A routing target's first cooldown; it doubles on each trip in a row, up to 60 times this (docs/routing.md, "Health"). */
  readonly routingCooldownMs: number;
  /** Idle keep-alive connections are kept this long: above a load balancer's idle timeout (nginx 60 s). */
  readonly keepAliveTimeoutMs: number;
  /** When set, GET /metrics requires `Authorization: Bearer <token>`. */
  readonly metricsToken: string | undefined;
  /**
   * Private, loopback and link-local hosts provider calls may reach anyway (a local Ollama, say);
   * all others of that kind are refused (docs/security.md "Outbound policy").
   */
  readonly providerAllowedHosts: AllowedHost[];
  /**
   * The hosts each lent variable's key may be sent to (docs/security.md, "Provider keys from the
   * server's environment"); a variable not listed here can only be named by the admin key.
   */
  readonly providerKeyBindings: KeyBindings;
  /** Single sign-on, the key sign-in switch and the instance admins made at sign-in (sign-in-config.ts). */
  readonly signIn: SignInConfig;
  /** OpenTelemetry export from the standard OTEL_* variables (otel-config.ts, docs/observability.md). */
  readonly telemetry: TelemetryConfig;

  constructor(env: EnvironmentVariables, signIn: SignInConfig = parseSignInConfig({}), telemetry: TelemetryConfig = TELEMETRY_OFF) {
    this.port = env.PORT ?? 3000;
    this.host = env.HOST ?? '0.0.0.0';
    this.databaseUrl = env.DATABASE_URL;
    this.databaseDirectUrl = env.DATABASE_DIRECT_URL ?? env.DATABASE_URL;
    const dataDir = env.DATA_DIR ?? './data';
    this.dataDir = dataDir.startsWith('memory://') ? dataDir : path.resolve(dataDir);
    this.dataDirTemplate = env.DATA_DIR_TEMPLATE === undefined ? undefined : path.resolve(env.DATA_DIR_TEMPLATE);
    this.adminKey = env.PARLEY_ADMIN_KEY;
    this.secretKey = env.PARLEY_SECRET_KEY;
    this.bodyLimit = env.BODY_LIMIT ?? '1mb';
    this.logLevel = env.LOG_LEVEL ?? 'info';
    this.dbPoolSize = env.DB_POOL_SIZE ?? 10;
    this.authCacheTtlMs = env.AUTH_CACHE_TTL_MS ?? 5000;
    this.registryCacheTtlMs = env.REGISTRY_CACHE_TTL_MS ?? 2000;
    this.historyCacheBytes = (env.HISTORY_CACHE_MB ?? 8) * 1024 * 1024;
    this.providerTimeoutMs = env.PROVIDER_TIMEOUT_MS ?? 60_000;
    this.providerMaxRetries = env.PROVIDER_MAX_RETRIES ?? 2;
    this.embeddingsRecordInputs = env.EMBEDDINGS_RECORD_INPUTS !== 'false';
    this.providerMaxRetryAfterSeconds = env.PROVIDER_MAX_RETRY_AFTER_S ?? 30;
    this.idempotencyLeaseMarginSeconds = env.IDEMPOTENCY_LEASE_MARGIN_S ?? 30;
    this.schemaMode = env.SCHEMA_MODE ?? 'plain';
    this.providerApiKeyEnvPrefix = env.PROVIDER_API_KEY_ENV_PREFIX ?? 'PARLEY_PROVIDER_';
    this.logRetentionDays = env.LOG_RETENTION_DAYS;
    this.usageRetentionDays = env.USAGE_RETENTION_DAYS;
    this.auditRetentionDays = env.AUDIT_RETENTION_DAYS ?? 365;
    this.responsesContextBudgetTokens = env.RESPONSES_CONTEXT_BUDGET_TOKENS ?? 100_000;
    this.templateMaxRenderedChars = env.TEMPLATE_MAX_RENDERED_CHARS ?? 1_000_000;
    this.responsesCompactionPrompt = env.RESPONSES_COMPACTION_PROMPT ?? 'compaction@production';
    this.evalRunsConcurrency = env.EVAL_RUNS_CONCURRENCY ?? 2;
    this.responseJobs = {
      leaseMs: env.RESPONSES_JOB_LEASE_MS ?? 30_000,
      concurrency: env.RESPONSES_JOB_CONCURRENCY ?? 16,
      eventFlushMs: env.RESPONSES_EVENT_FLUSH_MS ?? 50,
      eventRetentionSeconds: env.RESPONSES_EVENT_RETENTION_S ?? 86_400,
    };
    this.guardIntervalMs = env.PARLEY_GUARD_INTERVAL_MS ?? 5000;
    this.routingCooldownMs = env.PARLEY_ROUTING_COOLDOWN_MS ?? 5000;
    this.keepAliveTimeoutMs = env.KEEP_ALIVE_TIMEOUT_MS ?? 65_000;
    this.metricsToken = env.METRICS_TOKEN;
    this.providerAllowedHosts = parseAllowedHosts(env.PROVIDER_ALLOWED_HOSTS);
    this.providerKeyBindings = parseKeyBindings(env.PROVIDER_KEY_BINDINGS, this.providerApiKeyEnvPrefix);
    this.signIn = signIn;
    this.telemetry = telemetry;
  }

  get embedded(): boolean {
    return this.databaseUrl === undefined;
  }

  get inMemory(): boolean {
    return this.embedded && this.dataDir.startsWith('memory://');
  }

  /**
   * How many batches each group-committed writer or reader (GroupCommit) may run at once: a
   * quarter of the pool, so the writers together leave connections for everything else; one on
   * PGlite, which is one session (a second batch would only queue behind the first).
   */
  get groupCommitInFlight(): number {
    return this.embedded ? 1 : Math.max(1, Math.floor(this.dbPoolSize / 4));
  }

  /** Whether a group commit waits one event-loop turn before flushing (GroupCommitOptions.gather): on PGlite. */
  get groupCommitGather(): boolean {
    return this.embedded;
  }
}

export class ConfigError extends Error {}

/** Validates the environment and says what is wrong with each bad value, all at once. */
export function loadAppConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  // Only Parley's own variables are read, so unrelated environment variables never fail validation.
  const known = Object.fromEntries(ENV_NAMES.filter((name) => env[name] !== undefined).map((name) => [name, env[name]]));
  const parsed = plainToInstance(EnvironmentVariables, known);
  const errors = validateSync(parsed, { skipMissingProperties: false });
  const lines = errors.map((e) => `  ${e.property}: ${Object.values(e.constraints ?? {}).join('; ')}`);
  let signIn: SignInConfig | undefined;
  try {
    signIn = parseSignInConfig(Object.fromEntries(SIGN_IN_ENV_NAMES.map((name) => [name, env[name]])));
  } catch (err) {
    if (!(err instanceof SignInConfigProblems)) throw err;
    lines.push(...err.lines.map((line) => `  ${line}`));
  }
  const telemetry = parseTelemetryConfig(env);
  lines.push(...telemetry.problems.map((problem) => `  ${problem}`));
  if (lines.length > 0 || !signIn) throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  let config: AppConfig;
  try {
    config = new AppConfig(parsed, signIn, telemetry.config);
  } catch (err) {
    throw new ConfigError(`Invalid configuration:\n  PROVIDER_KEY_BINDINGS: ${(err as Error).message}`);
  }
  if (config.dataDirTemplate !== undefined && !config.inMemory) {
    throw new ConfigError(
      'Invalid configuration:\n  DATA_DIR_TEMPLATE: only an in-memory database (DATA_DIR=memory://, no DATABASE_URL) starts from a template',
    );
  }
  return config;
}
