// The API as the page uses it: JSON over fetch with the session cookie, and the session's CSRF
// token on every change (the server refuses a change made with the cookie without it).
let csrfToken = null;
let unauthorized = () => {};

let staleSession = async () => false;

export function setCsrfToken(token) { csrfToken = token; }
export function onUnauthorized(handler) { unauthorized = handler; }
/** `handler` is asked when a change is refused for its CSRF token; true: the token is new, send again. */
export function onStaleSession(handler) { staleSession = handler; }

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code ?? `http_${status}`;
    this.body = body;
  }
}

export async function api(path, { method = 'GET', body, signal, resent = false } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  const response = await fetch(path, {
    method, headers, signal, credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return null;
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    // Signed out and in again in another tab: this page held the old session's token.
    if (response.status === 403 && data?.error?.code === 'csrf_failed' && !resent && await staleSession()) {
      return api(path, { method, body, signal, resent: true });
    }
    const error = new ApiError(response.status, data);
    // A session that ended (signed out elsewhere, expired) sends the page back to its sign-in form.
    if (response.status === 401 && !path.startsWith('/v1/session')) unauthorized();
    throw error;
  }
  return data;
}

/** A query string from an object, leaving out empty values. */
export function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

export const session = {
  current: () => api('/v1/session'),
  signIn: (name, password) => api('/v1/session', { method: 'POST', body: { name, password } }),
  signOut: () => api('/v1/session', { method: 'DELETE' }),
};
