// Sign-in: a user name and password checked as the API's are (the same
// back-off after failed tries), then a session cookie. Afterwards the page
// goes back where the user came from (?next=).
import { h, replace, uid } from './dom.js';
import { t } from './i18n.js';
import { api, errorWords } from './api.js';

export function render(root, app) {
  const next = safeNext(new URLSearchParams(location.search).get('next'));
  const ids = { user: uid('user'), pass: uid('pass') };
  const message = h('div', { role: 'alert', id: 'signin-error' });
  const user = h('input', { id: ids.user, name: 'username', autocomplete: 'username', required: true });
  const pass = h('input', { id: ids.pass, name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const button = h('button', { type: 'submit' }, t('signin.button'));
  const form = h('form', { class: 'narrow', onsubmit: submit },
    h('div', { class: 'field' }, h('label', { for: ids.user }, t('signin.user')), user),
    h('div', { class: 'field' }, h('label', { for: ids.pass }, t('signin.password')), pass),
    message, button);
  replace(root, h('h1', {}, t('signin.title')),
    app.session ? h('p', { class: 'ok' }, t('signin.already', { user: app.session.user })) : null,
    h('p', { class: 'muted' }, t('signin.intro')), form);

  async function submit(e) {
    e.preventDefault();
    replace(message);
    button.disabled = true;
    try {
      const ses = await api('/ui/api/signin', { method: 'POST', body: { user: user.value.trim(), password: pass.value } });
      app.setSession(ses);
      app.navigate(next, { replace: true });
    } catch (err) {
      pass.value = '';
      replace(message, h('p', { class: 'error' }, errorWords(err, { signIn: true })));
      pass.focus();
    } finally {
      button.disabled = false;
    }
  }
}

/** safeNext keeps only a path of this site (no //host or scheme). */
function safeNext(n) {
  if (!n || !n.startsWith('/') || n.startsWith('//') || n.startsWith('/\\')) return '/';
  return n;
}
