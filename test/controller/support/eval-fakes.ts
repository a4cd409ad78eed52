import { randomUUID } from 'node:crypto';

import type { Principal, ProjectPrincipal } from '../../../src/auth/principal';
import { hasScope } from '../../../src/auth/principal';
import { badRequest, conflict, forbidden, invalidBody, notFound } from '../../../src/common/errors';
import { pageLimit, PageQuery, toPage } from '../../../src/common/pagination';
import { isSlugLike } from '../../../src/common/validation/slug';
import type { DatasetItemsQuery } from '../../../src/evals/datasets/dataset.dto';
import { parseItemsFile } from '../../../src/evals/datasets/dataset-files';
import type { DatasetItemInput } from '../../../src/evals/datasets/dataset-item.schema';
import type { DatasetRow, ItemRow } from '../../../src/evals/datasets/datasets.repository';
import { DatasetsService, toDatasetDto, toItemDto } from '../../../src/evals/datasets/datasets.service';
import type { GraderDto } from '../../../src/evals/graders/grader.dto';
import { defaultThreshold, type GraderSpec } from '../../../src/evals/graders/grader.schema';
import { configProblems, GradersService } from '../../../src/evals/graders/graders.service';
import type { CompareQuery, RunItemsQuery, RunsQuery } from '../../../src/evals/runs/run.dto';
import type { StoredTarget } from '../../../src/evals/runs/run.schema';
import { toRunDto } from '../../../src/evals/runs/run-mapper';
import type { RunRow } from '../../../src/evals/runs/runs.repository';
import { RunsService } from '../../../src/evals/runs/runs.service';
import type { CreateTransaction } from '../../../src/idempotency/create-transaction';
import { EnvironmentDeletionService } from '../../../src/registry/environments/environment-deletion.service';
import { EnvironmentGateService } from '../../../src/registry/environments/environment-gate.service';
import { EnvironmentProtectionService } from '../../../src/registry/environments/environment-protection.service';
import { DEFAULT_ENVIRONMENTS, EnvironmentsService } from '../../../src/registry/environments/environments.service';
import { Failing, FakeApiKeys, PROJECT_ID, projectPrincipal } from './fakes';

/**
 * In-memory stand-ins for the evaluations' services (docs/evals.md) and the deploy gate routes of
 * the environments, for test/controller/evals.controller-spec.ts. As ./fakes.ts: each keeps just
 * enough state to answer as the real one does, and throws the app's own exceptions (the factories
 * of src/common/errors) with the real service's messages; where the real service checks a rule
 * without its database (a grader's pattern, an import file's lines, a key's scopes) the fake calls
 * the same function. The real conditions against a database are the e2e tier's
 * (test/evals-*.e2e-spec.ts).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Keys beside ./fakes.ts's four, holding the evaluations' scopes apart. */
export const EVAL_KEYS = {
  /** `registry:read` only: reads datasets, graders, runs and gates, changes none. */
  registryRead: 'ck-controller-registry-read-01',
  /** `registry:read` and `registry:write`, without `invoke`, `logs:read` or `threads:read`. */
  registryWrite: 'ck-controller-registry-write-1',
} as const;

/** The guard's keys: ./fakes.ts's four and EVAL_KEYS. */
export class EvalApiKeys extends FakeApiKeys {
  private readonly more = new Map<string, Principal>([
    [EVAL_KEYS.registryRead, projectPrincipal(['registry:read'])],
    [EVAL_KEYS.registryWrite, projectPrincipal(['registry:read', 'registry:write'])],
  ]);

  override async resolve(secret: string): Promise<Principal | null> {
    return this.more.get(secret) ?? super.resolve(secret);
  }
}

/** The real messages of DatasetsService (src/evals/datasets/datasets.service.ts). */
export const DATASET_ERRORS = {
  notFound: 'Dataset not found',
  itemNotFound: 'Dataset item not found',
  logNotFound: 'Request log not found',
  turnNotFound: 'Thread message not found',
} as const;

interface StoredDataset {
  row: DatasetRow;
  /** The current version's items, by id. */
  items: Map<string, ItemRow>;
  versions: { version: number; itemCount: number; change: string; createdAt: string }[];
}

