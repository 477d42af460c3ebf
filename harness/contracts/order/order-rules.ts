/**
 * The order contract's rules, one per answer the sequential model gives (order-model.ts tags each of its
 * answers with the rule that allows it). docs/contract.md's "Orders" table states every text word for
 * word (test/order-model.test.ts holds the two together), so an answer the checker allows or refuses can
 * always be traced to a sentence a user can read.
 */
export const ORDER_RULES = {
  'order-refused':
    'An order the contract refuses — no lines or more than 32, a sku named twice, a quantity that is not a whole number from 1 to 1000000, a key, user or sku that is not 1 to 128 of the characters A–Z a–z 0–9 . _ : @ -, a TTL that is not a whole number of ms from 1 to 86400000 — is answered BAD_REQUEST and writes nothing.',
  'order-replay':
    "An order whose key is recorded with the same user and cart (the same lines, in any order) is answered REPLAY with the order's current status and writes nothing.",
  'order-key-reused':
    'An order whose key is recorded with another user or another cart is answered KEY_REUSED and writes nothing.',
  'order-unknown-sku':
    'An order with a new key whose cart names a sku the shop has never stocked is answered BAD_REQUEST and writes nothing.',
  'order-sold-out':
    'An order with a new key one of whose lines wants more than its sku has left is answered SOLD_OUT naming such a sku, and writes nothing.',
  'order-held':
    'An order with a new key whose every line fits is answered HELD: every line is taken from its sku at once, and the key is recorded HELD with its user and cart, expiring ttl_ms after the order ran (on the database clock).',
  'order-gave-up':
    'Any order may be answered GAVE_UP (a retrying design ran out of attempts); it writes nothing.',
  'release-held':
    "release of a HELD key moves it to RELEASED, puts every line's quantity back, and answers true.",
  'release-not-held': 'release of a key that is not HELD changes nothing and answers false.',
  'expire-due':
    'expire moves every HELD order whose expiry is before the call ran (on the database clock) to EXPIRED, puts their lines back, and answers how many orders and units; an order whose expiry falls within the call’s clock bounds may be moved or not.',
  status:
    "status answers the key's status (HELD, RELEASED or EXPIRED), or NOT_FOUND for a key never recorded.",
  remaining: "remaining answers the sku's stock less the quantities of the lines of its HELD orders.",
  lines:
    'lines answers the recorded cart of the key, whatever its status, sorted by sku; none for a key never recorded.',
  backdate: "backdate moves the named orders' expiry into the past; it answers nothing.",
} as const;

export type OrderRule = keyof typeof ORDER_RULES;
