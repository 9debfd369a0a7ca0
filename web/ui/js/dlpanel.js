// The Download button and its choices: the format (every format of the
// service's registry), the columns of a format that lets requests choose
// them, a description and the notice mail. Signed-out users are sent to
// sign in and come back to the same search.
import { h, replace, uid } from './dom.js';
import { t, num } from './i18n.js';
import { api, errorWords } from './api.js';

export function downloadPanel(app, { query, onFormat }) {
  const formats = app.config.formats;
  const ids = { format: uid('format'), desc: uid('desc'), notify: uid('notify') };
  let count = null;
  const formatSel = h('select', { id: ids.format },
    formats.map((f) => h('option', { value: f.name }, t(`format.${f.name}`) === `format.${f.name}` ? f.name : t(`format.${f.name}`))));
  const formatHint = h('p', { class: 'hint', id: `${ids.format}-hint` });
  formatSel.setAttribute('aria-describedby', `${ids.format}-hint`);
  const fieldsBox = h('div', { class: 'fields-choice', role: 'group', 'aria-label': t('download.fields') });
  const fieldsSummary = h('summary', {});
  const fieldsDetails = h('details', { class: 'field' }, fieldsSummary,
    h('p', { class: 'hint' }, t('download.fields.hint')),
    h('button', { type: 'button', class: 'secondary', onclick: () => { setDefaultFields(); } }, t('download.fields.reset')),
    fieldsBox);
  const desc = h('input', { id: ids.desc, type: 'text', maxlength: 500 });
  const notify = h('input', { id: ids.notify, type: 'checkbox', checked: true });
  const button = h('button', { type: 'submit', id: 'download-button' }, t('download.button'));
  const message = h('div', { role: 'alert' });
  // Why a search by words has no Download (set by setFullText).
  const fullTextNote = h('p', { class: 'hint', id: 'download-fulltext', hidden: true }, t('download.fulltext'));
  let fullText = false;
  const body = h('div', {});
  const el = h('section', { class: 'panel download-panel', 'aria-labelledby': 'download-title' },
    h('h2', { id: 'download-title' }, t('download.title')), body);

  function current() { return formats.find((f) => f.name === formatSel.value) || formats[0]; }
  function setDefaultFields() {
    const f = current();
    const def = new Set(f.defaultFields || []);
    for (const cb of fieldsBox.querySelectorAll('input')) cb.checked = def.has(cb.value);
    updateFieldsSummary();
  }
  function chosenFields() {
    return [...fieldsBox.querySelectorAll('input:checked')].map((cb) => cb.value);
  }
  function updateFieldsSummary() {
    fieldsSummary.textContent = t('download.fields.summary', { n: num(chosenFields().length) });
  }
  function showFormat() {
    const f = current();
    // How to open the format, in the page's language, else the registry's
    // description: tab-separated text has no quotes, which spreadsheets
    // must be told (GBIF's users' most common complaint is columns shifted
    // by a quote in a value).
    const open = t(`format.open.${f.name}`);
    formatHint.textContent = open === `format.open.${f.name}` ? f.description : open;
    fieldsDetails.hidden = !f.fields;
    if (f.fields && !fieldsBox.childElementCount) {
      replace(fieldsBox, app.config.choosableFields.map((name) => h('label', { class: 'check' },
        h('input', { type: 'checkbox', value: name, onchange: updateFieldsSummary }), name)));
      setDefaultFields();
    } else if (f.fields) {
      setDefaultFields();
    }
  }

  if (!app.session) {
    replace(body, h('p', {}, t('download.signin_first'), ' ',
      h('a', { href: app.signInHref(), id: 'download-signin' }, t('download.signin'))),
    fullTextNote,
    h('div', { class: 'field' }, h('label', { for: ids.format }, t('download.format')), formatSel, formatHint));
  } else {
    const form = h('form', { onsubmit: submit },
      h('div', { class: 'field' }, h('label', { for: ids.format }, t('download.format')), formatSel, formatHint),
      fieldsDetails,
      h('div', { class: 'field' }, h('label', { for: ids.desc }, t('download.description')), desc),
      h('div', { class: 'field' }, h('label', { class: 'check', for: ids.notify }, notify, t('download.notify', { email: app.session.email || app.session.user }))),
      fullTextNote,
      h('div', { class: 'actions' }, button, h('span', { class: 'muted' }, t('download.limit', { max: num(app.config.maxRunning) }))),
      message);
    replace(body, form);
  }
  formatSel.addEventListener('change', () => { showFormat(); onFormat(); });
  showFormat();

  async function submit(e) {
    e.preventDefault();
    replace(message);
    if (fullText) return;
    if (count === 0) {
      replace(message, h('p', { class: 'error' }, t('download.nothing')));
      return;
    }
    const f = current();
    const fields = f.fields ? chosenFields() : [];
    if (f.fields && fields.length === 0) {
      replace(message, h('p', { class: 'error' }, t('download.fields.none')));
      return;
    }
    const def = f.defaultFields || [];
    const defSet = new Set(def);
    const same = fields.length === def.length && fields.every((x) => defSet.has(x));
    button.disabled = true;
    try {
      const res = await api('/ui/api/downloads', {
        method: 'POST',
        body: {
          query: query().toString(), format: f.name, fields: f.fields && !same ? fields : undefined,
          description: desc.value.trim(), sendNotification: notify.checked,
        },
      });
      app.navigate(`/occurrence/download/${encodeURIComponent(res.key)}`);
    } catch (err) {
      if (err.status === 401) app.sessionLost();
      const words = errorWords(err, { maxRunning: app.config.maxRunning });
      replace(message, h('p', { class: 'error', id: 'download-error' }, words,
        err.status === 420 ? [' ', h('a', { href: '/user/downloads' }, t('download.see_mine'))] : null,
        err.status === 401 ? [' ', h('a', { href: app.signInHref() }, t('download.signin'))] : null));
    } finally {
      button.disabled = fullText;
    }
  }

  return {
    el,
    format: () => formatSel.value,
    formatName: () => formatSel.options[formatSel.selectedIndex].textContent,
    setCount(n) { count = n; },
    /** setFullText turns the Download off, saying why, for a search by words. */
    setFullText(on) {
      fullText = on;
      fullTextNote.hidden = !on;
      button.disabled = on;
    },
  };
}
