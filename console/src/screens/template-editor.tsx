import { Button, Input, Label, TextField } from 'react-aria-components';

import { CodeEditor } from '../components/code-editor';
import { Picker } from '../components/fields';
import type { Draft } from './playground-draft';
import { newRouting, type RoutingDraft } from './routing-draft';
import { RoutingEditor } from './routing-editor';

const ROLES = ['system', 'user', 'assistant'] as const;

/** The draft's template messages (Handlebars highlighted), provider and model or routing block, parameters, tools and variable defaults. */
export function TemplateEditor({ draft, onChange }: { draft: Draft; onChange: (draft: Draft) => void }) {
  const set = (patch: Partial<Draft>) => onChange({ ...draft, ...patch });
  const setMessage = (index: number, patch: Partial<Draft['template'][number]>) =>
    set({ template: draft.template.map((m, i) => (i === index ? { ...m, ...patch } : m)) });
  // The first target is the version's provider and model: a run of the draft uses them.
  const setRouting = (routing: RoutingDraft) =>
    set({ routing, provider: routing.targets[0]?.provider ?? draft.provider, model: routing.targets[0]?.model ?? draft.model });
  return (
    <section aria-labelledby="template" className="panel">
      <h2 id="template">Template</h2>
      {draft.template.map((message, index) => (
        <div key={index} className="message-editor">
          <div className="row">
            <Picker
              label={`Role of message ${index + 1}`}
              labelHidden
              placeholder="Choose a role"
              items={ROLES}
              value={message.role}
              onChange={(role) => setMessage(index, { role: role as Draft['template'][number]['role'] })}
            />
            <Button
              className="button secondary small"
              aria-label={`Remove message ${index + 1}`}
              onPress={() => set({ template: draft.template.filter((_, i) => i !== index) })}
            >
              Remove
            </Button>
          </div>
          <CodeEditor
            template
            label={`Template message ${index + 1} (${message.role})`}
            value={message.content}
            onChange={(content) => setMessage(index, { content })}
          />
        </div>
      ))}
      <Button className="button secondary" onPress={() => set({ template: [...draft.template, { role: 'user', content: '' }] })}>
        Add a message
      </Button>
      {draft.routing ? null : (
        <div className="row">
          <TextField value={draft.provider} onChange={(provider) => set({ provider })} className="field">
            <Label>Provider</Label>
            <Input />
          </TextField>
          <TextField value={draft.model} onChange={(model) => set({ model })} className="field">
            <Label>Model</Label>
            <Input />
          </TextField>
        </div>
      )}
      <h3>Routing</h3>
      {draft.routing ? (
        <>
          <RoutingEditor routing={draft.routing} onChange={setRouting} />
          <Button className="button secondary" onPress={() => set({ routing: null })}>
            Remove the routing block
          </Button>
        </>
      ) : (
        <Button className="button secondary" onPress={() => setRouting(newRouting(draft.provider, draft.model))}>
          Add a routing block
        </Button>
      )}
      <h3>Parameters (temperature, max_tokens, response_format, tool_choice, ...)</h3>
      <CodeEditor label="Parameters (JSON)" value={draft.parameters} onChange={(parameters) => set({ parameters })} />
      <h3>Tools</h3>
      <CodeEditor label="Tools (JSON)" value={draft.tools} onChange={(tools) => set({ tools })} />
      <h3>Variable defaults</h3>
      <CodeEditor
        label="Variable defaults (JSON)"
        value={draft.variableDefaults}
        onChange={(variableDefaults) => set({ variableDefaults })}
      />
    </section>
  );
}
