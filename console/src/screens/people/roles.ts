import type { Schemas } from '../../api/client';

/** A person's role (docs/security.md, "Roles"), weakest first, with what it lets them do. */
export type Role = Schemas['PutMemberDto']['role'];

export const ROLES: { id: Role; label: string }[] = [
  { id: 'viewer', label: 'viewer: reads' },
  { id: 'editor', label: 'editor: edits, no deploys' },
  { id: 'deployer', label: 'deployer: edits and deploys' },
  { id: 'admin', label: 'admin: everything, members too' },
];
