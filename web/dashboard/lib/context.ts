// What every page is given: the API, the socket, who is signed in and the mode of the page.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api, Json } from './api.ts';
import type { Live } from './live.ts';
import type { Session } from './session.ts';
import type { Role } from './paths.ts';

export interface Ctx {
  session: Session;
  api: Api;
  live: Live;
  role: Role;
  merchant: Json;
  user: Json;
  /** The page shows test data (`?mode=test`). */
  test: boolean;
  /** `mode=test` for a query string, or '' in live mode. */
  mode: string;
}

export const AppContext = createContext<Ctx | null>(null);
export const useApp = (): Ctx => useContext(AppContext)!;

/** `url` with the page's mode added to its query. */
export const withMode = (url: string, ctx: Ctx): string => (ctx.test ? `${url}${url.includes('?') ? '&' : '?'}mode=test` : url);