type ServiceArgs<S, M extends keyof S> = S[M] extends (...args: infer A) => unknown ? A : never;

/** DatasetsService's endpoint methods (and `require`, which runs and gates use) on a Map. Real conditions: test/evals-datasets.e2e-spec.ts. */
export class FakeDatasets
  extends Failing
  implements
    Pick<
      DatasetsService,
      | 'create'
      | 'list'
      | 'get'
      | 'remove'
      | 'versions'
      | 'items'
      | 'item'
      | 'addItems'
      | 'importItems'
      | 'addFromSource'
      | 'patchItem'
      | 'removeItem'
    >
{
  readonly rows = new Map<string, StoredDataset>();
  /** Request logs `POST /v2/datasets/{name}/items/from` can copy: id → the log's variables. */
  readonly logs = new Map<string, Record<string, string>>();

  /** Adds a dataset of the project with `items` (one version) and answers its item ids. */
  seed(name: string, items: DatasetItemInput[] = []): string[] {
    const now = new Date();
    this.rows.set(name, {
      row: { id: randomUUID(), name, description: '', version: 0, item_count: 0, created_at: now, updated_at: now },
      items: new Map(),
      versions: [],
    });
    return items.length ? this.insert(name, items, null, 'added').itemIds : [];
  }

  /** The real `require`: a name that is no slug, or names no dataset of the project, is the 404. */
  async require(projectId: string, name: string): Promise<DatasetRow> {
    return this.stored(projectId, name).row;
  }

  private stored(projectId: string, name: string): StoredDataset {
    const found = isSlugLike(name) && projectId === PROJECT_ID ? this.rows.get(name) : undefined;
    if (!found) throw notFound(DATASET_ERRORS.notFound);
    return found;
  }

  private storedItem(dataset: StoredDataset, itemId: string): ItemRow {
    const item = UUID.test(itemId) ? dataset.items.get(itemId) : undefined;
    if (!item) throw notFound(DATASET_ERRORS.itemNotFound);
    return item;
  }

  /** One new version of the dataset: its items added (or, with `replace`, changed). */
  private insert(name: string, items: DatasetItemInput[], source: Record<string, unknown> | null, verb: string) {
    const dataset = this.rows.get(name)!;
    const version = Number(dataset.row.version) + 1;
    const ids = items.map((item) => {
      const id = randomUUID();
      dataset.items.set(id, { ...item, id, since_version: version, expected: item.expected ?? null, source, created_at: new Date() });
      return id;
    });
    this.bump(dataset, `${verb}: ${items.length} item${items.length === 1 ? '' : 's'}`);
    return { version, itemCount: dataset.items.size, itemIds: ids };
  }

  private bump(dataset: StoredDataset, change: string): number {
    dataset.row.version = Number(dataset.row.version) + 1;
    dataset.row.item_count = dataset.items.size;
    dataset.row.updated_at = new Date();
    dataset.versions.unshift({ version: dataset.row.version, itemCount: dataset.items.size, change, createdAt: new Date().toISOString() });
    return dataset.row.version;
  }

  async create(caller: ProjectPrincipal, dto: ServiceArgs<DatasetsService, 'create'>[1], _tx?: CreateTransaction) {
    this.called('create');
    if (this.rows.has(dto.name)) throw conflict(`A dataset named "${dto.name}" already exists`);
    this.seed(dto.name);
    const row = this.rows.get(dto.name)!.row;
    row.description = dto.description ?? '';
    return toDatasetDto(row);
  }

  async list(_caller: ProjectPrincipal, query: PageQuery) {
    this.called('list');
    const limit = pageLimit(query);
    const rows = [...this.rows.values()]
      .map((dataset) => toDatasetDto(dataset.row))
      .filter((dto) => query.after === undefined || dto.name > query.after)
      .sort((a, b) => a.name.localeCompare(b.name));
    const page = toPage(rows.slice(0, limit + 1), limit);
    return { object: 'list' as const, data: page.data, has_more: page.has_more, last_id: page.data.at(-1)?.name ?? null };
  }

  async get(caller: ProjectPrincipal, name: string) {
    this.called('get');
    return toDatasetDto(this.stored(caller.projectId, name).row);
  }

  async remove(caller: ProjectPrincipal, name: string) {
    this.called('remove');
    this.stored(caller.projectId, name);
    this.rows.delete(name);
    return { name, object: 'dataset' as const, deleted: true as const };
  }

  async versions(caller: ProjectPrincipal, name: string) {
    this.called('versions');
    return { object: 'list' as const, data: this.stored(caller.projectId, name).versions };
  }

  async items(caller: ProjectPrincipal, name: string, query: DatasetItemsQuery) {
    this.called('items');
    const dataset = this.stored(caller.projectId, name);
    const current = Number(dataset.row.version);
    const version = query.version === undefined ? current : Number(query.version);
    if (version > current) throw notFound(`Dataset "${name}" has no version ${version}`);
    if (query.after !== undefined && !UUID.test(query.after))
      throw badRequest('Invalid request parameters', ['after: expected the id of an item']);
    // Every version reads as the current one here: which items a version holds is the database's (e2e).
    const rows = [...dataset.items.values()]
      .sort((a, b) => a.id.localeCompare(b.id))
      .filter((item) => !query.after || item.id > query.after);
    return { object: 'list' as const, version, ...toPage(rows.map(toItemDto), pageLimit(query)) };
  }

  async item(caller: ProjectPrincipal, name: string, itemId: string) {
    this.called('item');
    return toItemDto(this.storedItem(this.stored(caller.projectId, name), itemId));
  }

  async addItems(caller: ProjectPrincipal, name: string, body: ServiceArgs<DatasetsService, 'addItems'>[2], _tx?: CreateTransaction) {
    this.called('addItems');
    this.stored(caller.projectId, name);
    return this.insert(name, body.items, null, 'added');
  }

  async importItems(caller: ProjectPrincipal, name: string, body: ServiceArgs<DatasetsService, 'importItems'>[2], _tx?: CreateTransaction) {
    this.called('importItems');
    // The real service parses the file before it looks the dataset up.
    const { items, problems } = parseItemsFile(body.format, body.content);
    if (problems.length) throw invalidBody(problems);
    if (items.length === 0) throw invalidBody(['content: no items']);
    this.stored(caller.projectId, name);
    return this.insert(name, items, { import: body.format }, `imported (${body.format})`);
  }

  async addFromSource(
    caller: ProjectPrincipal,
    name: string,
    body: ServiceArgs<DatasetsService, 'addFromSource'>[2],
    _tx?: CreateTransaction,
  ) {
    this.called('addFromSource');
    // As the real service: the scope, then the source, then the dataset.
    const reads = body.logId ? 'logs:read' : 'threads:read';
    if (!hasScope(caller, reads)) throw forbidden(`This API key lacks the ${reads} scope`);
    const variables = body.logId ? this.logs.get(body.logId) : undefined;
    if (!variables) throw notFound(body.logId ? DATASET_ERRORS.logNotFound : DATASET_ERRORS.turnNotFound);
    this.stored(caller.projectId, name);
    return this.insert(name, [{ variables, messages: [], metadata: {} }], { logId: body.logId }, 'added from a log');
  }

  async patchItem(caller: ProjectPrincipal, name: string, itemId: string, patch: ServiceArgs<DatasetsService, 'patchItem'>[3]) {
    this.called('patchItem');
    const dataset = this.stored(caller.projectId, name);
    const old = this.storedItem(dataset, itemId);
    const next: ItemRow = {
      ...old,
      variables: patch.variables ?? old.variables,
      messages: patch.messages ?? old.messages,
      expected: 'expected' in patch ? (patch.expected ?? null) : old.expected,
      metadata: patch.metadata ?? old.metadata,
      since_version: Number(dataset.row.version) + 1,
      created_at: new Date(),
    };
    dataset.items.set(itemId, next);
    this.bump(dataset, 'edited 1 item');
    return toItemDto(next);
  }

  async removeItem(caller: ProjectPrincipal, name: string, itemId: string) {
    this.called('removeItem');
    const dataset = this.stored(caller.projectId, name);
    this.storedItem(dataset, itemId);
    dataset.items.delete(itemId);
    const version = this.bump(dataset, 'removed 1 item');
    return { version, itemCount: dataset.items.size, itemIds: [itemId] };
  }
}

