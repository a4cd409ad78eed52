#!/usr/bin/env node
/**
 * Every `docs/<file>.md` that the code cites exists, and so does the section it names
 * (`docs/security.md, "Idempotency keys"`): a heading with that text, or a paragraph that opens with
 * it in bold. CI runs it (docs/testing.md); it prints each broken citation with where it stands.
 */
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const SOURCES = ['src', 'console/src', 'test', 'scripts', 'bench'];
const CITATION = /docs\/([A-Za-z0-9._/-]+\.md)(?:,?\s*"([^"\n]{2,80})")?/g;

function* files(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist') yield* files(full);
    } else if (/\.(ts|tsx|js|mjs|cjs)$/.test(entry.name)) yield full;
  }
}

const sections = new Map();
function sectionsOf(doc) {
  if (!sections.has(doc)) {
    const text = fs.readFileSync(path.join(root, 'docs', doc), 'utf8');
    const names = new Set();
    for (const line of text.split('\n')) {
      const heading = /^#{1,6}\s+(.*?)\s*$/.exec(line);
      if (heading) names.add(heading[1].replace(/`/g, ''));
      const bold = /^(?:[-*]\s+)?\*\*([^*]+?)\.?\*\*/.exec(line);
      if (bold) names.add(bold[1].replace(/`/g, ''));
    }
    sections.set(doc, names);
  }
  return sections.get(doc);
}

const broken = [];
for (const dir of SOURCES) {
  const base = path.join(root, dir);
  if (!fs.existsSync(base)) continue;
  for (const file of files(base)) {
    if (file === __filename) continue;
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(CITATION)) {
      const [, doc, section] = match;
      const where = `${path.relative(root, file)}:${text.slice(0, match.index).split('\n').length}`;
      if (!fs.existsSync(path.join(root, 'docs', doc))) broken.push(`${where}: docs/${doc} does not exist`);
      else if (
        section &&
        ![...sectionsOf(doc)].some(
          (name) => name === section || name.startsWith(`${section} `) || name.startsWith(`${section}:`) || name.startsWith(`${section} (`),
        )
      ) {
        broken.push(`${where}: docs/${doc} has no section "${section}"`);
      }
    }
  }
}
if (broken.length > 0) {
  console.error(`${broken.length} citation(s) of docs/ point nowhere:\n${broken.join('\n')}`);
  process.exit(1);
}
console.log('every docs/ citation in the code points to a file and section that exist');
