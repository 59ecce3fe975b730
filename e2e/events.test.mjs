// The security event log's page at school 1 (/admin/security-events), driven in a browser: the
// owner is sent to sign in and back, sees the school's events (the clients `run.sh` created at
// the command line, the owner's own sign-in, a student's refused sign-in), filters them by kind
// and by member; a student gets the 403 page. No typed password reaches the page.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { env, signIn, withBrowser } from './lib/harness.mjs';

const eventsPath = '/admin/security-events';

// kinds returns the kinds of the events the page lists, newest first.
async function kinds(page) {
  return (await page.locator('#events .kind').allTextContents()).map((s) => s.trim());
}

test('security events: the owner reads and filters the log', { timeout: 90_000 }, async (t) => {
  const wrong = `not-the-password-${Date.now()}`;
  // A student's refused sign-in, to find in the log.
  await withBrowser(t, async (page) => {
    await page.goto(`${env.issuer}/login`);
    await signIn(page, env.studentEmail, wrong);
    await page.locator('text=The e-mail or password is not right.').waitFor({ state: 'visible' });
  }, 'student');

  await withBrowser(t, async (page) => {
    await page.goto(`${env.issuer}${eventsPath}`);
    assert.equal(new URL(page.url()).pathname, '/login', `sent to sign in, not ${page.url()}`);
    await signIn(page, env.ownerEmail, env.ownerPassword);
    await page.locator('h1', { hasText: 'Security events' }).waitFor({ state: 'visible' });
    assert.equal(new URL(page.url()).pathname, eventsPath, 'back on the log after signing in');

    // Newest first: the owner's own sign-in leads.
    const all = await kinds(page);
    assert.equal(all[0], 'sign_in', `newest event ${all[0]}`);
    assert.ok(all.includes('client_created'), `kinds ${all}`);
    const body = await page.content();
    assert.ok(!body.includes(wrong), 'the typed password is not on the page');
    assert.ok(!body.includes(env.confClientSecret), 'no client secret on the page');

    // By kind: the applications run.sh created at the command line.
    await page.locator('#kind').selectOption('client_created');
    await page.getByRole('button', { name: 'Show events' }).click();
    await page.locator('#events').waitFor({ state: 'visible' });
    const created = await kinds(page);
    assert.ok(created.length >= 2 && created.every((k) => k === 'client_created'), `kinds ${created}`);
    const list = await page.locator('#events').textContent();
    assert.ok(list.includes(env.clientId) && list.includes(env.confClientId), 'both clients are named');
    assert.ok(list.includes('the command line'), 'made at the command line');
    assert.equal(new URL(page.url()).searchParams.get('kind'), 'client_created');

    // By member: the student's refused sign-in, by the student's address.
    await page.locator('#kind').selectOption('');
    await page.locator('#member').fill(env.studentEmail);
    await page.getByRole('button', { name: 'Show events' }).click();
    const first = page.locator('#events li').first();
    await first.waitFor({ state: 'visible' });
    assert.equal((await first.locator('.kind').textContent()).trim(), 'sign_in');
    assert.equal((await first.locator('.result').textContent()).trim(), 'failure');
    assert.equal((await first.locator('.subject').textContent()).trim(), env.studentEmail);
  }, 'owner');
});

test('security events: a student is refused', { timeout: 60_000 }, async (t) => {
  await withBrowser(t, async (page) => {
    await page.goto(`${env.issuer}${eventsPath}`);
    await signIn(page, env.studentEmail, env.studentPassword);
    await page.locator('h1', { hasText: 'You cannot manage E2E School One here' }).waitFor({ state: 'visible' });
    assert.equal(await page.locator('#events').count(), 0, 'no events');
  });
});
