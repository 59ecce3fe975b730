// The authorization code flow at school 1 as a member sees it in a browser and a strict client
// (oauth4webapi) sees it on the wire: sign-in, consent, code exchange with PKCE and resource,
// ID token, userinfo, refresh, revocation; and the ways it must fail.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import * as oauth from 'oauth4webapi';

import {
  decide, discover, env, insecure, oauthError, requestedScopes, signIn, startAuthorization,
  withBrowser,
} from './lib/harness.mjs';

const publicClient = { client_id: env.clientId, token_endpoint_auth_method: 'none' };
const confidentialClient = { client_id: env.confClientId, token_endpoint_auth_method: 'client_secret_post' };
const withResource = { ...insecure, additionalParameters: { resource: env.issuer } };

function jwtHeader(jwt) {
  return JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString('utf8'));
}

// authorize runs the browser part: open the authorization URL, sign in, check the consent page
// and answer it. It returns the URL the callback server received.
async function authorize(t, { as, clientId, clientName, decision }) {
  const { cb, req } = await startAuthorization(t, as, clientId);
  const received = await withBrowser(t, async (page) => {
    await page.goto(req.url.href);
    await signIn(page, env.studentEmail, env.studentPassword);

    const approve = page.locator('button[name="decision"][value="approve"]');
    await approve.waitFor({ state: 'visible' });
    assert.equal(new URL(page.url()).origin, env.issuer, 'the consent page is on the issuer origin');
    await page.getByText(clientName).first().waitFor({ state: 'visible' });
    const heading = await page.locator('h1').first().textContent();
    assert.ok(heading.includes(clientName), `the heading names the client: ${heading}`);
    for (const [name, description] of Object.entries(requestedScopes)) {
      await page.getByText(description, { exact: true }).first().waitFor({ state: 'visible' });
      await page.getByText(name, { exact: true }).first().waitFor({ state: 'visible' });
    }
    assert.equal(cb.requests.length, 0, 'nothing reaches the client before the decision');

    await decide(page, decision);
    const url = await cb.wait();
    await page.locator('#received').waitFor({ state: 'visible' });
    return url;
  });
  return { req, cb, received };
}

test('public client: code flow, ID token, userinfo, refresh, revocation', { timeout: 60_000 }, async (t) => {
  const as = await discover(env.issuer);
  const client = publicClient;
  const { req, cb, received } = await authorize(t, {
    as, clientId: client.client_id, clientName: 'E2E App', decision: 'approve',
  });

  // RFC 9207: iss must be present and equal the issuer; state must match.
  assert.equal(received.searchParams.get('iss'), env.issuer);
  const params = oauth.validateAuthResponse(as, client, received, req.state);
  assert.ok(params.get('code'), 'the callback carries a code');

  const tokenRes = await oauth.authorizationCodeGrantRequest(
    as, client, oauth.None(), params, cb.redirectUri, req.codeVerifier, withResource);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenRes, {
    expectedNonce: req.nonce, requireIdToken: true,
  });
  // oauth4webapi checks iss, aud, exp, iat and nonce; the signature against jwks_uri is checked
  // here, on the same response.
  await oauth.validateApplicationLevelSignature(as, tokenRes, insecure);
  assert.equal(jwtHeader(tokens.id_token).alg, 'ES256');
  const claims = oauth.getValidatedIdTokenClaims(tokens);
  assert.equal(claims.iss, env.issuer);
  assert.deepEqual([claims.aud].flat(), [client.client_id]);
  assert.equal(claims.nonce, req.nonce);
  assert.ok(claims.exp - claims.iat <= 600, `ID token lifetime ${claims.exp - claims.iat}s exceeds 10 minutes`);
  assert.equal(claims.email, env.studentEmail);

  assert.equal(tokens.token_type, 'bearer');
  assert.ok(tokens.refresh_token, 'a refresh token is issued');
  assert.equal(tokens.school_id, 1, `school_id: ${JSON.stringify(tokens.school_id)}`);
  assert.equal(tokens.school_subdomain, 'e2e-one', `school_subdomain: ${JSON.stringify(tokens.school_subdomain)}`);
  assert.ok(Number.isInteger(tokens.created_at), `created_at: ${JSON.stringify(tokens.created_at)}`);
  assert.ok(Math.abs(tokens.created_at - Date.now() / 1000) < 300, 'created_at is the issuance time');

  const infoRes = await oauth.userInfoRequest(as, client, tokens.access_token, insecure);
  const info = await oauth.processUserInfoResponse(as, client, claims.sub, infoRes);
  assert.equal(info.sub, claims.sub);
  assert.equal(info.email, env.studentEmail);

  const refreshRes = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token, withResource);
  const refreshed = await oauth.processRefreshTokenResponse(as, client, refreshRes);
  assert.equal(refreshed.id_token, undefined, 'a refresh response carries no id_token');
  assert.ok(refreshed.access_token && refreshed.access_token !== tokens.access_token, 'a new access token');
  assert.ok(refreshed.refresh_token && refreshed.refresh_token !== tokens.refresh_token, 'a new refresh token');

  const revokeRes = await oauth.revocationRequest(as, client, oauth.None(), refreshed.refresh_token, insecure);
  assert.equal(revokeRes.status, 200);
  await oauth.processRevocationResponse(revokeRes);

  // A revoked refresh token is no longer a grant.
  const reuseRes = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token, withResource);
  await assert.rejects(oauth.processRefreshTokenResponse(as, client, reuseRes), oauthError('invalid_grant'));

  // Revoking the refresh token revokes its pair: the refreshed access token is dead.
  const deniedRes = await oauth.userInfoRequest(as, client, refreshed.access_token, insecure);
  assert.equal(deniedRes.status, 401);
  const challenge = deniedRes.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer\s/i, `WWW-Authenticate: ${challenge}`);
  assert.match(challenge, /error="invalid_token"/, `WWW-Authenticate: ${challenge}`);
  await assert.rejects(oauth.processUserInfoResponse(as, client, claims.sub, deniedRes), (err) => {
    assert.ok(err instanceof oauth.WWWAuthenticateChallengeError, `got ${err}`);
    assert.ok(err.cause.some((c) => c.scheme === 'bearer' && c.parameters.error === 'invalid_token'));
    return true;
  });
});

