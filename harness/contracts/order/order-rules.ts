/**
 * The order contract's rules, one line each, as docs/contract.md ("The order model's rules") states them
 * word for word (test/contract-rules.test.ts holds the two texts equal). The model (order-model.ts) tags
 * every answer it allows with the rule that gives it, so a witness can say which line of the contract the
 * model applied, and a reader can check the model against the contract line by line.
 */
export const ORDER_RULES = {
  'order.refused':
    'a cart with no lines or more than 32, a sku named twice, or a quantity that is not a whole number from 1 to 1000000: BAD_REQUEST, nothing written, whatever is recorded under the key',
  'order.refused-field':
    'a key, user or sku that is not 1 to 128 of A–Z a–z 0–9 . _ : @ -, or a ttl that is not a whole number of ms from 1 to 86400000: BAD_REQUEST, nothing written (the design may also go on as the rules below say)',
  'order.recorded':
    'a recorded key: REPLAY with its current status when the user and the cart (its lines in any order) are the ones it was recorded with, else KEY_REUSED; nothing written, whatever the stock',
  'order.no-stock': 'an unrecorded key whose cart names a sku with no stock: BAD_REQUEST, nothing written',
  'order.sold-out':
    'an unrecorded key with a line that wants more of its sku than is free (its total less the lines of its HELD orders): SOLD_OUT naming that sku (where several lines are short, any of theirs), nothing written',
  'order.held':
    'otherwise HELD: every line is taken at once, and the key is recorded HELD for this user and cart, expiring ttl after the order ran (on the database clock)',
  'order.gave-up': 'GAVE_UP (a retrying design ran out of attempts) at any time, writing nothing',
  release:
    'release: a HELD key becomes RELEASED and every line’s quantity is free again (true); otherwise false, nothing changed',
  expire:
    'expire: every HELD order whose expiry lies before the call’s database clock becomes EXPIRED and its lines free again, in one step; it answers how many orders and units',
  status: 'status: the key’s status, or NOT_FOUND for a key never recorded',
  remaining:
    'remaining: the sku’s total less the quantities of the lines of its HELD orders; 0 for a sku with no stock',
  lines:
    'lines: the cart the key was recorded with, sorted by sku, whatever its status; none for a key never recorded',
  backdate: 'backdate (a test hook): the orders’ expiry lies in the past',
} as const;

export type OrderRule = keyof typeof ORDER_RULES;
