// DuckDB peer for bench/table.sh: counts the same predicates over one Parquet
// file holding the same records, with 2 threads, and prints one JSON line per
// query: {"name", "count", "ms"} (best of the runs).
//
//   node query.mjs prepare TABLE_DIR OUT.parquet
//   node query.mjs count FILE.parquet QUERIES.json RUNS
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';

const [mode, a, b, runs = '3'] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:', { threads: '2' });
const con = await inst.connect();

if (mode === 'prepare') {
  await con.run(`COPY (SELECT * FROM read_parquet('${a}/data/*/*/*.parquet')) TO '${b}' (FORMAT parquet)`);
  process.exit(0);
}
const queries = JSON.parse(readFileSync(b, 'utf8'));
for (const q of queries) {
  let best = Infinity;
  let count = -1;
  for (let i = 0; i < Number(runs); i++) {
    const t0 = process.hrtime.bigint();
    const reader = await con.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${a}') WHERE ${q.sql}`);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    count = Number(reader.getRows()[0][0]);
    best = Math.min(best, ms);
  }
  console.log(JSON.stringify({ name: q.name, count, ms: best }));
}
