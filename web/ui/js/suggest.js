// Suggestions for the search form's text fields: an ARIA 1.2 combobox
// (the list follows the input; arrows move, Enter picks, Escape closes).
// Scientific names come from the species suggest route (/v1/species/suggest,
// the taxonomy's: picking a name then searches by its taxon key); when it
// suggests nothing for what was typed, or the service has no taxonomy
// (404 or 503), from the table's own names (the scientificName facet,
// asked once), matched at the start of a word. Other fields' values
// (collector, catalogue number) come from the occurrence suggest routes
// (/v1/occurrence/search/{field}, GBIF's).
import { h, replace, uid } from './dom.js';
import { t } from './i18n.js';
import { api, isAbort } from './api.js';

let speciesRoute = null; // unknown, then true or false
let tableNames = null;

async function suggestions(q, signal) {
  if (speciesRoute !== false) {
    try {
      const res = await api(`/v1/species/suggest?q=${encodeURIComponent(q)}&limit=10`, { signal });
      speciesRoute = true;
      const found = (Array.isArray(res) ? res : res.results || []).map((s) => ({
        name: s.scientificName || s.canonicalName, taxonKey: s.key || s.usageKey, rank: s.rank,
      })).filter((s) => s.name);
      if (found.length) return found;
    } catch (e) {
      if (isAbort(e)) throw e;
      // no route or no taxonomy: the table's names from now on; another
      // failure (a busy server): the table's names this time
      if (e.status === 404 || e.status === 503) speciesRoute = false;
    }
  }
  if (!tableNames) {
    tableNames = api('/v1/occurrence/search?limit=0&facet=scientificName&facetLimit=5000', { signal })
      .then((r) => ((r.facets || []).find((f) => f.field === 'SCIENTIFIC_NAME') || { counts: [] }).counts.map((c) => c.name))
      .catch((e) => { tableNames = null; throw e; });
  }
  const names = await tableNames;
  const needle = q.toLowerCase();
  return names.filter((n) => n.toLowerCase().split(/[\s(]+/).some((w) => w.startsWith(needle)) || n.toLowerCase().startsWith(needle))
    .slice(0, 10).map((name) => ({ name }));
}

/** nameSuggester turns input into a combobox; onPick({name, taxonKey}). */
export function nameSuggester(input, onPick) {
  return combobox(input, suggestions, onPick, t('search.suggestions'), 2);
}

/**
 * valueSuggester offers the values of one of GBIF's suggest fields
 * (recordedBy, catalogNumber, ...) that start with what was typed;
 * onPick({name}).
 */
export function valueSuggester(input, field, label, onPick) {
  const values = async (q, signal) => {
    const res = await api(`/v1/occurrence/search/${field}?q=${encodeURIComponent(q)}&limit=10`, { signal });
    return (Array.isArray(res) ? res : []).map((name) => ({ name }));
  };
  return combobox(input, values, onPick, label, 1);
}

// combobox lists fetch(q, signal)'s items under input once minLength
// characters are typed, 200 ms after the last key.
function combobox(input, fetch, onPick, label, minLength) {
  const listId = uid('suggest');
  const list = h('ul', { id: listId, role: 'listbox', class: 'suggestions', 'aria-label': label, hidden: true });
  input.setAttribute('role', 'combobox');
  input.setAttribute('aria-autocomplete', 'list');
  input.setAttribute('aria-expanded', 'false');
  input.setAttribute('aria-controls', listId);
  let items = [];
  let active = -1;
  let ctrl = null;
  let timer = 0;

  function close() {
    list.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    active = -1;
  }
  function show() {
    replace(list, items.map((s, i) => {
      const li = h('li', { id: `${listId}-${i}`, role: 'option', 'aria-selected': i === active ? 'true' : 'false' },
        s.name, s.rank ? h('span', { class: 'muted' }, ` · ${s.rank.toLowerCase()}`) : null);
      li.addEventListener('mousedown', (e) => { e.preventDefault(); pick(i); });
      return li;
    }));
    list.hidden = items.length === 0;
    input.setAttribute('aria-expanded', items.length ? 'true' : 'false');
    if (active >= 0) input.setAttribute('aria-activedescendant', `${listId}-${active}`);
    else input.removeAttribute('aria-activedescendant');
  }
  function pick(i) {
    const s = items[i];
    close();
    if (s) onPick(s);
  }
  input.addEventListener('input', () => {
    clearTimeout(timer);
    const q = input.value.trim();
    if (q.length < minLength) { items = []; close(); return; }
    timer = setTimeout(async () => {
      if (ctrl) ctrl.abort();
      ctrl = new AbortController();
      try {
        items = await fetch(q, ctrl.signal);
        active = -1;
        show();
      } catch (e) {
        if (!isAbort(e)) { items = []; close(); }
      }
    }, 200);
  });
  input.addEventListener('keydown', (e) => {
    if (list.hidden && e.key !== 'ArrowDown') return;
    if (e.key === 'ArrowDown') { e.preventDefault(); active = Math.min(items.length - 1, active + 1); show(); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); active = Math.max(-1, active - 1); show(); }
    else if (e.key === 'Enter' && active >= 0) { e.preventDefault(); pick(active); }
    else if (e.key === 'Escape') { e.preventDefault(); close(); }
  });
  input.addEventListener('blur', () => setTimeout(close, 150));
  return { list, dispose() { clearTimeout(timer); if (ctrl) ctrl.abort(); } };
}
