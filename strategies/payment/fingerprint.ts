/**
 * The isolation-matrix chapter's request fingerprint: sha256 over the fields that make two payment requests
 * the same.
 */
import { createHash } from 'node:crypto';

export function requestFingerprint(fields: { amount: number; currency: string; merchant: string }): string {
  const canonical = `amount=${fields.amount};currency=${fields.currency};merchant=${fields.merchant}`;
  return `sha256:${createHash('sha256').update(canonical).digest('hex')}`;
}
