/**
 * How long the linearizability checker takes on synthetic histories that are linearizable by construction
 * (harness/contracts/reservation/history/synthetic-history.ts): a contention-sized one and 10,000 operations, at growing overlap.
 * Prints the median of 5 runs per row, with the model steps the search took. `npm run checker-bench`.
 */
import { checkHistory } from '../harness/contracts/reservation/history/check-history.ts';
import {
  type SyntheticOptions,
  syntheticHistory,
} from '../harness/contracts/reservation/history/synthetic-history.ts';

const ROWS: (SyntheticOptions & { label: string })[] = [
  {
    label: '300 ops, 1 sku, overlap 20',
    operations: 300,
    skus: 1,
    stockPerSku: 40,
    users: 150,
    overlap: 20,
    seed: 1,
  },
  {
    label: '10,000 ops, 1 sku, overlap 2',
    operations: 10_000,
    skus: 1,
    stockPerSku: 50,
    users: 400,
    overlap: 2,
    seed: 2,
  },
  {
    label: '10,000 ops, 1 sku, overlap 8',
    operations: 10_000,
    skus: 1,
    stockPerSku: 50,
    users: 400,
    overlap: 8,
    seed: 3,
  },
  {
    label: '10,000 ops, 8 skus, overlap 8',
    operations: 10_000,
    skus: 8,
    stockPerSku: 50,
    users: 400,
    overlap: 8,
    seed: 4,
  },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

console.log('| history | verdict | model steps | median ms (5 runs) |');
console.log('| --- | --- | --- | --- |');
for (const row of ROWS) {
  const history = syntheticHistory(row);
  const runs = Array.from({ length: 5 }, () => checkHistory(history));
  const last = runs.at(-1);
  console.log(
    `| ${row.label} | ${last?.status} | ${last?.steps} | ${median(runs.map((r) => r.ms)).toFixed(1)} |`,
  );
}
