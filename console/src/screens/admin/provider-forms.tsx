import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Dialog, DialogTrigger, Form, Heading, Modal } from 'react-aria-components';

import { api, type Schemas, unwrap } from '../../api/client';
import { Button } from '../../components/button';
import { Picker, TextInput } from '../../components/fields';
import { ErrorNote } from '../../components/ui';

type Provider = Schemas['ProviderCredentialDto'];
type CredentialType = Schemas['CreateProviderCredentialDto']['type'];

const TYPES: { id: CredentialType; label: string }[] = [
  { id: 'openai', label: 'OpenAI-compatible' },
  { id: 'anthropic', label: 'Anthropic' },
];
const BASE_URL_HINT: Record<CredentialType, string> = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com' };

/** `POST /v2/provider-credentials`: the key is sent once, stored encrypted, and never shown again. */
export function AddProvider({ onAdded }: { onAdded: () => void }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<CredentialType>('openai');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const add = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/v2/provider-credentials', {
          body: { name: name.trim(), type, ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}), ...(apiKey ? { apiKey } : {}) },
        }),
      ),
    onSuccess: () => {
      setName('');
      setBaseUrl('');
      setApiKey('');
      onAdded();
    },
  });
  return (
    <section aria-labelledby="add-provider">
      <h2 id="add-provider">Add a provider</h2>
      <Form
        className="row"
        aria-label="Add a provider"
        onSubmit={(event) => {
          event.preventDefault();
          add.mutate();
        }}
      >
        <TextInput label="Name" value={name} onChange={setName} isRequired placeholder="openai" />
        <Picker label="Type" items={TYPES} value={type} onChange={(id) => setType(id as CredentialType)} />
        <TextInput label="Base URL" value={baseUrl} onChange={setBaseUrl} className="grow" placeholder={BASE_URL_HINT[type]} />
        <TextInput
          label="API key"
          value={apiKey}
          onChange={setApiKey}
          type="password"
          placeholder="none for a keyless server"
          autoComplete="off"
        />
        <Button type="submit" isDisabled={add.isPending || name.trim() === ''}>
          Add provider
        </Button>
      </Form>
      {add.isSuccess ? (
        <p role="status" className="success">
          Added {add.data.name}: test it below.
        </p>
      ) : null}
      <ErrorNote error={add.error} />
      <p className="muted small">
        OpenAI-compatible covers OpenAI, Azure's v1 API, OpenRouter, vLLM, Ollama and llama.cpp. The key is stored encrypted and never shown
        again. A private address (a local Ollama, vLLM) needs the operator's <code>PROVIDER_ALLOWED_HOSTS</code>; a key from the server's
        environment (<code>apiKeyEnv</code>) is set with parley.yaml or the API (docs/providers.md).
      </p>
    </section>
  );
}

/** `PUT /v2/provider-credentials/{name}` with the same type and base URL and a new key: the rotation takes effect at once. */
export function RotateKey({ provider, onRotated }: { provider: Provider; onRotated: () => void }) {
  const [apiKey, setApiKey] = useState('');
  const rotate = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/v2/provider-credentials/{name}', {
          params: { path: { name: provider.name } },
          body: { type: provider.type as CredentialType, ...(provider.baseUrl ? { baseUrl: provider.baseUrl } : {}), apiKey },
        }),
      ),
    onSuccess: () => {
      setApiKey('');
      onRotated();
    },
  });
  return (
    <DialogTrigger onOpenChange={() => rotate.reset()}>
      <Button tone="secondary" aria-label={`Rotate key of ${provider.name}`}>
        Rotate key
      </Button>
      <Modal className="modal" isDismissable>
        <Dialog className="dialog">
          {({ close }) => (
            <Form
              onSubmit={(event) => {
                event.preventDefault();
                rotate.mutate(undefined, { onSuccess: close });
              }}
            >
              <Heading slot="title">Rotate the key of {provider.name}</Heading>
              <p>
                The new key replaces {provider.apiKeySource === 'env' ? `the server variable ${provider.apiKeyEnv}` : 'the current one'} for
                every call from now on; it is stored encrypted and never shown again. Revoke the old key at the provider afterwards.
              </p>
              <TextInput label="New API key" value={apiKey} onChange={setApiKey} type="password" isRequired autoFocus autoComplete="off" />
              <ErrorNote error={rotate.error} />
              <div className="row end">
                <Button tone="secondary" onPress={close}>
                  Cancel
                </Button>
                <Button type="submit" isDisabled={rotate.isPending || apiKey === ''}>
                  Save the new key
                </Button>
              </div>
            </Form>
          )}
        </Dialog>
      </Modal>
    </DialogTrigger>
  );
}
