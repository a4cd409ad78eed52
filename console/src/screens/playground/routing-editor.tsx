import { useQuery } from '@tanstack/react-query';
import { CheckboxGroup, Label } from 'react-aria-components';

import { api, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { CodeEditor } from '../../components/code-editor';
import { CheckboxField, Choices, Picker, TextInput } from '../../components/fields';
import { FALLBACK_REASONS, type FallbackReason, newTarget, type RoutingDraft, STRATEGIES, type TargetDraft } from './routing-draft';

/** The project's providers by name (`local` included), for a target's picker. */
function useProviderNames(): string[] {
  const providers = useQuery({ queryKey: ['providers'], queryFn: () => unwrap(api.GET('/v2/provider-credentials')) });
  return providers.data?.data.map((p) => p.name) ?? ['local'];
}

/**
 * A version's routing block (docs/routing.md, "The routing block"): the strategy, the ordered
 * targets (the first is the primary, and the version's provider and model), what falls back, and
 * how long a stream may wait for its first token. The API refuses, when the version is saved, a
 * target whose provider cannot honour the version's tools, response format or reasoning.
 */
export function RoutingEditor({ routing, onChange }: { routing: RoutingDraft; onChange: (routing: RoutingDraft) => void }) {
  const names = useProviderNames();
  const set = (patch: Partial<RoutingDraft>) => onChange({ ...routing, ...patch });
  const setTarget = (index: number, patch: Partial<TargetDraft>) =>
    set({ targets: routing.targets.map((t, i) => (i === index ? { ...t, ...patch } : t)) });
  const move = (index: number) => {
    const targets = [...routing.targets];
    [targets[index - 1], targets[index]] = [targets[index], targets[index - 1]];
    set({ targets });
  };
  return (
    <div className="routing-editor">
      <Choices label="Strategy" items={STRATEGIES} value={routing.strategy} onChange={(strategy) => set({ strategy })} />
      <ol className="targets">
        {routing.targets.map((target, index) => {
          const n = index + 1;
          // A provider the version names that the list does not (yet) hold stays choosable.
          const items = names.includes(target.provider) || !target.provider ? names : [...names, target.provider];
          return (
            <li key={index} className="message-editor">
              <div className="row">
                <strong>{index === 0 ? `Target ${n} (primary)` : `Target ${n}`}</strong>
                {index > 0 ? (
                  <Button tone="secondary" small aria-label={`Move up target ${n}`} onPress={() => move(index)}>
                    Move up
                  </Button>
                ) : null}
                {routing.targets.length > 1 ? (
                  <Button
                    tone="secondary"
                    small
                    aria-label={`Remove target ${n}`}
                    onPress={() => set({ targets: routing.targets.filter((_, i) => i !== index) })}
                  >
                    Remove
                  </Button>
                ) : null}
              </div>
              <div className="row">
                <Picker
                  label={`Provider of target ${n}`}
                  placeholder="Choose a provider"
                  items={items}
                  value={target.provider}
                  onChange={(provider) => setTarget(index, { provider })}
                />
                <TextInput label={`Model of target ${n}`} value={target.model} onChange={(model) => setTarget(index, { model })} />
                {routing.strategy === 'weighted' ? (
                  <TextInput
                    label={`Weight of target ${n}`}
                    value={target.weight}
                    onChange={(weight) => setTarget(index, { weight })}
                    inputMode="decimal"
                    placeholder="1"
                  />
                ) : null}
              </div>
              {index === 0 ? (
                // The primary is the version's own provider and model: its settings are the version's parameters (docs/routing.md).
                <p className="muted small">The primary target uses the version&apos;s parameters.</p>
              ) : (
                <CodeEditor
                  label={`Parameters of target ${n} (JSON)`}
                  value={target.parameters}
                  onChange={(parameters) => setTarget(index, { parameters })}
                />
              )}
            </li>
          );
        })}
      </ol>
      <Button tone="secondary" onPress={() => set({ targets: [...routing.targets, newTarget()] })}>
        Add a target
      </Button>
      <CheckboxGroup
        value={routing.fallbackOn}
        onChange={(fallbackOn) => set({ fallbackOn: fallbackOn as FallbackReason[] })}
        className="field"
      >
        <Label>Falls back on (never on the caller&apos;s own 4xx)</Label>
        {FALLBACK_REASONS.map((reason) => (
          <CheckboxField key={reason.id} value={reason.id}>
            {reason.label}
          </CheckboxField>
        ))}
      </CheckboxGroup>
      <TextInput
        label="First token timeout (ms)"
        value={routing.firstTokenTimeoutMs}
        onChange={(firstTokenTimeoutMs) => set({ firstTokenTimeoutMs })}
        inputMode="numeric"
        placeholder="none"
      />
    </div>
  );
}
