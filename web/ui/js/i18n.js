// The page's words: the catalogue of the page's language (the server
// merges English under it, and an operator's overrides over it), with
// {name} placeholders, and numbers, sizes and dates in the language's
// conventions.

let strings = {};
let lang = 'en';

/** loadStrings fetches the catalogue of language l. */
export async function loadStrings(l) {
  lang = l;
  const res = await fetch(`/ui/api/messages/${encodeURIComponent(l)}`, { credentials: 'same-origin' });
  if (!res.ok) throw new Error(`strings ${l}: ${res.status}`);
  strings = await res.json();
}

export function language() { return lang; }

/** t returns the string key with {name} replaced by params.name. */
export function t(key, params = {}) {
  const s = Object.prototype.hasOwnProperty.call(strings, key) ? strings[key] : key;
  return s.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** has reports whether the catalogue has key. */
export function has(key) { return Object.prototype.hasOwnProperty.call(strings, key); }

/** plural picks key.one, key.other (or the language's other forms) for n. */
export function plural(key, n, params = {}) {
  const form = new Intl.PluralRules(lang).select(n);
  const k = has(`${key}.${form}`) ? `${key}.${form}` : `${key}.other`;
  return t(k, { n: num(n), ...params });
}

/** num writes an integer in the language's digits. */
export function num(n) {
  return new Intl.NumberFormat(lang).format(n);
}

/** size writes a byte count with decimal units (kB, MB, ...). */
export function size(bytes) {
  const units = t('size.units').split(' ');
  if (bytes < 1000) return plural('size.bytes', bytes);
  let v = bytes;
  let i = -1;
  while (v >= 1000 && i < units.length - 1) { v /= 1000; i += 1; }
  return `${new Intl.NumberFormat(lang, { maximumFractionDigits: 1, minimumFractionDigits: 1 }).format(v)} ${units[i]}`;
}

/** date writes a timestamp's day; dateTime its day and time. */
export function date(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : new Intl.DateTimeFormat(lang, { dateStyle: 'medium' }).format(d);
}
export function dateTime(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' }).format(d);
}

/** countryName names an ISO 3166 code in the language ("TR": "Turkey"). */
export function countryName(code) {
  try {
    return new Intl.DisplayNames([lang], { type: 'region' }).of(code) || code;
  } catch {
    return code;
  }
}

/** enumWord names a GBIF enumeration value (basisOfRecord etc.). */
export function enumWord(kind, value) {
  const k = `${kind}.${value}`;
  if (has(k)) return t(k);
  return value.toLowerCase().replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());
}
