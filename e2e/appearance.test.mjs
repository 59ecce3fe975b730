// A school's look and language in a browser: school 3's owner uploads a logo and sets a colour
// and the dark theme through the operator API, and its sign-in and consent pages wear them
// while school 2 on the same listener keeps the defaults; a change shows on the next page; the
// page language follows Accept-Language, the switcher (remembered) and the school's locale;
// and a member signs in, consents and uses the account page with the keyboard alone.
//
// School 3 (http://127.0.0.2:<port>, locale zh-TW) is this file's own: run.sh creates its
// members and applications. The server listens on 127.0.0.1 only, so the file forwards
// 127.0.0.2:<port> to it for as long as it runs.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

import * as oauth from 'oauth4webapi';

import { decide, discover, env, insecure, scopeParam, signIn, startCallback, withBrowser } from './lib/harness.mjs';

const school3 = process.env.SCHOOL3;
const school3ClientId = process.env.SCHOOL3_CLIENT_ID;
const school3OperatorClientId = process.env.SCHOOL3_OPERATOR_CLIENT_ID;
const school3Name = 'E2E School Three';
const owner3 = { email: 'tara.three@e2e.example', password: 'e2e-tara-password-1' };
const student3 = { email: 'stan.three@e2e.example', password: 'e2e-stan-password-1' };
const keyboardMember = { email: 'kim.keyboard@e2e.example', password: 'e2e-kim-password-1' };

// The browsers of the look tests ask for English: school 3's pages are in Traditional Chinese
// only for a browser whose languages it does not offer.
const english = { locale: 'en-US' };

const here = path.dirname(fileURLToPath(import.meta.url));

// catalogue reads the flat "key: value" lines of i18n/catalog/<family>.<lang>.yaml, so that
// the words checked are the catalogue's, whatever its translators make them.
async function catalogue(family, lang) {
  const text = await readFile(path.resolve(here, '..', 'i18n', 'catalog', `${family}.${lang}.yaml`), 'utf8');
  const out = {};
  for (const line of text.split('\n')) {
    const m = /^([a-z0-9_.]+):\s*(.*)$/.exec(line);
    if (!m || m[2] === '') {
      continue;
    }
    let v = m[2].trim();
    if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) {
      v = v.startsWith('"') ? JSON.parse(v) : v.slice(1, -1).replaceAll("''", "'");
    }
    out[m[1]] = v;
  }
  return out;
}

// png is a real PNG image of w×h pixels of one colour (CRC-32 and zlib by hand: no image
// library needed for a logo).
function png(w, h, [r, g, b]) {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) {
      c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    }
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const byte of buf) {
      c = table[(c ^ byte) & 0xff] ^ (c >>> 8);
    }
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: w }, () => [r, g, b]).flat())]);
  const raw = Buffer.concat(Array.from({ length: h }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0)),
  ]);
}

// rgb is "#rrggbb" as getComputedStyle writes a colour.
function rgb(hex) {
  const n = parseInt(hex.slice(1), 16);
  return `rgb(${n >> 16}, ${(n >> 8) & 0xff}, ${n & 0xff})`;
}

let forwarder;
before(async () => {
  assert.ok(school3 && school3ClientId && school3OperatorClientId, 'SCHOOL3 and its client ids are set by run.sh');
  const target = new URL(env.issuer);
  const own = new URL(school3);
  forwarder = net.createServer((inbound) => {
    const outbound = net.connect(Number(target.port), target.hostname);
    inbound.pipe(outbound).pipe(inbound);
    inbound.on('error', () => outbound.destroy());
    outbound.on('error', () => inbound.destroy());
  });
  await new Promise((resolve, reject) => {
    forwarder.once('error', reject);
    forwarder.listen(Number(own.port), own.hostname, resolve);
  });
});
after(() => new Promise((resolve) => {
  forwarder?.close(() => resolve());
}));

