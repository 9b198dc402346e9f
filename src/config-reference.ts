/**
 * The configuration reference, generated from the schema in src/config.ts: `.env.example` (every variable commented
 * out at its default) and docs/configuration.md (the same as tables). `npm run gen:config` writes both;
 * test/config-reference.test.ts fails when either differs from the schema, or when a variable has no description.
 * A variable added to the schema (or a marketplace's `settings`) appears here with no other change.
 */
import { z } from 'zod';
import { GLOBAL_VARIABLES, configSchemaShape, marketplaceVariables, type VariableDoc } from './config.js';
import { MARKETPLACE_DESCRIPTORS } from './marketplaces/catalog.js';
import type { MarketplaceDescriptor } from './marketplaces/descriptor.js';

export interface VariableReference {
  name: string;
  description: string;
  /** As a person writes it; `(…)` explains what "unset" means. */
  defaultText: string;
}

export interface ReferenceSection {
  title: string;
  variables: VariableReference[];
}

type Descriptor = Pick<MarketplaceDescriptor, 'id' | 'envName' | 'settings' | 'site'>;

/** What `doc()` attached, and the schema's own default when that is a plain value. */
function describe(name: string, schema: z.ZodType): VariableReference {
  const meta = (schema.meta() ?? {}) as Partial<VariableDoc>;
  if (!meta.description) {
    throw new Error(
      `${name} has no description: wrap its schema in doc(…) (src/config.ts) or add .meta({ description })`,
    );
  }
  return { name, description: meta.description, defaultText: meta.defaultText ?? defaultOf(schema) };
}

function defaultOf(schema: z.ZodType): string {
  if (!(schema instanceof z.ZodDefault)) return '(unset)';
  const value: unknown = schema.def.defaultValue;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new Error(`a default that is not a plain value needs its text: doc(schema, description, defaultText)`);
}

export function configReference(descriptors: readonly Descriptor[] = MARKETPLACE_DESCRIPTORS): ReferenceSection[] {
  const shape = configSchemaShape(descriptors);
  const section = (title: string, names: string[]) => ({
    title,
    variables: names.map((name) => describe(name, shape[name]!)),
  });
  const sections = [
    section('General', GLOBAL_VARIABLES),
    ...descriptors.map((mp) => section(`${mp.site} (${mp.id})`, marketplaceVariables(mp))),
  ];
  const listed = new Set(sections.flatMap((s) => s.variables.map((v) => v.name)));
  const rest = Object.keys(shape).filter((name) => !listed.has(name));
  return rest.length > 0 ? [...sections, section('Other', rest)] : sections;
}

const GENERATED = 'Generated from src/config.ts by `npm run gen:config`: edit the schema there, not this file.';

export function envExample(sections = configReference()): string {
  const lines = [
    '# marketlens configuration: every variable, its default and what it means.',
    `# ${GENERATED}`,
    '# Copy to .env (read from the working directory) and uncomment what you change; real environment variables win.',
    '# Full reference: docs/configuration.md',
  ];
  for (const { title, variables } of sections) {
    lines.push('', `## ${title}`);
    for (const v of variables) {
      lines.push('', `# ${v.description}`);
      const unset = /^\((.*)\)$/.exec(v.defaultText);
      if (unset) lines.push(`# Default: ${unset[1]}`, `# ${v.name}=`);
      else lines.push(`# ${v.name}=${v.defaultText}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function configurationMarkdown(sections = configReference()): string {
  const lines = [
    '# Configuration',
    '',
    `<!-- ${GENERATED} -->`,
    '',
    'marketlens reads `MARKETLENS_*` environment variables, and a `.env` file in the working directory (real variables',
    'win over it; `.env.example` lists every variable at its default). Every value is validated at start-up: a bad',
    'value, or an unknown `MARKETLENS_*` name, stops the process with a message naming it. An empty value means unset.',
  ];
  for (const { title, variables } of sections) {
    lines.push('', `## ${title}`, '', '| variable | meaning | default |', '|---|---|---|');
    for (const v of variables) lines.push(`| \`${v.name}\` | ${cell(v.description)} | ${cell(v.defaultText)} |`);
  }
  return `${lines.join('\n')}\n`;
}
