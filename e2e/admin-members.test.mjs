// Member administration at school 1 (/admin/members), driven in a browser: the owner finds a
// member by searching, changes her role through the confirmation page, sends her a password
// reset link (read from the mailbox) and lifts the lockout her wrong passwords caused; a
// student is refused. docs/security.md, "Member administration".
//
// The member, Mia, is this test's own (e2e/fixture.yaml), so no other test depends on her
// role, her password or her lockout.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { env, signIn, withBrowser } from './lib/harness.mjs';
import { lastSeq, linkIn, waitForMessage } from './lib/mailbox.mjs';

const membersPath = '/admin/members';
const mia = { email: 'mia.managed@e2e.example', name: 'Mia Managed', password: 'e2e-mia-password-1' };

// Form posts hash passwords (argon2id) on a busy machine: their answers get more time.
const slow = { timeout: 30_000 };

function text(locator) {
  return locator.textContent().then((s) => s.replace(/\s+/g, ' ').trim());
}

// confirm follows an action's link on the member's page, checks the confirmation page and
// submits it; the browser comes back to the member's page with a notice.
async function confirm(page, linkName, buttonName, notice) {
  await page.getByRole('link', { name: linkName }).click();
  await page.getByRole('button', { name: buttonName }).waitFor({ state: 'visible' });
  assert.match(new URL(page.url()).pathname, /^\/admin\/members\/\d+\/[a-z-]+$/, `a confirmation page, not ${page.url()}`);
  await page.getByRole('button', { name: buttonName }).click();
  await page.locator('#notice').waitFor(slow);
  assert.match(new URL(page.url()).pathname, /^\/admin\/members\/\d+$/, `back on the member's page, not ${page.url()}`);
  assert.ok((await text(page.locator('#notice'))).includes(notice), `notice ${await text(page.locator('#notice'))}`);
}

// tryWrongPassword submits the sign-in form with a wrong password and returns the answer's
// status.
async function tryWrongPassword(page, email, i) {
  await page.goto(`${env.issuer}/login`);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/login', slow),
    signIn(page, email, `not the password ${i}`),
  ]);
  await page.waitForLoadState();
  return response.status();
}

test('an owner finds a member, changes her role, sends a reset link and lifts her lockout', { timeout: 120_000 }, async (t) => {
  await withBrowser(t, async (owner) => {
    // Not signed in: to the sign-in page and back to the list.
    await owner.goto(`${env.issuer}${membersPath}`);
    assert.equal(new URL(owner.url()).pathname, '/login', `sent to sign in, not ${owner.url()}`);
    await signIn(owner, env.ownerEmail, env.ownerPassword);
    await owner.locator('h1', { hasText: 'Members' }).waitFor(slow);
    assert.equal(new URL(owner.url()).pathname, membersPath, 'back on the list after signing in');

    // Search by part of the name, in another case: Mia alone.
    await owner.getByLabel('Search by e-mail or name').fill('MIA MAN');
    await owner.getByRole('button', { name: 'Search' }).click();
    await owner.waitForURL((u) => u.pathname === membersPath && u.searchParams.get('q') === 'MIA MAN');
    const rows = owner.locator('table.members tbody tr');
    assert.equal(await rows.count(), 1, 'one member matches');
    assert.equal(await text(rows.first().locator('.member-email')), mia.email);
    await rows.first().getByRole('link', { name: mia.name }).click();
    await owner.locator('h1', { hasText: mia.name }).waitFor();
    assert.equal(await text(owner.locator('#member-status')), 'Active');
    assert.equal(await text(owner.locator('#member-roles')), 'student');

    // A role, with confirmation: the boxes show her roles; lecturer instead of student.
    await owner.getByRole('link', { name: 'Change roles' }).click();
    const student = owner.locator('input[name="role"][value="student"]');
    const lecturer = owner.locator('input[name="role"][value="lecturer"]');
    assert.ok(await student.isChecked(), 'her role is checked');
    assert.ok(!(await lecturer.isChecked()));
    await student.uncheck();
    await lecturer.check();
    await owner.getByRole('button', { name: 'Save roles' }).click();
    await owner.locator('#notice').waitFor(slow);
    assert.equal(await text(owner.locator('#notice')), 'The roles were changed.');
    assert.equal(await text(owner.locator('#member-roles')), 'lecturer');

    // A reset link, read from the mailbox.
    const mark = await lastSeq();
    await confirm(owner, 'Send a password reset link', 'Send reset link', 'A password reset link was sent');
    const message = await waitForMessage({ to: mia.email, subject: 'Reset your password', after: mark });
    const link = linkIn(message, `${env.issuer}/login/reset?token=`);
    assert.ok(link.searchParams.get('token'), 'the message carries a reset link');

    // Her account is locked by wrong passwords (in another browser), shown as such, and the
    // owner lifts the lockout.
    await withBrowser(t, async (other) => {
      let last = 0;
      for (let i = 0; i < 6 && last !== 429; i++) {
        last = await tryWrongPassword(other, mia.email, i);
      }
      assert.equal(last, 429, 'the account is locked after five wrong passwords');

      await owner.reload();
      assert.equal(await text(owner.locator('#member-status')), 'Locked');
      await confirm(owner, 'Lift the lockout', 'Lift lockout', 'The lockout was lifted');
      assert.equal(await text(owner.locator('#member-status')), 'Active');

      // Her own password works again at once.
      await other.goto(`${env.issuer}/account`);
      await other.waitForURL((u) => u.pathname === '/login');
      await signIn(other, mia.email, mia.password);
      await other.waitForURL((u) => u.pathname === '/account', slow);
    }, 'member');
  });
});

test('a student is refused the member pages', { timeout: 60_000 }, async (t) => {
  await withBrowser(t, async (page) => {
    await page.goto(`${env.issuer}${membersPath}`);
    await signIn(page, env.studentEmail, env.studentPassword);
    await page.getByRole('heading', { name: /You cannot manage/ }).waitFor(slow);
    assert.equal(new URL(page.url()).pathname, membersPath);
    const body = await page.locator('body').innerText();
    assert.ok(body.includes('Only the owners and admins of E2E School One'), body);
    assert.ok(!body.includes(mia.email), 'the refusal shows no member');
    const again = await page.goto(`${env.issuer}${membersPath}/1/roles`);
    assert.equal(again.status(), 403, 'a member\'s page is refused too');
  });
});
