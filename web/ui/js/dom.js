// Building the page's DOM without HTML strings: every value goes in as
// text or an attribute, never as markup.

/**
 * h('a', {href: '/x', class: 'c', onclick: f}, 'text', child) makes an
 * element. Attributes whose value is null, undefined or false are left
 * out; true sets an empty attribute; on* functions become listeners.
 */
export function h(tag, attrs = {}, ...children) {
  const el = tag.startsWith('svg:')
    ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4))
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') {
      el.addEventListener(k.slice(2), v);
    } else if (k === 'class') {
      el.setAttribute('class', Array.isArray(v) ? v.filter(Boolean).join(' ') : v);
    } else if (k === 'value' && 'value' in el) {
      el.value = v;
    } else if (k === 'checked' || k === 'selected') {
      el[k] = Boolean(v);
    } else {
      el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

/** append adds children (nodes, strings, numbers, arrays of them). */
export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** replace empties el and puts children in it. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** announce says msg to screen readers (the status region). */
export function announce(msg) {
  const region = document.getElementById('status-region');
  if (!region) return;
  region.textContent = '';
  // A change after the clearing is what assistive technology reads.
  setTimeout(() => { region.textContent = msg; }, 50);
}

let idCounter = 0;
/** uid returns an id unique in the page, for label/for pairs. */
export function uid(prefix = 'f') {
  idCounter += 1;
  return `${prefix}-${idCounter}`;
}
