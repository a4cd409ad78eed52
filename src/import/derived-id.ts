import { createHash } from 'node:crypto';

/**
 * The id an imported object gets: UUIDv7-shaped, its 48-bit timestamp the original `created_at`
 * (so imported threads list in their original order among others) and its other bits a SHA-256 of
 * the project id and the original id. The same export imported twice into one project gives the
 * same ids, which is what makes the import idempotent without a mapping table; two projects never
 * share an id. See docs/import.md.
 */
export function derivedId(projectId: string, sourceId: string, createdAtSeconds: number): string {
  const bytes = createHash('sha256').update(`${projectId}\u0000${sourceId}`).digest().subarray(0, 16);
  let ms = BigInt(Math.max(0, Math.floor(createdAtSeconds * 1000)));
  for (let i = 5; i >= 0; i--) {
    bytes[i] = Number(ms & 0xffn);
    ms >>= 8n;
  }
  bytes[6] = 0x70 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
