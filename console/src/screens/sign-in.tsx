import { useState } from 'react';
import { Form } from 'react-aria-components';
import { useNavigate, useSearchParams } from 'react-router';

import { Button, buttonClass } from '../components/button';
import { TextInput } from '../components/fields';
import { ErrorNote } from '../components/ui';
import { useSignIn, useSignInOptions } from '../session';
import { signInErrorMessage } from './people/sign-in-errors';

/**
 * Single sign-on when the server has an identity provider (a link: the server redirects to the
 * provider and back), and the key form unless the server turned key sign-in off. The key is sent
 * once and exchanged for an HttpOnly session cookie; the page never stores it.
 */
export function SignInScreen() {
  const [key, setKey] = useState('');
  const signIn = useSignIn();
  const options = useSignInOptions();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = params.get('next');
  const landing = next && next.startsWith('/') && !next.startsWith('//') && next !== '/sign-in' ? next : null;
  const refused = params.get('signInError');
  // Until the server says, offer the key form (an older server has no sign-in options).
  const keys = options.data?.keys ?? true;
  return (
    <main className="sign-in">
      <h1>Sign in to Parley</h1>
      {refused ? <ErrorNote error={signInErrorMessage(refused)} /> : null}
      {options.data?.oidc ? (
        <p>
          <a
            className={buttonClass()}
            href={`/v2/console/oidc/login${landing ? `?returnTo=${encodeURIComponent(`/console${landing}`)}` : ''}`}
          >
            Sign in with {options.data.providerName ?? 'single sign-on'}
          </a>
        </p>
      ) : null}
      {keys ? (
        <>
          <p>
            {options.data?.oidc ? 'Or sign in with a key: ' : 'Use '}
            the project key that Parley printed at its first start (<code>PARLEY_KEY</code>), another project key, or the admin key. It is
            exchanged for a session; the console does not keep it.
          </p>
          <Form
            onSubmit={(event) => {
              event.preventDefault();
              signIn.mutate(key.trim(), {
                // An admin session starts on the keys screen: the project screens wait for a project to be picked.
                onSuccess: (session) => navigate(landing ?? (session.kind === 'admin' ? '/keys' : '/prompts'), { replace: true }),
              });
            }}
          >
            <TextInput
              label="API key"
              value={key}
              onChange={setKey}
              isRequired
              autoFocus={!options.data?.oidc}
              type="password"
              autoComplete="off"
            />
            <Button type="submit" isDisabled={signIn.isPending || key.trim() === ''}>
              Sign in
            </Button>
            <ErrorNote error={signIn.error} />
          </Form>
        </>
      ) : (
        <p className="muted">Signing in with a key is turned off on this server.</p>
      )}
    </main>
  );
}
