import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useEffect, useId, useState } from 'react';
import {
  Input,
  Label,
  NumberField,
  Slider,
  SliderOutput,
  SliderThumb,
  SliderTrack,
  Text,
  TextArea,
  TextField,
} from 'react-aria-components';

import { api, type Schemas, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { Picker } from '../../components/fields';
import { RUN_OVERRIDES } from './playground-draft';

type Parameter = Schemas['ProviderParameterDto'];

/** The project's providers (name and type), `local` first, once read: the same query as the routing editor's. */
export function useProviders() {
  return useQuery({ queryKey: ['providers'], queryFn: () => unwrap(api.GET('/v2/provider-credentials')) }).data?.data;
}

/** The parameters each provider type takes (GET /v2/providers/parameters): the same for every project, read once. */
function useCatalogue() {
  return useQuery({ queryKey: ['provider-parameters'], queryFn: () => unwrap(api.GET('/v2/providers/parameters')), staleTime: Infinity })
    .data?.data;
}

/** The models to suggest for a provider: those its type is known to have, else those the project calls through it (/v1/models). */
function useModelSuggestions(provider: string): string[] {
  const type = useProviders()?.find((p) => p.name === provider)?.type;
  const known = useCatalogue()?.find((entry) => entry.type === type)?.models;
  const listed = useQuery({ queryKey: ['models'], queryFn: () => unwrap(api.GET('/v1/models')), enabled: !known });
  if (known) return known;
  const prefix = `${provider}/`;
  return (listed.data?.data ?? []).filter((m) => m.id.startsWith(prefix)).map((m) => m.id.slice(prefix.length));
}

/**
 * A text field with suggestions it does not insist on (any name may be typed): the browser's own
 * list (`<datalist>`), which leaves the rest of the page as it is while it is open.
 */
function SuggestField({ label, value, onChange, items }: { label: string; value: string; onChange: (v: string) => void; items: string[] }) {
  const listId = useId();
  return (
    <TextField value={value} onChange={onChange} className="field">
      <Label>{label}</Label>
      <Input list={listId} autoComplete="off" />
      <datalist id={listId}>
        {items.map((item) => (
          <option key={item} value={item} />
        ))}
      </datalist>
    </TextField>
  );
}

export function ProviderField({ label, value, onChange }: { label: string; value: string; onChange: (v: string) => void }) {
  return <SuggestField label={label} value={value} onChange={onChange} items={(useProviders() ?? []).map((p) => p.name)} />;
}

export function ModelField(props: { label: string; provider: string; value: string; onChange: (v: string) => void }) {
  return <SuggestField {...props} items={useModelSuggestions(props.provider)} />;
}

const show = (value: unknown) =>
  typeof value === 'object' && value !== null && Object.keys(value).length === 1 ? String(Object.values(value)[0]) : JSON.stringify(value);

/**
 * A control for each parameter the provider's type takes, from the server's parameter schema
 * (GET /v2/providers/parameters): a slider and a number field between the bounds, a number field,
 * a choice, or a list of texts. They edit the same JSON as the parameters field under them; a
 * parameter left unset uses the provider's default.
 */
export function ParameterControls({
  provider,
  parameters,
  onChange,
}: {
  provider: string;
  parameters: string;
  onChange: (json: string) => void;
}) {
  const providers = useProviders();
  const catalogue = useCatalogue();
  const type = providers?.find((p) => p.name === provider)?.type;
  const described = catalogue?.find((entry) => entry.type === type)?.parameters;
  let values: Record<string, unknown> | null = null;
  try {
    const parsed = JSON.parse(parameters) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) values = parsed as Record<string, unknown>;
  } catch {
    // reported below, and when the draft is run or saved
  }
  if (!catalogue || !providers) return null;
  if (!described)
    return <p className="muted small">Provider “{provider}” is not one of the project&apos;s: set its parameters as JSON below.</p>;
  if (!values) return <p className="muted small">The parameters below are not a JSON object: the controls come back once they are.</p>;
  const current = values;
  const set = (name: string, value: unknown) => {
    const { [name]: _old, ...rest } = current;
    onChange(JSON.stringify(value === undefined ? rest : { ...rest, [name]: value }, null, 2));
  };
  const unsent = described.filter((p) => !p.sent && current[p.name] !== undefined).map((p) => p.name);
  return (
    <div className="parameter-controls">
      {described
        .filter((p) => p.sent && p.control !== 'json')
        .map((p) => (
          <ParameterControl key={p.name} parameter={p} value={current[p.name]} onChange={(value) => set(p.name, value)} />
        ))}
      {unsent.length > 0 ? (
        <p className="muted small">
          Not sent to {type} providers (kept with the version): {unsent.join(', ')}.
        </p>
      ) : null}
    </div>
  );
}

