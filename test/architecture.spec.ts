import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

/**
 * The layer order of docs/architecture.md ("Layers"), held against the imports of every source
 * file under src/: a folder imports only from folders on lower layers.
 */
const ROOT = path.join(__dirname, '..');
const SRC = path.join(ROOT, 'src');

function readLayers(): string[][] {
  const doc = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const block = /```layers\n([\s\S]*?)```/.exec(doc);
  if (!block) throw new Error('docs/architecture.md has no ```layers block');
  return block[1]
    .split('\n')
    .map((line) => line.trim().split(/\s+/).filter(Boolean))
    .filter((names) => names.length > 0);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [full] : [];
  });
}

/** The top-level entry of src/ a path belongs to: its first folder, or the file itself. */
const unitOf = (file: string): string => path.relative(SRC, file).split(path.sep)[0];

const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

function importsBetweenUnits(): { from: string; to: string; file: string; spec: string }[] {
  const found: { from: string; to: string; file: string; spec: string }[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const target = path.resolve(path.dirname(file), match[1]);
      if (!target.startsWith(SRC + path.sep)) continue;
      const from = unitOf(file);
      const to = unitOf(target.endsWith('.ts') ? target : `${target}.ts`);
      if (from !== to) found.push({ from, to, file: path.relative(ROOT, file), spec: match[1] });
    }
  }
  return found;
}

describe('layers (docs/architecture.md)', () => {
  const layers = readLayers();
  const layerOf = new Map<string, number>();
  layers.forEach((names, index) => names.forEach((name) => layerOf.set(name, index)));

  it('places every folder and top-level file of src/ on a layer', () => {
    const units = readdirSync(SRC).filter((name) => !name.endsWith('.spec.ts'));
    const unplaced = units.filter((name) => !layerOf.has(name));
    expect(unplaced).toEqual([]);
  });

  it('lists no folder that does not exist', () => {
    const units = new Set(readdirSync(SRC));
    expect([...layerOf.keys()].filter((name) => !units.has(name))).toEqual([]);
  });

  it('finds imports between folders to check', () => {
    // A reader that found nothing would pass the next test without checking anything.
    expect(importsBetweenUnits().length).toBeGreaterThan(100);
  });

  it('has no import running back up or sideways between peers', () => {
    const wrong = importsBetweenUnits()
      .filter(({ from, to }) => layerOf.has(from) && layerOf.has(to) && layerOf.get(to)! <= layerOf.get(from)!)
      .map(
        ({ file, spec, from, to }) => `${file} imports ${spec}: ${from} (layer ${layerOf.get(from)}) -> ${to} (layer ${layerOf.get(to)})`,
      );
    expect(wrong).toEqual([]);
  });
});
