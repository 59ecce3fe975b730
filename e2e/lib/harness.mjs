// Shared pieces of the end-to-end tests: the environment e2e/run.sh provides, the
// oauth4webapi client set-up, a loopback callback server, and Debian's chromium through
// playwright-core.

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import * as oauth from 'oauth4webapi';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const resultsDir = path.resolve(here, '..', 'test-results');

function required(name) {
  const v = process.env[name];
  if (!v) {
    throw new Error(`${name} is not set: run the suite through e2e/run.sh (make e2e)`);
  }
  return v;
}

export const env = {
  issuer: required('ISSUER'),
  school2: required('SCHOOL2'),
  clientId: required('CLIENT_ID'),
  confClientId: required('CONF_CLIENT_ID'),
  confClientSecret: required('CONF_CLIENT_SECRET'),
  studentEmail: required('STUDENT_EMAIL'),
  studentPassword: required('STUDENT_PASSWORD'),
  // The owner of school 1 (e2e/fixture.yaml), who manages its OAuth applications.
  ownerEmail: required('OWNER_EMAIL'),
  ownerPassword: required('OWNER_PASSWORD'),
  chromium: process.env.CHROMIUM || '/usr/bin/chromium',
};

// The schools are served over plain http on loopback, which oauth4webapi refuses unless told.
export const insecure = { [oauth.allowInsecureRequests]: true };

// The scopes every authorization asks for, with the descriptions the consent page must show
// for them (the scope catalogue's wording).
export const requestedScopes = {
  openid: 'Confirm who you are',
  profile: 'See your name and picture',
  email: 'See your e-mail address',
  'account:read': 'See your own courses, progress, purchases and notifications at this school',
};
export const scopeParam = Object.keys(requestedScopes).join(' ');

// discover fetches and checks an issuer's OpenID Connect discovery document. The issuer in it
// must be the very string the school is configured with (no added slash).
export async function discover(issuer) {
  const url = new URL(issuer);
  const res = await oauth.discoveryRequest(url, { ...insecure, signal: AbortSignal.timeout(10_000) });
  const as = await oauth.processDiscoveryResponse(url, res);
  if (as.issuer !== issuer) {
    throw new Error(`discovery issuer ${JSON.stringify(as.issuer)} is not exactly ${JSON.stringify(issuer)}`);
  }
  return as;
}

// oauthError says whether err is an OAuth error response with the given code, whether the
// server sent it in the JSON body or in a WWW-Authenticate challenge.
export function oauthError(code) {
  return (err) => {
    if (err instanceof oauth.ResponseBodyError) {
      assert.equal(err.error, code, `error ${err.error}: ${err.error_description ?? ''}`);
      return true;
    }
    if (err instanceof oauth.WWWAuthenticateChallengeError) {
      assert.ok(err.cause.some((c) => c.parameters.error === code),
        `challenges: ${JSON.stringify(err.cause)}`);
      return true;
    }
    throw err;
  };
}

// startCallback listens on a random loopback port and records the first request to
// /callback: the client's redirect URI (any port matches the registered
// http://127.0.0.1/callback, RFC 8252 section 7.3).
export async function startCallback() {
  let resolveHit;
  const hit = new Promise((resolve) => { resolveHit = resolve; });
  const requests = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, `http://${req.headers.host}`);
    requests.push(url);
    if (url.pathname !== '/callback') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><title>E2E callback</title><p id="received">Received.</p>');
    resolveHit(url);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    requests,
    // wait resolves with the callback URL, or rejects after ms.
    wait(ms = 15_000) {
      let timer;
      const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no request reached the callback within ${ms} ms`)), ms);
      });
      return Promise.race([hit, timeout]).finally(() => clearTimeout(timer));
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// authorizationUrl builds an authorization request with PKCE S256, state, nonce and resource.
export async function authorizationUrl(as, clientId, redirectUri) {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const codeChallenge = await oauth.calculatePKCECodeChallenge(codeVerifier);
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: scopeParam,
    resource: env.issuer,
    code_challenge: codeChallenge,
    code_challenge_method: 'S256',
    state,
    nonce,
  }).toString();
  return { url, codeVerifier, state, nonce };
}

// startAuthorization starts a callback server, closed when test t ends, and builds an
// authorization request of clientId that redirects to it (authorizationUrl).
export async function startAuthorization(t, as, clientId) {
  const cb = await startCallback();
  t.after(() => cb.close());
  const req = await authorizationUrl(as, clientId, cb.redirectUri);
  return { cb, req };
}

const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// withBrowser runs fn with a page of a fresh chromium (its own new, empty user data
// directory). If fn fails, a screenshot of the page goes to e2e/test-results/ first, named
// after the test and label (which tells two browsers of one test apart). options are
// playwright's context options for this browser (e.g. locale, which sets Accept-Language).
export async function withBrowser(t, fn, label = '', options = {}) {
  const userDataDir = await mkdtemp(path.join(os.tmpdir(), 'proctor-e2e-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    ...options,
    executablePath: env.chromium,
    headless: true,
    args: chromiumArgs,
    timeout: 30_000,
  });
  context.setDefaultTimeout(10_000);
  context.setDefaultNavigationTimeout(15_000);
  const page = context.pages()[0] ?? await context.newPage();
  try {
    return await fn(page);
  } catch (err) {
    try {
      await mkdir(resultsDir, { recursive: true });
      const name = label ? `${t.name} ${label}` : t.name;
      const file = path.join(resultsDir, `${name.replace(/[^A-Za-z0-9._-]+/g, '-')}.png`);
      await page.screenshot({ path: file, fullPage: true, timeout: 5_000 });
      t.diagnostic(`screenshot: ${file} (page ${page.url()})`);
    } catch (shotErr) {
      t.diagnostic(`no screenshot: ${shotErr.message}`);
    }
    throw err;
  } finally {
    await context.close().catch(() => {});
    await rm(userDataDir, { recursive: true, force: true }).catch(() => {});
  }
}

// signIn fills the school's login form and submits it.
export async function signIn(page, email, password) {
  const form = page.locator('form', { has: page.locator('input[name="email"]') });
  await form.locator('input[name="email"]').fill(email);
  await form.locator('input[name="password"]').fill(password);
  await form.locator('[type="submit"]').click();
}

// onPath matches a URL on the issuer's origin at pathname, for page.waitForURL.
export function onPath(pathname) {
  return (url) => url.origin === env.issuer && url.pathname === pathname;
}

// signInFrom opens path on the issuer, which sends a browser without a session to the sign-in
// page, and signs in there.
export async function signInFrom(page, path, email, password) {
  await page.goto(`${env.issuer}${path}`);
  await page.waitForURL(onPath('/login'));
  await signIn(page, email, password);
}

// decide clicks Approve or Deny on the consent page.
export async function decide(page, decision) {
  await page.locator(`button[name="decision"][value="${decision}"]`).click();
}