/** GradersService's endpoint methods (and `specsOf`, which runs use) on a Map. Real conditions: test/evals-*.e2e-spec.ts. */
export class FakeGraders extends Failing implements Pick<GradersService, 'put' | 'list' | 'get' | 'remove' | 'specsOf'> {
  readonly rows = new Map<string, GraderDto>();

  async put(_caller: Pick<ProjectPrincipal, 'projectId'>, name: string, body: ServiceArgs<GradersService, 'put'>[2]) {
    this.called('put');
    // The real service's own checks, before its transaction: the name from the path, and what the schema cannot see.
    if (!isSlugLike(name)) throw invalidBody(['name: expected a grader name: 1-64 lower-case letters, digits, "-" or "_"']);
    const problems = configProblems(body.config);
    if (problems.length) throw invalidBody(problems);
    const now = new Date().toISOString();
    const old = this.rows.get(name);
    const grader: GraderDto = {
      id: old?.id ?? randomUUID(),
      object: 'grader',
      name,
      type: body.config.type,
      threshold: body.threshold ?? defaultThreshold(body.config),
      config: body.config as unknown as Record<string, unknown>,
      createdAt: old?.createdAt ?? now,
      updatedAt: now,
    };
    this.rows.set(name, grader);
    return { grader, created: !old };
  }

