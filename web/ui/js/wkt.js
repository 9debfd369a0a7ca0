// WKT polygons, as the map draws them and as the search sends them
// (geometry=POLYGON((lon lat, ...))). The server checks a polygon fully
// (closed rings, orientation, self-intersection) and says what is wrong;
// this only reads one well enough to draw it.

/** polygonWKT writes a drawn ring (points [lon, lat]) as a closed,
 * counter-clockwise POLYGON, as GBIF requires. */
export function polygonWKT(points) {
  let ring = points.map(([x, y]) => [round(x), round(y)]);
  if (signedArea(ring) < 0) ring = ring.reverse();
  ring.push(ring[0]);
  return `POLYGON((${ring.map(([x, y]) => `${x} ${y}`).join(', ')}))`;
}

function round(v) { return Math.round(v * 10000) / 10000; }

/** signedArea is positive for a counter-clockwise ring. */
export function signedArea(ring) {
  let a = 0;
  for (let i = 0; i < ring.length; i += 1) {
    const [x1, y1] = ring[i];
    const [x2, y2] = ring[(i + 1) % ring.length];
    a += x1 * y2 - x2 * y1;
  }
  return a / 2;
}

/** parseWKT reads POLYGON and MULTIPOLYGON text into polygons (arrays of
 * rings of [lon, lat]); null when it is neither. */
export function parseWKT(text) {
  const s = (text || '').trim();
  const m = /^(MULTIPOLYGON|POLYGON)\s*\((.*)\)$/is.exec(s);
  if (!m) return null;
  const body = m[2].trim();
  const polys = m[1].toUpperCase() === 'POLYGON' ? [body] : splitTop(body);
  const out = [];
  for (const p of polys) {
    const inner = p.trim().replace(/^\(/, '').replace(/\)$/, '');
    const rings = splitTop(m[1].toUpperCase() === 'POLYGON' ? body : inner);
    const parsed = [];
    for (const r of rings) {
      const pts = r.replace(/[()]/g, '').split(',').map((pair) => pair.trim().split(/\s+/).map(Number));
      if (pts.some((xy) => xy.length !== 2 || xy.some((v) => !Number.isFinite(v)))) return null;
      parsed.push(pts);
    }
    out.push(parsed);
  }
  return out;
}

/** splitTop splits "(a),(b)" at the commas outside parentheses. */
function splitTop(s) {
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i += 1) {
    if (s[i] === '(') depth += 1;
    else if (s[i] === ')') depth -= 1;
    else if (s[i] === ',' && depth === 0) { parts.push(s.slice(start, i)); start = i + 1; }
  }
  parts.push(s.slice(start));
  return parts.map((p) => p.trim()).filter(Boolean);
}
