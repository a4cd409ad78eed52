import * as fs from 'node:fs';

import { Command, CommanderError, Option } from 'commander';
import { parse as parseYaml } from 'yaml';

import { formatPath, IssuePath } from '../../apply/apply-file.parser';
import { isSlugLike } from '../../common/validation/slug';
import type { GraderListDto } from '../../evals/graders/grader.dto';
import type { CompareDto, RunDto, RunListDto } from '../../evals/runs/run.dto';
import { issueMessage } from '../../registry/content/version-content';
import { versionContentSchema } from '../../registry/content/version-content.schema';
import { callServer, chooseRoute, RemoteApiError, RemoteOptions, Route } from '../server-route';
import { remoteOptions, userPath } from './apply.command';
import { decide, describeOutcome, EvalOutcome, MinScore } from './eval-report';

/**
 * `parley eval run <prompt>@<version|environment|draft file> --dataset <name>`: an experiment run
 * on a server, waited for, and its verdict as the exit code (docs/evals.md, "For CI"):
 * 0 the run passed, 1 it did not (a --min-score not met, an item regressed against the baseline,
 * or the run ended failed or cancelled), 2 nothing could be decided (usage, connection, the
 * server's refusal, a timeout).
 */
export interface EvalRunOptions extends RemoteOptions {
  dataset: string;
  datasetVersion?: string;
  graders?: string;
  minScore?: string[];
  baseline?: string;
  concurrency?: string;
  name?: string;
  workspace?: string;
  project?: string;
  json?: boolean;
  pollInterval: string;
  timeout: string;
}

interface Server {
  route: Extract<Route, { kind: 'server' }>;
  headers: Record<string, string>;
}

type Target = { prompt: string; version: number } | { prompt: string; environment: string } | { prompt: string; draft: unknown };

const FINAL = new Set(['completed', 'cancelled', 'failed']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function wholeNumber(value: string, what: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new Error(`${what}: expected a whole number from ${min} to ${max}, got "${value}"`);
  return n;
}

/** A draft file (YAML, or JSON by its .json name) holding a version's content: template, provider, model, parameters, tools, variables. */
export function readDraft(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(userPath(file), 'utf8');
  } catch (err) {
    throw new Error(`cannot read the draft file ${file}: ${(err as Error).message}`, { cause: err });
  }
  let document: unknown;
  try {
    document = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text, { uniqueKeys: true });
  } catch (err) {
    throw new Error(`the draft file ${file} is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const parsed = versionContentSchema.safeParse(document, { reportInput: true });
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `  - ${formatPath(issue.path as IssuePath) || '(file)'}: ${issueMessage(issue)}`);
    throw new Error(
      [`the draft file ${file} is not a version's content (template, provider, model, parameters, tools, variables):`, ...issues].join(
        '\n',
      ),
    );
  }
  return parsed.data;
}

/** `<prompt>@<N>` a saved version, `<prompt>@<file.yaml|.yml|.json>` (or any path with a "/") a draft, `<prompt>@<environment>` its live version. */
export function parseTarget(spec: string): Target {
  const at = spec.indexOf('@');
  const prompt = spec.slice(0, at);
  const what = spec.slice(at + 1);
  if (at <= 0 || !what) throw new Error(`"${spec}": expected <prompt>@<version>, <prompt>@<draft file> or <prompt>@<environment>`);
  if (!isSlugLike(prompt)) throw new Error(`"${prompt}" is not a prompt slug`);
  if (/^\d+$/.test(what)) return { prompt, version: wholeNumber(what, 'version', 1, 999_999_999) };
  if (/\.(ya?ml|json)$/i.test(what) || what.includes('/')) return { prompt, draft: readDraft(what) };
  if (isSlugLike(what)) return { prompt, environment: what };
  throw new Error(`"${what}": expected a version number, a draft file (.yaml, .yml or .json) or an environment slug`);
}

/** `--min-score grader=0.8`, repeated or comma-separated. */
export function parseMinScores(values: string[]): MinScore[] {
  const scores = values.flatMap((value) => value.split(',')).filter((value) => value.trim() !== '');
  const parsed = scores.map((entry) => {
    const match = /^\s*([^=\s]+)\s*=\s*([0-9.]+)\s*$/.exec(entry);
    const min = match ? Number(match[2]) : NaN;
    if (!match || !(min >= 0 && min <= 1)) throw new Error(`--min-score "${entry}": expected <grader>=<score from 0 to 1>`);
    return { grader: match[1], min };
  });
  const names = parsed.map((s) => s.grader);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw new Error(`--min-score names "${twice}" twice`);
  return parsed;
}

