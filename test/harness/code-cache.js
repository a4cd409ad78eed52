const vm = require('node:vm');

/**
 * jest compiles every module again for every test file (each file gets a registry and a realm of
 * its own): `vm.compileFunction`, ~0.5 s of CPU per e2e file for the application's and its
 * libraries' modules. V8 can skip most of that work from the code cache of an earlier compile of
 * the same source; jest does not keep one, so the worker does (docs/testing.md, "Where the time
 * goes"), keyed by file name and checked against the source, in memory, for the worker's life.
 * Installed by test/harness/environment.js.
 */
const INSTALLED = Symbol.for('parley.test.codeCache');

function installCodeCache() {
  if (vm.compileFunction[INSTALLED]) return;
  const compile = vm.compileFunction;
  const cache = new Map();
  const cached = function compileFunction(code, params, options) {
    // A function compiled from the cache loses its dynamic import() callback (Node 20): such modules
    // (PGlite's, loading its WebAssembly) are compiled afresh every time.
    if (!options?.filename || options.cachedData || options.produceCachedData || code.includes('import(')) return compile.call(this, code, params, options);
    const entry = cache.get(options.filename);
    if (entry?.code === code) {
      const fn = compile.call(this, code, params, { ...options, cachedData: entry.data });
      if (!fn.cachedDataRejected) return fn;
    }
    const fn = compile.call(this, code, params, { ...options, produceCachedData: true });
    if (fn.cachedData) cache.set(options.filename, { code, data: fn.cachedData });
    return fn;
  };
  cached[INSTALLED] = true;
  vm.compileFunction = cached;
}

module.exports = { installCodeCache };