  async list(_caller: ProjectPrincipal) {
    this.called('list');
    return { object: 'list' as const, data: [...this.rows.values()].sort((a, b) => a.name.localeCompare(b.name)) };
  }

  async get(_caller: ProjectPrincipal, name: string) {
    this.called('get');
    const grader = isSlugLike(name) ? this.rows.get(name) : undefined;
    if (!grader) throw notFound('Grader not found');
    return grader;
  }

  async remove(_caller: ProjectPrincipal, name: string) {
    this.called('remove');
    if (!isSlugLike(name) || !this.rows.delete(name)) throw notFound('Grader not found');
    return { name, object: 'grader' as const, deleted: true as const };
  }

  async specsOf(_projectId: string, names: string[]): Promise<GraderSpec[]> {
    const missing = names.filter((name) => !this.rows.has(name));
    if (missing.length) throw invalidBody(missing.map((name) => `graders: no grader named "${name}" in this project`));
    return names.map((name) => {
      const row = this.rows.get(name)!;
      return { name, threshold: row.threshold, config: row.config as unknown as GraderSpec['config'] };
    });
  }
}

const RUN_NOT_FOUND = 'Run not found';

/**
 * RunsService's endpoint methods on a Map, over the fake datasets and graders. `create` checks
 * what the real one checks before the database's own (the invoke scope, the dataset and its
 * version, named and inline graders); the target is taken as given (resolving it is the
 * registry's: test/evals-*.e2e-spec.ts). Runs never run here.
 */
export class FakeRuns extends Failing implements Pick<RunsService, 'create' | 'list' | 'get' | 'items' | 'cancel' | 'compare'> {
  readonly rows = new Map<string, RunRow>();

  constructor(
    private readonly datasets: FakeDatasets,
    private readonly graders: FakeGraders,
  ) {
    super();
  }

  /** Adds a run of `dataset` (which must exist) in `status` and answers its id. */
  seed(dataset: string, status: RunRow['status'] = 'completed'): string {
    const row = this.datasets.rows.get(dataset)!.row;
    const id = randomUUID();
    this.rows.set(id, this.row(id, row, Number(row.version), { type: 'version', prompt: 'support-reply', version: 1 }, [], status));
    return id;
  }

