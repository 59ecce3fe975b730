// The operator's OAuth applications pages at school 1, driven in a browser: the owner creates a
// confidential and a public application, reading the client_id and the one-time secret off the
// pages; a student then authorizes each, and the client exchanges the code (the confidential one
// with client_secret_post). Deleting an application revokes the tokens it holds.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import * as oauth from 'oauth4webapi';

import {
  decide, discover, env, insecure, requestedScopes, signIn, startAuthorization, withBrowser,
} from './lib/harness.mjs';

const appsPath = '/admin/developers/oauth-applications';
const withResource = { ...insecure, additionalParameters: { resource: env.issuer } };

// openAsOwner opens the list: not signed in, the school sends the browser to sign in and back.
async function openAsOwner(page) {
  await page.goto(`${env.issuer}${appsPath}`);
  assert.equal(new URL(page.url()).pathname, '/login', `sent to sign in, not ${page.url()}`);
  await signIn(page, env.ownerEmail, env.ownerPassword);
  await page.locator('h1', { hasText: 'OAuth applications' }).waitFor({ state: 'visible' });
  assert.equal(new URL(page.url()).pathname, appsPath, 'back on the list after signing in');
}

// createApplication fills the creation form: the callback the loopback server answers on (any
// port matches), the scopes the authorization asks for, and the confidential box.
async function createApplication(page, { name, confidential }) {
  await page.locator('#new-application').click();
  await page.locator('#name').fill(name);
  await page.locator('#redirect_uris').fill('http://127.0.0.1/callback');
  for (const [scope, description] of Object.entries(requestedScopes)) {
    const box = page.locator(`input[name="scope"][value="${scope}"]`);
    // The box is labelled with the description members will see on the consent page.
    await page.locator('label', { has: box }).getByText(description, { exact: true }).waitFor({ state: 'visible' });
    await box.check();
  }
  if (confidential) {
    await page.locator('#confidential').check();
  }
  await page.getByRole('button', { name: 'Create application' }).click();
  await page.locator('#client-id').waitFor({ state: 'visible' });
  const clientId = (await page.locator('#client-id').textContent()).trim();
  assert.match(clientId, /^pc_[A-Za-z0-9_-]{22}$/, `client_id ${clientId}`);
  if (!confidential) {
    // Post/Redirect/Get: the browser is on the application's own page.
    assert.equal(new URL(page.url()).pathname, `${appsPath}/${clientId}`);
    assert.equal(await page.locator('#client-secret').count(), 0, 'a public application has no secret');
    await page.getByRole('link', { name: 'OAuth applications' }).click();
    return { clientId };
  }
  const secret = (await page.locator('#client-secret').textContent()).trim();
  assert.match(secret, /^[A-Za-z0-9_-]{43}$/, 'a 256-bit secret');
  assert.ok(!page.url().includes(secret), 'the secret is not in the URL');
  const cookies = await page.context().cookies();
  assert.ok(cookies.every((c) => !c.value.includes(secret)), 'the secret is not in a cookie');
  // Once left, the secret is gone for good: the application's page does not show it.
  await page.getByRole('link', { name: /back to the application/ }).click();
  await page.locator('#client-id').waitFor({ state: 'visible' });
  assert.ok(!(await page.content()).includes(secret), 'the application page does not show the secret');
  await page.getByRole('link', { name: 'OAuth applications' }).click();
  return { clientId, secret };
}

// authorizeAsStudent runs the browser part of an authorization with the application as the
// student and returns what the client needs for the exchange.
async function authorizeAsStudent(t, as, client, name) {
  const { cb, req } = await startAuthorization(t, as, client.client_id);
  const received = await withBrowser(t, async (page) => {
    await page.goto(req.url.href);
    await signIn(page, env.studentEmail, env.studentPassword);
    await page.locator('button[name="decision"][value="approve"]').waitFor({ state: 'visible' });
    const heading = await page.locator('h1').first().textContent();
    assert.ok(heading.includes(name), `the consent page names the application: ${heading}`);
    await decide(page, 'approve');
    return cb.wait();
  });
  const params = oauth.validateAuthResponse(as, client, received, req.state);
  return { params, redirectUri: cb.redirectUri, req };
}

