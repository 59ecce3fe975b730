// The message catalogues of the pages (i18n/catalog/<family>.<lang>.yaml), read so that a test
// can find a page's words in any language: msg(lang, key, values) and pattern(lang, key). The
// files are flat maps of keys to text, or to plural forms (the "other" form is used here).

import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'i18n', 'catalog');

// languages are the languages of the pages, English first: those of the common catalogue's
// files (common.<lang>.yaml), as every language has one of each family.
export const languages = readdirSync(dir)
  .map((f) => /^common\.(.+)\.yaml$/.exec(f)?.[1])
  .filter(Boolean)
  .sort((a, b) => (a === 'en' ? -1 : b === 'en' ? 1 : a.localeCompare(b)));

// unquote reads a YAML scalar as the catalogues write them: plain, 'single' or "double" quoted.
function unquote(raw) {
  const v = raw.trim();
  if (v.startsWith('"') && v.endsWith('"')) {
    return JSON.parse(v);
  }
  if (v.startsWith("'") && v.endsWith("'")) {
    return v.slice(1, -1).replaceAll("''", "'");
  }
  return v;
}

// parse reads one catalogue file: top-level "key: value" lines, and "key:" followed by indented
// plural forms, of which "other" is kept.
function parse(text) {
  const out = {};
  let plural = '';
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) {
      continue;
    }
    const indented = /^\s/.test(line);
    const i = line.indexOf(':');
    const key = line.slice(0, i).trim();
    const value = line.slice(i + 1);
    if (!indented) {
      plural = value.trim() === '' ? key : '';
      if (!plural) {
        out[key] = unquote(value);
      }
    } else if (plural && key === 'other') {
      out[plural] = unquote(value);
    }
  }
  return out;
}

const catalogues = new Map();

function catalogue(lang) {
  if (!catalogues.has(lang)) {
    const all = {};
    for (const file of readdirSync(dir).filter((f) => f.endsWith(`.${lang}.yaml`))) {
      Object.assign(all, parse(readFileSync(path.join(dir, file), 'utf8')));
    }
    catalogues.set(lang, all);
  }
  return catalogues.get(lang);
}

// msg is the text of key in lang with its {{.Name}} placeholders filled from values.
export function msg(lang, key, values = {}) {
  const text = catalogue(lang)[key];
  if (text === undefined) {
    throw new Error(`no message ${key} in ${lang}`);
  }
  return text.replace(/\{\{\s*\.(\w+)\s*\}\}/g, (_, name) => {
    if (!(name in values)) {
      throw new Error(`message ${key} needs ${name}`);
    }
    return String(values[name]);
  });
}

// pattern matches the whole text of key in lang, whatever its placeholders hold.
export function pattern(lang, key) {
  const text = msg(lang, key, new Proxy({}, { has: () => true, get: () => '\u0000' }));
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('\u0000', '.*');
  return new RegExp(`^${escaped}$`);
}