test('deny: the client receives access_denied with iss and state', { timeout: 60_000 }, async (t) => {
  const as = await discover(env.issuer);
  const client = publicClient;
  const { req, received } = await authorize(t, {
    as, clientId: client.client_id, clientName: 'E2E App', decision: 'deny',
  });
  const p = received.searchParams;
  assert.equal(p.get('error'), 'access_denied');
  assert.equal(p.get('iss'), env.issuer);
  assert.equal(p.get('state'), req.state);
  assert.equal(p.get('code'), null, 'no code after a denial');
  // The strict client checks iss and state first, then reports the error.
  assert.throws(() => oauth.validateAuthResponse(as, client, received, req.state), (err) => {
    assert.ok(err instanceof oauth.AuthorizationResponseError, `got ${err}`);
    assert.equal(err.error, 'access_denied');
    return true;
  });
});

test('confidential client: the code exchange needs client_secret', { timeout: 60_000 }, async (t) => {
  const as = await discover(env.issuer);
  const client = confidentialClient;
  const { req, cb, received } = await authorize(t, {
    as, clientId: client.client_id, clientName: 'E2E Confidential App', decision: 'approve',
  });
  const params = oauth.validateAuthResponse(as, client, received, req.state);

  const without = await oauth.authorizationCodeGrantRequest(
    as, client, oauth.None(), params, cb.redirectUri, req.codeVerifier, withResource);
  assert.ok(without.status === 400 || without.status === 401, `status ${without.status}`);
  await assert.rejects(
    oauth.processAuthorizationCodeResponse(as, client, without, { expectedNonce: req.nonce }),
    oauthError('invalid_client'));

  // A failed client authentication does not use up the code.
  const withSecret = await oauth.authorizationCodeGrantRequest(
    as, client, oauth.ClientSecretPost(env.confClientSecret), params, cb.redirectUri, req.codeVerifier, withResource);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, withSecret, {
    expectedNonce: req.nonce, requireIdToken: true,
  });
  await oauth.validateApplicationLevelSignature(as, withSecret, insecure);
  assert.ok(tokens.access_token);
  assert.equal(tokens.school_id, 1);
});

test('login failure: a wrong password keeps the member on the login page', { timeout: 60_000 }, async (t) => {
  const as = await discover(env.issuer);
  const { cb, req } = await startAuthorization(t, as, env.clientId);
  await withBrowser(t, async (page) => {
    await page.goto(req.url.href);
    await signIn(page, env.studentEmail, `${env.studentPassword}-wrong`);
    const alert = page.locator('[role="alert"]');
    await alert.first().waitFor({ state: 'visible' });
    const message = (await alert.first().textContent()).trim();
    assert.ok(message.length > 0, 'the login page shows an error message');
    const url = new URL(page.url());
    assert.equal(url.origin, env.issuer);
    assert.equal(url.pathname, '/login', `still on the login page, not ${url.href}`);
    await page.locator('input[name="password"]').waitFor({ state: 'visible' });
    assert.equal(await page.locator('button[name="decision"]').count(), 0, 'no consent page');
    await page.waitForTimeout(500);
    assert.equal(cb.requests.length, 0, 'nothing reached the client');
  });
});
