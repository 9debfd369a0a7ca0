// End-to-end test of the portal page in a real browser: Debian's chromium
// driven by playwright-core, accessibility checked by axe-core. Run by
// web/page_e2e_test.go against a `downloader serve` it starts (the
// faultinject build, whose exports are throttled so that they last).
//
// Environment: BASE_URL (http://127.0.0.1:PORT), E2E_USER, E2E_PASSWORD,
// E2E_MAX_RUNNING (the server's --max-running), SCREENSHOTS (a directory to
// write the main states' PNGs to; optional), CHROMIUM (default
// /usr/bin/chromium).
//
// Each check prints "ok - name" or "not ok - name: why"; the script exits
// non-zero when any failed. The last line is "N passed, N failed".
import { mkdtempSync, rmSync, readFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);
const BASE = process.env.BASE_URL;
const USER = process.env.E2E_USER;
const PASSWORD = process.env.E2E_PASSWORD;
const MAX_RUNNING = Number(process.env.E2E_MAX_RUNNING || 3);
const SHOTS = process.env.SCREENSHOTS || '';
// E2E_CONTACT=1: the server mails (an SMTP server on loopback), so the
// contact form is there and a message is sent through it.
const CONTACT = process.env.E2E_CONTACT === '1';
const TOKEN = `e2e-${Date.now().toString(36)}`;
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
if (!BASE || !USER || !PASSWORD) {
  console.error('BASE_URL, E2E_USER and E2E_PASSWORD are needed');
  process.exit(2);
}

let passed = 0;
let failed = 0;
async function check(name, fn) {
  const start = Date.now();
  try {
    await fn();
    passed += 1;
    console.log(`ok - ${name} (${Date.now() - start} ms)`);
  } catch (e) {
    failed += 1;
    console.log(`not ok - ${name}: ${e && e.stack ? e.stack.split('\n').slice(0, 3).join(' | ') : e}`);
  }
}
function assert(cond, msg) { if (!cond) throw new Error(msg); }

/** api asks the service directly (not through the browser). */
async function api(path, opts = {}) {
  const res = await fetch(BASE + path, opts);
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res;
}
async function countOf(query) {
  const r = await (await api(`/v1/occurrence/search?limit=0&${query}`)).json();
  return r.count;
}

/** axeCheck runs axe-core in the page; serious and critical violations fail. */
async function axeCheck(page, where) {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert(bad.length === 0, `${where}: axe found ${JSON.stringify(bad)}`);
  return violations;
}

