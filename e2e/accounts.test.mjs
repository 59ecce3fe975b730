// A member's account outside the OAuth flow, in the browser and in the mailbox: the forgotten
// password and the invitation, each from the e-mail the server sent through `proctor mailbox`
// to the end; and the account page, where a member removes an application's access and signs
// out another device (docs/accounts.md).
//
// Each test that changes a member's state has a member of its own in e2e/fixture.yaml (the
// invited one is invited by e2e/run.sh), so the tests do not depend on each other's order.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import * as oauth from 'oauth4webapi';

import {
  decide, discover, env, insecure, oauthError, onPath, signIn, signInFrom, startAuthorization,
  withBrowser,
} from './lib/harness.mjs';
import { lastSeq, linkIn, waitForMessage } from './lib/mailbox.mjs';

// The members of e2e/fixture.yaml these tests use, one per test.
const rita = { email: 'rita.reset@e2e.example', password: 'e2e-rita-password-1' };
const carl = { email: 'carl.connected@e2e.example', password: 'e2e-carl-password-1' };
const dana = { email: 'dana.devices@e2e.example', password: 'e2e-dana-password-1' };

const invitedEmail = process.env.INVITED_EMAIL;
const publicClient = { client_id: env.clientId, token_endpoint_auth_method: 'none' };
const withResource = { ...insecure, additionalParameters: { resource: env.issuer } };

// Form posts hash passwords (argon2id) on a busy machine: their answers get more time than the
// browser's default.
const slow = { timeout: 30_000 };

const accountUrl = `${env.issuer}/account`;

// signInToAccount opens /account, which sends a browser without a session to sign in and
// back, and signs in there.
async function signInToAccount(page, email, password) {
  await signInFrom(page, '/account', email, password);
  await page.waitForURL(onPath('/account'), slow);
  assert.equal((await page.locator('#member-email').textContent()).trim(), email);
}

// signOut posts the account page's sign-out form.
async function signOut(page) {
  await page.goto(accountUrl);
  await page.locator('form.signout button[type="submit"]').click();
  await page.getByRole('heading', { name: /You are signed out/ }).waitFor(slow);
}

// expectSignInRefused signs in with a wrong password and checks the member stays on the login
// page with an error.
async function expectSignInRefused(page, email, password) {
  await signInFrom(page, '/account', email, password);
  await page.locator('[role="alert"]').first().waitFor(slow);
  assert.equal(new URL(page.url()).pathname, '/login', `still on the login page, not ${page.url()}`);
}

// forgotAnswer asks for a reset link for email on the forgotten-password form and returns the
// page's answer: its heading and paragraphs.
async function forgotAnswer(page, email) {
  await page.goto(`${env.issuer}/login`);
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await page.waitForURL(onPath('/login/forgot'));
  await page.locator('input[name="email"]').fill(email);
  await page.getByRole('button', { name: 'Send the link' }).click();
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor(slow);
  const text = await page.locator('main').innerText().catch(() => page.locator('body').innerText());
  return text.replace(/\s+/g, ' ').trim();
}

test('forgotten password: the e-mailed link sets a new password and signs the member in', { timeout: 90_000 }, async (t) => {
  const newPassword = 'e2e-rita-chose-this-1';
  await withBrowser(t, async (page) => {
    // The answer is the same for an address nobody has: the form tells no one who is a member.
    const unknown = await forgotAnswer(page, 'nobody.here@e2e.example');
    const mark = await lastSeq();
    const known = await forgotAnswer(page, rita.email);
    assert.equal(known, unknown, 'the same answer for a member and for an unknown address');
    assert.ok(known.includes('If an account exists for that address, we have sent a link to it.'), known);
    assert.ok(!known.includes(rita.email), 'the answer does not echo the address');

    const message = await waitForMessage({ to: rita.email, subject: 'Reset your password', after: mark });
    const link = linkIn(message, `${env.issuer}/login/reset?token=`);

    await page.goto(link.href);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    assert.ok((await page.locator('main, body').first().innerText()).includes(rita.email), 'the form names the member');
    await page.locator('input[name="password"]').fill(newPassword);
    await page.locator('input[name="password2"]').fill(newPassword);
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.waitForURL(onPath('/account'), slow);
    assert.equal((await page.locator('#member-email').textContent()).trim(), rita.email);

    await signOut(page);
    await expectSignInRefused(page, rita.email, rita.password);
    await signIn(page, rita.email, newPassword);
    await page.waitForURL(onPath('/account'), slow);
    assert.equal((await page.locator('#member-email').textContent()).trim(), rita.email);

    // The link worked once.
    await page.goto(link.href);
    await page.getByRole('heading', { name: /expired or was already used/ }).waitFor();
  });
});