test('operator pages: create applications, students authorize them, deletion revokes', { timeout: 90_000 }, async (t) => {
  const as = await discover(env.issuer);
  const suffix = Date.now().toString(36);
  const confName = `Admin Confidential ${suffix}`;
  const publicName = `Admin Public ${suffix}`;

  const created = await withBrowser(t, async (page) => {
    await openAsOwner(page);
    const conf = await createApplication(page, { name: confName, confidential: true });
    const pub = await createApplication(page, { name: publicName, confidential: false });
    const list = page.locator('.apps');
    await list.getByText(confName, { exact: true }).waitFor({ state: 'visible' });
    await list.getByText(publicName, { exact: true }).waitFor({ state: 'visible' });
    return { conf, pub };
  });

  // Confidential: the code exchange authenticates with the secret read off the page.
  const confClient = { client_id: created.conf.clientId, token_endpoint_auth_method: 'client_secret_post' };
  {
    const { params, redirectUri, req } = await authorizeAsStudent(t, as, confClient, confName);
    const res = await oauth.authorizationCodeGrantRequest(
      as, confClient, oauth.ClientSecretPost(created.conf.secret), params, redirectUri, req.codeVerifier, withResource);
    const tokens = await oauth.processAuthorizationCodeResponse(as, confClient, res, { expectedNonce: req.nonce });
    assert.ok(tokens.access_token);
    assert.equal(tokens.school_id, 1);
    const claims = oauth.getValidatedIdTokenClaims(tokens);
    assert.equal(claims.email, env.studentEmail);
  }

  // Public: PKCE and no secret.
  const pubClient = { client_id: created.pub.clientId, token_endpoint_auth_method: 'none' };
  const { params, redirectUri, req } = await authorizeAsStudent(t, as, pubClient, publicName);
  const res = await oauth.authorizationCodeGrantRequest(
    as, pubClient, oauth.None(), params, redirectUri, req.codeVerifier, withResource);
  const tokens = await oauth.processAuthorizationCodeResponse(as, pubClient, res, { expectedNonce: req.nonce });
  const claims = oauth.getValidatedIdTokenClaims(tokens);
  const info = await oauth.processUserInfoResponse(
    as, pubClient, claims.sub, await oauth.userInfoRequest(as, pubClient, tokens.access_token, insecure));
  assert.equal(info.email, env.studentEmail);

  // The owner deletes the public application (after confirming); its token stops working.
  await withBrowser(t, async (page) => {
    await openAsOwner(page);
    await page.locator('.apps').getByRole('link', { name: publicName, exact: true }).click();
    await page.locator('#delete-application').click();
    await page.getByRole('button', { name: 'Delete application' }).click();
    await page.locator('h1', { hasText: 'OAuth applications' }).waitFor({ state: 'visible' });
    assert.equal(new URL(page.url()).pathname, appsPath);
    assert.equal(await page.locator('.apps').getByText(publicName, { exact: true }).count(), 0, 'gone from the list');
  });
  const denied = await oauth.userInfoRequest(as, pubClient, tokens.access_token, insecure);
  assert.equal(denied.status, 401, 'the deleted application\'s token is revoked');
});

test('operator pages: a student is refused', { timeout: 60_000 }, async (t) => {
  await withBrowser(t, async (page) => {
    await page.goto(`${env.issuer}${appsPath}/new`);
    await signIn(page, env.studentEmail, env.studentPassword);
    await page.locator('h1', { hasText: 'You cannot manage E2E School One here' }).waitFor({ state: 'visible' });
    assert.equal(new URL(page.url()).pathname, `${appsPath}/new`);
    assert.equal(await page.locator('#name').count(), 0, 'no creation form');
  });
});
