// Home: the table's totals and the search. As the user types (debounced,
// the previous requests cancelled), the page shows the matching count, the
// estimated download size, the search in words, the first records, a few
// facets and the records on the map, and offers the download.
import { h, replace, announce, uid } from './dom.js';
import { t, num, size, countryName, enumWord, plural } from './i18n.js';
import { api, errorWords, isAbort } from './api.js';
import { createMap } from './map.js';
import { parseWKT } from './wkt.js';
import { nameSuggester, valueSuggester } from './suggest.js';
import { downloadPanel } from './dlpanel.js';
import { datasetTitles } from './datasets.js';

const BASIS = ['PRESERVED_SPECIMEN', 'FOSSIL_SPECIMEN', 'LIVING_SPECIMEN', 'MATERIAL_SAMPLE', 'MATERIAL_CITATION',
  'HUMAN_OBSERVATION', 'MACHINE_OBSERVATION', 'OBSERVATION', 'OCCURRENCE'];
const FACETS = ['basisOfRecord', 'country', 'year', 'datasetKey'];
const MAP_SAMPLE = 300;
const DEBOUNCE_MS = 300;

/** The form's fields and their query parameters. */
const FIELDS = ['q', 'scientificName', 'taxonKey', 'country', 'yearFrom', 'yearTo', 'basisOfRecord', 'datasetKey', 'recordedBy', 'catalogNumber',
  'hasCoordinate', 'geometry'];
/** The fields whose values the service suggests (GBIF's suggest routes). */
const VALUE_FIELDS = ['recordedBy', 'catalogNumber'];
/** The address parameters the form holds (one value each; taxonKey a list). */
const FORM_PARAMS = ['q', 'scientificName', 'taxonKey', 'country', 'year', 'basisOfRecord', 'datasetKey', 'recordedBy', 'catalogNumber',
  'hasCoordinate', 'geometry'];

/** Address parameters that are no search criteria: paging, facets and a
 * download's format and notice, which the page sets itself. */
const NOT_CRITERIA = ['limit', 'offset', 'facet', 'facetLimit', 'facetMincount', 'facetMultiselect', 'format', 'locale',
  'notification_address', 'notificationAddress'];

/**
 * extrasOf splits an address's search parameters the form cannot hold:
 * any other of GBIF's (geologicalTime=Jurassic, continent=EUROPE, a
 * GBIF.org link's taxon_key) and every value of a form parameter given
 * more than once (country=DK&country=SE). They stay in the search, shown
 * as criteria of their own: dropping them would silently widen it.
 */
export function extrasOf(params) {
  const extras = [];
  const taken = new Set();
  for (const [name, value] of params) {
    if (NOT_CRITERIA.includes(name)) continue;
    const own = FORM_PARAMS.includes(name);
    if (own && (name === 'taxonKey' || params.getAll(name).length === 1)) continue;
    if (own) taken.add(name);
    if (value.trim() !== '') extras.push([name, value]);
  }
  return { extras, taken };
}

