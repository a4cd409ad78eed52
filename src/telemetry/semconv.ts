/**
 * The unstable (incubating) semantic conventions Parley emits, copied from
 * `@opentelemetry/semantic-conventions` 1.45 as its README asks ("Unstable SemConv": copy, do not
 * import the incubating entry point at run time). test/telemetry.e2e-spec.ts and
 * test/telemetry-attempts.e2e-spec.ts check every `gen_ai.*` name Parley sends against that
 * package's published exports, so a rename there fails a test here. The GenAI conventions are
 * listed in docs/observability.md, "Spans".
 */

export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_GEN_AI_REQUEST_MAX_TOKENS = 'gen_ai.request.max_tokens';
export const ATTR_GEN_AI_REQUEST_TEMPERATURE = 'gen_ai.request.temperature';
export const ATTR_GEN_AI_REQUEST_TOP_P = 'gen_ai.request.top_p';
export const ATTR_GEN_AI_REQUEST_PRESENCE_PENALTY = 'gen_ai.request.presence_penalty';
export const ATTR_GEN_AI_REQUEST_FREQUENCY_PENALTY = 'gen_ai.request.frequency_penalty';
export const ATTR_GEN_AI_REQUEST_SEED = 'gen_ai.request.seed';
export const ATTR_GEN_AI_REQUEST_STOP_SEQUENCES = 'gen_ai.request.stop_sequences';
export const ATTR_GEN_AI_REQUEST_CHOICE_COUNT = 'gen_ai.request.choice.count';
export const ATTR_GEN_AI_REQUEST_STREAM = 'gen_ai.request.stream';
export const ATTR_GEN_AI_RESPONSE_ID = 'gen_ai.response.id';
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK = 'gen_ai.response.time_to_first_chunk';
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = 'gen_ai.usage.cache_creation.input_tokens';
export const ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS = 'gen_ai.usage.reasoning.output_tokens';
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const ATTR_GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
export const ATTR_GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages';
export const ATTR_GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const ATTR_GEN_AI_TOKEN_TYPE = 'gen_ai.token.type';

export const GEN_AI_TOKEN_TYPE_VALUE_INPUT = 'input';
export const GEN_AI_TOKEN_TYPE_VALUE_OUTPUT = 'output';

export const METRIC_GEN_AI_CLIENT_TOKEN_USAGE = 'gen_ai.client.token.usage';
export const METRIC_GEN_AI_CLIENT_OPERATION_DURATION = 'gen_ai.client.operation.duration';
export const METRIC_GEN_AI_CLIENT_OPERATION_TIME_TO_FIRST_CHUNK = 'gen_ai.client.operation.time_to_first_chunk';

/**
 * The GenAI metrics' bucket boundaries as the conventions advise them (gen-ai-metrics.md:
 * ExplicitBucketBoundaries of gen_ai.client.token.usage, and of the durations).
 */
export const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
export const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/** Parley's own attributes (a namespace of its own, as the conventions ask of attributes outside them). */
export const ATTR_PARLEY_ENVIRONMENT = 'parley.environment';
export const ATTR_PARLEY_LOG_ID = 'parley.log_id';
export const ATTR_PARLEY_WORKSPACE = 'parley.workspace';
export const ATTR_PARLEY_PROJECT = 'parley.project';
export const ATTR_PARLEY_PROMPT_VERSION = 'parley.prompt.version';
export const ATTR_PARLEY_EXPERIMENT_ARM = 'parley.experiment.arm';
export const ATTR_PARLEY_PROVIDER = 'parley.provider';
export const ATTR_PARLEY_ATTEMPT = 'parley.attempt';
export const ATTR_PARLEY_WRITE_TURNS = 'parley.write.turns';