async function connect(opts: EvalRunOptions): Promise<Server> {
  if (!!opts.workspace !== !!opts.project) throw new Error('--workspace and --project go together');
  const route = await chooseRoute(opts);
  if (route.kind !== 'server')
    throw new Error(
      'eval run needs a running Parley server (runs execute in its job queue): pass --url and --key (or PARLEY_URL and PARLEY_KEY), or start the server on this DATA_DIR',
    );
  return { route, headers: opts.workspace ? { 'X-Parley-Project': `${opts.workspace}/${opts.project}` } : {} };
}

async function call<T>(server: Server, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  try {
    return (await callServer(server.route, method, path, body, server.headers)) as T;
  } catch (err) {
    if (err instanceof RemoteApiError && err.status === 403 && /project API key/.test(err.message) && !server.headers['X-Parley-Project'])
      throw new Error(`${err.message} (with the admin key, name the project: --workspace <slug> --project <slug>)`, { cause: err });
    throw err;
  }
}

async function graderNames(server: Server, option: string | undefined): Promise<string[]> {
  if (option !== undefined)
    return option
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
  const names = (await call<GraderListDto>(server, 'GET', '/v2/graders')).data.map((g) => g.name);
  if (names.length === 0)
    throw new Error('the project has no graders: pass --graders, or declare graders (parley.yaml or PUT /v2/graders/{name})');
  return names;
}

/** The same graders by name, in any order: an item's score is the mean of its graders', so only then do two runs' scores compare. */
const sameGraders = (run: RunDto, graders: string[]) =>
  run.graders.length === graders.length && run.graders.every((g) => graders.includes(g.name));

/**
 * `auto`: the newest completed run of a saved version of the prompt over the dataset with the same
 * graders (none: no baseline); else the run named, which must have completed over the dataset with them.
 */
async function findBaseline(
  server: Server,
  option: string,
  { prompt, dataset, graders }: { prompt: string; dataset: string; graders: string[] },
): Promise<EvalOutcome['baseline']> {
  if (option === 'auto') {
    const query = new URLSearchParams({ prompt, dataset, limit: '100' });
    const runs = (await call<RunListDto>(server, 'GET', `/v2/evals/runs?${query}`)).data;
    const found = runs.find((run) => run.status === 'completed' && sameGraders(run, graders));
    if (!found)
      console.error(`parley: no baseline: no completed run of ${prompt} on dataset ${dataset} with the graders ${graders.join(', ')} yet`);
    return found ? { id: found.id, name: found.name, chosen: 'auto' } : null;
  }
  if (!UUID.test(option)) throw new Error(`--baseline "${option}": expected a run id or "auto"`);
  const run = await call<RunDto>(server, 'GET', `/v2/evals/runs/${option}`);
  if (run.status !== 'completed') throw new Error(`baseline run ${option} is ${run.status}: a baseline must have completed`);
  if (run.dataset.name !== dataset) throw new Error(`baseline run ${option} ran on dataset "${run.dataset.name}", not "${dataset}"`);
  if (!sameGraders(run, graders)) {
    const names = run.graders.map((g) => g.name).join(',');
    throw new Error(
      `baseline run ${option} used the graders ${names}, not ${graders.join(',')}: pass --graders ${names} to compare with it`,
    );
  }
  return { id: run.id, name: run.name, chosen: 'given' };
}

/** Polls the run until it ends, its progress on stderr; a timeout (or SIGINT/SIGTERM) cancels it. */
async function waitFor(server: Server, id: string, pollMs: number, timeoutMs: number): Promise<RunDto> {
  const cancel = () => call(server, 'POST', `/v2/evals/runs/${id}/cancel`).catch(() => undefined);
  const interrupted = () => void cancel().finally(() => (console.error(`parley: interrupted: run ${id} cancelled`), process.exit(2)));
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  const deadline = Date.now() + timeoutMs;
  let shown = '';
  let failures = 0;
  try {
    for (;;) {
      let run: RunDto;
      try {
        run = await call<RunDto>(server, 'GET', `/v2/evals/runs/${id}`);
        failures = 0;
      } catch (err) {
        // A server restarting or a network blip: tried again, five times in a row at most.
        if ((err instanceof RemoteApiError && err.status < 500) || ++failures > 5) throw err;
        await sleep(pollMs);
        continue;
      }
      const { completed, total, errored } = run.progress;
      const line = `parley: run ${id} ${run.status}: ${completed}/${total} items${errored ? `, ${errored} errored` : ''}`;
      if (line !== shown) console.error((shown = line));
      if (FINAL.has(run.status)) return run;
      if (Date.now() > deadline) {
        await cancel();
        throw new Error(`run ${id} did not finish within ${timeoutMs / 1000} s, so it was cancelled`);
      }
      await sleep(pollMs);
    }
  } finally {
    process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
  }
}

