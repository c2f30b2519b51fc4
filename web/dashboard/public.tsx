// Signed out: sign-in, sign-up (`?ref=` fills the referral code, as the referral link gives it) and
// accepting an invitation (its link `/invitations/accept#token=`, or `/invite?token=`). The reason a
// session ended is shown above the form.
import { useState } from 'preact/hooks';
import { useLocation } from './lib/router.ts';
import { INVITE_PATHS } from './lib/paths.ts';
import type { Session } from './lib/session.ts';
import type { Json } from './lib/api.ts';
import { ErrorNote, Field, SecretOnce, errorFor, useAction } from './lib/ui.tsx';

function SignIn({ session, reason }: { session: Session; reason?: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const act = useAction(() => session.signIn(email.trim(), password));
  return (
    <form class="card auth" onSubmit={(e) => { e.preventDefault(); void act.run(); }} aria-labelledby="signin-title">
      <h1 id="signin-title">Sign in</h1>
      {reason && <p class="notice" role="status">{reason}</p>}
      <Field label="Email">{(p) => <input {...p} type="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />}</Field>
      <Field label="Password">{(p) => <input {...p} type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />}</Field>
      <ErrorNote error={act.error} />
      <button type="submit" disabled={act.busy}>{act.busy ? 'Signing in…' : 'Sign in'}</button>
      <p>New here? <a href="/signup">Create an account</a></p>
    </form>
  );
}

function SignUp({ session, refCode }: { session: Session; refCode: string }) {
  const [f, setF] = useState({ merchant_name: '', email: '', password: '', referral_code: refCode });
  const act = useAction(async () => {
    const body: Json = { ...f, email: f.email.trim() };
    if (!body.referral_code) delete body.referral_code;
    await session.signUp(body);
  });
  const set = (k: keyof typeof f) => (e: Event) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  return (
    <form class="card auth" onSubmit={(e) => { e.preventDefault(); void act.run(); }} aria-labelledby="signup-title">
      <h1 id="signup-title">Create your account</h1>
      <Field label="Business name" error={errorFor(act.error, 'merchant_name')}>{(p) => <input {...p} required value={f.merchant_name} onInput={set('merchant_name')} />}</Field>
      <Field label="Email" error={errorFor(act.error, 'email', 'invalid email')}>{(p) => <input {...p} type="email" autocomplete="username" required value={f.email} onInput={set('email')} />}</Field>
      <Field label="Password" hint="At least 8 characters" error={errorFor(act.error, 'password')}>{(p) => <input {...p} type="password" autocomplete="new-password" required value={f.password} onInput={set('password')} />}</Field>
      <Field label="Referral code (optional)">{(p) => <input {...p} value={f.referral_code} onInput={set('referral_code')} />}</Field>
      {!errorFor(act.error, 'merchant_name', 'email', 'invalid email', 'password') && <ErrorNote error={act.error} />}
      <button type="submit" disabled={act.busy}>{act.busy ? 'Creating…' : 'Create account'}</button>
      <p>Have an account? <a href="/signin">Sign in</a></p>
    </form>
  );
}

/** After sign-up: the first test and live keys, shown once. */
export function FirstKeys({ keys, onDone }: { keys: Json[]; onDone: () => void }) {
  return (
    <div class="card">
      <h1>Your API keys</h1>
      <p>Your account has a test key and a live key. Live keys work once the owner turns live mode on.</p>
      {keys.map((k) => <SecretOnce key={k.api_key.id} label={`${k.api_key.livemode ? 'Live' : 'Test'} key`} secret={k.secret} />)}
      <button type="button" onClick={onDone}>Continue to the dashboard</button>
    </div>
  );
}

function Invite({ session, token }: { session: Session; token: string }) {
  const [password, setPassword] = useState('');
  const act = useAction(() => session.acceptInvitation(token, password));
  return (
    <form class="card auth" onSubmit={(e) => { e.preventDefault(); void act.run(); }} aria-labelledby="invite-title">
      <h1 id="invite-title">Join the team</h1>
      <Field label="Choose a password" hint="At least 8 characters" error={errorFor(act.error, 'password')}>{(p) => <input {...p} type="password" autocomplete="new-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />}</Field>
      {!errorFor(act.error, 'password') && <ErrorNote error={act.error} />}
      <button type="submit" disabled={act.busy || !token}>Accept the invitation</button>
    </form>
  );
}

export function PublicPages({ session, reason }: { session: Session; reason?: string }) {
  const loc = useLocation();
  if (loc.pathname === '/signup') return <main class="public"><SignUp session={session} refCode={loc.search.get('ref') ?? ''} /></main>;
  if (INVITE_PATHS.includes(loc.pathname)) {
    const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? loc.search.get('token') ?? '';
    return <main class="public"><Invite session={session} token={token} /></main>;
  }
  // Any app page signed out: sign in here, and that page opens.
  return <main class="public"><SignIn session={session} reason={reason} /></main>;
}
