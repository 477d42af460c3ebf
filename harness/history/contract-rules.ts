/**
 * The reservation contract's rules, one line each, as docs/contract.md ("The rules the checker applies")
 * states them word for word (test/contract-rules.test.ts holds the two texts equal). The model (model.ts)
 * tags every answer it allows with the rule that gives it, so a witness says which line of the contract
 * the model applied, and a reader can check the model against the contract line by line.
 */
export const RESERVATION_RULES = {
  'reserve.refused':
    'a sku with no stock, or a key, user or ttl the HTTP API refuses: BAD_REQUEST, nothing written (for a field the API refuses, the design may also go on as the rules below say)',
  'reserve.recorded':
    'a recorded key: REPLAY with its current status when the user and sku are the ones it was recorded with, else KEY_REUSED; nothing written, whatever the stock and the user’s holds',
  'reserve.recorded-no-stock':
    'a recorded key sent with a sku that has no stock: KEY_REUSED or BAD_REQUEST (which refusal comes first is the design’s)',
  'reserve.user-limit': 'the user has an active (HELD or CONFIRMED) hold on the sku: USER_LIMIT',
  'reserve.sold-out':
    'the sku is disabled, or none of its units is free (its total less its active holds is 0): SOLD_OUT; where USER_LIMIT applies too, either',
  'reserve.false-sold-out':
    'a design that declares `falseSoldOut` may answer SOLD_OUT at any time, writing nothing',
  'reserve.held':
    'otherwise HELD: the key is recorded HELD for this user and sku, expiring ttl after the reserve ran (on the database clock)',
  'gave-up': 'GAVE_UP (a retrying design ran out of attempts) at any time, writing nothing',
  confirm:
    'confirm: a HELD key becomes CONFIRMED (true); any other status, or an unknown key: false, nothing changed',
  release: 'release: a HELD key becomes RELEASED and its unit is free again (true); otherwise false',
  expire:
    'expire: every HELD key whose expiry lies before the call’s database clock becomes EXPIRED, in one step; it answers how many',
  disable:
    'disable: the first call for a sku with stock disables it (true); a repeat, or a sku with no stock: false',
  status: 'status: the key’s status, or NOT_FOUND for a key never recorded',
  remaining:
    'remaining: the sku’s total less its active (HELD or CONFIRMED) holds; 0 for a sku with no stock; disabling a sku does not change it',
  backdate: 'backdate (a test hook): the keys’ expiry lies in the past',
} as const;

export type ReservationRule = keyof typeof RESERVATION_RULES;