export function render(root, app) {
  const ids = Object.fromEntries(FIELDS.map((f) => [f, uid(f)]));
  const input = (name, attrs = {}) => h('input', { id: ids[name], name, ...attrs });
  const titles = { map: new Map() };

  // Totals.
  const total = h('span', { class: 'stat-value' }, '…');
  const georef = h('span', { class: 'stat-value' }, '…');
  const datasets = h('span', { class: 'stat-value' }, '…');
  const stats = h('ul', { class: 'stats', 'aria-label': t('home.stats') },
    h('li', {}, total, h('span', { class: 'stat-label' }, t('home.records'))),
    h('li', {}, georef, h('span', { class: 'stat-label' }, t('home.georeferenced'))),
    h('li', {}, datasets, h('span', { class: 'stat-label' }, t('home.datasets'))));

  // The form.
  const name = input('scientificName', { type: 'text', autocomplete: 'off', spellcheck: 'false' });
  const suggester = nameSuggester(name, (choice) => {
    if (choice.taxonKey) {
      form.elements.taxonKey.value = choice.taxonKey;
      name.value = '';
    } else {
      name.value = choice.name;
    }
    schedule(0);
  });
  const valueInputs = Object.fromEntries(VALUE_FIELDS.map((f) => [f, input(f, { type: 'text', autocomplete: 'off', spellcheck: 'false',
    'aria-describedby': `${ids[f]}-hint` })]));
  const valueSuggesters = VALUE_FIELDS.map((f) => valueSuggester(valueInputs[f], f, t(`search.${f}.suggestions`), (choice) => {
    valueInputs[f].value = choice.name;
    schedule(0);
  }));
  const basis = h('select', { id: ids.basisOfRecord, name: 'basisOfRecord' },
    h('option', { value: '' }, t('search.any')),
    BASIS.map((b) => h('option', { value: b }, enumWord('basisOfRecord', b))));
  const datasetSel = h('select', { id: ids.datasetKey, name: 'datasetKey' }, h('option', { value: '' }, t('search.any')));
  const hasCoord = h('select', { id: ids.hasCoordinate, name: 'hasCoordinate' },
    h('option', { value: '' }, t('search.any')),
    h('option', { value: 'true' }, t('search.hasCoordinate.true')),
    h('option', { value: 'false' }, t('search.hasCoordinate.false')));
  const geometry = h('textarea', { id: ids.geometry, name: 'geometry', rows: 3, spellcheck: 'false', class: 'mono',
    placeholder: 'POLYGON((30 36, 36 36, 36 40, 30 40, 30 36))', 'aria-describedby': `${ids.geometry}-hint` });
  const countryList = h('datalist', { id: `${ids.country}-list` });
  const extrasEl = h('div', { class: 'extras', id: 'search-extras' });
  const field = (id, label, control, hint) => h('div', { class: 'field' },
    h('label', { for: id }, label), control, hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null);
  const form = h('form', { class: 'search-form', role: 'search', 'aria-label': t('search.label'), onsubmit: (e) => { e.preventDefault(); schedule(0); } },
    h('h2', { class: 'visually-hidden' }, t('search.label')),
    field(ids.q, t('search.q'), input('q', { type: 'search', autocomplete: 'off', 'aria-describedby': `${ids.q}-hint` }), t('search.q.hint')),
    field(ids.scientificName, t('search.scientificName'), h('div', {}, name, suggester.list), t('search.scientificName.hint')),
    field(ids.taxonKey, t('search.taxonKey'), input('taxonKey', { type: 'text', inputmode: 'numeric', pattern: '[0-9, ]*' })),
    field(ids.country, t('search.country'), h('div', {}, input('country', { type: 'text', list: `${ids.country}-list`, maxlength: 2,
      autocomplete: 'off', 'aria-describedby': `${ids.country}-hint` }), countryList), t('search.country.hint')),
    h('fieldset', {}, h('legend', {}, t('search.year')),
      h('div', { class: 'row2' },
        h('div', {}, h('label', { for: ids.yearFrom }, t('search.year.from')), input('yearFrom', { type: 'number', min: 1000, max: 2100, step: 1 })),
        h('div', {}, h('label', { for: ids.yearTo }, t('search.year.to')), input('yearTo', { type: 'number', min: 1000, max: 2100, step: 1 })))),
    field(ids.basisOfRecord, t('search.basisOfRecord'), basis),
    field(ids.datasetKey, t('search.dataset'), datasetSel),
    VALUE_FIELDS.map((f, i) => field(ids[f], t(`search.${f}`), h('div', {}, valueInputs[f], valueSuggesters[i].list), t(`search.${f}.hint`))),
    field(ids.hasCoordinate, t('search.hasCoordinate'), hasCoord),
    field(ids.geometry, t('search.geometry'), geometry, t('search.geometry.hint')),
    extrasEl,
    h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary', onclick: () => {
      form.reset(); map.setPolygons([]); extras.length = 0; showExtras(); schedule(0);
    } }, t('search.reset'))));

  // The results.
  const countEl = h('span', { class: 'count', id: 'match-count' }, '…');
  const sizeEl = h('span', { class: 'muted', id: 'match-size' });
  const words = h('p', { class: 'words', id: 'match-words' });
  const errorEl = h('div', { role: 'alert' });
  const previewBody = h('tbody', {});
  const previewCaption = h('caption', {});
  const facetsEl = h('div', { class: 'facets' });
  const mapNote = h('p', { class: 'muted' });
  const map = createMap({
    label: t('map.label'),
    onPolygon: (wkt) => { geometry.value = wkt || ''; schedule(0); },
  });
  const panel = downloadPanel(app, {
    query: () => queryOf(readForm()),
    onFormat: () => { lastKey = ''; schedule(0); },
  });
  const results = h('div', { class: 'results' },
    h('div', { class: 'summary', 'aria-live': 'polite', 'aria-atomic': 'true' }, countEl, sizeEl),
    words, errorEl, panel.el,
    h('section', { 'aria-labelledby': 'map-title' }, h('h2', { id: 'map-title' }, t('map.title')), map.el, mapNote),
    h('section', { 'aria-labelledby': 'preview-title' }, h('h2', { id: 'preview-title' }, t('preview.title')),
      h('div', { class: 'table-wrap' }, h('table', { id: 'preview' }, previewCaption,
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('col.gbifID')), h('th', { scope: 'col' }, t('col.scientificName')),
          h('th', { scope: 'col' }, t('col.country')), h('th', { scope: 'col' }, t('col.date')),
          h('th', { scope: 'col', class: 'hide-narrow' }, t('col.basisOfRecord')), h('th', { scope: 'col', class: 'hide-narrow' }, t('col.dataset')))),
        previewBody))),
    h('section', { 'aria-labelledby': 'facets-title' }, h('h2', { id: 'facets-title' }, t('facets.title')), facetsEl));

  replace(root, h('h1', {}, t('home.title')), stats, h('div', { class: 'search-layout' }, form, results));

  // Fill the form from the address.
  const params = new URLSearchParams(location.search);
  const { extras, taken } = extrasOf(params);
  for (const name of taken) params.delete(name);
  const year = (params.get('year') || '').split(',');
  const initial = {
    scientificName: params.get('scientificName') || '', taxonKey: params.getAll('taxonKey').join(', '),
    country: params.get('country') || '', yearFrom: year[0] && year[0] !== '*' ? year[0] : '',
    yearTo: year.length > 1 ? (year[1] !== '*' ? year[1] : '') : (year[0] && year[0] !== '*' ? year[0] : ''),
    basisOfRecord: params.get('basisOfRecord') || '', datasetKey: params.get('datasetKey') || '',
    q: params.get('q') || '', recordedBy: params.get('recordedBy') || '', catalogNumber: params.get('catalogNumber') || '',
    hasCoordinate: params.get('hasCoordinate') || '', geometry: params.get('geometry') || '',
  };
  for (const [k, v] of Object.entries(initial)) if (v && form.elements[k]) form.elements[k].value = v;
  if (initial.datasetKey) datasetSel.append(h('option', { value: initial.datasetKey, selected: true }, initial.datasetKey));
  map.setPolygons(parseWKT(initial.geometry));
  showExtras();

  function readForm() {
    const f = {};
    for (const k of FIELDS) f[k] = (form.elements[k]?.value || '').trim();
    f.extras = extras.slice();
    return f;
  }

  /** showExtras lists the address's other criteria, each removable. */
  function showExtras() {
    replace(extrasEl, extras.length === 0 ? null : [
      h('h3', { id: `${ids.q}-extras` }, t('search.extras')),
      h('ul', { 'aria-labelledby': `${ids.q}-extras` }, extras.map(([k, v], i) => h('li', {},
        h('code', {}, `${k}=${v}`), ' ',
        h('button', { type: 'button', class: 'link', 'aria-label': t('search.extras.remove', { criterion: `${k}=${v}` }),
          onclick: () => { extras.splice(i, 1); showExtras(); schedule(0); } }, t('search.extras.remove_short'))))),
      h('p', { class: 'hint' }, t('search.extras.hint'))]);
  }

  // Totals, dataset titles and country choices, once.
  const ctrlAll = new AbortController();
  api('/v1/occurrence/count', { signal: ctrlAll.signal, as: 'text' }).then((n) => { total.textContent = num(Number(n)); }).catch(() => { total.textContent = '–'; });
  api('/v1/occurrence/count?isGeoreferenced=true', { signal: ctrlAll.signal, as: 'text' }).then((n) => { georef.textContent = num(Number(n)); }).catch(() => { georef.textContent = '–'; });
  datasetTitles(ctrlAll.signal).then((list) => {
    datasets.textContent = num(list.length);
    const chosen = datasetSel.value;
    replace(datasetSel, h('option', { value: '' }, t('search.any')),
      list.map((d) => h('option', { value: d.key, selected: d.key === chosen }, `${d.title || d.key} (${num(d.records)})`)));
    for (const d of list) titles.map.set(d.key, d.title || d.key);
    words.textContent = describe(readForm(), titles.map);
  }).catch(() => { datasets.textContent = '–'; });
  api('/v1/occurrence/search?limit=0&facet=country&facetLimit=300', { signal: ctrlAll.signal }).then((r) => {
    const counts = (r.facets.find((f) => f.field === 'COUNTRY') || { counts: [] }).counts;
    replace(countryList, counts.map((c) => h('option', { value: c.name }, countryName(c.name))));
  }).catch(() => {});

  // Searching as the user types.
  let timer = 0;
  let ctrl = null;
  let lastKey = null;
  function schedule(delay = DEBOUNCE_MS) {
    clearTimeout(timer);
    timer = setTimeout(run, delay);
  }
  form.addEventListener('input', (e) => {
    if (e.target === geometry) map.setPolygons(parseWKT(geometry.value));
    schedule();
  });
  form.addEventListener('change', () => schedule());

  async function run() {
    const f = readForm();
    const q = queryOf(f);
    const qs = q.toString();
    words.textContent = describe(f, titles.map);
    history.replaceState(null, '', qs ? `/?${qs}` : '/');
    const key = `${qs}|${panel.format()}`;
    if (key === lastKey) return;
    lastKey = key;
    if (ctrl) ctrl.abort();
    ctrl = new AbortController();
    const { signal } = ctrl;
    countEl.classList.add('busy');
    const sep = qs ? '&' : '';
    const facetQ = FACETS.map((x) => `facet=${x}`).join('&');
    const searchP = api(`/v1/occurrence/search?${qs}${sep}limit=20&${facetQ}&facetLimit=8`, { signal });
    // A search by words has no download, so no size to estimate.
    panel.setFullText(Boolean(f.q));
    const estimateP = f.q ? Promise.resolve(null)
      : api(`/v1/occurrence/search/count?${qs}${sep}format=${encodeURIComponent(panel.format())}`, { signal });
    const mapP = f.hasCoordinate === 'false' ? Promise.resolve({ results: [], count: 0 })
      : api(`/v1/occurrence/search?${qs}${sep}hasCoordinate=true&limit=${MAP_SAMPLE}`, { signal });
    // Handled below once the search answered; until then no rejection
    // may go unhandled.
    estimateP.catch(() => {});
    mapP.catch(() => {});
    try {
      const res = await searchP;
      replace(errorEl);
      countEl.classList.remove('busy');
      countEl.textContent = plural('count.records', res.count);
      panel.setCount(res.count);
      showPreview(res);
      showFacets(res.facets || []);
      announce(plural('count.records', res.count));
    } catch (e) {
      if (isAbort(e)) return;
      countEl.classList.remove('busy');
      countEl.textContent = t('count.unknown');
      panel.setCount(null);
      replace(errorEl, h('p', { class: 'error' }, errorWords(e)));
      replace(previewBody);
      replace(facetsEl);
      map.setPoints([]);
      sizeEl.textContent = '';
      return;
    }
    estimateP.then((est) => {
      sizeEl.textContent = est ? t('count.size', { size: size(est.estimatedCompressedSize), format: panel.formatName() }) : '';
    }).catch((e) => {
      if (!isAbort(e)) sizeEl.textContent = t('count.size_unknown');
    });
    mapP.then((r) => {
      const pts = r.results.filter((x) => Number.isFinite(x.decimalLongitude) && Number.isFinite(x.decimalLatitude))
        .map((x) => [x.decimalLongitude, x.decimalLatitude]);
      map.setPoints(pts);
      mapNote.textContent = r.count > pts.length ? t('map.sample', { shown: num(pts.length), total: num(r.count) })
        : plural('map.all', pts.length);
    }).catch((e) => { if (!isAbort(e)) mapNote.textContent = t('map.no_points'); });
  }

  function showPreview(res) {
    previewCaption.textContent = res.count > res.results.length
      ? t('preview.caption', { shown: num(res.results.length), total: num(res.count) }) : '';
    replace(previewBody, res.results.length === 0
      ? h('tr', {}, h('td', { colspan: 6 }, t('preview.none')))
      : res.results.map((r) => h('tr', {},
        h('td', {}, h('a', { href: `/occurrence/${r.gbifID || r.key}` }, String(r.gbifID || r.key))),
        h('td', {}, h('i', {}, r.scientificName || '')),
        h('td', {}, r.countryCode ? countryName(r.countryCode) : ''),
        h('td', {}, r.eventDate ? String(r.eventDate).slice(0, 10) : (r.year || '')),
        h('td', { class: 'hide-narrow' }, r.basisOfRecord ? enumWord('basisOfRecord', r.basisOfRecord) : ''),
        h('td', { class: 'hide-narrow' }, titles.map.get(r.datasetKey) || r.datasetName || r.datasetKey || ''))));
  }

  function showFacets(facets) {
    const byField = Object.fromEntries(facets.map((f) => [f.field, f.counts]));
    const label = {
      BASIS_OF_RECORD: (v) => enumWord('basisOfRecord', v), COUNTRY: (v) => countryName(v), YEAR: (v) => v,
      DATASET_KEY: (v) => titles.map.get(v) || v,
    };
    const set = {
      BASIS_OF_RECORD: (v) => { basis.value = v; }, COUNTRY: (v) => { form.elements.country.value = v; },
      YEAR: (v) => { form.elements.yearFrom.value = v; form.elements.yearTo.value = v; },
      DATASET_KEY: (v) => {
        if (![...datasetSel.options].some((o) => o.value === v)) datasetSel.append(h('option', { value: v }, label.DATASET_KEY(v)));
        datasetSel.value = v;
      },
    };
    replace(facetsEl, Object.keys(label).map((field) => {
      const counts = byField[field] || [];
      return h('div', { class: 'facet' }, h('h3', {}, t(`facet.${field}`)),
        counts.length === 0 ? h('p', { class: 'muted' }, t('facets.none'))
          : h('ul', {}, counts.map((c) => h('li', {},
            h('button', { type: 'button', class: 'link', onclick: () => { set[field](c.name); schedule(0); } }, label[field](c.name)),
            h('span', { class: 'muted' }, num(c.count))))));
    }));
  }

  schedule(0);
  return () => {
    clearTimeout(timer);
    if (ctrl) ctrl.abort();
    ctrlAll.abort();
    map.dispose();
    suggester.dispose();
    for (const v of valueSuggesters) v.dispose();
  };
}