test('invitation: the e-mailed link lets the invited person choose a password and sign in', { timeout: 90_000 }, async (t) => {
  assert.ok(invitedEmail, 'INVITED_EMAIL is not set: run the suite through e2e/run.sh (make e2e)');
  const password = 'e2e-ivy-chose-this-1';
  // e2e/run.sh invited the address before the server started; the server's mail worker sends it.
  const message = await waitForMessage({ to: invitedEmail, subject: 'You are invited to' });
  const link = linkIn(message, `${env.issuer}/invitation?token=`);

  await withBrowser(t, async (page) => {
    await page.goto(link.href);
    await page.getByRole('heading', { name: /^Welcome to / }).waitFor();
    await page.locator('input[name="password"]').fill(password);
    await page.locator('input[name="password2"]').fill(password);
    await page.getByRole('button', { name: 'Set the password and sign in' }).click();
    await page.waitForURL(onPath('/account'), slow);
    assert.equal((await page.locator('#member-email').textContent()).trim(), invitedEmail);

    await signOut(page);
    await signInToAccount(page, invitedEmail, password);
  });
});

test('account page: removing an application revokes its access and refresh tokens', { timeout: 90_000 }, async (t) => {
  const as = await discover(env.issuer);
  const client = publicClient;
  const { cb, req } = await startAuthorization(t, as, client.client_id);

  await withBrowser(t, async (page) => {
    await page.goto(req.url.href);
    await signIn(page, carl.email, carl.password);
    await page.locator('button[name="decision"][value="approve"]').waitFor(slow);
    await decide(page, 'approve');
    const received = await cb.wait(30_000);

    const params = oauth.validateAuthResponse(as, client, received, req.state);
    const tokenRes = await oauth.authorizationCodeGrantRequest(
      as, client, oauth.None(), params, cb.redirectUri, req.codeVerifier, withResource);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenRes, { expectedNonce: req.nonce });
    assert.ok(tokens.access_token && tokens.refresh_token, 'access and refresh tokens');
    const sub = oauth.getValidatedIdTokenClaims(tokens).sub;
    const info = await oauth.processUserInfoResponse(as, client, sub,
      await oauth.userInfoRequest(as, client, tokens.access_token, insecure));
    assert.equal(info.email, carl.email);

    // The same browser is still signed in: the account page lists the application.
    await page.goto(accountUrl);
    const app = page.locator('li.connected-app', { has: page.locator('code.client-id', { hasText: client.client_id }) });
    await app.waitFor();
    assert.equal((await app.locator('.app-name').textContent()).trim(), 'E2E App');
    // A page asking to confirm gets its answer; a plain form posts at once.
    page.once('dialog', (dialog) => dialog.accept());
    await app.getByRole('button', { name: 'Remove access' }).click();
    await page.waitForURL((url) => onPath('/account')(url) && url.searchParams.has('done'), slow);
    await page.locator('#notice').waitFor();
    assert.equal(await app.count(), 0, 'the application is no longer listed');

    const denied = await oauth.userInfoRequest(as, client, tokens.access_token, insecure);
    assert.equal(denied.status, 401);
    await assert.rejects(oauth.processUserInfoResponse(as, client, sub, denied), oauthError('invalid_token'));

    const refreshRes = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token, withResource);
    await assert.rejects(oauth.processRefreshTokenResponse(as, client, refreshRes), oauthError('invalid_grant'));
  });
});

test('account page: signing out another device ends that session only', { timeout: 90_000 }, async (t) => {
  await withBrowser(t, async (first) => {
    await signInToAccount(first, dana.email, dana.password);
    await withBrowser(t, async (second) => {
      await signInToAccount(second, dana.email, dana.password);

      await first.goto(accountUrl);
      const sessions = first.locator('li.session');
      assert.equal(await sessions.count(), 2, 'two sessions are listed');
      const current = sessions.filter({ has: first.locator('.badge', { hasText: 'This device' }) });
      assert.equal(await current.count(), 1, 'one of them is this device');
      assert.equal(await current.getByRole('button', { name: 'Sign out this device' }).count(), 0,
        'this device has no button: ending it is signing out');

      const other = sessions.filter({ has: first.getByRole('button', { name: 'Sign out this device' }) });
      assert.equal(await other.count(), 1);
      await other.getByRole('button', { name: 'Sign out this device' }).click();
      await first.waitForURL((url) => onPath('/account')(url) && url.searchParams.has('done'), slow);
      await first.locator('#notice').waitFor();
      assert.equal(await first.locator('li.session').count(), 1, 'one session is left');

      // The second browser's next request finds no session and is sent to sign in.
      await second.goto(accountUrl);
      await second.waitForURL(onPath('/login'));
      await second.locator('input[name="password"]').waitFor();

      // The first browser stays signed in.
      await first.goto(accountUrl);
      assert.ok(onPath('/account')(new URL(first.url())), `still on the account page, not ${first.url()}`);
      assert.equal((await first.locator('#member-email').textContent()).trim(), dana.email);
    }, 'second');
  }, 'first');
});
