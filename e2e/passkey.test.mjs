// Passkeys in a real browser: Chromium's virtual authenticator (through the DevTools protocol)
// stands in for the device. A member adds a passkey from the account area and, signed out,
// signs in with it alone, then with it as the second step after the password, at school 2: it is served at http://localhost:PORT, and a browser
// refuses an IP address as a relying party id, so school 1 (http://127.0.0.1:PORT) offers no
// passkeys. docs/security.md ("Passkeys").

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { msg } from './lib/catalog.mjs';
import { env, signIn, withBrowser } from './lib/harness.mjs';

// The member of e2e/passkey-fixture.yaml (school 2).
const paula = { email: 'paula.passkey@e2e.example', password: 'e2e-paula-password-1' };

const slow = { timeout: 30_000 };

function onPath(origin, pathname) {
  return (url) => url.origin === origin && url.pathname === pathname;
}

// addAuthenticator gives the page's browser a platform authenticator that holds discoverable
// credentials and verifies its user (as a laptop's fingerprint reader would).
async function addAuthenticator(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2', transport: 'internal', hasResidentKey: true,
      hasUserVerification: true, isUserVerified: true,
    },
  });
  return { cdp, authenticatorId };
}

test('passkeys: added from the account area, then used to sign in without a password and as the second step', { timeout: 90_000 }, async (t) => {
  const origin = env.school2;
  await withBrowser(t, async (page) => {
    const { cdp, authenticatorId } = await addAuthenticator(page);

    // The account page links to the passkeys; they need a session.
    await page.goto(`${origin}/account/passkeys`);
    await page.waitForURL(onPath(origin, '/login'));
    await signIn(page, paula.email, paula.password);
    await page.waitForURL(onPath(origin, '/account/passkeys'), slow);
    await page.locator('#no-passkeys').waitFor();

    await page.locator('#passkey-name').fill('E2E laptop');
    await page.locator('#passkey-add').click();
    await page.waitForURL((url) => onPath(origin, '/account/passkeys')(url) && url.searchParams.get('done') === 'added', slow);
    await page.locator('li.passkey', { hasText: 'E2E laptop' }).waitFor();

    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.equal(credentials.length, 1, 'one credential on the authenticator');
    assert.equal(credentials[0].rpId, 'localhost', 'the relying party id is the school\'s host');
    assert.ok(credentials[0].isResidentCredential, 'a discoverable credential');

    // Signed out, the sign-in form leads to the passkey; no password is typed.
    await page.goto(`${origin}/account`);
    await page.locator('form.signout button[type="submit"]').click();
    await page.getByRole('heading', { name: /You are signed out/ }).waitFor(slow);
    await page.goto(`${origin}/login?return_to=%2Faccount`);
    await page.getByRole('link', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(onPath(origin, '/login/passkey'));
    await page.locator('#passkey-sign-in').click();
    await page.waitForURL(onPath(origin, '/account'), slow);
    assert.equal((await page.locator('#member-email').textContent()).trim(), paula.email);

    const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.ok(after.credentials[0].signCount >= 1, 'the authenticator signed');

    // With a passkey, the password alone is not enough: the second step asks for the passkey.
    await page.locator('form.signout button[type="submit"]').click();
    await page.getByRole('heading', { name: /You are signed out/ }).waitFor(slow);
    await page.goto(`${origin}/account`);
    await page.waitForURL(onPath(origin, '/login'));
    await signIn(page, paula.email, paula.password);
    await page.waitForURL(onPath(origin, '/login/factor'), slow);
    await page.locator('#factor-passkey-link').click();
    await page.waitForURL(onPath(origin, '/login/factor/passkey'));
    await page.locator('#passkey-sign-in').click();
    await page.waitForURL(onPath(origin, '/account'), slow);
    assert.equal((await page.locator('#member-email').textContent()).trim(), paula.email);
  });
});

test('passkeys: a school served at an IP address offers none', { timeout: 60_000 }, async (t) => {
  await withBrowser(t, async (page) => {
    await page.goto(`${env.issuer}/login`);
    await page.locator('input[name="email"]').waitFor();
    assert.equal(await page.getByRole('link', { name: 'Sign in with a passkey' }).count(), 0);
    await page.goto(`${env.issuer}/login/passkey`);
    await page.locator('#passkeys-unavailable').waitFor();
  });
});

// The script is one file for every language; the page gives it its sentences in the member's
// language. An authenticator that holds no passkey of the school ends the ceremony with
// NotAllowedError, which the script reports as a passkey that was not used; the server's
// refusals come in the page's language too.
test('passkeys: the script speaks the member\'s language', { timeout: 60_000 }, async (t) => {
  const origin = env.school2;
  await withBrowser(t, async (page) => {
    await addAuthenticator(page);
    await page.goto(`${origin}/login/passkey`);
    assert.equal(await page.locator('html').getAttribute('lang'), 'ja');
    await page.locator('#passkey-sign-in').click();
    const status = page.locator('#passkey-status');
    await status.waitFor({ state: 'visible', ...slow });
    assert.equal((await status.textContent()).trim(), msg('ja', 'passkey.script.cancelled'));
    assert.ok(await page.locator('#passkey-sign-in').isEnabled(), 'the button can be pressed again');

    // A refusal of the server (a form token that is no longer the browser's) comes as a
    // sentence in the same language, which the script shows as it is.
    await page.locator('#passkey-sign-in').evaluate((btn) => { btn.dataset.csrf = 'stale'; });
    await page.locator('#passkey-sign-in').click();
    await page.waitForFunction(
      (want) => document.getElementById('passkey-status').textContent.trim() === want,
      msg('ja', 'passkey.error.expired'), slow);
  }, 'ja', { locale: 'ja-JP' });
});