/** Everything up to the decision; any failure throws (exit 2). */
export async function runEval(spec: string, opts: EvalRunOptions): Promise<EvalOutcome> {
  const target = parseTarget(spec);
  const minScores = parseMinScores(opts.minScore ?? []);
  const concurrency = opts.concurrency === undefined ? undefined : wholeNumber(opts.concurrency, '--concurrency', 1, 64);
  const datasetVersion =
    opts.datasetVersion === undefined ? undefined : wholeNumber(opts.datasetVersion, '--dataset-version', 0, 999_999_999);
  const pollMs = wholeNumber(opts.pollInterval, '--poll-interval', 50, 60_000);
  const timeoutMs = wholeNumber(opts.timeout, '--timeout', 1, 7 * 24 * 3600) * 1000;
  if (!isSlugLike(opts.dataset)) throw new Error(`--dataset "${opts.dataset}" is not a dataset name`);
  const server = await connect(opts);
  const graders = await graderNames(server, opts.graders);
  const unknown = minScores.filter((m) => !graders.includes(m.grader)).map((m) => m.grader);
  if (unknown.length)
    throw new Error(`--min-score names ${unknown.map((n) => `"${n}"`).join(', ')}, not among the run's graders (${graders.join(', ')})`);
  const baseline =
    opts.baseline === undefined
      ? null
      : await findBaseline(server, opts.baseline, { prompt: target.prompt, dataset: opts.dataset, graders });
  const body = {
    dataset: opts.dataset,
    target,
    graders,
    ...(datasetVersion !== undefined ? { datasetVersion } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(opts.name ? { name: opts.name } : {}),
  };
  const created = await call<RunDto>(server, 'POST', '/v2/evals/runs', body);
  console.error(`parley: started run ${created.id} "${created.name}"`);
  const run = await waitFor(server, created.id, pollMs, timeoutMs);
  let comparison: EvalOutcome['comparison'] = null;
  if (baseline && run.status === 'completed') {
    const compared = await call<CompareDto>(server, 'GET', `/v2/evals/runs/${run.id}/compare/${baseline.id}?outcome=regressed&limit=10`);
    const regressed = compared.data.map((item) => ({ itemId: item.id, base: item.base.score, candidate: item.candidate.score }));
    comparison = { counts: compared.counts, regressed };
  }
  return decide(run, minScores, baseline, comparison);
}

/** Commander's own usage errors exit with 2 here, as every other problem that leaves nothing decided. */
const usageExit = (err: CommanderError) => {
  if (err.exitCode === 0) throw err;
  throw new CommanderError(2, err.code, err.message);
};

export function evalCommand(): Command {
  const run = new Command('run')
    .description(
      'run an experiment on a server and exit 0 when it passes, 1 when it does not (a regression), 2 on usage or connection errors',
    )
    .argument('<target>', "<prompt>@<version>, <prompt>@<draft.yaml|.json> (a version's content) or <prompt>@<environment>")
    .requiredOption('--dataset <name>', 'the dataset to run over')
    .option('--dataset-version <n>', "the dataset's version (default: its current one)")
    .option('--graders <names>', 'comma-separated grader names (default: every grader of the project)')
    .option(
      '--min-score <grader=score>',
      'the mean score a grader must reach, 0-1; repeat or comma-separate',
      (v: string, p: string[] | undefined) => [...(p ?? []), v],
    )
    .option(
      '--baseline <run id|auto>',
      'fail when any item scores lower than in this run; auto: the newest completed run of the prompt on the dataset with the same graders',
    )
    .option('--concurrency <n>', 'items called at once, 1-64 (default 8)')
    .option('--name <name>', 'a name for the run')
    .addOption(new Option('--workspace <slug>', 'the project, with the admin key (sent as X-Parley-Project)'))
    .addOption(new Option('--project <slug>', 'the project, with the admin key'))
    .option('--json', 'print the run, the comparison and the decision as JSON')
    .option('--poll-interval <ms>', 'how often to read the run while it runs', '1000')
    .option('--timeout <seconds>', 'cancel the run and exit 2 when it has not finished by then', '3600')
    .exitOverride(usageExit);
  remoteOptions(
    run,
    'run the experiment',
    'PARLEY_KEY',
    'a project key with registry:write and invoke, or the admin key with --workspace and --project',
  ).action(async (spec: string, opts: EvalRunOptions) => {
    let outcome: EvalOutcome;
    try {
      outcome = await runEval(spec, opts);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (opts.json) console.log(JSON.stringify({ error: { message } }, null, 2));
      console.error(`parley: ${message}`);
      throw new CommanderError(2, 'parley.eval.error', message);
    }
    console.log(opts.json ? JSON.stringify(outcome, null, 2) : describeOutcome(outcome));
    if (!outcome.passed) throw new CommanderError(1, 'parley.eval.failed', 'the run did not pass');
  });
  return new Command('eval').description('evaluations: experiment runs for CI (docs/evals.md)').addCommand(run).exitOverride(usageExit);
}
