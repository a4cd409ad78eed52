import { useState } from 'react';
import { Button, Form, Input, Label, TextField } from 'react-aria-components';
import { useNavigate, useSearchParams } from 'react-router';

import { ErrorNote } from '../components/ui';
import { useSignIn } from '../session';

/** The key is sent once and exchanged for an HttpOnly session cookie; the page never stores it. */
export function SignInScreen() {
  const [key, setKey] = useState('');
  const signIn = useSignIn();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = params.get('next');
  return (
    <main className="sign-in">
      <h1>Sign in to Parley</h1>
      <p>
        Use the project key that Parley printed at its first start (<code>PARLEY_KEY</code>), another project key, or the admin key. It is
        exchanged for a session; the console does not keep it.
      </p>
      <Form
        onSubmit={(event) => {
          event.preventDefault();
          signIn.mutate(key.trim(), {
            // An admin session starts on the keys screen: the project screens wait for a project to be picked.
            onSuccess: (session) =>
              navigate(next && next.startsWith('/') && next !== '/sign-in' ? next : session.kind === 'admin' ? '/keys' : '/prompts', {
                replace: true,
              }),
          });
        }}
      >
        <TextField value={key} onChange={setKey} isRequired autoFocus className="field">
          <Label>API key</Label>
          <Input type="password" autoComplete="off" />
        </TextField>
        <Button type="submit" className="button" isDisabled={signIn.isPending || key.trim() === ''}>
          Sign in
        </Button>
        <ErrorNote error={signIn.error} />
      </Form>
    </main>
  );
}
