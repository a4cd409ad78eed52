/**
 * A module-loader hook (./typescript.mjs registers it): a `.ts` file imported with `import()` is
 * CommonJS, so Node.js hands it to `require`, where @swc-node/register compiles it. Everything
 * else loads as Node.js would.
 */
export async function load(url, context, nextLoad) {
  if (url.startsWith('file:') && /\.ts(\?|$)/.test(url)) return { format: 'commonjs', shortCircuit: true };
  return nextLoad(url, context);
}
