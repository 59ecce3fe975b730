// /mcp at school 1 as the TypeScript MCP SDK's client meets it: anonymous first (the public
// catalogue tools only), then its own OAuth flow started by a member tool's 401: discovery from
// the challenge, PKCE, resource, the member signing in and approving in a browser, the code
// exchange, and the member tool called with the token.
//
// The client is the public member client run.sh creates, handed to the SDK as pre-registered
// client information, so the SDK registers nothing: the registration endpoint only knows vendor
// integrations, which are operator clients and never get account:* (docs/mcp.md).

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';

import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { decide, env, signIn, startCallback, withBrowser } from './lib/harness.mjs';

const mcpUrl = new URL('/mcp', env.issuer);
const publicTools = ['get_course', 'get_pricing', 'list_courses', 'search_courses'];
const readTools = ['my_course_curriculum', 'my_courses', 'my_notification_subscriptions', 'my_notifications', 'my_payments'];
const writeTools = ['mark_all_notifications_read', 'mark_notification_read', 'set_notification_subscription'];

async function connect(t, options) {
  const client = new Client({ name: 'proctor-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(mcpUrl, options);
  await client.connect(transport);
  t.after(() => client.close());
  return { client, transport };
}

async function toolNames(client) {
  const { tools } = await client.listTools();
  return tools.map((tool) => tool.name).sort();
}

// A member client's side of OAuth as the SDK asks for it: pre-registered client information,
// the loopback redirect, and storage for the state, verifier and tokens of one authorization.
class MemberClientProvider {
  constructor(redirectUri) {
    this.redirectUri = redirectUri;
    this.saved = {};
    this.authorizationUrl = undefined;
  }

  get redirectUrl() { return this.redirectUri; }

  get clientMetadata() {
    return {
      client_name: 'E2E App',
      redirect_uris: [this.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state() {
    this.saved.state = randomBytes(16).toString('base64url');
    return this.saved.state;
  }

  clientInformation() { return { client_id: env.clientId }; }

  tokens() { return this.saved.tokens; }

  saveTokens(tokens) { this.saved.tokens = tokens; }

  redirectToAuthorization(url) { this.authorizationUrl = url; }

  saveCodeVerifier(verifier) { this.saved.verifier = verifier; }

  codeVerifier() { return this.saved.verifier; }

  // The SDK calls this when a refresh is refused (invalid_grant): the tokens are dead.
  invalidateCredentials(scope) {
    if (scope === 'all' || scope === 'tokens') this.saved.tokens = undefined;
  }
}

// approveInBrowser signs the student in at the authorization URL the SDK handed over, approves,
// and returns the URL the callback received.
async function approveInBrowser(t, authUrl, cb) {
  return withBrowser(t, async (page) => {
    await page.goto(authUrl.href);
    await signIn(page, env.studentEmail, env.studentPassword);
    await page.getByText('E2E App').first().waitFor({ state: 'visible' });
    await decide(page, 'approve');
    const url = await cb.wait();
    await page.locator('#received').waitFor({ state: 'visible' });
    return url;
  });
}

test('anonymous: the public tools over the published catalogue', { timeout: 30_000 }, async (t) => {
  const { client } = await connect(t);
  assert.deepEqual(await toolNames(client), publicTools);

  const list = await client.callTool({ name: 'list_courses', arguments: {} });
  assert.ok(!list.isError, JSON.stringify(list));
  assert.deepEqual(list.structuredContent.courses.map((c) => c.slug), ['e2e-go'], 'the draft is not listed');
  assert.deepEqual(list.structuredContent.courses[0].price, { amount: 1999, currency: 'EUR' });

  const outline = await client.callTool({ name: 'get_course', arguments: { slug: 'e2e-go' } });
  assert.equal(outline.structuredContent.total_lectures, 2);

  const pricing = await client.callTool({ name: 'get_pricing', arguments: {} });
  assert.deepEqual(pricing.structuredContent.membership_plans.map((p) => p.slug), ['e2e-monthly']);
  assert.deepEqual(pricing.structuredContent.upcoming_events.map((e) => e.slug), ['e2e-meetup']);

  // A bad argument is a tool error, not a protocol or HTTP error.
  const bad = await client.callTool({ name: 'list_courses', arguments: { first: 500 } });
  assert.equal(bad.isError, true);
});

test('member: OAuth from the 401 of a member tool, then the member tools', { timeout: 60_000 }, async (t) => {
  const cb = await startCallback();
  t.after(() => cb.close());
  const provider = new MemberClientProvider(cb.redirectUri);
  const { client, transport } = await connect(t, { authProvider: provider });
  assert.deepEqual(await toolNames(client), publicTools, 'no token yet: public tools');

  // The member tool's 401 starts the SDK's flow: it reads resource_metadata and scope from the
  // challenge, discovers the authorization server and hands over the authorization URL.
  await assert.rejects(client.callTool({ name: 'my_courses', arguments: {} }), UnauthorizedError);
  const authUrl = provider.authorizationUrl;
  assert.ok(authUrl, 'the SDK asked for the authorization URL to be opened');
  assert.equal(authUrl.origin + authUrl.pathname, `${env.issuer}/oauth/authorize`);
  const q = authUrl.searchParams;
  assert.equal(q.get('client_id'), env.clientId);
  assert.equal(q.get('code_challenge_method'), 'S256');
  assert.ok(q.get('code_challenge'), 'PKCE challenge');
  assert.equal(q.get('resource'), mcpUrl.href, 'resource is the one of /mcp\'s own metadata (RFC 9728 section 3.1)');
  assert.equal(q.get('scope'), 'account:read', 'the scope the challenge named');
  assert.equal(q.get('state'), provider.saved.state);
  assert.equal(q.get('redirect_uri'), cb.redirectUri);

  const received = await approveInBrowser(t, authUrl, cb);
  assert.equal(received.searchParams.get('iss'), env.issuer, 'RFC 9207 iss');
  assert.equal(received.searchParams.get('state'), provider.saved.state);
  await transport.finishAuth(received.searchParams.get('code'));
  assert.ok(provider.saved.tokens?.access_token, 'the SDK exchanged the code');
  assert.match(provider.saved.tokens.scope ?? 'account:read', /account:read/);

  const mine = await client.callTool({ name: 'my_courses', arguments: {} });
  assert.ok(!mine.isError, JSON.stringify(mine));
  const [course] = mine.structuredContent.courses;
  assert.equal(course.slug, 'e2e-go');
  assert.equal(course.has_lifetime_access, true);
  assert.deepEqual(course.progress, { total_lectures: 2, completed_lectures: 1, read_lectures: 0, percent: 50 });

  const names = await toolNames(client);
  for (const name of [...publicTools, ...readTools]) {
    assert.ok(names.includes(name), `${name} in ${names}`);
  }
  for (const name of writeTools) {
    assert.ok(!names.includes(name), `${name} needs account:write, which was not asked for`);
  }

  const payments = await client.callTool({ name: 'my_payments', arguments: {} });
  assert.deepEqual(payments.structuredContent.payments, []);

  // The token is bound to school 1's origin: school 2, on the same server, refuses it with a
  // challenge naming school 2's own metadata.
  const res = await fetch(new URL('/mcp', env.school2), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${provider.saved.tokens.access_token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  assert.equal(res.status, 401);
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /error="invalid_token"/);
  assert.ok(challenge.includes(`resource_metadata="${env.school2}/.well-known/oauth-protected-resource/mcp"`), challenge);
  assert.ok(challenge.includes('scope="account:read account:write"'), challenge);
});

test('member: a revoked token, and the SDK authorizes again for the member scopes', { timeout: 90_000 }, async (t) => {
  const cb = await startCallback();
  t.after(() => cb.close());
  const provider = new MemberClientProvider(cb.redirectUri);
  const { client, transport } = await connect(t, { authProvider: provider });
  await assert.rejects(client.callTool({ name: 'my_courses', arguments: {} }), UnauthorizedError);
  await transport.finishAuth((await approveInBrowser(t, provider.authorizationUrl, cb)).searchParams.get('code'));
  const first = provider.saved.tokens;
  assert.ok(first?.access_token && first?.refresh_token, 'an access and a refresh token');
  assert.ok(!(await client.callTool({ name: 'my_courses', arguments: {} })).isError);

  // The member revokes the grant (RFC 7009: the refresh token, and with it the access token).
  const revoked = await fetch(new URL('/api/oauth/revoke', env.issuer), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: first.refresh_token, token_type_hint: 'refresh_token', client_id: env.clientId }),
  });
  assert.equal(revoked.status, 200, await revoked.text());

  // The dead token's 401 names the member scopes and /mcp's metadata, which lists only those:
  // the SDK's refresh is refused (invalid_grant), it drops the tokens and starts a new
  // authorization of the same public member client, for scopes a member client can get. Before,
  // the challenge named no scope and the metadata all 38, operator scopes included, which the
  // authorization server refuses a member client (invalid_scope).
  provider.authorizationUrl = undefined;
  const cb2 = await startCallback();
  t.after(() => cb2.close());
  provider.redirectUri = cb2.redirectUri;
  await assert.rejects(client.callTool({ name: 'my_courses', arguments: {} }), UnauthorizedError);
  assert.equal(provider.saved.tokens, undefined, 'the SDK dropped the dead tokens');
  const again = provider.authorizationUrl;
  assert.ok(again, 'the SDK asked for a new authorization');
  assert.equal(again.searchParams.get('client_id'), env.clientId, 'the same public member client');
  assert.equal(again.searchParams.get('scope'), 'account:read account:write', 'the member scopes, no operator scope');
  assert.equal(again.searchParams.get('resource'), mcpUrl.href);

  const received = await approveInBrowser(t, again, cb2);
  assert.equal(received.searchParams.get('error'), null, received.href);
  await transport.finishAuth(received.searchParams.get('code'));
  assert.ok(provider.saved.tokens?.access_token && provider.saved.tokens.access_token !== first.access_token, 'a new token');

  const mine = await client.callTool({ name: 'my_courses', arguments: {} });
  assert.ok(!mine.isError, JSON.stringify(mine));
  assert.deepEqual(mine.structuredContent.courses.map((c) => c.slug), ['e2e-go']);
  // account:write came with it: a write tool runs too.
  const marked = await client.callTool({ name: 'mark_all_notifications_read', arguments: {} });
  assert.ok(!marked.isError, JSON.stringify(marked));
});