  private row(
    id: string,
    dataset: DatasetRow,
    version: number,
    target: StoredTarget,
    graders: GraderSpec[],
    status: RunRow['status'],
  ): RunRow {
    return {
      id,
      name: `run on ${dataset.name} v${version}`,
      status,
      dataset_id: dataset.id,
      dataset_name: dataset.name,
      dataset_version: version,
      target,
      prompt_id: null,
      prompt_version_id: null,
      graders,
      concurrency: 8,
      total_items: Number(dataset.item_count),
      completed_items: 0,
      errored_items: 0,
      passed_items: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      cost_usd: '0',
      latency_ms_sum: 0,
      error: null,
      created_by: { keyId: null, keyName: null },
      metadata: {},
      created_at: new Date(),
      started_at: null,
      finished_at: null,
    };
  }

  private stored(id: string): RunRow {
    const row = UUID.test(id) ? this.rows.get(id) : undefined;
    if (!row) throw notFound(RUN_NOT_FOUND);
    return row;
  }

  async create(caller: ProjectPrincipal, body: ServiceArgs<RunsService, 'create'>[1], _tx?: CreateTransaction) {
    this.called('create');
    if (!hasScope(caller, 'invoke')) throw forbidden('This API key lacks the invoke scope an experiment run needs');
    const dataset = await this.datasets.require(caller.projectId, body.dataset);
    const version = body.datasetVersion ?? Number(dataset.version);
    if (version > Number(dataset.version)) throw invalidBody([`datasetVersion: dataset "${body.dataset}" has no version ${version}`]);
    const names = body.graders.filter((g): g is string => typeof g === 'string');
    const named = names.length ? await this.graders.specsOf(caller.projectId, names) : [];
    const specs = body.graders.map((g, index) => {
      if (typeof g === 'string') return named.find((spec) => spec.name === g)!;
      const problems = configProblems(g.config, `graders.${index}.config`);
      if (problems.length) throw invalidBody(problems);
      return { name: g.name, threshold: g.threshold ?? defaultThreshold(g.config), config: g.config };
    });
    const seen = new Set<string>();
    for (const spec of specs) {
      if (seen.has(spec.name)) throw invalidBody([`graders: "${spec.name}" is named twice`]);
      seen.add(spec.name);
    }
    const target: StoredTarget =
      'draft' in body.target
        ? { type: 'draft', prompt: body.target.prompt ?? null, draft: body.target.draft }
        : { type: 'version', prompt: body.target.prompt, version: 'version' in body.target ? body.target.version : 1 };
    const id = randomUUID();
    const row = { ...this.row(id, dataset, version, target, specs, 'queued'), concurrency: body.concurrency, metadata: body.metadata };
    this.rows.set(id, row);
    return toRunDto(row, []);
  }

  async list(caller: ProjectPrincipal, query: RunsQuery) {
    this.called('list');
    const dataset = query.dataset === undefined ? undefined : await this.datasets.require(caller.projectId, query.dataset);
    const rows = [...this.rows.values()].filter(
      (row) => (!dataset || row.dataset_id === dataset.id) && (query.prompt === undefined || row.target.prompt === query.prompt),
    );
    return {
      object: 'list' as const,
      ...toPage(
        rows.map((row) => toRunDto(row, [])),
        pageLimit(query),
      ),
    };
  }

  async get(_caller: ProjectPrincipal, id: string) {
    this.called('get');
    return toRunDto(this.stored(id), []);
  }

  async items(_caller: ProjectPrincipal, id: string, query: RunItemsQuery) {
    this.called('items');
    this.stored(id);
    return { object: 'list' as const, ...toPage([], pageLimit(query)) };
  }

  async cancel(_caller: ProjectPrincipal, id: string) {
    this.called('cancel');
    const row = this.stored(id);
    if (row.status === 'queued' || row.status === 'running') row.status = 'cancelled';
    return toRunDto(row, []);
  }

  async compare(_caller: ProjectPrincipal, candidateId: string, baseId: string, query: CompareQuery) {
    this.called('compare');
    // As the real one: both runs are read first, so either unknown id is the run's 404.
    const [candidate, base] = [this.stored(candidateId), this.stored(baseId)];
    return {
      object: 'eval.comparison' as const,
      base: base.id,
      candidate: candidate.id,
      counts: { improved: 0, regressed: 0, unchanged: 0, onlyInBase: 0, onlyInCandidate: 0 },
      graders: [],
      outcome: query.outcome ?? 'regressed',
      data: [],
      has_more: false,
      last_id: null,
    };
  }
}

