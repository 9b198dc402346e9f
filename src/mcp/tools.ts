/**
 * The tool declarations bound to their routes, with their schemas built once per app. No MCP SDK at run time here:
 * the app loads the SDK only when an MCP client comes (server.ts, http.ts).
 */
import type { z } from 'zod';
import type { CatalogedRoute, RouteCatalog } from './route-catalog.js';
import { successSchema, toolInput, toolOutput, type ToolOutput } from './schemas.js';
import type { ToolDeclaration } from './tool-specs.js';

/** A declaration bound to its route, with its schemas built once per app. */
export interface ResolvedTool {
  declaration: ToolDeclaration;
  route: CatalogedRoute;
  input: z.ZodType;
  where: Record<string, 'path' | 'query' | 'body'>;
  output: ToolOutput;
  description: string;
}

/** The declarations whose route exists, resolved; the rest are left out (their feature is not registered). */
export function resolveTools(catalog: RouteCatalog, declarations: readonly ToolDeclaration[]): ResolvedTool[] {
  const tools: ResolvedTool[] = [];
  for (const declaration of declarations) {
    const route = catalog.get(declaration.operationId);
    if (!route) continue;
    const { schema, where } = toolInput(route, declaration.input);
    tools.push({
      declaration,
      route,
      input: schema,
      where,
      output: toolOutput(declaration.output ?? successSchema(route)),
      description: [route.summary, route.description].filter(Boolean).join('\n\n'),
    });
  }
  return tools;
}
