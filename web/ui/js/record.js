// A record's page: the interpreted record, the record as published
// (verbatim), its dataset, and the form that writes to the dataset's
// contact with the user in copy.
import { h, replace, uid, announce } from './dom.js';
import { t, countryName, enumWord, num } from './i18n.js';
import { api, errorWords, isAbort } from './api.js';
import { createMap } from './map.js';
import { licenseLink } from './download.js';

const SUMMARY = ['scientificName', 'basisOfRecord', 'eventDate', 'countryCode', 'locality', 'decimalLatitude',
  'decimalLongitude', 'recordedBy', 'institutionCode', 'catalogNumber', 'occurrenceID'];

export function render(root, app, id) {
  const ctrl = new AbortController();
  const { signal } = ctrl;
  const title = h('h1', {}, t('record.title', { id }));
  const message = h('div', { role: 'alert' });
  const summary = h('dl', { class: 'facts', id: 'record-summary' });
  const mapBox = h('div', {});
  const interpreted = h('tbody', {});
  const verbatim = h('tbody', {});
  const dataset = h('section', { class: 'panel', 'aria-labelledby': 'dataset-title' }, h('h2', { id: 'dataset-title' }, t('record.dataset')));
  const contact = h('section', { class: 'panel', 'aria-labelledby': 'contact-title', id: 'contact' },
    h('h2', { id: 'contact-title' }, t('contact.title')));
  const table = (body, caption, id2) => h('div', { class: 'table-wrap' }, h('table', { id: id2 }, h('caption', { class: 'visually-hidden' }, caption),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('record.field')), h('th', { scope: 'col' }, t('record.value')))), body));
  replace(root, title, message, summary, mapBox,
    h('div', { class: 'record-grid' },
      h('section', { 'aria-labelledby': 'interpreted-title' }, h('h2', { id: 'interpreted-title' }, t('record.interpreted')),
        h('p', { class: 'muted' }, t('record.interpreted_hint')), table(interpreted, t('record.interpreted'), 'interpreted')),
      h('section', { 'aria-labelledby': 'verbatim-title' }, h('h2', { id: 'verbatim-title' }, t('record.verbatim')),
        h('p', { class: 'muted' }, t('record.verbatim_hint')), table(verbatim, t('record.verbatim'), 'verbatim'))),
    dataset, contact);

  (async () => {
    let rec;
    try {
      rec = await api(`/v1/occurrence/${id}`, { signal });
    } catch (e) {
      if (isAbort(e)) return;
      replace(message, h('p', { class: 'error' }, errorWords(e)));
      return;
    }
    replace(title, t('record.title', { id }), rec.scientificName ? [': ', h('i', {}, rec.scientificName)] : null);
    document.title = `${title.textContent} · ${app.config.portal}`;
    replace(summary, SUMMARY.filter((k) => rec[k] !== undefined && rec[k] !== '' && rec[k] !== null).map((k) => [
      h('dt', {}, t(`field.${k}`)), h('dd', {}, show(k, rec[k]))]));
    if (Number.isFinite(rec.decimalLatitude) && Number.isFinite(rec.decimalLongitude)) {
      const m = createMap({ label: t('record.map'), onPolygon: () => {} });
      m.setPoints([[rec.decimalLongitude, rec.decimalLatitude]]);
      m.el.querySelector('.map-tools').hidden = true;
      replace(mapBox, h('div', { class: 'narrow-map' }, m.el));
      m.focus([rec.decimalLongitude, rec.decimalLatitude], 30);
    }
    replace(interpreted, Object.entries(rec).filter(([, v]) => !empty(v)).map(([k, v]) => h('tr', {},
      h('th', { scope: 'row', class: 'term' }, k), h('td', {}, show(k, v)))));
    api(`/v1/occurrence/${id}/verbatim`, { signal }).then((v) => {
      replace(verbatim, Object.entries(v).filter(([k, x]) => k.includes('://') && !empty(x)).map(([k, x]) => h('tr', {},
        h('th', { scope: 'row', class: 'term', title: k }, k.replace(/^.*[/#]/, '')), h('td', {}, String(x)))),
      Object.entries(v.extensions || {}).map(([rowType, rows]) => h('tr', {},
        h('th', { scope: 'row', class: 'term', title: rowType }, rowType.replace(/^.*[/#]/, '')),
        h('td', {}, t('record.extension_rows', { n: num(rows.length) })))));
    }).catch((e) => { if (!isAbort(e)) replace(verbatim, h('tr', {}, h('td', { colspan: 2 }, errorWords(e)))); });
    if (rec.datasetKey) showDataset(rec);
  })();

  async function showDataset(rec) {
    let ds;
    try {
      ds = await api(`/ui/api/datasets/${encodeURIComponent(rec.datasetKey)}`, { signal });
    } catch (e) {
      if (isAbort(e)) return;
      dataset.append(h('p', { class: 'error' }, errorWords(e)));
      return;
    }
    dataset.append(h('dl', { class: 'facts' },
      h('dt', {}, t('record.dataset_title')), h('dd', {}, ds.title || ds.key),
      ds.license ? [h('dt', {}, t('dl.license')), h('dd', {}, licenseLink(ds.license))] : null,
      h('dt', {}, t('col.records')), h('dd', {}, num(ds.records)),
      ds.citation ? [h('dt', {}, t('record.dataset_citation')), h('dd', {}, ds.citation)] : null,
      ds.contact ? [h('dt', {}, t('record.dataset_contact')), h('dd', {}, ds.contact)] : null),
    h('p', {}, h('a', { href: `/?datasetKey=${encodeURIComponent(ds.key)}` }, t('record.dataset_search'))));
    contactForm(rec, ds);
  }

  function contactForm(rec, ds) {
    if (!app.config.contact) { contact.append(h('p', { class: 'muted' }, t('contact.off'))); return; }
    if (!ds.contact) { contact.append(h('p', { class: 'muted' }, t('contact.no_address'))); return; }
    if (!app.session) {
      contact.append(h('p', {}, t('contact.signin', { contact: ds.contact }), ' ', h('a', { href: app.signInHref() }, t('nav.signin'))));
      return;
    }
    const ids = { name: uid('name'), subject: uid('subject'), body: uid('body') };
    const msg = h('div', { role: 'alert', id: 'contact-message' });
    const nameIn = h('input', { id: ids.name, value: app.session.user, maxlength: 200, autocomplete: 'name' });
    const subject = h('input', { id: ids.subject, required: true, maxlength: 200, value: t('contact.subject_default', { id, name: rec.scientificName || '' }) });
    const body = h('textarea', { id: ids.body, required: true, maxlength: 5000, rows: 6 });
    const button = h('button', { type: 'submit' }, t('contact.send'));
    contact.append(
      h('p', {}, t('contact.explain', { contact: ds.contact, email: app.session.email })),
      h('form', {
        onsubmit: async (e) => {
          e.preventDefault();
          replace(msg);
          button.disabled = true;
          try {
            await api('/ui/api/contact', { method: 'POST', signal, body: { gbifID: Number(id), name: nameIn.value, subject: subject.value, message: body.value } });
            body.value = '';
            replace(msg, h('p', { class: 'ok' }, t('contact.sent', { email: app.session.email })));
            announce(t('contact.sent', { email: app.session.email }));
          } catch (err) {
            if (isAbort(err)) return;
            if (err.status === 401) app.sessionLost();
            replace(msg, h('p', { class: 'error' }, errorWords(err)));
          } finally {
            button.disabled = false;
          }
        },
      },
      h('div', { class: 'field' }, h('label', { for: ids.name }, t('contact.name')), nameIn),
      h('div', { class: 'field' }, h('label', { for: ids.subject }, t('contact.subject')), subject),
      h('div', { class: 'field' }, h('label', { for: ids.body }, t('contact.message')), body),
      msg, button));
  }

  return () => ctrl.abort();
}

function empty(v) {
  return v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0)
    || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);
}

function show(k, v) {
  if (k === 'countryCode') return `${countryName(v)} (${v})`;
  if (k === 'basisOfRecord') return enumWord('basisOfRecord', v);
  if (k === 'datasetKey') return h('a', { href: `/?datasetKey=${encodeURIComponent(v)}` }, v);
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x))).join('; ');
  if (typeof v === 'object') return h('code', {}, JSON.stringify(v));
  return String(v);
}
