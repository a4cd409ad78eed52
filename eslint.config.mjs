// House rules a tool enforces (docs/architecture.md, "House rules"): typescript-eslint's recommended
// rules, imports in one order, and prettier for layout (eslint-config-prettier turns off what it owns).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'console/dist/**', 'node_modules/**', 'coverage/**', 'console/src/api/schema.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    plugins: { 'simple-import-sort': simpleImportSort },
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
      // `_name`: deliberately unused (a field taken out of an object, a parameter a signature needs).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Hostile-input handling matches control characters on purpose (docs/security.md, "Input validation").
      'no-control-regex': 'off',
    },
  },
  {
    // Tests read answers as JSON of any shape.
    files: ['test/**', '**/*.spec.ts', 'console/test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['console/src/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Scripts and configuration in plain CommonJS.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off', 'no-redeclare': ['error', { builtinGlobals: false }] },
  },
);
