// The map: an SVG world in plate carrée (x = longitude, y = -latitude)
// from the bundled Natural Earth outline (/ui/vendor/world.json), the
// matching records as points, and a polygon the user draws. Nothing is
// loaded from elsewhere. Pointer: drag to pan, wheel to zoom, click to
// add a corner while drawing. Keyboard: arrows pan, + and - zoom, and
// while drawing Enter adds a corner at the cross-hair in the middle.
import { h, announce } from './dom.js';
import { t, num } from './i18n.js';
import { polygonWKT } from './wkt.js';

let world = null;
function loadWorld() {
  if (!world) {
    world = fetch('/ui/vendor/world.json', { credentials: 'same-origin' }).then((r) => {
      if (!r.ok) throw new Error(`world outline: ${r.status}`);
      return r.json();
    });
  }
  return world;
}

const SVG = (tag, attrs, ...children) => h(`svg:${tag}`, attrs, ...children);

function pathOf(lines, close) {
  return lines.map((l) => `M${l.map(([x, y]) => `${x},${-y}`).join('L')}${close ? 'Z' : ''}`).join('');
}

/**
 * createMap returns the map component. onPolygon(wkt) is called when the
 * user finishes a polygon (wkt) or clears it (null).
 */
export function createMap({ onPolygon, label }) {
  const view = { cx: 0, cy: 0, w: 360 };
  const svg = SVG('svg', {
    viewBox: '-180 -90 360 180', preserveAspectRatio: 'xMidYMid meet', tabindex: 0, role: 'application',
    'aria-label': label || t('map.label'), 'aria-describedby': 'map-help',
  });
  const base = SVG('g', {});
  const pointsG = SVG('g', { class: 'points' });
  const shapeG = SVG('g', {});
  const cross = SVG('g', { class: 'crosshair', 'aria-hidden': 'true' });
  svg.append(SVG('rect', { x: -1000, y: -1000, width: 2000, height: 2000, fill: 'transparent' }), base, pointsG, shapeG, cross);
  let points = [];
  let polygons = [];
  let drawing = null; // corners [lon, lat] of the polygon being drawn

  const drawBtn = h('button', { type: 'button', class: 'secondary', 'aria-pressed': 'false' }, t('map.draw'));
  const finishBtn = h('button', { type: 'button', class: 'secondary', disabled: true }, t('map.finish'));
  const clearBtn = h('button', { type: 'button', class: 'secondary' }, t('map.clear'));
  const zoomIn = h('button', { type: 'button', class: 'secondary', 'aria-label': t('map.zoom_in') }, '+');
  const zoomOut = h('button', { type: 'button', class: 'secondary', 'aria-label': t('map.zoom_out') }, '−');
  const note = h('span', { class: 'map-note', id: 'map-help' }, t('map.help'));
  const el = h('div', { class: 'map' }, svg,
    h('div', { class: 'map-tools' }, zoomIn, zoomOut, drawBtn, finishBtn, clearBtn, note));

  loadWorld().then((w) => {
    const grat = [];
    for (let x = -180; x <= 180; x += 30) grat.push([[x, -90], [x, 90]]);
    for (let y = -60; y <= 60; y += 30) grat.push([[-180, y], [180, y]]);
    base.append(
      SVG('path', { class: 'graticule', d: pathOf(grat, false) }),
      SVG('path', { class: 'land', d: pathOf(w.land, true), 'fill-rule': 'evenodd' }),
      SVG('path', { class: 'borders', d: pathOf(w.borders, false) }),
    );
  }).catch(() => { note.textContent = t('map.no_outline'); });

  function pxPerDegree() {
    const r = svg.getBoundingClientRect();
    return r.width > 0 ? Math.min(r.width / view.w, r.height / (view.w / 2)) : 2;
  }
  function apply() {
    const hgt = view.w / 2;
    view.w = Math.min(360, Math.max(2, view.w));
    view.cx = Math.min(180 - view.w / 2, Math.max(-180 + view.w / 2, view.cx));
    view.cy = Math.min(90 - hgt / 2, Math.max(-90 + hgt / 2, view.cy));
    svg.setAttribute('viewBox', `${view.cx - view.w / 2} ${view.cy - hgt / 2} ${view.w} ${hgt}`);
    drawPoints();
    drawShapes();
  }
  function toMap(clientX, clientY) {
    const m = svg.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(clientX, clientY).matrixTransform(m.inverse());
    return [Math.max(-180, Math.min(180, p.x)), Math.max(-90, Math.min(90, -p.y))];
  }
  function zoom(factor, at) {
    const [ax, ay] = at || [view.cx, -view.cy];
    const old = view.w;
    view.w = Math.min(360, Math.max(2, view.w / factor));
    const k = view.w / old;
    view.cx = ax + (view.cx - ax) * k;
    view.cy = -ay + (view.cy + ay) * k;
    apply();
  }
  function drawPoints() {
    const r = 3.5 / pxPerDegree();
    pointsG.replaceChildren(...points.map(([x, y]) => SVG('circle', { cx: x, cy: -y, r })));
  }
  function drawShapes() {
    const r = 4 / pxPerDegree();
    const shapes = polygons.map((poly) => SVG('path', {
      class: 'shape', 'fill-rule': 'evenodd',
      d: poly.map((ring) => `M${ring.map(([x, y]) => `${x},${-y}`).join('L')}Z`).join(''),
    }));
    if (drawing && drawing.length) {
      shapes.push(SVG('path', { class: 'shape', d: `M${drawing.map(([x, y]) => `${x},${-y}`).join('L')}${drawing.length > 2 ? 'Z' : ''}` }));
      for (const [x, y] of drawing) shapes.push(SVG('circle', { class: 'vertex', cx: x, cy: -y, r }));
    }
    shapeG.replaceChildren(...shapes);
    const s = 10 / pxPerDegree();
    cross.replaceChildren(...(drawing ? [
      SVG('path', { d: `M${view.cx - s},${view.cy}H${view.cx + s}M${view.cx},${view.cy - s}V${view.cy + s}`, stroke: '#1a5fb4', 'stroke-width': 1.5, 'vector-effect': 'non-scaling-stroke' }),
    ] : []));
  }

  function startDrawing() {
    drawing = [];
    el.classList.add('drawing');
    drawBtn.setAttribute('aria-pressed', 'true');
    finishBtn.disabled = true;
    note.textContent = t('map.drawing_help');
    announce(t('map.drawing_help'));
    drawShapes();
  }
  function addCorner(p) {
    drawing.push(p);
    finishBtn.disabled = drawing.length < 3;
    announce(t('map.corner', { n: num(drawing.length) }));
    drawShapes();
  }
  function finish() {
    if (!drawing || drawing.length < 3) return;
    const wkt = polygonWKT(drawing);
    polygons = [[drawing.concat([drawing[0]])]];
    drawing = null;
    el.classList.remove('drawing');
    drawBtn.setAttribute('aria-pressed', 'false');
    finishBtn.disabled = true;
    note.textContent = t('map.help');
    announce(t('map.finished'));
    drawShapes();
    onPolygon(wkt);
  }
  function clear() {
    drawing = null;
    polygons = [];
    el.classList.remove('drawing');
    drawBtn.setAttribute('aria-pressed', 'false');
    finishBtn.disabled = true;
    note.textContent = t('map.help');
    drawShapes();
    onPolygon(null);
  }

  drawBtn.addEventListener('click', () => (drawing ? clear() : startDrawing()));
  finishBtn.addEventListener('click', finish);
  clearBtn.addEventListener('click', clear);
  zoomIn.addEventListener('click', () => zoom(2));
  zoomOut.addEventListener('click', () => zoom(0.5));

  let press = null;
  svg.addEventListener('pointerdown', (e) => {
    press = { x: e.clientX, y: e.clientY, cx: view.cx, cy: view.cy, moved: false, id: e.pointerId };
  });
  svg.addEventListener('pointermove', (e) => {
    if (!press || press.id !== e.pointerId) return;
    const dx = e.clientX - press.x;
    const dy = e.clientY - press.y;
    if (!press.moved && Math.hypot(dx, dy) < 5) return;
    if (!press.moved) svg.setPointerCapture(e.pointerId);
    press.moved = true;
    const k = pxPerDegree();
    view.cx = press.cx - dx / k;
    view.cy = press.cy - dy / k;
    apply();
  });
  svg.addEventListener('pointerup', (e) => {
    if (press && !press.moved && drawing) {
      const p = toMap(e.clientX, e.clientY);
      if (p) addCorner(p);
    }
    press = null;
  });
  svg.addEventListener('pointercancel', () => { press = null; });
  svg.addEventListener('dblclick', (e) => { if (drawing) { e.preventDefault(); finish(); } });
  svg.addEventListener('wheel', (e) => {
    e.preventDefault();
    zoom(e.deltaY < 0 ? 1.5 : 1 / 1.5, toMap(e.clientX, e.clientY));
  }, { passive: false });
  svg.addEventListener('keydown', (e) => {
    const step = view.w / 8;
    const keys = {
      ArrowLeft: () => { view.cx -= step; apply(); },
      ArrowRight: () => { view.cx += step; apply(); },
      ArrowUp: () => { view.cy -= step; apply(); },
      ArrowDown: () => { view.cy += step; apply(); },
      '+': () => zoom(2), '=': () => zoom(2), '-': () => zoom(0.5),
      Enter: () => { if (drawing) addCorner([view.cx, -view.cy]); },
      Escape: () => { if (drawing) clear(); },
    };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  const resize = new ResizeObserver(() => { drawPoints(); drawShapes(); });
  resize.observe(svg);

  return {
    el,
    /** setPoints shows records at [lon, lat]. */
    setPoints(p) { points = p; drawPoints(); },
    /** setPolygons shows the search's polygons (from parseWKT). */
    setPolygons(p) { polygons = p || []; drawShapes(); },
    /** focus centres the map on [lon, lat], width degrees wide. */
    focus([lon, lat], width = 40) { view.cx = lon; view.cy = -lat; view.w = width; apply(); },
    dispose() { resize.disconnect(); },
  };
}
