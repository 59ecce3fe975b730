// Accessibility checks of the server-rendered pages with axe-core (@axe-core/playwright, which
// takes playwright-core's Page as it is): the rules of WCAG 2.0, 2.1 and 2.2 at levels A and
// AA, and the page's colour themes.

import assert from 'node:assert/strict';

import { AxeBuilder } from '@axe-core/playwright';

// The axe-core tags of the success criteria the pages must meet.
export const wcagTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

// The themes a page is looked at in: the browser's colour scheme drives data-theme="auto" (the
// attribute absent is auto too).
export const themes = [
  { name: 'light', colorScheme: 'light', dataTheme: null },
  { name: 'dark', colorScheme: 'dark', dataTheme: null },
];

// The attribute set against the browser's preference: the stylesheet's other selector of each
// theme. The values are the same as in themes (a test compares them), so one page suffices.
export const forcedThemes = [
  { name: 'data-theme=dark', colorScheme: 'light', dataTheme: 'dark' },
  { name: 'data-theme=light', colorScheme: 'dark', dataTheme: 'light' },
];

// applyTheme sets the browser's colour scheme and the page's data-theme attribute (removed for
// null; a page the server rendered with an attribute keeps it when dataTheme is undefined).
export async function applyTheme(page, theme) {
  await page.emulateMedia({ colorScheme: theme.colorScheme });
  if (theme.dataTheme !== undefined) {
    await page.evaluate((value) => {
      const root = document.documentElement;
      if (value === null) {
        root.removeAttribute('data-theme');
      } else {
        root.setAttribute('data-theme', value);
      }
    }, theme.dataTheme);
  }
}

// describe formats axe's violations one node a line: rule id, impact, target selectors, help.
export function describe(violations) {
  const lines = [];
  for (const v of violations) {
    for (const node of v.nodes) {
      lines.push(`  ${v.id} [${v.impact ?? node.impact ?? 'unknown'}] ${JSON.stringify(node.target)}: ${v.help} (${v.helpUrl})`);
      const why = (node.failureSummary ?? '').split('\n').map((s) => s.trim()).filter(Boolean);
      for (const s of why) {
        lines.push(`      ${s}`);
      }
    }
  }
  return lines.join('\n');
}

// knownIssue says whether a violation's node is one of known: entries { rule, target } where
// target is a selector string axe reports for the node (its last part, the element itself).
function knownIssue(known, rule, node) {
  const target = node.target.flat().join(' ');
  return known.find((k) => k.rule === rule && (k.target === undefined || target === k.target || target.endsWith(` ${k.target}`)));
}

// violations runs axe on the page as it is and returns a readable list of its violations, or
// '' when there is none. known lists violations already reported elsewhere ({ rule, target,
// why }): a node that matches one is left out and the entry is added to matched (a Set the
// caller can use to tell an entry that no longer matches anything).
async function violations(page, label, { known = [], matched = new Set() } = {}) {
  // Legacy mode runs axe in the page itself: the pages have no frames, and it spares opening a
  // second page for every check.
  const results = await new AxeBuilder({ page }).withTags(wcagTags).setLegacyMode().analyze();
  assert.ok(results.passes.length > 0, `${label}: axe checked nothing on ${page.url()}`);
  const left = [];
  for (const v of results.violations) {
    const nodes = v.nodes.filter((node) => {
      const k = knownIssue(known, v.id, node);
      if (k) {
        matched.add(k);
        return false;
      }
      return true;
    });
    if (nodes.length > 0) {
      left.push({ ...v, nodes });
    }
  }
  if (left.length === 0) {
    return '';
  }
  const count = left.reduce((n, v) => n + v.nodes.length, 0);
  return `${label}: ${count} accessibility violation(s) on ${page.url()}\n${describe(left)}`;
}

// expectNoViolations fails, listing every violation (rule id, impact, target selectors, help),
// unless axe finds none on the page as it is. options: { known, matched } as for violations.
export async function expectNoViolations(page, label, options) {
  const found = await violations(page, label, options);
  if (found) {
    assert.fail(found);
  }
}

// expectNoViolationsInThemes checks the page in every theme of list (themes by default) and
// fails with the violations of all of them. The page is left in the last theme.
export async function expectNoViolationsInThemes(page, label, options, list = themes) {
  const found = [];
  for (const theme of list) {
    await applyTheme(page, theme);
    found.push(await violations(page, `${label} (${theme.name})`, options));
  }
  const failures = found.filter(Boolean);
  if (failures.length > 0) {
    assert.fail(failures.join('\n'));
  }
}
