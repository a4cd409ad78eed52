/** How many keys' estimates an instance keeps; the oldest is forgotten past that. */
const MAX_KEYS = 10_000;

/**
 * What the next call of a key is expected to cost, in nano-USD: what a budget reserves before the
 * call (docs/usage.md, "Budgets"). It rises at once to a dearer call's cost and decays by a tenth
 * per cheaper call, so it errs on the high side; a key not seen yet takes its project's, else 0.
 */
export class CostEstimates {
  private readonly byKey = new Map<string, number>();
  private readonly byProject = new Map<string, number>();

  of(projectId: string, keyId: string): number {
    return this.byKey.get(`${projectId}|${keyId}`) ?? this.byProject.get(projectId) ?? 0;
  }

  /** Whether this instance has seen a call of the key or its project end (the estimate is a measure, not a default). */
  knows(projectId: string, keyId: string): boolean {
    return this.byKey.has(`${projectId}|${keyId}`) || this.byProject.has(projectId);
  }

  observe(projectId: string, keyId: string, nano: number): void {
    this.update(this.byKey, `${projectId}|${keyId}`, nano);
    this.update(this.byProject, projectId, nano);
  }

  private update(map: Map<string, number>, key: string, nano: number): void {
    const before = map.get(key);
    map.delete(key);
    map.set(key, before === undefined ? nano : Math.max(nano, Math.round(before * 0.9 + nano * 0.1)));
    if (map.size > MAX_KEYS) map.delete(map.keys().next().value as string);
  }
}
