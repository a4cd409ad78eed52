import { Button } from '../../components/button';
import { CodeEditor } from '../../components/code-editor';
import { Card } from '../../components/ui';
import { MessageEditor } from './message-editor';
import { ModelField, ParameterControls, ProviderField } from './parameter-controls';
import type { Draft } from './playground-draft';
import { newRouting, type RoutingDraft } from './routing-draft';
import { RoutingEditor } from './routing-editor';

/**
 * The draft's template messages (chat-style or as JSON), provider and model (suggested from the
 * project's providers and known models) or routing block, parameters (a control each, from the
 * server's parameter schema, and as JSON), tools and variable defaults.
 */
export function TemplateEditor({
  draft,
  onChange,
  onTemplateProblem,
}: {
  draft: Draft;
  onChange: (draft: Draft) => void;
  onTemplateProblem: (problem: string | null) => void;
}) {
  const set = (patch: Partial<Draft>) => onChange({ ...draft, ...patch });
  // The first target is the version's provider and model: a run of the draft uses them.
  const setRouting = (routing: RoutingDraft) =>
    set({ routing, provider: routing.targets[0]?.provider ?? draft.provider, model: routing.targets[0]?.model ?? draft.model });
  return (
    <Card title="Template">
      <MessageEditor messages={draft.template} onChange={(template) => set({ template })} onProblem={onTemplateProblem} />
      {draft.routing ? null : (
        <div className="row">
          <ProviderField label="Provider" value={draft.provider} onChange={(provider) => set({ provider })} />
          <ModelField label="Model" provider={draft.provider} value={draft.model} onChange={(model) => set({ model })} />
        </div>
      )}
      <h3>Routing</h3>
      {draft.routing ? (
        <>
          <RoutingEditor routing={draft.routing} onChange={setRouting} />
          <Button tone="secondary" onPress={() => set({ routing: null })}>
            Remove the routing block
          </Button>
        </>
      ) : (
        <Button tone="secondary" onPress={() => setRouting(newRouting(draft.provider, draft.model))}>
          Add a routing block
        </Button>
      )}
      <h3>Parameters</h3>
      <ParameterControls provider={draft.provider} parameters={draft.parameters} onChange={(parameters) => set({ parameters })} />
      <CodeEditor label="Parameters (JSON)" value={draft.parameters} onChange={(parameters) => set({ parameters })} />
      <h3>Tools</h3>
      <CodeEditor label="Tools (JSON)" value={draft.tools} onChange={(tools) => set({ tools })} />
      <h3>Variable defaults</h3>
      <CodeEditor
        label="Variable defaults (JSON)"
        value={draft.variableDefaults}
        onChange={(variableDefaults) => set({ variableDefaults })}
      />
    </Card>
  );
}
