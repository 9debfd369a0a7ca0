// Requests to the service: JSON in and out, the session's CSRF token on
// every change, and errors turned into words a person understands.
import { t, size, num } from './i18n.js';

/** ApiError is a failed request: its HTTP status (0: no answer), code and message. */
export class ApiError extends Error {
  constructor(status, code, message, retryAfter = 0) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

let csrf = '';
/** setCSRF sets the token sent with changes (the session's). */
export function setCSRF(token) { csrf = token || ''; }

/**
 * api requests path. opts: method, body (sent as JSON), signal (an
 * AbortSignal: a newer request cancels an older one), as ('json',
 * 'text', 'response'). Throws ApiError, or the AbortError of a
 * cancelled request.
 */
export async function api(path, opts = {}) {
  const { method = 'GET', body, signal, as = 'json' } = opts;
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrf) headers['X-CSRF-Token'] = csrf;
  let res;
  try {
    res = await fetch(path, {
      method, signal, headers, credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(0, 'unreachable', e.message);
  }
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    let code = '';
    let message = text.trim();
    try {
      const j = JSON.parse(text);
      if (j && typeof j === 'object' && 'message' in j) { code = j.code || ''; message = j.message; }
    } catch { /* a plain-text error of the /v1 API */ }
    throw new ApiError(res.status, code, message, Number(res.headers.get('Retry-After')) || 0);
  }
  if (as === 'response') return res;
  if (res.status === 204) return null;
  return as === 'text' ? res.text() : res.json();
}

const polygonWords = /geometry|polygon|ring|wkt|coordinates/i;

/** errorWords says what went wrong in the page's language. */
export function errorWords(err, ctx = {}) {
  if (!(err instanceof ApiError)) return t('error.unexpected', { detail: String(err && err.message || err) });
  const detail = err.message;
  switch (err.status) {
    case 0: return t('error.unreachable');
    case 401:
      if (err.code === 'sign_in_failed') return t('error.sign_in_failed');
      return t('error.session_expired');
    case 403:
      if (err.code === 'csrf' || err.code === 'cross_origin') return t('error.csrf');
      return t('error.forbidden');
    case 404: return t('error.not_found');
    case 410: return t('error.erased');
    case 413: return polygonWords.test(detail) ? t('error.polygon_too_large') : t('error.too_large', { detail });
    case 420: return t('error.too_many_downloads', { max: num(ctx.maxRunning || 3) });
    case 429:
      if (err.code === 'too_many_messages') return t('error.too_many_messages');
      if (err.code === 'sign_in_throttled' || ctx.signIn) return t('error.sign_in_throttled', { seconds: num(err.retryAfter || 60) });
      return t('error.busy');
    case 400:
      if (polygonWords.test(detail)) return t('error.polygon', { detail });
      return t('error.invalid', { detail });
    case 503: return t('error.unavailable');
    case 504: return t('error.timeout');
    default: return t('error.server', { status: err.status });
  }
}

/** isAbort tells a cancelled request from a failed one. */
export function isAbort(e) { return e && e.name === 'AbortError'; }

export { size };
