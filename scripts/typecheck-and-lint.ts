/**
 * `npm run checks`' typecheck and lint in one process: the TypeScript programs of tsconfig.json (src, test, bench,
 * scripts) and dashboard/tsconfig.json are built once, type-checked (as `npm run typecheck` does), then handed to
 * ESLint (as `npm run lint` does), whose type-aware rules would otherwise build the same programs again. Prints
 * both tools' usual output; exits non-zero on a type error or a lint error.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

function program(tsconfig: string): ts.Program {
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d: ts.Diagnostic) => console.error(d.messageText) };
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, tsconfig), {}, host);
  if (!parsed) throw new Error(`cannot read ${tsconfig}`);
  return ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    projectReferences: parsed.projectReferences,
  });
}

const programs = [program('tsconfig.json'), program('dashboard/tsconfig.json')];
const diagnostics = programs.flatMap((p) => ts.getPreEmitDiagnostics(p));
if (diagnostics.length)
  process.stdout.write(
    ts.formatDiagnosticsWithColorAndContext(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => ROOT,
      getNewLine: () => '\n',
    }),
  );

const eslint = new ESLint({
  cwd: ROOT,
  overrideConfig: { languageOptions: { parserOptions: { projectService: false, programs } } },
});
const results = await eslint.lintFiles(['.']);
const formatted = await (await eslint.loadFormatter('stylish')).format(results);
if (formatted) process.stdout.write(formatted);
const lintErrors = results.reduce((n, r) => n + r.errorCount + r.fatalErrorCount, 0);
process.exitCode = diagnostics.length || lintErrors ? 1 : 0;
