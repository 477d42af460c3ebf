/**
 * confirm-off-the-books — NEGATIVE CONTROL (expect: violate). frozen-ledger whose confirm (the payment
 * callback) marks the order CONFIRMED and clears its stock_frozen flag, but leaves moving the unit from
 * `frozen` to `sold` to a settlement job that never runs: the stock account and its ledger are not
 * touched.
 *
 * What it gets wrong: the books say the unit is still frozen and nothing was sold, while the client was
 * told the confirm went through. They still add up (available + frozen + sold = total), the ledger still
 * replays to the counters, `remaining` (available) and every status are right, so drift, the audit, the
 * books' own checks and the history all hold: only the books held against the answers the harness
 * recorded show it.
 *
 * How the suite catches it every run: `lifecycle-matrix` confirms holds on both skus; the books' sold
 * stays 0 where confirms answered true (`booksMatchAnswers`).
 */
import type { Strategy } from '../contract.ts';
import frozenLedger from '../frozen-ledger.ts';

const SQL = {
  confirmOrderOnly: `UPDATE reservation SET status = 'CONFIRMED', stock_frozen = false, updated_at = now()
                      WHERE request_key = $1 AND status = 'HELD' AND stock_frozen`,
} as const;

const confirmOffTheBooks: Strategy = {
  ...frozenLedger,
  id: 'confirm-off-the-books',
  title: 'Frozen ledger whose confirm moves the order but not the books',
  guarantee:
    'none: a confirm leaves its unit frozen and never books it sold (the books disagree with the answers)',
  expect: 'violate',
  caughtBy: { 'lifecycle-matrix': ['booksMatchAnswers'] },
  notApplicable: 'negative control: lifecycle-matrix is the case that must catch it',
  confirm: async (ctx, requestKey) => (await ctx.db.query(SQL.confirmOrderOnly, [requestKey])).rowCount === 1,
};

export default confirmOffTheBooks;
