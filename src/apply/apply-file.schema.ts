import { z } from 'zod';

import { Role, ROLES } from '../auth/roles';
import { expects } from '../common/chat';
import { isPlainObject } from '../common/errors';
import { baseUrlProblem } from '../common/http/redact-url';
import { openApiSchemaOf } from '../common/swagger/zod-schema';
import { SLUG_PATTERN } from '../common/validation/slug';
import { datasetItemSchema } from '../evals/datasets/dataset-item.schema';
import { graderSpecSchema } from '../evals/graders/grader.schema';
import { MAX_BUDGET_USD } from '../limits/limits.types';
import { groupNameProblem, isEmail } from '../members/member-rules';
import { API_KEY_ENV_PATTERN, isServerSecret, SERVER_SECRETS_TEXT } from '../provider-credentials/api-key-env';
import { responseCacheSchema, routingSchema } from '../registry/content/routing.schema';
import {
  anyParametersSchema,
  PROVIDER_NAME_PATTERN,
  templateSchema,
  toolsSchema,
  VARIABLE_NAME_PATTERN,
} from '../registry/content/version-content.schema';
import { guardsSchema } from '../registry/deployments/guards';
import { splitArmsSchema, splitRulesSchemaOf, stickyBySchema, versionNumberSchema } from '../registry/deployments/split';
import { putGateSchema } from '../registry/environments/environment-gate.dto';
import { DEFAULT_ENVIRONMENTS } from '../registry/environments/environments.service';
import { PROMPT_KINDS } from '../registry/resolved-deployment';
import { priceOverridesSchema } from '../usage/pricing/price-overrides.schema';

/**
 * parley.yaml (docs/apply.md). Objects are strict: a misspelt key is an error, never ignored.
 * Prompts are checked one by one (see apply-file.parser.ts), so every prompt's problems are reported.
 */

/** The message of every 400 about the file; each problem is a line of its details. */
export const INVALID_FILE = 'Invalid apply file';

export const slugSchema = z
  .string(expects('a slug'))
  .regex(SLUG_PATTERN, expects('a slug: 1-64 lower-case letters, digits, "-" or "_", starting with a letter or digit'))
  .refine((value) => !value.includes('--'), expects('a slug without "--"'));
const slug = slugSchema;

const envVarName = z
  .string()
  .regex(API_KEY_ENV_PATTERN, expects('an environment variable name (letters, digits, "_")'))
  .refine((name) => !isServerSecret(name), expects(`an environment variable other than Parley's own secrets (${SERVER_SECRETS_TEXT})`));

export const providerSchema = z.strictObject({
  name: z
    .string()
    .regex(PROVIDER_NAME_PATTERN, expects('a provider name: 1-64 lower-case letters, digits, "-" or "_"'))
    .refine((name) => name !== 'local', expects('another name: "local" is the built-in provider')),
  type: z.enum(['openai', 'anthropic']),
  // The same rule as the REST routes' (provider-credential.dto.ts).
  baseUrl: z
    .string()
    .superRefine((url, ctx) => {
      const problem = baseUrlProblem(url);
      if (problem)
        ctx.addIssue({
          code: 'custom',
          message:
            problem === 'must be an http(s) URL'
              ? 'Expected an http(s) URL'
              : `Expected an http(s) URL that ${problem.replace(/^must/, 'does')}`,
        });
    })
    .optional(),
  apiKeyEnv: envVarName.optional(),
});

/** YAML writes `count: 3` for a default of "3"; defaults are text, so scalars are taken as their text. */
const variableDefault = z.union([z.string(), z.number(), z.boolean()], expects('string')).transform(String);

/** In a split of parley.yaml, the version the apply makes or finds for the file's own content (docs/apply.md, "Splits"). */
export const FILE_VERSION = 'file';
const fileVersion = z.union(
  [versionNumberSchema, z.literal(FILE_VERSION)],
  expects(`a version number of the prompt, or "${FILE_VERSION}" for this file's content`),
);

/**
 * A split deployment (docs/experiments.md, "Splits"): the API's `{environment, split, stickyBy, rules, guards}`,
 * validated by the same schemas, with "file" for the file's own version. A rule names one of the arms as the split writes it.
 */