// operatorToken is school 3's owner's access token for the appearance and the files, from the
// browser flow (sign-in, consent, code exchange), made once for the file.
let tokenPromise;
function operatorToken(t) {
  tokenPromise ??= (async () => {
    const as = await discover(school3);
    const cb = await startCallback();
    try {
      const codeVerifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = new URL(as.authorization_endpoint);
      url.search = new URLSearchParams({
        response_type: 'code', client_id: school3OperatorClientId, redirect_uri: cb.redirectUri,
        scope: 'appearance:read appearance:write storage:write', resource: school3,
        code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier), code_challenge_method: 'S256', state,
      }).toString();
      const received = await withBrowser(t, async (page) => {
        await page.goto(url.href);
        await signIn(page, owner3.email, owner3.password);
        await decide(page, 'approve');
        return cb.wait();
      }, 'owner', english);
      const client = { client_id: school3OperatorClientId };
      const got = oauth.validateAuthResponse(as, client, received, state);
      const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), got, cb.redirectUri, codeVerifier,
        { ...insecure, additionalParameters: { resource: school3 } });
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, res);
      return tokens.access_token;
    } finally {
      await cb.close();
    }
  })();
  return tokenPromise;
}

// api calls school 3's operator API; a body that is not a Buffer is sent as JSON.
async function api(token, method, p, body, contentType = 'application/json') {
  const headers = { authorization: `Bearer ${token}` };
  if (body !== undefined) {
    headers['content-type'] = contentType;
  }
  const res = await fetch(new URL(`/api/v1${p}`, school3), {
    method, headers, body: body === undefined || Buffer.isBuffer(body) ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: the text says what it is
  }
  return { status: res.status, json, text };
}

async function setAppearance(token, patch) {
  const r = await api(token, 'PATCH', '/school/appearance', patch);
  assert.equal(r.status, 200, `update-appearance ${JSON.stringify(patch)}: ${r.text}`);
  return r.json;
}

// brandOf reads the page's school stylesheet (/assets/look-*.css), fetched from the page's
// origin: the colours look.PaletteOf made of the school's colour, by custom property.
async function brandOf(page) {
  const href = await page.locator('link[rel="stylesheet"][href^="/assets/look-"]').getAttribute('href');
  const res = await fetch(new URL(href, page.url()), { signal: AbortSignal.timeout(10_000) });
  assert.equal(res.status, 200, `${href}`);
  const css = await res.text();
  const props = {};
  for (const m of css.matchAll(/--([a-z-]+):\s*(#[0-9a-f]{6})/g)) {
    props[m[1]] = m[2];
  }
  return props;
}

// wantLook checks that the page wears school 3's look: the theme, the logo loaded from the
// school's own origin, and the primary button in the colour the theme uses.
async function wantLook(page, { theme, logo, brand }) {
  assert.equal(await page.locator('html').getAttribute('data-theme'), theme, 'data-theme');
  const origin = new URL(page.url()).origin;
  assert.equal(origin, school3, 'the page is on school 3');
  if (logo) {
    const img = page.locator('header img.logo');
    const src = await img.getAttribute('src');
    assert.match(src, /^\/assets\/logo-[0-9a-f]{16}$/, 'the logo is a content-named asset');
    assert.equal(await img.getAttribute('alt'), school3Name, 'the logo is named for the school');
    await page.waitForFunction(() => {
      const i = document.querySelector('header img.logo');
      return i && i.complete && i.naturalWidth > 0;
    });
    const loaded = await img.evaluate((i) => ({ src: i.currentSrc, w: i.naturalWidth, h: i.naturalHeight }));
    assert.equal(new URL(loaded.src).origin, school3, 'the logo comes from the school\'s origin');
    assert.deepEqual([loaded.w, loaded.h], [logo.width, logo.height], 'the logo is the uploaded image');
  } else {
    assert.equal(await page.locator('header img.logo').count(), 0, 'no logo');
    assert.equal((await page.locator('header .school').textContent()).trim(), school3Name, 'the school\'s name instead');
  }
  const props = await brandOf(page);
  const side = theme === 'dark' ? 'brand-dark' : 'brand';
  assert.equal(props[side], brand, `--${side} of the school's stylesheet`);
  const button = page.locator('main button.primary').first();
  assert.equal(await button.evaluate((b) => getComputedStyle(b).backgroundColor), rgb(brand),
    'the primary button wears the school\'s colour');
}

// authorizeUrl is an authorization request of school 3's member application.
async function authorizeUrl(redirectUri) {
  const as = await discover(school3);
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code', client_id: school3ClientId, redirect_uri: redirectUri, scope: scopeParam,
    resource: school3, code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
    code_challenge_method: 'S256', state: oauth.generateRandomState(),
  }).toString();
  return url;
}

const logo = { width: 24, height: 12, bytes: png(24, 12, [0x0f, 0x76, 0x6e]) };
let logoFileId;

test('a school\'s logo, colour and theme on its sign-in and consent pages, and not on another school\'s', { timeout: 90_000 }, async (t) => {
  const token = await operatorToken(t);

  const up = await api(token, 'POST', '/files?name=logo.png', logo.bytes, 'image/png');
  assert.equal(up.status, 201, `upload: ${up.text}`);
  logoFileId = up.json.id;
  const notes = await api(token, 'POST', '/files?name=notes.txt', Buffer.from('not a logo\n'), 'text/plain');
  assert.equal(notes.status, 201, `upload: ${notes.text}`);
  const refused = await api(token, 'PATCH', '/school/appearance', { logo_file_id: notes.json.id });
  assert.equal(refused.status, 422, `a text file as the logo: ${refused.text}`);
  assert.ok(refused.json.errors.some((e) => e.location === 'body.logo_file_id'), refused.text);

  const a = await setAppearance(token, { logo_file_id: logoFileId, primary_color: '#f59e0b', theme: 'dark' });
  assert.equal(a.logo_file_id, logoFileId);
  assert.equal(a.logo_url, '');

  const cb = await startCallback();
  t.after(() => cb.close());
  const url = await authorizeUrl(cb.redirectUri);
  await withBrowser(t, async (page) => {
    await page.goto(url.href);
    await page.locator('input[name="email"]').waitFor({ state: 'visible' });
    // #f59e0b reads on the dark surfaces, so the dark side keeps it as it is.
    await wantLook(page, { theme: 'dark', logo, brand: '#f59e0b' });

    await signIn(page, student3.email, student3.password);
    await page.locator('button[name="decision"][value="approve"]').waitFor({ state: 'visible' });
    await wantLook(page, { theme: 'dark', logo, brand: '#f59e0b' });

    // School 2, on the same listener, has no appearance: the defaults, its name, no look.
    await page.goto(`${env.school2}/login`);
    await page.locator('input[name="email"]').waitFor({ state: 'visible' });
    assert.equal(await page.locator('html').getAttribute('data-theme'), 'auto');
    assert.equal(await page.locator('header img.logo').count(), 0, 'school 2 shows no logo');
    assert.equal((await page.locator('header .school').textContent()).trim(), 'E2E School Two');
    assert.equal(await page.locator('link[href^="/assets/look-"]').count(), 0, 'school 2 has no school stylesheet');
  }, 'student', english);
});

test('an appearance change shows on the next page load', { timeout: 90_000 }, async (t) => {
  assert.ok(logoFileId, 'the previous test uploaded the logo');
  const token = await operatorToken(t);
  await withBrowser(t, async (page) => {
    const load = async () => {
      await page.goto(`${school3}/login`);
      await page.locator('input[name="email"]').waitFor({ state: 'visible' });
    };
    await load();
    await wantLook(page, { theme: 'dark', logo, brand: '#f59e0b' });

    await setAppearance(token, { primary_color: '#1d4ed8', theme: 'light' });
    await load();
    await wantLook(page, { theme: 'light', logo, brand: '#1d4ed8' });

    await setAppearance(token, { logo_file_id: 0 });
    await load();
    await wantLook(page, { theme: 'light', logo: null, brand: '#1d4ed8' });
  }, '', english);
});

test('the page language: Accept-Language, the switcher (remembered), the school\'s locale', { timeout: 60_000 }, async (t) => {
  const words = {
    en: await catalogue('common', 'en'),
    ja: await catalogue('common', 'ja'),
    'zh-TW': await catalogue('common', 'zh-TW'),
  };
  const wantLanguage = async (page, lang) => {
    await page.locator(`html[lang="${lang}"]`).waitFor({ state: 'attached' });
    assert.equal(await page.locator('nav.languages').getAttribute('aria-label'), words[lang]['layout.language'],
      `the switcher is named in ${lang}`);
    assert.equal(await page.locator('nav.languages a[aria-current="true"]').getAttribute('hreflang'), lang,
      'the switcher marks the page\'s language');
  };

  await withBrowser(t, async (page) => {
    await page.goto(`${env.issuer}/login`);
    await wantLanguage(page, 'ja');

    // The switcher's link sets the choice and comes back to this page, now in English (the
    // wait is for the new page's html[lang="en"]).
    await page.locator('nav.languages a[hreflang="en"]').click();
    await wantLanguage(page, 'en');
    assert.equal(new URL(page.url()).pathname, '/login', 'back on the page the switcher was used on');

    // Remembered: a new page load in this browser stays English, Accept-Language ja or not.
    await page.goto(`${env.issuer}/login`);
    await wantLanguage(page, 'en');
  }, 'ja', { locale: 'ja-JP' });

  // School 3's locale is zh-TW: a browser asking for a language the pages do not offer gets it.
  await withBrowser(t, async (page) => {
    await page.goto(`${school3}/login`);
    await wantLanguage(page, 'zh-TW');
  }, 'fr', { locale: 'fr-FR' });
});

// focusOn presses Tab (Shift+Tab with back) until the focused element matches selector, and
// checks that the focus is visible there: :focus-visible matches and draws an outline.
async function focusOn(page, selector, { back = false, max = 40 } = {}) {
  for (let i = 0; ; i++) {
    if (await page.evaluate((sel) => document.activeElement?.matches(sel) ?? false, selector)) {
      break;
    }
    assert.ok(i < max, `${selector} not reached with ${max} presses of ${back ? 'Shift+Tab' : 'Tab'}`);
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  const seen = await page.evaluate(() => {
    const el = document.activeElement;
    const s = getComputedStyle(el);
    return { visible: el.matches(':focus-visible'), style: s.outlineStyle, width: parseFloat(s.outlineWidth) };
  });
  assert.ok(seen.visible, `${selector}: the focus is not :focus-visible`);
  assert.ok(seen.style !== 'none' && seen.width > 0, `${selector}: no focus outline (${seen.style} ${seen.width}px)`);
}

test('keyboard only: sign in, consent and the account page', { timeout: 90_000 }, async (t) => {
  const as = await discover(env.issuer);
  const cb = await startCallback();
  t.after(() => cb.close());
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code', client_id: env.clientId, redirect_uri: cb.redirectUri, scope: scopeParam,
    resource: env.issuer, code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
    code_challenge_method: 'S256', state: oauth.generateRandomState(),
  }).toString();

  await withBrowser(t, async (page) => {
    await page.goto(url.href);
    await page.locator('input[name="email"]').waitFor({ state: 'visible' });
    await focusOn(page, 'input[name="email"]');
    await page.keyboard.type(keyboardMember.email);
    await focusOn(page, 'input[name="password"]');
    await page.keyboard.type(keyboardMember.password);
    await focusOn(page, 'form:has(input[name="password"]) [type="submit"]');
    await page.keyboard.press('Enter');

    const approve = page.locator('button[name="decision"][value="approve"]');
    await approve.waitFor({ state: 'visible' });
    await focusOn(page, 'button[name="decision"][value="approve"]');
    await page.keyboard.press('Space');
    const received = await cb.wait();
    assert.ok(received.searchParams.get('code'), 'the application received a code');
    await page.locator('#received').waitFor({ state: 'visible' });

    await page.goto(`${env.issuer}/account`);
    await page.locator('#name').waitFor({ state: 'visible' });
    await focusOn(page, '#name');
    // Past the field and back again.
    await page.keyboard.press('Tab');
    await focusOn(page, '#name', { back: true });
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('Kim Keys');
    await focusOn(page, 'form[action="/account/profile"] [type="submit"]');
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === '/account' && u.searchParams.get('done') === 'profile');
    await page.locator('#notice').waitFor({ state: 'visible' });
    assert.equal((await page.locator('#member-name').textContent()).trim(), 'Kim Keys');

    await focusOn(page, '#security-link');
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === '/account/security');
  }, '', english);
});
