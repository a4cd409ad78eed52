/** What a `/v1` `model` names: the rule every surface shares (src/invocation/model-name.ts). */
export { targetOfModel } from '../invocation/model-name';

/** A deployment's model id as `/v1/models` lists it. */
export const deploymentModelId = (slug: string, environment: string) => `${slug}@${environment}`;