export const splitDeploySchema = z
  .strictObject({
    environment: slugSchema,
    split: splitArmsSchema(fileVersion),
    stickyBy: stickyBySchema.default('thread'),
    rules: splitRulesSchemaOf(fileVersion).default([]),
    guards: guardsSchema.optional(),
  })
  .superRefine(({ split, rules }, ctx) => {
    const arms = new Set<unknown>(split.map((arm) => arm.version));
    rules.forEach((rule, index) => {
      if (!arms.has(rule.version))
        ctx.addIssue({ code: 'custom', path: ['rules', index, 'version'], message: `${rule.version} is not an arm of the split` });
    });
  });

const deployEntryUnion = z.union([slugSchema, splitDeploySchema]);

/**
 * An environment's slug (the file's content deployed there) or a split. Chosen by the entry's type
 * first, so a split's problems are reported field by field rather than as "matches neither".
 */
export const deployEntrySchema = z
  .unknown()
  .superRefine((entry, ctx) => {
    const schema = typeof entry === 'string' ? slugSchema : isPlainObject(entry) ? splitDeploySchema : undefined;
    if (!schema)
      return ctx.addIssue({
        code: 'custom',
        message: 'Expected an environment slug, or a split: {environment, split: [{version, weight}], stickyBy?, rules?, guards?}',
      });
    if (isPlainObject(entry) && entry.version !== undefined && entry.split === undefined)
      return ctx.addIssue({
        code: 'custom',
        path: ['version'],
        message: `a plain deploy is the environment's slug alone (\`- ${typeof entry.environment === 'string' ? entry.environment : '<environment>'}\`), which deploys this file's content; versions are named in a split's arms`,
      });
    const parsed = schema.safeParse(entry, { reportInput: true });
    for (const issue of parsed.error?.issues ?? []) ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
  })
  .pipe(deployEntryUnion)
  .meta({ anyOf: openApiSchemaOf(deployEntryUnion).anyOf });

export const promptSchema = z.strictObject({
  slug,
  kind: z.enum(PROMPT_KINDS).default('prompt'),
  // Both may be left out with a routing block (they are its first target's); without one, provider
  // is "local" unless given and model is required (prepareVersionContent says so, as for the API).
  provider: z.string().regex(PROVIDER_NAME_PATTERN, expects('a provider name')).optional(),
  model: z.string().min(1).max(200).optional(),
  // Which of these a kind requires or refuses (an embedding entry: no template, tools or variables;
  // `dimensions` only) is prepareVersionContent's to say, as for the API.
  parameters: anyParametersSchema.optional(),
  tools: toolsSchema.optional(),
  variables: z.record(z.string().regex(VARIABLE_NAME_PATTERN, expects('a variable name')), variableDefault).optional(),
  template: templateSchema.optional(),
  /** docs/routing.md, "The routing block": the API's block, as it is. */
  routing: routingSchema.optional(),
  /** docs/routing.md, "Response cache". */
  cache: responseCacheSchema.optional(),
  deploy: z.array(deployEntrySchema).default([]),
});

const limitValue = z.number().int().min(1).max(1_000_000_000).nullable().optional();
const budgetValue = z.number().min(0).max(MAX_BUDGET_USD).nullable().optional();
/** docs/security.md, "Limits", and docs/usage.md, "Budgets"; applied only with the admin key. */
export const limitValuesSchema = z.strictObject({
  requestsPerMinute: limitValue,
  concurrentInvokes: limitValue,
  tokensPerDay: limitValue,
  budgetUsdPerDay: budgetValue,
  budgetUsdPerMonth: budgetValue,
});

/** Items one dataset of a file may hold; a larger dataset is imported (POST /v2/datasets/{name}/import). */
export const MAX_FILE_DATASET_ITEMS = 10_000;

/** docs/evals.md, "Datasets". `items` absent: the file does not manage them (a new dataset starts empty; an existing one keeps its items). */
export const datasetEntrySchema = z.strictObject({
  name: slug,
  description: z.string().max(2000).optional(),
  items: z.array(datasetItemSchema).max(MAX_FILE_DATASET_ITEMS).optional(),
});

