import { DeploymentRow } from './deployments.repository';
import { DeploymentDto } from './dto/deployment.dto';
import { storedGuards } from './guards';

export const toDeploymentDto = (d: DeploymentRow): DeploymentDto => ({
  id: d.id,
  slug: d.slug,
  kind: d.kind,
  environment: d.environment,
  version: Number(d.version),
  versionId: d.version_id,
  deploymentVersion: Number(d.deployment_version),
  deployedAt: new Date(d.deployed_at).toISOString(),
  replacedAt: d.replaced_at === null ? null : new Date(d.replaced_at).toISOString(),
  current: d.replaced_at === null,
  split: d.split,
  stickyBy: d.sticky_by,
  rules: d.split_rules,
  // Read back in the schema's key order (jsonb keeps its own).
  guards: storedGuards(d.guards),
});
