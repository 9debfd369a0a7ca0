// Writes web/ui/vendor/world.json, the page map's world outline: Natural
// Earth's 1:110m land polygons and country borders (public domain), from
// world-atlas's TopoJSON, decoded with topojson-client and rounded to
// 0.01 degree. Run by scripts/web/vendor.sh; the output is committed.
import { readFileSync, writeFileSync } from 'node:fs';
import { feature, mesh } from 'topojson-client';

const here = new URL('.', import.meta.url);
const read = (name) => JSON.parse(readFileSync(new URL(`node_modules/world-atlas/${name}`, here)));
const round = (v) => Math.round(v * 100) / 100;
const line = (coords) => {
  const out = [];
  for (const [x, y] of coords) {
    const p = [round(x), round(y)];
    const last = out[out.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) out.push(p);
  }
  return out;
};

// unwrap makes a line continuous across the antimeridian (179 then -179
// becomes 179 then 181); a line that then reaches past 180 also gets a
// copy shifted by -360, so that each half shows on a map of -180..180.
const unwrap = (coords) => {
  const out = [coords[0]];
  for (let i = 1; i < coords.length; i += 1) {
    let [x, y] = coords[i];
    const px = out[i - 1][0];
    while (x - px > 180) x -= 360;
    while (px - x > 180) x += 360;
    out.push([x, y]);
  }
  const xs = out.map((p) => p[0]);
  if (Math.max(...xs) > 180) return [out, out.map(([x, y]) => [x - 360, y])];
  if (Math.min(...xs) < -180) return [out, out.map(([x, y]) => [x + 360, y])];
  return [out];
};

const land = read('land-110m.json');
const countries = read('countries-110m.json');
const rings = [];
for (const f of feature(land, land.objects.land).features) {
  const g = f.geometry;
  const polys = g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
  for (const poly of polys) for (const ring of poly) for (const r of unwrap(ring)) rings.push(line(r));
}
const borders = mesh(countries, countries.objects.countries, (a, b) => a !== b).coordinates.flatMap(unwrap).map(line);
const out = {
  source: 'Natural Earth 1:110m land and admin-0 boundaries (public domain), via world-atlas 2.0.2',
  land: rings.filter((r) => r.length >= 4),
  borders: borders.filter((l) => l.length >= 2),
};
const dest = new URL('../../web/ui/vendor/world.json', here);
writeFileSync(dest, JSON.stringify(out) + '\n');
console.log(`wrote ${dest.pathname}: ${out.land.length} rings, ${out.borders.length} border lines`);
