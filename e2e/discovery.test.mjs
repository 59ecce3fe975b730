// Discovery: both schools publish their metadata at their own origin, with the issuer written
// exactly as configured; only the school with ID tokens advertises jwks_uri.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { discover, env } from './lib/harness.mjs';

test('school 1 discovery document', { timeout: 20_000 }, async () => {
  const as = await discover(env.issuer);
  assert.equal(as.issuer, env.issuer);
  assert.ok(as.code_challenge_methods_supported?.includes('S256'),
    `code_challenge_methods_supported lacks S256: ${JSON.stringify(as.code_challenge_methods_supported)}`);
  assert.equal(as.authorization_response_iss_parameter_supported, true);
  for (const key of ['authorization_endpoint', 'token_endpoint', 'userinfo_endpoint', 'revocation_endpoint']) {
    assert.ok(as[key]?.startsWith(`${env.issuer}/`), `${key} is not on the issuer's origin: ${as[key]}`);
  }

  assert.ok(as.jwks_uri, 'school 1 issues ID tokens, so its document must carry jwks_uri');
  assert.ok(as.id_token_signing_alg_values_supported?.includes('ES256'),
    `id_token_signing_alg_values_supported lacks ES256: ${JSON.stringify(as.id_token_signing_alg_values_supported)}`);
  const res = await fetch(as.jwks_uri, { signal: AbortSignal.timeout(10_000) });
  assert.equal(res.status, 200, `GET ${as.jwks_uri}`);
  const jwks = await res.json();
  assert.ok(Array.isArray(jwks.keys) && jwks.keys.length > 0, 'the JWKS has no keys');
  for (const k of jwks.keys) {
    assert.equal(k.kty, 'EC');
    assert.equal(k.crv, 'P-256');
    assert.ok(k.kid, 'every key needs a kid');
    assert.equal(k.d, undefined, 'the JWKS must not publish a private key');
  }
});

test('school 2 discovery document', { timeout: 20_000 }, async () => {
  const as = await discover(env.school2);
  assert.equal(as.issuer, env.school2);
  assert.ok(as.code_challenge_methods_supported?.includes('S256'));
  assert.equal(as.authorization_response_iss_parameter_supported, true);
  assert.equal(as.jwks_uri, undefined, 'school 2 does not issue ID tokens: no jwks_uri');
  assert.equal(as.id_token_signing_alg_values_supported, undefined,
    'school 2 does not issue ID tokens: no id_token_signing_alg_values_supported');
  assert.ok(as.authorization_endpoint?.startsWith(`${env.school2}/`),
    `authorization_endpoint is not on school 2's origin: ${as.authorization_endpoint}`);
});
