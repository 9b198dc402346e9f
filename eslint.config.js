// Lint rules (typescript-eslint, type-aware). `npm run lint`. `any` is an error: untrusted JSON is read as `unknown`
// (src/util/json-path.ts walks it); tests type what they read (the record types, or small local interfaces).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'eslint.config.js', 'bin/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      // `_name` marks a parameter kept for its position or its documentation.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Control characters in regexes are deliberate in parsers (and in tests of them).
      'no-control-regex': 'off',
    },
  },
  // The dashboard's browser modules: `tsc -p dashboard` checks their names against the DOM library.
  { files: ['dashboard/**/*.js'], rules: { 'no-undef': 'off' } },
);
