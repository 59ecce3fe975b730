// Authenticator-app codes computed the way an app computes them (RFC 6238 with HMAC-SHA1, 30
// seconds, 6 digits) from the key the enrolment page shows, so that tests can turn TOTP on and
// answer the second sign-in step (e2e/mfa.test.mjs, e2e/a11y.test.mjs).

import assert from 'node:assert/strict';
import crypto from 'node:crypto';

// base32Decode reads an RFC 4648 base32 key (spaces allowed, no padding).
export function base32Decode(s) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out = [];
  for (const c of s.replace(/[\s=]/g, '').toUpperCase()) {
    const i = alphabet.indexOf(c);
    assert.ok(i >= 0, `base32 character ${c}`);
    value = ((value << 5) | i) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

// totp is the RFC 6238 code of key at the time step of ms (30 seconds, 6 digits, HMAC-SHA1).
export function totp(key, ms = Date.now()) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(ms / 1000 / 30)));
  const mac = crypto.createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const n = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(n).padStart(6, '0');
}

// nextCode is the code of the step after the current one: the enrolment used the current step,
// and a step is accepted once; the server accepts one step of skew.
export const nextCode = (key) => totp(key, Date.now() + 30_000);

// wrongCode is a 6-digit code that is neither the current step's nor the next one's.
export function wrongCode(key) {
  const right = new Set([totp(key), nextCode(key), totp(key, Date.now() - 30_000)]);
  return ['000000', '111111', '222222', '333333'].find((c) => !right.has(c));
}
