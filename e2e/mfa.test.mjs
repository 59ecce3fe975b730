// Second factors in a browser: a member turns TOTP on from the QR code page (the code computed
// by e2e/lib/totp.mjs from the key the page shows, RFC 6238 with HMAC-SHA1) and signs in with
// password and code; school 2 (security.operator_mfa: required) sends its owner to enrol before
// its administration pages; an admin of school 1 whose session has no recent second factor is
// asked for it again before granting operator scopes (step-up), and the ID token's amr says so.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import * as oauth from 'oauth4webapi';

import { decide, discover, env, insecure, signIn, startCallback, withBrowser } from './lib/harness.mjs';
import { base32Decode, nextCode, totp, wrongCode } from './lib/totp.mjs';

const operatorClientId = process.env.OPERATOR_CLIENT_ID;

// enrol turns TOTP on from the enrolment page the browser is on: the QR code is drawn by the
// server, the key read off the page, the current step's code entered. It returns the key and
// the recovery codes shown once.
async function enrol(page) {
  await page.locator('#totp-qr').waitFor({ state: 'visible' });
  assert.match(await page.locator('#totp-qr').getAttribute('src'), /^data:image\/png;base64,/);
  const key = base32Decode(await page.locator('#totp-secret').textContent());
  await page.locator('#code').fill(totp(key));
  await page.getByRole('button', { name: 'Turn on' }).click();
  await page.locator('#recovery-codes').waitFor({ state: 'visible' });
  const codes = (await page.locator('#recovery-codes code').allTextContents()).map((c) => c.trim());
  assert.equal(codes.length, 10, 'ten recovery codes');
  return { key, codes };
}

// enterCode answers the second step with code.
async function enterCode(page, code) {
  await page.locator('#code').fill(code);
  await page.getByRole('button', { name: 'Continue' }).click();
}

test('a member turns TOTP on and signs in with it', { timeout: 120_000 }, async (t) => {
  const email = 'mia.mfa@e2e.example';
  const password = 'e2e-mia-password-1';
  let key;
  await withBrowser(t, async (page) => {
    await page.goto(`${env.issuer}/account/security`);
    await signIn(page, email, password);
    await page.locator('#totp-enrol').click();
    ({ key } = await enrol(page));
    await page.locator('#continue').click();
    await page.locator('#totp-status', { hasText: 'On.' }).waitFor({ state: 'visible' });
  }, 'enrol');
  await withBrowser(t, async (page) => {
    await page.goto(`${env.issuer}/account`);
    await signIn(page, email, password);
    // The password alone is not enough: the second step asks for a code.
    await page.waitForURL((u) => u.pathname === '/login/factor');
    await enterCode(page, wrongCode(key));
    await page.locator('#factor-message').waitFor({ state: 'visible' });
    await enterCode(page, nextCode(key));
    await page.waitForURL((u) => u.pathname === '/account');
  }, 'sign in');
});

test('school 2 requires its owner to enrol before the administration pages', { timeout: 120_000 }, async (t) => {
  await withBrowser(t, async (page) => {
    await page.goto(`${env.school2}/admin/security-events`);
    await signIn(page, 'owen.owner@e2e.example', 'e2e-owen-password-1');
    await page.waitForURL((u) => u.pathname === '/account/security/totp');
    assert.equal(new URL(page.url()).searchParams.get('return_to'), '/admin/security-events');
    await enrol(page);
    await page.locator('#continue').click();
    await page.waitForURL((u) => u.pathname === '/admin/security-events');
  });
});

test('an admin enters the second factor again before granting operator scopes', { timeout: 120_000 }, async (t) => {
  assert.ok(operatorClientId, 'OPERATOR_CLIENT_ID is set by run.sh');
  const email = 'otto.operator@e2e.example';
  const password = 'e2e-otto-password-1';
  const as = await discover(env.issuer);
  const cb = await startCallback();
  t.after(() => cb.close());
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code', client_id: operatorClientId, redirect_uri: cb.redirectUri, scope: 'openid school:read',
    resource: env.issuer, code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256', state, nonce,
  }).toString();

  await withBrowser(t, async (page) => {
    // Signed in before the admin had a factor: this session has none.
    await page.goto(`${env.issuer}/account`);
    await signIn(page, email, password);
    await page.waitForURL((u) => u.pathname === '/account');
    // The factor is turned on in another browser.
    let key;
    await withBrowser(t, async (other) => {
      await other.goto(`${env.issuer}/account/security/totp`);
      await signIn(other, email, password);
      ({ key } = await enrol(other));
    }, 'enrol');

    await page.goto(url.toString());
    await page.waitForURL((u) => u.pathname === '/login/factor');
    assert.equal(new URL(page.url()).searchParams.get('step_up'), '1');
    await page.locator('h1', { hasText: 'Confirm it is you' }).waitFor({ state: 'visible' });
    await enterCode(page, nextCode(key));
    await page.waitForURL((u) => u.pathname === '/oauth/authorize');
    await decide(page, 'approve');
    const received = await cb.wait();

    const client = { client_id: operatorClientId };
    const got = oauth.validateAuthResponse(as, client, received, state);
    const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), got, cb.redirectUri, codeVerifier,
      { ...insecure, additionalParameters: { resource: env.issuer } });
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, res, { expectedNonce: nonce, requireIdToken: true });
    const claims = oauth.getValidatedIdTokenClaims(tokens);
    assert.deepEqual(claims.amr, ['pwd', 'otp', 'mfa']);
  }, 'step-up');
});
