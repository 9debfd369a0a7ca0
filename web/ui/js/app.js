// The portal page: loads the strings, the service's offer (formats,
// languages) and the session, then shows the view the address names.
// Links inside the page change the view without reloading; the address
// always says what is shown, so it can be bookmarked and shared.
import { h, replace, announce } from './dom.js';
import { loadStrings, t } from './i18n.js';
import { api, ApiError, setCSRF } from './api.js';

const views = [
  [/^\/$/, () => import('./search.js')],
  [/^\/occurrence\/download\/([^/]+)$/, () => import('./download.js')],
  [/^\/occurrence\/(\d+)$/, () => import('./record.js')],
  [/^\/user\/downloads$/, () => import('./mydownloads.js')],
  [/^\/user\/signin$/, () => import('./signin.js')],
];

/** app is what every view gets: the offer, the session and navigation. */
export const app = {
  config: null,
  session: null,
  navigate,
  setSession,
  /** signInHref is the sign-in page that comes back here afterwards. */
  signInHref() {
    return `/user/signin?next=${encodeURIComponent(location.pathname + location.search)}`;
  },
  /** sessionLost forgets a session the server no longer knows. */
  sessionLost() { setSession(null); },
};

let current = null; // the shown view's dispose function
let first = true;

async function main() {
  // The language switch works from the start, before anything loaded.
  document.getElementById('lang-select')?.addEventListener('change', (e) => {
    document.cookie = `lang=${encodeURIComponent(e.target.value)}; path=/; max-age=31536000; samesite=lax`;
    location.reload();
  });
  const lang = document.documentElement.lang || 'en';
  const view = document.getElementById('view');
  try {
    await loadStrings(lang);
    app.config = await api('/ui/api/config');
  } catch (e) {
    replace(view, h('p', { class: 'error', role: 'alert' },
      e instanceof ApiError && e.status === 0 ? 'The service cannot be reached. Check your connection and reload the page.'
        : `The page could not start: ${e.message}`));
    return;
  }
  try {
    setSession(await api('/ui/api/session'));
  } catch (e) {
    setSession(null);
  }
  document.addEventListener('click', (e) => {
    const a = e.target.closest('a');
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    if (a.target || a.hasAttribute('download') || a.origin !== location.origin) return;
    if (!views.some(([re]) => re.test(a.pathname))) return;
    e.preventDefault();
    navigate(a.pathname + a.search);
  });
  window.addEventListener('popstate', () => render());
  await render();
}

/** navigate shows url's view; replace keeps the history entry. */
export function navigate(url, { replace: rep = false } = {}) {
  if (rep) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  return render();
}

/** setSession records the signed-in user (null: signed out) and shows it. */
export function setSession(ses) {
  app.session = ses;
  setCSRF(ses ? ses.csrf : '');
  const account = document.getElementById('account');
  if (!account) return;
  if (ses) {
    const out = h('button', { type: 'button', class: 'link' }, t('nav.signout'));
    out.addEventListener('click', async () => {
      try { await api('/ui/api/signout', { method: 'POST' }); } catch { /* signed out either way */ }
      setSession(null);
      announce(t('signin.signed_out'));
      navigate('/');
    });
    replace(account, h('span', { class: 'muted' }, t('nav.signed_in_as', { user: ses.user })), out);
  } else {
    replace(account, h('a', { href: '/user/signin', 'data-nav': 'signin' }, t('nav.signin')));
  }
}

async function render() {
  const path = location.pathname;
  const view = document.getElementById('view');
  if (current) { current(); current = null; }
  for (const a of document.querySelectorAll('.site-nav a')) {
    const on = a.pathname === path;
    if (on) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  const match = views.find(([re]) => re.test(path));
  if (!match) {
    replace(view, h('h1', {}, t('notfound.title')), h('p', {}, t('notfound.text')));
    return;
  }
  const params = match[0].exec(path).slice(1);
  const mod = await match[1]();
  const root = h('div', {});
  replace(view, root);
  current = mod.render(root, app, ...params) || null;
  if (!first) {
    // A new view: move focus to its heading, as a page load would.
    const heading = root.querySelector('h1');
    if (heading) { heading.setAttribute('tabindex', '-1'); heading.focus(); }
    document.title = `${heading ? `${heading.textContent} · ` : ''}${app.config.portal}`;
  } else {
    const heading = root.querySelector('h1');
    if (heading) document.title = `${heading.textContent} · ${app.config.portal}`;
  }
  first = false;
}

main();