async function shot(page, name) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** zipEntries lists a zip's entries: name -> inflated bytes. */
function zipEntries(buf) {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65557); i -= 1) {
    if (buf.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  }
  assert(eocd >= 0, 'no end of central directory');
  let count = buf.readUInt16LE(eocd + 10);
  let off = buf.readUInt32LE(eocd + 16);
  if (off === 0xffffffff || count === 0xffff) {
    const loc = buf.readUInt32LE(eocd - 20) === 0x07064b50 ? Number(buf.readBigUInt64LE(eocd - 12)) : -1;
    assert(loc >= 0, 'zip64 without its locator');
    count = Number(buf.readBigUInt64LE(loc + 32));
    off = Number(buf.readBigUInt64LE(loc + 48));
  }
  const out = new Map();
  for (let n = 0; n < count; n += 1) {
    assert(buf.readUInt32LE(off) === 0x02014b50, 'bad central directory entry');
    const method = buf.readUInt16LE(off + 10);
    let csize = buf.readUInt32LE(off + 20);
    const nameLen = buf.readUInt16LE(off + 28);
    const extraLen = buf.readUInt16LE(off + 30);
    const commentLen = buf.readUInt16LE(off + 32);
    let local = buf.readUInt32LE(off + 42);
    const name = buf.toString('utf8', off + 46, off + 46 + nameLen);
    // zip64 extra field: the sizes and offset that are 0xffffffff above.
    let e = off + 46 + nameLen;
    const end = e + extraLen;
    while (e + 4 <= end) {
      const id = buf.readUInt16LE(e);
      const len = buf.readUInt16LE(e + 2);
      if (id === 1) {
        let p = e + 4;
        if (buf.readUInt32LE(off + 24) === 0xffffffff) p += 8;
        if (csize === 0xffffffff) { csize = Number(buf.readBigUInt64LE(p)); p += 8; }
        if (local === 0xffffffff) local = Number(buf.readBigUInt64LE(p));
      }
      e += 4 + len;
    }
    const dataStart = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(dataStart, dataStart + csize);
    out.set(name, method === 8 ? inflateRawSync(raw) : raw);
    off += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** lonLatToPage is where a longitude/latitude is on the map's SVG (the
 * map shows the whole world until it is moved). */
async function lonLatToPage(page, lon, lat) {
  const box = await page.locator('.map svg').first().boundingBox();
  // The world is 360 x 180 degrees, centred in the box (preserveAspectRatio meet).
  const scale = Math.min(box.width / 360, box.height / 180);
  const x0 = box.x + (box.width - 360 * scale) / 2;
  const y0 = box.y + (box.height - 180 * scale) / 2;
  return { x: x0 + (lon + 180) * scale, y: y0 + (90 - lat) * scale };
}

async function waitCount(page) {
  await page.waitForFunction(() => {
    const el = document.querySelector('#match-count');
    return el && !el.classList.contains('busy') && /\d/.test(el.textContent);
  }, null, { timeout: 20000 });
  return Number((await page.textContent('#match-count')).replace(/\D/g, ''));
}

async function waitStatus(page, words, timeout = 60000) {
  await page.waitForFunction((w) => {
    const el = document.querySelector('#download-status');
    return el && w.includes(el.textContent);
  }, words, { timeout });
}

const profile = mkdtempSync(join(tmpdir(), 'downloader-e2e-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: { width: 1280, height: 900 },
  locale: 'en-GB',
  acceptDownloads: true,
});
const requests = [];
context.on('request', (r) => requests.push(r.url()));
const consoleErrors = [];
const page = context.pages()[0] || await context.newPage();
page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
page.on('pageerror', (e) => consoleErrors.push(String(e)));
page.setDefaultTimeout(20000);

const NAME = 'Agrostis pourretii Willd.';
let downloadKey = '';

try {
  await check('home shows the totals and the unfiltered count', async () => {
    await page.goto(`${BASE}/`);
    const n = await waitCount(page);
    const total = Number(await (await api('/v1/occurrence/count')).text());
    assert(n === total, `count ${n}, table has ${total}`);
    await page.waitForFunction(() => [...document.querySelectorAll('.stat-value')].every((e) => /\d/.test(e.textContent)));
    const stats = await page.$$eval('.stat-value', (els) => els.map((e) => Number(e.textContent.replace(/\D/g, ''))));
    const datasets = await (await api('/ui/api/datasets')).json();
    assert(stats[0] === total && stats[2] === datasets.length, `stats ${stats}, want ${total} records, ${datasets.length} datasets`);
    await axeCheck(page, 'home');
    await shot(page, 'home');
  });

  await check('search by name with a suggestion: count, size, words and preview', async () => {
    const want = await countOf(`scientificName=${encodeURIComponent(NAME)}`);
    assert(want > 0, 'the test name matches nothing');
    const input = page.getByRole('combobox', { name: 'Scientific name' });
    await input.click();
    await input.pressSequentially('Agrostis pou', { delay: 40 });
    const option = page.getByRole('option', { name: NAME });
    await option.waitFor();
    await input.press('ArrowDown');
    await input.press('Enter');
    assert(await input.inputValue() === NAME, `picked ${await input.inputValue()}`);
    await page.waitForFunction((w) => document.querySelector('#match-count').textContent.replace(/\D/g, '') === String(w), want);
    await page.waitForFunction(() => /\d/.test(document.querySelector('#match-size').textContent));
    const words = await page.textContent('#match-words');
    assert(words.includes(NAME), `words: ${words}`);
    const names = await page.$$eval('#preview tbody tr td:nth-child(2)', (tds) => tds.map((td) => td.textContent));
    assert(names.length === Math.min(20, want) && names.every((x) => x === NAME), `preview names ${names}`);
    assert(new URL(page.url()).searchParams.get('scientificName') === NAME, `address ${page.url()}`);
    await shot(page, 'search');
  });

  await check('names from the taxonomy: a suggested species searches by its taxon key', async () => {
    // the test loads GBIF's backbone cut into the demo table's taxonomy;
    // "Agrostis pou" above matched none of its names and fell back to the
    // table's names
    await page.goto(`${BASE}/`);
    await waitCount(page);
    const input = page.getByRole('combobox', { name: 'Scientific name' });
    await input.click();
    await input.pressSequentially('Puma conc', { delay: 40 });
    const option = page.getByRole('option', { name: /^Puma concolor \(Linnaeus, 1771\)/ });
    await option.waitFor();
    await input.press('ArrowDown');
    await input.press('Enter');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('taxonKey') === '2435099');
    assert(await input.inputValue() === '', `the name field kept ${await input.inputValue()}`);
    const want = await countOf('taxonKey=2435099');
    assert(await waitCount(page) === want, `count ${await page.textContent('#match-count')}, table ${want}`);
    const words = await page.textContent('#match-words');
    assert(words.includes('2435099'), `words: ${words}`);
  });

  await check('a collector from the suggest route: picked, searched, counted', async () => {
    // the table's most frequent collector, typed in lower case by its
    // first three letters: the suggestion (GBIF's /occurrence/search/recordedBy)
    // holds it, and picking it searches by it
    const facet = await (await api('/v1/occurrence/search?limit=0&facet=recordedBy&facetLimit=1')).json();
    const who = facet.facets[0].counts[0].name;
    const want = await countOf(`recordedBy=${encodeURIComponent(who)}`);
    assert(want > 0, `collector ${who} matches nothing`);
    await page.goto(`${BASE}/`);
    await waitCount(page);
    const input = page.getByRole('combobox', { name: 'Collector' });
    await input.click();
    await input.pressSequentially(who.slice(0, 3).toLowerCase(), { delay: 40 });
    await page.getByRole('option', { name: who, exact: true }).waitFor();
    const offered = await page.$$eval('[role=listbox][aria-label="Collectors"] [role=option]', (els) => els.map((e) => e.textContent));
    const direct = await (await api(`/v1/occurrence/search/recordedBy?q=${encodeURIComponent(who.slice(0, 3).toLowerCase())}&limit=10`)).json();
    assert(JSON.stringify(offered) === JSON.stringify(direct), `offered ${offered}, the route answers ${direct}`);
    await page.getByRole('option', { name: who, exact: true }).click();
    assert(await input.inputValue() === who, `picked ${await input.inputValue()}`);
    await page.waitForFunction(() => new URL(location.href).searchParams.has('recordedBy'));
    assert(new URL(page.url()).searchParams.get('recordedBy') === who, `address ${page.url()}`);
    assert(await waitCount(page) === want, `count ${await page.textContent('#match-count')}, table ${want}`);
    const words = await page.textContent('#match-words');
    assert(words.includes(who), `words: ${words}`);
  });

  await check('a newer search cancels an older one still waiting, whose answer never shows', async () => {
    await page.goto(`${BASE}/`);
    await waitCount(page);
    // Hold back the answers of year=1999 so that the next search starts
    // while they are on the way.
    await page.route(/year=1999/, async (route) => {
      await new Promise((r) => { setTimeout(r, 2000); });
      try { await route.continue(); } catch { /* the page cancelled it */ }
    });
    const aborted = [];
    const onFail = (r) => { if (/year=1999/.test(r.url()) && r.failure()) aborted.push(r.failure().errorText); };
    page.on('requestfailed', onFail);
    await page.getByLabel('From', { exact: true }).fill('1999');
    await page.getByLabel('To', { exact: true }).fill('1999');
    await page.waitForTimeout(600); // past the debounce: year=1999 is asked
    await page.getByLabel('From', { exact: true }).fill('2000');
    await page.getByLabel('To', { exact: true }).fill('2000');
    const want = await countOf('year=2000');
    await page.waitForFunction((w) => document.querySelector('#match-count').textContent.replace(/\D/g, '') === String(w), want);
    await page.waitForTimeout(2500); // the held answers would have come by now
    const shown = Number((await page.textContent('#match-count')).replace(/\D/g, ''));
    page.off('requestfailed', onFail);
    await page.unroute(/year=1999/);
    assert(aborted.length > 0, 'no request of the older search was cancelled');
    assert(shown === want, `shows ${shown}, the newer search counts ${want}`);
  });

  await check('draw a polygon on the map: the count follows it', async () => {
    await page.goto(`${BASE}/`);
    await waitCount(page);
    await page.getByRole('button', { name: 'Draw an area' }).click();
    // Around Turkey: 26..45 E, 35..43 N, counter-clockwise or not (the page orients it).
    for (const [lon, lat] of [[25, 34], [46, 34], [46, 43], [25, 43]]) {
      const p = await lonLatToPage(page, lon, lat);
      await page.mouse.click(p.x, p.y);
    }
    await page.getByRole('button', { name: 'Finish the area' }).click();
    const wkt = await page.getByLabel('Area (WKT polygon)').inputValue();
    assert(/^POLYGON\(\(/.test(wkt), `WKT ${wkt}`);
    const want = await countOf(`geometry=${encodeURIComponent(wkt)}`);
    assert(want > 0, `the polygon ${wkt} holds no record`);
    await page.waitForFunction((w) => document.querySelector('#match-count').textContent.replace(/\D/g, '') === String(w), want);
    const points = await page.locator('.map .points circle').count();
    assert(points > 0, 'no point on the map');
    assert((await page.textContent('#match-words')).includes('drawn area'), 'words do not name the area');
    await shot(page, 'polygon');
  });

  await check('an invalid polygon is explained in words', async () => {
    const area = page.getByLabel('Area (WKT polygon)');
    await area.fill('POLYGON((30 36, 36 36, 36 40))');
    await page.waitForSelector('.results .error');
    const text = await page.textContent('.results .error');
    assert(/not a valid polygon/.test(text), `error: ${text}`);
  });

  await check('a wrong password is refused in words, then sign-in works and comes back', async () => {
    await page.goto(`${BASE}/?country=TR`);
    await waitCount(page);
    await page.click('#download-signin');
    await page.waitForURL(/\/user\/signin/);
    await axeCheck(page, 'sign-in');
    await page.getByLabel('User name').fill(USER);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForSelector('#signin-error .error');
    assert(/wrong/.test(await page.textContent('#signin-error')), 'no wrong-password message');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => u.pathname === '/' && u.searchParams.get('country') === 'TR');
    await page.waitForSelector('#download-button');
    const account = await page.textContent('#account');
    assert(account.includes(USER), `account ${account}`);
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'session');
    assert(session && session.httpOnly && session.sameSite === 'Lax', `session cookie ${JSON.stringify(session)}`);
  });

  await check('a search by words: the count and words of q, first the records with both words, and no Download', async () => {
    const q = 'Agrostis Willd.';
    const want = await countOf(`country=TR&q=${encodeURIComponent(q)}`);
    const both = await (await api(`/v1/occurrence/search?country=TR&q=${encodeURIComponent(q)}&limit=1`)).json();
    assert(want > 0 && both.results.length === 1, `q=${q} matches ${want} records`);
    const field = page.getByLabel('Words', { exact: true });
    await field.fill(q);
    await page.waitForFunction((w) => document.querySelector('#match-count').textContent.replace(/\D/g, '') === String(w), want);
    assert((await page.textContent('#match-words')).includes(q), `words: ${await page.textContent('#match-words')}`);
    assert(new URL(page.url()).searchParams.get('q') === q, `address ${page.url()}`);
    const first = await page.textContent('#preview tbody tr td:first-child');
    assert(first.trim() === String(both.results[0].gbifID || both.results[0].key), `first row ${first}, the API's ${both.results[0].key}`);
    await page.waitForSelector('#download-fulltext', { state: 'visible' });
    assert(await page.isDisabled('#download-button'), 'Download is on for a search by words');
    await page.waitForFunction(() => document.querySelector('#match-size').textContent === '');
    await shot(page, 'words');
    await field.fill('');
    await page.waitForSelector('#download-fulltext', { state: 'hidden' });
    assert(!(await page.isDisabled('#download-button')), 'Download stays off once the words are gone');
    await waitCount(page);
  });

  await check('download as DWCA: progress reaches 100% and the zip holds the count', async () => {
    const want = await waitCount(page);
    await page.getByLabel('Format').selectOption('DWCA');
    const hintId = await page.getByLabel('Format').getAttribute('aria-describedby');
    const hint = await page.textContent(`#${hintId}`);
    assert(/occurrence\.txt/.test(hint) && /UTF-8/.test(hint) && /no text qualifier/.test(hint), `the format's hint says how to open it: ${hint}`);
    await page.click('#download-button');
    await page.waitForURL(/\/occurrence\/download\//);
    downloadKey = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
    const seen = new Set();
    const start = Date.now();
    let shotRunning = false;
    for (;;) {
      const st = await page.textContent('#download-status').catch(() => '');
      const now = Number(await page.getAttribute('#progress', 'aria-valuenow').catch(() => '0'));
      seen.add(`${st}:${now}`);
      if (st === 'Running' && now > 0 && !shotRunning) { shotRunning = true; await shot(page, 'progress'); }
      if (st === 'Ready') break;
      assert(!['Failed', 'Cancelled', 'Stopped'].includes(st), `status ${st}`);
      assert(Date.now() - start < 120000, `not ready after 2 min: ${[...seen]}`);
      await page.waitForTimeout(250);
    }
    assert([...seen].some((s) => s.startsWith('Running') || s.startsWith('Waiting')), `never seen running: ${[...seen]}`);
    assert(await page.getAttribute('#progress', 'aria-valuenow') === '100', 'progress not at 100');
    await page.waitForFunction(() => document.querySelector('#citation') && !document.querySelector('#citation').textContent.startsWith('…'));
    const rows = await page.locator('#download-datasets tbody tr').count();
    assert(rows >= 1, 'no dataset on the landing page');
    const href = await page.getAttribute('#download-link', 'href');
    const zip = Buffer.from(await (await fetch(href)).arrayBuffer());
    const entries = zipEntries(zip);
    const occ = entries.get('occurrence.txt');
    assert(occ, `entries ${[...entries.keys()]}`);
    const lines = occ.toString('utf8').split('\n').filter((l) => l.length > 0).length - 1;
    assert(lines === want, `occurrence.txt has ${lines} records, the search counted ${want}`);
    const open = await page.textContent('#open-hint');
    assert(/Tab as the separator/.test(open), `the download page says how to open the archive: ${open}`);
    await axeCheck(page, 'download page');
    await shot(page, 'download');
  });

  await check('download as SIMPLE_AVRO: the hint names Avro readers (and SIMPLE_WITH_VERBATIM_AVRO\'s its entry, FASTA_ARCHIVE\'s its sequence files), the link is KEY.avro and the file an Avro container', async () => {
    await page.goto(`${BASE}/?country=TR`);
    await waitCount(page);
    // SIMPLE_WITH_VERBATIM_AVRO's fields are GBIF's: no columns to choose.
    await page.getByLabel('Format', { exact: true }).selectOption('SIMPLE_WITH_VERBATIM_AVRO');
    const vHint = await page.textContent(`#${await page.getByLabel('Format', { exact: true }).getAttribute('aria-describedby')}`);
    assert(/occurrence\.avro\/000000/.test(vHint) && /v_/.test(vHint), `SIMPLE_WITH_VERBATIM_AVRO's hint: ${vHint}`);
    assert(!(await page.locator('details.field').isVisible()), 'SIMPLE_WITH_VERBATIM_AVRO offers a choice of columns');
    // FASTA_ARCHIVE: its hint names the sequence files and a reader, no columns to choose.
    await page.getByLabel('Format', { exact: true }).selectOption('FASTA_ARCHIVE');
    const fHint = await page.textContent(`#${await page.getByLabel('Format', { exact: true }).getAttribute('aria-describedby')}`);
    assert(/sequences\.fasta/.test(fHint) && /Biopython/.test(fHint), `FASTA_ARCHIVE's hint: ${fHint}`);
    assert(!(await page.locator('details.field').isVisible()), 'FASTA_ARCHIVE offers a choice of columns');
    // Exact: the columns offered for SIMPLE_AVRO include informationWithheld.
    await page.getByLabel('Format', { exact: true }).selectOption('SIMPLE_AVRO');
    const hintId = await page.getByLabel('Format', { exact: true }).getAttribute('aria-describedby');
    const hint = await page.textContent(`#${hintId}`);
    assert(/Avro/.test(hint) && /fastavro/.test(hint), `the format's hint says how to open it: ${hint}`);
    await page.click('#download-button');
    await page.waitForURL(/\/occurrence\/download\//);
    const key = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
    await waitStatus(page, ['Ready'], 120000);
    const href = await page.getAttribute('#download-link', 'href');
    assert(href.endsWith(`/v1/occurrence/download/request/${key}.avro`), `link ${href}`);
    const res = await fetch(href);
    const file = Buffer.from(await res.arrayBuffer());
    assert(file.subarray(0, 4).toString('latin1') === 'Obj\x01', `the file starts ${JSON.stringify(file.subarray(0, 4).toString('latin1'))}`);
    assert(/filename="[^"]+\.avro"/.test(res.headers.get('content-disposition') || ''), `served as ${res.headers.get('content-disposition')}`);
    const open = await page.textContent('#open-hint');
    assert(/fastavro/.test(open), `the download page says how to open the file: ${open}`);
  });

  await check('a SQL download made through the API: its page shows the query, progress and the result', async () => {
    const sql = 'SELECT countryCode, COUNT(*) AS n FROM occurrence GROUP BY countryCode';
    const auth = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
    const res = await api('/v1/occurrence/download/request', {
      method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: auth },
      body: JSON.stringify({ format: 'SQL_TSV_ZIP', sql, sendNotification: false }),
    });
    const key = (await res.text()).trim();
    await page.goto(`${BASE}/occurrence/download/${encodeURIComponent(key)}`);
    const start = Date.now();
    for (;;) {
      const st = await page.textContent('#download-status').catch(() => '');
      if (st === 'Ready') break;
      assert(!['Failed', 'Cancelled', 'Stopped'].includes(st), `status ${st}`);
      assert(Date.now() - start < 120000, 'the SQL download is not ready after 2 min');
      await page.waitForTimeout(250);
    }
    assert(await page.getAttribute('#progress', 'aria-valuenow') === '100', 'progress not at 100');
    const body = await page.textContent('main');
    assert(body.includes(sql), 'the page does not show the query');
    assert(body.includes('SQL query result'), 'the page does not name the format in words');
    const zip = Buffer.from(await (await fetch(await page.getAttribute('#download-link', 'href'))).arrayBuffer());
    const csv = zipEntries(zip).get(`${key}.csv`);
    assert(csv && csv.toString('utf8').startsWith('countrycode\tn\n'), `entries ${[...zipEntries(zip).keys()]}`);
    await axeCheck(page, 'SQL download page');
  });

  await check('cancel a running download', async () => {
    await page.goto(`${BASE}/?year=1999`);
    await waitCount(page);
    await page.click('#download-button');
    await page.waitForURL(/\/occurrence\/download\//);
    await page.click('#cancel-button');
    await waitStatus(page, ['Cancelled']);
    assert(await page.locator('#download-link').count() === 0, 'a cancelled download offers a file');
  });

  await check(`the limit message on download ${MAX_RUNNING + 1}`, async () => {
    // Large enough to be running when the next is asked for (the server's
    // exports are throttled), and each new (an identical request would be
    // deduplicated).
    const queries = ['basisOfRecord=PRESERVED_SPECIMEN', 'year=1999,2000', 'hasCoordinate=true', 'country=TR&year=1999',
      'basisOfRecord=PRESERVED_SPECIMEN&year=1999'];
    for (let i = 0; i < MAX_RUNNING; i += 1) {
      await page.goto(`${BASE}/?${queries[i]}`);
      await waitCount(page);
      await page.click('#download-button');
      await page.waitForURL(/\/occurrence\/download\//);
    }
    await page.goto(`${BASE}/?${queries[MAX_RUNNING]}`);
    await waitCount(page);
    await page.click('#download-button');
    await page.waitForSelector('#download-error');
    const text = await page.textContent('#download-error');
    assert(text.includes(`already have ${MAX_RUNNING} downloads running`), `message: ${text}`);
    await axeCheck(page, 'limit message');
    await shot(page, 'limit');
  });

  await check('my downloads: statuses, cancel, postpone and run again', async () => {
    await page.goto(`${BASE}/user/downloads`);
    await page.waitForSelector('#my-downloads tbody tr td a');
    await shot(page, 'my-downloads');
    await axeCheck(page, 'my downloads');
    // Cancel the running ones so that the next download can run.
    for (let i = 0; i < MAX_RUNNING + 1; i += 1) {
      const cancel = page.getByRole('button', { name: 'Cancel' }).first();
      if (await cancel.count() === 0) break;
      await cancel.click();
      await page.waitForSelector('.ok');
    }
    await page.waitForFunction(() => ![...document.querySelectorAll('#my-downloads .status')].some((s) => /Running|Waiting|Paused/.test(s.textContent)), null, { timeout: 30000 });
    const eraseAfter = async () => (await (await page.request.get(`${BASE}/ui/api/downloads/${downloadKey}`)).json()).eraseAfter;
    const before = await eraseAfter();
    const row = page.locator('#my-downloads tbody tr', { hasText: downloadKey });
    await row.getByRole('button', { name: 'Keep longer' }).click();
    // Made today, the download is kept as long as a request today would
    // make it: the page says so instead of claiming a change.
    await page.waitForFunction(() => /already kept until|now be kept until/.test(document.querySelector('.ok')?.textContent || ''));
    const after = await eraseAfter();
    const said = await page.textContent('.ok');
    assert(Date.parse(after) > Date.parse(before) ? /now be kept/.test(said) : /already kept/.test(said),
      `erasure ${before} -> ${after}, the page said: ${said}`);
    await page.locator('#my-downloads tbody tr', { hasText: downloadKey }).getByRole('button', { name: 'Run again' }).click();
    await page.waitForSelector('.ok');
    assert(/Running again as \d{7}-\d{15}/.test(await page.textContent('.ok')), 'no new key');
  });

  await check('a record page shows the interpreted and the verbatim record and the contact form', async () => {
    await page.goto(`${BASE}/?scientificName=${encodeURIComponent(NAME)}`);
    await waitCount(page);
    await page.locator('#preview tbody tr td a').first().click();
    await page.waitForURL(/\/occurrence\/\d+$/);
    await page.waitForSelector('#interpreted tbody tr');
    await page.waitForSelector('#verbatim tbody tr');
    assert(await page.locator('#interpreted tbody tr').count() > 10, 'few interpreted fields');
    assert(await page.locator('#verbatim th[title*="rs.tdwg.org"]').count() > 5, 'few verbatim terms');
    assert((await page.textContent('h1')).includes(NAME), 'heading without the name');
    if (!CONTACT) {
      await page.waitForFunction(() => /does not pass on messages/.test(document.querySelector('#contact').textContent));
      await axeCheck(page, 'record page');
      await shot(page, 'record');
      return;
    }
    await page.waitForSelector('#contact form');
    assert((await page.textContent('#contact')).includes('copy to you'), 'contact form does not say the copy goes to the sender');
    await axeCheck(page, 'record page');
    await shot(page, 'record');
    await page.getByLabel('Subject').fill(`Locality of this record ${TOKEN}`);
    await page.getByLabel('Message').fill('The coordinates put this record in the sea.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForSelector('#contact-message .ok');
    assert((await page.textContent('#contact-message')).includes('A copy goes to'), 'no confirmation');
    console.log(`contact-subject: Locality of this record ${TOKEN}`);
  });

  await check('an expired session is said in words', async () => {
    await page.goto(`${BASE}/?country=TR`);
    await waitCount(page);
    await context.clearCookies();
    await page.click('#download-button');
    await page.waitForSelector('#download-error');
    const text = await page.textContent('#download-error');
    assert(/session has expired/.test(text), `message: ${text}`);
  });

  await check('address criteria the form has no field for stay in the search, shown and removable', async () => {
    const both = 'basisOfRecord=PRESERVED_SPECIMEN&basisOfRecord=HUMAN_OBSERVATION';
    const want = await countOf(`${both}&month=6`);
    const wantBoth = await countOf(both);
    assert(want > 0 && wantBoth > want, `counts ${want} and ${wantBoth}: the demo table does not tell them apart`);
    await page.goto(`${BASE}/?${both}&month=6`);
    const n = await waitCount(page);
    assert(n === want, `count ${n}, want ${want}`);
    const chips = await page.$$eval('#search-extras li code', (els) => els.map((e) => e.textContent));
    assert(chips.join(' ') === 'basisOfRecord=PRESERVED_SPECIMEN basisOfRecord=HUMAN_OBSERVATION month=6', `criteria ${chips}`);
    const words = await page.textContent('#match-words');
    assert(words.includes('month is 6') && words.includes('basisOfRecord is any of PRESERVED_SPECIMEN, HUMAN_OBSERVATION'), `words: ${words}`);
    const addr = new URL(page.url()).searchParams;
    assert(addr.getAll('basisOfRecord').length === 2 && addr.get('month') === '6', `address ${page.url()}`);
    await page.getByRole('button', { name: 'Remove the criterion month=6' }).click();
    await page.waitForFunction((w) => document.querySelector('#match-count').textContent.replace(/\D/g, '') === String(w), wantBoth);
    assert(new URL(page.url()).searchParams.get('month') === null, `address after removing month: ${page.url()}`);
    await axeCheck(page, 'extras');
  });

  await check('phone width: no sideways scrolling, the search works', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${BASE}/?country=TR`);
    const n = await waitCount(page);
    assert(n === await countOf('country=TR'), `count ${n}`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert(overflow <= 1, `the page is ${overflow}px wider than the phone`);
    await axeCheck(page, 'phone');
    await shot(page, 'phone');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  await check('the language switch shows the page in French', async () => {
    await page.goto(`${BASE}/`);
    await waitCount(page);
    await page.selectOption('#lang-select', 'fr');
    await page.waitForFunction(() => document.documentElement.lang === 'fr' && document.querySelector('h1'));
    const h1 = await page.textContent('h1');
    assert(h1 === "Rechercher des enregistrements d'occurrences", `h1 ${h1}`);
    await waitCount(page);
    await context.clearCookies();
  });

  await check('no request left 127.0.0.1, and the page logged no error', async () => {
    const outside = requests.filter((u) => {
      if (u.startsWith('data:') || u.startsWith('blob:')) return false;
      const host = new URL(u).hostname;
      return host !== '127.0.0.1';
    });
    assert(requests.length > 50, `only ${requests.length} requests logged`);
    assert(outside.length === 0, `requests elsewhere: ${outside.slice(0, 5)}`);
    const real = consoleErrors.filter((e) => !/status of (401|404|420|400)/.test(e));
    assert(real.length === 0, `console errors: ${real.slice(0, 5)}`);
  });
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
