// ESLint flat config (`npm run lint`, a stage of `npm test`). Besides the recommended rules of
// ESLint and typescript-eslint, it keeps the layers apart (docs/ARCHITECTURE.md, "Layers"):
// - src/core, src/journal, src/runtime and src/protocol never import `vscode` (they run and are
//   tested in plain Node);
// - webview/ runs in the browser: it imports only src/core and src/protocol of this repository
//   (and its npm packages), never `vscode`, Node's modules or the other layers.
// The per-layer TypeScript settings (tsconfig.core.json, tsconfig.webview.json, tsconfig.node.json)
// check the other half: which globals (DOM, Node) each layer may use.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const NO_VSCODE = {
  name: 'vscode',
  message: 'Only src/host imports vscode: src/core, src/journal, src/runtime and src/protocol run in plain Node (docs/ARCHITECTURE.md, Layers).',
};

const WEBVIEW_ONLY = 'webview/ imports only src/core and src/protocol of this repository: it runs in the browser (docs/ARCHITECTURE.md, Layers).';

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', '.vscode-test/**', 'test-artifacts/**', 'test/fixtures/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Stylistic or noisy here, and changing them would churn files other work is editing:
      '@typescript-eslint/no-non-null-assertion': 'off', // `x!` after a check the compiler cannot follow
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      'no-empty': ['error', { allowEmptyCatch: true }],
      'no-useless-assignment': 'off', // a defensive initial value before a try
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }], // `let x!: T` read by closures before it is set
    },
  },
  {
    files: ['src/core/**/*.ts', 'src/journal/**/*.ts', 'src/runtime/**/*.ts', 'src/protocol/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [NO_VSCODE] }] },
  },
  {
    files: ['webview/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ ...NO_VSCODE, message: WEBVIEW_ONLY }],
          patterns: [
            { regex: '(^|/)src/(?!core/|protocol/)', message: WEBVIEW_ONLY },
            { regex: '^(\\.\\./)+(test|bench|scripts)(/|$)', message: WEBVIEW_ONLY },
            { regex: '^node:', message: WEBVIEW_ONLY },
            { regex: '(^|/)src/protocol/decode$', message: 'src/protocol/decode.ts is the host\'s decoder (zod): the view checks host messages with src/protocol/checkHostMessage.ts.' },
            { regex: '^zod($|/)', message: 'The view bundles no validator library: see src/protocol/checkHostMessage.ts.' },
          ],
        },
      ],
    },
  },
);
