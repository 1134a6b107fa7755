import { readFileSync } from 'node:fs';
import path from 'node:path';
import { detectFixtureFormat, type FixtureFormat, type FixtureSource } from '../../src/core/engine.ts';

export function sqlFixture(name: string, sql: string, asOf?: string): FixtureSource {
  return {
    name,
    files: [{ fileName: `${name}.sql`, format: 'sql', bytes: new TextEncoder().encode(sql) }],
    ...(asOf ? { asOf } : {}),
  };
}

export function fileFixture(filePath: string, format?: FixtureFormat): FixtureSource {
  const bytes = new Uint8Array(readFileSync(filePath));
  const fileName = path.basename(filePath);
  const detected = format ?? detectFixtureFormat(fileName, bytes);
  if (!detected) throw new Error(`unknown fixture format: ${filePath}`);
  return { name: fileName.replace(/\.[^.]+$/, ''), files: [{ fileName, format: detected, bytes }] };
}