/** An environment's deploy gate (docs/evals.md, "The deploy gate"): the body of PUT /v2/environments/{slug}/gate and its environment. */
export const gateEntrySchema = z.strictObject({ environment: slug, ...putGateSchema.shape });

const ROLE_EXPECTED = `Expected a role: ${ROLES.join(', ')}`;

/**
 * A map of names to roles, each key checked by `keyProblem` and each value a role, every problem
 * at its key (a record's key schema would only say "Invalid key in record"). `sameKey` folds keys
 * that name the same thing (e-mail addresses in any case), each listed once.
 */
/** Entries of `access.groups` and of `access.members`, each. */
const MAX_ACCESS_ENTRIES = 1000;

function rolesByName(what: string, keyProblem: (key: string) => string | null, sameKey: (key: string) => string = (key) => key) {
  return z
    .record(z.string(), z.unknown())
    .superRefine((record, ctx) => {
      // Bounded as the file's other lists are: each entry is a few queries in one transaction.
      if (Object.keys(record).length > MAX_ACCESS_ENTRIES) {
        ctx.addIssue({ code: 'custom', path: [], message: `At most ${MAX_ACCESS_ENTRIES} entries` });
        return;
      }
      const seen = new Map<string, string>();
      for (const [key, role] of Object.entries(record)) {
        const problem = keyProblem(key);
        if (problem) ctx.addIssue({ code: 'custom', path: [key], message: problem });
        if (!(ROLES as readonly unknown[]).includes(role)) ctx.addIssue({ code: 'custom', path: [key], message: ROLE_EXPECTED });
        const first = seen.get(sameKey(key));
        if (first !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `"${first}" is the same: list it once` });
        else seen.set(sameKey(key), key);
      }
    })
    .transform((record) => record as Record<string, Role>)
    .default({})
    .meta({ type: 'object', description: `${what} → role`, additionalProperties: { type: 'string', enum: [...ROLES] } });
}

/**
 * The roles this project gives groups and people (docs/apply.md, "Access"), reviewed as code:
 * `groups` by the identity provider's group name, `members` by e-mail address. Apply makes the
 * project's roles that apply owns exactly these; roles given through the API are left alone.
 */
export const accessSchema = z.strictObject({
  groups: rolesByName('group name', (name) => {
    const problem = groupNameProblem(name);
    return problem && `Expected a group name (${problem.replace(/^group: /, '')})`;
  }),
  members: rolesByName(
    'e-mail address',
    (email) => (isEmail(email) ? null : 'Expected an e-mail address'),
    (email) => email.toLowerCase(),
  ),
});

/** The top level; `prompts` items are validated separately with promptSchema. */
export const applyFileSchema = z.strictObject({
  workspace: slug,
  project: slug,
  environments: z
    .array(slug)
    .min(1)
    .default([...DEFAULT_ENVIRONMENTS]),
  providers: z.array(providerSchema).default([]),
  prompts: z.array(z.unknown()).default([]),
  limits: z.strictObject({ project: limitValuesSchema.optional(), keys: limitValuesSchema.optional() }).optional(),
  /** The project's price overrides (docs/usage.md); applied only with the admin key; replaces them all. */
  prices: priceOverridesSchema.optional(),
  /** Named graders (docs/evals.md, "Graders"): `{name, threshold?, config}`, created or replaced by name. */
  graders: z.array(graderSpecSchema).max(1000).default([]),
  datasets: z.array(datasetEntrySchema).max(1000).default([]),
  gates: z.array(gateEntrySchema).default([]),
  access: accessSchema.optional(),
});

export type DeclaredPrompt = z.output<typeof promptSchema>;
export type DeclaredSplitDeploy = z.output<typeof splitDeploySchema>;
export type DeclaredProviderSpec = z.output<typeof providerSchema>;
export type ApplyFileTop = z.output<typeof applyFileSchema>;
export type DeclaredGrader = ApplyFileTop['graders'][number];
export type DeclaredDataset = z.output<typeof datasetEntrySchema>;
export type DeclaredGate = z.output<typeof gateEntrySchema>;
export type DeclaredAccess = z.output<typeof accessSchema>;
