// Pure: tells an access token from other credentials handed to the dashboard socket, so a wrong
// credential is refused as `wrong_kind` rather than `invalid_token` (spec 5 "Socket authentication").
import { decodeJwt } from 'jose';

export type CredentialShape = 'access_token' | 'other_kind' | 'garbage';

/** API keys and refresh tokens are long hex strings. */
const OPAQUE_SECRET = /^[0-9a-f]{32,}$/i;
const ACCESS_KIND = 'access';

export function credentialShape(token: string): CredentialShape {
  if (OPAQUE_SECRET.test(token)) return 'other_kind';
  let claims: Record<string, unknown>;
  try {
    claims = decodeJwt(token);
  } catch {
    return 'garbage';
  }
  // A signed token of another kind (not an access token) is the wrong credential, whatever its signature.
  return claims.kind === undefined || claims.kind === ACCESS_KIND ? 'access_token' : 'other_kind';
}