/** EnvironmentsService's two methods EnvironmentsController calls: the project's default environments. */
export class FakeEnvironments extends Failing implements Pick<EnvironmentsService, 'createIn' | 'list'> {
  readonly slugs = new Set<string>(DEFAULT_ENVIRONMENTS);

  async createIn(_tx: CreateTransaction, _projectId: string, slug: string) {
    this.called('createIn');
    if (this.slugs.has(slug)) throw conflict(`Environment "${slug}" already exists`);
    this.slugs.add(slug);
    return { id: randomUUID(), slug, createdAt: new Date().toISOString(), protection: null };
  }

  async list(_projectId: string) {
    this.called('list');
    return [...this.slugs].sort().map((slug) => ({ id: randomUUID(), slug, createdAt: new Date(0).toISOString(), protection: null }));
  }
}

/** The real messages of the gate routes (src/registry/environments/environment-gate.service.ts, environment-gates.ts). */
export const GATE_ERRORS = {
  environmentNotFound: 'Environment not found',
  noGate: 'This environment has no deploy gate',
} as const;

/** EnvironmentGateService (the gate routes) on a Map, over the fake environments and datasets. Real conditions: test/evals-*.e2e-spec.ts. */
export class FakeEnvironmentGates extends Failing implements Pick<EnvironmentGateService, 'get' | 'put' | 'remove'> {
  readonly gates = new Map<string, { dataset: string; minScores: Record<string, number> }>();

  constructor(
    private readonly environments: FakeEnvironments,
    private readonly datasets: FakeDatasets,
  ) {
    super();
  }

  private require(slug: string): void {
    if (!isSlugLike(slug) || !this.environments.slugs.has(slug)) throw notFound(GATE_ERRORS.environmentNotFound);
  }

  async get(_projectId: string, slug: string) {
    this.called('get');
    this.require(slug);
    const gate = this.gates.get(slug);
    if (!gate) throw notFound(GATE_ERRORS.noGate);
    return { environment: slug, ...gate };
  }

  async put(_projectId: string, slug: string, body: ServiceArgs<EnvironmentGateService, 'put'>[2]) {
    this.called('put');
    this.require(slug);
    if (!this.datasets.rows.has(body.dataset)) throw invalidBody([`dataset: no dataset named "${body.dataset}" in this project`]);
    this.gates.set(slug, { dataset: body.dataset, minScores: body.minScores });
    return { environment: slug, dataset: body.dataset, minScores: body.minScores };
  }

  async remove(_projectId: string, slug: string) {
    this.called('remove');
    this.require(slug);
    if (!this.gates.delete(slug)) throw notFound(GATE_ERRORS.noGate);
    return { environment: slug, deleted: true as const };
  }
}

export interface EvalFakes {
  keys: EvalApiKeys;
  datasets: FakeDatasets;
  graders: FakeGraders;
  runs: FakeRuns;
  environments: FakeEnvironments;
  gates: FakeEnvironmentGates;
}

export function createEvalFakes(): EvalFakes {
  const datasets = new FakeDatasets();
  const graders = new FakeGraders();
  const environments = new FakeEnvironments();
  return {
    keys: new EvalApiKeys(),
    datasets,
    graders,
    runs: new FakeRuns(datasets, graders),
    environments,
    gates: new FakeEnvironmentGates(environments, datasets),
  };
}

/** The providers an app of the evaluations' controllers takes: each service as its fake. */
export const evalProviders = (fakes: EvalFakes) => [
  { provide: DatasetsService, useValue: fakes.datasets },
  { provide: GradersService, useValue: fakes.graders },
  { provide: RunsService, useValue: fakes.runs },
  { provide: EnvironmentsService, useValue: fakes.environments },
  { provide: EnvironmentGateService, useValue: fakes.gates },
  // The protection routes of EnvironmentsController are approvals.controller-spec.ts's, its delete route lifecycle.controller-spec.ts's.
  { provide: EnvironmentProtectionService, useValue: {} },
  { provide: EnvironmentDeletionService, useValue: {} },
];