/** queryOf turns the form into GBIF's search parameters. */
export function queryOf(f) {
  const q = new URLSearchParams();
  if (f.q) q.append('q', f.q);
  if (f.scientificName) q.append('scientificName', f.scientificName);
  for (const k of (f.taxonKey || '').split(/[\s,]+/).filter(Boolean)) q.append('taxonKey', k);
  if (f.country) q.append('country', f.country.toUpperCase());
  if (f.yearFrom || f.yearTo) q.append('year', f.yearFrom && f.yearFrom === f.yearTo ? f.yearFrom : `${f.yearFrom || '*'},${f.yearTo || '*'}`);
  if (f.basisOfRecord) q.append('basisOfRecord', f.basisOfRecord);
  if (f.datasetKey) q.append('datasetKey', f.datasetKey);
  for (const k of VALUE_FIELDS) if (f[k]) q.append(k, f[k]);
  if (f.hasCoordinate) q.append('hasCoordinate', f.hasCoordinate);
  if (f.geometry) q.append('geometry', f.geometry.replace(/\s+/g, ' '));
  for (const [k, v] of f.extras || []) q.append(k, v);
  return q;
}

/** describe says the search in words. */
function describe(f, titles) {
  const parts = [];
  if (f.q) parts.push(t('words.q', { value: f.q }));
  if (f.scientificName) parts.push(t('words.scientificName', { value: f.scientificName }));
  if (f.taxonKey) parts.push(t('words.taxonKey', { value: f.taxonKey }));
  if (f.country) parts.push(t('words.country', { value: countryName(f.country.toUpperCase()) }));
  if (f.yearFrom && f.yearTo) parts.push(f.yearFrom === f.yearTo ? t('words.year', { value: f.yearFrom }) : t('words.year_between', { from: f.yearFrom, to: f.yearTo }));
  else if (f.yearFrom) parts.push(t('words.year_from', { from: f.yearFrom }));
  else if (f.yearTo) parts.push(t('words.year_to', { to: f.yearTo }));
  if (f.basisOfRecord) parts.push(t('words.basisOfRecord', { value: enumWord('basisOfRecord', f.basisOfRecord) }));
  if (f.datasetKey) parts.push(t('words.dataset', { value: titles.get(f.datasetKey) || f.datasetKey }));
  for (const k of VALUE_FIELDS) if (f[k]) parts.push(t(`words.${k}`, { value: f[k] }));
  if (f.hasCoordinate) parts.push(t(`words.hasCoordinate.${f.hasCoordinate}`));
  if (f.geometry) parts.push(t('words.geometry'));
  const byName = new Map();
  for (const [k, v] of f.extras || []) byName.set(k, [...(byName.get(k) || []), v]);
  for (const [k, vs] of byName) {
    parts.push(vs.length === 1 ? t('words.param', { name: k, value: vs[0] }) : t('words.param_any', { name: k, values: vs.join(t('words.list_sep')) }));
  }
  if (parts.length === 0) return t('words.all');
  // A condition may end with its own full stop ("Willd."): not two.
  return t('words.records_where', { conditions: parts.join(t('words.and')) }).replace(/\.\.$/, '.');
}
