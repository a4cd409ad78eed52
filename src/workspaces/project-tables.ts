/**
 * Every table that holds a project's rows, in the order a project's deletion empties them
 * (docs/security.md, "Deleting a project"): rows that a foreign key of another project table names
 * after the rows naming them (deployments before the versions, prompts and environments they
 * name; versions before prompts), everything before `projects`. test/project-deletion.e2e-spec.ts
 * compares this list with the database's catalog (every table with a `project_id` column), so a
 * table added by a migration and not here fails it.
 *
 * request_logs is partitioned by time (and its partitions are not listed): a DELETE on the parent
 * reaches every partition. In SCHEMA_MODE=partitioned the others are hash-partitioned by
 * project_id, and the same DELETE is pruned to the project's partition.
 */
export const PROJECT_TABLES: readonly string[] = [
  // The registry: deployments name versions, prompts and environments; versions name prompts.
  'deployments',
  'deployment_requests',
  'environment_gates',
  'prompt_versions',
  'prompts',
  'environments',
  'provider_credentials',
  'project_settings',
  // Calls, conversations, responses and what hangs off them.
  'request_logs',
  'thread_messages',
  'threads',
  'response_events',
  'response_jobs',
  'responses',
  'response_cache',
  'idempotency_keys',
  'webhook_deliveries',
  'webhooks',
  'routing_target_health',
  // Usage, prices, limits and budgets.
  'usage_rollups',
  'usage_rollups_daily',
  'price_overrides',
  'limit_budget_probes',
  'limit_counters',
  'limit_inflight',
  'limit_settings',
  // Feedback and evaluations.
  'feedback',
  'feedback_rollups',
  'dataset_items',
  'dataset_versions',
  'datasets',
  'eval_run_items',
  'eval_run_grader_totals',
  'eval_runs',
  'graders',
  'openai_eval_runs',
  'openai_evals',
  // The project's own trail (its deletion is written on the instance's), people's roles, sessions, keys.
  'audit_events',
  'memberships',
  'group_roles',
  'console_sessions',
  'api_keys',
];
