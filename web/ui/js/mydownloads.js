// "My downloads": the signed-in user's downloads, newest first, with
// status, records, size and erasure date, and Postpone, Run again and
// Cancel beside each.
import { h, replace, announce } from './dom.js';
import { t, num, size, date, dateTime } from './i18n.js';
import { api, errorWords, isAbort } from './api.js';
import { postponeWords } from './download.js';

const ACTIVE = ['PREPARING', 'RUNNING', 'SUSPENDED'];

export function render(root, app) {
  const ctrl = new AbortController();
  const message = h('div', { role: 'alert' });
  const body = h('tbody', {});
  const more = h('div', {});
  let timer = 0;
  replace(root, h('h1', {}, t('mine.title')), message);
  if (!app.session) {
    root.append(h('p', {}, t('mine.signin'), ' ', h('a', { href: app.signInHref() }, t('nav.signin'))));
    return () => ctrl.abort();
  }
  root.append(h('div', { class: 'table-wrap' }, h('table', { id: 'my-downloads' },
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, t('col.download')), h('th', { scope: 'col' }, t('col.status')),
      h('th', { scope: 'col', class: 'hide-narrow' }, t('col.format')), h('th', { scope: 'col', class: 'num' }, t('col.records')),
      h('th', { scope: 'col', class: 'num' }, t('col.size')), h('th', { scope: 'col', class: 'hide-narrow' }, t('col.erase')),
      h('th', { scope: 'col' }, t('col.actions')))), body)), more);

  let shown = [];
  async function load(offset = 0) {
    clearTimeout(timer);
    try {
      const page = await api(`/ui/api/downloads?offset=${offset}`, { signal: ctrl.signal });
      shown = offset === 0 ? page.results : shown.concat(page.results);
      showRows();
      replace(more, page.endOfRecords ? null
        : h('button', { type: 'button', class: 'secondary', onclick: () => load(shown.length) }, t('mine.more')));
      if (shown.length === 0) replace(body, h('tr', {}, h('td', { colspan: 7 }, t('mine.none'), ' ', h('a', { href: '/' }, t('nav.search')))));
      if (shown.some((d) => ACTIVE.includes(d.status))) timer = setTimeout(() => load(0), 5000);
    } catch (e) {
      if (isAbort(e)) return;
      if (e.status === 401) app.sessionLost();
      replace(message, h('p', { class: 'error' }, errorWords(e)));
    }
  }

  function showRows() {
    replace(body, shown.map((d) => {
      const active = ACTIVE.includes(d.status);
      const done = d.status === 'SUCCEEDED';
      return h('tr', {},
        h('td', {}, h('a', { href: `/occurrence/download/${encodeURIComponent(d.key)}` }, d.key),
          h('div', { class: 'muted' }, dateTime(d.created)), d.request.description ? h('div', {}, d.request.description) : null),
        h('td', {}, h('span', { class: `status ${d.status}` }, t(`status.${d.status}`))),
        h('td', { class: 'hide-narrow' }, d.request.format),
        h('td', { class: 'num' }, done || d.status === 'FILE_ERASED' ? num(d.totalRecords) : ''),
        h('td', { class: 'num' }, done ? size(d.size) : ''),
        h('td', { class: 'hide-narrow' }, done ? date(d.eraseAfter) : ''),
        h('td', {},
          done ? h('button', { type: 'button', class: 'link', onclick: () => act(d, 'postpone') }, t('dl.postpone')) : null, ' ',
          !active ? h('button', { type: 'button', class: 'link', onclick: () => act(d, 'rerun') }, t('dl.rerun')) : null, ' ',
          active ? h('button', { type: 'button', class: 'link', onclick: () => act(d, 'cancel') }, t('dl.cancel')) : null));
    }));
  }

  async function act(d, what) {
    replace(message);
    try {
      const res = await api(`/ui/api/downloads/${encodeURIComponent(d.key)}/${what}`, { method: 'POST', signal: ctrl.signal });
      const words = what === 'rerun' ? t('mine.rerun_done', { key: res.key })
        : what === 'postpone' ? postponeWords(d, res) : t(`dl.${what}_done`);
      replace(message, h('p', { class: 'ok' }, words));
      announce(words);
      load(0);
    } catch (e) {
      if (isAbort(e)) return;
      if (e.status === 401) app.sessionLost();
      replace(message, h('p', { class: 'error' }, errorWords(e, { maxRunning: app.config.maxRunning })));
    }
  }

  load(0);
  return () => { ctrl.abort(); clearTimeout(timer); };
}
