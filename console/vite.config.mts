import { fileURLToPath } from 'node:url';

import { defineConfig } from 'vite';

// The console is served by the Parley server at /console (docs/console.md); `npm run build` writes
// console/dist. JSX is compiled by Vite's own transform (tsconfig "jsx": "react-jsx").
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No inline scripts or styles: the CSP allows 'self' only.
    assetsInlineLimit: 0,
    sourcemap: false,
    reportCompressedSize: false,
    rollupOptions: {
      // React Query marks its hooks "use client" for server-component bundlers; in a browser-only bundle that is moot.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  server: {
    // `npm run console:dev`: the API on a running Parley (PARLEY_URL, default http://127.0.0.1:3000).
    proxy: Object.fromEntries(['/v2', '/v1', '/health'].map((prefix) => [prefix, process.env.PARLEY_URL ?? 'http://127.0.0.1:3000'])),
  },
});
