// A download's page: while it runs, a live progress bar (records scanned
// and written, bytes) polled as often as the service's Retry-After says,
// and Cancel; when done, the link, its citation, datasets and licence,
// and for its owner Postpone and Run again. Anyone with the link sees the
// public part (the landing page to cite).
import { h, replace, announce } from './dom.js';
import { t, num, size, date, dateTime, plural } from './i18n.js';
import { api, errorWords, isAbort } from './api.js';

const ACTIVE = ['PREPARING', 'RUNNING', 'SUSPENDED'];

export function render(root, app, rawKey) {
  const key = decodeURIComponent(rawKey);
  const ctrl = new AbortController();
  const { signal } = ctrl;
  let timer = 0;
  let expected = null;
  let expectedAsked = false;
  let lastStatus = '';
  let shown = null; // the download as last shown

  const statusEl = h('p', {}, h('span', { class: 'status' }, '…'));
  const bar = h('div', {});
  const barWrap = h('div', { class: 'progress-bar', role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100,
    'aria-valuenow': 0, 'aria-labelledby': 'progress-label', id: 'progress' }, bar);
  const progressText = h('p', { class: 'muted', id: 'progress-text' });
  const progress = h('section', { class: 'progress', 'aria-labelledby': 'progress-label' },
    h('h2', { id: 'progress-label' }, t('dl.progress')), barWrap, progressText);
  const facts = h('dl', { class: 'facts' });
  const actions = h('div', { class: 'actions' });
  const message = h('div', { role: 'alert' });
  const landing = h('div', {});
  replace(root, h('h1', {}, t('dl.title', { key })), statusEl, message, progress, facts, actions, landing);

  async function load() {
    let res = null;
    let own = false;
    try {
      if (app.session) {
        try {
          res = await api(`/ui/api/downloads/${encodeURIComponent(key)}`, { signal, as: 'response' });
          own = true;
        } catch (e) {
          if (isAbort(e)) throw e;
          if (e.status === 401) app.sessionLost();
          if (e.status !== 404 && e.status !== 401) throw e;
        }
      }
      if (!res) res = await api(`/v1/occurrence/download/${encodeURIComponent(key)}`, { signal, as: 'response' });
      const d = await res.json();
      replace(message);
      show(d, own);
      if (ACTIVE.includes(d.status)) {
        const wait = Math.max(1, Number(res.headers.get('Retry-After')) || 2);
        timer = setTimeout(load, wait * 1000);
      }
    } catch (e) {
      if (isAbort(e)) return;
      replace(message, h('p', { class: 'error' }, errorWords(e)));
      if (e.status === 0 || e.status >= 500) timer = setTimeout(load, 5000);
    }
  }

  function show(d, own) {
    shown = d;
    const st = d.status;
    replace(statusEl, t('dl.status'), ' ', h('span', { class: `status ${st}`, id: 'download-status' }, t(`status.${st}`)));
    if (st !== lastStatus) {
      if (lastStatus) announce(t('dl.now', { status: t(`status.${st}`) }));
      lastStatus = st;
    }
    const active = ACTIVE.includes(st);
    if (active && !expectedAsked) {
      expectedAsked = true;
      api('/v1/occurrence/search/predicate', { method: 'POST', signal, body: { predicate: d.request.predicate || null, format: d.request.format } })
        .then((est) => { expected = est.count; }).catch(() => {});
    }
    const p = d.progress || { recordsScanned: 0, recordsWritten: 0, bytesWritten: 0 };
    // A SQL download's result is not its records: its progress is the
    // share of the table scanned (the estimate of a null predicate counts
    // every record).
    const done = d.request.sql ? p.recordsScanned : p.recordsWritten;
    let pct = 0;
    if (st === 'SUCCEEDED' || st === 'FILE_ERASED') pct = 100;
    else if (expected > 0) pct = Math.min(99, Math.floor((100 * done) / expected));
    else if (expected === 0 && active) pct = 0;
    progress.hidden = !(active || st === 'SUCCEEDED');
    bar.style.width = `${pct}%`;
    barWrap.setAttribute('aria-valuenow', String(pct));
    barWrap.setAttribute('aria-valuetext', `${pct}%`);
    progressText.textContent = st === 'SUCCEEDED'
      ? t('dl.done', { records: num(d.totalRecords), size: size(d.size) })
      : t('dl.progress_text', {
        pct: num(pct), written: num(done), expected: expected === null ? '…' : num(expected),
        scanned: num(p.recordsScanned), bytes: size(p.bytesWritten),
      });

    const rows = [
      [t('dl.format'), t(`format.${d.request.format}`) === `format.${d.request.format}` ? d.request.format : t(`format.${d.request.format}`)],
      [t('dl.created'), dateTime(d.created.time || d.created)],
      d.request.description ? [t('dl.description'), d.request.description] : null,
      st === 'SUCCEEDED' || st === 'FILE_ERASED' ? [t('dl.records'), plural('count.records', d.totalRecords)] : null,
      st === 'SUCCEEDED' ? [t('dl.size'), size(d.size)] : null,
      d.numberDatasets ? [t('dl.datasets'), num(d.numberDatasets)] : null,
      d.license ? [t('dl.license'), licenseLink(d.license)] : null,
      st === 'SUCCEEDED' && t(`format.open.${d.request.format}`) !== `format.open.${d.request.format}`
        ? [t('dl.open'), h('span', { id: 'open-hint' }, t(`format.open.${d.request.format}`))] : null,
      st === 'SUCCEEDED' ? [t('dl.erase'), h('span', { id: 'erase-date' }, date(d.eraseAfter))] : null,
      d.error ? [t('dl.error'), d.error] : null,
    ].filter(Boolean);
    replace(facts, rows.map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));

    const btns = [];
    if (st === 'SUCCEEDED' && d.downloadLink) {
      btns.push(h('a', { class: 'button', href: d.downloadLink, id: 'download-link', download: '' }, t('dl.get', { size: size(d.size) })));
    }
    if (own && active) btns.push(h('button', { type: 'button', class: 'secondary', id: 'cancel-button', onclick: () => act('cancel') }, t('dl.cancel')));
    if (own && st === 'SUCCEEDED') btns.push(h('button', { type: 'button', class: 'secondary', id: 'postpone-button', onclick: () => act('postpone') }, t('dl.postpone')));
    if (own && !active) btns.push(h('button', { type: 'button', class: 'secondary', id: 'rerun-button', onclick: () => act('rerun') }, t('dl.rerun')));
    replace(actions, btns);

    if ((st === 'SUCCEEDED' || st === 'FILE_ERASED') && !landing.childElementCount) showLanding(d);
  }

  async function act(what) {
    replace(message);
    try {
      const res = await api(`/ui/api/downloads/${encodeURIComponent(key)}/${what}`, { method: 'POST', signal });
      if (what === 'rerun') {
        app.navigate(`/occurrence/download/${encodeURIComponent(res.key)}`);
        return;
      }
      const words = what === 'postpone' ? postponeWords(shown, res) : t(`dl.${what}_done`);
      announce(words);
      replace(message, h('p', { class: 'ok' }, words));
      clearTimeout(timer);
      load();
    } catch (e) {
      if (isAbort(e)) return;
      if (e.status === 401) app.sessionLost();
      replace(message, h('p', { class: 'error' }, errorWords(e, { maxRunning: app.config.maxRunning })));
    }
  }

  async function showLanding(d) {
    const cite = h('p', { class: 'citation', id: 'citation' }, '…');
    const dsBody = h('tbody', {});
    replace(landing,
      h('h2', {}, t('dl.cite')), h('p', {}, t('dl.cite_text')), cite,
      h('h2', {}, t('dl.datasets_title')),
      h('div', { class: 'table-wrap' }, h('table', { id: 'download-datasets' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('col.dataset')), h('th', { scope: 'col', class: 'num' }, t('col.records')),
          h('th', { scope: 'col' }, t('dl.license')))), dsBody)),
      h('h2', {}, t('dl.query')), h('pre', { class: 'citation' }, d.request.sql || JSON.stringify(d.request.predicate || null, null, 2)));
    api(`/v1/occurrence/download/${encodeURIComponent(key)}/citation`, { signal, as: 'text' })
      .then((c) => { cite.textContent = c.trim(); }).catch((e) => { if (!isAbort(e)) cite.textContent = errorWords(e); });
    api(`/v1/occurrence/download/${encodeURIComponent(key)}/datasets?limit=1000`, { signal }).then((page) => {
      replace(dsBody, page.results.map((u) => h('tr', {},
        h('td', {}, u.datasetTitle || u.datasetKey, u.datasetCitation ? h('div', { class: 'muted' }, u.datasetCitation) : null),
        h('td', { class: 'num' }, num(u.numberRecords)), h('td', {}, u.license ? licenseLink(u.license) : ''))));
    }).catch((e) => { if (!isAbort(e)) replace(dsBody, h('tr', {}, h('td', { colspan: 3 }, errorWords(e)))); });
  }

  load();
  return () => { ctrl.abort(); clearTimeout(timer); };
}

/** postponeWords says what postponing did: a later erasure date, or none
 * (the service keeps files a fixed time from today, and asking again the
 * same day changes nothing). */
export function postponeWords(before, after) {
  if (before && after && Date.parse(after.eraseAfter) > Date.parse(before.eraseAfter)) {
    return t('dl.postpone_done', { date: date(after.eraseAfter) });
  }
  return t('dl.postpone_same', { date: date(after.eraseAfter) });
}

/** licenseLink shows a licence URL by its usual name. */
export function licenseLink(url) {
  const names = [[/publicdomain\/zero/, 'CC0 1.0'], [/licenses\/by-nc\//, 'CC BY-NC 4.0'], [/licenses\/by\//, 'CC BY 4.0']];
  const found = names.find(([re]) => re.test(url));
  if (!/^https?:\/\//.test(url)) return url === 'unspecified' ? t('dl.license_unspecified') : url;
  return h('a', { href: url, rel: 'noopener noreferrer' }, found ? found[1] : url);
}