function ParameterControl({ parameter: p, value, onChange }: { parameter: Parameter; value: unknown; onChange: (value: unknown) => void }) {
  const fallback = p.default === null ? 'not set' : `not set: ${show(p.default)}`;
  // A run without saving overrides only some settings (the invoke body's): the others apply once saved.
  const note = `${p.description}${(RUN_OVERRIDES as readonly string[]).includes(p.name) ? '' : '; a run without saving uses the version’s'}`;
  const hint = (
    <Text slot="description" className="muted small">
      {note}
    </Text>
  );
  const unset =
    value === undefined ? null : (
      <Button tone="secondary" small aria-label={`Unset ${p.name}`} onPress={() => onChange(undefined)}>
        Unset
      </Button>
    );
  if (p.control === 'choice') {
    const id = (v: unknown) => JSON.stringify(v);
    const listed = (p.choices ?? []).map((v) => ({ id: id(v), label: show(v) }));
    const other = value !== undefined && !listed.some((item) => item.id === id(value));
    return (
      <div className="parameter">
        <Picker
          label={p.name}
          items={[
            { id: 'unset', label: fallback },
            ...listed,
            ...(other ? [{ id: 'other', label: `${show(value)} (from the JSON)` }] : []),
          ]}
          value={value === undefined ? 'unset' : other ? 'other' : id(value)}
          onChange={(key) => key !== 'other' && onChange(key === 'unset' ? undefined : JSON.parse(key))}
        />
        <p className="muted small">{note}</p>
      </div>
    );
  }
  if (p.control === 'text-list') return <TextListControl parameter={p} value={value} onChange={onChange} hint={hint} />;
  const number = typeof value === 'number' ? value : undefined;
  const step = p.control === 'integer' ? 1 : (p.maximum ?? 1) - (p.minimum ?? 0) > 2 ? 0.1 : 0.05;
  const bounded = p.minimum !== null && p.maximum !== null;
  return (
    <div className="parameter">
      {bounded ? (
        <Slider
          value={number ?? (typeof p.default === 'number' ? p.default : p.minimum!)}
          minValue={p.minimum!}
          maxValue={p.maximum!}
          step={step}
          onChange={(v) => onChange(v)}
          className="slider"
        >
          <div className="slider-head">
            <Label>{p.name}</Label>
            <SliderOutput>{() => (number === undefined ? fallback : String(number))}</SliderOutput>
          </div>
          <SliderTrack className="slider-track">
            <SliderThumb className="slider-thumb" />
          </SliderTrack>
        </Slider>
      ) : null}
      <div className="row">
        <NumberField
          value={number ?? Number.NaN}
          onChange={(v) => onChange(Number.isNaN(v) ? undefined : v)}
          minValue={p.minimum ?? undefined}
          maxValue={p.maximum ?? undefined}
          step={bounded ? 0.01 : 1}
          formatOptions={{ useGrouping: false, maximumFractionDigits: p.control === 'integer' ? 0 : 4 }}
          className="field"
          {...(bounded ? { 'aria-label': `${p.name} value` } : {})}
        >
          {bounded ? null : <Label>{p.name}</Label>}
          <Input placeholder={fallback} />
          {bounded ? null : hint}
        </NumberField>
        {unset}
      </div>
      {bounded ? <p className="muted small">{note}</p> : null}
    </div>
  );
}

/** A text per line (`stop`): one is sent as a text, several as a list; the lines are kept as typed until they change elsewhere. */
function TextListControl({
  parameter: p,
  value,
  onChange,
  hint,
}: {
  parameter: Parameter;
  value: unknown;
  onChange: (v: unknown) => void;
  hint: ReactNode;
}) {
  const lines = (v: unknown) => (Array.isArray(v) ? v.join('\n') : typeof v === 'string' ? v : '');
  const [text, setText] = useState(lines(value));
  const asValue = (t: string) => {
    const list = t.split('\n').filter((line) => line !== '');
    return list.length === 0 ? undefined : list.length === 1 ? list[0] : list;
  };
  useEffect(() => {
    if (JSON.stringify(asValue(text)) !== JSON.stringify(value)) setText(lines(value));
  }, [value]);
  const many = asValue(text);
  return (
    <div className="parameter">
      <TextField
        value={text}
        onChange={(t) => {
          setText(t);
          onChange(asValue(t));
        }}
        className="field"
      >
        <Label>{`${p.name} (one per line${p.maxItems ? `, at most ${p.maxItems}` : ''})`}</Label>
        <TextArea rows={2} />
        {hint}
      </TextField>
      {Array.isArray(many) && p.maxItems !== null && many.length > p.maxItems ? (
        <p className="error small">At most {p.maxItems}: the version would be refused.</p>
      ) : null}
    </div>
  );
}
