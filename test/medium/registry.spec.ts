import { ProjectPrincipal } from '../../src/auth/principal';
import { ApiException } from '../../src/common/errors';
import { DeploymentsService } from '../../src/registry/deployments/deployments.service';
import { PromptsService } from '../../src/registry/prompts/prompts.service';
import { VersionsService } from '../../src/registry/prompts/versions.service';
import { createServiceContext, projectCaller, ServiceContext } from './service-context';

/** Registry rules on a real database, without HTTP (docs/testing.md, medium tier). */
describe('registry services (medium tier)', () => {
  let ctx: ServiceContext;
  let caller: ProjectPrincipal;
  let prompts: PromptsService;
  let versions: VersionsService;
  let deployments: DeploymentsService;

  beforeAll(async () => {
    ctx = await createServiceContext();
    prompts = ctx.get(PromptsService);
    versions = ctx.get(VersionsService);
    deployments = ctx.get(DeploymentsService);
  });
  afterAll(() => ctx.close());
  beforeEach(async () => {
    caller = await projectCaller(ctx);
  });

  const newPrompt = async (slug: string, count: number) => {
    await prompts.create(caller.projectId, { slug, kind: 'prompt' });
    for (let i = 1; i <= count; i += 1) {
      await versions.create(caller.projectId, slug, { template: [{ role: 'user', content: `v${i} {{topic}}` }], model: 'echo' });
    }
  };

  const deploymentRows = (slug: string) =>
    ctx.dataSource.query(
      `SELECT d.deployment_version, v.version, d.replaced_at IS NULL AS current
         FROM deployments d JOIN prompts p ON p.project_id = d.project_id AND p.id = d.prompt_id
         JOIN prompt_versions v ON v.project_id = d.project_id AND v.id = d.version_id
        WHERE d.project_id = $1 AND p.slug = $2 ORDER BY d.deployment_version`,
      [caller.projectId, slug],
    );

  it('numbers versions 1, 2, 3 and keeps each one immutable', async () => {
    await newPrompt('numbered', 3);
    const rows = await ctx.dataSource.query(
      `SELECT v.version, v.template FROM prompt_versions v JOIN prompts p ON p.project_id = v.project_id AND p.id = v.prompt_id
        WHERE v.project_id = $1 AND p.slug = 'numbered' ORDER BY v.version`,
      [caller.projectId],
    );
    expect(rows.map((r: { version: number }) => r.version)).toEqual([1, 2, 3]);
    expect(rows[0].template).toEqual([{ role: 'user', content: 'v1 {{topic}}' }]);
  });

  it('redeploying the current version changes nothing; another version replaces it and keeps the history', async () => {
    await newPrompt('history', 2);
    const first = await deployments.deploy(caller.projectId, 'history', { environment: 'production', version: 1 });
    const again = await deployments.deploy(caller.projectId, 'history', { environment: 'production', version: 1 });
    expect(again.deploymentVersion).toBe(first.deploymentVersion);
    await deployments.deploy(caller.projectId, 'history', { environment: 'production', version: 2 });
    await deployments.deploy(caller.projectId, 'history', { environment: 'production', version: 1 });
    expect(await deploymentRows('history')).toEqual([
      { deployment_version: 1, version: 1, current: false },
      { deployment_version: 2, version: 2, current: false },
      { deployment_version: 3, version: 1, current: true },
    ]);
  });

  it('concurrent deploys of one environment leave contiguous deployment versions and one current row', async () => {
    await newPrompt('racing', 4);
    await Promise.all(
      [1, 2, 3, 4, 1, 2, 3, 4].map((version) => deployments.deploy(caller.projectId, 'racing', { environment: 'staging', version })),
    );
    const rows: { deployment_version: number; current: boolean }[] = await deploymentRows('racing');
    expect(rows.map((r) => r.deployment_version)).toEqual(rows.map((_, i) => i + 1));
    expect(rows.filter((r) => r.current)).toHaveLength(1);
  });

  it('refuses an unknown environment and a missing version in one 400, writing nothing', async () => {
    await newPrompt('refused', 1);
    const error = await deployments.deploy(caller.projectId, 'refused', { environment: 'nowhere', version: 9 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiException);
    expect((error as ApiException).getStatus()).toBe(400);
    expect((error as ApiException).getResponse()).toEqual({
      error: {
        message: 'Invalid request body',
        details: ['environment: no environment "nowhere" in this project', 'version: "refused" has no version 9'],
      },
    });
    expect(await deploymentRows('refused')).toEqual([]);
  });

  it("does not see another project's prompt", async () => {
    await newPrompt('private', 1);
    const other = await projectCaller(ctx);
    const error = await deployments.deploy(other.projectId, 'private', { environment: 'production' }).catch((e: unknown) => e);
    expect((error as ApiException).getStatus()).toBe(404);
  });
});
