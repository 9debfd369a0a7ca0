// DuckDB peer for bench/search.sh: answers the search benchmark's requests
// (a page of records with its count, a record by id, facets, a count) over
// one Parquet file holding the same records, 2 threads, one connection,
// requests back to back, and prints one JSON line per scenario:
// {"name", "n", "p50", "p99" (ms per request), "check" (the first
// request's answers: first-column values of each statement, for the script
// to compare with the API's)}.
//
//   node search.mjs FILE.parquet SCENARIOS.json SECONDS
//
// SCENARIOS.json: [{"name": ..., "requests": [[sql, ...], ...]}]; each
// request's statements run one after the other, requests in rotation; the
// file is the view t.
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';

const [file, scenariosFile, seconds = '5'] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await inst.connect();
await con.run(`CREATE VIEW t AS SELECT * FROM read_parquet('${file}')`);

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))];

for (const sc of JSON.parse(readFileSync(scenariosFile, 'utf8'))) {
  const lat = [];
  let check = null;
  const until = Date.now() + Number(seconds) * 1000;
  for (let i = 0; Date.now() < until || lat.length < 3; i++) {
    const req = sc.requests[i % sc.requests.length];
    const t0 = process.hrtime.bigint();
    const answers = [];
    for (const sql of req) {
      const reader = await con.runAndReadAll(sql);
      answers.push(reader.getRows().map((r) => String(r[0])));
    }
    lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (check === null) check = answers;
  }
  lat.sort((a, b) => a - b);
  console.log(JSON.stringify({ name: sc.name, n: lat.length, p50: pct(lat, 0.5), p99: pct(lat, 0.99), check }));
}
