// Boot: render the shell, then sign in again from the refresh cookie (a reload keeps the session).
import { render } from 'preact';
import './dashboard.css';
import { App } from './app.tsx';
import { Session } from './lib/session.ts';
import { keepDrafts } from './lib/drafts.ts';
import { interceptLinks } from './lib/router.ts';

const root = document.getElementById('root')!;
const session = new Session();
keepDrafts(session);
root.textContent = '';
interceptLinks(root);
render(<App session={session} />, root);
void session.resume();
